//! Decoding the typed logic, shift and plain integer/float rows from their
//! [`ptxsim_isa::Insn`] fields: `and`, `or`, `xor`, `not` (on predicates
//! into [`Op::PredLogic`], on bit types into [`Op::IBin`]/[`Op::IUn`]),
//! `shl`, `shr` (a 32-bit shift amount), `rem` into [`Op::IBin`], and
//! `copysign` into [`Op::FBin`] (semantics in [`ptxsim_sem::alu`]), and
//! `neg`, `abs` (into [`Op::IUn`], [`Op::FUn`], or [`Op::Half2`] on the
//! packed half types), `add`, `sub` (into [`Op::IBin`], [`Op::FBin`],
//! [`Op::Half2`], [`Op::Carry`] with `.cc`, [`Op::Lane3`] on the packed
//! 16-bit integers), `mul` (into [`Op::IBin`], [`Op::FBin`],
//! [`Op::Half2`]) and `min`, `max` (the same, and [`Op::Lane3`] for the
//! packed integers and `.relu.s32`). The operand count was checked from the row's roles.

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::decode::{fty, ity};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::Insn;
use ptxsim_isa::{FRnd, MulMode, PackedTy};
use ptxsim_sem::alu::ext::{CarryKind, F2Op, H2Op, Lane3Op, P16Op};
use ptxsim_sem::alu::{FBinOp, FTy, FUnOp, IBinOp, IUnOp, Rounding};
use ptxsim_syntax::ast::{self, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `and`, `or`, `xor`, `not`, `shl`, `shr`, `rem`, `copysign`.
    pub(super) fn logic(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let ops = &i.operands;
        let unsupported = || DecodeError::Unsupported(opname(i));
        let (op, ty) = match insn {
            Insn::And { ty } => (IBinOp::And, ty),
            Insn::Or { ty } => (IBinOp::Or, ty),
            Insn::Xor { ty } => (IBinOp::Xor, ty),
            Insn::Shl { ty } => (IBinOp::Shl, ty),
            Insn::Shr { ty } => (IBinOp::Shr, ty),
            Insn::Rem { ty } => (IBinOp::Rem, ty),
            Insn::Not { ty } if ty == ScalarType::Pred => {
                let d = self.pdst(&ops[0])?.ok_or("sink destination")?;
                return Ok(Op::PredLogic { op: PredOp::Not, d, a: self.psrc(&ops[1])?, b: PSrc::Const(false) });
            }
            Insn::Not { ty } => {
                let ty = ity(ty).ok_or_else(unsupported)?;
                let d = self.dst(&ops[0])?;
                let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
                return Ok(Op::IUn { op: IUnOp::Not, ty, d, a });
            }
            Insn::Copysign { ty } => {
                let f = fty(ty).ok_or_else(unsupported)?;
                let d = self.dst(&ops[0])?;
                let (a, b) = (self.src(&ops[1], ImmKind::Float(f))?, self.src(&ops[2], ImmKind::Float(f))?);
                return Ok(Op::FBin { op: FBinOp::Copysign, ty: f, ftz: false, sat: false, rnd: None, d, a, b, k: Kern::NONE });
            }
            _ => return Err(unsupported()),
        };
        if ty == ScalarType::Pred {
            let op = match op {
                IBinOp::And => PredOp::And,
                IBinOp::Or => PredOp::Or,
                IBinOp::Xor => PredOp::Xor,
                _ => return Err(unsupported()),
            };
            let d = self.pdst(&ops[0])?.ok_or("sink destination")?;
            return Ok(Op::PredLogic { op, d, a: self.psrc(&ops[1])?, b: self.psrc(&ops[2])? });
        }
        let ty = ity(ty).ok_or_else(unsupported)?;
        let d = self.dst(&ops[0])?;
        let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
        let bb = if matches!(op, IBinOp::Shl | IBinOp::Shr) { 32 } else { ty.bits };
        let b = self.src(&ops[2], ImmKind::Int(bb))?;
        Ok(Op::IBin { op, ty, d, a, b, k: Kern::NONE })
    }

    /// `neg` and `abs` on the signed integers, `.f32`, `.f64`, and the
    /// half types (PTX ISA 9.7.1.13-14, 9.7.3.7-8, 9.7.4.5-6); a `.ftz`
    /// the row's `misfit` refuses (`.f64`, integers, bfloat16) is not run.
    pub(super) fn neg_abs(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        if insn.misfit().is_some() {
            return Err(unsupported());
        }
        let (neg, ftz, ty) = match insn {
            Insn::Neg { ftz, ty } => (true, ftz, ty),
            Insn::Abs { ftz, ty } => (false, ftz, ty),
            _ => return Err(unsupported()),
        };
        let ops = &i.operands;
        let d = self.dst(&ops[0])?;
        if matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
            let h = if ty == ScalarType::Bf16x2 { FTy::BF16 } else { FTy::F16 };
            let a = self.src(&ops[1], ImmKind::Int(32))?;
            let op = H2Op::Un(if neg { FUnOp::Neg } else { FUnOp::Abs });
            return Ok(Op::Half2 { op, ty: h, ftz, sat: false, d, a, b: Src::Imm(0), c: Src::Imm(0) });
        }
        if let Some(f) = fty(ty) {
            let a = self.src(&ops[1], ImmKind::Float(f))?;
            let op = if neg { FUnOp::Neg } else { FUnOp::Abs };
            return Ok(Op::FUn { op, ty: f, ftz, rnd: None, d, a, k: Kern::NONE });
        }
        let ty = ity(ty).ok_or_else(unsupported)?;
        let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
        Ok(Op::IUn { op: if neg { IUnOp::Neg } else { IUnOp::Abs }, ty, d, a })
    }

    /// `add`, `sub`, `mul` and `fma` on `.f32x2` (two `.f32` in a 64-bit
    /// register): [`Lane3Op::F32x2`].
    pub(super) fn f32x2(&mut self, i: &ast::Instruction<'_>, op: F2Op, ftz: bool, rnd: Option<FRnd>) -> R<Op> {
        let k = ImmKind::Int(64);
        let ops = &i.operands;
        let d = self.dst(&ops[0])?;
        let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
        let c = match ops.get(3) {
            Some(o) => self.src(o, k)?,
            None => Src::Imm(0),
        };
        Ok(Op::Lane3 { op: Lane3Op::F32x2 { op, ftz, rnd: rnd.map(super::fma::rounding) }, d, a, b, c })
    }

    /// `add` and `sub` (PTX ISA 9.7.1.1-2, 9.7.2.1-2, 9.7.3.1-2,
    /// 9.7.4.1-2, `.f32x2`); a combination the row's `misfit` refuses is
    /// not run.
    pub(super) fn add_sub(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.add_sub().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        let ops = &i.operands;
        let Some(t) = x.ty else {
            let signed = match x.packed {
                Some(PackedTy::U16x2) => false,
                Some(PackedTy::S16x2) => true,
                Some(PackedTy::F32x2) => {
                    let op = if x.sub { F2Op::Sub } else { F2Op::Add };
                    return self.f32x2(i, op, x.ftz, x.rnd);
                }
                None => return Err(unsupported()),
            };
            let k = ImmKind::Int(32);
            let d = self.dst(&ops[0])?;
            let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
            return Ok(Op::Lane3 { op: Lane3Op::Packed16 { op: P16Op::Add, signed, relu: false }, d, a, b, c: Src::Imm(0) });
        };
        let fop = if x.sub { FBinOp::Sub } else { FBinOp::Add };
        if matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2) {
            return self.half2_bin(i, fop, t, x.ftz, x.sat);
        }
        if let Some(f) = fty(t) {
            return self.float_bin(i, fop, f, (x.rnd, x.ftz, x.sat));
        }
        let ty = ity(t).ok_or_else(unsupported)?;
        let k = ImmKind::Int(ty.bits);
        let d = self.dst(&ops[0])?;
        let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
        if x.cc {
            let kind = if x.sub { CarryKind::Sub } else { CarryKind::Add };
            let cf = self.carry_flag()?;
            return Ok(Op::Carry { kind, ty, cin: false, cout: true, cf, d, a, b, c: Src::Imm(0) });
        }
        let op = match (x.sub, x.sat) {
            (false, false) => IBinOp::Add,
            (false, true) => IBinOp::AddSat,
            (true, false) => IBinOp::Sub,
            (true, true) => IBinOp::SubSat,
        };
        Ok(Op::IBin { op, ty, d, a, b, k: Kern::NONE })
    }

    /// `mul` (PTX ISA 9.7.1.3, 9.7.3.3, 9.7.4.3); a combination the row's
    /// `misfit` refuses is not run, nor `.f32x2` yet.
    pub(super) fn mul(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.mul().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        if x.ty.is_none() && x.packed == Some(PackedTy::F32x2) {
            return self.f32x2(i, F2Op::Mul, x.ftz, x.rnd);
        }
        let t = x.ty.ok_or_else(unsupported)?;
        if matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2) {
            return self.half2_bin(i, FBinOp::Mul, t, x.ftz, x.sat);
        }
        if let Some(f) = fty(t) {
            return self.float_bin(i, FBinOp::Mul, f, (x.rnd, x.ftz, x.sat));
        }
        let ty = ity(t).ok_or_else(unsupported)?;
        let op = match x.mode {
            Some(MulMode::Wide) => IBinOp::MulWide,
            Some(MulMode::Hi) => IBinOp::MulHi,
            Some(MulMode::Lo) => IBinOp::MulLo,
            None => return Err(unsupported()),
        };
        let k = ImmKind::Int(ty.bits);
        let d = self.dst(&i.operands[0])?;
        let (a, b) = (self.src(&i.operands[1], k)?, self.src(&i.operands[2], k)?);
        Ok(Op::IBin { op, ty, d, a, b, k: Kern::NONE })
    }

    /// `min` and `max` (PTX ISA 9.7.1.10-11, 9.7.3.10-11, 9.7.4.9-10);
    /// a combination the row's `misfit` refuses is not run, nor the
    /// three-source `.f32` form yet.
    pub(super) fn min_max(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let Some(x) = insn.min_max().filter(|_| insn.misfit().is_none()) else { return Err(unsupported()) };
        if i.operands.len() == 4 && x.ty == Some(ScalarType::F32) && x.operands_misfit(4).is_none() && !x.xorsign {
            // `min/max{.ftz}{.NaN}{.abs}.f32 d, a, b, c` (sm_100).
            let f = ImmKind::Float(FTy::F32);
            let d = self.dst(&i.operands[0])?;
            let (a, b, c) = (self.src(&i.operands[1], f)?, self.src(&i.operands[2], f)?, self.src(&i.operands[3], f)?);
            return Ok(Op::Lane3 { op: Lane3Op::MinMax3F32 { max: x.max, nan: x.nan, abs: x.abs, ftz: x.ftz }, d, a, b, c });
        }
        if i.operands.len() != 3 || x.operands_misfit(3).is_some() {
            return Err(unsupported());
        }
        let k32 = ImmKind::Int(32);
        let Some(t) = x.ty else {
            let signed = match x.packed {
                Some(PackedTy::U16x2) => false,
                Some(PackedTy::S16x2) => true,
                _ => return Err(unsupported()),
            };
            let op = if x.max { P16Op::Max } else { P16Op::Min };
            let d = self.dst(&i.operands[0])?;
            let (a, b) = (self.src(&i.operands[1], k32)?, self.src(&i.operands[2], k32)?);
            return Ok(Op::Lane3 { op: Lane3Op::Packed16 { op, signed, relu: x.relu }, d, a, b, c: Src::Imm(0) });
        };
        let xorsign_abs = x.xorsign && x.abs;
        let fop = match (x.nan || xorsign_abs, x.max) {
            (true, max) => FBinOp::MinMax { max, nan: x.nan, xorsign_abs },
            (false, true) => FBinOp::Max,
            (false, false) => FBinOp::Min,
        };
        if matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2) {
            return self.half2_bin(i, fop, t, x.ftz, false);
        }
        if let Some(f) = fty(t) {
            return self.float_bin(i, fop, f, (None, x.ftz, false));
        }
        let ty = ity(t).ok_or_else(unsupported)?;
        if x.relu {
            // `min/max.relu.s32` (sm_90).
            let d = self.dst(&i.operands[0])?;
            let (a, b) = (self.src(&i.operands[1], k32)?, self.src(&i.operands[2], k32)?);
            return Ok(Op::Lane3 { op: Lane3Op::MinMaxReluS32 { max: x.max }, d, a, b, c: Src::Imm(0) });
        }
        let op = if x.max { IBinOp::Max } else { IBinOp::Min };
        let k = ImmKind::Int(ty.bits);
        let d = self.dst(&i.operands[0])?;
        let (a, b) = (self.src(&i.operands[1], k)?, self.src(&i.operands[2], k)?);
        Ok(Op::IBin { op, ty, d, a, b, k: Kern::NONE })
    }

    /// A two-source operation on `.f16x2`/`.bf16x2` `t`.
    fn half2_bin(&mut self, i: &ast::Instruction<'_>, op: FBinOp, t: ScalarType, ftz: bool, sat: bool) -> R<Op> {
        let h = if t == ScalarType::Bf16x2 { FTy::BF16 } else { FTy::F16 };
        let k = ImmKind::Int(32);
        let d = self.dst(&i.operands[0])?;
        let (a, b) = (self.src(&i.operands[1], k)?, self.src(&i.operands[2], k)?);
        Ok(Op::Half2 { op: H2Op::Bin(op), ty: h, ftz, sat, d, a, b, c: Src::Imm(0) })
    }

    /// A two-source operation on the scalar float type `f`.
    fn float_bin(&mut self, i: &ast::Instruction<'_>, op: FBinOp, f: FTy, (rnd, ftz, sat): (Option<FRnd>, bool, bool)) -> R<Op> {
        let rnd = rnd.map(|r| match r {
            FRnd::Rn => Rounding::Rn,
            FRnd::Rz => Rounding::Rz,
            FRnd::Rm => Rounding::Rm,
            FRnd::Rp => Rounding::Rp,
        });
        let d = self.dst(&i.operands[0])?;
        let (a, b) = (self.src(&i.operands[1], ImmKind::Float(f))?, self.src(&i.operands[2], ImmKind::Float(f))?);
        Ok(Op::FBin { op, ty: f, ftz, sat, rnd, d, a, b, k: Kern::NONE })
    }
}
