//! Launches every Numba kernel of `tests/corpus/numba` (source:
//! `tests/corpus/src/nb_kernels.py`) through the library API with real,
//! non-trivial inputs, and compares every output element with a reference
//! computed here, independently of the engine. Each check runs under both
//! scheduling modes (`Scheduling::Stack` and `Scheduling::Its`).
//!
//! Numba passes each array as `meminfo, parent, nitems, itemsize, data,
//! shape[ndim], strides[ndim]` (strides in bytes); [`Nb::array`] builds that
//! list. Python semantics are compiled into the PTX: floor division and
//! modulo, 64-bit integers where the source mixes `int32` with Python ints.
//!
//! References follow the PTX as written: `fma.rn` is one fused operation
//! (`f32::mul_add` / `f64::mul_add`); `add`/`sub`/`mul` without a rounding
//! modifier are each rounded to nearest (the PTX ISA lets ptxas contract such
//! a `mul` and `add` into an `fma`; the engine does not, so a real GPU may
//! differ in the last bit of those kernels). Integer kernels and the kernels
//! without library math are compared bit for bit. The library-math kernels
//! (`fmath`, `dmath`) are compared within the maximum ulp errors that the
//! CUDA C++ Programming Guide (Mathematical Functions appendix) states for
//! the functions they call, plus the reference's own error; the bound is
//! derived at each comparison.
//!
//! [`PENDING`] lists the launches that stop at an instruction the engine
//! does not support yet, with the exact instruction the error must name
//! (their files go to `tests/corpus_pending/numba`, empty now); when one
//! starts to work, its test fails and says to move it to the checked tests.


use crate::corpus_launch::*;
use ptxsim_exec::{Dim3, KernelArg};

/// A Numba kernel being set up: the loaded module and its argument list.
struct Nb {
    l: Loaded,
    args: Vec<KernelArg>,
}

impl Nb {
    fn open(file: &str) -> Result<Nb, Failure> {
        Ok(Nb { l: Loaded::open(&format!("corpus/numba/{file}"))?, args: Vec::new() })
    }

    /// Appends a C-ordered array argument holding `data` with `shape`.
    fn array<T: Elem>(&mut self, data: &[T], shape: &[usize]) -> Result<u64, Failure> {
        let mut strides = vec![1usize; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        self.array_strided(data, shape, &strides)
    }

    /// Appends an array argument whose element `[i0, i1, ...]` is
    /// `data[i0*strides[0] + i1*strides[1] + ...]` (strides in elements).
    fn array_strided<T: Elem>(&mut self, data: &[T], shape: &[usize], strides: &[usize]) -> Result<u64, Failure> {
        let addr = self.l.buffer(data)?;
        let nitems: usize = shape.iter().product();
        self.args.extend([
            KernelArg::U64(0),
            KernelArg::U64(0),
            KernelArg::S64(nitems as i64),
            KernelArg::S64(T::SIZE as i64),
            KernelArg::Ptr(addr),
        ]);
        self.args.extend(shape.iter().map(|&s| KernelArg::S64(s as i64)));
        self.args.extend(strides.iter().map(|&s| KernelArg::S64((s * T::SIZE) as i64)));
        Ok(addr)
    }

    fn scalar(&mut self, a: KernelArg) {
        self.args.push(a);
    }

    fn launch(&self, grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Outcome {
        self.l.launch(grid, block, 0, &self.args)
    }

    fn read<T: Elem>(&self, addr: u64, n: usize) -> Result<Vec<T>, Failure> {
        self.l.read(addr, n)
    }
}

// ---------------------------------------------------------------------------
// saxpy: out[i] = a * x[i] + y[i], one `fma.rn.f32`.

fn saxpy() -> Outcome {
    let n = 1000;
    let mut r = Rng::new(11);
    let x: Vec<f32> = (0..n).map(|_| r.f32_wide(-10, 10)).collect();
    let y: Vec<f32> = (0..n).map(|_| r.f32_wide(-10, 10)).collect();
    let a = 1.739_128_4f32;
    let want: Vec<f32> = (0..n).map(|i| a.mul_add(x[i], y[i])).collect();
    // The inputs tell a fused from an unfused multiply-add.
    let unfused = (0..n).filter(|&i| a * x[i] + y[i] != want[i]).count();
    assert!(unfused > 50, "saxpy inputs should separate fma from mul+add ({unfused})");

    let mut k = Nb::open("nb_saxpy.ptx")?;
    let out = k.array(&vec![f32::NAN; n], &[n])?;
    k.scalar(KernelArg::F32(a));
    k.array(&x, &[n])?;
    k.array(&y, &[n])?;
    k.launch(8u32, 128u32)?;
    compare("saxpy out", &k.read::<f32>(out, n)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// mandel: escape-time iteration count, as the PTX computes it.

fn mandel_ref(cx: f32, cy: f32, max_iter: i32) -> i32 {
    if max_iter < 1 {
        return 0;
    }
    let (mut zr, mut zi) = (0f32, 0f32);
    let mut n = 0i64;
    loop {
        // sub.f32 / add.f32 rounded separately; zi' = fma(zi, zr + zr, cy).
        let t = cx + (zr * zr - zi * zi);
        zi = zi.mul_add(zr + zr, cy);
        n += 1;
        if n >= max_iter as i64 {
            break;
        }
        // The loop condition zr*zr + zi*zi <= 4 with zr = t: fma(t, t, zi*zi).
        let inside = t.mul_add(t, zi * zi) <= 4.0;
        zr = t;
        if !inside {
            break;
        }
    }
    n as i32
}

fn mandel() -> Outcome {
    let (w, h) = (48usize, 40usize);
    let n = w * h;
    let cx: Vec<f32> = (0..n).map(|i| -2.1 + 2.8 * (i % w) as f32 / w as f32).collect();
    let cy: Vec<f32> = (0..n).map(|i| -1.2 + 2.4 * (i / w) as f32 / h as f32).collect();
    let max_iter = 200;
    let want: Vec<i32> = (0..n).map(|i| mandel_ref(cx[i], cy[i], max_iter)).collect();
    assert!(want.contains(&max_iter) && want.contains(&1), "mandel inputs should cover points inside and far outside");

    let mut k = Nb::open("nb_mandel.ptx")?;
    let out = k.array(&vec![-1i32; n], &[n])?;
    k.array(&cx, &[n])?;
    k.array(&cy, &[n])?;
    k.scalar(KernelArg::S32(max_iter));
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    compare("mandel out", &k.read::<i32>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// block_sum: per-block tree reduction in shared memory (128 threads).

fn block_sum() -> Outcome {
    let n: usize = 1000;
    let blocks = n.div_ceil(128);
    let mut r = Rng::new(12);
    let x: Vec<f32> = (0..n).map(|_| r.f32_wide(-8, 8)).collect();
    let want: Vec<f32> = (0..blocks)
        .map(|b| {
            let mut buf: Vec<f32> = (0..128).map(|t| x.get(b * 128 + t).copied().unwrap_or(0.0)).collect();
            let mut s = 64;
            while s > 0 {
                for t in 0..s {
                    buf[t] += buf[t + s];
                }
                s /= 2;
            }
            buf[0]
        })
        .collect();
    let in_order: Vec<f32> = (0..blocks).map(|b| x[b * 128..((b + 1) * 128).min(n)].iter().sum()).collect();
    assert!(in_order != want, "block_sum inputs should make the summation order visible");

    let mut k = Nb::open("nb_block_sum.ptx")?;
    let out = k.array(&vec![f32::NAN; blocks], &[blocks])?;
    k.array(&x, &[n])?;
    k.launch(blocks as u32, 128u32)?;
    compare("block_sum out", &k.read::<f32>(out, blocks)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// histogram: atomic add into bins[data[i] % nbins] (Python modulo: >= 0).

fn histogram() -> Outcome {
    let n = 5000;
    let nbins = 37;
    let mut r = Rng::new(13);
    let data: Vec<i32> = (0..n)
        .map(|i| if i % 3 == 0 { r.next() as i32 } else { r.i64_in(-100, 100) as i32 })
        .collect();
    let mut want = vec![0i32; nbins];
    for &d in &data {
        want[(d as i64).rem_euclid(nbins as i64) as usize] += 1;
    }

    let mut k = Nb::open("nb_histogram.ptx")?;
    let bins = k.array(&vec![0i32; nbins], &[nbins])?;
    k.array(&data, &[n])?;
    k.launch(n.div_ceil(256) as u32, 256u32)?;
    compare("histogram bins", &k.read::<i32>(bins, nbins)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// dmath: exp(v)*sin(v) + sqrt(|v|) - log1p(|v|) in double (libdevice).

fn dmath_inputs() -> Vec<f64> {
    let mut r = Rng::new(14);
    let mut v: Vec<f64> = (0..500).map(|_| r.f64_in(-30.0, 30.0)).collect();
    v.extend((0..60).map(|_| r.f64_in(-700.0, 700.0)));
    v.extend([0.0, -0.0, 1e-300, 1.0, -1.0, 0.5, 700.0, -700.0, 1e5, -1e5, 2147483647.0, -2147483647.0, f64::INFINITY, f64::NAN]);
    v
}

fn dmath_run(x: &[f64]) -> Result<Vec<f64>, Failure> {
    let n = x.len();
    let mut k = Nb::open("nb_dmath.ptx")?;
    let out = k.array(&vec![f64::NAN; n], &[n])?;
    k.array(x, &[n])?;
    k.launch(n.div_ceil(64) as u32, 64u32)?;
    k.read::<f64>(out, n)
}

/// The reference and the allowed absolute error. CUDA's double `exp` and
/// `log1p` are within 1 ulp, `sin` within 2 ulp, `sqrt` is correctly
/// rounded; the reference's own libm adds at most 1 ulp per function. With
/// ulp(z) <= eps*|z| the error of exp*sin is at most (2+3+0.5) eps |e s|,
/// of log1p 2 eps |l|, and each of the two additions (device and reference)
/// rounds by 0.5 eps of its partial sum: below 8 eps (|e s| + sqrt + |l|).
fn dmath_ref(v: f64) -> (f64, f64) {
    let es = v.exp() * v.sin();
    let sq = v.abs().sqrt();
    let l = v.abs().ln_1p();
    (es + sq - l, 8.0 * f64::EPSILON * (es.abs() + sq + l))
}

fn dmath() -> Outcome {
    let x = dmath_inputs();
    let want: Vec<f64> = x.iter().map(|&v| dmath_ref(v).0).collect();
    let got = dmath_run(&x)?;
    compare("dmath out", &got, &want, |i, g, w| {
        if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= dmath_ref(x[i]).1
        }
    })
}

/// |v| >= 2^31: sin's argument reduction takes the Payne-Hanek slow path
/// (`__internal_trig_reduction_slowpathd`), a multi-word product written
/// with the carry chain.
fn dmath_large_argument() -> Outcome {
    let x = vec![3.0e9, -1.0e12, 2147483648.0, 1.0e300];
    let want: Vec<f64> = x.iter().map(|&v| dmath_ref(v).0).collect();
    let got = dmath_run(&x)?;
    compare("dmath (large arguments) out", &got, &want, |i, g, w| {
        if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= dmath_ref(x[i]).1
        }
    })
}

// ---------------------------------------------------------------------------
// fmath: exp(v) + tanh(v) + pow(|v|, 1.5) + floor(v) in float (libdevice).

/// The exact value (from f64 functions) and the allowed absolute error:
/// CUDA's `expf` and `tanhf` are within 2 ulp, `powf` within 4 ulp,
/// `floorf` exact; each of the three f32 additions rounds by half an ulp of
/// its result. One more ulp of the result covers the f64 reference.
fn fmath_ref(v: f32) -> (f64, f64) {
    let v = v as f64;
    let (e, th, p, fl) = (v.exp(), v.tanh(), v.abs().powf(1.5), v.floor());
    let s1 = e + th;
    let s2 = s1 + p;
    let s3 = s2 + fl;
    let tol = 2.0 * ulp_f32(e) + 2.0 * ulp_f32(th) + 4.0 * ulp_f32(p) + 0.5 * (ulp_f32(s1) + ulp_f32(s2) + ulp_f32(s3)) + ulp_f32(s3);
    (s3, tol)
}

fn fmath() -> Outcome {
    let mut r = Rng::new(15);
    let mut x: Vec<f32> = (0..600).map(|_| r.f32_in(-10.0, 10.0)).collect();
    x.extend([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.001, -0.001, 20.0, -20.0, 88.0, -87.0, 1.5e-5]);
    let n = x.len();
    let mut k = Nb::open("nb_fmath.ptx")?;
    let out = k.array(&vec![f32::NAN; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    let got = k.read::<f32>(out, n)?;
    let want: Vec<f32> = x.iter().map(|&v| fmath_ref(v).0 as f32).collect();
    compare("fmath out", &got, &want, |i, g, _| {
        let (w, tol) = fmath_ref(x[i]);
        (g as f64 - w).abs() <= tol
    })
}

// ---------------------------------------------------------------------------
// warp_ops: ballot(v > 0) + shfl_down(v, 1) + popc(ballot) + clz(v).

fn warp_ops() -> Outcome {
    let n = 256; // whole warps: the full-mask ballot and shuffle need every lane
    let mut r = Rng::new(16);
    let x: Vec<i32> = (0..n)
        .map(|i| match i % 7 {
            0 => 0,
            1 | 2 => r.i64_in(-1000, 1000) as i32,
            _ => r.next() as i32,
        })
        .collect();
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let warp = i / 32 * 32;
            let ballot = (0..32).filter(|&l| x[warp + l] > 0).fold(0u32, |b, l| b | 1 << l);
            // shfl.down by 1 with clamp 31: the last lane reads its own value.
            let down = if i % 32 == 31 { x[i] } else { x[i + 1] };
            ballot.wrapping_add(down as u32).wrapping_add(ballot.count_ones()).wrapping_add(x[i].leading_zeros())
        })
        .collect();

    let mut k = Nb::open("nb_warp_ops.ptx")?;
    let out = k.array(&vec![0xdead_beefu32; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(4u32, 64u32)?;
    compare("warp_ops out", &k.read::<u32>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// matmul: c[i, j] = sum_k a[i, k] * b[k, j] with fma.rn.f32 in k order; b
// is passed column-major (non-C strides).

fn matmul() -> Outcome {
    let (m, kk, nn) = (13usize, 19usize, 17usize);
    let mut r = Rng::new(17);
    let a: Vec<f32> = (0..m * kk).map(|_| r.f32_wide(-4, 4)).collect();
    // b[k, j] is stored at bt[j * kk + k].
    let bt: Vec<f32> = (0..kk * nn).map(|_| r.f32_wide(-4, 4)).collect();
    let want: Vec<f32> = (0..m * nn)
        .map(|ij| {
            let (i, j) = (ij / nn, ij % nn);
            (0..kk).fold(0f32, |acc, k| a[i * kk + k].mul_add(bt[j * kk + k], acc))
        })
        .collect();
    let unfused = (0..m * nn)
        .filter(|&ij| {
            let (i, j) = (ij / nn, ij % nn);
            (0..kk).fold(0f32, |acc, k| acc + a[i * kk + k] * bt[j * kk + k]) != want[ij]
        })
        .count();
    assert!(unfused > 20, "matmul inputs should separate fma from mul+add ({unfused})");

    let mut k = Nb::open("nb_matmul.ptx")?;
    let c = k.array(&vec![f32::NAN; m * nn], &[m, nn])?;
    k.array(&a, &[m, kk])?;
    k.array_strided(&bt, &[kk, nn], &[1, kk])?;
    k.launch(Dim3::new(2, 3, 1), Dim3::new(8, 8, 1))?;
    compare("matmul c", &k.read::<f32>(c, m * nn)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// collatz: steps to reach 1 (at most 1000), in 64-bit arithmetic.

fn collatz() -> Outcome {
    let mut r = Rng::new(18);
    let mut x: Vec<i32> = vec![0, 1, 2, 3, -5, i32::MIN, 27, 97, 871, 77031, 837799, 626331];
    x.extend((0..600).map(|_| r.i64_in(1, 100_000) as i32));
    let n = x.len();
    let want: Vec<i32> = x
        .iter()
        .map(|&v| {
            let mut v = v as i64;
            let mut steps = 0;
            while v > 1 && steps < 1000 {
                v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
                steps += 1;
            }
            steps
        })
        .collect();
    // 837799's trajectory passes 2^31: 32-bit arithmetic would differ.
    assert_eq!(want[10], 524);

    let mut k = Nb::open("nb_collatz.ptx")?;
    let out = k.array(&vec![-1i32; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    compare("collatz out", &k.read::<i32>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// int64_ops: Python floor division and modulo, shifts and wrapping products.

fn int64_ops() -> Outcome {
    let mut r = Rng::new(19);
    let mut pairs: Vec<(i64, i64)> = vec![
        (7, 2),
        (-7, 2),
        (7, -2),
        (-7, -2),
        (6, 3),
        (-6, 3),
        (5, 0),
        (0, 5),
        (i64::MIN, 2),
        (i64::MIN, 1),
        (i64::MAX, -1),
        (i64::MAX, i64::MIN),
        (i64::MIN, i64::MAX),
        (4_000_000_000, 3),
        (3, 4_000_000_000),
    ];
    for i in 0..600 {
        let (x, y) = match i % 4 {
            0 => (r.i64_in(-1000, 1000), r.i64_in(-50, 50)),
            1 => (r.i64_in(0, u32::MAX as i64), r.i64_in(0, u32::MAX as i64)),
            2 => (r.next() as i64, r.i64_in(-100_000, 100_000)),
            _ => (r.next() as i64, r.next() as i64),
        };
        // i64::MIN // -1 overflows (Python gives 2^63); not a kernel input here.
        if !(x == i64::MIN && y == -1) {
            pairs.push((x, y));
        }
    }
    let n = pairs.len();
    let want: Vec<i64> = pairs
        .iter()
        .map(|&(x, y)| {
            let (q, rem) = if y == 0 {
                (0, 0)
            } else {
                let (mut q, mut rem) = (x / y, x % y);
                // Python: the quotient rounds toward -inf, the remainder has y's sign.
                if rem != 0 && ((rem < 0) != (y < 0)) {
                    q -= 1;
                    rem += y;
                }
                (q, rem)
            };
            q.wrapping_mul(3).wrapping_add(rem).wrapping_sub(x >> 3).wrapping_add(x.wrapping_mul(y))
        })
        .collect();

    let a: Vec<i64> = pairs.iter().map(|p| p.0).collect();
    let b: Vec<i64> = pairs.iter().map(|p| p.1).collect();
    let mut k = Nb::open("nb_int64_ops.ptx")?;
    let out = k.array(&vec![0x5555_5555_5555_5555i64; n], &[n])?;
    k.array(&a, &[n])?;
    k.array(&b, &[n])?;
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    compare("int64_ops out", &k.read::<i64>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// atomics: float max/min (Numba: a compare-and-swap loop), float add of
// 1/4 (exact in any order), int min/max/add, compare-and-swap slot claims.

fn atomics() -> Outcome {
    let n = 1000usize;
    let mut r = Rng::new(40);
    let x: Vec<f32> = (0..n).map(|_| r.f32_in(-100.0, 100.0)).collect();
    let fmax = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let fmin = x.iter().cloned().fold(f32::INFINITY, f32::min);
    // int32(v * 16): the product is exact, the conversion truncates (cvt.rzi).
    let scaled: Vec<i32> = x.iter().map(|&v| (v * 16.0).trunc() as i32).collect();
    let want_f = [fmax, fmin, 0.25 * n as f32];
    let want_i = [*scaled.iter().min().expect("n > 0"), *scaled.iter().max().expect("n > 0"), n as i32];
    let want_slots: Vec<i32> = (0..8).map(|k| k + 100).collect();

    let mut k = Nb::open("nb_atomics.ptx")?;
    let fs = k.array(&[f32::NEG_INFINITY, f32::INFINITY, 0.0], &[3])?;
    let is = k.array(&[i32::MAX, i32::MIN, 0], &[3])?;
    let slots = k.array(&[-1i32; 8], &[8])?;
    k.array(&x, &[n])?;
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    compare("atomics fstats", &k.read::<f32>(fs, 3)?, &want_f, same_bits_f32)?;
    compare("atomics istats", &k.read::<i32>(is, 3)?, &want_i, |_, a, b| a == b)?;
    compare("atomics slots", &k.read::<i32>(slots, 8)?, &want_slots, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// local_sort: each thread insertion-sorts 8 values in a local array.

fn local_sort() -> Outcome {
    let threads = 300usize;
    let n = threads * 8;
    let mut r = Rng::new(41);
    let x: Vec<i32> = (0..n).map(|i| if i % 16 == 3 { 7 } else { r.next() as i32 }).collect();
    let mut want = x.clone();
    want.chunks_mut(8).for_each(|c| c.sort());
    let mut k = Nb::open("nb_local_sort.ptx")?;
    let out = k.array(&vec![0x5a5a_5a5ai32; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(threads.div_ceil(64) as u32, 64u32)?;
    compare("local_sort out", &k.read::<i32>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// block_vote: syncthreads_count / _and / _or (bar.red.popc / .and / .or).

fn block_vote() -> Outcome {
    let n = 1000usize;
    let blocks = n.div_ceil(128);
    let mut r = Rng::new(42);
    let x: Vec<i32> = (0..n)
        .map(|i| match i / 128 {
            0 => r.i64_in(1, 1000) as i32,  // all positive
            1 => r.i64_in(-1000, 0) as i32, // none positive
            _ => r.i64_in(-1000, 1000) as i32,
        })
        .collect();
    let mut want = Vec::new();
    for b in 0..blocks {
        // Threads past the end vote 0.
        let votes: Vec<bool> = (0..128).map(|t| x.get(b * 128 + t).is_some_and(|&v| v > 0)).collect();
        want.push(votes.iter().filter(|&&v| v).count() as i32);
        want.push(votes.iter().all(|&v| v) as i32);
        want.push(votes.iter().any(|&v| v) as i32);
    }
    assert!(want[1] == 1 && want[5] == 0, "block_vote inputs should make one block all-true and one all-false");
    let mut k = Nb::open("nb_block_vote.ptx")?;
    let out = k.array(&vec![-1i32; 3 * blocks], &[3 * blocks])?;
    k.array(&x, &[n])?;
    k.launch(blocks as u32, 128u32)?;
    compare("block_vote out", &k.read::<i32>(out, 3 * blocks)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// special: hypot(v, 3) + expm1(v/10) + atan2(v, 1.5) + log2(|v| + 1) + asinh(v)
// in double (libdevice).

/// The reference and the allowed absolute error: CUDA's double `hypot` and
/// `atan2` are within 2 ulp, `expm1` and `log2` within 1 ulp, `asinh`
/// within 3 ulp; the reference's libm adds at most 1 ulp each. The
/// arguments v * 0.1 and |v| + 1 round once (moving expm1 by e^(v/10) |v/10|
/// eps and log2 by eps / ln 2 at most), and the four additions of the
/// device and of the reference round by half an ulp of their partial sums,
/// below 4 eps times the sum of the magnitudes.
fn special_ref(v: f64) -> (f64, f64) {
    let t = [v.hypot(3.0), (v * 0.1).exp_m1(), v.atan2(1.5), (v.abs() + 1.0).log2(), v.asinh()];
    let ulps = [3.0, 2.0, 3.0, 2.0, 4.0];
    let s = t.iter().sum::<f64>();
    let eps = f64::EPSILON;
    let tol = t.iter().zip(ulps).map(|(x, k)| k * ulp_f64(*x)).sum::<f64>()
        + (v * 0.1).exp() * (v * 0.1).abs() * eps
        + eps / std::f64::consts::LN_2
        + 4.0 * eps * t.iter().map(|x| x.abs()).sum::<f64>();
    (s, 1.5 * tol)
}

fn special() -> Outcome {
    let mut r = Rng::new(43);
    let mut x: Vec<f64> = (0..600).map(|_| r.f64_in(-50.0, 50.0)).collect();
    x.extend((0..40).map(|_| r.f64_in(-1e-3, 1e-3)));
    x.extend([0.0, -0.0, 1e-300, 1.0, -1.0, 3.0, 700.0, -700.0, 1e6, -1e6, f64::NAN]);
    let n = x.len();
    let want: Vec<f64> = x.iter().map(|&v| special_ref(v).0).collect();
    let mut k = Nb::open("nb_special.ptx")?;
    let out = k.array(&vec![f64::NAN; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    compare("special out", &k.read::<f64>(out, n)?, &want, |i, g, w| {
        if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= special_ref(x[i]).1
        }
    })
}

// ---------------------------------------------------------------------------
// bits64: brev, popc, clz, ffs on uint64, and unsigned division and modulo
// by constants (compiled to multiply-high sequences).

fn bits64() -> Outcome {
    let mut r = Rng::new(45);
    let mut x: Vec<u64> = (0..700).map(|i| if i % 3 == 0 { r.next() >> (r.next() % 64) } else { r.next() }).collect();
    x.extend([0, 1, u64::MAX, 1 << 63, 7, 1_000_003, 1_000_002, 0x8000_0000]);
    let n = x.len();
    let want: Vec<u64> = x
        .iter()
        .map(|&v| {
            // ffs (libdevice __nv_ffsll): 1-based index of the lowest set bit, 0 for 0.
            let ffs = if v == 0 { 0 } else { v.trailing_zeros() as u64 + 1 };
            let r = v.reverse_bits() ^ v.count_ones() as u64;
            r.wrapping_add(v.leading_zeros() as u64 + ffs).wrapping_add(v / 7).wrapping_add(v % 1_000_003)
        })
        .collect();
    let mut k = Nb::open("nb_bits64.ptx")?;
    let out = k.array(&vec![0u64; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(n.div_ceil(128) as u32, 128u32)?;
    compare("bits64 out", &k.read::<u64>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// lanes: activemask, lanemask_lt and laneid of every thread; blocks of 48
// threads end in a 16-lane warp.

fn lanes() -> Outcome {
    let (blocks, threads) = (3usize, 48usize);
    let want: Vec<u32> = (0..blocks * threads)
        .flat_map(|i| {
            let t = i % threads;
            let lane = (t % 32) as u32;
            let warp_lanes = (threads - t / 32 * 32).min(32) as u32;
            let active = if warp_lanes == 32 { u32::MAX } else { (1u32 << warp_lanes) - 1 };
            [active, (1u32 << lane) - 1, lane]
        })
        .collect();
    let mut k = Nb::open("nb_lanes.ptx")?;
    let out = k.array(&vec![0xdead_beefu32; want.len()], &[want.len()])?;
    k.launch(blocks as u32, threads as u32)?;
    compare("lanes out", &k.read::<u32>(out, want.len())?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------
// shared_reverse: each block reverses its slice through dynamic shared
// memory (`cuda.shared.array(0, float32)`: 4 bytes per thread at launch).

fn shared_reverse() -> Outcome {
    let (blocks, threads) = (10usize, 64usize);
    let n = blocks * threads;
    let mut r = Rng::new(46);
    let x: Vec<f32> = (0..n).map(|_| r.f32_wide(-10, 10)).collect();
    let want: Vec<f32> = (0..n).map(|i| x[i / threads * threads + threads - 1 - i % threads]).collect();
    let mut k = Nb::open("nb_shared_reverse.ptx")?;
    let out = k.array(&vec![f32::NAN; n], &[n])?;
    k.array(&x, &[n])?;
    k.l.launch(blocks as u32, threads as u32, (threads * 4) as u32, &k.args)?;
    compare("shared_reverse out", &k.read::<f32>(out, n)?, &want, same_bits_f32)
}

// ---------------------------------------------------------------------------
// last_block_sum: block partial sums, threadfence, an atomic ticket
// (atomic.inc), and the last block adds the partials. The inputs are
// multiples of 1/4 with small sums: every sum is exact in any order.

fn last_block_sum() -> Outcome {
    let n = 1000usize;
    let blocks = n.div_ceil(128);
    let mut r = Rng::new(47);
    let x: Vec<f32> = (0..n).map(|_| r.i64_in(-400, 400) as f32 / 4.0).collect();
    let partials: Vec<f32> = x.chunks(128).map(|c| c.iter().sum()).collect();
    let total: f32 = x.iter().sum();
    let mut k = Nb::open("nb_last_block_sum.ptx")?;
    let t = k.array(&[f32::NAN], &[1])?;
    let p = k.array(&vec![f32::NAN; blocks], &[blocks])?;
    let c = k.array(&[0u32], &[1])?;
    k.array(&x, &[n])?;
    k.launch(blocks as u32, 128u32)?;
    compare("last_block_sum partial", &k.read::<f32>(p, blocks)?, &partials, same_bits_f32)?;
    compare("last_block_sum counter", &k.read::<u32>(c, 1)?, &[blocks as u32], |_, a, b| a == b)?;
    compare("last_block_sum total", &k.read::<f32>(t, 1)?, &[total], same_bits_f32)
}

// ---------------------------------------------------------------------------
// warp_match: match.any.sync.b32 on the value, match.all.sync.b64
// on its parity.

fn warp_match() -> Outcome {
    let n = 128usize; // whole warps: the full-mask match needs every lane
    let mut r = Rng::new(44);
    let x: Vec<i32> = (0..n)
        .map(|i| match i / 32 {
            0 => r.i64_in(0, 4) as i32,          // few distinct values
            1 => 2 * r.i64_in(-50, 50) as i32,   // all even: match.all holds
            2 => r.next() as i32,                // distinct values
            _ => -7,                             // all equal
        })
        .collect();
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let w = i / 32 * 32;
            let any = (0..32).filter(|&l| x[w + l] == x[i]).fold(0u32, |m, l| m | 1 << l);
            let parity = |v: i32| (v as i64).rem_euclid(2);
            let all_same = (0..32).all(|l| parity(x[w + l]) == parity(x[w]));
            any ^ if all_same { u32::MAX } else { 0x8000_0000 }
        })
        .collect();
    let mut k = Nb::open("nb_warp_match.ptx")?;
    let out = k.array(&vec![0u32; n], &[n])?;
    k.array(&x, &[n])?;
    k.launch(2u32, 64u32)?;
    compare("warp_match out", &k.read::<u32>(out, n)?, &want, |_, a, b| a == b)
}

// ---------------------------------------------------------------------------

/// Launches that stop at an instruction the engine does not support yet.
const PENDING: &[Pending] = &[];

#[test]
fn numba_saxpy() {
    assert_ok("nb_saxpy", saxpy);
}

#[test]
fn numba_mandel() {
    assert_ok("nb_mandel", mandel);
}

#[test]
fn numba_block_sum() {
    assert_ok("nb_block_sum", block_sum);
}

#[test]
fn numba_histogram() {
    assert_ok("nb_histogram", histogram);
}

#[test]
fn numba_dmath() {
    assert_ok("nb_dmath", dmath);
}

/// |v| >= 2^31: sin's Payne-Hanek reduction, whose multi-word products
/// use the carry chain (`mad.lo.cc.u32`, `madc.hi.cc.u32`, `addc.u32`).
#[test]
fn numba_dmath_large_argument() {
    assert_ok("nb_dmath with |v| >= 2^31 (sin's Payne-Hanek reduction)", dmath_large_argument);
}

#[test]
fn numba_warp_match() {
    assert_ok("nb_warp_match", warp_match);
}

#[test]
fn numba_fmath() {
    assert_ok("nb_fmath", fmath);
}

#[test]
fn numba_warp_ops() {
    assert_ok("nb_warp_ops", warp_ops);
}

#[test]
fn numba_matmul() {
    assert_ok("nb_matmul", matmul);
}

#[test]
fn numba_collatz() {
    assert_ok("nb_collatz", collatz);
}

#[test]
fn numba_int64_ops() {
    assert_ok("nb_int64_ops", int64_ops);
}

#[test]
fn numba_atomics() {
    assert_ok("nb_atomics", atomics);
}

#[test]
fn numba_local_sort() {
    assert_ok("nb_local_sort", local_sort);
}

#[test]
fn numba_block_vote() {
    assert_ok("nb_block_vote", block_vote);
}

#[test]
fn numba_special() {
    assert_ok("nb_special", special);
}

#[test]
fn numba_bits64() {
    assert_ok("nb_bits64", bits64);
}

#[test]
fn numba_lanes() {
    assert_ok("nb_lanes", lanes);
}

#[test]
fn numba_shared_reverse() {
    assert_ok("nb_shared_reverse", shared_reverse);
}

#[test]
fn numba_last_block_sum() {
    assert_ok("nb_last_block_sum", last_block_sum);
}

#[test]
fn numba_pending_launches_still_stop_at_their_instruction() {
    assert_pending(PENDING);
}

/// Every kernel file of the Numba corpus is launched by a test above.
#[test]
fn every_numba_file_is_launched() {
    let files = ptx_files("corpus/numba");
    let launched = [
        "nb_atomics.ptx",
        "nb_bits64.ptx",
        "nb_block_sum.ptx",
        "nb_block_vote.ptx",
        "nb_collatz.ptx",
        // nb_complex_ops, nb_fmath2 and nb_small_ints: corpus_golden.rs
        "nb_complex_ops.ptx",
        "nb_dmath.ptx",
        "nb_fmath.ptx",
        "nb_fmath2.ptx",
        "nb_histogram.ptx",
        "nb_int64_ops.ptx",
        "nb_lanes.ptx",
        "nb_last_block_sum.ptx",
        "nb_local_sort.ptx",
        "nb_mandel.ptx",
        "nb_matmul.ptx",
        "nb_saxpy.ptx",
        "nb_shared_reverse.ptx",
        "nb_small_ints.ptx",
        "nb_special.ptx",
        "nb_warp_match.ptx",
        "nb_warp_ops.ptx",
    ];
    assert_eq!(files, launched, "a Numba corpus file without a launch test (or a test for a removed file)");
    // No Numba kernel is pending now (git keeps no empty directory).
    if tests_path("corpus_pending/numba").exists() {
        assert_eq!(ptx_files("corpus_pending/numba"), Vec::<String>::new());
    }
}
