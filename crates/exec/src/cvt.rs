//! `cvt`: conversions between integer and float types, with the PTX rules:
//! integer narrowing truncates (or clamps with `.sat`), sign- or zero-extends
//! by the source type; float → integer rounds by the given integer rounding
//! mode and saturates, NaN giving 0; integer → float rounds to nearest even;
//! float → float rounds to nearest even, or to an integral value with
//! `.rni/.rzi/.rmi/.rpi`. `.ftz` flushes f32 subnormals; `.sat` on a float
//! destination clamps to [0, 1] (NaN → 0).

use crate::alu::{f_round_int, f_to_i, ftz32, i_to_f, sext, FTy, Rounding, F32_CANON_NAN};
use crate::program::CvtTy;

pub fn cvt(dst: CvtTy, src: CvtTy, rnd: Option<Rounding>, sat: bool, ftz: bool, x: u64) -> u64 {
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
            f_to_i(f, rnd.unwrap_or(Rounding::Rzi), d)
        }
        (CvtTy::F(d), CvtTy::I(s)) => {
            if let (Some(m @ (Rounding::Rz | Rounding::Rm | Rounding::Rp)), FTy::F32 | FTy::F64) = (rnd, d) {
                let v: i128 = if s.signed { sext(x, s.bits) as i128 } else { (x & s.mask()) as i128 };
                let f = if d == FTy::F32 { crate::softfloat::F32 } else { crate::softfloat::F64 };
                return float_out(d, crate::softfloat::from_int(v, f, m), sat, ftz);
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
            if f.is_nan() && !sat {
                return match d {
                    FTy::F32 => F32_CANON_NAN as u64,
                    FTy::F64 => 0x7fff_ffff_ffff_ffff,
                    _ => 0x7fff,
                };
            }
            float_out(d, f, sat, ftz)
        }
    }
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
