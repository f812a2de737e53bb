//! Decoding the typed multiply-add and carry rows from their
//! [`ptxsim_isa::Insn`] fields: `mad` (into [`Op::Mad`], [`Op::Fma`] on
//! floats, [`Op::Carry`] with `.cc`), `addc`, `subc`, `madc` (into
//! [`Op::Carry`], 32 and 64 bits, without `.sat`: the forms ptxas 12.9
//! also takes, `addc.u16` and `addc.sat.s32`, are not run yet) and `fma`
//! (into [`Op::Fma`], [`Op::FmaRelu`], [`Op::Half2`] on the packed half
//! types; `.oob`, `.f32x2` and a directed rounding on a half type are not
//! run yet). A combination the row's
//! `misfit` refuses is not run. The operand count was checked from the
//! row's roles.

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::decode::{fty, ity, MAX_REGS};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{CarryOp, FRnd, Half, Insn, MulMode};
use ptxsim_sem::alu::ext::{CarryKind, H2Op};
use ptxsim_sem::alu::{FTy, Rounding};
use ptxsim_syntax::ast::{self, ScalarType};

/// The engine's rounding of a float rounding modifier.
pub(super) fn rounding(r: FRnd) -> Rounding {
    match r {
        FRnd::Rn => Rounding::Rn,
        FRnd::Rz => Rounding::Rz,
        FRnd::Rm => Rounding::Rm,
        FRnd::Rp => Rounding::Rp,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The hidden predicate slot that holds the thread's CC.CF in this
    /// function (the carry chain of `add.cc`, `addc`, `mad.cc`, ...).
    pub(super) fn carry_flag(&mut self) -> R<u32> {
        if let Some(s) = self.carry {
            return Ok(s);
        }
        let Some(crate::decode::Sym::Pred(s)) = self.slot(true) else {
            return Err(DecodeError::Limit(format!("more than {MAX_REGS} registers in one function")));
        };
        self.carry = Some(s);
        Ok(s)
    }

    /// `d, a, b, c`, each read as `k` (`c` as `kc`).
    fn four(&mut self, i: &ast::Instruction<'_>, k: ImmKind, kc: ImmKind) -> R<(u32, Src, Src, Src)> {
        let ops = &i.operands;
        let d = self.dst(&ops[0])?;
        Ok((d, self.src(&ops[1], k)?, self.src(&ops[2], k)?, self.src(&ops[3], kc)?))
    }

    /// `mad` (PTX ISA 9.7.1.4, 9.7.2.5, 9.7.3.4).
    pub(super) fn mad(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.mad().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        if let Some(f) = fty(x.ty) {
            let k = ImmKind::Float(f);
            let (d, a, b, c) = self.four(i, k, k)?;
            return Ok(Op::Fma { ty: f, ftz: x.ftz, sat: x.sat, rnd: x.rnd.map(rounding), d, a, b, c, k: Kern::NONE });
        }
        let ty = ity(x.ty).ok_or_else(unsupported)?;
        let k = ImmKind::Int(ty.bits);
        if x.cc {
            let kind = if x.mode == Some(MulMode::Hi) { CarryKind::MadHi } else { CarryKind::MadLo };
            let (d, a, b, c) = self.four(i, k, k)?;
            let cf = self.carry_flag()?;
            return Ok(Op::Carry { kind, ty, cin: false, cout: true, cf, d, a, b, c });
        }
        let (hi, wide) = (x.mode == Some(MulMode::Hi), x.mode == Some(MulMode::Wide));
        let (d, a, b, c) = self.four(i, k, ImmKind::Int(if wide { ty.bits * 2 } else { ty.bits }))?;
        Ok(Op::Mad { hi, wide, sat: x.sat, ty, d, a, b, c, k: Kern::NONE })
    }

    /// `addc{.cc}`, `subc{.cc}` `.type d, a, b` and `madc{.lo,.hi}{.cc}`
    /// `.type d, a, b, c`, type `.u32 .s32 .u64 .s64` (PTX ISA 9.7.2).
    pub(super) fn carry(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.carry().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        let ty = ity(x.ty).ok_or_else(unsupported)?;
        if x.sat || ty.bits < 32 {
            return Err(unsupported());
        }
        let kind = match x.op {
            CarryOp::Addc => CarryKind::Add,
            CarryOp::Subc => CarryKind::Sub,
            CarryOp::Madc(Half::Hi) => CarryKind::MadHi,
            CarryOp::Madc(Half::Lo) => CarryKind::MadLo,
        };
        let k = ImmKind::Int(ty.bits);
        let ops = &i.operands;
        let d = self.dst(&ops[0])?;
        let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
        let c = if matches!(x.op, CarryOp::Madc(_)) { self.src(&ops[3], k)? } else { Src::Imm(0) };
        let cf = self.carry_flag()?;
        Ok(Op::Carry { kind, ty, cin: true, cout: x.cc, cf, d, a, b, c })
    }

    /// `fma` (PTX ISA 9.7.3.4, 9.7.4.4).
    pub(super) fn fma(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.fma().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        // `.oob` (a result of +0 where an operand is the tensor
        // out-of-bounds NaN) is not run: the manual does not give that
        // NaN's bits.
        if x.ty.is_none() && x.packed == Some(ptxsim_isa::PackedTy::F32x2) && !x.oob && !x.relu && !x.sat {
            return self.f32x2(i, ptxsim_sem::alu::ext::F2Op::Fma, x.ftz, x.rnd);
        }
        let t = x.ty.filter(|_| !x.oob).ok_or_else(unsupported)?;
        // A directed rounding (bfloat16 takes one) is run on `.f32` and
        // `.f64` only.
        if x.rnd != Some(FRnd::Rn) && !matches!(t, ScalarType::F32 | ScalarType::F64) {
            return Err(unsupported());
        }
        if matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2) {
            let ty = if t == ScalarType::Bf16x2 { FTy::BF16 } else { FTy::F16 };
            let op = if x.relu { H2Op::FmaRelu } else { H2Op::Fma };
            let k = ImmKind::Int(32);
            let (d, a, b, c) = self.four(i, k, k)?;
            return Ok(Op::Half2 { op, ty, ftz: x.ftz, sat: x.sat, d, a, b, c });
        }
        let f = fty(t).ok_or_else(unsupported)?;
        if x.relu {
            // `fma.rn{.ftz}.relu.{f16,bf16}` (no `.sat`).
            let k = ImmKind::Int(16);
            let (d, a, b, c) = self.four(i, k, k)?;
            return Ok(Op::FmaRelu { ty: f, ftz: x.ftz, d, a, b, c });
        }
        let k = ImmKind::Float(f);
        let (d, a, b, c) = self.four(i, k, k)?;
        Ok(Op::Fma { ty: f, ftz: x.ftz, sat: x.sat, rnd: x.rnd.map(rounding), d, a, b, c, k: Kern::NONE })
    }
}
