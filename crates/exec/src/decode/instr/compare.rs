//! Decoding the comparison and selection rows (PTX ISA 9.7.8.1-4 and the
//! half-precision 9.7.4.x forms): `setp`, `set`, `selp` and `slct`, from
//! their typed [`Insn`]. The grammar took the comparison, the BoolOp,
//! `.ftz` and the types; the roles, the operand count.

use super::super::{fty, is_bits_type, ity};
use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::Insn;
use ptxsim_sem::alu::{CmpOp, FTy};
use ptxsim_syntax::ast::{self, OperandKind, ScalarType};

/// A comparison's form: the operator, the BoolOp and `.ftz`.
#[derive(Clone, Copy)]
struct Cmp {
    cmp: CmpOp,
    comb: Option<BoolOp>,
    ftz: bool,
}

fn bool_op(b: ptxsim_isa::BoolOp) -> BoolOp {
    match b {
        ptxsim_isa::BoolOp::And => BoolOp::And,
        ptxsim_isa::BoolOp::Or => BoolOp::Or,
        ptxsim_isa::BoolOp::Xor => BoolOp::Xor,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `setp`, `set`, `selp` or `slct`.
    pub(super) fn compare(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        match insn {
            Insn::Setp { cmp, boolop, ftz, ty } => self.setp_set(i, Cmp { cmp, comb: boolop.map(bool_op), ftz }, None, ty),
            Insn::Set { cmp, boolop, ftz, dtype, stype } => self.setp_set(i, Cmp { cmp, comb: boolop.map(bool_op), ftz }, Some(dtype), stype),
            Insn::Selp { ty } => {
                let ops = &i.operands;
                let k = imm_kind(ty);
                let d = self.dst(&ops[0])?;
                Ok(Op::Selp { bits: ty.bits(), d, a: self.src(&ops[1], k)?, b: self.src(&ops[2], k)?, c: self.psrc(&ops[3])? })
            }
            Insn::Slct { ftz, dtype, ctype } => {
                let ops = &i.operands;
                let k = imm_kind(dtype);
                let cf = if ctype == ScalarType::F32 { Some(ftz) } else { None };
                let d = self.dst(&ops[0])?;
                let ck = if cf.is_some() { ImmKind::Float(FTy::F32) } else { ImmKind::Int(32) };
                Ok(Op::Slct { bits: dtype.bits(), cf, d, a: self.src(&ops[1], k)?, b: self.src(&ops[2], k)?, c: self.src(&ops[3], ck)? })
            }
            _ => Err(DecodeError::Unsupported(opname(i))),
        }
    }

    /// `setp` (no destination type) or `set` (`dtype`) comparing `st`.
    fn setp_set(&mut self, i: &ast::Instruction<'_>, c: Cmp, dtype: Option<ScalarType>, st: ScalarType) -> R<Op> {
        let ops = &i.operands;
        let unsupported = || DecodeError::Unsupported(opname(i));
        if let Some(fty) = match st {
            ScalarType::F16x2 => Some(FTy::F16),
            ScalarType::Bf16x2 => Some(FTy::BF16),
            _ => None,
        } {
            return self.cmp_x2(i, c, dtype, fty);
        }
        let half_src = matches!(st, ScalarType::F16 | ScalarType::Bf16);
        // What `set` writes where the result is true, by destination type
        // (PTX ISA 9.7.3.5, 9.7.7.1): all ones for the integer types, 1.0
        // in the float format for the float ones. `.u16`/`.s16`
        // destinations go with half-precision sources only.
        let one = match dtype {
            None => 0,
            Some(ScalarType::U32 | ScalarType::S32) => 0xffff_ffff,
            Some(ScalarType::F32) => 1.0f32.to_bits(),
            Some(ScalarType::U16 | ScalarType::S16) if half_src => 0xffff,
            Some(ScalarType::F16) => 0x3c00,
            Some(ScalarType::Bf16) => 0x3f80,
            _ => return Err(unsupported()),
        };
        let ty = if let Some(f) = fty(st) {
            if !c.cmp.valid_float() {
                return Err(DecodeError::Operand(format!("`{}` mixes an integer comparison with a float type", opname(i))));
            }
            ITyOrF::F(f)
        } else {
            let it = ity(st).ok_or_else(unsupported)?;
            if is_bits_type(st) && !c.cmp.valid_bits() || !is_bits_type(st) && !c.cmp.valid_int() {
                return Err(DecodeError::Operand(format!("`{}`: comparison not allowed for this type", opname(i))));
            }
            ITyOrF::I(it)
        };
        let k = match ty {
            ITyOrF::F(f) => ImmKind::Float(f),
            ITyOrF::I(t) => ImmKind::Int(t.bits),
        };
        let (a, b, comb) = self.cmp_sources(i, c, k)?;
        let Cmp { cmp, ftz, .. } = c;
        if dtype.is_some() {
            let d = self.dst(&ops[0])?;
            return Ok(Op::Set { cmp, ty, ftz, one, d, a, b, comb, k: Kern::NONE });
        }
        let (p, q) = self.pred_pair(&ops[0])?;
        Ok(Op::Setp { cmp, ty, ftz, p, q, a, b, comb, k: Kern::NONE })
    }

    /// `a`, `b` and, with a BoolOp, `c` (which it needs).
    fn cmp_sources(&mut self, i: &ast::Instruction<'_>, c: Cmp, k: ImmKind) -> R<(Src, Src, Option<(BoolOp, PSrc)>)> {
        let ops = &i.operands;
        if c.comb.is_some() && ops.len() < 4 {
            return Err(DecodeError::Operand(format!("`{}`: a BoolOp needs the predicate `c`", opname(i))));
        }
        let a = self.src(&ops[1], k)?;
        let b = self.src(&ops[2], k)?;
        let comb = match c.comb {
            Some(op) => Some((op, self.psrc(&ops[3])?)),
            None => None,
        };
        Ok((a, b, comb))
    }

    /// `setp`/`set` on `.f16x2`/`.bf16x2` sources (PTX ISA 9.7.7):
    /// `setp` needs the pair `p|q`; `set`'s destination is `.f16x2` (or
    /// `.bf16x2` for `.bf16x2` sources), `.u32` or `.s32`.
    fn cmp_x2(&mut self, i: &ast::Instruction<'_>, c: Cmp, dtype: Option<ScalarType>, ty: FTy) -> R<Op> {
        let ops = &i.operands;
        if !c.cmp.valid_float() {
            return Err(DecodeError::Operand(format!("`{}` mixes an integer comparison with a float type", opname(i))));
        }
        let (a, b, comb) = self.cmp_sources(i, c, ImmKind::Int(32))?;
        let Cmp { cmp, ftz, .. } = c;
        if let Some(dt) = dtype {
            let one = match (dt, ty) {
                (ScalarType::U32 | ScalarType::S32, _) => 0xffff,
                (ScalarType::F16x2, FTy::F16) => 0x3c00,
                (ScalarType::Bf16x2, FTy::BF16) => 0x3f80,
                _ => return Err(DecodeError::Unsupported(opname(i))),
            };
            let d = self.dst(&ops[0])?;
            return Ok(Op::SetX2 { cmp, ty, ftz, one, d, a, b, comb });
        }
        if !matches!(ops[0].kind, OperandKind::PredPair(..)) {
            return Err(DecodeError::Operand(format!("`{}` writes a predicate pair `p|q`", opname(i))));
        }
        let (p, q) = self.pred_pair(&ops[0])?;
        Ok(Op::SetpX2 { cmp, ty, ftz, p, q, a, b, comb })
    }
}

/// How an immediate of type `t` is read.
fn imm_kind(t: ScalarType) -> ImmKind {
    match fty(t) {
        Some(f) => ImmKind::Float(f),
        None => ImmKind::Int(t.bits()),
    }
}
