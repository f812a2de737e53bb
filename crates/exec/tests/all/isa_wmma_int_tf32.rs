//! `wmma` with `.s8`/`.u8` inputs and `.s32` accumulators (m16n16k16, with
//! and without `.satfinite`), and with `.tf32` inputs and f32 accumulators
//! (m16n16k8): load, `mma`, store give `D = A * B + C` as computed here
//! from the matrices (PTX ISA 9.7.14.4: integer products summed exactly,
//! clamped to the `.s32` range with `.satfinite`; a `.tf32` element is its
//! f32 register with the low 13 bits ignored). Kernels:
//! `tests/isa/wmma_int_tf32.ptx`.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

fn launch(kernel: &str, bufs: &[Vec<u8>], out_len: usize, sched: Scheduling) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa/wmma_int_tf32.ptx");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut dev = Device::new();
    let m = dev.load(&text).unwrap();
    let mut args = Vec::new();
    for b in bufs {
        let a = dev.alloc(b.len() as u64).unwrap();
        dev.write(a, b).unwrap();
        args.push(KernelArg::Ptr(a));
    }
    let d = dev.alloc(out_len as u64).unwrap();
    args.push(KernelArg::Ptr(d));
    let mut cfg = LaunchConfig::new(1u32, 32u32);
    cfg.scheduling = sched;
    dev.launch(&m, kernel, &cfg, &args).unwrap();
    dev.read(d, out_len as u64).unwrap()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn wmma_s8_gives_the_integer_product() {
    let a: Vec<i8> = (0..256).map(|x| ((x / 16 * 7 + x % 16 * 3) % 17) as i8 - 8).collect(); // A[i][k], row major
    let b: Vec<i8> = (0..256).map(|x| ((x % 16 * 5 + x / 16 * 11) % 13) as i8 - 6).collect(); // B[k][j] at j*16 + k (column major)
    let c: Vec<i32> = (0..256).map(|x| (x / 16) * 100 - (x % 16) * 7).collect();
    let want: Vec<u32> = (0..256)
        .map(|x| {
            let (i, j) = (x / 16, x % 16);
            ((0..16).map(|k| a[i * 16 + k] as i32 * b[j * 16 + k] as i32).sum::<i32>() + c[x]) as u32
        })
        .collect();
    let bytes = |v: &[i8]| v.iter().map(|x| *x as u8).collect::<Vec<u8>>();
    let cb: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(words(&launch("wmma_s8", &[bytes(&a), bytes(&b), cb.clone()], 1024, sched)), want, "{sched:?}");
    }
}

#[test]
fn wmma_u8_satfinite_clamps_the_sum() {
    let a: Vec<u8> = (0..256).map(|x| 200 + ((x / 16 + x % 16) % 56) as u8).collect(); // row major
    let b: Vec<u8> = (0..256).map(|x| 250 - ((x / 16 + x % 16) % 10) as u8).collect(); // B[k][j] at k*16 + j (row major)
    // The first 8 rows start near the top of the .s32 range: their sums clamp.
    let c: Vec<i32> = (0..256).map(|x| if x < 128 { i32::MAX - 1000 } else { x as i32 }).collect();
    let want: Vec<u32> = (0..256)
        .map(|x| {
            let (i, j) = (x / 16, x % 16);
            let s: i64 = (0..16).map(|k| a[i * 16 + k] as i64 * b[k * 16 + j] as i64).sum::<i64>() + c[x] as i64;
            s.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
        })
        .collect();
    assert!(want[..128].iter().all(|&w| w == i32::MAX as u32), "the first rows saturate");
    let cb: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(words(&launch("wmma_u8_sat", &[a.clone(), b.clone(), cb.clone()], 1024, sched)), want, "{sched:?}");
    }
}

#[test]
fn wmma_tf32_ignores_the_low_13_bits() {
    // Values with no bits in the low 13 of their f32 encoding, stored with
    // the low 12 bits set (which tf32 ignores).
    let a: Vec<f32> = (0..128).map(|x| ((x / 8) as f32 - (x % 8) as f32 * 0.5) * 0.25).collect(); // A[i][k], 16 x 8
    let b: Vec<f32> = (0..128).map(|x| ((x / 16) as f32 * 1.5 - (x % 16) as f32) * 0.125).collect(); // B[k][j], 8 x 16
    let c: Vec<f32> = (0..256).map(|x| (x % 7) as f32 - 3.0).collect();
    let noisy = |v: &[f32]| v.iter().flat_map(|x| (x.to_bits() | 0xfff).to_le_bytes()).collect::<Vec<u8>>();
    let want: Vec<u32> = (0..256)
        .map(|x| {
            let (i, j) = (x / 16, x % 16);
            let s: f64 = (0..8).map(|k| a[i * 8 + k] as f64 * b[k * 16 + j] as f64).sum::<f64>() + c[x] as f64;
            (s as f32).to_bits()
        })
        .collect();
    let cb: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(words(&launch("wmma_tf32", &[noisy(&a), noisy(&b), cb.clone()], 1024, sched)), want, "{sched:?}");
    }
}
