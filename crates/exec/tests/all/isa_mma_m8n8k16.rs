//! `mma.sync.aligned.m8n8k16.row.col` on `.s8`/`.u8` with `.s32`
//! accumulators (sm_75): each lane loads its fragments from the positions
//! PTX ISA 9.7.14.5.3 gives (the kernel computes them from `%laneid`), so
//! the stored D equals `A * B + C` computed here only if the engine places
//! the elements where the manual says; integer products summed exactly,
//! wrapped to 32 bits, or clamped with `.satfinite`. Kernels:
//! `tests/isa/mma_m8n8k16.ptx`.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

fn launch(kernel: &str, a: &[u8], b: &[u8], c: &[i32], sched: Scheduling) -> Vec<i32> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa/mma_m8n8k16.ptx");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut dev = Device::new();
    let m = dev.load(&text).unwrap();
    let cb: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut args = Vec::new();
    for buf in [a, b, &cb[..]] {
        let p = dev.alloc(buf.len() as u64).unwrap();
        dev.write(p, buf).unwrap();
        args.push(KernelArg::Ptr(p));
    }
    let d = dev.alloc(256).unwrap();
    args.push(KernelArg::Ptr(d));
    let mut cfg = LaunchConfig::new(1u32, 32u32);
    cfg.scheduling = sched;
    dev.launch(&m, kernel, &cfg, &args).unwrap();
    dev.read(d, 256).unwrap().chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// D[i][j] = sum over k of A[i][k] * B[k][j] + C[i][j]: A row major (8 x
/// 16), B column major (B[k][j] at j * 16 + k), C and D row major (8 x 8).
fn product(a: impl Fn(usize) -> i64, b: impl Fn(usize) -> i64, c: &[i32], sat: bool) -> Vec<i32> {
    (0..64)
        .map(|x| {
            let (i, j) = (x / 8, x % 8);
            let s = (0..16).map(|k| a(i * 16 + k) * b(j * 16 + k)).sum::<i64>() + c[x] as i64;
            if sat {
                s.clamp(i32::MIN as i64, i32::MAX as i64) as i32
            } else {
                s as i32
            }
        })
        .collect()
}

#[test]
fn m8n8k16_s8_places_fragments_as_the_manual_says() {
    let a: Vec<u8> = (0..128).map(|x| ((x * 37 + 11) % 251) as u8).collect();
    let b: Vec<u8> = (0..128).map(|x| ((x * 59 + 3) % 241) as u8).collect();
    let c: Vec<i32> = (0..64).map(|x| x * 1000 - 30_000).collect();
    let want = product(|x| a[x] as i8 as i64, |x| b[x] as i8 as i64, &c, false);
    for sched in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(launch("mma_s8", &a, &b, &c, sched), want, "{sched:?}");
    }
}

#[test]
fn m8n8k16_u8_by_s8_satfinite_clamps() {
    let a: Vec<u8> = (0..128).map(|x| 200 + (x % 50) as u8).collect();
    // Columns 0-3 of B are 127, columns 4-7 are -128 (B[k][j] at j * 16 + k).
    let b: Vec<u8> = (0..128).map(|x| if x / 16 < 4 { 127 } else { 0x80 }).collect();
    // Rows 0-3 start near the top of the range, rows 4-7 near the bottom.
    let c: Vec<i32> = (0..64).map(|x| if x < 32 { i32::MAX - 10 } else { i32::MIN + 10 }).collect();
    let want = product(|x| a[x] as i64, |x| b[x] as i8 as i64, &c, true);
    assert!(want.iter().any(|&w| w == i32::MAX) && want.iter().any(|&w| w == i32::MIN), "some sums clamp: {want:?}");
    for sched in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(launch("mma_u8s8_sat", &a, &b, &c, sched), want, "{sched:?}");
    }
}
