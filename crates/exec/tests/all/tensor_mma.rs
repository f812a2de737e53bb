//! The warp-level matrix instructions against the PTX ISA manual (9.7.14):
//! `mma.sync.aligned` in the shapes Triton and CUTLASS emit for sm_80,
//! `ldmatrix`, `stmatrix` and `movmatrix`.
//!
//! Every expectation is computed here, independently of the engine: the
//! fragment layouts are written out again from the manual's "Matrix
//! Fragments for mma.mMnNkK" formulas (`groupID = %laneid >> 2`,
//! `threadID_in_group = %laneid % 4`), the matrices are random, and the
//! reference of a floating-point `mma` element is the exact value of
//! `c + sum a*b` in 128-bit integer fixed point (the inputs are drawn so
//! that every term is a multiple of 2^-S), rounded to the result type by
//! an integer round-to-nearest-even written here. The engine documents
//! that result (exact sum, one rounding: `|D - exact| <= ulp(D)/2`), so the
//! comparison is bit for bit, and the test also reports the largest error
//! in ulps against the exact value. Integer and `.f64` results are exact.
#![allow(clippy::unwrap_used)]

use half::{bf16, f16};
use ptxsim_exec::{Device, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};

/// splitmix64
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// Runs kernel `k` of `src` on one warp with `input` (u32 words) and an
/// output of `out_words` u32 words.
fn run(src: &str, input: &[u32], out_words: usize, sched: Scheduling) -> Result<Vec<u32>, RunError> {
    let mut dev = Device::new();
    let module = dev.load(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let pin = dev.alloc(bytes.len().max(4) as u64).unwrap();
    dev.write(pin, &bytes).unwrap();
    let pout = dev.alloc((out_words * 4) as u64).unwrap();
    dev.write(pout, &vec![0xee; out_words * 4]).unwrap();
    let mut cfg = LaunchConfig::new(1u32, 32u32);
    cfg.scheduling = sched;
    dev.launch(&module, "k", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)])?;
    Ok(dev.read(pout, (out_words * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

fn run_both(src: &str, input: &[u32], out_words: usize) -> Result<Vec<u32>, RunError> {
    let a = run(src, input, out_words, Scheduling::Stack);
    let b = run(src, input, out_words, Scheduling::Its);
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "scheduling modes disagree"),
        (Err(x), Err(y)) => assert_eq!(x.kind, y.kind),
        _ => panic!("scheduling modes disagree: {a:?} / {b:?}"),
    }
    a
}

// ---------------------------------------------------------------------------
// Fragment layouts, from the manual's formulas (g = groupID, t = threadID_in_group).

#[derive(Clone, Copy, PartialEq, Debug)]
enum El {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S32,
}

impl El {
    fn name(self) -> &'static str {
        match self {
            El::F16 => "f16",
            El::Bf16 => "bf16",
            El::Tf32 => "tf32",
            El::F32 => "f32",
            El::F64 => "f64",
            El::S8 => "s8",
            El::U8 => "u8",
            El::S32 => "s32",
        }
    }
    fn bits(self) -> u32 {
        match self {
            El::S8 | El::U8 => 8,
            El::F16 | El::Bf16 => 16,
            El::F64 => 64,
            _ => 32,
        }
    }
}

/// (row, col) of element i of A (M x K) in lane (g, t), for shape (m, n, k).
fn a_rc(k: usize, el: El, g: usize, t: usize, i: usize) -> (usize, usize) {
    match (el.bits(), k) {
        // m16n8k16 .f16/.bf16: row g for a0,a1,a4,a5, else g+8;
        // col t*2 + (i & 1) for i < 4, + 8 for i >= 4.
        (16, 16) => (if i < 2 || (4..6).contains(&i) { g } else { g + 8 }, t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 }),
        // m16n8k8 .f16/.bf16: row g for a0,a1, g+8 for a2,a3; col t*2 + (i & 1).
        (16, 8) => (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1)),
        // m16n8k8 .tf32: row g for a0,a2, g+8 for a1,a3; col t for a0,a1, t+4 for a2,a3.
        (32, 8) => (if i % 2 == 0 { g } else { g + 8 }, if i < 2 { t } else { t + 4 }),
        // m16n8k4 .tf32: row g for a0, g+8 for a1; col t.
        (32, 4) => (if i == 0 { g } else { g + 8 }, t),
        // m16n8k32 .s8/.u8: row g for i < 4 or 8 <= i < 12, else g+8;
        // col t*4 + (i & 3) for i < 8, + 16 for i >= 8.
        (8, 32) => (if i < 4 || (8..12).contains(&i) { g } else { g + 8 }, t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 }),
        // m16n8k16 .s8/.u8: row g for i < 4, g+8 for i >= 4; col t*4 + (i & 3).
        (8, 16) => (if i < 4 { g } else { g + 8 }, t * 4 + (i & 3)),
        // m8n8k4 .f64: row g, col t.
        (64, 4) => (g, t),
        _ => unreachable!(),
    }
}

/// (row, col) of element i of B (K x N).
fn b_rc(k: usize, el: El, g: usize, t: usize, i: usize) -> (usize, usize) {
    match (el.bits(), k) {
        // m16n8k16 .f16: row t*2 + (i & 1) for b0,b1, + 8 for b2,b3; col g.
        (16, 16) => (t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 }, g),
        (16, 8) => (t * 2 + (i & 1), g),
        // m16n8k8 .tf32: row t for b0, t+4 for b1; col g.
        (32, 8) => (if i == 0 { t } else { t + 4 }, g),
        (32, 4) => (t, g),
        // m16n8k32 .s8: row t*4 + (i & 3) for i < 4, + 16 for i >= 4; col g.
        (8, 32) => (t * 4 + (i & 3) + if i >= 4 { 16 } else { 0 }, g),
        (8, 16) => (t * 4 + i, g),
        (64, 4) => (t, g),
        _ => unreachable!(),
    }
}

/// (row, col) of element i of C/D (M x N).
fn c_rc(m: usize, g: usize, t: usize, i: usize) -> (usize, usize) {
    if m == 8 {
        // m8n8k4 .f64: row g, col t*2 + i.
        (g, t * 2 + i)
    } else {
        // m16n8: row g for c0,c1, g+8 for c2,c3; col t*2 + (i & 1).
        (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
    }
}

/// Packs a lane's fragment (element bit patterns, low to high) into 32-bit words.
fn pack(el: El, elems: &[u64]) -> Vec<u32> {
    match el.bits() {
        64 => elems.iter().flat_map(|&e| [e as u32, (e >> 32) as u32]).collect(),
        b => {
            let per = 32 / b as usize;
            elems.chunks(per).map(|c| c.iter().enumerate().fold(0u32, |w, (j, &e)| w | (e as u32) << (j as u32 * b))).collect()
        }
    }
}

fn unpack(el: El, words: &[u32], n: usize) -> Vec<u64> {
    match el.bits() {
        64 => words.chunks(2).map(|c| c[0] as u64 | (c[1] as u64) << 32).take(n).collect(),
        b => {
            let per = 32 / b as usize;
            (0..n).map(|e| ((words[e / per] >> ((e % per) as u32 * b)) as u64) & ((1u64 << b) - 1)).collect()
        }
    }
}

// ---------------------------------------------------------------------------
// Exact values: a float element is `mant * 2^exp` with an integer mantissa.

/// Exact (mantissa, exponent) of a finite float given as f64.
fn exact(x: f64) -> (i128, i32) {
    if x == 0.0 {
        return (0, 0);
    }
    let b = x.to_bits();
    let e = ((b >> 52) & 0x7ff) as i32;
    let f = (b & ((1 << 52) - 1)) as i128;
    let (mut m, mut e) = if e == 0 { (f, -1074) } else { (f | 1 << 52, e - 1075) };
    while m & 1 == 0 {
        m >>= 1;
        e += 1;
    }
    (if x < 0.0 { -m } else { m }, e)
}

/// `n * 2^-scale` rounded to nearest even into a format of precision `p`
/// whose smallest quantum is `2^qmin` (subnormals); returns (mantissa,
/// quantum exponent) of the result, both exact.
fn round_rne(n: i128, scale: i32, p: u32, qmin: i32) -> (i128, i32) {
    if n == 0 {
        return (0, 0);
    }
    let a = n.unsigned_abs();
    let len = 128 - a.leading_zeros() as i32;
    let top = len - 1 - scale; // exponent of the leading bit
    let q = (top - (p as i32 - 1)).max(qmin);
    let shift = q + scale; // bits of n below the quantum
    let mag = if shift <= 0 {
        a << (-shift)
    } else {
        let (kept, rest) = (a >> shift, a & ((1u128 << shift) - 1));
        let half = 1u128 << (shift - 1);
        if rest > half || rest == half && kept & 1 == 1 {
            kept + 1
        } else {
            kept
        }
    };
    (if n < 0 { -(mag as i128) } else { mag as i128 }, q)
}

fn ldexp(m: i128, q: i32) -> f64 {
    // Exact for |m| < 2^53 and results in the f64 range used here.
    m as f64 * 2f64.powi(q)
}

// ---------------------------------------------------------------------------
// mma kernels.

struct Form {
    shape: (usize, usize, usize),
    d: El,
    a: El,
    b: El,
    c: El,
    mods: &'static str,
}

impl Form {
    fn regs(&self, el: El, rows: usize, cols: usize) -> usize {
        let per = if el.bits() >= 32 { 1 } else { 32 / el.bits() as usize };
        rows * cols / 32 / per
    }
    fn words(&self, el: El, rows: usize, cols: usize) -> usize {
        self.regs(el, rows, cols) * if el == El::F64 { 2 } else { 1 }
    }

    /// A kernel: each lane loads its A, B, C registers (in that order, 32-bit
    /// words, lane-major), runs the mma and stores D.
    fn kernel(&self) -> String {
        let (m, n, k) = self.shape;
        let (na, nb, nc, nd) = (self.regs(self.a, m, k), self.regs(self.b, k, n), self.regs(self.c, m, n), self.regs(self.d, m, n));
        let wide = self.d == El::F64;
        let wsz = if wide { 8 } else { 4 };
        let in_words = self.words(self.a, m, k) + self.words(self.b, k, n) + self.words(self.c, m, n);
        let out_words = self.words(self.d, m, n);
        let reg = |el: El, i: usize| match el {
            El::F64 => format!("%fd{i}"),
            El::F32 => format!("%f{i}"),
            _ => format!("%r{i}"),
        };
        let mut body = String::new();
        let mut list = |el: El, count: usize, base: usize, load: bool, off: &mut usize| -> String {
            let mut names = Vec::new();
            for j in 0..count {
                let r = reg(el, base + j);
                if load {
                    let ty = if el == El::F64 { "f64" } else if el == El::F32 { "f32" } else { "b32" };
                    body.push_str(&format!("    ld.global.{ty} {r}, [%rd4+{}];\n", *off));
                }
                *off += if el == El::F64 { 8 } else { 4 };
                names.push(r);
            }
            format!("{{{}}}", names.join(", "))
        };
        let mut off = 0;
        let a = list(self.a, na, 0, true, &mut off);
        let b = list(self.b, nb, 8, true, &mut off);
        let c = list(self.c, nc, 16, true, &mut off);
        let mut off2 = 0;
        let d = list(self.d, nd, 24, false, &mut off2);
        let mut stores = String::new();
        for j in 0..nd {
            let ty = if self.d == El::F64 { "f64" } else if self.d == El::F32 { "f32" } else { "b32" };
            stores.push_str(&format!("    st.global.{ty} [%rd5+{}], {};\n", j * wsz, reg(self.d, 24 + j)));
        }
        let mnk = format!("m{m}n{n}k{k}");
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n    .reg .b32 %r<40>;\n    .reg .f32 %f<40>;\n    .reg .f64 %fd<40>;\n    .reg .b64 %rd<8>;\n    ld.param.u64 %rd1, [pin];\n    ld.param.u64 %rd2, [pout];\n    mov.u32 %r39, %tid.x;\n    mul.wide.u32 %rd3, %r39, {};\n    add.s64 %rd4, %rd1, %rd3;\n    mul.wide.u32 %rd3, %r39, {};\n    add.s64 %rd5, %rd2, %rd3;\n{body}    mma.sync.aligned.{mnk}.row.col{}.{}.{}.{}.{} {d}, {a}, {b}, {c};\n{stores}    ret;\n}}\n",
            in_words * 4,
            out_words * 4,
            self.mods,
            self.d.name(),
            self.a.name(),
            self.b.name(),
            self.c.name(),
        )
    }

    /// Builds the lanes' input words from matrices of element bit patterns.
    fn input(&self, a: &[u64], b: &[u64], c: &[u64]) -> Vec<u32> {
        let (m, n, k) = self.shape;
        let mut v = Vec::new();
        for l in 0..32 {
            let (g, t) = (l >> 2, l & 3);
            let fa: Vec<u64> = (0..m * k / 32).map(|i| { let (r, col) = a_rc(k, self.a, g, t, i); a[r * k + col] }).collect();
            let fb: Vec<u64> = (0..k * n / 32).map(|i| { let (r, col) = b_rc(k, self.b, g, t, i); b[r * n + col] }).collect();
            let fc: Vec<u64> = (0..m * n / 32).map(|i| { let (r, col) = c_rc(m, g, t, i); c[r * n + col] }).collect();
            v.extend(pack(self.a, &fa));
            v.extend(pack(self.b, &fb));
            v.extend(pack(self.c, &fc));
        }
        v
    }

    /// Runs the kernel and returns D as a matrix of bit patterns.
    fn run(&self, a: &[u64], b: &[u64], c: &[u64]) -> Result<Vec<u64>, RunError> {
        let (m, n, _) = self.shape;
        let per_lane = self.words(self.d, m, n);
        let out = run_both(&self.kernel(), &self.input(a, b, c), 32 * per_lane)?;
        let mut d = vec![0u64; m * n];
        for l in 0..32 {
            let e = unpack(self.d, &out[l * per_lane..(l + 1) * per_lane], m * n / 32);
            for (i, v) in e.into_iter().enumerate() {
                let (r, col) = c_rc(m, l >> 2, l & 3, i);
                d[r * n + col] = v;
            }
        }
        Ok(d)
    }
}

/// A random float of type `el` as (bits, exact value): `mant * 2^e` with a
/// full-width mantissa and `e` in `[lo, hi]` (plus zeros now and then).
fn rand_float(r: &mut Rng, el: El, lo: i64, hi: i64) -> (u64, f64) {
    let p = match el {
        El::F16 => 11,
        El::Bf16 => 8,
        El::Tf32 => 11,
        El::F32 => 24,
        _ => 53,
    };
    if r.next() % 17 == 0 {
        return (0, 0.0);
    }
    let mant = (1u64 << (p - 1)) | r.next() % (1u64 << (p - 1));
    let e = r.range(lo, hi) as i32;
    let mut x = mant as f64 * 2f64.powi(e - (p - 1));
    if r.next() % 2 == 0 {
        x = -x;
    }
    let bits = match el {
        El::F16 => f16::from_f64(x).to_bits() as u64,
        El::Bf16 => bf16::from_f64(x).to_bits() as u64,
        // The low 13 bits of a tf32 register are ignored: fill them with noise.
        El::Tf32 => ((x as f32).to_bits() | (r.next() as u32 & 0x1fff)) as u64,
        El::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    };
    (bits, x)
}

/// Checks a floating-point form on random inputs: D must be the exact
/// `c + sum a*b` rounded to nearest even once.
fn check_float_form(f: &Form, seed: u64, (elo, ehi): (i64, i64)) {
    let (m, n, k) = f.shape;
    let mut r = Rng(seed);
    let gen = |r: &mut Rng, el: El, count: usize| -> (Vec<u64>, Vec<f64>) { (0..count).map(|_| rand_float(r, el, elo, ehi)).unzip() };
    let (ab, av) = gen(&mut r, f.a, m * k);
    let (bb, bv) = gen(&mut r, f.b, k * n);
    let (cb, cv) = gen(&mut r, f.c, m * n);
    let d = f.run(&ab, &bb, &cb).unwrap_or_else(|e| panic!("{}: {e}", f.kernel()));
    // All terms are multiples of 2^-SCALE.
    const SCALE: i32 = 80;
    let (p, qmin) = match f.d {
        El::F16 => (11, -24),
        _ => (24, -149),
    };
    // The error of D against the exact value, in units of the last place
    // of the exact value, and (for comparison) that of a k-ordered chain of
    // fused multiply-adds in the result type, as a scalar loop computes it.
    let (mut max_ulps, mut chain_ulps) = (0f64, 0f64);
    let err_ulps = |acc: i128, got: f64| -> f64 {
        let (gm, ge) = exact(got);
        let scaled = if gm == 0 { 0 } else { gm << (ge + SCALE) };
        let len = 128 - acc.unsigned_abs().leading_zeros() as i32;
        let q = ((len - 1 - SCALE) - (p as i32 - 1)).max(qmin);
        (scaled - acc).unsigned_abs() as f64 / 2f64.powi(q + SCALE)
    };
    for i in 0..m {
        for j in 0..n {
            let mut acc: i128 = 0;
            let mut add = |x: f64, y: Option<f64>| {
                let (m1, e1) = exact(x);
                let (mm, ee) = match y {
                    Some(y) => {
                        let (m2, e2) = exact(y);
                        (m1 * m2, e1 + e2)
                    }
                    None => (m1, e1),
                };
                if mm != 0 {
                    assert!(ee + SCALE >= 0, "term below the fixed-point scale");
                    acc += mm << (ee + SCALE);
                }
            };
            add(cv[i * n + j], None);
            for kk in 0..k {
                add(av[i * k + kk], Some(bv[kk * n + j]));
            }
            let (rm, rq) = round_rne(acc, SCALE, p, qmin);
            let want = ldexp(rm, rq);
            let got = match f.d {
                El::F16 => f16::from_bits(d[i * n + j] as u16).to_f64(),
                _ => f32::from_bits(d[i * n + j] as u32) as f64,
            };
            let exact_v = acc as f64 * 2f64.powi(-SCALE);
            if acc != 0 {
                max_ulps = max_ulps.max(err_ulps(acc, got));
                let chain = (0..k).fold(cv[i * n + j], |s, kk| match f.d {
                    El::F16 => f16::from_f64(av[i * k + kk].mul_add(bv[kk * n + j], s)).to_f64(),
                    _ => (av[i * k + kk] as f32).mul_add(bv[kk * n + j] as f32, s as f32) as f64,
                });
                chain_ulps = chain_ulps.max(err_ulps(acc, chain));
            }
            assert!(
                got == want || got == 0.0 && want == 0.0,
                "{}: D[{i}][{j}] = {got:e}, the correctly rounded exact sum is {want:e} (exact {exact_v:e})",
                f.kernel().lines().find(|l| l.contains("mma")).unwrap_or("")
            );
        }
    }
    assert!(max_ulps <= 0.5, "error {max_ulps} ulp > 1/2");
    eprintln!("{}: max |D - exact| = {max_ulps:.3} ulp (a k-ordered fma chain: {chain_ulps:.3} ulp)", f.kernel().lines().find(|l| l.contains("mma")).map(|l| l.split_whitespace().next().unwrap_or("")).unwrap_or(""));
}

#[test]
fn mma_f16_bf16_tf32_give_the_exact_sum_rounded_once() {
    use El::*;
    let forms = [
        Form { shape: (16, 8, 16), d: F32, a: F16, b: F16, c: F32, mods: "" },
        Form { shape: (16, 8, 8), d: F32, a: F16, b: F16, c: F32, mods: "" },
        Form { shape: (16, 8, 16), d: F32, a: Bf16, b: Bf16, c: F32, mods: "" },
        Form { shape: (16, 8, 8), d: F32, a: Bf16, b: Bf16, c: F32, mods: "" },
        Form { shape: (16, 8, 8), d: F32, a: Tf32, b: Tf32, c: F32, mods: "" },
        Form { shape: (16, 8, 4), d: F32, a: Tf32, b: Tf32, c: F32, mods: "" },
        Form { shape: (16, 8, 16), d: F16, a: F16, b: F16, c: F16, mods: "" },
        Form { shape: (16, 8, 8), d: F16, a: F16, b: F16, c: F16, mods: "" },
    ];
    for (s, f) in forms.iter().enumerate() {
        // Wide exponent ranges make cancellation and rounding frequent.
        let range = if f.d == F16 || f.c == F16 { (-6, 5) } else { (-12, 12) };
        for rep in 0..3 {
            check_float_form(f, 100 + 10 * s as u64 + rep, range);
        }
    }
}

#[test]
fn mma_special_values() {
    use El::*;
    let f = Form { shape: (16, 8, 8), d: F32, a: F16, b: F16, c: F32, mods: "" };
    let one = f16::from_f64(1.0).to_bits() as u64;
    let (m, n, k) = f.shape;
    let a = vec![one; m * k];
    let b = vec![one; k * n];
    let mut c = vec![0u64; m * n];
    let nan = 0x7fc0_0001u64;
    c[0] = nan; // D[0][0]: NaN
    c[1] = f32::INFINITY.to_bits() as u64; // D[0][1]: inf + 8 = inf
    c[2] = (-0.0f32).to_bits() as u64; // D[0][2]: 8
    let mut a2 = a.clone();
    a2[k] = f16::INFINITY.to_bits() as u64; // row 1 has an infinite A element
    let mut b2 = b.clone();
    b2[3] = 0; // B[0][3] = 0: inf * 0 in D[1][3]
    let d = f.run(&a2, &b2, &c).unwrap();
    assert_eq!(d[0] as u32, 0x7fff_ffff, "a NaN accumulator gives the canonical NaN");
    assert_eq!(f32::from_bits(d[1] as u32), f32::INFINITY);
    assert_eq!(f32::from_bits(d[2] as u32), 8.0);
    assert_eq!(f32::from_bits(d[n + 2] as u32), f32::INFINITY, "inf * 1 + finite");
    assert_eq!(d[n + 3] as u32, 0x7fff_ffff, "inf * 0 is NaN");
    // +inf + -inf
    let mut c3 = c.clone();
    c3[n + 2] = f32::NEG_INFINITY.to_bits() as u64;
    let d = f.run(&a2, &b2, &c3).unwrap();
    assert_eq!(d[n + 2] as u32, 0x7fff_ffff, "inf - inf is NaN");
}

#[test]
fn mma_integer_forms_are_exact() {
    use El::*;
    for (s, (k, a_el, b_el, sat)) in [(32, S8, S8, true), (32, S8, S8, false), (32, U8, S8, false), (16, S8, U8, true), (16, U8, U8, false)].into_iter().enumerate() {
        let f = Form { shape: (16, 8, k), d: S32, a: a_el, b: b_el, c: S32, mods: if sat { ".satfinite" } else { "" } };
        let (m, n, _) = f.shape;
        let mut r = Rng(7 + s as u64);
        let a: Vec<u64> = (0..m * k).map(|_| r.next() & 0xff).collect();
        let b: Vec<u64> = (0..k * n).map(|_| r.next() & 0xff).collect();
        // Accumulators near the ends of the s32 range make some sums overflow.
        let c: Vec<u64> = (0..m * n)
            .map(|i| match i % 3 {
                0 => (i32::MAX - r.range(0, 300_000) as i32) as u32 as u64,
                1 => (i32::MIN + r.range(0, 300_000) as i32) as u32 as u64,
                _ => r.next() & 0xffff_ffff,
            })
            .collect();
        let d = f.run(&a, &b, &c).unwrap();
        let val = |el: El, x: u64| if el == S8 { x as u8 as i8 as i64 } else { x as u8 as i64 };
        let mut saw_clamp = false;
        for i in 0..m {
            for j in 0..n {
                let s: i64 = c[i * n + j] as u32 as i32 as i64 + (0..k).map(|kk| val(a_el, a[i * k + kk]) * val(b_el, b[kk * n + j])).sum::<i64>();
                let want = if sat {
                    saw_clamp |= s > i32::MAX as i64 || s < i32::MIN as i64;
                    s.clamp(i32::MIN as i64, i32::MAX as i64) as i32
                } else {
                    s as i32 // wraps
                };
                assert_eq!(d[i * n + j] as u32 as i32, want, "form {s}: D[{i}][{j}]");
            }
        }
        if sat && k == 32 {
            assert!(saw_clamp, "the test should reach the clamp");
        }
    }
}

#[test]
fn mma_f64_is_exact_then_rounded_once() {
    use El::*;
    // Values m * 2^-10 with |m| < 2^20: products and sums are exact in f64.
    let f = Form { shape: (8, 8, 4), d: F64, a: F64, b: F64, c: F64, mods: "" };
    let mut r = Rng(99);
    let v = |r: &mut Rng| (r.range(-(1 << 20), 1 << 20) as f64 / 1024.0).to_bits();
    let a: Vec<u64> = (0..32).map(|_| v(&mut r)).collect();
    let b: Vec<u64> = (0..32).map(|_| v(&mut r)).collect();
    let c: Vec<u64> = (0..64).map(|_| v(&mut r)).collect();
    let d = f.run(&a, &b, &c).unwrap();
    let x = |w: u64| f64::from_bits(w);
    for i in 0..8 {
        for j in 0..8 {
            let want = x(c[i * 8 + j]) + (0..4).map(|k| x(a[i * 4 + k]) * x(b[k * 8 + j])).sum::<f64>();
            assert_eq!(x(d[i * 8 + j]), want, "D[{i}][{j}]");
        }
    }
    // Row 0 of A = [1, 2^-53, 2^-60, 0], B = ones: the exact sum 1 + 2^-53 + 2^-60
    // lies just above the tie between 1 and 1 + 2^-52. Rounded once it is
    // 1 + 2^-52 (a chain of fma would give 1); .rz and .rm give 1.
    let mut a = vec![0f64.to_bits(); 32];
    a[0] = 1f64.to_bits();
    a[1] = 2f64.powi(-53).to_bits();
    a[2] = 2f64.powi(-60).to_bits();
    let b = vec![1f64.to_bits(); 32];
    let c = vec![0f64.to_bits(); 64];
    for (mods, want) in [("", 1.0 + 2f64.powi(-52)), (".rn", 1.0 + 2f64.powi(-52)), (".rz", 1.0), (".rm", 1.0), (".rp", 1.0 + 2f64.powi(-52))] {
        let f = Form { shape: (8, 8, 4), d: F64, a: F64, b: F64, c: F64, mods };
        let d = f.run(&a, &b, &c).unwrap();
        assert_eq!(x(d[0]), want, "mma.m8n8k4{mods}.f64");
    }
    // Terms 1,200 binades apart (row 1: 2^600 + 2^-600, row 2: 2^600 -
    // 2^600 + 2^-600): the small term decides the directed roundings, and
    // survives the exact cancellation.
    let mut a = vec![0f64.to_bits(); 32];
    a[4] = 2f64.powi(600).to_bits();
    a[5] = 2f64.powi(-600).to_bits();
    a[8] = 2f64.powi(600).to_bits();
    a[9] = (-2f64.powi(600)).to_bits();
    a[10] = 2f64.powi(-600).to_bits();
    let big = 2f64.powi(600);
    let next = f64::from_bits(big.to_bits() + 1);
    for (mods, want) in [("", big), (".rz", big), (".rm", big), (".rp", next)] {
        let f = Form { shape: (8, 8, 4), d: F64, a: F64, b: F64, c: F64, mods };
        let d = f.run(&a, &b, &c).unwrap();
        assert_eq!(x(d[8]), want, "mma.m8n8k4{mods}.f64, 2^600 + 2^-600");
        assert_eq!(x(d[16]), 2f64.powi(-600), "mma.m8n8k4{mods}.f64, 2^600 - 2^600 + 2^-600");
    }
}

#[test]
fn mma_needs_the_whole_warp() {
    let f = Form { shape: (16, 8, 8), d: El::F32, a: El::F16, b: El::F16, c: El::F32, mods: "" };
    let src = f.kernel().replace("    mma.sync", "    setp.lt.u32 %p1, %r39, 31;\n    @%p1 mma.sync").replace(".reg .b64 %rd<8>;", ".reg .b64 %rd<8>;\n    .reg .pred %p<2>;");
    let e = run(&src, &vec![0; 32 * 8], 32 * 4, Scheduling::Stack).unwrap_err();
    assert_eq!(e.kind, TrapKind::NonUniform, "{e}");
}

// ---------------------------------------------------------------------------
// ldmatrix, stmatrix, movmatrix.

/// A kernel that copies `input[0..1024)` (bytes) into shared memory, then
/// runs `body` with `%r10` = shared base + input word 256 + lane (the
/// lane's row offset), and stores registers %r20..%r23 to out[4*lane..].
fn matrix_kernel(target: &str, body: &str) -> String {
    format!(
        ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n    .shared .align 16 .b8 sm[1024];\n    .reg .b32 %r<40>;\n    .reg .b64 %rd<12>;\n    ld.param.u64 %rd1, [pin];\n    ld.param.u64 %rd2, [pout];\n    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, sm;\n    mul.wide.u32 %rd3, %r1, 32;\n    add.s64 %rd4, %rd1, %rd3;\n    shl.b32 %r3, %r1, 5;\n    add.s32 %r4, %r2, %r3;\n    ld.global.v4.u32 {{%r5, %r6, %r7, %r8}}, [%rd4];\n    st.shared.v4.u32 [%r4], {{%r5, %r6, %r7, %r8}};\n    ld.global.v4.u32 {{%r5, %r6, %r7, %r8}}, [%rd4+16];\n    st.shared.v4.u32 [%r4+16], {{%r5, %r6, %r7, %r8}};\n    bar.sync 0;\n    mul.wide.u32 %rd5, %r1, 4;\n    add.s64 %rd6, %rd1, %rd5;\n    ld.global.u32 %r9, [%rd6+1024];\n    add.s32 %r10, %r2, %r9;\n    mov.u32 %r20, 0;\n    mov.u32 %r21, 0;\n    mov.u32 %r22, 0;\n    mov.u32 %r23, 0;\n{body}\n    bar.sync 0;\n    mul.wide.u32 %rd7, %r1, 16;\n    add.s64 %rd8, %rd2, %rd7;\n    st.global.v4.u32 [%rd8], {{%r20, %r21, %r22, %r23}};\n    add.s64 %rd9, %rd2, %rd3;\n    ld.shared.v4.u32 {{%r5, %r6, %r7, %r8}}, [%r4];\n    st.global.v4.u32 [%rd9+512], {{%r5, %r6, %r7, %r8}};\n    ld.shared.v4.u32 {{%r5, %r6, %r7, %r8}}, [%r4+16];\n    st.global.v4.u32 [%rd9+528], {{%r5, %r6, %r7, %r8}};\n    ret;\n}}\n"
    )
}

/// Shared image (512 u16 elements) and per-lane row offsets: a permutation
/// of 16-byte rows, so each lane points at a different place.
fn matrix_input(seed: u64) -> (Vec<u16>, Vec<u32>, Vec<u32>) {
    let mut r = Rng(seed);
    let img: Vec<u16> = (0..512).map(|_| r.next() as u16).collect();
    let mut rows: Vec<u32> = (0..64).collect();
    for i in (1..64).rev() {
        rows.swap(i, (r.next() % (i as u64 + 1)) as usize);
    }
    let offs: Vec<u32> = rows[..32].iter().map(|x| x * 16).collect();
    let mut words: Vec<u32> = img.chunks(2).map(|c| c[0] as u32 | (c[1] as u32) << 16).collect();
    words.extend(&offs);
    (img, offs, words)
}

#[test]
fn ldmatrix_gives_each_lane_its_fragment() {
    for (num, trans) in [(1, false), (2, false), (4, false), (1, true), (2, true), (4, true)] {
        let regs = ["%r20", "%r21", "%r22", "%r23"][..num].join(", ");
        let body = format!("    ldmatrix.sync.aligned.m8n8.x{num}{}.shared.b16 {{{regs}}}, [%r10];", if trans { ".trans" } else { "" });
        let (img, offs, input) = matrix_input(5 + num as u64 + trans as u64);
        let out = run_both(&matrix_kernel("sm_80", &body), &input, 32 * 4 + 256).unwrap();
        // Matrix j's row r is the 16 bytes at the offset thread 8j + r gives;
        // thread l receives row l/4, columns 2(l%4) and 2(l%4)+1 (of the
        // transpose with .trans).
        let elem = |j: usize, row: usize, col: usize| img[offs[8 * j + row] as usize / 2 + col] as u32;
        for l in 0..32 {
            for j in 0..4 {
                let got = out[4 * l + j];
                let want = if j >= num {
                    0
                } else {
                    let (g, t) = (l / 4, l % 4);
                    let e = |c: usize| if trans { elem(j, c, g) } else { elem(j, g, c) };
                    e(2 * t) | e(2 * t + 1) << 16
                };
                assert_eq!(got, want, "x{num} trans={trans}: lane {l} register {j}");
            }
        }
    }
}

#[test]
fn stmatrix_stores_the_fragment_rows() {
    for (num, trans) in [(1, false), (2, false), (4, false), (4, true)] {
        let regs = ["%r20", "%r21", "%r22", "%r23"][..num].join(", ");
        // Registers hold lane * 0x10000 + reg * 0x100 + 1 (low half) / + 2 (high half).
        let set: String = (0..4).map(|j| format!("    shl.b32 %r30, %r1, 8;\n    add.u32 %r30, %r30, {};\n    shl.b32 %r31, %r30, 16;\n    or.b32 %r2{j}, %r30, %r31;\n    add.u32 %r2{j}, %r2{j}, 0x10000;\n", j * 16)).collect();
        let body = format!("{set}    stmatrix.sync.aligned.m8n8.x{num}{}.shared.b16 [%r10], {{{regs}}};\n    bar.sync 0;", if trans { ".trans" } else { "" });
        let (img, offs, input) = matrix_input(50 + num as u64);
        let out = run_both(&matrix_kernel("sm_90", &body), &input, 32 * 4 + 256).unwrap();
        let held = |l: usize, j: usize, h: usize| -> u16 {
            let lo = ((l as u32) << 8) + 16 * j as u32;
            let w = lo | lo << 16;
            let w = w.wrapping_add(0x10000);
            (w >> (16 * h)) as u16
        };
        // Shared memory after the store, as the kernel copied it out.
        let shared: Vec<u16> = out[128..].iter().flat_map(|w| [*w as u16, (w >> 16) as u16]).collect();
        let mut want = img.clone();
        for j in 0..num {
            for row in 0..8 {
                for col in 0..8 {
                    // Element (row, col) of matrix j is held by lane 4*row + col/2,
                    // half col%2 (with .trans, element (col, row) of the fragment).
                    let (fr, fc) = if trans { (col, row) } else { (row, col) };
                    want[offs[8 * j + row] as usize / 2 + col] = held(4 * fr + fc / 2, j, fc % 2);
                }
            }
        }
        assert_eq!(shared, want, "stmatrix x{num} trans={trans}");
    }
}

#[test]
fn movmatrix_transposes_the_fragment() {
    let body = "    mul.lo.u32 %r30, %r1, 0x00030007;\n    add.u32 %r30, %r30, 0x01000100;\n    movmatrix.sync.aligned.m8n8.trans.b16 %r20, %r30;";
    let (_, _, input) = matrix_input(1);
    let out = run_both(&matrix_kernel("sm_80", body), &input, 32 * 4 + 256).unwrap();
    let src = |l: usize| (l as u32).wrapping_mul(0x0003_0007).wrapping_add(0x0100_0100);
    // Element (r, c) of the source is in lane 4r + c/2, half c%2; lane l
    // receives elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of the transpose.
    let e = |r: usize, c: usize| (src(4 * r + c / 2) >> (16 * (c % 2))) & 0xffff;
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        assert_eq!(out[4 * l], e(2 * t, g) | e(2 * t + 1, g) << 16, "lane {l}");
    }
}
