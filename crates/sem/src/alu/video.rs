//! The SIMD video instructions (PTX ISA 9.7.16.2): `vadd2`, `vsub2`,
//! `vavrg2`, `vabsdiff2`, `vmin2`, `vmax2`, `vset2` on two 16-bit elements
//! and their `4` forms on four 8-bit elements, which nvcc emits for the
//! SIMD intrinsics (`__vabsdiffu4`, `__vsadu2`, ...). Each element of `a`
//! and `b` is taken with its operand's signedness, the operation is done
//! on the exact values, `.sat` clamps to the destination's element range;
//! then either the results of the elements in `.mask` are added to `c`
//! (`.add`, the secondary accumulate) or they replace those elements of
//! `c` (the secondary SIMD merge). Each operand selector (`a.h10`,
//! `b.b7654`, ...) names, element by element from the highest, which of the
//! eight bytes (four halfwords) of `b:a` feeds it (0-3 are `a`'s bytes, 4-7
//! `b`'s; halfwords 0-1 `a`'s, 2-3 `b`'s); `d`'s mask (`d.h0`, `d.b30`, ...)
//! lists the elements written or accumulated. The defaults: `a` and `b` in
//! element order, every element.

/// The primary operation and the comparison of a SIMD video instruction
/// (the rows' types, `ptxsim_isa`).
pub use ptxsim_isa::{VideoCmp, VideoOp};

/// A decoded SIMD video instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Video {
    pub op: VideoOp,
    /// Four 8-bit elements (`vop4`), else two 16-bit ones (`vop2`).
    pub four: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    /// The destination's signedness (the `.sat` range).
    pub d_signed: bool,
    pub sat: bool,
    /// `.add`: the secondary accumulate; else the SIMD merge with `c`.
    pub acc: bool,
    /// Bit `i`: element `i` is written (merge) or added (`.add`).
    pub mask: u8,
    /// Element `i`'s source in bits `4i..4i+4`: an index into the bytes
    /// (halfwords) of `b:a`.
    pub asel: u16,
    pub bsel: u16,
}

/// The selector of an operand from the digits of its component (`10` of
/// `.h10`, `7654` of `.b7654`: [`ptxsim_isa::simd_selector_digits`]), or
/// the default when absent; `None` when the digits are not a selector of
/// `n` elements (`four`: bytes 0-7, else halfwords 0-3).
pub fn selector(digits: Option<&str>, four: bool, default_b: bool) -> Option<u16> {
    let n = if four { 4 } else { 2 };
    let Some(digits) = digits else {
        let first = if default_b { n } else { 0 };
        return Some((0..n).fold(0u16, |acc, i| acc | ((first + i) as u16) << (4 * i)));
    };
    if digits.len() != n {
        return None;
    }
    let mut sel = 0u16;
    // Digits name the elements from the highest down.
    for (k, ch) in digits.chars().enumerate() {
        let v = ch.to_digit(10)?;
        if v >= 2 * n as u32 {
            return None;
        }
        sel |= (v as u16) << (4 * (n - 1 - k));
    }
    Some(sel)
}

/// The destination mask from the digits of `d`'s component (`0` of `.h0`,
/// `10` of `.h10`, `320` of `.b320`, ...): the elements it lists, each
/// once, highest first; all when absent.
pub fn dest_mask(digits: Option<&str>, four: bool) -> Option<u8> {
    let n = if four { 4 } else { 2 };
    let Some(digits) = digits else { return Some((1u8 << n) - 1) };
    let mut mask = 0u8;
    let mut last = None;
    for ch in digits.chars() {
        let v = ch.to_digit(10)?;
        if v >= n as u32 || last.is_some_and(|l| v >= l) {
            return None;
        }
        last = Some(v);
        mask |= 1 << v;
    }
    (mask != 0).then_some(mask)
}

impl Video {
    /// The instruction with every element written (or accumulated) and `a`
    /// and `b` in element order (the defaults when no selector is written).
    pub fn new(op: VideoOp, four: bool, [d_signed, a_signed, b_signed]: [bool; 3], sat: bool, acc: bool) -> Video {
        let n = if four { 4 } else { 2 };
        let order = |first: u16| (0..n).fold(0u16, |s, i| s | (first + i) << (4 * i));
        Video { op, four, a_signed, b_signed, d_signed, sat, acc, mask: (1 << n) - 1, asel: order(0), bsel: order(n) }
    }
}

/// Element `i` of the selected source: its index in `b:a` from `sel`.
fn pick(a: u64, b: u64, sel: u16, i: u32, bits: u32, signed: bool) -> i64 {
    let k = ((sel >> (4 * i)) & 0xf) as u32;
    let both = (a & 0xffff_ffff) | (b & 0xffff_ffff) << 32;
    elem(both, k, bits, signed)
}

/// Element `i` of `x` (`bits` wide), sign-extended when `signed`.
fn elem(x: u64, i: u32, bits: u32, signed: bool) -> i64 {
    let v = (x >> (i * bits)) & ((1 << bits) - 1);
    if signed && v >> (bits - 1) == 1 {
        v as i64 - (1 << bits)
    } else {
        v as i64
    }
}

/// One lane of a SIMD video instruction: `d` from `a`, `b` and `c`.
pub fn video(v: Video, a: u64, b: u64, c: u64) -> u64 {
    let (n, bits) = if v.four { (4, 8) } else { (2, 16) };
    let emask = (1u64 << bits) - 1;
    let mut d = if v.acc { c & 0xffff_ffff } else { 0 };
    for i in 0..n {
        if v.mask >> i & 1 == 0 {
            // Not in the mask: the merge keeps `c`'s element, the
            // accumulate adds nothing.
            if !v.acc {
                d |= c & (emask << (i * bits));
            }
            continue;
        }
        let (x, y) = (pick(a, b, v.asel, i, bits, v.a_signed), pick(a, b, v.bsel, i, bits, v.b_signed));
        let mut t = match v.op {
            VideoOp::Add => x + y,
            VideoOp::Sub => x - y,
            VideoOp::Avrg => {
                let s = x + y;
                if s >= 0 {
                    (s + 1) >> 1
                } else {
                    s >> 1
                }
            }
            VideoOp::Absdiff => (x - y).abs(),
            VideoOp::Min => x.min(y),
            VideoOp::Max => x.max(y),
            VideoOp::Set(cmp) => (match cmp {
                VideoCmp::Eq => x == y,
                VideoCmp::Ne => x != y,
                VideoCmp::Lt => x < y,
                VideoCmp::Le => x <= y,
                VideoCmp::Gt => x > y,
                VideoCmp::Ge => x >= y,
            }) as i64,
        };
        if v.sat {
            let (lo, hi) = if v.d_signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
            t = t.clamp(lo, hi);
        }
        if v.acc {
            d = d.wrapping_add(t as u64) & 0xffff_ffff;
        } else {
            d |= (t as u64 & emask) << (i * bits);
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    use VideoOp::*;

    const U: [bool; 3] = [false; 3];
    const S: [bool; 3] = [true; 3];

    #[test]
    fn examples_from_the_intrinsics() {
        // __vabsdiffu4(0x10ff0080, 0x20010070): |0x10-0x20|, |0xff-0x01|, |0-0|, |0x80-0x70|
        assert_eq!(video(Video::new(Absdiff, true, U, false, false), 0x10ff_0080, 0x2001_0070, 0), 0x10fe_0010);
        // signed bytes: |(-1) - 1| = 2, |-128 - 127| = 255 (wraps to 0xff without .sat)
        assert_eq!(video(Video::new(Absdiff, true, S, false, false), 0x0000_ff80, 0x0000_017f, 0), 0x0000_02ff);
        // __vsadu2: c + |a.h0 - b.h0| + |a.h1 - b.h1|
        assert_eq!(video(Video::new(Absdiff, false, U, false, true), 0x0005_0100, 0x0002_0300, 7), 7 + 3 + 0x200);
        // saturating signed halves: 0x7fff + 1 clamps, -0x8000 + -1 clamps
        assert_eq!(video(Video::new(Add, false, S, true, false), 0x8000_7fff, 0xffff_0001, 0), 0x8000_7fff);
        // unsigned saturation of a difference: 1 - 2 clamps to 0
        assert_eq!(video(Video::new(Sub, true, U, true, false), 0x0101_0101, 0x0002_0200, 0), 0x0100_0001);
        // rounding average: (3 + 4 + 1) >> 1 = 4, (-3 + -4) >> 1 = -4 (0xfc)
        assert_eq!(video(Video::new(Avrg, true, S, false, false), 0x0000_fd03, 0x0000_fc04, 0), 0x0000_fc04);
        // vset: 1 per element that compares, merged into d
        assert_eq!(video(Video::new(Set(VideoCmp::Lt), true, U, false, false), 0x0102_0304, 0x0202_0204, 0xffff_ffff), 0x0100_0000);
        assert_eq!(video(Video::new(Set(VideoCmp::Gt), false, [false, true, true], false, true), 0x0001_ffff, 0x0000_0000, 10), 11);
    }

    #[test]
    fn selectors_and_masks() {
        // (each selector below is the digits of the component named in the comment)
        // vsub2.s32.s32.s32.sat r1.h0, r2.h10, r3.h32, r1 (the manual's example):
        // element 0 only, element 1 keeps c's
        let mut v = Video::new(Sub, false, S, true, false);
        v.mask = dest_mask(Some("0"), false).unwrap();
        v.asel = selector(Some("10"), false, false).unwrap();
        v.bsel = selector(Some("32"), false, true).unwrap();
        assert_eq!(video(v, 0x0000_0005, 0x0000_0007, 0xabcd_1234), 0xabcd_fffe);
        // vmin2.s32.u32.u32.add r1.h10, r2.h00, r3.h22, r1: a.h0 twice, b.h0 twice
        let mut v = Video::new(Min, false, [true, false, false], false, true);
        v.asel = selector(Some("00"), false, false).unwrap();
        v.bsel = selector(Some("22"), false, true).unwrap();
        assert_eq!(video(v, 0x0009_0003, 0x0001_0005, 100), 100 + 3 + 3);
        // bytes of b selected for a: .b7654 on a swaps the operands' roles
        let mut v = Video::new(Sub, true, U, false, false);
        v.asel = selector(Some("7654"), true, false).unwrap();
        v.bsel = selector(Some("3210"), true, true).unwrap();
        assert_eq!(video(v, 0x0101_0101, 0x0505_0505, 0), 0x0404_0404);
        assert_eq!(dest_mask(Some("320"), true), Some(0b1101));
        assert_eq!(dest_mask(Some("023"), true), None);
        assert_eq!(selector(Some("4"), false, false), None);
        assert_eq!(selector(Some("8765"), true, false), None);
    }
}
