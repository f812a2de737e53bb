//! Decoding the typed bit and integer rows from their
//! [`ptxsim_isa::Insn`] fields: `lop3.b32`, `shf.{l,r}.{wrap,clamp}.b32`,
//! `mul24` and `mad24` (semantics in [`ptxsim_sem::alu::bits`]) into
//! [`Op::Bits`], `lop3`'s predicate output form `lop3.{and,or}.b32 d|p, a,
//! b, c, immLut, q` into [`Op::Lop3P`], and (in [`FuncDecoder::arith_bits`])
//! `popc`, `clz`, `bfind`, `brev`, `cnot`, `prmt`, `bfe`, `bfi`, `bmsk`,
//! `szext`, `fns`, `dp4a`, `dp2a`, `sad` and `testp`. A modifier
//! combination outside the forms of the PTX ISA is reported as unsupported
//! by name.

use super::{DecodeError, FuncDecoder, ImmKind, R, Sym};
use crate::decode::ity;
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{ClampMode, Half, Insn, Lop3BoolOp, ShfDir};
use ptxsim_sem::alu::bits::BitsOp;
use ptxsim_sem::alu::ext::Lane3Op;
use ptxsim_sem::alu::{FTy, IUnOp};
use ptxsim_syntax::ast::{self, OperandKind, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// Decodes the typed bit and integer rows: `popc`, `clz`, `bfind`,
    /// `brev`, `cnot` into [`Op::IUn`]; `prmt` into [`Op::Prmt`] or
    /// [`Op::PrmtMode`]; `bfe`, `bfi`; `bmsk`, `szext`, `fns`, `dp4a`,
    /// `dp2a`, `sad` into [`Op::Lane3`]; `testp` into [`Op::Testp`]; and
    /// `mul24`, `mad24` into [`Op::Bits`]. The operand count was checked
    /// from the row's roles.
    pub(super) fn arith_bits(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        use ScalarType::S32;
        if insn.misfit().is_some() {
            return Err(DecodeError::Unsupported(opname(i)));
        }
        let ops = &i.operands;
        let int = |t: ScalarType| ity(t).ok_or_else(|| DecodeError::Unsupported(opname(i)));
        let k32 = ImmKind::Int(32);
        let un = match insn {
            Insn::Popc { ty } => Some((IUnOp::Popc, ty)),
            Insn::Clz { ty } => Some((IUnOp::Clz, ty)),
            Insn::Brev { ty } => Some((IUnOp::Brev, ty)),
            Insn::Cnot { ty } => Some((IUnOp::Cnot, ty)),
            Insn::Bfind { shiftamt, ty } => Some((if shiftamt { IUnOp::BfindShiftAmt } else { IUnOp::Bfind }, ty)),
            _ => None,
        };
        if let Some((op, t)) = un {
            let ty = int(t)?;
            let d = self.dst(&ops[0])?;
            let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
            return Ok(Op::IUn { op, ty, d, a });
        }
        let lane3 = match insn {
            Insn::Sad { ty } => Some(Lane3Op::Sad(int(ty)?)),
            Insn::Dp4a { atype, btype } => Some(Lane3Op::Dp4a { a_signed: atype == S32, b_signed: btype == S32 }),
            Insn::Dp2a { mode, atype, btype } => Some(Lane3Op::Dp2a { hi: mode == Half::Hi, a_signed: atype == S32, b_signed: btype == S32 }),
            Insn::Bmsk { mode, .. } => Some(Lane3Op::Bmsk { clamp: mode == ClampMode::Clamp }),
            Insn::Szext { mode, ty } => Some(Lane3Op::Szext { clamp: mode == ClampMode::Clamp, signed: ty == S32 }),
            Insn::Fns { .. } => Some(Lane3Op::Fns),
            _ => None,
        };
        if let Some(op) = lane3 {
            let k = ImmKind::Int(match op {
                Lane3Op::Sad(t) => t.bits,
                _ => 32,
            });
            let d = self.dst(&ops[0])?;
            let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
            let c = if ops.len() > 3 { self.src(&ops[3], k)? } else { Src::Imm(0) };
            return Ok(Op::Lane3 { op, d, a, b, c });
        }
        match insn {
            Insn::Prmt { mode, .. } => {
                let d = self.dst(&ops[0])?;
                let (a, b, c) = (self.src(&ops[1], k32)?, self.src(&ops[2], k32)?, self.src(&ops[3], k32)?);
                Ok(match mode {
                    Some(mode) => Op::PrmtMode { mode, d, a, b, c },
                    None => Op::Prmt { d, a, b, c },
                })
            }
            Insn::Bfe { ty } => {
                let ty = int(ty)?;
                let d = self.dst(&ops[0])?;
                let a = self.src(&ops[1], ImmKind::Int(ty.bits))?;
                Ok(Op::Bfe { ty, d, a, b: self.src(&ops[2], k32)?, c: self.src(&ops[3], k32)? })
            }
            Insn::Bfi { ty } => {
                let bits = int(ty)?.bits;
                let d = self.dst(&ops[0])?;
                let (f, b) = (self.src(&ops[1], ImmKind::Int(bits))?, self.src(&ops[2], ImmKind::Int(bits))?);
                Ok(Op::Bfi { bits, d, f, b, c: self.src(&ops[3], k32)?, e: self.src(&ops[4], k32)? })
            }
            Insn::Testp { op, ty } => {
                let op = op.ok_or_else(|| DecodeError::Unsupported(opname(i)))?;
                let f64 = ty == ScalarType::F64;
                let p = self.pdst(&ops[0])?.ok_or("sink destination")?;
                let a = self.src(&ops[1], ImmKind::Float(if f64 { FTy::F64 } else { FTy::F32 }))?;
                Ok(Op::Testp { op, f64, p, a })
            }
            Insn::Mul24 { mode, ty } | Insn::Mad24 { mode, ty, .. } => {
                let (mad, sat) = match insn {
                    Insn::Mad24 { sat, .. } => (true, sat),
                    _ => (false, false),
                };
                let op = BitsOp::Mul24 { hi: mode == Half::Hi, signed: ty == S32, sat, mad };
                let d = self.dst(&ops[0])?;
                let (a, b) = (self.src(&ops[1], k32)?, self.src(&ops[2], k32)?);
                let c = if mad { self.src(&ops[3], k32)? } else { Src::Imm(0) };
                Ok(Op::Bits { op, d, a, b, c })
            }
            _ => Err(DecodeError::Unsupported(opname(i))),
        }
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
