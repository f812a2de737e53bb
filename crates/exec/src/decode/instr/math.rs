//! Decoding the typed division and special-function rows from their
//! [`ptxsim_isa::Insn`] fields: `div` (into [`Op::FBin`], `.approx.f32`
//! as its own operation, or [`Op::IBin`]), `rcp`, `sqrt`, `rsqrt`, `sin`,
//! `cos`, `lg2`, `ex2`, `tanh` (into [`Op::FUn`], [`Op::Half2`] on the
//! packed half types). The approximate forms are computed exactly rounded,
//! within every bound of the manual. A combination the row's `misfit`
//! refuses is not run, nor `rcp.rnd.ftz.f64` (which ptxas takes but the
//! manual does not list). The operand count was checked from the row's
//! roles.

use super::fma::rounding;
use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::decode::{fty, ity};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{DivMode, Insn, MathOp};
use ptxsim_sem::alu::ext::H2Op;
use ptxsim_sem::alu::{FBinOp, FTy, FUnOp, IBinOp};
use ptxsim_syntax::ast::{self, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `div` (PTX ISA 9.7.1.8, 9.7.3.6).
    pub(super) fn div(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.div().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        let ops = &i.operands;
        if let Some(f) = fty(x.ty) {
            // `div.approx.f32` has its own result for huge divisors.
            let op = if x.mode == Some(DivMode::Approx) && f == FTy::F32 { FBinOp::DivApprox } else { FBinOp::Div };
            let k = ImmKind::Float(f);
            let d = self.dst(&ops[0])?;
            let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
            return Ok(Op::FBin { op, ty: f, ftz: x.ftz, sat: false, rnd: x.rnd.map(rounding), d, a, b, k: Kern::NONE });
        }
        let ty = ity(x.ty).ok_or_else(unsupported)?;
        let k = ImmKind::Int(ty.bits);
        let d = self.dst(&ops[0])?;
        let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
        Ok(Op::IBin { op: IBinOp::Div, ty, d, a, b, k: Kern::NONE })
    }

    /// `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh` (PTX ISA
    /// 9.7.3.13-23, 9.7.4.10-11).
    pub(super) fn math(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.math().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        let op = match x.op {
            MathOp::Rcp => FUnOp::Rcp,
            MathOp::Sqrt => FUnOp::Sqrt,
            MathOp::Rsqrt => FUnOp::Rsqrt,
            MathOp::Sin => FUnOp::Sin,
            MathOp::Cos => FUnOp::Cos,
            MathOp::Lg2 => FUnOp::Lg2,
            MathOp::Ex2 => FUnOp::Ex2,
            MathOp::Tanh => FUnOp::Tanh,
        };
        let ops = &i.operands;
        if matches!(x.ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
            let ty = if x.ty == ScalarType::Bf16x2 { FTy::BF16 } else { FTy::F16 };
            let d = self.dst(&ops[0])?;
            let a = self.src(&ops[1], ImmKind::Int(32))?;
            return Ok(Op::Half2 { op: H2Op::Un(op), ty, ftz: x.ftz, sat: false, d, a, b: Src::Imm(0), c: Src::Imm(0) });
        }
        let f = fty(x.ty).ok_or_else(unsupported)?;
        // `.ftz` on `.f64` is `rcp.approx.ftz.f64` (and `rsqrt`);
        // `rcp.rnd.ftz.f64`, which ptxas takes, is not in the manual: not
        // run as the approximation.
        if f == FTy::F64 && x.ftz && x.rnd.is_some() {
            return Err(unsupported());
        }
        let k = if matches!(f, FTy::F16 | FTy::BF16) { ImmKind::Int(16) } else { ImmKind::Float(f) };
        let d = self.dst(&ops[0])?;
        let a = self.src(&ops[1], k)?;
        Ok(Op::FUn { op, ty: f, ftz: x.ftz, rnd: x.rnd.map(rounding), d, a, k: Kern::NONE })
    }
}
