//! The 8-bit float conversions of `cvt` (PTX ISA 9.7.9.21), which Triton
//! emits for `tl.float8e4nv` / `tl.float8e5`: `cvt.rn.satfinite{.relu}.
//! {e4m3x2,e5m2x2}.f32 d, a, b` (a into the upper byte of `d`, b into the
//! lower), `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a` (each half
//! of `a` into the byte at the same end) and `cvt.rn{.relu}.f16x2.
//! {e4m3x2,e5m2x2} d, a` (each byte to a half, exactly). Rounding is to
//! nearest even; `.satfinite` (mandatory into the 8-bit types) turns a
//! value beyond the largest finite one, infinities included, into that
//! value with its sign (448 for e4m3, 57344 for e5m2) and keeps NaN a NaN
//! (0x7f); `.relu` makes negative results +0.

use crate::softfloat::{round_f64, Fmt};

/// An 8-bit float format: e4m3 (no infinities; S.1111.111 is NaN) or e5m2
/// (IEEE-like: the upper byte of an f16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F8 {
    E4m3,
    E5m2,
}

/// What a `cvt` with an 8-bit float type converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp8Cvt {
    /// Two f32 (`a`, `b`) to a packed pair.
    FromF32x2(F8),
    /// An `.f16x2` to a packed pair.
    FromF16x2(F8),
    /// A packed pair to `.f16x2`.
    ToF16x2(F8),
}

impl F8 {
    fn fmt(self) -> Fmt {
        match self {
            F8::E4m3 => Fmt { p: 4, emin: -6, emax: 8, ebits: 4 },
            F8::E5m2 => Fmt { p: 3, emin: -14, emax: 15, ebits: 5 },
        }
    }

    /// The largest finite value and its encoding.
    fn max(self) -> (f64, u8) {
        match self {
            F8::E4m3 => (448.0, 0x7e),
            F8::E5m2 => (57344.0, 0x7b),
        }
    }

    /// `x` rounded to nearest even, with `.satfinite` and optionally `.relu`.
    pub fn from_f64(self, x: f64, relu: bool) -> u8 {
        if x.is_nan() {
            return 0x7f;
        }
        if relu && x < 0.0 || x == 0.0 {
            return if x == 0.0 && x.is_sign_negative() && !relu { 0x80 } else { 0 };
        }
        let sign = if x < 0.0 { 0x80 } else { 0 };
        let (max, max_bits) = self.max();
        if x.abs() > max {
            return sign | max_bits;
        }
        // Within range, round-to-nearest cannot pass the largest finite value.
        round_f64(x, self.fmt(), crate::alu::Rounding::Rn) as u8
    }

    /// The value of an encoding (exact in f16).
    pub fn to_f64(self, b: u8) -> f64 {
        let s = if b & 0x80 != 0 { -1.0 } else { 1.0 };
        let (mbits, bias) = match self {
            F8::E4m3 => (3, 7),
            F8::E5m2 => (2, 15),
        };
        let e = ((b & 0x7f) >> mbits) as i32;
        let m = (b & ((1 << mbits) - 1)) as f64;
        let all = (1 << (7 - mbits)) - 1;
        match (self, e) {
            (F8::E4m3, _) if b & 0x7f == 0x7f => f64::NAN,
            (F8::E5m2, e) if e == all && m != 0.0 => f64::NAN,
            (F8::E5m2, e) if e == all => s * f64::INFINITY,
            (_, 0) => s * m * 2f64.powi(1 - bias - mbits as i32),
            _ => s * (1.0 + m / (1 << mbits) as f64) * 2f64.powi(e - bias),
        }
    }
}

fn f16_bits(x: f64, relu: bool) -> u64 {
    if x.is_nan() {
        return 0x7fff;
    }
    let x = if relu && x < 0.0 { 0.0 } else { x };
    super::f16_from_f64(x) as u64
}

/// One lane of an 8-bit float `cvt` (`b` is used by [`Fp8Cvt::FromF32x2`] only).
pub fn cvt(op: Fp8Cvt, relu: bool, a: u64, b: u64) -> u64 {
    match op {
        Fp8Cvt::FromF32x2(f) => {
            let (x, y) = (f32::from_bits(a as u32) as f64, f32::from_bits(b as u32) as f64);
            (f.from_f64(x, relu) as u64) << 8 | f.from_f64(y, relu) as u64
        }
        Fp8Cvt::FromF16x2(f) => {
            let h = |k: u32| half::f16::from_bits((a >> k) as u16).to_f64();
            (f.from_f64(h(16), relu) as u64) << 8 | f.from_f64(h(0), relu) as u64
        }
        Fp8Cvt::ToF16x2(f) => {
            let v = |k: u32| f.to_f64((a >> k) as u8);
            f16_bits(v(8), relu) << 16 | f16_bits(v(0), relu)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e4m3_encodings() {
        let f = F8::E4m3;
        assert_eq!(f.from_f64(1.0, false), 0x38); // 0.0111.000
        assert_eq!(f.from_f64(-2.0, false), 0xc0);
        assert_eq!(f.from_f64(448.0, false), 0x7e);
        assert_eq!(f.from_f64(1e6, false), 0x7e); // satfinite
        assert_eq!(f.from_f64(f64::NEG_INFINITY, false), 0xfe);
        assert_eq!(f.from_f64(f64::NAN, false), 0x7f);
        assert_eq!(f.from_f64(2f64.powi(-9), false), 0x01); // the smallest subnormal
        assert_eq!(f.from_f64(1.0625, false), 0x38); // a tie: to the even 1.0
        assert_eq!(f.from_f64(1.1875, false), 0x3a); // a tie: to the even 1.25
        assert_eq!(f.from_f64(-3.0, true), 0x00); // relu
        for b in 0..=255u8 {
            let v = f.to_f64(b);
            if !v.is_nan() {
                assert_eq!(f.from_f64(v, false), b, "{b:#04x} = {v}");
            }
        }
    }

    #[test]
    fn e5m2_is_the_upper_byte_of_f16() {
        let f = F8::E5m2;
        for b in 0..=255u8 {
            let v = f.to_f64(b);
            let h = half::f16::from_bits((b as u16) << 8).to_f64();
            assert!(v == h || v.is_nan() && h.is_nan(), "{b:#04x}");
        }
        assert_eq!(f.from_f64(57344.0, false), 0x7b);
        assert_eq!(f.from_f64(f64::INFINITY, false), 0x7b);
        assert_eq!(cvt(Fp8Cvt::FromF32x2(F8::E5m2), false, 1.0f32.to_bits() as u64, (-0.5f32).to_bits() as u64), 0x3cb8);
        assert_eq!(cvt(Fp8Cvt::ToF16x2(F8::E4m3), false, 0x38c0, 0), 0x3c00_c000);
    }
}
