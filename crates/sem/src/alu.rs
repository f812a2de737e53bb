//! Lane-wise semantics of the arithmetic, comparison and conversion
//! instructions, as pure functions on raw register bits.
//!
//! Registers hold values as raw bits in the low part of a `u64`; every function
//! here first narrows its inputs to the instruction's type, so stale high bits
//! never leak into a result. Floats are IEEE-exact: `fma` is fused
//! (`mul_add`); `.rn` (and no modifier) rounds with the host's
//! round-to-nearest-even, and the directed modes `.rz/.rm/.rp` of
//! `add/sub/mul/div`, `fma/mad`, `sqrt` and `rcp` on `.f32`/`.f64` are
//! computed exactly by `softfloat.rs` (`fbin_rnd`, `fma_rnd`, `fun_rnd`).
//! A directed mode on another type or instruction decodes to
//! `unsupported`.

use half::{bf16, f16};

/// An integer instruction type: width and signedness (`.bN` is unsigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ITy {
    pub bits: u32,
    pub signed: bool,
}

impl ITy {
    pub const U32: ITy = ITy { bits: 32, signed: false };
    pub const U64: ITy = ITy { bits: 64, signed: false };

    #[inline(always)]
    pub fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// The value as a signed or unsigned 128-bit integer.
    #[inline(always)]
    pub fn ext(self, v: u64) -> i128 {
        if self.signed {
            sext(v, self.bits) as i128
        } else {
            (v & self.mask()) as i128
        }
    }

    #[inline]
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    #[inline]
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
}

/// Sign-extends the low `bits` of `v`.
#[inline(always)]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

/// A float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FTy {
    F16,
    BF16,
    F32,
    F64,
}

impl FTy {
    #[inline]
    pub fn bits(self) -> u32 {
        match self {
            FTy::F16 | FTy::BF16 => 16,
            FTy::F32 => 32,
            FTy::F64 => 64,
        }
    }

    /// The exact value as an `f64` (every f16/bf16/f32 value is representable).
    #[inline(always)]
    pub fn to_f64(self, v: u64) -> f64 {
        match self {
            FTy::F16 => f16::from_bits(v as u16).to_f64(),
            FTy::BF16 => bf16::from_bits(v as u16).to_f64(),
            FTy::F32 => f32::from_bits(v as u32) as f64,
            FTy::F64 => f64::from_bits(v),
        }
    }

    /// Rounds an `f64` to this type (round to nearest even) and returns its bits.
    #[inline(always)]
    pub fn from_f64(self, x: f64) -> u64 {
        match self {
            FTy::F16 => f16_from_f64(x) as u64,
            FTy::BF16 => bf16_from_f64(x) as u64,
            FTy::F32 => (x as f32).to_bits() as u64,
            FTy::F64 => x.to_bits(),
        }
    }
}

/// `x` rounded to nearest even into bfloat16 bits: rounded to `f32` by
/// round-to-odd (truncate, and set the last bit when inexact), then to
/// bfloat16 by round-to-nearest-even on the bits. Round-to-odd to 24 bits
/// keeps enough information for the final 8-bit rounding to be the correct
/// one (a tie is a tie of `x` itself), which a direct `f64` to `bf16` or a
/// double rounding through `f32` do not guarantee.
#[inline]
pub fn bf16_from_f64(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7fc0;
    }
    let odd = f32_odd(x).to_bits();
    let r = odd.wrapping_add(0x7fff + ((odd >> 16) & 1));
    (r >> 16) as u16
}

/// `x` rounded to f32 by round-to-odd: truncated toward zero, the last
/// bit set when that was inexact (overflow and NaN as `as f32` gives them).
/// A later rounding to nearest even to 11 or 8 bits of it is the correct
/// rounding of `x` itself, which `x as f32` followed by a second rounding
/// is not.
#[inline]
fn f32_odd(x: f64) -> f32 {
    let f = x as f32;
    if f as f64 == x || f.is_infinite() || x.is_nan() {
        return f;
    }
    // f is x rounded to nearest: step back toward zero when it rounded away.
    let t = if (f as f64).abs() > x.abs() { f.to_bits() - 1 } else { f.to_bits() };
    f32::from_bits(t | 1)
}

/// `x` rounded to nearest even into binary16 bits. The `half` crate's
/// `f16::from_f64` goes through `x as f32` on hosts with F16C, a double
/// rounding (`cvt.rn.f16.f64` of a value just below an f16 tie came out one
/// unit high); rounding to f32 by round-to-odd first keeps it exact.
#[inline]
pub fn f16_from_f64(x: f64) -> u16 {
    f16::from_f32(f32_odd(x)).to_bits()
}

/// `x * y + z` of half-precision values (exact as f64), rounded once to
/// the half type `ty` to nearest even. The f64 `fma` rounds the sum when
/// its bits span more than 53 (a bf16 tie plus a tiny subnormal addend);
/// its error, recovered exactly (Knuth's two-sum), turns that result into
/// the round-to-odd one, whose rounding to 8 or 11 bits is the correct one.
#[inline]
fn half_fma(ty: FTy, x: f64, y: f64, z: f64, sat: bool) -> u64 {
    let p = x * y;
    let s = p + z;
    let s = if s.is_finite() {
        let bb = s - p;
        let e = (p - (s - bb)) + (z - bb);
        if e != 0.0 && s.to_bits() & 1 == 0 {
            // The exact value lies between s and its neighbour toward e (a
            // zero s cannot carry an error: two-sum's zero is exact).
            let up = (s > 0.0) == (e > 0.0);
            f64::from_bits(if up { s.to_bits().saturating_add(1) } else { s.to_bits().saturating_sub(1) })
        } else {
            s
        }
    } else {
        s
    };
    let s = if sat { sat01(s) } else { s };
    if s.is_nan() {
        0x7fff
    } else {
        ty.from_f64(s)
    }
}

/// Flushes an f16 subnormal (magnitude below 2^-14), held as f64, to a
/// zero of the same sign.
#[inline(always)]
pub fn ftz16(x: f64) -> f64 {
    if x != 0.0 && x.abs() < 6.103515625e-5 {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// Flushes an f32 subnormal to a zero of the same sign.
#[inline(always)]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        if x.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x
    }
}

/// The canonical NaN PTX produces for f32 (`0x7fffffff`).
pub const F32_CANON_NAN: u32 = 0x7fff_ffff;
pub const F64_CANON_NAN: u64 = 0x7fff_ffff_ffff_ffff;
/// The NaN an f64 operation creates (inf-inf, 0*inf, 0/0, sqrt of a
/// negative) on the hardware: `0xfff8000000000000` (measured on an H100,
/// `tests/gpu/nan_bits`).
pub const F64_NEW_NAN: u64 = 0xfff8_0000_0000_0000;

/// An f64 result's bits as the hardware writes them (`tests/gpu/nan_bits`,
/// an H100): a number as it is; a NaN result passes on the first NaN of
/// `operands`, quieted, with its sign and payload (the order is the one the
/// hardware showed: `b, a` for add/sub/mul/min/max, `b, c, a` for fma, `a, b`
/// for div), and is [`F64_NEW_NAN`] when no operand was a NaN. The PTX ISA
/// leaves f64 NaN payloads to the implementation.
#[inline(always)]
pub fn f64_result(r: f64, operands: &[u64]) -> u64 {
    if !r.is_nan() {
        return r.to_bits();
    }
    for &x in operands {
        if f64::from_bits(x).is_nan() {
            return x | 1 << 51;
        }
    }
    F64_NEW_NAN
}

/// Integer binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IBinOp {
    Add,
    Sub,
    AddSat,
    SubSat,
    MulLo,
    MulHi,
    MulWide,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// Integer unary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IUnOp {
    Neg,
    Abs,
    Not,
    Cnot,
    Popc,
    Clz,
    Brev,
    Bfind,
    BfindShiftAmt,
}

/// A lane-level failure an integer operation can raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluError {
    DivideByZero,
}

/// `op.ty a, b`. `MulWide` returns the double-width product.
#[inline(always)]
pub fn ibin(op: IBinOp, ty: ITy, a: u64, b: u64) -> Result<u64, AluError> {
    let m = ty.mask();
    Ok(match op {
        IBinOp::Add => a.wrapping_add(b) & m,
        IBinOp::Sub => a.wrapping_sub(b) & m,
        IBinOp::AddSat => (ty.ext(a) + ty.ext(b)).clamp(ty.min(), ty.max()) as u64 & m,
        IBinOp::SubSat => (ty.ext(a) - ty.ext(b)).clamp(ty.min(), ty.max()) as u64 & m,
        IBinOp::MulLo => a.wrapping_mul(b) & m,
        IBinOp::MulHi => ((ty.ext(a) * ty.ext(b)) >> ty.bits) as u64 & m,
        IBinOp::MulWide => {
            let wm = if ty.bits >= 32 { u64::MAX } else { (1u64 << (2 * ty.bits)) - 1 };
            (ty.ext(a) * ty.ext(b)) as u64 & wm
        }
        IBinOp::Div | IBinOp::Rem => {
            let (x, y) = (ty.ext(a), ty.ext(b));
            if y == 0 {
                return Err(AluError::DivideByZero);
            }
            // i128 arithmetic: MIN / -1 wraps when narrowed, as the hardware does.
            let r = if op == IBinOp::Div { x / y } else { x % y };
            r as u64 & m
        }
        IBinOp::Min => ty.ext(a).min(ty.ext(b)) as u64 & m,
        IBinOp::Max => ty.ext(a).max(ty.ext(b)) as u64 & m,
        IBinOp::And => a & b & m,
        IBinOp::Or => (a | b) & m,
        IBinOp::Xor => (a ^ b) & m,
        IBinOp::Shl => {
            let s = b as u32;
            if s >= ty.bits {
                0
            } else {
                (a << s) & m
            }
        }
        IBinOp::Shr => {
            let s = (b as u32).min(ty.bits);
            if ty.signed {
                let v = sext(a, ty.bits);
                (v >> s.min(63)) as u64 & m
            } else if s >= ty.bits {
                0
            } else {
                ((a & m) >> s) & m
            }
        }
    })
}

#[inline(always)]
pub fn iun(op: IUnOp, ty: ITy, a: u64) -> u64 {
    let m = ty.mask();
    let a = a & m;
    match op {
        IUnOp::Neg => a.wrapping_neg() & m,
        IUnOp::Abs => (ty.ext(a).unsigned_abs() as u64) & m,
        IUnOp::Not => !a & m,
        IUnOp::Cnot => (a == 0) as u64,
        IUnOp::Popc => a.count_ones() as u64,
        IUnOp::Clz => (a.leading_zeros() - (64 - ty.bits)) as u64,
        IUnOp::Brev => (a.reverse_bits() >> (64 - ty.bits)) & m,
        IUnOp::Bfind | IUnOp::BfindShiftAmt => {
            // Position of the most significant non-sign bit; 0xffffffff if none.
            let v = if ty.signed && sext(a, ty.bits) < 0 { !a & m } else { a };
            if v == 0 {
                0xffff_ffff
            } else {
                let pos = 63 - v.leading_zeros();
                if op == IUnOp::BfindShiftAmt {
                    (ty.bits - 1 - pos) as u64
                } else {
                    pos as u64
                }
            }
        }
    }
}

/// `mad.{lo,hi,wide}`: the selected part of `a*b`, plus `c`.
#[inline(always)]
pub fn mad(hi: bool, wide: bool, sat: bool, ty: ITy, a: u64, b: u64, c: u64) -> u64 {
    if wide {
        let p = ibin(IBinOp::MulWide, ty, a, b).unwrap_or(0);
        let wty = ITy { bits: (ty.bits * 2).min(64), signed: ty.signed };
        p.wrapping_add(c) & wty.mask()
    } else if hi {
        let p = (ty.ext(a) * ty.ext(b)) >> ty.bits;
        if sat && ty.signed && ty.bits == 32 {
            (p + ty.ext(c)).clamp(ty.min(), ty.max()) as u64 & ty.mask()
        } else {
            (p as u64).wrapping_add(c) & ty.mask()
        }
    } else {
        a.wrapping_mul(b).wrapping_add(c) & ty.mask()
    }
}

/// `bfe`: extract `len` bits at `pos`, sign-extending for signed types.
#[inline]
pub fn bfe(ty: ITy, a: u64, pos: u64, len: u64) -> u64 {
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let msb = ty.bits - 1;
    let a = a & ty.mask();
    let sbit = if !ty.signed || len == 0 {
        false
    } else {
        let bit = (pos + len - 1).min(msb);
        (a >> bit) & 1 == 1
    };
    let mut d = 0u64;
    for i in 0..ty.bits {
        let v = if i < len && pos + i <= msb { (a >> (pos + i)) & 1 == 1 } else { sbit };
        if v {
            d |= 1 << i;
        }
    }
    d
}

/// `bfi`: insert `len` bits of `f` into `b` at `pos`.
#[inline]
pub fn bfi(bits: u32, f: u64, b: u64, pos: u64, len: u64) -> u64 {
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let mut d = b;
    for i in 0..len {
        if pos + i >= bits {
            break;
        }
        let bit = (f >> i) & 1;
        d = (d & !(1 << (pos + i))) | (bit << (pos + i));
    }
    d & if bits >= 64 { u64::MAX } else { (1 << bits) - 1 }
}

/// `prmt.b32` default mode: byte permute.
#[inline]
pub fn prmt(a: u64, b: u64, c: u64) -> u64 {
    let bytes = ((b as u32 as u64) << 32) | (a as u32 as u64);
    let mut d = 0u64;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = (bytes >> (8 * (sel & 7))) & 0xff;
        let byte = if sel & 8 != 0 { if byte & 0x80 != 0 { 0xff } else { 0 } } else { byte };
        d |= byte << (8 * i);
    }
    d
}

/// The modes of `prmt.b32` other than the generic one (the row's choice,
/// `ptxsim_isa::PrmtMode`).
pub use ptxsim_isa::PrmtMode;

/// `prmt.b32.mode d, a, b, c` (PTX ISA 9.7.9.7): byte `k` of `d` is byte
/// `i(k)` of `{b, a}` (`a` the low four), where `s = c[1:0]` and `i(k)` is
/// `s + k` (f4e), `s - k` mod 8 (b4e), `s` (rc8), `max(k, s)` (ecl),
/// `min(k, s)` (ecr), `2 * (s & 1) + (k & 1)` (rc16): the manual's
/// tables, row by row. No sign replication in these modes.
#[inline]
pub fn prmt_mode(mode: PrmtMode, a: u64, b: u64, c: u64) -> u64 {
    let bytes = ((b as u32 as u64) << 32) | (a as u32 as u64);
    let s = (c & 3) as u32;
    let mut d = 0u64;
    for k in 0..4u32 {
        let i = match mode {
            PrmtMode::F4e => s + k,
            PrmtMode::B4e => (s + 8 - k) & 7,
            PrmtMode::Rc8 => s,
            PrmtMode::Ecl => k.max(s),
            PrmtMode::Ecr => k.min(s),
            PrmtMode::Rc16 => 2 * (s & 1) + (k & 1),
        };
        d |= ((bytes >> (8 * i)) & 0xff) << (8 * k);
    }
    d
}

/// Float binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FBinOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Copysign,
    /// `div.approx.f32` (PTX ISA 9.7.3.8): `a * (1 / b)`, computed exactly
    /// rounded (within the manual's 2 ulp) where `|b|` is in
    /// `[2^-126, 2^126]`; for `2^126 < |b| < 2^128` the manual's result:
    /// NaN for an infinite `a`, otherwise a zero (of the sign `a * (1/b)`
    /// has, as an H100 gives: tests/gpu/special_f32).
    DivApprox,
    /// `min`/`max` with `.NaN` and/or `.xorsign.abs` (PTX ISA 9.7.3 min,
    /// max; 9.7.4 for the half types): with `nan`, a NaN input gives the
    /// canonical NaN; with `xorsign_abs`, the magnitudes are compared and
    /// a non-NaN result takes the XOR of the inputs' sign bits. Plain
    /// `min`/`max` are [`FBinOp::Min`]/[`FBinOp::Max`].
    MinMax { max: bool, nan: bool, xorsign_abs: bool },
}

/// Float unary operations. The `.approx` ones are computed exactly rounded
/// from `f64`, which is within every error bound the manual gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUnOp {
    Neg,
    Abs,
    Sqrt,
    Rcp,
    Rsqrt,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

/// Rounding modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    Rn,
    Rz,
    Rm,
    Rp,
    Rna,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

fn min_max_f64(a: f64, b: f64, max: bool) -> Option<f64> {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => None,
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ => {
            if a == b {
                // -0 < +0 for min/max.
                let pick_a = if max { !a.is_sign_negative() } else { a.is_sign_negative() };
                Some(if pick_a { a } else { b })
            } else if (a > b) == max {
                Some(a)
            } else {
                Some(b)
            }
        }
    }
}

/// The manual's `min`/`max` with modifiers on exact values: `sign` is the
/// XOR of the inputs' sign bits (taken from their bits, NaNs included), the
/// result `None` for a NaN result (the caller writes its canonical NaN).
///
/// ```text
/// if (.xorsign) { xorsign = signbit(a) ^ signbit(b); if (.abs) { a = |a|; b = |b|; } }
/// if (isNaN(a) && isNaN(b))                d = NaN;
/// else if (.NaN && (isNaN(a) || isNaN(b))) d = NaN;
/// else if (isNaN(a))                       d = b;
/// else if (isNaN(b))                       d = a;
/// else                                     d = max(a, b);   // -0 < +0
/// if (.xorsign && !isNaN(d))               setSignBit(d, xorsign);
/// ```
fn min_max_mod(a: f64, b: f64, sign: bool, max: bool, nan: bool, xorsign_abs: bool) -> Option<f64> {
    let (a, b) = if xorsign_abs { (a.abs(), b.abs()) } else { (a, b) };
    if nan && (a.is_nan() || b.is_nan()) {
        return None;
    }
    let r = min_max_f64(a, b, max)?;
    Some(if xorsign_abs { if sign { -r.abs() } else { r.abs() } } else { r })
}

/// Float binary op on raw bits, round to nearest even.
#[inline(always)]
pub fn fbin(op: FBinOp, ty: FTy, ftz: bool, sat: bool, a: u64, b: u64) -> u64 {
    match ty {
        FTy::F32 => {
            let mut x = f32::from_bits(a as u32);
            let mut y = f32::from_bits(b as u32);
            if ftz {
                x = ftz32(x);
                y = ftz32(y);
            }
            let r = match op {
                FBinOp::Add => x + y,
                FBinOp::Sub => x - y,
                FBinOp::Mul => x * y,
                FBinOp::Div => x / y,
                FBinOp::DivApprox if y.is_finite() && y.abs() > 2f32.powi(126) => {
                    if !x.is_finite() {
                        f32::NAN
                    } else {
                        0.0f32.copysign(x) * y.signum()
                    }
                }
                FBinOp::DivApprox => x / y,
                FBinOp::Min | FBinOp::Max => match min_max_f64(x as f64, y as f64, op == FBinOp::Max) {
                    Some(v) => v as f32,
                    None => return F32_CANON_NAN as u64,
                },
                FBinOp::MinMax { max, nan, xorsign_abs } => match min_max_mod(x as f64, y as f64, (a ^ b) >> 31 & 1 == 1, max, nan, xorsign_abs) {
                    Some(v) => v as f32,
                    None => return F32_CANON_NAN as u64,
                },
                // A bit operation: b's bits with a's sign, a NaN `b` included
                // (as on an H100: tests/gpu/special_f32).
                FBinOp::Copysign => return (b as u32 & 0x7fff_ffff | a as u32 & 0x8000_0000) as u64,
            };
            f32_out(r, ftz, sat)
        }
        FTy::F64 => {
            let x = f64::from_bits(a);
            let y = f64::from_bits(b);
            let r = match op {
                FBinOp::Add => x + y,
                FBinOp::Sub => x - y,
                FBinOp::Mul => x * y,
                FBinOp::Div | FBinOp::DivApprox => x / y,
                FBinOp::Min | FBinOp::Max => match min_max_f64(x, y, op == FBinOp::Max) {
                    Some(v) => v,
                    None => return f64_result(f64::NAN, &[b, a]),
                },
                FBinOp::MinMax { max, nan, xorsign_abs } => match min_max_mod(x, y, (a ^ b) >> 63 == 1, max, nan, xorsign_abs) {
                    Some(v) => v,
                    None => return F64_CANON_NAN,
                },
                FBinOp::Copysign => y.copysign(x),
            };
            let r = if sat { sat01(r) } else { r };
            if matches!(op, FBinOp::Copysign) {
                r.to_bits()
            } else if matches!(op, FBinOp::Div | FBinOp::DivApprox) {
                f64_result(r, &[a, b])
            } else {
                f64_result(r, &[b, a])
            }
        }
        FTy::F16 | FTy::BF16 => {
            // Sums and products of 11-bit (8-bit) significands are exact in f64
            // except for add with a huge exponent gap, where rounding f64 then
            // f16 still gives the correctly rounded result (f64 has > 2p+2 bits).
            let x = ty.to_f64(ftz_half(ty, ftz, a));
            let y = ty.to_f64(ftz_half(ty, ftz, b));
            let r = match op {
                FBinOp::Add => x + y,
                FBinOp::Sub => x - y,
                FBinOp::Mul => x * y,
                FBinOp::Div | FBinOp::DivApprox => x / y,
                FBinOp::Min | FBinOp::Max => match min_max_f64(x, y, op == FBinOp::Max) {
                    Some(v) => v,
                    None => return if ty == FTy::F16 { 0x7fff } else { 0x7fff },
                },
                FBinOp::MinMax { max, nan, xorsign_abs } => match min_max_mod(x, y, (a ^ b) >> 15 & 1 == 1, max, nan, xorsign_abs) {
                    Some(v) => v,
                    None => return 0x7fff,
                },
                FBinOp::Copysign => y.copysign(x),
            };
            let r = if sat { sat01(r) } else { r };
            if r.is_nan() {
                0x7fff
            } else {
                ftz_half(ty, ftz, ty.from_f64(r))
            }
        }
    }
}

/// With `ftz`, a subnormal f16/bf16 (bits) becomes the zero of its sign.
#[inline(always)]
pub fn ftz_half(ty: FTy, ftz: bool, v: u64) -> u64 {
    let (exp, frac) = if ty == FTy::F16 { ((v >> 10) & 0x1f, v & 0x3ff) } else { ((v >> 7) & 0xff, v & 0x7f) };
    if ftz && exp == 0 && frac != 0 {
        v & 0x8000
    } else {
        v & 0xffff
    }
}

/// `.sat`: clamps to [+0.0, 1.0]; NaN and -0.0 become +0.0 (as the GPU
/// does: `cvt.sat.f32.f32` of -0.0 is +0.0 on sm_90).
fn sat01(r: f64) -> f64 {
    if r.is_nan() || r <= 0.0 {
        0.0
    } else {
        r.min(1.0)
    }
}

#[inline(always)]
fn f32_out(r: f32, ftz: bool, sat: bool) -> u64 {
    let r = if ftz { ftz32(r) } else { r };
    let r = if sat {
        if r.is_nan() || r <= 0.0 {
            0.0
        } else {
            r.min(1.0)
        }
    } else {
        r
    };
    if r.is_nan() {
        F32_CANON_NAN as u64
    } else {
        r.to_bits() as u64
    }
}

/// `fma.rn` (fused): `a*b+c` with one rounding.
#[inline(always)]
pub fn fma(ty: FTy, ftz: bool, sat: bool, a: u64, b: u64, c: u64) -> u64 {
    match ty {
        FTy::F32 => {
            let (mut x, mut y, mut z) =
                (f32::from_bits(a as u32), f32::from_bits(b as u32), f32::from_bits(c as u32));
            if ftz {
                x = ftz32(x);
                y = ftz32(y);
                z = ftz32(z);
            }
            f32_out(x.mul_add(y, z), ftz, sat)
        }
        FTy::F64 => {
            let r = f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c));
            let r = if sat { sat01(r) } else { r };
            f64_result(r, &[b, c, a])
        }
        FTy::F16 | FTy::BF16 => {
            let f = |v: u64| ty.to_f64(ftz_half(ty, ftz, v));
            match half_fma(ty, f(a), f(b), f(c), sat) {
                0x7fff => 0x7fff,
                r => ftz_half(ty, ftz, r),
            }
        }
    }
}

/// Float unary operations on raw bits.
pub fn fun(op: FUnOp, ty: FTy, ftz: bool, a: u64) -> u64 {
    match op {
        FUnOp::Neg | FUnOp::Abs => {
            let bits = ty.bits();
            let sign = 1u64 << (bits - 1);
            let mut v = a & if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
            // `.ftz` flushes a subnormal operand to a zero of its sign
            // (`neg/abs.ftz.f32`, and `.f16`/`.f16x2`: PTX ISA 9.7.4.5-6).
            match ty {
                FTy::F32 if ftz => v = ftz32(f32::from_bits(v as u32)).to_bits() as u64,
                FTy::F16 | FTy::BF16 => v = ftz_half(ty, ftz, v),
                _ => {}
            }
            // A NaN operand, on an H100 (tests/gpu/nan_bits, special_f32):
            // neg/abs.f32 (and f16, bf16: special_half) give the canonical NaN,
            // neg.f64 and abs.f64 the operand quieted
            // with its sign unchanged (the manual: an unspecified NaN).
            match ty {
                FTy::F32 if f32::from_bits(v as u32).is_nan() => return F32_CANON_NAN as u64,
                FTy::F16 if v & 0x7fff > 0x7c00 => return 0x7fff,
                FTy::BF16 if v & 0x7fff > 0x7f80 => return 0x7fff,
                FTy::F64 if f64::from_bits(v).is_nan() => return v | 1 << 51,
                _ => {}
            }
            if op == FUnOp::Neg {
                v ^ sign
            } else {
                v & !sign
            }
        }
        // `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64`, as an H100
        // computes them (tests/gpu/special_f64): subnormal operands and
        // results flushed to signed zeros; a NaN result is
        // 0x7fffffff00000000; both read only the upper 32 bits of the
        // operand (a NaN whose payload lies in the lower half is an
        // infinity to them) and give a result with its lower 32 bits
        // cleared.
        FUnOp::Rcp | FUnOp::Rsqrt if ty == FTy::F64 && ftz => {
            let rcp = op == FUnOp::Rcp;
            let x = f64::from_bits(a & 0xffff_ffff_0000_0000);
            let x = if x != 0.0 && x.abs() < f64::MIN_POSITIVE { 0.0f64.copysign(x) } else { x };
            let r = if rcp { 1.0 / x } else { 1.0 / x.sqrt() };
            let r = if r.is_nan() || (!rcp && x < 0.0) {
                return 0x7fff_ffff_0000_0000;
            } else if r != 0.0 && r.abs() < f64::MIN_POSITIVE {
                0.0f64.copysign(r)
            } else {
                r
            };
            r.to_bits() & 0xffff_ffff_0000_0000
        }
        _ => {
            let half = matches!(ty, FTy::F16 | FTy::BF16);
            let mut x = ty.to_f64(if half { ftz_half(ty, ftz, a) } else { a });
            if ftz && ty == FTy::F32 {
                x = ftz32(x as f32) as f64;
            }
            let r = match op {
                FUnOp::Sqrt => {
                    if ty == FTy::F32 {
                        (x as f32).sqrt() as f64
                    } else {
                        x.sqrt()
                    }
                }
                FUnOp::Rcp => {
                    if ty == FTy::F32 {
                        (1.0f32 / x as f32) as f64
                    } else {
                        1.0 / x
                    }
                }
                FUnOp::Rsqrt => 1.0 / x.sqrt(),
                // (sin/cos.approx take a subnormal f32 operand as a zero of
                // its sign, as an H100 does: tests/gpu/special_f32.)
                FUnOp::Sin => if ty == FTy::F32 { ftz32(x as f32) as f64 } else { x }.sin(),
                FUnOp::Cos => if ty == FTy::F32 { ftz32(x as f32) as f64 } else { x }.cos(),
                FUnOp::Lg2 => x.log2(),
                FUnOp::Ex2 => x.exp2(),
                FUnOp::Tanh => x.tanh(),
                FUnOp::Neg | FUnOp::Abs => x,
            };
            match ty {
                FTy::F32 => f32_out(r as f32, ftz, false),
                FTy::F64 => f64_result(r, &[a]),
                _ => {
                    if r.is_nan() {
                        0x7fff
                    } else if op == FUnOp::Tanh {
                        // tanh.approx on halves: the f32 value rounded toward
                        // zero, as an H100 gives it (tests/gpu/special_half).
                        let h = ty.from_f64(r as f32 as f64);
                        let h = if ty.to_f64(h).abs() > (r as f32 as f64).abs() { h - 1 } else { h };
                        ftz_half(ty, ftz, h)
                    } else {
                        ftz_half(ty, ftz, ty.from_f64(r))
                    }
                }
            }
        }
    }
}

/// Comparison operators of `setp`/`set`: decoded once, by `ptxsim_isa`.
pub use ptxsim_isa::CmpOp;

/// Integer comparison (`lo/ls/hi/hs` are unsigned whatever the type).
#[inline(always)]
pub fn icmp(op: CmpOp, ty: ITy, a: u64, b: u64) -> bool {
    let (x, y) = (ty.ext(a), ty.ext(b));
    let (ux, uy) = (a & ty.mask(), b & ty.mask());
    match op {
        CmpOp::Eq => ux == uy,
        CmpOp::Ne => ux != uy,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
        CmpOp::Lo => ux < uy,
        CmpOp::Ls => ux <= uy,
        CmpOp::Hi => ux > uy,
        CmpOp::Hs => ux >= uy,
        _ => false,
    }
}

/// Float comparison per the manual's tables: ordered operators are false
/// when either operand is NaN, unordered ones (`...u`) are true.
#[inline(always)]
/// `cvt.rna{.satfinite}.tf32.f32` on the f32 bits `x`: rounded to tf32's
/// 10-bit fraction to nearest, ties away from zero (adding half a unit of
/// the last kept place, 0x1000, to the magnitude's bits carries into the
/// exponent as it should), then the low 13 bits cleared. Infinities and
/// NaNs are not rounded, only cleared. `.satfinite` takes a result that is
/// infinite or NaN one tf32 step down (`0x7f80_0000` becomes the largest
/// finite tf32, `0x7f7f_e000`; NaNs stay NaNs). This is the sequence ptxas
/// 12.9 compiles both forms to for sm_80/sm_90:
/// `FSETP.GEU P0, |x|, +INF; SEL t, x + 0x1000, x, !P0;
/// LOP3.LUT d, t, 0xffffe000, RZ, 0xc0; FSETP.GEU P0, |d|, +INF; @P0 d -= 0x2000`.
pub fn tf32_rna(x: u32, satfinite: bool) -> u32 {
    let finite = x & 0x7f80_0000 != 0x7f80_0000;
    let d = if finite { x.wrapping_add(0x1000) } else { x } & 0xffff_e000;
    if satfinite && d & 0x7f80_0000 == 0x7f80_0000 {
        d.wrapping_sub(0x2000)
    } else {
        d
    }
}

#[inline]
pub fn fcmp(op: CmpOp, ty: FTy, ftz: bool, a: u64, b: u64) -> bool {
    let (mut x, mut y) = (ty.to_f64(a), ty.to_f64(b));
    if ftz {
        match ty {
            FTy::F32 => {
                x = ftz32(x as f32) as f64;
                y = ftz32(y as f32) as f64;
            }
            // setp.ftz.f16: subnormal inputs are flushed to sign-preserving zero.
            FTy::F16 => {
                x = ftz16(x);
                y = ftz16(y);
            }
            _ => {}
        }
    }
    let nan = x.is_nan() || y.is_nan();
    match op {
        CmpOp::Eq => !nan && x == y,
        CmpOp::Ne => !nan && x != y,
        CmpOp::Lt => !nan && x < y,
        CmpOp::Le => !nan && x <= y,
        CmpOp::Gt => !nan && x > y,
        CmpOp::Ge => !nan && x >= y,
        CmpOp::Equ => nan || x == y,
        CmpOp::Neu => nan || x != y,
        CmpOp::Ltu => nan || x < y,
        CmpOp::Leu => nan || x <= y,
        CmpOp::Gtu => nan || x > y,
        CmpOp::Geu => nan || x >= y,
        CmpOp::Num => !nan,
        CmpOp::Nan => nan,
        _ => false,
    }
}

/// Float → integer conversion with an integer rounding mode; saturates to
/// the destination range, NaN gives 0 (PTX `cvt` semantics).
#[inline]
pub fn f_to_i(x: f64, rnd: Rounding, dst: ITy) -> u64 {
    // A NaN converts to 0, and to 1 << 63 in a 64-bit integer (an H100:
    // tests/gpu/special_f32).
    if x.is_nan() {
        return if dst.bits >= 64 { 1 << 63 } else { 0 };
    }
    let r = match rnd {
        Rounding::Rni | Rounding::Rn => x.round_ties_even(),
        Rounding::Rmi | Rounding::Rm => x.floor(),
        Rounding::Rpi | Rounding::Rp => x.ceil(),
        Rounding::Rna => x.round(),
        Rounding::Rzi | Rounding::Rz => x.trunc(),
    };
    // (`as i128` is exact below 2^127 in magnitude and saturates above;
    // the clamp is the conversion's saturation to the destination, up to
    // 2^64 - 1 for `.u64`.)
    let v = r as i128;
    (v.clamp(dst.min(), dst.max()) as u64) & dst.mask()
}

/// Integer → float with round to nearest even.
#[inline]
pub fn i_to_f(v: u64, src: ITy, dst: FTy) -> u64 {
    match dst {
        FTy::F32 => {
            let f = if src.signed { sext(v, src.bits) as f32 } else { (v & src.mask()) as f32 };
            f.to_bits() as u64
        }
        FTy::F64 => {
            let f = if src.signed { sext(v, src.bits) as f64 } else { (v & src.mask()) as f64 };
            f.to_bits()
        }
        FTy::F16 => {
            // Every 16-bit-or-wider integer may need rounding; go through f64
            // only where it is exact (|v| < 2^53), else through f32 rounding
            // which cannot change an f16 result for such magnitudes (overflow).
            let x = if src.signed { sext(v, src.bits) as f64 } else { (v & src.mask()) as f64 };
            f16_from_f64(x) as u64
        }
        FTy::BF16 => {
            let x = if src.signed { sext(v, src.bits) as f64 } else { (v & src.mask()) as f64 };
            bf16::from_f64(x).to_bits() as u64
        }
    }
}

/// Rounds a float to an integral value in the same format (`cvt.rni.f32.f32`).
#[inline]
pub fn f_round_int(x: f64, rnd: Rounding) -> f64 {
    match rnd {
        Rounding::Rni | Rounding::Rn => x.round_ties_even(),
        Rounding::Rmi | Rounding::Rm => x.floor(),
        Rounding::Rpi | Rounding::Rp => x.ceil(),
        Rounding::Rna => x.round(),
        Rounding::Rzi | Rounding::Rz => x.trunc(),
    }
}

/// `fbin` in a rounding mode (`None`/`.rn`: round to nearest even).
#[inline(always)]
pub fn fbin_rnd(op: FBinOp, ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, a: u64, b: u64) -> u64 {
    let mode = match rnd {
        None | Some(Rounding::Rn) => return fbin(op, ty, ftz, sat, a, b),
        Some(m) => m,
    };
    let f = if ty == FTy::F32 { crate::softfloat::F32 } else { crate::softfloat::F64 };
    let (mut x, mut y) = (ty.to_f64(a), ty.to_f64(b));
    if ftz && ty == FTy::F32 {
        x = ftz32(x as f32) as f64;
        y = ftz32(y as f32) as f64;
    }
    let r = match op {
        FBinOp::Add => crate::softfloat::add(x, y, false, f, mode),
        FBinOp::Sub => crate::softfloat::add(x, y, true, f, mode),
        FBinOp::Mul => crate::softfloat::mul(x, y, f, mode),
        FBinOp::Div => crate::softfloat::div(x, y, f, mode),
        _ => return fbin(op, ty, ftz, sat, a, b),
    };
    let operands = if op == FBinOp::Div { [a, b] } else { [b, a] };
    finish(ty, ftz, sat, r, &operands)
}

/// A directed-rounding result: `operands` in the order [`f64_result`] takes.
fn finish(ty: FTy, ftz: bool, sat: bool, r: f64, operands: &[u64]) -> u64 {
    let r = if sat { sat01(r) } else { r };
    match ty {
        FTy::F32 => f32_out(r as f32, ftz, false),
        _ => f64_result(r, operands),
    }
}

/// `fma` in a rounding mode.
pub fn fma_rnd(ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, a: u64, b: u64, c: u64) -> u64 {
    let mode = match rnd {
        None | Some(Rounding::Rn) => return fma(ty, ftz, sat, a, b, c),
        Some(m) => m,
    };
    let f = if ty == FTy::F32 { crate::softfloat::F32 } else { crate::softfloat::F64 };
    let (mut x, mut y, mut z) = (ty.to_f64(a), ty.to_f64(b), ty.to_f64(c));
    if ftz && ty == FTy::F32 {
        x = ftz32(x as f32) as f64;
        y = ftz32(y as f32) as f64;
        z = ftz32(z as f32) as f64;
    }
    finish(ty, ftz, sat, crate::softfloat::fma(x, y, z, f, mode), &[b, c, a])
}

/// `sqrt`/`rcp` in a rounding mode.
pub fn fun_rnd(op: FUnOp, ty: FTy, ftz: bool, rnd: Option<Rounding>, a: u64) -> u64 {
    let mode = match rnd {
        None | Some(Rounding::Rn) => return fun(op, ty, ftz, a),
        Some(m) => m,
    };
    let f = if ty == FTy::F32 { crate::softfloat::F32 } else { crate::softfloat::F64 };
    let mut x = ty.to_f64(a);
    if ftz && ty == FTy::F32 {
        x = ftz32(x as f32) as f64;
    }
    let r = match op {
        FUnOp::Sqrt => crate::softfloat::sqrt(x, f, mode),
        FUnOp::Rcp => crate::softfloat::div(1.0, x, f, mode),
        _ => return fun(op, ty, ftz, a),
    };
    finish(ty, ftz, false, r, &[a])
}

pub mod dot;
pub mod bits;
pub mod ext;
pub mod fp8;
pub mod video;
pub mod vscalar;

#[cfg(test)]
mod tests;
