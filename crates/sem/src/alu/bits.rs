//! Lane-wise semantics of the bit-manipulation and 24-bit multiply
//! instructions: `lop3.b32`, `shf.{l,r}.{wrap,clamp}.b32`,
//! `mul24.{lo,hi}.{u32,s32}` and `mad24.{lo,hi}{.sat}.{u32,s32}`, on raw
//! register bits like the rest of [`crate::alu`]. Each function follows the
//! semantics block of its PTX ISA section (9.7.8.6 `lop3`, 9.7.8.7 `shf`,
//! 9.7.1.5 `mul24`, 9.7.1.6 `mad24`); `crates/exec/tests/all/isa_bits.rs` checks
//! them, and kernels using them, against independent computations.

/// Which of these instructions, with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitsOp {
    /// `lop3.b32 d, a, b, c, immLut`: bit `i` of `d` is bit
    /// `4·a[i] + 2·b[i] + c[i]` of the look-up table.
    Lop3(u8),
    /// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: a funnel shift of the 64-bit
    /// value `b:a` by `c` (modulo 32 with `.wrap`, at most 32 with `.clamp`).
    Shf { left: bool, clamp: bool },
    /// `mul24` (`mad: false`) and `mad24` (`mad: true`): the product of the
    /// low 24 bits of `a` and `b` (sign-extended with `.s32`), its bits
    /// 31..0 (`.lo`) or 47..16 (`.hi`), plus `c` for `mad24`; `.sat`
    /// (only `mad24.hi.sat.s32`) clamps the sum to the `s32` range.
    Mul24 { hi: bool, signed: bool, sat: bool, mad: bool },
}

/// `lop3.b32`.
#[inline(always)]
pub fn lop3(lut: u8, a: u64, b: u64, c: u64) -> u64 {
    let (a, b, c) = (a as u32, b as u32, c as u32);
    let mut d = 0u32;
    // The union of the minterms the table selects.
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            d |= x & y & z;
        }
    }
    d as u64
}

/// `shf.{l,r}.{wrap,clamp}.b32`: PTX ISA `n = clamp ? min(c, 32) : c & 0x1f`;
/// `shf.l` gives the 32 most significant bits of `(b:a) << n`, `shf.r` the
/// 32 least significant bits of `(b:a) >> n`.
#[inline(always)]
pub fn shf(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let c = c as u32;
    let n = if clamp { c.min(32) } else { c & 31 };
    let v = ((b as u32 as u64) << 32) | a as u32 as u64;
    if left {
        ((v << n) >> 32) as u32 as u64
    } else {
        (v >> n) as u32 as u64
    }
}

/// `mul24` / `mad24` (see [`BitsOp::Mul24`]); `c` is ignored by `mul24`.
#[inline(always)]
pub fn mul24(hi: bool, signed: bool, sat: bool, mad: bool, a: u64, b: u64, c: u64) -> u64 {
    let t: i64 = if signed {
        let s = |x: u64| ((x as u32) << 8) as i32 as i64 >> 8;
        s(a) * s(b)
    } else {
        ((a & 0xff_ffff) * (b & 0xff_ffff)) as i64
    };
    let part = if hi { (t >> 16) as u32 } else { t as u32 };
    if !mad {
        return part as u64;
    }
    if sat && signed {
        // The sum of the two signed 32-bit values, clamped.
        let s = part as i32 as i64 + c as u32 as i32 as i64;
        return s.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32 as u64;
    }
    part.wrapping_add(c as u32) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_examples() {
        // PTX ISA lop3: F = (a & b & c) has immLut 0xF0 & 0xCC & 0xAA = 0x80.
        assert_eq!(lop3(0x80, 0xffff_0000, 0xff00_ff00, 0xf0f0_f0f0), 0xf000_0000);
        // shf.l.wrap with a == b is a rotate.
        assert_eq!(shf(true, false, 0x8000_0001, 0x8000_0001, 1), 0x0000_0003);
        // shf.r.clamp by 32 or more gives b.
        assert_eq!(shf(false, true, 0x1234_5678, 0x9abc_def0, 40), 0x9abc_def0);
        // mul24.lo.s32 of -1 (0xffffff as 24 bits) and 2.
        assert_eq!(mul24(false, true, false, false, 0x00ff_ffff, 2, 0), 0xffff_fffe);
    }
}
