//! Lane-wise ALU handlers: moves, integer and float arithmetic, bit-field
//! operations, comparisons and selects, predicate logic, packing and
//! conversions. Each computes through [`ptxsim_sem::alu`] / [`ptxsim_sem::cvt`];
//! where a handler has its own fast lane function for a common case (a
//! 32-bit add or multiply, a plain integer `setp`, native-width division)
//! the tests at the end of this file check it against the `alu` function
//! on random operands. The common float forms run the kernels of
//! `flanes.rs`, chosen per instruction from its modifiers.

use super::flanes::{self, Path};
use super::{fetch, opnd, psrc, set_pred, Lanes};
use ptxsim_sem::alu::{self, CmpOp, FBinOp, FTy, FUnOp, IBinOp, ITy, IUnOp, Rounding};
use crate::error::{Trap, TrapKind};
use crate::lanes::{apply1, apply2, apply3, splat, store, test2, Opnd};
use crate::memory::{CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
use crate::program::*;
use crate::warp::{lanes, Frame};

/// A float instruction's `.ftz`, `.sat` and rounding modifiers.
type FMods = (bool, bool, Option<Rounding>);
/// A comparison's optional combining operation with a predicate (`setp.lt.and`).
type Comb = Option<(BoolOp, PSrc)>;

/// The mask of the low `bits` bits.
#[inline(always)]
pub(crate) fn bits_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[inline(always)]
fn ib(op: IBinOp, ty: ITy, a: u64, b: u64) -> u64 {
    alu::ibin(op, ty, a, b).unwrap_or(0)
}

#[inline(always)]
pub(super) fn mov(cx: &Lanes<'_>, fr: &mut Frame, m: u32, d: u32, a: &Src, bits: u32) {
    let mk = bits_mask(bits);
    let t0;
    match opnd!(cx, a, t0) {
        Opnd::Imm(v) => splat(&mut fr.regs, d as usize, m, v & mk),
        a => apply1(&mut fr.regs, d as usize, m, a, |x| x & mk),
    }
}

/// Fast lane functions of the common integer operations: the same values
/// as [`alu::ibin`] (tested below).
pub(crate) mod fast {
    /// `add` cut to `mk`.
    #[inline(always)]
    pub fn add(x: u64, y: u64, mk: u64) -> u64 {
        x.wrapping_add(y) & mk
    }
    /// `mul.lo` of types up to 32 bits: the operands cut to 32 bits first,
    /// so the product of two zero-extended halves vectorises as one `pmuludq`.
    #[inline(always)]
    pub fn mul_lo32(x: u64, y: u64, mk: u64) -> u64 {
        (x & 0xffff_ffff).wrapping_mul(y & 0xffff_ffff) & mk
    }
    /// `mad.lo` of types up to 32 bits.
    #[inline(always)]
    pub fn mad_lo32(x: u64, y: u64, z: u64, mk: u64) -> u64 {
        (x & 0xffff_ffff).wrapping_mul(y & 0xffff_ffff).wrapping_add(z) & mk
    }
    /// Unsigned `div` / `rem` by `y`, a power of two: a shift or a mask.
    #[inline(always)]
    pub fn udivrem_pow2(div: bool, x: u64, y: u64, mk: u64) -> u64 {
        if div {
            (x & mk) >> y.trailing_zeros()
        } else {
            x & (y - 1) & mk
        }
    }
    /// Native-width `div` / `rem` (no 128-bit arithmetic), `None` for a zero
    /// divisor; wrapping MIN / -1 as `alu::ibin`.
    #[inline(always)]
    pub fn divrem(div: bool, signed: bool, bits: u32, x: u64, y: u64) -> Option<u64> {
        let mk = super::bits_mask(bits);
        if y & mk == 0 {
            return None;
        }
        Some(if signed {
            let (x, y) = (ptxsim_sem::alu::sext(x, bits), ptxsim_sem::alu::sext(y, bits));
            (if div { x.wrapping_div(y) } else { x.wrapping_rem(y) }) as u64 & mk
        } else {
            let (x, y) = (x & mk, y & mk);
            if div {
                x / y
            } else {
                x % y
            }
        })
    }
}

fn div_by_zero(op: IBinOp, l: usize) -> Trap {
    let what = if op == IBinOp::Div { "division" } else { "remainder" };
    Trap::lane(TrapKind::DivideByZero, l as u32, format!("integer {what} by zero (the result is unspecified in PTX)"))
}

#[inline(always)]
pub(super) fn ibin(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KArith>, (op, ty): (IBinOp, ITy), d: u32, [a, b]: [&Src; 2]) -> Result<(), Trap> {
    if let Some((k, o)) = k.as_ref() {
        k(&mut fr.regs, o, m);
        return Ok(());
    }
    if matches!(op, IBinOp::Div | IBinOp::Rem) {
        return divrem(cx, fr, m, (op, ty), d, [a, b]);
    }
    let (t0, t1);
    let (av, bv) = (opnd!(cx, a, t0), opnd!(cx, b, t1));
    let mk = ty.mask();
    let (regs, d) = (&mut fr.regs, d as usize);
    match op {
        IBinOp::Add => apply2(regs, d, m, av, bv, |x, y| fast::add(x, y, mk)),
        IBinOp::Sub => apply2(regs, d, m, av, bv, |x, y| x.wrapping_sub(y) & mk),
        IBinOp::MulLo if ty.bits <= 32 => apply2(regs, d, m, av, bv, |x, y| fast::mul_lo32(x, y, mk)),
        IBinOp::MulLo => apply2(regs, d, m, av, bv, |x, y| x.wrapping_mul(y) & mk),
        IBinOp::MulWide if ty.bits <= 32 && !ty.signed => apply2(regs, d, m, av, bv, |x, y| (x & mk) * (y & mk)),
        IBinOp::And => apply2(regs, d, m, av, bv, |x, y| x & y & mk),
        IBinOp::Or => apply2(regs, d, m, av, bv, |x, y| (x | y) & mk),
        IBinOp::Xor => apply2(regs, d, m, av, bv, |x, y| (x ^ y) & mk),
        IBinOp::Shl => match bv {
            Opnd::Imm(s) if s < ty.bits as u64 => apply1(regs, d, m, av, |x| (x << s) & mk),
            _ => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::Shl, ty, x, y)),
        },
        other => apply2(regs, d, m, av, bv, |x, y| ib(other, ty, x, y)),
    }
    Ok(())
}

/// `div` / `rem`: a trap on the first active lane with a zero divisor.
#[inline(always)]
fn divrem(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (op, ty): (IBinOp, ITy), d: u32, [a, b]: [&Src; 2]) -> Result<(), Trap> {
    let div = op == IBinOp::Div;
    // A nonzero immediate divisor cannot trap: every lane in one loop,
    // an unsigned power of two as a shift or mask.
    if let Src::Imm(v) = b {
        let (y, mk) = (*v & ty.mask(), ty.mask());
        if y != 0 && ty.bits <= 64 {
            let t0;
            let av = fetch!(cx, fr.regs, a, t0);
            let r: [u64; 32] = if !ty.signed && y.is_power_of_two() {
                std::array::from_fn(|l| fast::udivrem_pow2(div, av[l], y, mk))
            } else {
                std::array::from_fn(|l| fast::divrem(div, ty.signed, ty.bits, av[l], y).unwrap_or(0))
            };
            store(&mut fr.regs[d as usize], &r, m);
            return Ok(());
        }
    }
    let (t0, t1);
    let (av, bv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1));
    let mut r = [0u64; 32];
    if ty.bits <= 64 {
        for l in lanes(m) {
            let Some(v) = fast::divrem(div, ty.signed, ty.bits, av[l], bv[l]) else {
                return Err(div_by_zero(op, l));
            };
            r[l] = v;
        }
    } else {
        for l in lanes(m) {
            r[l] = alu::ibin(op, ty, av[l], bv[l]).map_err(|_| div_by_zero(op, l))?;
        }
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}

#[inline(always)]
pub(super) fn iun(cx: &Lanes<'_>, fr: &mut Frame, m: u32, op: IUnOp, ty: ITy, d: u32, a: &Src) {
    let t0;
    let av = opnd!(cx, a, t0);
    apply1(&mut fr.regs, d as usize, m, av, |x| alu::iun(op, ty, x));
}

#[inline(always)]
pub(super) fn mad(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KArith>, ((hi, wide, sat), ty): ((bool, bool, bool), ITy), d: u32, [a, b, c]: [&Src; 3]) {
    if let Some((k, o)) = k.as_ref() {
        return k(&mut fr.regs, o, m);
    }
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    let (regs, d, mk) = (&mut fr.regs, d as usize, ty.mask());
    if !hi && !wide && ty.bits <= 32 {
        apply3(regs, d, m, av, bv, cv, |x, y, z| fast::mad_lo32(x, y, z, mk))
    } else if !hi && !wide {
        apply3(regs, d, m, av, bv, cv, |x, y, z| x.wrapping_mul(y).wrapping_add(z) & mk)
    } else {
        apply3(regs, d, m, av, bv, cv, |x, y, z| alu::mad(hi, wide, sat, ty, x, y, z))
    }
}

/// One carry-chain step: CC.CF (predicate slot `cf`) is read when `cin`
/// and written on the lanes of `m` when `cout`.
pub(super) fn carry(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (kind, ty): (alu::ext::CarryKind, ITy), (cin, cout, cf): (bool, bool, u32), d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1), fetch!(cx, fr.regs, c, t2));
    // (Without a carry-in, a subtraction adds 1: `a + !b + 1`.)
    let flags = match (cin, kind) {
        (true, _) => fr.preds[cf as usize],
        (false, alu::ext::CarryKind::Sub) => u32::MAX,
        (false, _) => 0,
    };
    let mut r = [0u64; 32];
    let mut out = 0u32;
    for l in lanes(m) {
        let (v, co) = alu::ext::carry(kind, ty, av[l], bv[l], cv[l], flags >> l & 1 == 1);
        r[l] = v;
        out |= (co as u32) << l;
    }
    store(&mut fr.regs[d as usize], &r, m);
    if cout {
        set_pred(&mut fr.preds, cf, out, m);
    }
}

/// A [`alu::ext::Lane3Op`] on the lanes of `m`; the undefined case (`fns`
/// with a base above 31) traps naming the lane.
pub(super) fn lane3(cx: &Lanes<'_>, fr: &mut Frame, m: u32, op: alu::ext::Lane3Op, d: u32, [a, b, c]: [&Src; 3]) -> Result<(), Trap> {
    let (t0, t1, t2);
    let (av, bv, cv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1), fetch!(cx, fr.regs, c, t2));
    let mut r = [0u64; 32];
    for l in lanes(m) {
        r[l] = alu::ext::lane3(op, av[l], bv[l], cv[l]).ok_or_else(|| {
            Trap::lane(TrapKind::Trap, l as u32, format!("undefined behaviour: `fns.b32` with base {} (the manual requires a base of at most 31)", bv[l] as u32 as i32))
        })?;
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}

/// A packed half-precision instruction ([`alu::ext::half2`]) on the lanes of `m`.
pub(super) fn half2(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (op, ty, ftz, sat): (alu::ext::H2Op, FTy, bool, bool), d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1), fetch!(cx, fr.regs, c, t2));
    let mut r = [0u64; 32];
    for l in lanes(m) {
        r[l] = alu::ext::half2(op, ty, ftz, sat, av[l], bv[l], cv[l]);
    }
    store(&mut fr.regs[d as usize], &r, m);
}

/// `testp.op p, a` on the lanes of `m`.
pub(super) fn testp(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (op, f64): (alu::ext::TestpOp, bool), p: u32, a: &Src) {
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let mut v = 0u32;
    for l in lanes(m) {
        v |= (alu::ext::testp(op, f64, av[l]) as u32) << l;
    }
    set_pred(&mut fr.preds, p, v, m);
}

#[inline(always)]
pub(super) fn bfe(cx: &Lanes<'_>, fr: &mut Frame, m: u32, ty: ITy, d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, |x, y, z| alu::bfe(ty, x, y, z));
}

#[inline(always)]
pub(super) fn bfi(cx: &Lanes<'_>, fr: &mut Frame, m: u32, bits: u32, d: u32, [f, b, c, e]: [&Src; 4]) {
    let (t0, t1, t2, t3);
    let (fv, bv, cv, ev) = (fetch!(cx, fr.regs, f, t0), fetch!(cx, fr.regs, b, t1), fetch!(cx, fr.regs, c, t2), fetch!(cx, fr.regs, e, t3));
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = alu::bfi(bits, fv[l], bv[l], cv[l], ev[l]);
    }
    store(&mut fr.regs[d as usize], &r, m);
}

/// `lop3`, `shf`, `mul24`, `mad24` (one monomorphic lane loop per form).
pub(super) fn bits(cx: &Lanes<'_>, fr: &mut Frame, m: u32, op: alu::bits::BitsOp, d: u32, [a, b, c]: [&Src; 3]) {
    use alu::bits::{lop3, mul24, shf, BitsOp};
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    let (regs, d) = (&mut fr.regs, d as usize);
    match op {
        BitsOp::Lop3(lut) => apply3(regs, d, m, av, bv, cv, |x, y, z| lop3(lut, x, y, z)),
        BitsOp::Shf { left, clamp } => apply3(regs, d, m, av, bv, cv, |x, y, z| shf(left, clamp, x, y, z)),
        BitsOp::Mul24 { hi, signed, sat, mad } => apply3(regs, d, m, av, bv, cv, |x, y, z| mul24(hi, signed, sat, mad, x, y, z)),
    }
}

/// `lop3.{and,or}.b32 d|p, a, b, c, lut, q`: `d = lop3(lut, a, b, c)` and
/// `p = (d != 0) BoolOp q`, what ptxas 12.9 compiles it to (sm_80, sm_90:
/// `LOP3.LUT P1, R7, R0, R5, R4, 0x96, P0` for `.or`, `LOP3.LUT.PAND` for
/// `.and`, the same instructions it makes of `lop3.b32` followed by
/// `setp.ne.u32 p, d, 0` and `or.pred`/`and.pred`).
pub(super) fn lop3_pred(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (lut, or): (u8, bool), (d, p): (u32, Option<u32>), [a, b, c]: [&Src; 3], q: PSrc) {
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, |x, y, z| alu::bits::lop3(lut, x, y, z));
    if let Some(p) = p {
        let dv = &fr.regs[d as usize];
        let nz = (0..32).fold(0u32, |t, l| t | ((dv[l] as u32 != 0) as u32) << l);
        let qv = psrc(&fr.preds, q);
        set_pred(&mut fr.preds, p, if or { nz | qv } else { nz & qv }, m);
    }
}

/// `cvt.rna{.satfinite}.tf32.f32` on the lanes of `m` ([`alu::tf32_rna`]).
pub(super) fn cvt_tf32(cx: &Lanes<'_>, fr: &mut Frame, m: u32, satfinite: bool, d: u32, a: &Src) {
    let t0;
    let av = opnd!(cx, a, t0);
    apply1(&mut fr.regs, d as usize, m, av, |x| alu::tf32_rna(x as u32, satfinite) as u64);
}

/// `prmt.b32` with a mode ([`alu::prmt_mode`]).
pub(super) fn prmt_mode(cx: &Lanes<'_>, fr: &mut Frame, m: u32, mode: alu::PrmtMode, d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, |x, y, z| alu::prmt_mode(mode, x, y, z));
}

/// `fma.rn{.ftz}.relu.{f16,bf16}` ([`alu::ext::fma_relu`]).
pub(super) fn fma_relu(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (ty, ftz): (FTy, bool), d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, |x, y, z| alu::ext::fma_relu(ty, ftz, x, y, z));
}

#[inline(always)]
pub(super) fn prmt(cx: &Lanes<'_>, fr: &mut Frame, m: u32, d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, alu::prmt);
}

#[inline(always)]
pub(super) fn fbin(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KArith>, (op, ty, (ftz, sat, rnd)): (FBinOp, FTy, FMods), d: u32, [a, b]: [&Src; 2]) {
    if let Some((k, o)) = k.as_ref() {
        return k(&mut fr.regs, o, m);
    }
    let (t0, t1);
    let (av, bv) = (opnd!(cx, a, t0), opnd!(cx, b, t1));
    let (regs, d) = (&mut fr.regs, d as usize);
    match (op, ty, ftz, sat) {
        _ if !matches!(rnd, None | Some(Rounding::Rn)) => apply2(regs, d, m, av, bv, |x, y| alu::fbin_rnd(op, ty, ftz, sat, rnd, x, y)),
        // The common cases get their own monomorphic lane loop.
        (FBinOp::Add, FTy::F32, false, false) => apply2(regs, d, m, av, bv, |x, y| alu::fbin(FBinOp::Add, FTy::F32, false, false, x, y)),
        (FBinOp::Mul, FTy::F32, false, false) => apply2(regs, d, m, av, bv, |x, y| alu::fbin(FBinOp::Mul, FTy::F32, false, false, x, y)),
        _ => apply2(regs, d, m, av, bv, |x, y| alu::fbin(op, ty, ftz, sat, x, y)),
    }
}

#[inline(always)]
pub(super) fn fun(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KArith>, (op, ty, ftz, rnd): (FUnOp, FTy, bool, Option<Rounding>), d: u32, a: &Src) {
    if let Some((k, o)) = k.as_ref() {
        return k(&mut fr.regs, o, m);
    }
    let t0;
    let av = opnd!(cx, a, t0);
    apply1(&mut fr.regs, d as usize, m, av, |x| alu::fun_rnd(op, ty, ftz, rnd, x));
}

#[inline(always)]
pub(super) fn fma(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KArith>, (ty, (ftz, sat, rnd)): (FTy, FMods), d: u32, [a, b, c]: [&Src; 3]) {
    if let Some((k, o)) = k.as_ref() {
        return k(&mut fr.regs, o, m);
    }
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, |x, y, z| alu::fma_rnd(ty, ftz, sat, rnd, x, y, z));
}

/// The lanes where `a cmp b` holds (all 32 computed).
#[inline(always)]
fn compare(regs: &[[u64; 32]], cmp: CmpOp, ty: ITyOrF, ftz: bool, av: Opnd<'_>, bv: Opnd<'_>) -> u32 {
    let it = match ty {
        ITyOrF::F(f) => return test2(regs, av, bv, |x, y| alu::fcmp(cmp, f, ftz, x, y)),
        ITyOrF::I(it) => it,
    };
    // Integer comparisons with the operator inlined per case (the same
    // truth as `alu::icmp`, tested below).
    let mk = it.mask();
    macro_rules! cmpu {
        ($op:tt) => {
            test2(regs, av, bv, |x, y| (x & mk) $op (y & mk))
        };
    }
    macro_rules! cmps {
        ($op:tt) => {
            test2(regs, av, bv, |x, y| alu::sext(x, it.bits) $op alu::sext(y, it.bits))
        };
    }
    use CmpOp as C;
    match (cmp, it.signed) {
        (C::Eq, _) => cmpu!(==),
        (C::Ne, _) => cmpu!(!=),
        (C::Lt, true) => cmps!(<),
        (C::Le, true) => cmps!(<=),
        (C::Gt, true) => cmps!(>),
        (C::Ge, true) => cmps!(>=),
        (C::Lt, false) | (C::Lo, _) => cmpu!(<),
        (C::Le, false) | (C::Ls, _) => cmpu!(<=),
        (C::Gt, false) | (C::Hi, _) => cmpu!(>),
        (C::Ge, false) | (C::Hs, _) => cmpu!(>=),
        _ => test2(regs, av, bv, |x, y| alu::icmp(cmp, it, x, y)),
    }
}

/// The comparison kernel of `setp`/`set` with operator `cmp` on type `ty`
/// (`flanes.rs`), chosen when the instruction is decoded.
pub(crate) fn select_cmp(p: Path, cmp: CmpOp, ty: ITyOrF, ftz: bool, sh: u8) -> Option<KCmp> {
    match ty {
        ITyOrF::F(f) => flanes::select_fcmp(p, cmp, f, ftz, sh),
        ITyOrF::I(it) => flanes::select_icmp(p, cmp, it, sh),
    }
}

/// The lanes where `a cmp b` holds, through the instruction's kernel
/// where it has one.
#[inline(always)]
fn cmp_lanes(cx: &Lanes<'_>, regs: &[[u64; 32]], k: &Kern<KCmpOps>, (cmp, ty, ftz): (CmpOp, ITyOrF, bool), a: &Src, b: &Src) -> u32 {
    if let Some((k, o)) = k.as_ref() {
        return k(regs, o);
    }
    let (t0, t1);
    let (av, bv) = (opnd!(cx, a, t0), opnd!(cx, b, t1));
    compare(regs, cmp, ty, ftz, av, bv)
}

/// `t` combined with predicate `c` by `op` (`setp`/`set`'s `.and/.or/.xor`),
/// and the same for `!t`.
#[inline(always)]
fn combine(t: u32, comb: Option<(BoolOp, PSrc)>, preds: &[u32]) -> (u32, u32) {
    match comb {
        None => (t, !t),
        Some((op, c)) => {
            let cv = psrc(preds, c);
            match op {
                BoolOp::And => (t & cv, !t & cv),
                BoolOp::Or => (t | cv, !t | cv),
                BoolOp::Xor => (t ^ cv, !t ^ cv),
            }
        }
    }
}

#[inline(always)]
pub(super) fn setp(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KCmpOps>, (form, comb): ((CmpOp, ITyOrF, bool), Comb), (p, q): (Option<u32>, Option<u32>), [a, b]: [&Src; 2]) {
    let t = cmp_lanes(cx, &fr.regs, k, form, a, b);
    let (pv, qv) = combine(t, comb, &fr.preds);
    if let Some(p) = p {
        set_pred(&mut fr.preds, p, pv, m);
    }
    if let Some(q) = q {
        set_pred(&mut fr.preds, q, qv, m);
    }
}

pub(super) fn set(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KCmpOps>, (form, comb): ((CmpOp, ITyOrF, bool), Comb), (one, d): (u32, u32), [a, b]: [&Src; 2]) {
    let t = cmp_lanes(cx, &fr.regs, k, form, a, b);
    let (v, _) = combine(t, comb, &fr.preds);
    let r: [u64; 32] = std::array::from_fn(|l| if v >> l & 1 != 0 { one as u64 } else { 0 });
    store(&mut fr.regs[d as usize], &r, m);
}

/// The lanes where the lower (`.0`) and the upper (`.1`) halves of `a` and
/// `b` compare true (`.f16x2`/`.bf16x2`), each combined with `c` by the
/// BoolOp: the manual's `p = BoolOp(t[0], c)`, `q = BoolOp(t[1], c)`.
fn cmp_halves(cx: &Lanes<'_>, fr: &Frame, (cmp, ty, ftz): (CmpOp, FTy, bool), a: &Src, b: &Src, comb: Option<(BoolOp, PSrc)>) -> (u32, u32) {
    let (t0, t1);
    let (av, bv) = (opnd!(cx, a, t0), opnd!(cx, b, t1));
    let lo = test2(&fr.regs, av, bv, |x, y| alu::fcmp(cmp, ty, ftz, x & 0xffff, y & 0xffff));
    let hi = test2(&fr.regs, av, bv, |x, y| alu::fcmp(cmp, ty, ftz, x >> 16 & 0xffff, y >> 16 & 0xffff));
    (combine(lo, comb, &fr.preds).0, combine(hi, comb, &fr.preds).0)
}

pub(super) fn setp_x2(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (form, comb): ((CmpOp, FTy, bool), Comb), (p, q): (Option<u32>, Option<u32>), [a, b]: [&Src; 2]) {
    let (lo, hi) = cmp_halves(cx, fr, form, a, b, comb);
    if let Some(p) = p {
        set_pred(&mut fr.preds, p, lo, m);
    }
    if let Some(q) = q {
        set_pred(&mut fr.preds, q, hi, m);
    }
}

pub(super) fn set_x2(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (form, comb): ((CmpOp, FTy, bool), Comb), (one, d): (u16, u32), [a, b]: [&Src; 2]) {
    let (lo, hi) = cmp_halves(cx, fr, form, a, b, comb);
    let half = |v: u32, l: usize| if v >> l & 1 != 0 { one as u64 } else { 0 };
    let r: [u64; 32] = std::array::from_fn(|l| half(lo, l) | half(hi, l) << 16);
    store(&mut fr.regs[d as usize], &r, m);
}

pub(super) fn selp(cx: &Lanes<'_>, fr: &mut Frame, m: u32, bits: u32, d: u32, ([a, b], c): ([&Src; 2], PSrc)) {
    let (t0, t1);
    let (av, bv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1));
    let cv = psrc(&fr.preds, c);
    let mk = bits_mask(bits);
    let r: [u64; 32] = std::array::from_fn(|l| if cv >> l & 1 == 1 { av[l] } else { bv[l] } & mk);
    store(&mut fr.regs[d as usize], &r, m);
}

pub(super) fn slct(cx: &Lanes<'_>, fr: &mut Frame, m: u32, bits: u32, cf: Option<bool>, d: u32, [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (opnd!(cx, a, t0), opnd!(cx, b, t1), opnd!(cx, c, t2));
    let mk = bits_mask(bits);
    apply3(&mut fr.regs, d as usize, m, av, bv, cv, |x, y, z| {
        let ge = match cf {
            Some(ftz) => {
                let mut f = f32::from_bits(z as u32);
                if ftz {
                    f = alu::ftz32(f);
                }
                f >= 0.0
            }
            None => (z as u32 as i32) >= 0,
        };
        if ge {
            x & mk
        } else {
            y & mk
        }
    });
}

pub(super) fn pred_logic(fr: &mut Frame, m: u32, op: PredOp, d: u32, a: PSrc, b: PSrc) {
    let (av, bv) = (psrc(&fr.preds, a), psrc(&fr.preds, b));
    let v = match op {
        PredOp::And => av & bv,
        PredOp::Or => av | bv,
        PredOp::Xor => av ^ bv,
        PredOp::Not => !av,
        PredOp::Mov => av,
    };
    set_pred(&mut fr.preds, d, v, m);
}

pub(super) fn pack(cx: &Lanes<'_>, fr: &mut Frame, m: u32, d: u32, parts: &[Src], part_bits: u32) {
    let mut r = [0u64; 32];
    let mk = bits_mask(part_bits);
    for (k, s) in parts.iter().enumerate() {
        let t0;
        let v = fetch!(cx, fr.regs, s, t0);
        for l in 0..32 {
            r[l] |= (v[l] & mk) << (k as u32 * part_bits);
        }
    }
    store(&mut fr.regs[d as usize], &r, m);
}

pub(super) fn unpack(cx: &Lanes<'_>, fr: &mut Frame, m: u32, ds: &[Option<u32>], a: &Src, part_bits: u32) {
    let t0;
    let v = *fetch!(cx, fr.regs, a, t0);
    let mk = bits_mask(part_bits);
    for (k, d) in ds.iter().enumerate() {
        if let Some(d) = d {
            let r = v.map(|x| (x >> (k as u32 * part_bits)) & mk);
            store(&mut fr.regs[*d as usize], &r, m);
        }
    }
}

#[inline(always)]
pub(super) fn cvt(cx: &Lanes<'_>, fr: &mut Frame, m: u32, k: &Kern<KArith>, ((dst, src), (rnd, sat, ftz)): ((CvtTy, CvtTy), (Option<Rounding>, bool, bool)), d: u32, a: &Src) {
    let t0;
    let av = opnd!(cx, a, t0);
    let (regs, d) = (&mut fr.regs, d as usize);
    match (dst, src, sat) {
        // Integer to integer without saturation: sign- or zero-extend by
        // the source type, cut to the destination, and an .s8 or .s16
        // result sign-extended in its register (as `cvt::cvt`).
        (CvtTy::I(dt), CvtTy::I(st), false) => {
            let (dm, sm, sb, db) = (dt.mask(), st.mask(), st.bits, dt.bits);
            match (st.signed, dt.signed && db < 32) {
                (true, false) => apply1(regs, d, m, av, |x| alu::sext(x, sb) as u64 & dm),
                (false, false) => apply1(regs, d, m, av, |x| x & sm & dm),
                (true, true) => apply1(regs, d, m, av, |x| alu::sext(alu::sext(x, sb) as u64 & dm, db) as u64),
                (false, true) => apply1(regs, d, m, av, |x| alu::sext(x & sm & dm, db) as u64),
            }
        }
        _ => match k.as_ref() {
            Some((k, o)) => k(regs, o, m),
            None => apply1(regs, d, m, av, |x| ptxsim_sem::cvt::cvt(dst, src, rnd, sat, ftz, x)),
        },
    }
}

pub(super) fn cvta(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (to, space, bits): (bool, Space, u32), d: u32, a: &Src) {
    let t0;
    let av = opnd!(cx, a, t0);
    let win = match space {
        Space::Shared => SHARED_WINDOW,
        Space::Local => LOCAL_WINDOW,
        Space::Const => CONST_WINDOW,
        Space::KernelParam => PARAM_WINDOW,
        _ => 0,
    };
    let mk = bits_mask(bits);
    if let (0, u64::MAX, Opnd::Reg(r)) = (win, mk, av) {
        // A 64-bit global address is its own generic address: a copy.
        let d = d as usize;
        if m == u32::MAX {
            fr.regs[d] = fr.regs[r];
        } else if r != d {
            let v = fr.regs[r];
            store(&mut fr.regs[d], &v, m);
        }
        return;
    }
    if to {
        apply1(&mut fr.regs, d as usize, m, av, |x| x.wrapping_sub(win) & mk);
    } else {
        apply1(&mut fr.regs, d as usize, m, av, |x| x.wrapping_add(win) & mk);
    }
}

#[cfg(test)]
mod tests {
    //! The fast lane functions against the `alu` / `cvt` functions they
    //! stand for, on random operands and the edge values.
    use super::fast;
    use ptxsim_sem::alu::{self, CmpOp, IBinOp, ITy};
    use proptest::prelude::*;

    fn ity() -> impl Strategy<Value = ITy> {
        (prop_oneof![Just(8u32), Just(16), Just(32), Just(64)], any::<bool>()).prop_map(|(bits, signed)| ITy { bits, signed })
    }

    fn val() -> impl Strategy<Value = u64> {
        prop_oneof![any::<u64>(), Just(0), Just(1), Just(u64::MAX), Just(0x8000_0000), Just(0xffff_ffff), Just(1 << 63), Just(0x80), Just(0x8000)]
    }

    proptest! {
        #[test]
        fn fast_int_ops_equal_alu(ty in ity(), x in val(), y in val(), z in val()) {
            let mk = ty.mask();
            // The engine keeps register values cut to their type.
            let (x, y, z) = (x & mk, y & mk, z & mk);
            prop_assert_eq!(fast::add(x, y, mk), alu::ibin(IBinOp::Add, ty, x, y).unwrap());
            if ty.bits <= 32 {
                prop_assert_eq!(fast::mul_lo32(x, y, mk), alu::ibin(IBinOp::MulLo, ty, x, y).unwrap());
                prop_assert_eq!(fast::mad_lo32(x, y, z, mk), alu::mad(false, false, false, ty, x, y, z));
                if !ty.signed {
                    prop_assert_eq!((x & mk) * (y & mk), alu::ibin(IBinOp::MulWide, ty, x, y).unwrap());
                }
            }
            for (op, div) in [(IBinOp::Div, true), (IBinOp::Rem, false)] {
                prop_assert_eq!(fast::divrem(div, ty.signed, ty.bits, x, y), alu::ibin(op, ty, x, y).ok());
                if !ty.signed {
                    for s in 0..ty.bits {
                        let p2 = 1u64 << s;
                        prop_assert_eq!(fast::udivrem_pow2(div, x, p2, mk), alu::ibin(op, ty, x, p2).unwrap(), "{:?} {:?} {:#x} / 2^{}", op, ty, x, s);
                    }
                }
            }
            for s in 0..ty.bits as u64 {
                prop_assert_eq!((x << s) & mk, alu::ibin(IBinOp::Shl, ty, x, s).unwrap());
            }
        }

        #[test]
        fn fast_compares_equal_icmp(ty in ity(), x in val(), y in val()) {
            use crate::lanes::Opnd;
            use crate::program::ITyOrF;
            let regs = vec![[x; 32], [y; 32]];
            for cmp in [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Lo, CmpOp::Ls, CmpOp::Hi, CmpOp::Hs] {
                let t = super::compare(&regs, cmp, ITyOrF::I(ty), false, Opnd::Reg(0), Opnd::Reg(1));
                let want = if alu::icmp(cmp, ty, x, y) { u32::MAX } else { 0 };
                prop_assert_eq!(t, want, "{:?} {:?}", cmp, ty);
            }
        }
    }
}
