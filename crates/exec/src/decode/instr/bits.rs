//! Decoding `lop3.b32`, `shf.{l,r}.{wrap,clamp}.b32`, `mul24` and `mad24`
//! (semantics in [`ptxsim_sem::alu::bits`]) into [`Op::Bits`], and `lop3`'s
//! predicate output form `lop3.{and,or}.b32 d|p, a, b, c, immLut, q` into
//! [`Op::Lop3P`]. A modifier combination outside the forms of the PTX ISA
//! is reported as unsupported by name.

use super::{FuncDecoder, ImmKind, Ins, R, Sym};
use ptxsim_syntax::ast::OperandKind;
use ptxsim_sem::alu::bits::BitsOp;
use crate::program::*;

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// Decodes `lop3`, `shf`, `mul24` and `mad24`.
    pub(super) fn bits(&mut self, x: &Ins<'_, '_>) -> R<Op> {
        let only = |allowed: &[&str]| x.mods.iter().all(|m| allowed.contains(m));
        let one_of = |a: &str, b: &str| x.has(a) != x.has(b);
        let (op, n) = match x.opc {
            "lop3" if only(&[".and", ".or", ".b32"]) && x.has(".b32") && one_of(".and", ".or") => return self.lop3_pred(x),
            "lop3" if only(&[".b32"]) && x.has(".b32") => (BitsOp::Lop3(0), 5),
            "shf" if only(&[".l", ".r", ".wrap", ".clamp", ".b32"]) && x.has(".b32") && one_of(".l", ".r") && one_of(".wrap", ".clamp") => {
                (BitsOp::Shf { left: x.has(".l"), clamp: x.has(".clamp") }, 4)
            }
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
        let op = match op {
            BitsOp::Lop3(_) => match self.src(&x.ops[4], k)? {
                Src::Imm(v) if v <= 0xff => BitsOp::Lop3(v as u8),
                _ => return Err(format!("`{}`: the look-up table must be a constant in 0..=255", x.full()).into()),
            },
            op => op,
        };
        Ok(Op::Bits { op, d, a, b, c })
    }

    /// Decodes `lop3.{and,or}.b32 d|p, a, b, c, immLut, q` (PTX 8.2).
    fn lop3_pred(&mut self, x: &Ins<'_, '_>) -> R<Op> {
        if x.n != 6 {
            return Err(format!("`{}` needs 6 operands", x.full()).into());
        }
        let OperandKind::PredPair(dn, pn) = &x.ops[0].kind else {
            return Err(format!("`{}` writes a register and a predicate `d|p`", x.full()).into());
        };
        let d = match self.lookup(dn.text) {
            Some(Sym::Reg { slot, .. }) => slot,
            _ if dn.text == "_" => self.scratch()?,
            _ => return Err(format!("destination `{}` is not a register", dn.text).into()),
        };
        let p = match self.lookup(pn.text) {
            Some(Sym::Pred(s)) => Some(s),
            _ if pn.text == "_" => None,
            _ => return Err(format!("`{}` is not a predicate register", pn.text).into()),
        };
        let k = ImmKind::Int(32);
        let (a, b, c) = (self.src(&x.ops[1], k)?, self.src(&x.ops[2], k)?, self.src(&x.ops[3], k)?);
        let lut = match self.src(&x.ops[4], k)? {
            Src::Imm(v) if v <= 0xff => v as u8,
            _ => return Err(format!("`{}`: the look-up table must be a constant in 0..=255", x.full()).into()),
        };
        let q = self.psrc(&x.ops[5])?;
        Ok(Op::Lop3P { lut, or: x.has(".or"), d, p, a, b, c, q })
    }
}
