//! Exactly rounded float arithmetic in the directed rounding modes
//! (`.rz`, `.rm`, `.rp`; `.rn` too), for f32 and f64: the exact result is
//! formed as sign × mantissa × 2^exp in 128-bit integers (with a sticky bit
//! for what does not fit) and rounded once to the destination format,
//! subnormals and overflow included. Used where Rust's operators (round to
//! nearest even) do not give the mode asked for.

use crate::alu::Rounding;

/// A destination format: significand bits (with the hidden bit) and minimum exponent.
#[derive(Clone, Copy)]
pub struct Fmt {
    pub p: u32,
    pub emin: i32,
    pub emax: i32,
    pub ebits: u32,
}

pub const F32: Fmt = Fmt { p: 24, emin: -126, emax: 127, ebits: 8 };
pub const F64: Fmt = Fmt { p: 53, emin: -1022, emax: 1023, ebits: 11 };
pub const F16: Fmt = Fmt { p: 11, emin: -14, emax: 15, ebits: 5 };
pub const BF16: Fmt = Fmt { p: 8, emin: -126, emax: 127, ebits: 8 };

/// An exact finite value: (-1)^neg × m × 2^e, plus a sticky bit meaning
/// "a little more than this in magnitude".
#[derive(Clone, Copy, Debug)]
pub struct Exact {
    pub neg: bool,
    pub m: u128,
    pub e: i32,
    pub sticky: bool,
}

/// Decomposes a finite f64 into (neg, mantissa, exponent).
pub fn decompose(x: f64) -> (bool, u64, i32) {
    let b = x.to_bits();
    let neg = b >> 63 == 1;
    let ex = ((b >> 52) & 0x7ff) as i32;
    let fr = b & ((1u64 << 52) - 1);
    if ex == 0 {
        (neg, fr, -1074)
    } else {
        (neg, fr | (1u64 << 52), ex - 1075)
    }
}

fn encode(neg: bool, m: u64, e: i32, f: Fmt) -> u64 {
    // m has f.p bits (or fewer for subnormals with e == emin - p + 1).
    let sign = (neg as u64) << (f.ebits + f.p - 1);
    if m == 0 {
        return sign;
    }
    let hidden = 1u64 << (f.p - 1);
    let (bexp, frac) = if m & hidden == 0 { (0u64, m) } else { ((e + f.p as i32 - 1 - f.emin + 1) as u64, m & (hidden - 1)) };
    sign | (bexp << (f.p - 1)) | frac
}

fn inf_or_max(neg: bool, f: Fmt, mode: Rounding) -> u64 {
    let sign = (neg as u64) << (f.ebits + f.p - 1);
    let to_inf = match mode {
        Rounding::Rz => false,
        Rounding::Rm => neg,
        Rounding::Rp => !neg,
        _ => true,
    };
    let exp_all = (1u64 << f.ebits) - 1;
    if to_inf {
        sign | (exp_all << (f.p - 1))
    } else {
        sign | ((exp_all - 1) << (f.p - 1)) | ((1u64 << (f.p - 1)) - 1)
    }
}

/// Rounds an exact value to the format in the given mode; returns the bits.
pub fn round(x: Exact, f: Fmt, mode: Rounding) -> u64 {
    let Exact { neg, mut m, mut e, mut sticky } = x;
    if m == 0 {
        if !sticky {
            return (neg as u64) << (f.ebits + f.p - 1);
        }
        m = 0;
    }
    // Normalise so m has exactly p bits (or fewer when subnormal), tracking lost bits.
    let bits = 128 - m.leading_zeros() as i32;
    let mut shift = bits - f.p as i32; // right shift needed for p bits
    // Lowest allowed exponent of the last place.
    let qmin = f.emin - f.p as i32 + 1;
    if e + shift < qmin {
        shift = qmin - e;
    }
    let (mut q, half, rest);
    if shift > 0 {
        if shift >= 128 {
            q = 0;
            half = false;
            rest = m != 0 || sticky;
        } else {
            q = m >> shift;
            half = (m >> (shift - 1)) & 1 == 1;
            let low = if shift >= 2 { m & ((1u128 << (shift - 1)) - 1) } else { 0 };
            rest = low != 0 || sticky;
        }
        e += shift;
    } else {
        q = m << (-shift);
        e += shift;
        half = false;
        rest = sticky;
    }
    sticky = half || rest;
    let up = match mode {
        Rounding::Rn | Rounding::Rni => half && (rest || q & 1 == 1),
        Rounding::Rna => half,
        Rounding::Rz | Rounding::Rzi => false,
        Rounding::Rm | Rounding::Rmi => neg && sticky,
        Rounding::Rp | Rounding::Rpi => !neg && sticky,
    };
    if up {
        q += 1;
        if q >> f.p != 0 {
            q >>= 1;
            e += 1;
        }
    }
    if q != 0 && e + f.p as i32 - 1 > f.emax {
        return inf_or_max(neg, f, mode);
    }
    encode(neg, q as u64, e, f)
}

fn exact_of(x: f64) -> Exact {
    let (neg, m, e) = decompose(x);
    Exact { neg, m: m as u128, e, sticky: false }
}

/// Exact sum of two exact values (with sticky alignment past 120 bits).
fn add_exact(a: Exact, b: Exact) -> Exact {
    if a.m == 0 {
        return b;
    }
    if b.m == 0 {
        return a;
    }
    // Align to 120-bit windows.
    let norm = |x: Exact| -> Exact {
        let lz = x.m.leading_zeros() as i32;
        let s = lz - 8; // leave 8 bits of headroom
        if s > 0 {
            Exact { m: x.m << s, e: x.e - s, ..x }
        } else if s < 0 {
            let lost = x.m & ((1u128 << (-s)) - 1) != 0;
            Exact { m: x.m >> (-s), e: x.e - s, sticky: x.sticky || lost, ..x }
        } else {
            x
        }
    };
    let (mut a, mut b) = (norm(a), norm(b));
    if a.e < b.e {
        std::mem::swap(&mut a, &mut b);
    }
    let d = a.e - b.e;
    let (bm, bs) = if d >= 120 {
        (0u128, b.m != 0 || b.sticky)
    } else {
        (b.m >> d, b.sticky || (d > 0 && b.m & ((1u128 << d) - 1) != 0))
    };
    if a.neg == b.neg {
        Exact { neg: a.neg, m: a.m + bm, e: a.e, sticky: a.sticky || bs }
    } else if a.m > bm || (a.m == bm && !bs) {
        // a - b: a sticky b means the true difference is slightly smaller.
        let (m, sticky) = if bs { (a.m - bm - 1, true) } else { (a.m - bm, a.sticky) };
        Exact { neg: a.neg, m, e: a.e, sticky }
    } else {
        let (m, sticky) = if a.sticky { (bm - a.m - 1, true) } else { (bm - a.m, bs) };
        Exact { neg: b.neg, m, e: a.e, sticky }
    }
}

fn mul_exact(a: Exact, b: Exact) -> Exact {
    Exact { neg: a.neg ^ b.neg, m: a.m * b.m, e: a.e + b.e, sticky: false }
}

/// Special cases (NaN, infinities, zeros) computed by the hardware operator,
/// which are exact; `None` when the operands are finite and the result needs rounding.
fn special(r_rn: f64, finite_in: bool) -> Option<f64> {
    if r_rn.is_nan() || !finite_in {
        Some(r_rn)
    } else {
        None
    }
}

fn out(bits: u64, f: Fmt) -> f64 {
    if f.p == 24 {
        f32::from_bits(bits as u32) as f64
    } else {
        f64::from_bits(bits)
    }
}

fn zero_sign(a: f64, b: f64, sub: bool, mode: Rounding) -> f64 {
    // x + y == 0 exactly: +0 except in round-down mode (-0), or both -0.
    let bneg = b.is_sign_negative() ^ sub;
    if a.is_sign_negative() && bneg {
        -0.0
    } else if a.is_sign_negative() != bneg && mode == Rounding::Rm {
        -0.0
    } else {
        0.0
    }
}

/// `a ± b` in format `f` and mode (operands already exact values of that format).
pub fn add(a: f64, b: f64, sub: bool, f: Fmt, mode: Rounding) -> f64 {
    let rn = if sub { a - b } else { a + b };
    if let Some(s) = special(rn, a.is_finite() && b.is_finite()) {
        return s;
    }
    let mut eb = exact_of(b);
    if sub {
        eb.neg = !eb.neg;
    }
    let x = add_exact(exact_of(a), eb);
    if x.m == 0 && !x.sticky {
        return zero_sign(a, b, sub, mode);
    }
    out(round(x, f, mode), f)
}

pub fn mul(a: f64, b: f64, f: Fmt, mode: Rounding) -> f64 {
    let rn = a * b;
    if let Some(s) = special(rn, a.is_finite() && b.is_finite()) {
        return s;
    }
    let x = mul_exact(exact_of(a), exact_of(b));
    if x.m == 0 {
        return rn;
    }
    out(round(x, f, mode), f)
}

pub fn fma(a: f64, b: f64, c: f64, f: Fmt, mode: Rounding) -> f64 {
    let rn = a.mul_add(b, c);
    if let Some(s) = special(rn, a.is_finite() && b.is_finite() && c.is_finite()) {
        return s;
    }
    let p = mul_exact(exact_of(a), exact_of(b));
    let x = add_exact(p, exact_of(c));
    if x.m == 0 && !x.sticky {
        let pneg = a.is_sign_negative() ^ b.is_sign_negative();
        let pz = if pneg { -0.0 } else { 0.0 };
        // An exact zero sum (zero terms, or terms that cancel) takes the
        // sign rule of IEEE 754 §6.3 in the instruction's own rounding mode.
        return zero_sign(pz, c, false, mode);
    }
    out(round(x, f, mode), f)
}

pub fn div(a: f64, b: f64, f: Fmt, mode: Rounding) -> f64 {
    let rn = a / b;
    if let Some(s) = special(rn, a.is_finite() && b.is_finite()) {
        return s;
    }
    if a == 0.0 || b == 0.0 {
        return rn;
    }
    let (an, am, ae) = decompose(a);
    let (bn, bm, be) = decompose(b);
    // Normalise: the dividend to 64 bits, the divisor to 53, for a quotient of ≥ 75 bits.
    let sa = am.leading_zeros() as i32;
    let sb = bm.leading_zeros() as i32 - 11;
    let num = ((am as u128) << sa) << 64;
    let den = (bm as u128) << sb;
    let q = num / den;
    let r = num % den;
    let x = Exact { neg: an ^ bn, m: q, e: ae - sa - 64 - (be - sb), sticky: r != 0 };
    out(round(x, f, mode), f)
}

pub fn sqrt(a: f64, f: Fmt, mode: Rounding) -> f64 {
    let rn = a.sqrt();
    if a.is_nan() || a <= 0.0 || a.is_infinite() {
        return rn;
    }
    let (_, m, e) = decompose(a);
    // Make the exponent even and scale up for precision.
    let (mut mm, mut ee) = (m as u128, e);
    let lz = mm.leading_zeros() as i32 - 2;
    mm <<= lz;
    ee -= lz;
    if ee & 1 != 0 {
        mm >>= 1;
        ee += 1;
    }
    // integer sqrt of mm
    let mut lo: u128 = 0;
    let mut hi: u128 = 1u128 << 64;
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if mid.checked_mul(mid).map(|s| s <= mm).unwrap_or(false) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = Exact { neg: false, m: lo, e: ee / 2, sticky: lo * lo != mm };
    out(round(x, f, mode), f)
}

/// Rounds an integer to the format in a mode.
pub fn from_int(v: i128, f: Fmt, mode: Rounding) -> f64 {
    if v == 0 {
        return 0.0;
    }
    let x = Exact { neg: v < 0, m: v.unsigned_abs(), e: 0, sticky: false };
    out(round(x, f, mode), f)
}

/// Rounds a finite, non-zero f64 value to the format in a mode; returns
/// the bits (`cvt.{rz,rm,rp}.f16.f32` and the like: the f64 holds the
/// source exactly, so this is the one rounding the manual asks for).
pub fn round_f64(a: f64, f: Fmt, mode: Rounding) -> u64 {
    round(exact_of(a), f, mode)
}

/// Rounds an f64 value to f32 in a mode.
pub fn f64_to_f32(a: f64, mode: Rounding) -> f32 {
    if !a.is_finite() || a == 0.0 {
        return a as f32;
    }
    f32::from_bits(round(exact_of(a), F32, mode) as u32)
}
