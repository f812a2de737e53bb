//! Unit tests of the lane-wise semantics against the manual's tables, with
//! expected values from Rust's own IEEE operators (`partial_cmp`, `f32`
//! arithmetic) or hand-derived, never from the engine.

use super::*;
use std::cmp::Ordering;

const S32: ITy = ITy { bits: 32, signed: true };
const U16: ITy = ITy { bits: 16, signed: false };
const S16: ITy = ITy { bits: 16, signed: true };

fn f32_specials() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::MIN,
        0.5,
        1.0e-30,
        3.0,
    ]
}

/// The manual's table: ordered comparisons are false with a NaN operand,
/// unordered ones true; `num` = both numbers, `nan` = either NaN.
fn reference(op: CmpOp, a: f64, b: f64) -> bool {
    let o = a.partial_cmp(&b);
    match op {
        CmpOp::Eq => o == Some(Ordering::Equal),
        CmpOp::Ne => matches!(o, Some(Ordering::Less | Ordering::Greater)),
        CmpOp::Lt => o == Some(Ordering::Less),
        CmpOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => o == Some(Ordering::Greater),
        CmpOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        CmpOp::Equ => o.is_none() || o == Some(Ordering::Equal),
        CmpOp::Neu => o != Some(Ordering::Equal),
        CmpOp::Ltu => o.is_none() || o == Some(Ordering::Less),
        CmpOp::Leu => o != Some(Ordering::Greater),
        CmpOp::Gtu => o.is_none() || o == Some(Ordering::Greater),
        CmpOp::Geu => o != Some(Ordering::Less),
        CmpOp::Num => o.is_some(),
        CmpOp::Nan => o.is_none(),
        _ => unreachable!(),
    }
}

const FOPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

#[test]
fn setp_f32_every_operator_on_specials() {
    for &op in &FOPS {
        for &a in &f32_specials() {
            for &b in &f32_specials() {
                let got = fcmp(op, FTy::F32, false, a.to_bits() as u64, b.to_bits() as u64);
                assert_eq!(got, reference(op, a as f64, b as f64), "{op:?} {a:e} {b:e}");
            }
        }
    }
}

#[test]
fn setp_f64_every_operator_on_specials() {
    let v: Vec<f64> = f32_specials().iter().map(|&x| x as f64).chain([f64::from_bits(1), f64::MAX, -f64::MAX]).collect();
    for &op in &FOPS {
        for &a in &v {
            for &b in &v {
                assert_eq!(fcmp(op, FTy::F64, false, a.to_bits(), b.to_bits()), reference(op, a, b), "{op:?} {a:e} {b:e}");
            }
        }
    }
}

#[test]
fn setp_ftz_flushes_subnormals() {
    let sub = f32::from_bits(1).to_bits() as u64;
    let nsub = f32::from_bits(0x8000_0001).to_bits() as u64;
    // Without .ftz the smallest subnormal is greater than zero; with it, equal.
    assert!(fcmp(CmpOp::Gt, FTy::F32, false, sub, 0));
    assert!(!fcmp(CmpOp::Gt, FTy::F32, true, sub, 0));
    assert!(fcmp(CmpOp::Eq, FTy::F32, true, sub, nsub));
    assert!(!fcmp(CmpOp::Eq, FTy::F32, false, sub, nsub));
}

#[test]
fn setp_f16_and_bf16() {
    // f16: 0x3c00 = 1.0, 0x7e00 = NaN, 0x8000 = -0, 0x0001 = smallest subnormal.
    assert!(fcmp(CmpOp::Lt, FTy::F16, false, 0x0001, 0x3c00));
    assert!(fcmp(CmpOp::Eq, FTy::F16, false, 0x8000, 0x0000));
    assert!(!fcmp(CmpOp::Eq, FTy::F16, false, 0x7e00, 0x7e00));
    assert!(fcmp(CmpOp::Neu, FTy::F16, false, 0x7e00, 0x7e00));
    // bf16: 0x3f80 = 1.0, 0x4000 = 2.0
    assert!(fcmp(CmpOp::Gt, FTy::BF16, false, 0x4000, 0x3f80));
}

#[test]
fn setp_int_extremes() {
    let vals: [i64; 7] = [i32::MIN as i64, -1, 0, 1, i32::MAX as i64, 5, -5];
    for &a in &vals {
        for &b in &vals {
            let (ua, ub) = (a as u64 & 0xffff_ffff, b as u64 & 0xffff_ffff);
            assert_eq!(icmp(CmpOp::Lt, S32, ua, ub), a < b);
            assert_eq!(icmp(CmpOp::Ge, S32, ua, ub), a >= b);
            assert_eq!(icmp(CmpOp::Lo, S32, ua, ub), ua < ub);
            assert_eq!(icmp(CmpOp::Hs, S32, ua, ub), ua >= ub);
            assert_eq!(icmp(CmpOp::Eq, ITy::U32, ua, ub), a == b);
        }
    }
}

/// Every pair of 16-bit values for `lt.s16`, `lo.u16`, `eq.b16`.
#[test]
#[cfg_attr(debug_assertions, ignore = "2^32 pairs: run with --release")]
fn setp_16bit_every_pair() {
    for a in 0..=0xffffu64 {
        let sa = a as u16 as i16;
        for b in 0..=0xffffu64 {
            let sb = b as u16 as i16;
            assert_eq!(icmp(CmpOp::Lt, S16, a, b), sa < sb);
            assert_eq!(icmp(CmpOp::Lo, U16, a, b), a < b);
            assert_eq!(icmp(CmpOp::Eq, U16, a, b), a == b);
        }
    }
}

#[test]
fn int_arith_table() {
    assert_eq!(ibin(IBinOp::Add, S32, 0x7fff_ffff, 1), Ok(0x8000_0000));
    assert_eq!(ibin(IBinOp::AddSat, S32, 0x7fff_ffff, 1), Ok(0x7fff_ffff));
    assert_eq!(ibin(IBinOp::SubSat, S32, 0x8000_0000, 1), Ok(0x8000_0000));
    assert_eq!(ibin(IBinOp::MulHi, ITy::U32, 0xffff_ffff, 0xffff_ffff), Ok(0xffff_fffe));
    assert_eq!(ibin(IBinOp::MulHi, S32, 0xffff_ffff, 0xffff_ffff), Ok(0));
    assert_eq!(ibin(IBinOp::MulWide, S32, 0xffff_ffff, 2), Ok((-2i64) as u64));
    assert_eq!(ibin(IBinOp::Div, S32, (-7i32) as u32 as u64, 2), Ok((-3i32) as u32 as u64));
    assert_eq!(ibin(IBinOp::Rem, S32, (-7i32) as u32 as u64, 2), Ok((-1i32) as u32 as u64));
    assert_eq!(ibin(IBinOp::Div, S32, 1, 0), Err(AluError::DivideByZero));
    assert_eq!(ibin(IBinOp::Shl, ITy::U32, 1, 32), Ok(0));
    assert_eq!(ibin(IBinOp::Shr, S32, 0x8000_0000, 40), Ok(0xffff_ffff));
    assert_eq!(ibin(IBinOp::Shr, ITy::U32, 0x8000_0000, 31), Ok(1));
    assert_eq!(iun(IUnOp::Clz, ITy::U32, 1), 31);
    assert_eq!(iun(IUnOp::Brev, ITy::U32, 1), 0x8000_0000);
    assert_eq!(iun(IUnOp::Bfind, S32, 0xffff_ffff), 0xffff_ffff);
    assert_eq!(iun(IUnOp::Abs, S32, 0x8000_0000), 0x8000_0000);
}

#[test]
fn fma_is_fused() {
    // (1 + 2^-12)^2 - (1 + 2^-11): the unfused product rounds away 2^-24.
    let a = 1.0f32 + f32::EPSILON * 2048.0;
    let c = -(1.0f32 + f32::EPSILON * 4096.0);
    let fused = f32::from_bits(fma(FTy::F32, false, false, a.to_bits() as u64, a.to_bits() as u64, c.to_bits() as u64) as u32);
    assert_eq!(fused, (2.0f64.powi(-24)) as f32);
}

#[test]
fn float_min_max_nan_and_zero() {
    let nan = f32::NAN.to_bits() as u64;
    let one = 1.0f32.to_bits() as u64;
    assert_eq!(fbin(FBinOp::Min, FTy::F32, false, false, nan, one), one);
    assert_eq!(fbin(FBinOp::Max, FTy::F32, false, false, one, nan), one);
    assert_eq!(fbin(FBinOp::Min, FTy::F32, false, false, nan, nan), F32_CANON_NAN as u64);
}

#[test]
fn directed_rounding_matches_hand_values() {
    use crate::softfloat::{add, F32};
    // 1 + 2^-30 in f32: rn/rz/rm give 1, rp gives the next float up.
    let x = 2f64.powi(-30);
    assert_eq!(add(1.0, x, false, F32, Rounding::Rz), 1.0);
    assert_eq!(add(1.0, x, false, F32, Rounding::Rm), 1.0);
    assert_eq!(add(1.0, x, false, F32, Rounding::Rp), (1.0f32 + f32::EPSILON) as f64);
    assert_eq!(add(-1.0, -x, false, F32, Rounding::Rm), -(1.0f32 + f32::EPSILON) as f64);
    // Overflow: rz gives MAX, rp gives +inf.
    assert_eq!(add(f32::MAX as f64, f32::MAX as f64, false, F32, Rounding::Rz), f32::MAX as f64);
    assert_eq!(add(f32::MAX as f64, f32::MAX as f64, false, F32, Rounding::Rp), f64::INFINITY);
}

#[test]
fn cvt_float_to_int_saturates_and_nan_is_zero() {
    use crate::cvt::cvt;
    use crate::cvt::CvtTy;
    let f = |x: f32| x.to_bits() as u64;
    assert_eq!(cvt(CvtTy::I(S32), CvtTy::F(FTy::F32), Some(Rounding::Rzi), false, false, f(3e9)), 0x7fff_ffff);
    assert_eq!(cvt(CvtTy::I(S32), CvtTy::F(FTy::F32), Some(Rounding::Rzi), false, false, f(f32::NAN)), 0);
    assert_eq!(cvt(CvtTy::I(ITy::U32), CvtTy::F(FTy::F32), Some(Rounding::Rzi), false, false, f(-5.0)), 0);
    assert_eq!(cvt(CvtTy::I(S32), CvtTy::F(FTy::F32), Some(Rounding::Rni), false, false, f(2.5)), 2);
    assert_eq!(cvt(CvtTy::I(S32), CvtTy::F(FTy::F32), Some(Rounding::Rmi), false, false, f(-2.5)), (-3i32) as u32 as u64);
    assert_eq!(cvt(CvtTy::I(ITy { bits: 64, signed: true }), CvtTy::I(S32), None, false, false, 0xffff_ffff), u64::MAX);
}

/// `min`/`max` with `.NaN` and `.xorsign.abs` (PTX ISA 9.7.3 max/min,
/// 9.7.4 for the half types), on hand-derived cases from the manual's
/// pseudo-code: NaN propagation, -0 < +0, the XOR of the sign bits (NaN
/// inputs' signs included) on a non-NaN result, and `.ftz`.
#[test]
fn min_max_nan_xorsign_cases() {
    let mm = |max, nan, xorsign_abs| FBinOp::MinMax { max, nan, xorsign_abs };
    let f = |ftz, op, a: u32, b: u32| alu_f32(op, ftz, a, b);
    const NAN: u32 = 0x7fc0_0000;
    const NEG_NAN: u32 = 0xffc0_0001;
    const CANON: u32 = 0x7fff_ffff;
    let (one, m_one, two, m_three, pz, nz) = (0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc040_0000, 0, 0x8000_0000);
    // .NaN: any NaN input gives the canonical NaN; plain max ignores one NaN.
    assert_eq!(f(false, mm(true, true, false), one, NAN), CANON);
    assert_eq!(f(false, mm(true, true, false), NEG_NAN, one), CANON);
    assert_eq!(f(false, mm(false, true, false), NAN, NAN), CANON);
    assert_eq!(f(false, FBinOp::Max, one, NAN), one);
    assert_eq!(f(false, FBinOp::Max, NAN, NEG_NAN), CANON);
    // Numbers: the larger / smaller, -0 < +0 in both orders.
    assert_eq!(f(false, mm(true, true, false), m_one, two), two);
    assert_eq!(f(false, mm(false, true, false), m_one, two), m_one);
    assert_eq!(f(false, mm(true, true, false), nz, pz), pz);
    assert_eq!(f(false, mm(true, true, false), pz, nz), pz);
    assert_eq!(f(false, mm(false, true, false), pz, nz), nz);
    assert_eq!(f(false, mm(false, true, false), nz, pz), nz);
    assert_eq!(f(false, mm(true, true, false), 0xff80_0000, 0x7f80_0000), 0x7f80_0000);
    // .xorsign.abs: the larger (smaller) magnitude, sign = sign(a) ^ sign(b).
    assert_eq!(f(false, mm(true, false, true), m_three, two), 0xc040_0000); // -3
    assert_eq!(f(false, mm(false, false, true), m_three, two), 0xc000_0000); // -2
    assert_eq!(f(false, mm(true, false, true), m_three, 0xc000_0000), 0x4040_0000); // +3
    assert_eq!(f(false, mm(false, false, true), one, two), one);
    assert_eq!(f(false, mm(true, false, true), nz, pz), nz); // |-0| = |+0|, sign 1
    assert_eq!(f(false, mm(true, false, true), nz, nz), pz);
    // One NaN without .NaN: the other operand's magnitude, with the XOR of
    // both sign bits (the NaN's included).
    assert_eq!(f(false, mm(true, false, true), NEG_NAN, two), 0xc000_0000);
    assert_eq!(f(false, mm(true, false, true), NAN, 0xc000_0000), 0xc000_0000);
    assert_eq!(f(false, mm(true, false, true), NEG_NAN, 0xc000_0000), two);
    assert_eq!(f(false, mm(true, false, true), NAN, NEG_NAN), CANON);
    assert_eq!(f(false, mm(true, true, true), NEG_NAN, two), CANON);
    // .ftz flushes subnormal inputs to sign-preserving zero first.
    let sub = 0x0000_0001;
    let nsub = 0x8000_0001;
    assert_eq!(f(false, mm(true, true, false), sub, pz), sub);
    assert_eq!(f(true, mm(true, true, false), sub, nz), pz);
    assert_eq!(f(true, mm(false, true, false), nsub, pz), nz);
    assert_eq!(f(true, mm(true, false, true), nsub, 0x0000_0002), nz); // -0 and +0: sign 1 ^ 0
}

/// The half types: the same rules on `.f16`/`.bf16` bits, and per half on
/// `.f16x2`/`.bf16x2` (canonical NaN 0x7fff).
#[test]
fn min_max_nan_xorsign_half_cases() {
    let mm = |max, nan, xorsign_abs| FBinOp::MinMax { max, nan, xorsign_abs };
    for (ty, m_one, two, m_two, nan) in [(FTy::F16, 0xbc00u64, 0x4000u64, 0xc000u64, 0x7e00u64), (FTy::BF16, 0xbf80, 0x4000, 0xc000, 0x7fc0)] {
        assert_eq!(fbin(mm(true, true, false), ty, false, false, m_one, nan), 0x7fff);
        assert_eq!(fbin(mm(true, true, false), ty, false, false, m_one, two), two);
        assert_eq!(fbin(mm(false, true, false), ty, false, false, 0x0000, 0x8000), 0x8000);
        assert_eq!(fbin(mm(true, false, true), ty, false, false, m_one, two), m_two);
        assert_eq!(fbin(mm(false, false, true), ty, false, false, m_one, two), m_one);
        assert_eq!(fbin(mm(true, false, true), ty, false, false, nan | 0x8000, m_two), two);
        // Packed: the low halves, then the high halves.
        let a = m_one | (nan << 16);
        let b = two | (two << 16);
        assert_eq!(ext::half2(ext::H2Op::Bin(mm(true, true, false)), ty, false, false, a, b, 0), two | (0x7fff << 16));
        assert_eq!(ext::half2(ext::H2Op::Bin(mm(true, false, true)), ty, false, false, a, b, 0), m_two | (two << 16));
    }
}

/// An independent reference written from the manual's pseudo-code on
/// `.f32` bit patterns (integer ordering of sign-magnitude keys, no float
/// comparisons), against the ALU on specials and pseudo-random patterns.
#[test]
fn min_max_nan_xorsign_match_reference() {
    fn reference(max: bool, nan: bool, xs: bool, ftz: bool, a: u32, b: u32) -> u32 {
        let flush = |x: u32| if ftz && x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
        let (a, b) = (flush(a), flush(b));
        let sign = (a ^ b) & 0x8000_0000;
        let (a, b) = if xs { (a & 0x7fff_ffff, b & 0x7fff_ffff) } else { (a, b) };
        let is_nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
        let d = if (is_nan(a) && is_nan(b)) || (nan && (is_nan(a) || is_nan(b))) {
            return 0x7fff_ffff;
        } else if is_nan(a) {
            b
        } else if is_nan(b) {
            a
        } else {
            let key = |x: u32| if x >> 31 == 1 { -i64::from(x & 0x7fff_ffff) - 1 } else { i64::from(x) };
            if (key(a) > key(b)) == max { a } else { b }
        };
        if xs { (d & 0x7fff_ffff) | sign } else { d }
    }
    let mut pats: Vec<u32> = f32_specials().iter().map(|x| x.to_bits()).collect();
    pats.extend([0x7f80_0001, 0xff80_0001, 0x7fff_ffff, 0x8000_0000, 0x0000_0000, 0x3f80_0000, 0xbf80_0000]);
    let mut s = 0x1234_5678_9abc_def0u64;
    for _ in 0..4000 {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        pats.push((s >> 32) as u32);
    }
    for &a in &pats[..60] {
        for &b in &pats {
            for (max, nan, xs, ftz) in (0..16).map(|k| (k & 1 != 0, k & 2 != 0, k & 4 != 0, k & 8 != 0)) {
                if !nan && !xs {
                    continue;
                }
                let got = alu_f32(FBinOp::MinMax { max, nan, xorsign_abs: xs }, ftz, a, b);
                assert_eq!(got, reference(max, nan, xs, ftz, a, b), "max={max} nan={nan} xorsign.abs={xs} ftz={ftz} a={a:#010x} b={b:#010x}");
                let got = alu_f32(FBinOp::MinMax { max, nan, xorsign_abs: xs }, ftz, b, a);
                assert_eq!(got, reference(max, nan, xs, ftz, b, a), "max={max} nan={nan} xorsign.abs={xs} ftz={ftz} a={b:#010x} b={a:#010x}");
            }
        }
    }
}

fn alu_f32(op: FBinOp, ftz: bool, a: u32, b: u32) -> u32 {
    fbin(op, FTy::F32, ftz, false, a as u64, b as u64) as u32
}
