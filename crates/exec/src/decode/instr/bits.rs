//! Decoding `lop3.b32`, `shf.{l,r}.{wrap,clamp}.b32` (typed rows: from
//! their [`ptxsim_isa::Insn`] fields), `mul24` and `mad24` (semantics in
//! [`ptxsim_sem::alu::bits`]) into [`Op::Bits`], and `lop3`'s predicate
//! output form `lop3.{and,or}.b32 d|p, a, b, c, immLut, q` into
//! [`Op::Lop3P`]. A modifier combination outside the forms of the PTX ISA
//! is reported as unsupported by name.

use super::{DecodeError, FuncDecoder, ImmKind, Ins, R, Sym};
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{ClampMode, Lop3BoolOp, ShfDir};
use ptxsim_syntax::ast::{self, OperandKind};
use ptxsim_sem::alu::bits::BitsOp;
use crate::program::*;

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// Decodes `mul24` and `mad24`.
    pub(super) fn bits(&mut self, x: &Ins<'_>) -> R<Op> {
        let only = |allowed: &[&str]| x.mods.iter().all(|m| allowed.contains(m));
        let one_of = |a: &str, b: &str| x.has(a) != x.has(b);
        let (op, n) = match x.opc {
            "mul24" | "mad24" if only(&[".lo", ".hi", ".sat", ".u32", ".s32"]) && one_of(".lo", ".hi") && one_of(".u32", ".s32") => {
                let (hi, signed, sat, mad) = (x.has(".hi"), x.has(".s32"), x.has(".sat"), x.opc == "mad24");
                // `.sat` exists only as `mad24.hi.sat.s32`.
                if sat && !(mad && hi && signed) {
                    return Err(x.unsupported());
                }
                (BitsOp::Mul24 { hi, signed, sat, mad }, if mad { 4 } else { 3 })
            }
            _ => return Err(x.unsupported()),
        };
        if x.n != n {
            return Err(format!("`{}` needs {n} operands", x.full()).into());
        }
        let k = ImmKind::Int(32);
        let d = self.dst(&x.ops[0])?;
        let (a, b) = (self.src(&x.ops[1], k)?, self.src(&x.ops[2], k)?);
        let c = if n >= 4 { self.src(&x.ops[3], k)? } else { Src::Imm(0) };
        Ok(Op::Bits { op, d, a, b, c })
    }

    /// Decodes `lop3.b32 d, a, b, c, immLut` and (with `boolop`)
    /// `lop3.{and,or}.b32 d|p, a, b, c, immLut, q` (PTX 8.2).
    pub(super) fn lop3(&mut self, i: &ast::Instruction<'_>, boolop: Option<Lop3BoolOp>) -> R<Op> {
        let n = if boolop.is_some() { 6 } else { 5 };
        if i.operands.len() != n {
            return Err(DecodeError::Operand(format!("`{}` needs {n} operands", opname(i))));
        }
        let ops = &i.operands;
        let k = ImmKind::Int(32);
        let lut = |s: Src| match s {
            Src::Imm(v) if v <= 0xff => Ok(v as u8),
            _ => Err(DecodeError::Operand(format!("`{}`: the look-up table must be a constant in 0..=255", opname(i)))),
        };
        let Some(bop) = boolop else {
            let d = self.dst(&ops[0])?;
            let (a, b, c) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?, self.src(&ops[3], k)?);
            let op = BitsOp::Lop3(lut(self.src(&ops[4], k)?)?);
            return Ok(Op::Bits { op, d, a, b, c });
        };
        let OperandKind::PredPair(dn, pn) = &ops[0].kind else {
            return Err(DecodeError::Operand(format!("`{}` writes a register and a predicate `d|p`", opname(i))));
        };
        let d = match self.lookup(dn.text) {
            Some(Sym::Reg { slot, .. }) => slot,
            _ if dn.text == "_" => self.scratch()?,
            _ => return Err(DecodeError::Operand(format!("destination `{}` is not a register", dn.text))),
        };
        let p = match self.lookup(pn.text) {
            Some(Sym::Pred(s)) => Some(s),
            _ if pn.text == "_" => None,
            _ => return Err(DecodeError::Operand(format!("`{}` is not a predicate register", pn.text))),
        };
        let (a, b, c) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?, self.src(&ops[3], k)?);
        let lut = lut(self.src(&ops[4], k)?)?;
        let q = self.psrc(&ops[5])?;
        Ok(Op::Lop3P { lut, or: bop == Lop3BoolOp::Or, d, p, a, b, c, q })
    }

    /// Decodes `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`.
    pub(super) fn shf(&mut self, i: &ast::Instruction<'_>, dir: ShfDir, mode: ClampMode) -> R<Op> {
        if i.operands.len() != 4 {
            return Err(DecodeError::Operand(format!("`{}` needs 4 operands", opname(i))));
        }
        let k = ImmKind::Int(32);
        let d = self.dst(&i.operands[0])?;
        let (a, b, c) = (self.src(&i.operands[1], k)?, self.src(&i.operands[2], k)?, self.src(&i.operands[3], k)?);
        let op = BitsOp::Shf { left: dir == ShfDir::L, clamp: mode == ClampMode::Clamp };
        Ok(Op::Bits { op, d, a, b, c })
    }
}
