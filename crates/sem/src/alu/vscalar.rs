//! The scalar video instructions (PTX ISA 9.7.16.1): `vadd`, `vsub`,
//! `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`, `vset` ([`video_scalar`])
//! and `vmad` ([`vmad`]), as the manual's pseudo-code defines them.
//!
//! Each source is a byte, a halfword or the whole word of its register
//! (its selector), sign- or zero-extended by its type to 33 bits; the
//! primary operation is done on the exact values; `.sat` clamps the result
//! to the destination's range (the selected part's, when merging); then
//! the secondary operation (`.add`, `.min`, `.max` with `c`, taken with the
//! destination's sign) or the merge into `c`'s selected part, and the low
//! 32 bits are the result.
//!
//! Where the manual's pseudo-code leaves a choice, this module takes:
//! - the shifts on the exact value (`ta << 32` is not cut to 34 bits
//!   before `.sat` clamps it);
//! - `vset`, which has no destination type, takes `c` as unsigned in its
//!   secondary `.min`/`.max` (its results 0 and 1 are unsigned).

use ptxsim_isa::{VideoCmp, VideoOp2, VideoSel, ClampMode, VmadScale};

/// The primary operation of [`video_scalar`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VPrimary {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    Shl(ClampMode),
    Shr(ClampMode),
    Set(VideoCmp),
}

/// What follows the primary operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VSecond {
    /// The result as it is (`d`).
    None,
    /// `.add`, `.min` or `.max` with `c`.
    Op(VideoOp2),
    /// Merged into `c`'s selected part (`d.b1`, `d.h0`).
    Merge(VideoSel),
}

/// A decoded scalar video instruction other than `vmad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VScalar {
    pub op: VPrimary,
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    /// `None`: the whole word.
    pub asel: Option<VideoSel>,
    pub bsel: Option<VideoSel>,
    pub second: VSecond,
}

/// `partSelectSignExtend`: the selected part of `x`, extended by `signed`.
fn part(x: u64, signed: bool, sel: Option<VideoSel>) -> i128 {
    let (off, w) = sel.map_or((0, 32), VideoSel::field);
    let v = (x >> off) & ((1u64 << w) - 1);
    if signed && v >> (w - 1) == 1 {
        v as i128 - (1i128 << w)
    } else {
        v as i128
    }
}

/// The range of a `bits`-bit destination.
fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// One lane of `vadd` ... `vset`: `d` from `a`, `b` and `c`.
pub fn video_scalar(v: VScalar, a: u64, b: u64, c: u64) -> u64 {
    let ta = part(a, v.a_signed, v.asel);
    // The shifts' amount is always unsigned (`.btype` is `.u32`).
    let tb = part(b, v.b_signed && !matches!(v.op, VPrimary::Shl(_) | VPrimary::Shr(_)), v.bsel);
    let amount = |m: ClampMode| match m {
        ClampMode::Clamp => tb.min(32) as u32,
        ClampMode::Wrap => (tb & 0x1f) as u32,
    };
    let mut t = match v.op {
        VPrimary::Add => ta + tb,
        VPrimary::Sub => ta - tb,
        VPrimary::Absdiff => (ta - tb).abs(),
        VPrimary::Min => ta.min(tb),
        VPrimary::Max => ta.max(tb),
        VPrimary::Shl(m) => ta << amount(m),
        VPrimary::Shr(m) => ta >> amount(m),
        VPrimary::Set(cmp) => i128::from(match cmp {
            VideoCmp::Eq => ta == tb,
            VideoCmp::Ne => ta != tb,
            VideoCmp::Lt => ta < tb,
            VideoCmp::Le => ta <= tb,
            VideoCmp::Gt => ta > tb,
            VideoCmp::Ge => ta >= tb,
        }),
    };
    // optSaturate: the destination's range, or its selected part's.
    if v.sat {
        let bits = match v.second {
            VSecond::Merge(s) => s.field().1,
            _ => 32,
        };
        let (lo, hi) = range(bits, v.d_signed);
        t = t.clamp(lo, hi);
    }
    let tc = part(c, v.d_signed, None);
    let d = match v.second {
        VSecond::None => t,
        VSecond::Op(VideoOp2::Add) => t + tc,
        VSecond::Op(VideoOp2::Min) => t.min(tc),
        VSecond::Op(VideoOp2::Max) => t.max(tc),
        // optMerge: the low bits of the result into `c`'s selected part.
        VSecond::Merge(s) => {
            let (off, w) = s.field();
            let mask = ((1u64 << w) - 1) << off;
            return (c & 0xffff_ffff & !mask) | ((t as u64) << off & mask);
        }
    };
    d as u64 & 0xffff_ffff
}

/// A decoded `vmad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vmad {
    pub a_signed: bool,
    pub b_signed: bool,
    /// `.po`: plus one.
    pub po: bool,
    pub sat: bool,
    pub scale: Option<VmadScale>,
    pub asel: Option<VideoSel>,
    pub bsel: Option<VideoSel>,
    /// Exactly one of `a` and `b` is negated: the product is.
    pub neg_ab: bool,
    /// `c` is negated.
    pub neg_c: bool,
}

/// One lane of `vmad`: `(a*b) + c` with the manual's negation, plus-one,
/// scaling and saturation (PTX ISA 9.7.16.1.3).
pub fn vmad(v: Vmad, a: u64, b: u64, c: u64) -> u64 {
    let (ta, tb) = (part(a, v.a_signed, v.asel), part(b, v.b_signed, v.bsel));
    let signed = v.a_signed || v.b_signed || v.neg_ab || v.neg_c;
    let mut t = ta * tb;
    let mut c = c as u32;
    let mut lsb = 0;
    if v.po {
        lsb = 1;
    } else if v.neg_ab {
        t = !t;
        lsb = 1;
    } else if v.neg_c {
        c = !c;
        lsb = 1;
    }
    let c = if signed { c as i32 as i128 } else { c as i128 };
    let t = t + c + lsb;
    let r = match v.scale {
        None => t,
        Some(VmadScale::Shr7) => t >> 7,
        Some(VmadScale::Shr15) => t >> 15,
    } as u64;
    if !v.sat {
        return r & 0xffff_ffff;
    }
    // The 64-bit result, clamped to the final sign's 32-bit range.
    let r = if signed { (r as i64 as i128).clamp(i32::MIN as i128, i32::MAX as i128) } else { (r as i128).min(u32::MAX as i128) };
    r as u64 & 0xffff_ffff
}

#[cfg(test)]
mod tests {
    //! Expected values worked out by hand from the manual's pseudo-code
    //! (PTX ISA 9.7.16.1: partSelectSignExtend, optSaturate,
    //! optSecondaryOp, optMerge; vmad's own listing).
    use super::*;
    use VideoSel::*;

    fn v(op: VPrimary, [d_signed, a_signed, b_signed]: [bool; 3], sat: bool, sels: (Option<VideoSel>, Option<VideoSel>), second: VSecond) -> VScalar {
        VScalar { op, d_signed, a_signed, b_signed, sat, asel: sels.0, bsel: sels.1, second }
    }
    const S: bool = true;
    const U: bool = false;
    const W: (Option<VideoSel>, Option<VideoSel>) = (None, None);

    #[test]
    fn arithmetic_selectors_and_saturation() {
        // vadd.s32.u32.s32.sat d, a.b0, b.h0: 255 + (-32768)
        let x = v(VPrimary::Add, [S, U, S], true, (Some(B0), Some(H0)), VSecond::None);
        assert_eq!(video_scalar(x, 0x1234_56ff, 0x0000_8000, 0), 0xffff_80ff);
        // vsub.u32: 1 - 2, clamped to 0 with .sat, wrapped without
        assert_eq!(video_scalar(v(VPrimary::Sub, [U, U, U], true, W, VSecond::None), 1, 2, 0), 0);
        assert_eq!(video_scalar(v(VPrimary::Sub, [U, U, U], false, W, VSecond::None), 1, 2, 0), 0xffff_ffff);
        // 33-bit inputs: 0xffffffff + 1 is 2^32, clamped to U32_MAX, else 0
        assert_eq!(video_scalar(v(VPrimary::Add, [U, U, U], true, W, VSecond::None), 0xffff_ffff, 1, 0), 0xffff_ffff);
        assert_eq!(video_scalar(v(VPrimary::Add, [U, U, U], false, W, VSecond::None), 0xffff_ffff, 1, 0), 0);
        assert_eq!(video_scalar(v(VPrimary::Add, [S, S, S], true, W, VSecond::None), 0x7fff_ffff, 1, 0), 0x7fff_ffff);
        // vabsdiff.s32.s32.s32.sat d.h0, a.b0, b.b2, c: |-128 - 127| = 255,
        // within the signed halfword, merged into c's h0
        let x = v(VPrimary::Absdiff, [S, S, S], true, (Some(B0), Some(B2)), VSecond::Merge(H0));
        assert_eq!(video_scalar(x, 0x80, 0x007f_0000, 0xabcd_1234), 0xabcd_00ff);
        // ... merged into b0, .sat clamps to the signed byte: 127
        let x = v(VPrimary::Absdiff, [S, S, S], true, (Some(B0), Some(B2)), VSecond::Merge(B0));
        assert_eq!(video_scalar(x, 0x80, 0x007f_0000, 0xabcd_1234), 0xabcd_127f);
        // merge into b3 without .sat: the low byte of 255 + 1 = 256 is 0
        let x = v(VPrimary::Add, [U, U, U], false, (Some(B0), Some(B0)), VSecond::Merge(B3));
        assert_eq!(video_scalar(x, 0xff, 1, 0x1122_3344), 0x0022_3344);
        // the signed halfword h1: 0x8000 is -32768
        let x = v(VPrimary::Max, [S, S, S], false, (Some(H1), None), VSecond::None);
        assert_eq!(video_scalar(x, 0x8000_0000, 0xffff_fff0, 0), 0xffff_fff0);
    }

    #[test]
    fn secondary_operations_take_c_with_the_destination_sign() {
        // vmin.s32.s32.s32.add: min(-5, 3) + 10
        assert_eq!(video_scalar(v(VPrimary::Min, [S, S, S], false, W, VSecond::Op(VideoOp2::Add)), 0xffff_fffb, 3, 10), 5);
        // vmax.u32...max with c = 0xffffffff: unsigned c is the larger
        assert_eq!(video_scalar(v(VPrimary::Max, [U, U, U], false, W, VSecond::Op(VideoOp2::Max)), 1, 2, 0xffff_ffff), 0xffff_ffff);
        // vmax.s32.u32.u32.max: the same c is -1
        assert_eq!(video_scalar(v(VPrimary::Max, [S, U, U], false, W, VSecond::Op(VideoOp2::Max)), 1, 2, 0xffff_ffff), 2);
        assert_eq!(video_scalar(v(VPrimary::Max, [S, U, U], false, W, VSecond::Op(VideoOp2::Min)), 1, 2, 0xffff_ffff), 0xffff_ffff);
        // .sat applies before the secondary operation: clamp(2^32) + 1 wraps
        assert_eq!(video_scalar(v(VPrimary::Add, [U, U, U], true, W, VSecond::Op(VideoOp2::Add)), 0xffff_ffff, 1, 1), 0);
    }

    #[test]
    fn shifts_clamp_or_wrap_the_amount() {
        let shl = |m, sat, a, b| video_scalar(v(VPrimary::Shl(m), [U, U, U], sat, W, VSecond::None), a, b, 0);
        assert_eq!(shl(ClampMode::Clamp, false, 1, 40), 0);
        assert_eq!(shl(ClampMode::Clamp, true, 1, 40), 0xffff_ffff);
        assert_eq!(shl(ClampMode::Wrap, false, 1, 40), 0x100);
        // vshr.s32.s32.u32: arithmetic on a signed a; 32 after clamping
        let shr = |m, signed, a, b| video_scalar(v(VPrimary::Shr(m), [signed, signed, U], false, W, VSecond::None), a, b, 0);
        assert_eq!(shr(ClampMode::Clamp, S, 0x8000_0000, 100), 0xffff_ffff);
        assert_eq!(shr(ClampMode::Clamp, U, 0x8000_0000, 100), 0);
        assert_eq!(shr(ClampMode::Wrap, S, 0xffff_ff00, 36), 0xffff_fff0);
        // the amount is unsigned even if the instruction's b says signed
        let x = v(VPrimary::Shl(ClampMode::Clamp), [U, U, S], false, (None, Some(H1)), VSecond::None);
        assert_eq!(video_scalar(x, 1, 0xffff_0000, 0), 0);
    }

    #[test]
    fn vset_compares_the_extended_values() {
        let set = |cmp, a_signed, second, a, b, c| video_scalar(v(VPrimary::Set(cmp), [U, a_signed, U], false, W, second), a, b, c);
        assert_eq!(set(VideoCmp::Lt, S, VSecond::None, 0xffff_ffff, 0, 0), 1);
        assert_eq!(set(VideoCmp::Lt, U, VSecond::None, 0xffff_ffff, 0, 0), 0);
        assert_eq!(set(VideoCmp::Ge, U, VSecond::Merge(B3), 5, 5, 0x00ff_ffff), 0x01ff_ffff);
        assert_eq!(set(VideoCmp::Ne, U, VSecond::Op(VideoOp2::Add), 1, 2, 10), 11);
        assert_eq!(set(VideoCmp::Eq, U, VSecond::Op(VideoOp2::Max), 1, 2, 0xffff_ffff), 0xffff_ffff);
    }

    fn m(a_signed: bool, b_signed: bool, neg: (bool, bool)) -> Vmad {
        Vmad { a_signed, b_signed, po: false, sat: false, scale: None, asel: None, bsel: None, neg_ab: neg.0, neg_c: neg.1 }
    }

    #[test]
    fn vmad_negation_plus_one_scale_and_saturation() {
        // (u32 * u32) + u32: 0xffffffff^2 + 1 = 0xfffffffe_00000002
        assert_eq!(vmad(m(U, U, (false, false)), 0xffff_ffff, 0xffff_ffff, 1), 2);
        assert_eq!(vmad(Vmad { sat: true, ..m(U, U, (false, false)) }, 0xffff_ffff, 0xffff_ffff, 1), 0xffff_ffff);
        // .po: 3 * 4 + 5 + 1
        assert_eq!(vmad(Vmad { po: true, ..m(U, U, (false, false)) }, 3, 4, 5), 18);
        // -(a*b) + c and (a*b) - c, both signed
        assert_eq!(vmad(m(U, U, (true, false)), 3, 4, 20), 8);
        assert_eq!(vmad(m(U, U, (false, true)), 3, 4, 20), 0xffff_fff8);
        assert_eq!(vmad(Vmad { sat: true, ..m(U, U, (false, true)) }, 3, 4, 20), 0xffff_fff8);
        // signed saturation
        assert_eq!(vmad(Vmad { sat: true, ..m(S, S, (false, false)) }, 0x7fff_ffff, 0x7fff_ffff, 0), 0x7fff_ffff);
        // .shr7 and .shr15
        assert_eq!(vmad(Vmad { scale: Some(VmadScale::Shr7), ..m(U, U, (false, false)) }, 0x100, 0x1_0000, 0), 0x2_0000);
        assert_eq!(vmad(Vmad { scale: Some(VmadScale::Shr15), ..m(U, U, (true, false)) }, 1, 0x1_0000, 0), 0xffff_fffe);
        // selectors: byte 1 of a (255) times halfword 1 of b (2)
        assert_eq!(vmad(Vmad { asel: Some(B1), bsel: Some(H1), ..m(U, U, (false, false)) }, 0xff00, 0x2_0000, 0), 510);
    }
}
