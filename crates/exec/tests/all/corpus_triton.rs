//! Launches every Triton kernel of `tests/corpus/triton` and
//! `tests/corpus_pending/triton` (source: `tests/corpus/src/tr_kernels.py`)
//! through the library API with real inputs, and compares every output
//! element with a reference computed here, independently of the engine.
//! Each check runs under both scheduling modes (`Scheduling::Stack` and
//! `Scheduling::Its`).
//!
//! Triton kernels take the pointers and scalars of the Python signature, then
//! a global-scratch pointer (unused here: 0). Each launch uses the warps and
//! dynamic shared memory that Triton computed (`launch.tsv` beside the
//! files). Masked stores must leave the elements outside the mask alone:
//! outputs start as NaN sentinels and the padding is checked too.
//!
//! Exact kernels (additions, max, integer sums, matmuls whose products and
//! partial sums are exact in f32) are compared bit for bit. The others are
//! compared within a bound derived at each comparison from the PTX ISA's
//! accuracy of the approximate instructions the PTX uses (`ex2.approx.f32`
//! and `div.full.f32`: 2 ulp; `sqrt.approx.ftz.f32`: taken as 2 ulp), the
//! half-ulp rounding of every `add`/`mul`/`fma`, and the standard bound
//! gamma(k) * sum|x_i| (gamma(k) = k u / (1 - k u), u = 2^-24) of a sum of
//! k + 1 terms in any order.
//!
//! [`PENDING`] lists the launches that stop at an instruction the engine
//! does not support yet, with the exact instruction the error must name;
//! when one starts to work its test fails and says to move the file from
//! `tests/corpus_pending/triton` to `tests/corpus/triton` and the launch to
//! the checked tests.


use crate::corpus_launch::*;
use ptxsim_exec::{Dim3, KernelArg, TrapKind};

const U: f64 = 1.0 / 16_777_216.0; // 2^-24, the unit roundoff of f32

/// gamma(k) = k u / (1 - k u).
fn gamma(k: usize) -> f64 {
    let ku = k as f64 * U;
    ku / (1.0 - ku)
}

/// A Triton kernel with its launch parameters from `launch.tsv`.
struct Tr {
    l: Loaded,
    threads: u32,
    shared: u32,
    args: Vec<KernelArg>,
}

impl Tr {
    /// Opens `tests/<dir>/<file>` (dir: `corpus/triton` or `corpus_pending/triton`).
    fn open(dir: &str, file: &str) -> Result<Tr, Failure> {
        let table = tests_text(&format!("{dir}/launch.tsv"));
        let row = table
            .lines()
            .skip(1)
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .find(|c| c.first() == Some(&file))
            .unwrap_or_else(|| panic!("{dir}/launch.tsv has no row for {file}"));
        let warps: u32 = row[2].parse().expect("num_warps");
        let shared: u32 = row[3].parse().expect("shared_bytes");
        let l = Loaded::open(&format!("{dir}/{file}"))?;
        assert_eq!(l.kernel, row[1], "{file}: kernel name differs from launch.tsv");
        Ok(Tr { l, threads: 32 * warps, shared, args: Vec::new() })
    }

    fn buffer<T: Elem>(&mut self, data: &[T]) -> Result<u64, Failure> {
        let a = self.l.buffer(data)?;
        self.args.push(KernelArg::Ptr(a));
        Ok(a)
    }

    fn scalar(&mut self, a: KernelArg) {
        self.args.push(a);
    }

    /// Appends the global-scratch pointer and launches `grid` programs.
    fn launch(&mut self, grid: impl Into<Dim3>) -> Outcome {
        self.launch_stats(grid).map(|_| ())
    }

    /// [`Tr::launch`], returning what the launch reports (what it printed).
    fn launch_stats(&mut self, grid: impl Into<Dim3>) -> Result<ptxsim_exec::LaunchStats, Failure> {
        self.args.push(KernelArg::U64(0));
        self.l.launch_stats(grid, self.threads, self.shared, &self.args)
    }

    fn read<T: Elem>(&self, addr: u64, n: usize) -> Result<Vec<T>, Failure> {
        self.l.read(addr, n)
    }
}

const DIR: &str = "corpus/triton";
const PENDING_DIR: &str = "corpus_pending/triton";

/// NaN sentinels are compared by bits, so an element outside the mask must
/// still hold the sentinel.
fn is_sentinel(x: f32) -> bool {
    x.to_bits() == f32::NAN.to_bits()
}

// ---------------------------------------------------------------------------
// vector_add: out = x + y for i < n (BLOCK = 1024).

fn vector_add() -> Outcome {
    let (n, cap) = (3000usize, 3072usize);
    let mut r = Rng::new(21);
    let x: Vec<f32> = (0..n).map(|_| r.f32_wide(-20, 20)).collect();
    let y: Vec<f32> = (0..n).map(|_| r.f32_wide(-20, 20)).collect();
    let mut want: Vec<f32> = (0..n).map(|i| x[i] + y[i]).collect();
    want.resize(cap, f32::NAN);

    let mut k = Tr::open(DIR, "tr_vector_add.ptx")?;
    k.buffer(&x)?;
    k.buffer(&y)?;
    let out = k.buffer(&vec![f32::NAN; cap])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(1024) as u32)?;
    compare("vector_add out", &k.read::<f32>(out, cap)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// softmax_row: out[r, c] = exp(x - max) / sum(exp(x - max)) for c < n_cols.

fn softmax_row() -> Outcome {
    let (rows, n_cols, in_stride, out_stride) = (5usize, 200usize, 256usize, 208usize);
    let mut r = Rng::new(22);
    let offsets = [0.0f32, 3.0, -5.0, 1000.0, 0.25];
    let mut x = vec![f32::NAN; rows * in_stride];
    for row in 0..rows {
        for c in 0..n_cols {
            x[row * in_stride + c] = offsets[row] + r.f32_in(-8.0, 8.0);
        }
    }
    let mut want = vec![f32::NAN; rows * out_stride];
    let mut tol = vec![0f64; rows * out_stride];
    for row in 0..rows {
        let xs: Vec<f64> = (0..n_cols).map(|c| x[row * in_stride + c] as f64).collect();
        let m = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = xs.iter().map(|&v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        // exp(d) as ex2.approx(fl(fl(d) * fl(log2 e))): the rounded argument
        // moves the result by at most 2.5 u |d| (relative), ex2 by 2 ulp (4 u).
        let rel_e = |d: f64| 2.5 * U * d.abs() + 4.0 * U;
        let max_rel_e = xs.iter().map(|&v| rel_e(v - m)).fold(0.0, f64::max);
        // The sum of n_cols positive terms; div.full: 2 ulp.
        let rel_s = max_rel_e + gamma(n_cols - 1);
        for c in 0..n_cols {
            let y = e[c] / s;
            want[row * out_stride + c] = y as f32;
            tol[row * out_stride + c] = 1.1 * y * (rel_e(xs[c] - m) + rel_s + 4.0 * U);
        }
    }

    let mut k = Tr::open(DIR, "tr_softmax_row.ptx")?;
    let out = k.buffer(&vec![f32::NAN; rows * out_stride])?;
    k.buffer(&x)?;
    k.scalar(KernelArg::S32(in_stride as i32));
    k.scalar(KernelArg::S32(out_stride as i32));
    k.scalar(KernelArg::S32(n_cols as i32));
    k.launch(rows as u32)?;
    let got = k.read::<f32>(out, rows * out_stride)?;
    compare("softmax_row out", &got, &want, |i, g, w| {
        if is_sentinel(w) {
            is_sentinel(g)
        } else {
            (g as f64 - w as f64).abs() <= tol[i] + ulp_f32(w as f64) / 2.0
        }
    })
}

// ---------------------------------------------------------------------------
// layer_norm: y = (x - mean) / sqrt(var + eps) * w + b over each row.

fn layer_norm() -> Outcome {
    let (rows, n, stride) = (6usize, 200usize, 256usize);
    let eps = 1e-5f32;
    let mut r = Rng::new(23);
    let offsets = [0.0f32, 0.5, -3.0, 10.0, 0.0, 2.0];
    let spreads = [2.0f32, 1.0, 4.0, 2.0, 0.01, 100.0];
    let mut x = vec![f32::NAN; rows * stride];
    for row in 0..rows {
        for c in 0..n {
            x[row * stride + c] = offsets[row] + r.f32_in(-spreads[row], spreads[row]);
        }
    }
    let w: Vec<f32> = (0..n).map(|_| r.f32_in(0.5, 1.5)).collect();
    let b: Vec<f32> = (0..n).map(|_| r.f32_in(-1.0, 1.0)).collect();

    let mut want = vec![f32::NAN; rows * stride];
    let mut tol = vec![0f64; rows * stride];
    for row in 0..rows {
        let xs: Vec<f64> = (0..n).map(|c| x[row * stride + c] as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        let sigma = (var + eps as f64).sqrt();
        let a = xs.iter().map(|v| v.abs()).sum::<f64>() / n as f64;
        // Mean: a sum of n terms, then div.full (2 ulp).
        let err_mean = gamma(n - 1) * a + 4.0 * U * mean.abs();
        // Variance: the common error of the mean cancels to first order
        // (the d_i sum to 0); each d_i rounds (u, doubled in d^2), each
        // square rounds (u), the sum gamma(n-1), div.full 4u; the mean's
        // error enters squared.
        let rel_var = 3.0 * U + gamma(n - 1) + 4.0 * U + err_mean * err_mean / var;
        // var + eps rounds (u); sqrt.approx and the division each 2 ulp.
        let rel_rstd = (rel_var * var / (var + eps as f64) + U) / 2.0 + 8.0 * U;
        for c in 0..n {
            let d = xs[c] - mean;
            let z = d / sigma;
            let y = z * w[c] as f64 + b[c] as f64;
            let err_d = err_mean + U * (d.abs() + err_mean);
            let err_z = err_d / sigma + z.abs() * (rel_rstd + U);
            want[row * stride + c] = y as f32;
            tol[row * stride + c] = 1.1 * (w[c] as f64 * err_z) + ulp_f32(y) / 2.0;
        }
    }

    let mut k = Tr::open(DIR, "tr_layer_norm.ptx")?;
    k.buffer(&x)?;
    let y = k.buffer(&vec![f32::NAN; rows * stride])?;
    k.buffer(&w)?;
    k.buffer(&b)?;
    k.scalar(KernelArg::S32(stride as i32));
    k.scalar(KernelArg::S32(n as i32));
    k.scalar(KernelArg::F32(eps));
    k.launch(rows as u32)?;
    let got = k.read::<f32>(y, rows * stride)?;
    compare("layer_norm y", &got, &want, |i, g, w| {
        if is_sentinel(w) {
            is_sentinel(g)
        } else {
            (g as f64 - w as f64).abs() <= tol[i] + ulp_f32(w as f64) / 2.0
        }
    })
}

// ---------------------------------------------------------------------------
// block_sum_f32: out[p] = sum of x[p*512 .. p*512+512] (masked past n).

fn block_sum_f32_with(x: &[f32], exact: bool) -> Outcome {
    let n = x.len();
    let programs = n.div_ceil(512);
    let mut k = Tr::open(DIR, "tr_block_sum_f32.ptx")?;
    k.buffer(x)?;
    let out = k.buffer(&vec![f32::NAN; programs])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(programs as u32)?;
    let got = k.read::<f32>(out, programs)?;
    let chunks: Vec<&[f32]> = x.chunks(512).collect();
    let want: Vec<f32> = chunks.iter().map(|c| c.iter().map(|&v| v as f64).sum::<f64>() as f32).collect();
    let what = if exact { "block_sum_f32 (exact inputs) out" } else { "block_sum_f32 out" };
    compare(what, &got, &want, |p, g, w| {
        if exact {
            g.to_bits() == w.to_bits()
        } else {
            let exact_sum: f64 = chunks[p].iter().map(|&v| v as f64).sum();
            let abs_sum: f64 = chunks[p].iter().map(|&v| (v as f64).abs()).sum();
            (g as f64 - exact_sum).abs() <= gamma(511) * abs_sum
        }
    })
}

fn block_sum_f32() -> Outcome {
    let mut r = Rng::new(24);
    // Multiples of 1/256 below 64 in magnitude: every partial sum of 512 of
    // them is exact in f32, so any summation order gives the exact sum.
    let exact: Vec<f32> = (0..3000).map(|_| r.i64_in(-16384, 16384) as f32 / 256.0).collect();
    block_sum_f32_with(&exact, true)?;
    let wide: Vec<f32> = (0..3000).map(|_| r.f32_wide(-10, 10)).collect();
    block_sum_f32_with(&wide, false)
}

// ---------------------------------------------------------------------------
// max_abs: atomic_max(out, max |x|) over all programs (exact).

fn max_abs() -> Outcome {
    let n: usize = 5000;
    let mut r = Rng::new(25);
    let mut x: Vec<f32> = (0..n).map(|_| r.f32_in(-100.0, 100.0)).collect();
    x[4321] = -1234.5; // the largest magnitude is negative
    x[17] = -0.0;
    let want = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    assert_eq!(want, 1234.5);

    let mut k = Tr::open(DIR, "tr_max_abs.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&[0f32])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    compare("max_abs out", &k.read::<f32>(out, 1)?, &[want], same_bits_f32)
}

// ---------------------------------------------------------------------------
// matmul: c[m, n] = sum_k a[m, k] * b[k, n] over 32x32 tiles (grid: M/32 x
// N/32); b is passed transposed (strides sbk = 1, sbn = K) and c with a row
// pitch larger than N.

#[derive(Clone, Copy, PartialEq)]
enum MmIn {
    F16,
    F32,
}

#[derive(Clone, Copy, PartialEq)]
enum MmValues {
    /// Multiples of 1/4 in [-4, 4]: exact in f16 and tf32; products and
    /// every partial sum are exact in f32, so any order gives one result.
    Exact,
    /// Wide-range f32 values; the reference is a k-ordered chain of
    /// `fma.rn.f32`, as the FMA lowering of `tl.dot` computes it.
    Wide,
}

fn matmul(dir: &str, file: &str, input: MmIn, values: MmValues) -> Outcome {
    matmul_tiles(dir, file, input, values, 32)
}

/// [`matmul`] with `tile` x `tile` output tiles per CTA.
fn matmul_tiles(dir: &str, file: &str, input: MmIn, values: MmValues, tile: usize) -> Outcome {
    let (m, n, kk) = (37usize, 45usize, 50usize);
    let pitch = n + 3;
    let mut r = Rng::new(26);
    let mut val = || match values {
        MmValues::Exact => r.i64_in(-16, 16) as f32 / 4.0,
        MmValues::Wide => r.f32_wide(-4, 4),
    };
    let a: Vec<f32> = (0..m * kk).map(|_| val()).collect();
    let bt: Vec<f32> = (0..kk * n).map(|_| val()).collect(); // b[k, j] at bt[j * kk + k]
    let mut want = vec![f32::NAN; m * pitch];
    for i in 0..m {
        for j in 0..n {
            want[i * pitch + j] = match values {
                MmValues::Exact => (0..kk).map(|k| a[i * kk + k] as f64 * bt[j * kk + k] as f64).sum::<f64>() as f32,
                MmValues::Wide => (0..kk).fold(0f32, |acc, k| a[i * kk + k].mul_add(bt[j * kk + k], acc)),
            };
        }
    }

    let mut k = Tr::open(dir, file)?;
    match input {
        MmIn::F32 => {
            k.buffer(&a)?;
            k.buffer(&bt)?;
        }
        MmIn::F16 => {
            let h = |v: &[f32]| v.iter().map(|&x| half::f16::from_f32(x).to_bits()).collect::<Vec<u16>>();
            k.buffer(&h(&a))?;
            k.buffer(&h(&bt))?;
        }
    }
    let c = k.buffer(&vec![f32::NAN; m * pitch])?;
    for s in [m, n, kk, kk, 1, 1, kk, pitch, 1] {
        k.scalar(KernelArg::S32(s as i32));
    }
    k.launch(Dim3::new(m.div_ceil(tile) as u32, n.div_ceil(tile) as u32, 1))?;
    compare(&format!("{file} c"), &k.read::<f32>(c, m * pitch)?, &want, same_bits_f32)
}

fn matmul_f32_ieee() -> Outcome {
    matmul(DIR, "tr_matmul_f32_ieee.ptx", MmIn::F32, MmValues::Exact)?;
    matmul(DIR, "tr_matmul_f32_ieee.ptx", MmIn::F32, MmValues::Wide)
}

/// `tl.dot` on f16 on the tensor cores: `ldmatrix{.trans}` and
/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`.
fn matmul_f16() -> Outcome {
    matmul(DIR, "tr_matmul_f16.ptx", MmIn::F16, MmValues::Exact)
}

/// The same `tl.dot` on f16 compiled for sm_90 (sm_90a) with 64 x 64
/// tiles: `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` from
/// shared-memory matrix descriptors (128-byte swizzle), `wgmma.fence`,
/// `commit_group`, `wait_group`, `fence.proxy.async`. Same inputs and the
/// same independent reference as the sm_80 build (`matmul_f16`).
fn matmul_f16_sm90() -> Outcome {
    matmul_tiles(DIR, "tr_matmul_f16_sm90.ptx", MmIn::F16, MmValues::Exact, 64)
}

/// `tl.dot` on f32 as tf32 (Triton's default precision), 3-stage
/// `cp.async` pipeline, `ldmatrix` and `mma...m16n8k8...f32.tf32.tf32.f32`.
/// The inputs are exact in tf32 and every partial sum is exact in f32.
fn matmul_tf32() -> Outcome {
    matmul(DIR, "tr_matmul_tf32.ptx", MmIn::F32, MmValues::Exact)
}

/// The same `tl.dot` with `num_stages=3`: `cp.async` copies with zero-fill
/// sizes for the masked elements, three commit groups in flight,
/// `cp.async.wait_group 2` before each stage is read.
fn matmul_f32_ieee_pipelined() -> Outcome {
    matmul(DIR, "tr_matmul_f32_ieee_pipelined.ptx", MmIn::F32, MmValues::Exact)?;
    matmul(DIR, "tr_matmul_f32_ieee_pipelined.ptx", MmIn::F32, MmValues::Wide)
}

// ---------------------------------------------------------------------------
// cumsum_i32: inclusive prefix sums (wrapping) within each 256-element program.

fn cumsum_i32() -> Outcome {
    let (n, cap) = (1000usize, 1024usize);
    let mut r = Rng::new(28);
    let x: Vec<i32> = (0..n).map(|i| if i % 4 == 0 { r.next() as i32 } else { r.i64_in(-500, 500) as i32 }).collect();
    let mut want = vec![0x5a5a_5a5ai32; cap];
    for (p, chunk) in x.chunks(256).enumerate() {
        let mut s = 0i32;
        for (j, &v) in chunk.iter().enumerate() {
            s = s.wrapping_add(v);
            want[p * 256 + j] = s;
        }
    }
    let mut k = Tr::open(DIR, "tr_cumsum_i32.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![0x5a5a_5a5ai32; cap])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(256) as u32)?;
    compare("cumsum_i32 out", &k.read::<i32>(out, cap)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// argmax_row: index of the largest of the first n_cols elements of each row.

fn argmax_row() -> Outcome {
    let (rows, n_cols, stride) = (7usize, 200usize, 256usize);
    let mut r = Rng::new(29);
    let mut x = vec![f32::NAN; rows * stride];
    let mut want = Vec::new();
    for row in 0..rows {
        // Distinct values (no ties); row 3 all negative; the padding holds
        // larger values that the mask must hide.
        let mut vals: Vec<f32> = (0..n_cols).map(|c| (c as f32 - 100.0) * 0.37 + r.f32_in(0.0, 0.3)).collect();
        if row == 3 {
            vals.iter_mut().for_each(|v| *v = -v.abs() - 1.0);
        }
        // A random permutation of the values, so the maximum moves.
        for c in (1..n_cols).rev() {
            let j = r.i64_in(0, c as i64) as usize;
            vals.swap(c, j);
        }
        x[row * stride..row * stride + n_cols].copy_from_slice(&vals);
        for c in n_cols..stride {
            x[row * stride + c] = 1.0e6;
        }
        let best = (0..n_cols).max_by(|&a, &b| vals[a].partial_cmp(&vals[b]).expect("no NaN")).expect("non-empty");
        assert_eq!(vals.iter().filter(|&&v| v == vals[best]).count(), 1, "argmax_row inputs must have no ties");
        want.push(best as i32);
    }
    let mut k = Tr::open(DIR, "tr_argmax_row.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![-1i32; rows])?;
    k.scalar(KernelArg::S32(stride as i32));
    k.scalar(KernelArg::S32(n_cols as i32));
    k.launch(rows as u32)?;
    compare("argmax_row out", &k.read::<i32>(out, rows)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// randint: tl.randint(seed, offset) is the first word of Philox4x32-10 with
// counter (offset, 0, 0, 0) and key (seed mod 2^32, seed >> 32).

/// Philox4x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
/// 3", SC'11) with `rounds` rounds.
fn philox4x32(mut c: [u32; 4], mut k: [u32; 2], rounds: usize) -> [u32; 4] {
    for _ in 0..rounds {
        let p0 = 0xD251_1F53u64 * c[0] as u64;
        let p1 = 0xCD9E_8D57u64 * c[2] as u64;
        c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
        k = [k[0].wrapping_add(0x9E37_79B9), k[1].wrapping_add(0xBB67_AE85)];
    }
    c
}

fn randint() -> Outcome {
    // The reference against the known-answer vectors of the Random123
    // library (philox4x32_10).
    assert_eq!(philox4x32([0; 4], [0; 2], 10), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
    assert_eq!(philox4x32([u32::MAX; 4], [u32::MAX; 2], 10), [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]);
    assert_eq!(
        philox4x32([0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344], [0xa409_3822, 0x299f_31d0], 10),
        [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1]
    );
    let (n, cap) = (3000usize, 3072usize);
    let seed: i64 = 0x1234_5678_9abc_def0;
    let mut want: Vec<u32> = (0..n).map(|i| philox4x32([i as u32, 0, 0, 0], [seed as u32, (seed >> 32) as u32], 10)[0]).collect();
    want.resize(cap, 0xdead_beef);
    let mut k = Tr::open(DIR, "tr_randint.ptx")?;
    let out = k.buffer(&vec![0xdead_beefu32; cap])?;
    k.scalar(KernelArg::S64(seed));
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    compare("randint out", &k.read::<u32>(out, cap)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// add_f16: out = x + y in half precision (`add.f16`, round to nearest even).

fn add_f16() -> Outcome {
    use half::f16;
    let (n, cap) = (2500usize, 3072usize);
    let mut r = Rng::new(30);
    let mut pick = || -> u16 {
        match r.next() % 8 {
            // any finite half (normal or subnormal), either sign
            0..=4 => loop {
                let b = r.next() as u16;
                if f16::from_bits(b).is_finite() {
                    break b;
                }
            },
            5 => f16::from_f32(r.f32_in(60000.0, 65504.0)).to_bits(), // sums that overflow to inf
            6 => r.next() as u16 & 0x83ff,                             // subnormals and zeros
            _ => f16::from_f32(r.f32_in(-2.0, 2.0)).to_bits(),
        }
    };
    let x: Vec<u16> = (0..n).map(|_| pick()).collect();
    let y: Vec<u16> = (0..n).map(|_| pick()).collect();
    // The exact sum of two halves fits in an f64 (at most 50 significant
    // bits), so one rounding f64 -> f16 gives the correctly rounded sum.
    let mut want: Vec<u16> = (0..n).map(|i| f16::from_f64(f16::from_bits(x[i]).to_f64() + f16::from_bits(y[i]).to_f64()).to_bits()).collect();
    want.resize(cap, 0x7e01);
    let mut k = Tr::open(DIR, "tr_add_f16.ptx")?;
    k.buffer(&x)?;
    k.buffer(&y)?;
    let out = k.buffer(&vec![0x7e01u16; cap])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(1024) as u32)?;
    compare("add_f16 out", &k.read::<u16>(out, cap)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// gelu: 0.5 x (1 + erf(x / sqrt 2)), erf from libdevice (`__nv_erff`).

/// erf(z) from its Taylor series in f64 (|z| <= 3: relative error below
/// 1e-11, far under an f32 ulp).
fn erf_series(z: f64) -> f64 {
    let mut term = z;
    let mut sum = z;
    let mut n = 0.0;
    while term.abs() > 1e-17 * sum.abs() {
        n += 1.0;
        term *= -z * z / n;
        sum += term / (2.0 * n + 1.0);
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

fn gelu() -> Outcome {
    let n = 2000usize;
    let mut r = Rng::new(31);
    let mut x: Vec<f32> = (0..n - 6).map(|_| r.f32_in(-4.0, 4.0)).collect();
    x.extend([0.0, -0.0, 1.0e-3, -1.0e-3, 4.0, -4.0]);
    let reference = |v: f32| -> (f64, f64) {
        let v = v as f64;
        let z = v / std::f64::consts::SQRT_2;
        let e = erf_series(z);
        let y = 0.5 * v * (1.0 + e);
        // erff within 2 ulp (CUDA); its argument x * 0.70710677f rounds once
        // (u) and the constant differs from 1/sqrt 2 by below u, moving erf
        // by at most (2/sqrt pi) |z| 2u; 1 + erf rounds (u), and so do the
        // two products.
        let err_e = 2.0 * ulp_f32(e) + 1.13 * z.abs() * 2.0 * U;
        let tol = 0.5 * v.abs() * (err_e + ulp_f32(1.0 + e) / 2.0) * 1.1 + ulp_f32(y);
        (y, tol)
    };
    let want: Vec<f32> = x.iter().map(|&v| reference(v).0 as f32).collect();
    let mut k = Tr::open(DIR, "tr_gelu.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![f32::NAN; n])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    compare("gelu out", &k.read::<f32>(out, n)?, &want, |i, g, _| {
        let (w, tol) = reference(x[i]);
        (g as f64 - w).abs() <= tol
    })
}

// ---------------------------------------------------------------------------
// sort_i32: tl.sort of each 128-element program (a bitonic network over
// shfl.sync.bfly).

fn sort_i32() -> Outcome {
    let n = 128 * 5;
    let mut r = Rng::new(32);
    let mut x: Vec<i32> = (0..n).map(|i| if i % 9 == 0 { r.i64_in(-3, 3) as i32 } else { r.next() as i32 }).collect();
    x[5] = i32::MIN;
    x[6] = i32::MAX;
    let mut want = x.clone();
    want.chunks_mut(128).for_each(|c| c.sort());
    let mut k = Tr::open(DIR, "tr_sort_i32.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![0x5a5a_5a5ai32; n])?;
    k.launch((n / 128) as u32)?;
    compare("sort_i32 out", &k.read::<i32>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// histogram: tl.histogram of each program's 512 values into 16 bins,
// atomically added to the output.

fn histogram() -> Outcome {
    let n = 512 * 6;
    let mut r = Rng::new(33);
    // Skewed: bin 3 is frequent, bin 15 is never hit.
    let x: Vec<i32> = (0..n).map(|i| if i % 3 == 0 { 3 } else { r.i64_in(0, 14) as i32 }).collect();
    let mut want = vec![0i32; 16];
    x.iter().for_each(|&v| want[v as usize] += 1);
    let mut k = Tr::open(DIR, "tr_histogram.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&[0i32; 16])?;
    k.launch((n / 512) as u32)?;
    compare("histogram out", &k.read::<i32>(out, 16)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// atomic_add_f32: out[idx[i]] += x[i] (atom.add.f32); the values are
// multiples of 1/4 with small sums, exact in any order.

fn atomic_add_f32() -> Outcome {
    let n = 3000usize;
    let mut r = Rng::new(34);
    let x: Vec<f32> = (0..n).map(|_| r.i64_in(-40, 40) as f32 / 4.0).collect();
    let idx: Vec<i32> = (0..n).map(|i| if i % 5 == 0 { 7 } else { r.i64_in(0, 31) as i32 }).collect();
    let mut want = vec![0f32; 32];
    for i in 0..n {
        want[idx[i] as usize] += x[i];
    }
    let mut k = Tr::open(DIR, "tr_atomic_add_f32.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&[0f32; 32])?;
    k.buffer(&idx)?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    compare("atomic_add_f32 out", &k.read::<f32>(out, 32)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// to_bf16: f32 -> bf16 with cvt.rn.bf16.f32 (round to nearest even).

fn to_bf16() -> Outcome {
    use half::bf16;
    let (n, cap) = (2000usize, 2048usize);
    let mut r = Rng::new(35);
    let mut x: Vec<f32> = (0..n - 12).map(|i| if i % 2 == 0 { f32::from_bits(r.next() as u32) } else { r.f32_wide(-130, 127) }).collect();
    // Ties (round to even), overflow to infinity, subnormals, zeros, NaN.
    x.extend([
        f32::from_bits(0x3f80_8000),
        f32::from_bits(0x3f81_8000),
        f32::MAX,
        -f32::MAX,
        f32::from_bits(0x7f7f_7fff),
        f32::from_bits(1),
        f32::from_bits(0x0000_8000),
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ]);
    let mut want: Vec<u16> = x.iter().map(|&v| bf16::from_f32(v).to_bits()).collect();
    want.resize(cap, 0x7e01);
    let mut k = Tr::open(DIR, "tr_to_bf16.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![0x7e01u16; cap])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    let is_nan = |b: u16| b & 0x7f80 == 0x7f80 && b & 0x007f != 0;
    compare("to_bf16 out", &k.read::<u16>(out, cap)?, &want, |i, g, w| {
        if i < n && x[i].is_nan() {
            is_nan(g)
        } else {
            g == w
        }
    })
}

// ---------------------------------------------------------------------------
// quant_i8: clamp(rint(x * scale), -128, 127) stored as int8.

fn quant_i8() -> Outcome {
    let (n, cap) = (2000usize, 2048usize);
    let scale = 12.5f32;
    let mut r = Rng::new(36);
    let mut x: Vec<f32> = (0..n - 4).map(|_| r.f32_in(-12.0, 12.0)).collect();
    x.extend([0.5 / scale, 1.5 / scale, -2.5 / scale, 0.0]); // ties round to even
    let mut want: Vec<u8> = x.iter().map(|&v| (v * scale).round_ties_even().clamp(-128.0, 127.0) as i8 as u8).collect();
    want.resize(cap, 0xa5);
    let mut k = Tr::open(DIR, "tr_quant_i8.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![0xa5u8; cap])?;
    k.scalar(KernelArg::F32(scale));
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    compare("quant_i8 out", &k.read::<u8>(out, cap)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// max_nan: tl.maximum(x, y, propagate_nan=ALL) is max.NaN.f32 (PTX ISA 9.7.3
// max): NaN if either input is NaN, else the larger, with -0 < +0.

fn max_nan() -> Outcome {
    let (n, cap) = (2000usize, 2048usize);
    let mut r = Rng::new(37);
    let mut pick = || match r.next() % 10 {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        _ => r.f32_wide(-20, 20),
    };
    let mut x: Vec<f32> = (0..n).map(|_| pick()).collect();
    let mut y: Vec<f32> = (0..n).map(|_| pick()).collect();
    // Signed zeros, NaNs of either sign and infinities, in both orders.
    let specials = [(-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (f32::NAN, 1.0), (1.0, -f32::NAN), (f32::NEG_INFINITY, f32::NAN), (f32::INFINITY, f32::NEG_INFINITY), (-1.5, -0.0)];
    for (i, &(a, b)) in specials.iter().enumerate() {
        x[i] = a;
        y[i] = b;
    }
    // max with -0 < +0 (f32::max may return either zero).
    let max = |a: f32, b: f32| if a == b { if a.is_sign_negative() { b } else { a } } else if a > b { a } else { b };
    let mut want: Vec<f32> = (0..n).map(|i| if x[i].is_nan() || y[i].is_nan() { f32::NAN } else { max(x[i], y[i]) }).collect();
    want.resize(cap, -1.0);
    let mut k = Tr::open(DIR, "tr_max_nan.ptx")?;
    k.buffer(&x)?;
    k.buffer(&y)?;
    let out = k.buffer(&vec![-1.0f32; cap])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    // A NaN result is the canonical NaN 0x7fffffff (PTX ISA 9.7.3 max).
    compare("max_nan out", &k.read::<f32>(out, cap)?, &want, |_, g, w| if w.is_nan() { g.to_bits() == 0x7fff_ffff } else { g.to_bits() == w.to_bits() })
}

// ---------------------------------------------------------------------------
// checked_copy: a copy guarded by tl.device_assert(x >= 0) (compiled with
// debug=True: a call to `__assertfail` on the failing lanes).

fn checked_copy_run(x: &[i32]) -> Result<Vec<i32>, Failure> {
    let n = x.len();
    let mut k = Tr::open(DIR, "tr_checked_copy.ptx")?;
    k.buffer(x)?;
    let out = k.buffer(&vec![-1i32; n])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(n.div_ceil(512) as u32)?;
    k.read::<i32>(out, n)
}

fn checked_copy() -> Outcome {
    let mut r = Rng::new(38);
    let x: Vec<i32> = (0..1500).map(|_| r.i64_in(0, i32::MAX as i64) as i32).collect();
    compare("checked_copy out", &checked_copy_run(&x)?, &x, |_, a, b| a == b)
}

/// A failing assertion: on a GPU the kernel stops (the assertion's message,
/// file and line are printed) and the launch reports an error. Here the
/// error is a `trap` naming the assertion, the file and line that the
/// kernel passes to `__assertfail` (the Python source, line 188:
/// `tl.device_assert(x >= 0, "negative input")`), and the failing thread;
/// the launch's output holds CUDA's message for every failing thread.
fn checked_copy_failing_assert() -> Outcome {
    let mut x: Vec<i32> = (0..1500).collect();
    // Thread t of program p holds elements 512 p + t + 128 k (k < 4):
    // x[600] is thread 88 (warp 2, lane 24) of program 1; x[1234] and
    // x[1300] are threads 82 and 20 of program 2. The lowest failing CTA
    // is reported: program 1.
    x[1234] = -5;
    x[1300] = -7;
    x[600] = -1;
    let file = "/tmp/ptxsim-corpus/src/tr_kernels.py";
    match checked_copy_run(&x) {
        Ok(_) => Err(Failure::Mismatch("the launch completed although `tl.device_assert(x >= 0)` fails for x[600], x[1234], x[1300]".into())),
        Err(Failure::Run(e)) if e.kind == TrapKind::Trap => {
            let want = format!("assertion `negative input` failed at {file}:188 in `unknown` (thread (88,0,0))");
            if e.message != want || e.cta != Some([1, 0, 0]) || e.warp != Some(2) || e.lane != Some(24) {
                return Err(Failure::Mismatch(format!("expected `{want}` in CTA (1,0,0), warp 2, lane 24, got: {e}")));
            }
            // Program 1 (CTA 1) stops the launch; CTA 0 printed nothing; CTAs
            // above 1 may or may not have run (early stop), so only CTA 1's
            // line is required, and it comes first.
            let printed = e.stdout.text();
            let line = format!("{file}:188: unknown: block: [1,0,0], thread: [88,0,0] Assertion `negative input` failed.\n");
            if !printed.starts_with(&line) {
                return Err(Failure::Mismatch(format!("printed output should start with {line:?}, got {printed:?}")));
            }
            Ok(())
        }
        Err(e) => Err(Failure::Mismatch(format!("expected a trap reporting the assertion \"negative input\", got: {e}"))),
    }
}

// ---------------------------------------------------------------------------
// matmul_small: one 32x32x32 tl.dot on int8 (-> int32, `ldmatrix` and
// `mma.sync.aligned.m16n8k32...satfinite.s32.s8.s8.s32`) or bf16 (-> f32,
// `ldmatrix{.trans}` and `mma...m16n8k16...f32.bf16.bf16.f32`) tiles,
// row-major, exact values.

fn matmul_small_i8() -> Outcome {
    let mut r = Rng::new(39);
    let a: Vec<u8> = (0..32 * 32).map(|_| r.i64_in(-128, 127) as i8 as u8).collect();
    let b: Vec<u8> = (0..32 * 32).map(|_| r.i64_in(-128, 127) as i8 as u8).collect();
    let want: Vec<i32> = (0..32 * 32)
        .map(|ij| (0..32).map(|k| a[ij / 32 * 32 + k] as i8 as i32 * b[k * 32 + ij % 32] as i8 as i32).sum())
        .collect();
    let mut k = Tr::open(DIR, "tr_matmul_i8.ptx")?;
    k.buffer(&a)?;
    k.buffer(&b)?;
    let c = k.buffer(&vec![0x5a5a_5a5ai32; 32 * 32])?;
    k.launch(1u32)?;
    compare("matmul_i8 c", &k.read::<i32>(c, 32 * 32)?, &want, |_, a, b| a == b)
}

fn matmul_small_bf16() -> Outcome {
    use half::bf16;
    let mut r = Rng::new(40);
    // Multiples of 1/4 in [-4, 4]: exact in bf16, products and sums exact in f32.
    let a: Vec<f32> = (0..32 * 32).map(|_| r.i64_in(-16, 16) as f32 / 4.0).collect();
    let b: Vec<f32> = (0..32 * 32).map(|_| r.i64_in(-16, 16) as f32 / 4.0).collect();
    let want: Vec<f32> = (0..32 * 32).map(|ij| (0..32).map(|k| a[ij / 32 * 32 + k] * b[k * 32 + ij % 32]).sum()).collect();
    let h = |v: &[f32]| v.iter().map(|&x| bf16::from_f32(x).to_bits()).collect::<Vec<u16>>();
    let mut k = Tr::open(DIR, "tr_matmul_bf16.ptx")?;
    k.buffer(&h(&a))?;
    k.buffer(&h(&b))?;
    let c = k.buffer(&vec![f32::NAN; 32 * 32])?;
    k.launch(1u32)?;
    compare("matmul_bf16 c", &k.read::<f32>(c, 32 * 32)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// print_values: tl.device_print of 128 values (`vprintf` with Triton's
// format "pid (%u, %u, %u) idx (%3u) x: %i\n"). One line per thread, in
// thread order (warps in order, lanes in order within a warp).

fn print_values() -> Outcome {
    let x: Vec<i32> = (0..128).map(|i| i * 3 - 100).collect();
    let mut k = Tr::open(DIR, "tr_print_values.ptx")?;
    k.buffer(&x)?;
    let s = k.launch_stats(1u32)?;
    let want: String = (0..128).map(|i| format!("pid (0, 0, 0) idx ({i:>3}) x: {}\n", x[i])).collect();
    if s.stdout.dropped != 0 || s.stdout.text() != want {
        return Err(Failure::Mismatch(format!("printed {:?} ({} bytes dropped), want {want:?}", s.stdout.text(), s.stdout.dropped)));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Pending kernels.

/// block_sum on i32 (wrapping sums), lowered to `redux.sync.add.s32`.
fn block_sum_i32() -> Outcome {
    let n: usize = 3000;
    let mut r = Rng::new(27);
    let x: Vec<i32> = (0..n).map(|i| if i % 5 == 0 { r.next() as i32 } else { r.i64_in(-1000, 1000) as i32 }).collect();
    let want: Vec<i32> = x.chunks(512).map(|c| c.iter().fold(0i32, |s, &v| s.wrapping_add(v))).collect();
    let programs = want.len();
    let mut k = Tr::open(DIR, "tr_block_sum_i32.ptx")?;
    k.buffer(&x)?;
    let out = k.buffer(&vec![0x5a5a_5a5ai32; programs])?;
    k.scalar(KernelArg::S32(n as i32));
    k.launch(programs as u32)?;
    compare("block_sum_i32 out", &k.read::<i32>(out, programs)?, &want, |_, a, b| a == b)
}



/// Launches that stop at an instruction the engine does not support yet
/// (the first such instruction each executes).
const PENDING: &[Pending] = &[];

#[test]
fn triton_block_sum_i32() {
    assert_ok("tr_block_sum_i32 (tl.sum on i32)", block_sum_i32);
}

#[test]
fn triton_max_nan() {
    assert_ok("tr_max_nan (tl.maximum with propagate_nan=ALL)", max_nan);
}

#[test]
fn triton_vector_add() {
    assert_ok("tr_vector_add", vector_add);
}

#[test]
fn triton_softmax_row() {
    assert_ok("tr_softmax_row", softmax_row);
}

#[test]
fn triton_layer_norm() {
    assert_ok("tr_layer_norm", layer_norm);
}

#[test]
fn triton_block_sum_f32() {
    assert_ok("tr_block_sum_f32", block_sum_f32);
}

#[test]
fn triton_max_abs() {
    assert_ok("tr_max_abs", max_abs);
}

#[test]
fn triton_matmul_f32_ieee() {
    assert_ok("tr_matmul_f32_ieee", matmul_f32_ieee);
}

#[test]
fn triton_matmul_f32_ieee_pipelined() {
    assert_ok("tr_matmul_f32_ieee_pipelined", matmul_f32_ieee_pipelined);
}

#[test]
fn triton_matmul_f16() {
    assert_ok("tr_matmul_f16", matmul_f16);
}

#[test]
fn triton_matmul_f16_sm90_wgmma() {
    assert_ok("tr_matmul_f16_sm90", matmul_f16_sm90);
}

#[test]
fn triton_matmul_tf32() {
    assert_ok("tr_matmul_tf32", matmul_tf32);
}

#[test]
fn triton_matmul_i8() {
    assert_ok("tr_matmul_i8", matmul_small_i8);
}

#[test]
fn triton_matmul_bf16() {
    assert_ok("tr_matmul_bf16", matmul_small_bf16);
}

#[test]
fn triton_cumsum_i32() {
    assert_ok("tr_cumsum_i32", cumsum_i32);
}

#[test]
fn triton_argmax_row() {
    assert_ok("tr_argmax_row", argmax_row);
}

#[test]
fn triton_randint() {
    assert_ok("tr_randint", randint);
}

#[test]
fn triton_add_f16() {
    assert_ok("tr_add_f16", add_f16);
}

#[test]
fn triton_gelu() {
    assert_ok("tr_gelu", gelu);
}

#[test]
fn triton_sort_i32() {
    assert_ok("tr_sort_i32", sort_i32);
}

#[test]
fn triton_histogram() {
    assert_ok("tr_histogram", histogram);
}

#[test]
fn triton_atomic_add_f32() {
    assert_ok("tr_atomic_add_f32", atomic_add_f32);
}

#[test]
fn triton_to_bf16() {
    assert_ok("tr_to_bf16", to_bf16);
}

#[test]
fn triton_quant_i8() {
    assert_ok("tr_quant_i8", quant_i8);
}

#[test]
fn triton_checked_copy() {
    assert_ok("tr_checked_copy", checked_copy);
}

#[test]
fn triton_checked_copy_failing_assert() {
    assert_ok("tr_checked_copy with a failing tl.device_assert", checked_copy_failing_assert);
}

#[test]
fn triton_print_values() {
    assert_ok("tr_print_values (tl.device_print)", print_values);
}

#[test]
fn triton_pending_launches_still_stop_at_their_instruction() {
    assert_pending(PENDING);
}

/// Every file of both Triton directories has a launch above.
#[test]
fn every_triton_file_is_launched() {
    assert_eq!(
        ptx_files(DIR),
        [
            "tr_add_f16.ptx",
            "tr_argmax_row.ptx",
            "tr_atomic_add_f32.ptx",
            "tr_block_sum_f32.ptx",
            "tr_block_sum_i32.ptx",
            "tr_checked_copy.ptx",
            "tr_cumsum_i32.ptx",
            "tr_gelu.ptx",
            "tr_histogram.ptx",
            "tr_layer_norm.ptx",
            // tr_math_ops, tr_scans and tr_softmax_f16: corpus_golden.rs
            "tr_math_ops.ptx",
            "tr_matmul_bf16.ptx",
            "tr_matmul_f16.ptx",
            "tr_matmul_f16_sm90.ptx",
            "tr_matmul_f32_ieee.ptx",
            "tr_matmul_f32_ieee_pipelined.ptx",
            // tr_matmul_fp8_sm89: corpus_golden.rs
            "tr_matmul_fp8_sm89.ptx",
            "tr_matmul_i8.ptx",
            "tr_matmul_tf32.ptx",
            "tr_max_abs.ptx",
            "tr_max_nan.ptx",
            "tr_print_values.ptx",
            "tr_quant_i8.ptx",
            "tr_randint.ptx",
            "tr_scans.ptx",
            "tr_softmax_f16.ptx",
            "tr_softmax_row.ptx",
            "tr_sort_i32.ptx",
            "tr_to_bf16.ptx",
            // tr_to_fp8_sm89 and tr_to_fp8_sm90: corpus_golden.rs
            "tr_to_fp8_sm89.ptx",
            "tr_to_fp8_sm90.ptx",
            "tr_vector_add.ptx"
        ]
    );
    assert!(ptx_files(PENDING_DIR).is_empty(), "tests/{PENDING_DIR}: {:?}", ptx_files(PENDING_DIR));
}
