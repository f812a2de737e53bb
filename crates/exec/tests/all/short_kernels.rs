//! Short kernels (vector add, SAXPY shapes) through the engine's fast
//! paths: the entry frame's register zeroing, the uniform parameter load,
//! the whole-warp global loads and stores, and `cvta` of a 64-bit global
//! address. Each case runs with full warps, a partial last warp and
//! partially masked instructions, and checks values computed here from
//! the inputs, or the trap (kind, warp, lane, line) the lane-by-lane
//! semantics give.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};

/// `c[i] = x[i] + b[i]` for `i < n`, where `x` is `a` for even `i` and `b`
/// for odd `i` (a `cvta.to.global` under a guard picks it); `b`'s address
/// is converted in place, `c`'s into another register.
const KERNEL: &str = r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra END;
    and.b32 %r6, %r5, 1;
    setp.eq.u32 %p2, %r6, 0;
    mov.b64 %rd7, %rd2;
    @%p2 cvta.to.global.u64 %rd7, %rd1;
    cvta.to.global.u64 %rd8, %rd3;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd9, %r5, 4;
    add.s64 %rd11, %rd2, %rd9;
    ld.global.u32 %r8, [%rd11];
    add.s64 %rd10, %rd7, %rd9;
    ld.global.u32 %r7, [%rd10];
    add.u32 %r9, %r7, %r8;
    add.s64 %rd11, %rd8, %rd9;
    st.global.u32 [%rd11], %r9;
END:
    ret;
}"#;

/// The 1-based line of `KERNEL` holding `text`.
fn line_of(text: &str) -> u32 {
    KERNEL.lines().position(|l| l.contains(text)).expect("line") as u32 + 1
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn values_with_full_partial_and_masked_warps() {
    let len = 256usize;
    let a: Vec<u32> = (0..len as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let b: Vec<u32> = (0..len as u32).map(|i| 0xffff_0000 ^ i.wrapping_mul(40_503)).collect();
    // (block, grid, n): whole warps; a partial last warp (48 threads); n
    // cutting a warp; two workers.
    for (block, grid, n, threads) in [(64u32, 4u32, 256u32, 1usize), (48, 5, 240, 1), (64, 4, 200, 1), (64, 4, 203, 2), (32, 8, 256, 2)] {
        let mut dev = Device::new();
        let m = dev.load(KERNEL).expect("load");
        let (pa, pb) = (dev.alloc(4 * len as u64).expect("alloc"), dev.alloc(4 * len as u64).expect("alloc"));
        let pc = dev.alloc(4 * len as u64).expect("alloc");
        dev.write(pa, &bytes(&a)).expect("write");
        dev.write(pb, &bytes(&b)).expect("write");
        let mut cfg = LaunchConfig::new(grid, block);
        cfg.threads = Some(threads);
        // Twice: the second launch's warps find the first one's registers.
        for _ in 0..2 {
            dev.write(pc, &vec![0u8; 4 * len]).expect("write");
            dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pc), KernelArg::U32(n)]).expect("launch");
            let c = words(&dev.read(pc, 4 * len as u64).expect("read"));
            let total = (grid * block).min(n) as usize;
            for i in 0..len {
                let want = if i < total { (if i % 2 == 0 { a[i] } else { b[i] }).wrapping_add(b[i]) } else { 0 };
                assert_eq!(c[i], want, "block {block} grid {grid} n {n}: c[{i}]");
            }
        }
    }
}

#[test]
fn a_lane_past_the_end_of_a_dense_load_traps_at_that_lane() {
    // b holds 40 words: thread 40 (warp 1, lane 8) reads past its end in
    // the first global load, where every lane reads b.
    let mut dev = Device::new();
    let m = dev.load(KERNEL).expect("load");
    let pa = dev.alloc(4 * 64).expect("alloc");
    let pb = dev.alloc(4 * 40).expect("alloc");
    let pc = dev.alloc(4 * 64).expect("alloc");
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 64), &[KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pc), KernelArg::U32(64)]).expect_err("out of bounds");
    assert_eq!((e.kind, e.warp, e.lane, e.line), (TrapKind::OutOfBounds, Some(1), Some(8), Some(line_of("ld.global.u32 %r8"))));
    // Nothing was stored by the warp that trapped; warp 0 finished.
    let c = words(&dev.read(pc, 4 * 64).expect("read"));
    assert!(c[32..].iter().all(|&x| x == 0));
}

#[test]
fn a_misaligned_dense_load_traps_at_its_first_lane() {
    let mut dev = Device::new();
    let m = dev.load(KERNEL).expect("load");
    let pa = dev.alloc(4 * 64).expect("alloc");
    let pb = dev.alloc(4 * 65).expect("alloc");
    let pc = dev.alloc(4 * 64).expect("alloc");
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 64), &[KernelArg::Ptr(pa), KernelArg::Ptr(pb + 2), KernelArg::Ptr(pc), KernelArg::U32(64)]).expect_err("misaligned");
    assert_eq!((e.kind, e.warp, e.lane, e.line), (TrapKind::Misaligned, Some(0), Some(0), Some(line_of("ld.global.u32 %r8"))));
}
