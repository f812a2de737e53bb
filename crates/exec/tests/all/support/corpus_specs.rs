//! Launch specifications of the corpus kernels: grid, block and inputs per
//! kernel, chosen from their sources so that loops terminate and branches of
//! interest are taken; and the kernels whose results depend on the schedule.
//! Shared by `crates/exec/tests/all/corpus_modes.rs` (stack vs ITS) and
//! `crates/sass/tests/engines_corpus.rs` (PTX vs machine form), so both
//! comparisons cover the same launches.

#![allow(dead_code)]

use ptxsim_exec::{Device, Dim3, KernelArg};
use std::cell::Cell;
use std::path::PathBuf;

/// What an exception leaves out of the comparison: bytes `range` of pointer
/// argument `arg` (the rest is compared).
pub struct Skip {
    pub arg: usize,
    pub range: std::ops::Range<usize>,
}

/// Kernels (in every producer's build) whose results legitimately depend on
/// the order in which threads run: (kernel, what is left out, reason). Only
/// the schedule-dependent bytes are left out; the rest is compared.
pub const EXCEPTIONS: &[(&str, Skip, &str)] = &[
    (
        "locked_accumulate",
        Skip { arg: 2, range: 0..12 },
        "spin lock (atomicCAS loop) between blocks: the order in which the blocks take the lock is \
         recorded in order[]; lock, next_slot and the float sum (of multiples of 1/4, exact in \
         any order) are compared",
    ),
    (
        "ticket_lock",
        Skip { arg: 2, range: 0..12 },
        "ticket lock: the order of the blocks' atomicAdd on next_ticket decides which block logs into \
         which slot of log[]; the two counters are compared",
    ),
    (
        "sleep_order",
        Skip { arg: 0, range: 0..4096 },
        "records the arrival order (an atomicAdd slot per thread) on purpose: arrivals[] is a \
         schedule-dependent permutation; the counter is compared",
    ),
    (
        "atomic_zoo",
        Skip { arg: 0, range: 24..28 },
        "stats[6] keeps the value of the last atomicExch, which depends on the order; the other \
         eight statistics are order-independent (inputs even, so stats[7] += old & 1 adds 0) and \
         compared",
    ),
    ("nanosleep_kernel", Skip { arg: 0, range: 0..4096 }, "stores %globaltimer differences, which measure the schedule"),
    (
        "atomics64",
        Skip { arg: 6, range: 16..32 },
        "wrap[4..8] keep the value of the last atomicExch of each slot, which depends on the order; the wrapping \
         inc/dec counters and every other sum, min, max and bit operation are order-independent (the float \
         inputs are multiples of 1/4, so their sums are exact in any order) and compared",
    ),
];


// ---------------------------------------------------------------------------
// Arguments.

/// One kernel argument: a device buffer with its initial bytes, or a scalar.
#[derive(Clone)]
pub enum Arg {
    Buf(Vec<u8>),
    Val(KernelArg),
}

/// Allocates and fills each buffer argument on `dev`: the launch arguments,
/// and each buffer's (address, length) to read back after the launch.
#[allow(dead_code)]
pub fn upload(dev: &mut Device, args: &[Arg]) -> (Vec<KernelArg>, Vec<(u64, u64)>) {
    let mut bufs = Vec::new();
    let args = args
        .iter()
        .map(|a| match a {
            Arg::Buf(bytes) => {
                let p = dev.alloc(bytes.len() as u64).unwrap();
                dev.write(p, bytes).unwrap();
                bufs.push((p, bytes.len() as u64));
                KernelArg::Ptr(p)
            }
            Arg::Val(v) => v.clone(),
        })
        .collect();
    (args, bufs)
}

thread_local! {
    /// Salt of the next generated buffer, so that two buffers built with the
    /// same parameters still differ.
    static SALT: Cell<u64> = const { Cell::new(1) };
}

/// A deterministic pseudo-random number for element `i` of the current buffer.
pub fn hash(i: usize, salt: u64) -> u64 {
    let mut x = (i as u64).wrapping_add(salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A buffer of `n` elements produced by `f(i, random)`.
pub fn gen<const W: usize>(n: usize, f: impl Fn(usize, u64) -> [u8; W]) -> Arg {
    let salt = SALT.with(|s| {
        let v = s.get();
        s.set(v + 1);
        v
    });
    Arg::Buf((0..n).flat_map(|i| f(i, hash(i, salt))).collect())
}

/// A random integer in `lo..hi`.
pub fn range(r: u64, lo: i64, hi: i64) -> i64 {
    lo + (r % (hi - lo) as u64) as i64
}

/// `n` i32 in `lo..hi`.
pub fn i32s(n: usize, lo: i32, hi: i32) -> Arg {
    gen(n, |_, r| (range(r, lo as i64, hi as i64) as i32).to_le_bytes())
}
/// `n` i64 in `lo..hi`.
pub fn i64s(n: usize, lo: i64, hi: i64) -> Arg {
    gen(n, |_, r| range(r, lo, hi).to_le_bytes())
}
/// `n` bytes in `lo..hi`.
pub fn u8s(n: usize, lo: u8, hi: u8) -> Arg {
    gen(n, |_, r| [range(r, lo as i64, hi as i64) as u8])
}
/// `n` arbitrary 32-bit words (every bit pattern is meaningful to the kernel).
pub fn u32_bits(n: usize) -> Arg {
    gen(n, |i, r| (if i % 13 == 5 { 0 } else { r as u32 >> (i % 7) }).to_le_bytes())
}
/// `n` arbitrary 64-bit words.
pub fn u64_bits(n: usize) -> Arg {
    gen(n, |i, r| (if i % 13 == 5 { 0 } else { r >> (i % 11) }).to_le_bytes())
}
/// `n` i32 from `f(i, random)`.
pub fn i32_with(n: usize, f: impl Fn(usize, u64) -> i32) -> Arg {
    gen(n, |i, r| f(i, r).to_le_bytes())
}
/// `n` f32 that are multiples of 1/4 in `lo..hi`: sums of a few thousand of
/// them are exact, so float atomic additions do not depend on the order.
pub fn f32q(n: usize, lo: i32, hi: i32) -> Arg {
    gen(n, |_, r| (range(r, lo as i64 * 4, hi as i64 * 4) as f32 * 0.25).to_le_bytes())
}
/// `n` f32 equal to `k * scale` for an integer `k` in `lo..hi`.
pub fn f32k(n: usize, lo: i32, hi: i32, scale: f32) -> Arg {
    gen(n, |_, r| (range(r, lo as i64, hi as i64) as f32 * scale).to_le_bytes())
}
/// `n` f64 that are multiples of 1/4 in `lo..hi`.
pub fn f64q(n: usize, lo: i32, hi: i32) -> Arg {
    gen(n, |_, r| (range(r, lo as i64 * 4, hi as i64 * 4) as f64 * 0.25).to_le_bytes())
}
/// `n` f16 that are multiples of 1/4 in `lo..hi` (|value| < 64: exact in f16).
pub fn f16q(n: usize, lo: i32, hi: i32) -> Arg {
    gen(n, |_, r| half_bits(range(r, lo as i64 * 4, hi as i64 * 4) as f32 * 0.25).to_le_bytes())
}
/// `n` f32 from a set of special and ordinary values (NaN, ±inf, ±0, equal pairs).
pub fn f32_special(n: usize) -> Arg {
    const SET: [f32; 12] = [0.0, -0.0, 1.5, -2.25, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3.0, 1.0e10, -7.75, 1.5, 65536.5];
    gen(n, |_, r| SET[(r % SET.len() as u64) as usize].to_le_bytes())
}
/// `n` i32 from a set of boundary and ordinary values.
pub fn i32_special(n: usize) -> Arg {
    const SET: [i32; 12] = [0, 1, -1, 7, -7, i32::MIN, i32::MAX, 123_456, -99, 31, 32, 1];
    gen(n, |_, r| SET[(r % SET.len() as u64) as usize].to_le_bytes())
}
/// An output buffer of `bytes` bytes filled with a non-zero pattern, so that
/// a store that one mode makes and the other does not shows up.
pub fn out(bytes: usize) -> Arg {
    gen(bytes, |i, _| [(i as u8).wrapping_mul(37).wrapping_add(11) | 1])
}
/// C-like source text of `n` bytes (digits, identifiers, operators, strings
/// with escapes, comments) for the lexer kernels.
pub fn text(n: usize) -> Arg {
    const SRC: &[u8] = b"int x1 = 42; if (a[i] >= -10) { y_2 -= b*3.25; } # note\n s = \"q\\\"t\" + 7 % 2; ";
    gen(n, |i, _| [SRC[i % SRC.len()]])
}
/// `struct Node { int value, left, right; }` x 63: a complete binary tree
/// (children 2i+1, 2i+2) with random values.
pub fn tree() -> Arg {
    let child = |c: usize| if c < 63 { c as i32 } else { -1 };
    gen(63, |i, r| {
        let v = [range(r, -50, 50) as i32, child(2 * i + 1), child(2 * i + 2)];
        let mut b = [0u8; 12];
        for (k, x) in v.iter().enumerate() {
            b[4 * k..4 * k + 4].copy_from_slice(&x.to_le_bytes());
        }
        b
    })
}
/// `code` as a buffer of i32.
pub fn words(code: &[i32]) -> Arg {
    Arg::Buf(code.iter().flat_map(|w| w.to_le_bytes()).collect())
}

pub fn u32v(v: u32) -> Arg {
    Arg::Val(KernelArg::U32(v))
}
pub fn i32v(v: i32) -> Arg {
    Arg::Val(KernelArg::S32(v))
}
pub fn u64v(v: u64) -> Arg {
    Arg::Val(KernelArg::U64(v))
}
pub fn f32v(v: f32) -> Arg {
    Arg::Val(KernelArg::F32(v))
}
pub fn f64v(v: f64) -> Arg {
    Arg::Val(KernelArg::F64(v))
}
pub fn f16v(v: f32) -> Arg {
    Arg::Val(KernelArg::U16(half_bits(v)))
}

/// IEEE binary16 bits of a value exactly representable as a normal f16 (or zero).
pub fn half_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&exp) && b & 0x1fff == 0, "{v} is not an exact f16");
    sign | (exp as u16) << 10 | ((b >> 13) & 0x3ff) as u16
}

// ---------------------------------------------------------------------------
// Per-kernel launch specifications.

pub struct Spec {
    pub kernel: &'static str,
    pub grid: Dim3,
    pub block: Dim3,
    pub dynamic_shared: u32,
    pub args: Vec<Arg>,
}

pub fn d1(x: u32) -> Dim3 {
    Dim3::new(x, 1, 1)
}
pub fn d2(x: u32, y: u32) -> Dim3 {
    Dim3::new(x, y, 1)
}

/// The switch_vm.cu bytecode program: a Collatz-like loop that runs until
/// the value drops below 10 (or the interpreter's fuel ends), after a
/// prologue that exercises the remaining opcodes and drops their result.
pub fn vm_program() -> Vec<i32> {
    let op = |o: i32, imm: i32| (imm << 8) | o;
    let (push, add, sub, mul, div, md, and, or, xor, shl, shr, dup, swap, drop, jz, jmp, neg, not, lt, eq, halt) =
        (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20);
    vec![
        // 0: prologue on a copy of x, dropped
        op(dup, 0),
        op(push, 85),
        op(xor, 0),
        op(push, 6),
        op(or, 0),
        op(not, 0),
        op(push, 3),
        op(shl, 0),
        op(push, 7),
        op(md, 0),
        op(push, 0),
        op(eq, 0),
        op(drop, 0),
        // 13: loop: if x < 10 return x - 5
        op(dup, 0),
        op(push, 10),
        op(lt, 0),
        op(jz, 22),
        op(push, 5),
        op(swap, 0),
        op(sub, 0),
        op(neg, 0),
        op(halt, 0),
        // 22: odd? x = 3x + 1 : x = x >> 1 (then / 1 and & -1 as no-ops)
        op(dup, 0),
        op(push, 1),
        op(and, 0),
        op(jz, 32),
        op(push, 3),
        op(mul, 0),
        op(push, 1),
        op(add, 0),
        op(jmp, 13),
        op(halt, 0),
        // 32:
        op(push, 1),
        op(shr, 0),
        op(push, 1),
        op(div, 0),
        op(jmp, 13),
    ]
}

/// lt_switch_interp's code: `(imm << 4) | op`, ops 0..=11 with small
/// immediates, then one unknown opcode that stops the interpreter early.
pub fn interp_program() -> Vec<i32> {
    let op = |o: i32, imm: i32| (imm << 4) | o;
    vec![
        op(0, 3),    // add 3
        op(2, -2),   // mul -2
        op(3, 0x5a), // xor
        op(10, 0),   // add x0
        op(6, 3),    // shl 3
        op(4, -17),  // and
        op(5, 1),    // or 1
        op(1, -7),   // sub -7
        op(11, 0),   // square
        op(8, 2),    // ashr 2
        op(9, 0),    // neg
        op(7, 5),    // lshr 5
        op(13, 0),   // unknown opcode: stop
        op(0, 1000),
    ]
}

/// One spec per kernel name (the nvcc, clang and llvmlite builds of a
/// source share their kernels' signatures).
pub fn specs() -> Vec<Spec> {
    // Default geometry: 3 blocks of 80 threads (the last warp of each block
    // has 16 lanes) and n = 217 elements (not a multiple of 80).
    const N: usize = 217;
    const NN: u32 = N as u32;
    const T: usize = 240; // threads in the default grid
    let s = |kernel: &'static str, grid: Dim3, block: Dim3, args: Vec<Arg>| Spec { kernel, grid, block, dynamic_shared: 0, args };
    let g = d1(3);
    let b = d1(80);
    vec![
        // collatz.cu
        s("collatz_kernel", g, b, vec![out(4 * T), u32v(NN), u64v(27)]),
        s("prime_flags", g, b, vec![out(4 * T), u32v(1000), u32v(NN)]),
        // hay is sorted with gaps, so every return of find_first is taken.
        s("search_kernel", g, b, vec![i32_with(300, |i, r| (2 * i + (r % 2) as usize) as i32), u32v(300), i32s(T, -3, 620), out(4 * T), u32v(NN)]),
        s("mandelbrot", d2(3, 3), d2(20, 4), vec![out(50 * 10), u32v(50), u32v(10), u32v(48)]),
        // recursion.cu
        s("fib_kernel", d1(2), d1(40), vec![out(4 * 80), u32v(70)]),
        s("tree_kernel", g, b, vec![tree(), out(4 * T), out(4 * T), u32v(NN), i32s(T, -1, 63)]),
        s("ackermann_gcd_kernel", g, b, vec![out(4 * T), out(8 * T), i64s(T, 1, 1 << 40), i64s(T, 1, 100_000), u32v(NN)]),
        s("segmented_quicksort", g, b, vec![i32s(16 * T, -50, 50), u32v(NN)]),
        // fpmath.cu
        s("nbody_forces", g, b, vec![f32q(4 * T, -8, 8), out(4 * T), out(4 * T), out(4 * T), u32v(NN), f32v(0.5)]),
        s("double_math", g, b, vec![f64q(T, -2, 400), out(8 * T), out(8 * T), u32v(NN)]),
        s("conversions", g, b, vec![f32q(T, -400, 400), f64q(T, -1000, 1000), out(4 * T), out(8 * T), out(4 * T), out(8 * T), out(4 * T), u32v(NN)]),
        // mathf.cu (outputs: one row of n per function)
        s("mathf_unary", g, b, vec![f32k(T, -1200, 1200, 0.01), out(4 * 48 * T), u32v(NN)]),
        s("mathf_binary", g, b, vec![f32k(T, -1200, 1200, 0.01), f32k(T, -300, 300, 0.03), out(4 * 30 * T), out(4 * 2 * T), u32v(NN)]),
        // mathd.cu
        s("mathd", g, b, vec![f64q(T, -40, 40), f64q(T, -20, 20), out(8 * 48 * T), out(4 * T), u32v(NN)]),
        // wmma.cu, wmma_bf16.cu: whole warps (the warp matrix functions need all 32 lanes)
        s("wmma_gemm", d1(1), d2(64, 2), vec![f16q(32 * 32, -2, 2), f16q(32 * 32, -2, 2), f32q(32 * 32, -8, 8), u32v(32), u32v(32), u32v(32), f32v(2.0), f32v(-0.5)]),
        s("wmma_f16acc", d1(1), d1(32), vec![f16q(32 * 16, -2, 2), f16q(16 * 8, -2, 2), out(2 * 256)]),
        s("wmma_bf16", d1(1), d1(32), vec![u32_bits(128), u32_bits(256), out(4 * 256), f32q(256, -8, 8)]),
        // intrin.cu
        s("int_intrinsics", g, b, vec![u32_bits(T), u32_bits(T), u64_bits(T), u64_bits(T), out(4 * 23 * T), out(8 * 8 * T), u32v(NN)]),
        // simd.cu
        s("simd_intrinsics", g, b, vec![u32_bits(T), u32_bits(T), out(4 * 28 * T), u32v(NN)]),
        // half2.cu (sm_80)
        s("half_ops", g, b, vec![f16q(2 * T, -8, 8), f16q(2 * T, -8, 8), out(4 * 28 * T), out(4 * T), u32v(NN)]),
        s("bf16_ops", g, b, vec![u32_bits(T), u32_bits(T), out(4 * 15 * T), out(8 * T), u32v(NN)]),
        // atom2.cu (sm_80)
        s("atomics64", g, b, vec![f64q(T, -100, 100), i64s(T, -1 << 40, 1 << 40), f64q(3, 0, 4), f64q(1, -4, 0), u64_bits(8), i64s(2, -5, 5), words(&[0, 0, 7, 3, 0, 0, 0, 0]), f16q(2, 0, 2), out(4), f32q(2, 0, 4), u32v(NN)]),
        // warp2.cu (sm_80): every thread of the grid writes its row elements
        s("warp_reduce", g, b, vec![f32q(T, -50, 50), i32s(T, -1000, 1000), out(4 * T), out(4 * 16 * T), u32v(NN)]),
        s("leapfrog", g, b, vec![f32q(T, -4, 4), f32q(T, -2, 2), f32q(T, -1, 1), u32v(NN), f32v(0.01), u32v(20)]),
        s("monte_carlo_pi", g, b, vec![out(4), u32v(16), u32v(12345)]),
        // funcptr.cu
        s("apply_ops", g, b, vec![i32s(T, -20, 20), i32s(T, -20, 20), i32s(T, 0, 6), out(4 * T), u32v(NN), u32v(8)]),
        s("callback_kernel", g, b, vec![f32q(T, -4, 4), out(4), u32v(NN), u32v(2)]),
        s("shapes_kernel", g, b, vec![i32s(T, 0, 4), f32q(2 * T, 0, 8), out(4 * T), out(4 * T), u32v(NN)]),
        // half.cu: values small multiples of 1/4 (products exact in f16, so
        // half2_ops' float atomicAdd of them is order-independent).
        s("half_axpy", g, b, vec![u32v(NN), f16v(0.5), f16q(T, -8, 8), f16q(T, -8, 8)]),
        s("half2_ops", g, b, vec![f16q(2 * T, -4, 4), f16q(2 * T, -4, 4), out(4 * T), f32q(1, 0, 8), u32v(NN)]),
        s("half_compare", g, b, vec![f16q(T, -3, 3), out(4 * T), out(2 * T), u32v(NN)]),
        s("half_convert", g, b, vec![f32q(T, -40, 40), out(2 * T), out(4 * T), u32v(NN)]),
        // histogram.cu: weighted_histogram's float bins add small integers.
        s("histogram_shared", g, b, vec![u8s(1000, 0, 255), i32s(64, 0, 10), u32v(1000)]),
        s("histogram_global", g, b, vec![i32s(T, -10, 110), i32s(16, 0, 10), u32v(NN), u32v(16), u32v(0), u32v(100)]),
        s("weighted_histogram", g, b, vec![f32k(T, -4, 68, 1.0 / 64.0), f32k(T, 1, 9, 1.0), f32k(64, 0, 5, 1.0), u32v(NN)]),
        // All values even and every stats[] entry non-zero: atomicCAS(&stats[8], 0, x) never fires.
        s(
            "atomic_zoo",
            g,
            b,
            vec![i32_with(9, |i, _| 2 * (i as i32 + 3)), words(&[3, 9]), i32_with(T, |_, r| 2 * range(r, -100, 100) as i32), u32v(NN)],
        ),
        // intmath.cu
        s("divmod_kernel", g, b, vec![i32s(T, -1000, 1000), i32s(T, -7, 8), out(4 * T), out(4 * T), out(4 * T), out(4 * T), u32v(NN)]),
        s("divmod64_kernel", g, b, vec![i64s(T, -(1 << 50), 1 << 50), i64s(T, -9, 10), out(8 * T), out(8 * T), u32v(NN)]),
        s("bits_kernel", g, b, vec![u32_bits(T), out(32 * T), u32v(NN)]),
        s("bits64_kernel", g, b, vec![u64_bits(T), out(32 * T), u32v(NN)]),
        s("number_theory", g, b, vec![u32_bits(T), out(4 * T), out(4 * T), u32v(NN)]),
        // scan.cu (and its -lineinfo build)
        s("scan_hillis_steele", d1(1), d1(300), vec![i32s(300, -50, 50), out(4 * 300), u32v(250)]),
        s("scan_blelloch", d1(1), d1(256), vec![f32q(512, -8, 8), out(4 * 512), u32v(512)]),
        s("scan_warp_shuffle", g, d1(96), vec![i32s(288, -50, 50), out(4 * 288), out(4 * 3), u32v(250)]),
        s("scan_add_block_offsets", g, b, vec![i32s(T, -50, 50), i32s(3, -500, 500), u32v(NN)]),
        // Positive values only in the second warp: only it adds to count, so
        // the output positions do not depend on the order of the warps' atomicAdds.
        s(
            "compact_positive",
            g,
            d1(64),
            vec![
                i32_with(192, |i, r| if (32..64).contains(&i) { range(r, -5, 20) as i32 } else { -(range(r, 0, 9) as i32) }),
                out(4 * 256),
                words(&[5]),
                u32v(150),
            ],
        ),
        // matmul.cu (and the sm_80 builds)
        s("matmul_naive", d2(2, 8), d2(20, 5), vec![f32q(40 * 24, -4, 4), f32q(24 * 40, -4, 4), out(4 * 40 * 40), u32v(40), u32v(40), u32v(24)]),
        s("matmul_tiled", d2(3, 3), d2(16, 16), vec![f32q(40 * 37, -4, 4), f32q(37 * 40, -4, 4), out(4 * 40 * 40), u32v(40), u32v(40), u32v(37)]),
        s("dgemm_tiled_2x2", d2(3, 3), d2(8, 8), vec![f64q(40 * 40, -4, 4), f64q(40 * 40, -4, 4), out(8 * 40 * 40), u32v(40)]),
        s("transpose_tiled", d2(3, 2), d2(16, 16), vec![f32q(40 * 24, -100, 100), out(4 * 40 * 24), u32v(40), u32v(24)]),
        // printf.cu
        s("hello_printf", g, b, vec![f32q(T, -4, 4), u32v(NN)]),
        s("assert_like", g, b, vec![i32s(T, -10, 1100), u32v(NN)]),
        // reduce.cu: float and double atomic additions of multiples of 1/4.
        s("reduce_tree_256", g, d1(256), vec![f32q(1300, -8, 8), out(4 * 3), u32v(1300)]),
        s("reduce_shuffle_atomic", g, d1(96), vec![f32q(1000, -8, 8), f32q(1, 0, 4), u32v(1000)]),
        Spec { dynamic_shared: 64 * 4, ..s("reduce_max_dynamic", g, d1(64), vec![i32s(192, -1000, 1000), words(&[-5000]), u32v(150)]) },
        s("reduce_warp_max", g, d1(64), vec![i32s(192, -1000, 1000), words(&[-5000]), u32v(150)]),
        s("dot_double", g, d1(128), vec![f64q(1000, -4, 4), f64q(1000, -4, 4), f64q(1, 0, 4), u32v(1000)]),
        // sort.cu
        s("bitonic_sort_shared", d1(2), d1(512), vec![i32s(2048, -500, 500)]),
        s("bitonic_step_global", g, b, vec![f32q(256, -50, 50), u32v(4), u32v(8)]),
        s("odd_even_sort", d1(1), d1(80), vec![i32s(150, -100, 100), u32v(150)]),
        s("rank_sort", g, b, vec![i32s(T, 0, 50), out(4 * T), u32v(NN)]),
        // spinlock.cu (only sleep_order is compared, partially)
        s("locked_accumulate", g, b, vec![words(&[0]), f32q(1, 0, 4), out(4 * 3), words(&[0]), f32q(3, 0, 4)]),
        s("ticket_lock", g, b, vec![words(&[0]), words(&[0]), out(4 * 3)]),
        s("sleep_order", g, b, vec![out(4096), words(&[0])]),
        // switch_vm.cu
        s("vm_kernel", g, b, vec![words(&vm_program()), u32v(vm_program().len() as u32), i32s(T, -20, 3000), out(4 * T), u32v(NN)]),
        s("token_counts", g, b, vec![text(T), u32v(NN), i32s(8, 0, 5)]),
        s("nested_divergence", g, b, vec![i32s(T, -100, 100), out(4 * T), u32v(NN)]),
        // vector_ops.cu
        s("vec_add", g, b, vec![f32q(T, -50, 50), f32q(T, -50, 50), out(4 * T), u32v(NN)]),
        s("saxpy", g, b, vec![u32v(NN), f32v(-1.5), f32q(T, -50, 50), f32q(T, -50, 50)]),
        s("daxpy_grid_stride", g, b, vec![u64v(1000), f64v(0.75), f64q(1000, -50, 50), f64q(1000, -50, 50)]),
        s("vec_scale_int", g, b, vec![i32s(700, -1000, 1000), u32v(700), i32v(3), i32v(-7)]),
        s("fill_volume_3d", Dim3::new(2, 2, 3), Dim3::new(8, 4, 3), vec![out(4 * 13 * 7 * 8), u32v(13), u32v(7), u32v(8)]),
        s("stencil_3d", Dim3::new(2, 2, 3), Dim3::new(8, 4, 3), vec![f32q(13 * 7 * 8, -20, 20), out(4 * 13 * 7 * 8), u32v(13), u32v(7), u32v(8)]),
        // bulk_copy.cu (and the sm_90 build): two blocks, 256 floats each.
        s("bulk_reverse", d1(2), d1(256), vec![f32q(512, -50, 50), out(4 * 512)]),
        // warp_vote.cu (and the sm_90 build)
        s("vote_kernel", g, d1(64), vec![i32s(192, -3, 40), out(4 * 6), out(4 * 6), out(4 * 6), u32v(150)]),
        s("active_lanes", g, d1(64), vec![i32s(192, 0, 100), out(4 * 6), out(4 * 6)]),
        // Predicates set only in the second warp: one atomicAdd on counter in all.
        s(
            "warp_aggregated_inc",
            g,
            b,
            vec![words(&[7]), out(4 * T), i32_with(T, |i, r| if (32..64).contains(&i) { (r % 3 != 0) as i32 * 5 } else { 0 }), u32v(NN)],
        ),
        s("shuffle_patterns", g, d1(64), vec![i32s(192, -1000, 1000), out(4 * 192), out(4 * 192)]),
        // ll_*.ll (clang's llc and llvmlite's builds)
        s("matvec_double", d1(2), b, vec![f64q(150 * 37, -4, 4), f64q(37, -4, 4), out(8 * 160), out(8 * 160), u32v(150), u32v(37)]),
        s("switch_loop", g, b, vec![i32s(24, 0, 40), i32s(T, -1000, 1000), u32v(24), u32v(NN)]),
        // flag starts non-zero, so the leaders' cmpxchg(flag, 0, gid) never fires.
        s("warp_atomics", g, d1(64), vec![i32s(192, 0, 1000), out(4 * 6), out(4 * 6), words(&[77]), i32s(32, 0, 9)]),
        // lt_*.py (llvmlite)
        s("calls_kernel", g, b, vec![i32s(T, -20, 20), i32s(T, 0, 16), out(4 * T), u32v(NN)]),
        s("compare_kernel", g, b, vec![i32_special(T), i32_special(T), f32_special(T), f32_special(T), out(4 * 40 * T), out(8 * 4 * T), u32v(NN)]),
        s("block_reduce", g, d1(256), vec![f32q(1500, -4, 4), f32q(1, 0, 4), words(&[3]), u32v(1500)]),
        s("dfa_kernel", g, b, vec![text(T + 64), i32s(T, 0, T as i32), out(4 * T), u32v(40), u32v(NN)]),
        s("interp_kernel", g, b, vec![words(&interp_program()), i32s(T, -100, 100), out(4 * T), u32v(interp_program().len() as u32), u32v(NN)]),
        // 7 blocks, so that blockIdx.x % 6 takes every case of the kernel's switch.
        s("nested_switch_kernel", d1(7), d1(40), vec![i32s(280, 0, 4096), out(4 * 280), u32v(270)]),
        // seeds: outputs are indexed by %tid.x only, so one block.
        s("bra_uni", d1(1), b, vec![out(4 * 80), u32v(13)]),
        s("braces_scope", d1(1), d1(40), vec![out(4), i32v(5), i32v(-9)]),
        s("brx_idx", d1(1), b, vec![out(4 * 80)]),
        s("call_callprototype", d1(1), b, vec![]),
        s("call_calltargets", d1(1), b, vec![out(4 * 80)]),
        s("call_direct", d1(1), b, vec![out(4 * 80)]),
        s("call_jmptbl", d1(1), b, vec![out(4 * 80)]),
        s("divergence_uni", d1(1), b, vec![out(4 * 80), u32v(7)]),
        s("guard_div", d1(1), b, vec![out(4), f32v(3.0), f32v(-1.5)]),
        s("nanosleep_kernel", d1(1), b, vec![out(4096)]),
        s("pred_logic", d1(1), b, vec![out(4 * 80)]),
        s("predicated_if", d1(1), b, vec![out(4 * 80), i32v(50)]),
        s("ret_exit", d1(1), b, vec![out(4 * 80)]),
        s("setp_float", d1(1), b, vec![out(4096 + 8 * 80), f32_special(80), f32_special(80)]),
        s("setp_int", d1(1), b, vec![out(4096 + 8 * 80), i32_special(80), i32_special(80)]),
    ]
}

// ---------------------------------------------------------------------------
// Running and comparing.

pub fn corpus_files() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus"));
    let mut files = Vec::new();
    for dir in ["nvcc", "clang", "llvmlite", "seeds"] {
        for e in std::fs::read_dir(root.join(dir)).expect("corpus directory").flatten() {
            if e.path().extension().is_some_and(|x| x == "ptx") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}


/// The block shapes `spec` is launched with: the kernels on the default
/// geometry (3 blocks of 80) also run with blocks of 75 (warps of 32, 32 and
/// 11 lanes; 225 threads for 217 elements).
pub fn launch_blocks(spec: &Spec) -> Vec<Dim3> {
    if spec.grid == d1(3) && spec.block == d1(80) {
        vec![d1(80), d1(75)]
    } else {
        vec![spec.block]
    }
}

/// The name of one launch of `kernel` in corpus file `rel` (`nvcc/x.ptx`)
/// with `block`, as the recorded GPU results name it.
pub fn launch_id(rel: &str, kernel: &str, block: Dim3) -> String {
    let file = rel.trim_end_matches(".ptx").replace('/', "_");
    format!("{file}.{kernel}.b{}", block.x * block.y * block.z)
}

/// FNV-1a of an input buffer: `launches.txt` of the recorded GPU results
/// names each input with it.
pub fn digest(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100_0000_01b3))
}
