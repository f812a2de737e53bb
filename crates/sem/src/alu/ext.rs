//! Lane-wise semantics of the less common scalar instructions, on raw bits
//! like the rest of [`crate::alu`]: the carry chain (`add.cc`, `addc`,
//! `sub.cc`, `subc`, `mad.cc`, `madc`), and the integer helpers `sad`,
//! `dp4a`, `dp2a`, `bmsk`, `szext`, `fns`, the float class test `testp`,
//! `cvt.pack`, the reduction of `redux.sync`, and the packed half-precision
//! arithmetic (`.f16x2`, `.bf16x2`) with the `cvt` that packs two `.f32`.
//!
//! Each function follows the semantics block of its PTX ISA section
//! (9.7.1 integer arithmetic, 9.7.2 extended-precision integer arithmetic,
//! 9.7.3 floating point); the tests in `crates/exec/tests/all/isa_scalar.rs`
//! check them against independent computations.

use super::{FBinOp, FTy, FUnOp, ITy};

/// Which operation a carry-chain instruction performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryKind {
    /// `add.cc`, `addc`: `d = a + b + CF`.
    Add,
    /// `sub.cc`, `subc`: `d = a - (b + borrow)`, the flag holding the
    /// carry of `a + !b + 1 - borrow` ([`carry`]).
    Sub,
    /// `mad.lo.cc`, `madc.lo`: `d = (a*b)<n-1..0> + c + CF`.
    MadLo,
    /// `mad.hi.cc`, `madc.hi`: `d = (a*b)<2n-1..n> + c + CF`.
    MadHi,
}

/// One carry-chain step on `ty` (32 or 64 bits): the result and the
/// carry-out written to CC.CF by `.cc`.
///
/// The carry of an addition is the carry out of the unsigned `n`-bit sum
/// (PTX ISA 9.7.2: "behaviour is the same for unsigned and signed
/// integers"). A subtraction is the addition `a + !b + CF` the hardware
/// computes (`IADD3` with a negated operand; `sub.cc` without a carry-in
/// adds 1): CF holds the *inverse* of the borrow the manual speaks of, 1
/// when `a >= b + borrow`, and `subc` subtracts the borrow `1 - CF`. Within
/// `sub.cc`/`subc` chains this is the manual's `d = a - (b + borrow)`; it
/// differs where an `addc` or `madc` reads a flag a subtraction wrote, as
/// nvcc's own `__int128` division does (`subc.cc` then `addc 0, 0` to test
/// for a borrow), which computes correct quotients only so. For `.hi` the
/// product is signed or unsigned per the type, and its high half is then
/// added as `n` bits.
#[inline]
pub fn carry(kind: CarryKind, ty: ITy, a: u64, b: u64, c: u64, cf: bool) -> (u64, bool) {
    let mk = ty.mask();
    let (a, b, c) = (a & mk, b & mk, c & mk);
    let n = ty.bits;
    let cin = cf as u128;
    match kind {
        CarryKind::Add => add_n(a, b, cin, n),
        CarryKind::Sub => {
            let sub = b as u128 + (1 - cin);
            let d = (a as u128).wrapping_sub(sub) as u64 & mk;
            (d, sub <= a as u128)
        }
        CarryKind::MadLo => add_n(a.wrapping_mul(b) & mk, c, cin, n),
        CarryKind::MadHi => {
            let hi = if ty.signed {
                let p = super::sext(a, n) as i128 * super::sext(b, n) as i128;
                (p >> n) as u64 & mk
            } else {
                ((a as u128 * b as u128) >> n) as u64 & mk
            };
            add_n(hi, c, cin, n)
        }
    }
}

fn add_n(x: u64, y: u64, cin: u128, n: u32) -> (u64, bool) {
    let s = x as u128 + y as u128 + cin;
    let mk = if n >= 64 { u64::MAX as u128 } else { (1u128 << n) - 1 };
    ((s & mk) as u64, s >> n != 0)
}

/// `sad.type d, a, b, c`: `d = c + |a - b|`, the difference taken in the
/// type's signedness, the sum wrapping at its width (PTX ISA 9.7.1.x sad).
#[inline]
pub fn sad(ty: ITy, a: u64, b: u64, c: u64) -> u64 {
    let diff = (ty.ext(a) - ty.ext(b)).unsigned_abs() as u64;
    diff.wrapping_add(c) & ty.mask()
}

/// Sign- or zero-extends the `bits`-bit field of `v` at `at`.
fn field(v: u64, at: u32, bits: u32, signed: bool) -> i64 {
    let x = (v >> at) & ((1u64 << bits) - 1);
    if signed {
        super::sext(x, bits)
    } else {
        x as i64
    }
}

/// `dp4a.atype.btype d, a, b, c`: the four byte products of `a` and `b`
/// (each byte extended per its type) added to `c`, wrapping at 32 bits.
#[inline]
pub fn dp4a(a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let mut d = c as u32 as i64;
    for i in 0..4 {
        d = d.wrapping_add(field(a, 8 * i, 8, a_signed) * field(b, 8 * i, 8, b_signed));
    }
    d as u64 & 0xffff_ffff
}

/// `dp2a.mode.atype.btype d, a, b, c`: the two 16-bit halves of `a` times
/// bytes 0, 1 (`.lo`) or 2, 3 (`.hi`) of `b`, added to `c`.
#[inline]
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let sel = if hi { 2 } else { 0 };
    let mut d = c as u32 as i64;
    for i in 0..2 {
        d = d.wrapping_add(field(a, 16 * i, 16, a_signed) * field(b, 8 * (sel + i), 8, b_signed));
    }
    d as u64 & 0xffff_ffff
}

/// `bmsk.mode.b32 d, a, b`: a mask of `b` one bits starting at bit `a`
/// (PTX ISA 9.7.1.x bmsk). `.clamp`: a position of 32 or more gives 0, a
/// width of 32 or more reaches bit 31; `.wrap`: both are taken modulo 32.
/// Bits past 31 are cut in both modes.
#[inline]
pub fn bmsk(clamp: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let (a1, b1) = (a & 31, b & 31);
    let sum = a1 + b1;
    let mut mask0 = u32::MAX << a1;
    let mut overflow = sum >= 32;
    if clamp {
        if a >= 32 {
            mask0 = 0;
            overflow = true;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        u32::MAX
    } else {
        u32::MAX << sum
    };
    (mask0 & !mask1) as u64
}

/// `szext.mode.type d, a, b`: the low `b` bits of `a`, sign-extended
/// (`.s32`) or zero-extended (`.u32`) to 32 bits (PTX ISA 9.7.1.x szext).
/// A width of 0 gives 0; one of 32 or more gives `a` with `.clamp` and
/// counts modulo 32 with `.wrap`.
#[inline]
pub fn szext(clamp: bool, signed: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let b1 = b & 31;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { u32::MAX << b1 };
    let sign = signed && b1 != 0 && !too_large && (a >> ((b1 - 1) & 31)) & 1 == 1;
    ((a & !mask) | if sign { mask } else { 0 }) as u64
}

/// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set
/// bit of `mask` counted from bit `base` upwards (`offset > 0`) or
/// downwards (`offset < 0`), bit `base` itself for `offset == 0` when it is
/// set; 0xffffffff when there is none. `None` when `base` is above 31,
/// which the manual leaves undefined.
#[inline]
pub fn fns(mask: u64, base: u64, offset: u64) -> Option<u64> {
    let (mask, base, offset) = (mask as u32, base as u32, offset as u32 as i32);
    if base > 31 {
        return None;
    }
    if offset == 0 {
        return Some(if mask >> base & 1 == 1 { base as u64 } else { 0xffff_ffff });
    }
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base as i32;
    let step = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if mask >> pos & 1 == 1 {
            if count == 0 {
                return Some(pos as u64);
            }
            count -= 1;
        }
        pos += step;
    }
    Some(0xffff_ffff)
}

/// The property `testp` tests (the row's choice, `ptxsim_isa::TestpOp`).
pub use ptxsim_isa::TestpOp;

/// `testp.op.type p, a` on the bits of an `.f32` (`f64 == false`) or
/// `.f64`: classified from the exponent and fraction fields. As the manual
/// says, +0 and -0 count as normal numbers.
#[inline]
pub fn testp(op: TestpOp, f64: bool, a: u64) -> bool {
    let (exp, frac) = if f64 { ((a >> 52) & 0x7ff, a & ((1 << 52) - 1)) } else { ((a >> 23) & 0xff, a & ((1 << 23) - 1)) };
    let max_exp = if f64 { 0x7ff } else { 0xff };
    let nan = exp == max_exp && frac != 0;
    let inf = exp == max_exp && frac == 0;
    let sub = exp == 0 && frac != 0;
    match op {
        TestpOp::Finite => exp != max_exp,
        TestpOp::Infinite => inf,
        TestpOp::Number => !nan,
        TestpOp::NotANumber => nan,
        TestpOp::Normal => exp != max_exp && !sub,
        TestpOp::Subnormal => sub,
    }
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`: `a` and `b`
/// saturated to the `bits`-bit type (signed or not), `b` in the low field,
/// `a` above it, and the rest of `d` taken from the low bits of `c` (the
/// 16-bit forms have no `c`).
#[inline]
pub fn cvt_pack(bits: u32, signed: bool, a: u64, b: u64, c: u64) -> u64 {
    let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
    let sat = |v: u64| (v as u32 as i32 as i64).clamp(lo, hi) as u64 & ((1u64 << bits) - 1);
    let packed = sat(b) | sat(a) << bits;
    (packed | (c << (2 * bits))) & 0xffff_ffff
}

/// The lane-wise instructions of this module with up to three sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane3Op {
    Sad(ITy),
    Dp4a { a_signed: bool, b_signed: bool },
    Dp2a { hi: bool, a_signed: bool, b_signed: bool },
    Bmsk { clamp: bool },
    Szext { clamp: bool, signed: bool },
    Fns,
    /// `cvt.pack.sat` to a `bits`-bit type.
    CvtPack { bits: u32, signed: bool },
    /// A SIMD video instruction (`vadd2` ... `vset4`, [`super::video`]).
    Video(super::video::Video),
    /// A scalar video instruction other than `vmad` ([`super::vscalar`]).
    VScalar(super::vscalar::VScalar),
    /// `vmad` ([`super::vscalar::vmad`]).
    Vmad(super::vscalar::Vmad),
    /// An 8-bit float `cvt` ([`super::fp8`]).
    Fp8 { op: super::fp8::Fp8Cvt, relu: bool },
    /// `add/min/max{.relu}` on `.u16x2`/`.s16x2` ([`packed16`]).
    Packed16 { op: P16Op, signed: bool, relu: bool },
    /// `min.relu.s32` / `max.relu.s32` ([`minmax_relu_s32`]).
    MinMaxReluS32 { max: bool },
    /// `add`, `sub`, `mul`, `fma` on `.f32x2` ([`f32x2`]).
    F32x2 { op: F2Op, ftz: bool, rnd: Option<super::Rounding> },
    /// `min`/`max{.ftz}{.NaN}{.abs}.f32 d, a, b, c` ([`min_max3_f32`]).
    MinMax3F32 { max: bool, nan: bool, abs: bool, ftz: bool },
}

/// `min{.ftz}{.NaN}{.abs}.f32 d, a, b, c` and `max` (PTX ISA 9.7.3.10,
/// 9.7.3.11, sm_100): the minimum (maximum) of three `.f32` values, with
/// `.abs` of their absolute values; the two-source instruction's rules for
/// NaNs (ignored unless all are, or any with `.NaN`: the canonical NaN),
/// signed zeros and `.ftz` apply, as to `min(min(a, b), c)`.
pub fn min_max3_f32(max: bool, nan: bool, abs: bool, ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    let op = match (nan, max) {
        (true, max) => super::FBinOp::MinMax { max, nan: true, xorsign_abs: false },
        (false, true) => super::FBinOp::Max,
        (false, false) => super::FBinOp::Min,
    };
    let v = |x: u64| if abs { x & 0x7fff_ffff } else { x & 0xffff_ffff };
    let ab = super::fbin(op, super::FTy::F32, ftz, false, v(a), v(b));
    super::fbin(op, super::FTy::F32, ftz, false, ab, v(c))
}

/// The operation of a packed `.f32x2` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F2Op {
    Add,
    Sub,
    Mul,
    Fma,
}

/// `add`/`sub`/`mul{.rnd}{.ftz}.f32x2 d, a, b` and `fma.rnd{.ftz}.f32x2 d,
/// a, b, c` (PTX ISA 9.7.3.1-4, sm_100): each 64-bit operand holds two
/// `.f32`, the first in its low 32 bits, and each half of `d` is the
/// `.f32` instruction on the same halves of the sources, with its
/// rounding (none: `.rn`) and `.ftz`.
pub fn f32x2(op: F2Op, ftz: bool, rnd: Option<super::Rounding>, a: u64, b: u64, c: u64) -> u64 {
    let half = |a: u64, b: u64, c: u64| -> u64 {
        let r = match op {
            F2Op::Add => super::fbin_rnd(FBinOp::Add, FTy::F32, ftz, false, rnd, a, b),
            F2Op::Sub => super::fbin_rnd(FBinOp::Sub, FTy::F32, ftz, false, rnd, a, b),
            F2Op::Mul => super::fbin_rnd(FBinOp::Mul, FTy::F32, ftz, false, rnd, a, b),
            F2Op::Fma => super::fma_rnd(FTy::F32, ftz, false, rnd, a, b, c),
        };
        r & 0xffff_ffff
    };
    let lo = |x: u64| x & 0xffff_ffff;
    half(lo(a), lo(b), lo(c)) | half(a >> 32, b >> 32, c >> 32) << 32
}

/// The operation of a packed 16-bit integer instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum P16Op {
    Add,
    Min,
    Max,
}

/// `add.{u16x2,s16x2}`, `min/max.u16x2`, `min/max{.relu}.s16x2` (PTX ISA
/// 9.7.1.1, 9.7.1.10, 9.7.1.11): the two halfwords of `a` and `b` (bits
/// 0-15 and 16-31) are taken as unsigned or signed 16-bit integers and
/// processed each on its own; `add` wraps modulo 2^16 (there is no `.sat`),
/// `.relu` clamps a negative result to 0. The result is the two halfwords
/// packed again, zero-extended.
#[inline]
pub fn packed16(op: P16Op, signed: bool, relu: bool, a: u64, b: u64) -> u64 {
    let half = |v: u64, i: u32| -> i32 {
        let h = (v >> (16 * i)) as u16;
        if signed {
            h as i16 as i32
        } else {
            h as i32
        }
    };
    let mut r = 0u64;
    for i in 0..2 {
        let (x, y) = (half(a, i), half(b, i));
        let v = match op {
            P16Op::Add => x + y,
            P16Op::Min => x.min(y),
            P16Op::Max => x.max(y),
        };
        let v = if relu { v.max(0) } else { v };
        r |= ((v as u32 & 0xffff) as u64) << (16 * i);
    }
    r
}

/// `min.relu.s32` and `max.relu.s32` (PTX ISA 9.7.1.10, 9.7.1.11): the
/// minimum (maximum) of `a` and `b` as signed 32-bit integers, and with
/// `.relu` a negative result clamped to 0.
#[inline]
pub fn minmax_relu_s32(max: bool, a: u64, b: u64) -> u64 {
    let (x, y) = (a as u32 as i32, b as u32 as i32);
    let v = if max { x.max(y) } else { x.min(y) };
    v.max(0) as u32 as u64
}

/// One lane of a [`Lane3Op`]; `None` where the manual leaves the result
/// undefined (`fns` with a base above 31).
#[inline]
pub fn lane3(op: Lane3Op, a: u64, b: u64, c: u64) -> Option<u64> {
    Some(match op {
        Lane3Op::Sad(ty) => sad(ty, a, b, c),
        Lane3Op::Dp4a { a_signed, b_signed } => dp4a(a_signed, b_signed, a, b, c),
        Lane3Op::Dp2a { hi, a_signed, b_signed } => dp2a(hi, a_signed, b_signed, a, b, c),
        Lane3Op::Bmsk { clamp } => bmsk(clamp, a, b),
        Lane3Op::Szext { clamp, signed } => szext(clamp, signed, a, b),
        Lane3Op::Fns => return fns(a, b, c),
        Lane3Op::CvtPack { bits, signed } => cvt_pack(bits, signed, a, b, c),
        Lane3Op::Video(v) => super::video::video(v, a, b, c),
        Lane3Op::VScalar(v) => super::vscalar::video_scalar(v, a, b, c),
        Lane3Op::Vmad(v) => super::vscalar::vmad(v, a, b, c),
        Lane3Op::Fp8 { op, relu } => super::fp8::cvt(op, relu, a, b),
        Lane3Op::Packed16 { op, signed, relu } => packed16(op, signed, relu, a, b),
        Lane3Op::MinMaxReluS32 { max } => minmax_relu_s32(max, a, b),
        Lane3Op::F32x2 { op, ftz, rnd } => f32x2(op, ftz, rnd, a, b, c),
        Lane3Op::MinMax3F32 { max, nan, abs, ftz } => min_max3_f32(max, nan, abs, ftz, a, b, c),
    })
}

/// The 64-bit cache policy `createpolicy` writes. The engine has no caches,
/// so every policy is this one value and instructions that take a
/// `.L2::cache_hint` policy ignore it.
pub const CACHE_POLICY: u64 = 0;

/// The operation of `redux.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    /// Integer minimum / maximum, signed or not.
    Min { signed: bool },
    Max { signed: bool },
    And,
    Or,
    Xor,
    /// `.f32` minimum / maximum with `.abs` and `.NaN`.
    FMin { abs: bool, nan: bool },
    FMax { abs: bool, nan: bool },
}

/// The canonical NaN of `.f32` results.
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;

/// `redux.sync` over the members' values `vals` (32-bit patterns): `.add`
/// wraps at 32 bits; `.f32` min/max order -0 below +0, take absolute
/// values with `.abs`, and give the canonical NaN when any input is NaN
/// (`.NaN`) or, without `.NaN`, ignore NaN inputs and give the canonical
/// NaN when all are NaN.
#[inline]
pub fn redux(op: ReduxOp, vals: impl Iterator<Item = u32>) -> u32 {
    match op {
        ReduxOp::Add => vals.fold(0u32, |a, v| a.wrapping_add(v)),
        ReduxOp::And => vals.fold(u32::MAX, |a, v| a & v),
        ReduxOp::Or => vals.fold(0, |a, v| a | v),
        ReduxOp::Xor => vals.fold(0, |a, v| a ^ v),
        ReduxOp::Min { signed: true } => vals.map(|v| v as i32).min().unwrap_or(i32::MAX) as u32,
        ReduxOp::Max { signed: true } => vals.map(|v| v as i32).max().unwrap_or(i32::MIN) as u32,
        ReduxOp::Min { signed: false } => vals.min().unwrap_or(u32::MAX),
        ReduxOp::Max { signed: false } => vals.max().unwrap_or(0),
        ReduxOp::FMin { abs, nan } | ReduxOp::FMax { abs, nan } => {
            let is_max = matches!(op, ReduxOp::FMax { .. });
            // A total order on non-NaN values with -0 < +0: the sign-magnitude key.
            let key = |v: u32| if v >> 31 == 1 { -((v & 0x7fff_ffff) as i64) - 1 } else { v as i64 };
            let mut best: Option<u32> = None;
            let mut any_nan = false;
            for v in vals {
                let v = if abs { v & 0x7fff_ffff } else { v };
                if (v & 0x7fff_ffff) > 0x7f80_0000 {
                    any_nan = true;
                    continue;
                }
                best = Some(match best {
                    None => v,
                    Some(b) if (key(v) > key(b)) == is_max && key(v) != key(b) => v,
                    Some(b) => b,
                });
            }
            match best {
                Some(b) if !(nan && any_nan) => b,
                _ => CANONICAL_NAN_F32,
            }
        }
    }
}

/// An operation on the two halves of a `.f16x2`/`.bf16x2` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum H2Op {
    Bin(FBinOp),
    Fma,
    Un(FUnOp),
    /// `cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`: `a` (an
    /// `.f32`) to the upper half, `b` to the lower, rounded to nearest
    /// even or (`rz`) toward zero ([`cvt_half`]). (The scalar
    /// `cvt.frnd2{.relu}{.satfinite}.{f16,bf16}.f32 d, b` is this with
    /// `a` = +0.0.)
    FromF32 { relu: bool, rz: bool, satfinite: bool },
    /// `fma.rn{.ftz}.relu.{f16x2,bf16x2}`: [`fma_relu`] on each half.
    FmaRelu,
}

/// `fma.rn{.ftz}.relu.{f16,bf16}` on 16-bit values: the `.rn` fma of the
/// format, then a NaN result becomes the canonical NaN 0x7fff and a
/// negative one (sign bit set, -0 included, as `cvt.relu` treats it) +0
/// (PTX ISA 9.7.4.4: "clamps the result to 0 if negative").
#[inline]
pub fn fma_relu(ty: FTy, ftz: bool, a: u64, b: u64, c: u64) -> u64 {
    let r = super::fma(ty, ftz, false, a & 0xffff, b & 0xffff, c & 0xffff) & 0xffff;
    let (exp, frac) = if ty == FTy::BF16 { (0x7f80, 0x7f) } else { (0x7c00, 0x3ff) };
    if r & exp == exp && r & frac != 0 {
        0x7fff
    } else if r & 0x8000 != 0 {
        0
    } else {
        r
    }
}

/// One packed half-precision instruction: the scalar operation of
/// [`crate::alu`] on the low halves of `a`, `b`, `c` gives the low half of
/// the result, on the high halves the high half (PTX ISA 9.7.4: each half
/// is computed as the scalar instruction would).
#[inline]
pub fn half2(op: H2Op, ty: FTy, ftz: bool, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    if let H2Op::FromF32 { relu, rz, satfinite } = op {
        return cvt_half(ty, (relu, rz, satfinite), a) << 16 | cvt_half(ty, (relu, rz, satfinite), b);
    }
    let mut d = 0;
    for k in [0, 16] {
        let (x, y, z) = ((a >> k) & 0xffff, (b >> k) & 0xffff, (c >> k) & 0xffff);
        let r = match op {
            H2Op::Bin(o) => super::fbin(o, ty, ftz, sat, x, y),
            H2Op::Fma => super::fma(ty, ftz, sat, x, y, z),
            H2Op::FmaRelu => fma_relu(ty, ftz, x, y, z),
            H2Op::Un(o) => super::fun(o, ty, ftz, x),
            H2Op::FromF32 { .. } => 0,
        };
        d |= (r & 0xffff) << k;
    }
    d
}

/// `.f32` bits rounded to nearest even (or with `rz` toward zero) into
/// `.f16`/`.bf16` bits (PTX ISA, `cvt`): NaN gives the canonical NaN
/// 0x7fff, whatever the modifiers; with `satfinite` a result beyond the
/// format's largest finite value (an infinity) is that value with the
/// sign kept; with `relu` a negative result (-0 included) becomes +0.
pub fn cvt_half(ty: FTy, (relu, rz, satfinite): (bool, bool, bool), v: u64) -> u64 {
    let x = f32::from_bits(v as u32) as f64;
    if x.is_nan() {
        return 0x7fff;
    }
    let fmt = if ty == FTy::BF16 { crate::softfloat::BF16 } else { crate::softfloat::F16 };
    let mut r = if rz && x.is_finite() && x != 0.0 { crate::softfloat::round_f64(x, fmt, super::Rounding::Rz) } else { ty.from_f64(x) } & 0xffff;
    let (inf, max) = if ty == FTy::BF16 { (0x7f80, 0x7f7f) } else { (0x7c00, 0x7bff) };
    if satfinite && r & 0x7fff == inf {
        r = (r & 0x8000) | max;
    }
    if relu && r & 0x8000 != 0 {
        0
    } else {
        r
    }
}
