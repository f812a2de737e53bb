//! `cvt`: conversions between integer and float types, with the PTX rules:
//! integer narrowing truncates (or clamps with `.sat`), sign- or zero-extends
//! by the source type, and an .s8/.s16 result is sign-extended in its register; float → integer rounds by the given integer rounding
//! mode and saturates, NaN giving 0; integer → float rounds to nearest even;
//! float → float rounds to nearest even, or to an integral value with
//! `.rni/.rzi/.rmi/.rpi`. `.ftz` flushes f32 subnormals; `.sat` on a float
//! destination clamps to [0, 1] (NaN → 0).

use crate::alu::{f_round_int, f_to_i, ftz32, i_to_f, sext, FTy, ITy, Rounding, F32_CANON_NAN};

/// A `cvt` operand type: an integer or a float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CvtTy {
    I(ITy),
    F(FTy),
}

#[inline]
pub fn cvt(dst: CvtTy, src: CvtTy, rnd: Option<Rounding>, sat: bool, ftz: bool, x: u64) -> u64 {
    let r = convert(dst, src, rnd, sat, ftz, x);
    // An .s8 or .s16 result fills its (wider) register sign-extended, as an
    // H100 writes it (tests/gpu/int_ops: cvt.s8.s32.sat into a .b32
    // register gives 0xffffff80 for -128).
    match dst {
        CvtTy::I(d) if d.signed && d.bits < 32 => sext(r, d.bits) as u64,
        _ => r,
    }
}

fn convert(dst: CvtTy, src: CvtTy, rnd: Option<Rounding>, sat: bool, ftz: bool, x: u64) -> u64 {
    match (dst, src) {
        (CvtTy::I(d), CvtTy::I(s)) => {
            let v: i128 = if s.signed { sext(x, s.bits) as i128 } else { (x & s.mask()) as i128 };
            let v = if sat { v.clamp(d.min(), d.max()) } else { v };
            (v as u64) & d.mask()
        }
        (CvtTy::I(d), CvtTy::F(s)) => {
            let mut f = s.to_f64(x);
            if ftz && s == FTy::F32 {
                f = ftz32(f as f32) as f64;
            }
            // A NaN from f64 converts to the integer's sign bit alone, also
            // for a 32-bit integer (an H100: tests/gpu/special_f64); from
            // f32, f_to_i's rule.
            if s == FTy::F64 && f.is_nan() && !sat {
                return 1u64 << (d.bits - 1);
            }
            f_to_i(f, rnd.unwrap_or(Rounding::Rzi), d)
        }
        (CvtTy::F(d), CvtTy::I(s)) => {
            if let (Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)), FTy::F32 | FTy::F64) = (rnd, d) {
                let v: i128 = if s.signed { sext(x, s.bits) as i128 } else { (x & s.mask()) as i128 };
                let f = if d == FTy::F32 { crate::softfloat::F32 } else { crate::softfloat::F64 };
                return float_out(d, crate::softfloat::from_int(v, f, m), sat, ftz);
            }
            if let (Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)), FTy::F16 | FTy::BF16) = (rnd, d) {
                // Every integer up to 64 bits is exact in f64 only below
                // 2^53: round the wider ones to f64 toward zero with a
                // sticky bit first (round to odd), which keeps the final
                // directed rounding to 11 or 8 bits exact.
                let v: i128 = if s.signed { sext(x, s.bits) as i128 } else { (x & s.mask()) as i128 };
                let f = odd_f64(v);
                return directed_half(d, f, m, sat);
            }
            let r = i_to_f(x, s, d);
            float_out(d, d.to_f64(r), sat, ftz)
        }
        (CvtTy::F(d), CvtTy::F(s)) => {
            let mut f = s.to_f64(x);
            if ftz && s == FTy::F32 {
                f = ftz32(f as f32) as f64;
            }
            if let Some(r) = rnd {
                if matches!(r, Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi) {
                    f = f_round_int(f, r);
                }
            }
            if let (Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)), FTy::F32, FTy::F64) = (rnd, d, s) {
                if !f.is_nan() {
                    let r = crate::softfloat::f64_to_f32(f, m) as f64;
                    return float_out(d, r, sat, ftz);
                }
            }
            // `cvt.{rz,rm,rp}.{f16,bf16}.{f32,f64}` (and from the other
            // half type): one directed rounding of the exact source value.
            if let (Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)), FTy::F16 | FTy::BF16) = (rnd, d) {
                if !f.is_nan() && d != s {
                    return directed_half(d, f, m, sat);
                }
            }
            if f.is_nan() && !sat {
                // A NaN between f32 and f64 keeps its sign and the top of its
                // payload, quieted, as on an H100 (tests/gpu/nan_bits); f32 to
                // f32 gives the canonical NaN as f32 arithmetic does.
                return match (d, s) {
                    // bf16 to f32 is exact, NaN bits included (special_half).
                    (FTy::F32, FTy::BF16) => (x & 0xffff) << 16,
                    (FTy::F32, FTy::F64) => (x >> 32 & 0x8000_0000) | 0x7fc0_0000 | (x >> 29 & 0x3f_ffff),
                    (FTy::F64, FTy::F32) => ((x & 0x8000_0000) << 32) | 0x7ff8_0000_0000_0000 | ((x & 0x3f_ffff) << 29),
                    (FTy::F64, FTy::F64) => x | 1 << 51,
                    (FTy::F32, _) => F32_CANON_NAN as u64,
                    (FTy::F64, _) => 0x7fff_ffff_ffff_ffff,
                    _ => 0x7fff,
                };
            }
            float_out(d, f, sat, ftz)
        }
    }
}

/// `v` as an f64 rounded to odd: exact below 2^53, else truncated to 53
/// bits with the last bit set when bits were lost, so that a later
/// rounding to 24 or fewer bits is the correct rounding of `v`.
fn odd_f64(v: i128) -> f64 {
    let a = v.unsigned_abs();
    let bits = 128 - a.leading_zeros();
    let r = if bits <= 53 {
        a as f64
    } else {
        let sh = bits - 53;
        let t = a >> sh;
        let t = if t << sh != a { t | 1 } else { t };
        t as f64 * 2f64.powi(sh as i32)
    };
    if v < 0 {
        -r
    } else {
        r
    }
}

/// A finite or infinite `f` rounded to f16 or bf16 in a directed mode,
/// clamped with `.sat`.
fn directed_half(d: FTy, f: f64, m: Rounding, sat: bool) -> u64 {
    let fmt = if d == FTy::F16 { crate::softfloat::F16 } else { crate::softfloat::BF16 };
    let f = if sat {
        if f <= 0.0 {
            0.0
        } else {
            f.min(1.0)
        }
    } else {
        f
    };
    if f == 0.0 || f.is_infinite() {
        return d.from_f64(f);
    }
    crate::softfloat::round_f64(f, fmt, m)
}

fn float_out(d: FTy, f: f64, sat: bool, ftz: bool) -> u64 {
    let f = if sat {
        // NaN and -0.0 become +0.0 (the GPU's cvt.sat of -0.0 is +0.0).
        if f.is_nan() || f <= 0.0 {
            0.0
        } else {
            f.min(1.0)
        }
    } else {
        f
    };
    match d {
        FTy::F32 => {
            let r = f as f32;
            let r = if ftz { ftz32(r) } else { r };
            r.to_bits() as u64
        }
        _ => d.from_f64(f),
    }
}
