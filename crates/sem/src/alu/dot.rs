//! The arithmetic of one `mma` result element: `c + sum_k a_k * b_k`.
//!
//! Floating point (`.f16`, `.bf16`, `.tf32` and `.f64` operands): every
//! product is exact (as a 106-bit integer times a power of two), the
//! products and `c` are added exactly (in a fixed-point integer as wide as
//! the exponents present need, at most about 2,200 bits), and the exact sum
//! is rounded once into the result type with the instruction's rounding
//! (round to nearest even unless `.rz/.rm/.rp` is given, which only the
//! `.f64` form allows). So the order of accumulation does not matter and
//! the result is the correctly rounded value: `|D - exact| <= ulp(D) / 2`
//! under round to nearest. The hardware's own order and internal precision
//! are not documented; this is the most accurate result the manual's
//! definition `D = A * B + C` allows.
//!
//! Special values follow IEEE 754 through the same sum: a NaN operand, an
//! infinite times zero, or infinities of both signs give the canonical NaN
//! of the result type; otherwise an infinite operand gives that infinity.
//! An exact zero sum is +0, or -0 when every term is a negative zero (or
//! under `.rm`, as `fma` does).
//!
//! Integer (`.s8`/`.u8` operands, `.s32` accumulators): exact in `i64`, then
//! wrapped to 32 bits, or clamped to the `.s32` range with `.satfinite`.

use super::Rounding;

/// A floating-point term: `(-1)^neg * mant * 2^exp`, or a special value.
#[derive(Clone, Copy, Debug)]
enum Term {
    Finite { neg: bool, mant: u128, exp: i32 },
    Inf(bool),
    NaN,
}

/// The exact value of an `f64` as a term (`mant` < 2^53).
fn term(x: f64) -> Term {
    if x.is_nan() {
        return Term::NaN;
    }
    if x.is_infinite() {
        return Term::Inf(x < 0.0);
    }
    let b = x.to_bits();
    let neg = b >> 63 == 1;
    let e = ((b >> 52) & 0x7ff) as i32;
    let f = b & ((1 << 52) - 1);
    let (mant, exp) = if e == 0 { (f, -1074) } else { (f | 1 << 52, e - 1075) };
    Term::Finite { neg, mant: mant as u128, exp }
}

/// The exact product of two values held as `f64`.
fn product(a: f64, b: f64) -> Term {
    match (term(a), term(b)) {
        (Term::NaN, _) | (_, Term::NaN) => Term::NaN,
        (Term::Inf(s), Term::Finite { neg, mant, .. }) | (Term::Finite { neg, mant, .. }, Term::Inf(s)) => {
            if mant == 0 {
                Term::NaN
            } else {
                Term::Inf(s ^ neg)
            }
        }
        (Term::Inf(s), Term::Inf(t)) => Term::Inf(s ^ t),
        (Term::Finite { neg: n1, mant: m1, exp: e1 }, Term::Finite { neg: n2, mant: m2, exp: e2 }) => {
            Term::Finite { neg: n1 ^ n2, mant: m1 * m2, exp: e1 + e2 }
        }
    }
}

/// A binary floating-point format: precision `p` (with the hidden bit),
/// exponent bits and bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub p: u32,
    pub ebits: u32,
}

pub const F16: Format = Format { p: 11, ebits: 5 };
pub const F32: Format = Format { p: 24, ebits: 8 };
pub const F64: Format = Format { p: 53, ebits: 11 };

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.ebits - 1)) - 1
    }
    fn inf_bits(self, neg: bool) -> u64 {
        let e = ((1u64 << self.ebits) - 1) << (self.p - 1);
        e | (neg as u64) << (self.p - 1 + self.ebits)
    }
    fn nan_bits(self) -> u64 {
        // The canonical NaN: all exponent bits and every fraction bit set
        // (0x7fffffff for .f32, as the manual's arithmetic results use).
        match self.p {
            24 => 0x7fff_ffff,
            11 => 0x7fff,
            _ => 0x7fff_ffff_ffff_ffff,
        }
    }
    fn max_finite_bits(self, neg: bool) -> u64 {
        self.inf_bits(neg) - 1
    }
}

/// `c + sum products`, each product given by its two factors (exact values
/// as `f64`), rounded once into `fmt` with `rnd` (`Rn`, `Rz`, `Rm` or
/// `Rp`); returns the result's bits.
pub fn dot(fmt: Format, rnd: Rounding, pairs: impl Iterator<Item = (f64, f64)>, c: f64) -> u64 {
    let mut terms: [Term; 33] = [Term::NaN; 33];
    let mut n = 0;
    terms[n] = term(c);
    n += 1;
    for (a, b) in pairs {
        if n == terms.len() {
            break;
        }
        terms[n] = product(a, b);
        n += 1;
    }
    sum_round(fmt, rnd, &terms[..n])
}

fn sum_round(fmt: Format, rnd: Rounding, terms: &[Term]) -> u64 {
    // Special values first.
    let (mut pinf, mut ninf) = (false, false);
    for t in terms {
        match *t {
            Term::NaN => return fmt.nan_bits(),
            Term::Inf(s) => {
                if s {
                    ninf = true
                } else {
                    pinf = true
                }
            }
            _ => {}
        }
    }
    match (pinf, ninf) {
        (true, true) => return fmt.nan_bits(),
        (true, false) => return fmt.inf_bits(false),
        (false, true) => return fmt.inf_bits(true),
        _ => {}
    }
    let finite = || terms.iter().filter_map(|t| if let Term::Finite { neg, mant, exp } = *t { Some((neg, mant, exp)) } else { None });
    let Some(emin) = finite().filter(|t| t.1 != 0).map(|t| t.2).min() else {
        // Every term is a zero: -0 only when all are -0 (or under .rm).
        let all_neg = finite().all(|t| t.0);
        let neg = all_neg || rnd == Rounding::Rm && !finite().all(|t| !t.0);
        return (neg as u64) << (fmt.p - 1 + fmt.ebits);
    };
    let emax = finite().filter(|t| t.1 != 0).map(|t| t.2 + 128 - t.1.leading_zeros() as i32).max().unwrap_or(emin);
    if emax - emin <= 120 {
        // The common case (the terms' bits span at most 120 bits, with room
        // for the carries of 33 terms): the same exact sum in an i128.
        let mut acc: i128 = 0;
        for (neg, mant, exp) in finite() {
            let v = (mant << (exp - emin)) as i128;
            acc += if neg { -v } else { v };
        }
        let mag = acc.unsigned_abs();
        return round_mag(fmt, rnd, acc < 0, &[mag as u64, (mag >> 64) as u64], emin);
    }
    // Two's complement accumulator: value = acc * 2^emin; room for the
    // largest term plus carries from up to 64 terms and a sign bit.
    let bits = (emax - emin) as usize + 8;
    let limbs = (bits.div_ceil(64) + 1).min(MAX_LIMBS);
    let mut store = [0u64; MAX_LIMBS];
    let acc = &mut store[..limbs];
    for (neg, mant, exp) in finite() {
        if mant == 0 {
            continue;
        }
        let sh = (exp - emin) as usize;
        let (li, bi) = (sh / 64, (sh % 64) as u32);
        // mant << bi spans at most three limbs (mant < 2^106).
        let (m0, m1) = (mant as u64, (mant >> 64) as u64);
        let lo = m0 << bi;
        let mid = if bi == 0 { m1 } else { m1 << bi | m0 >> (64 - bi) };
        let hi = if bi == 0 { 0 } else { m1 >> (64 - bi) };
        let parts = [lo, mid, hi];
        if neg {
            sub_at(acc, li, &parts);
        } else {
            add_at(acc, li, &parts);
        }
    }
    let neg = acc[limbs - 1] >> 63 == 1;
    if neg {
        // Negate: invert and add one.
        for w in acc.iter_mut() {
            *w = !*w;
        }
        add_at(acc, 0, &[1]);
    }
    round_mag(fmt, rnd, neg, acc, emin)
}

/// `(-1)^neg * acc * 2^emin` (`acc` little-endian limbs of the magnitude)
/// rounded into `fmt` with `rnd`.
fn round_mag(fmt: Format, rnd: Rounding, neg: bool, acc: &[u64], emin: i32) -> u64 {
    let limbs = acc.len();
    let Some(top) = (0..limbs).rev().find(|&i| acc[i] != 0) else {
        // Exact cancellation: +0 (-0 under .rm).
        return ((rnd == Rounding::Rm) as u64) << (fmt.p - 1 + fmt.ebits);
    };
    let bl = top as i64 * 64 + 64 - acc[top].leading_zeros() as i64; // bit length of |acc|
    let e_top = bl - 1 + emin as i64; // exponent of the leading bit
    let p = fmt.p as i64;
    let emin_normal = 1 - fmt.bias() as i64;
    let q_min = emin_normal - (p - 1);
    let q = (e_top - (p - 1)).max(q_min); // exponent of the result's last bit
    let s = q - emin as i64; // bits of acc below the result's last bit
    let bit = |i: i64| -> bool { i >= 0 && (i as usize) < limbs * 64 && acc[i as usize / 64] >> (i % 64) & 1 == 1 };
    let (mut mant, inexact_half, sticky) = if s <= 0 {
        // Exact: shift left (|acc| has at most p bits here).
        (bits_at(acc, 0, bl as u32) << (-s) as u32, false, false)
    } else {
        let m = bits_at(acc, s as usize, (bl - s) as u32);
        let half = bit(s - 1);
        // Any bit below s - 1: whole limbs, then the partial one.
        let below = (s - 1) as usize;
        let sticky = acc[..below / 64].iter().any(|&w| w != 0) || below % 64 != 0 && acc[below / 64] & ((1u64 << (below % 64)) - 1) != 0;
        (m, half, sticky)
    };
    let inexact = inexact_half || sticky;
    let up = match rnd {
        Rounding::Rz => false,
        Rounding::Rm => neg && inexact,
        Rounding::Rp => !neg && inexact,
        _ => inexact_half && (sticky || mant & 1 == 1),
    };
    let mut q = q;
    if up {
        mant += 1;
        if mant == 1 << p {
            mant >>= 1;
            q += 1;
        }
    }
    // Overflow: past the largest finite value.
    let emax_fmt = fmt.bias() as i64;
    if q + p - 1 > emax_fmt {
        let to_inf = match rnd {
            Rounding::Rz => false,
            Rounding::Rm => neg,
            Rounding::Rp => !neg,
            _ => true,
        };
        return if to_inf { fmt.inf_bits(neg) } else { fmt.max_finite_bits(neg) };
    }
    let sign = (neg as u64) << (fmt.p - 1 + fmt.ebits);
    if mant >> (p - 1) == 0 {
        // Subnormal (q == q_min) or zero.
        return sign | mant;
    }
    let e_field = (q + p - 1 + fmt.bias() as i64) as u64;
    sign | e_field << (fmt.p - 1) | (mant & ((1 << (p - 1)) - 1))
}

/// Limbs of the accumulator, on the stack: the widest sum is of `.f64`
/// products, whose exponents span 2^-2148 to 2^2048 (4,204 bits with the
/// carry room, 67 limbs), so no exact sum ever needs more.
const MAX_LIMBS: usize = 72;

/// `count` (at most 64) bits of `acc` starting at bit `lo`.
fn bits_at(acc: &[u64], lo: usize, count: u32) -> u64 {
    if count == 0 {
        return 0;
    }
    let (w, b) = (lo / 64, (lo % 64) as u32);
    let lo_part = acc.get(w).copied().unwrap_or(0) >> b;
    let hi_part = if b == 0 { 0 } else { acc.get(w + 1).copied().unwrap_or(0) << (64 - b) };
    let v = lo_part | hi_part;
    if count == 64 {
        v
    } else {
        v & ((1u64 << count) - 1)
    }
}

fn add_at(acc: &mut [u64], at: usize, parts: &[u64]) {
    let mut carry = 0u64;
    let mut i = at;
    let mut k = 0;
    while i < acc.len() && (k < parts.len() || carry != 0) {
        let p = parts.get(k).copied().unwrap_or(0);
        let (s1, c1) = acc[i].overflowing_add(p);
        let (s2, c2) = s1.overflowing_add(carry);
        acc[i] = s2;
        carry = (c1 || c2) as u64;
        i += 1;
        k += 1;
    }
}

fn sub_at(acc: &mut [u64], at: usize, parts: &[u64]) {
    let mut borrow = 0u64;
    let mut i = at;
    let mut k = 0;
    // Two's complement: borrows run to the top limb.
    while i < acc.len() && (k < parts.len() || borrow != 0) {
        let p = parts.get(k).copied().unwrap_or(0);
        let (s1, b1) = acc[i].overflowing_sub(p);
        let (s2, b2) = s1.overflowing_sub(borrow);
        acc[i] = s2;
        borrow = (b1 || b2) as u64;
        i += 1;
        k += 1;
    }
}

/// The integer form: `c + sum a_k * b_k`, wrapped to 32 bits, or clamped to
/// the `.s32` range with `satfinite`.
pub fn dot_int(pairs: impl Iterator<Item = (i64, i64)>, c: i32, satfinite: bool) -> u32 {
    let s = pairs.fold(c as i64, |acc, (a, b)| acc + a * b);
    if satfinite {
        s.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
    } else {
        s as u32
    }
}
