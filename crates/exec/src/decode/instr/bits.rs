//! Decoding `lop3.b32`, `shf.{l,r}.{wrap,clamp}.b32`, `mul24` and `mad24`
//! (semantics in [`crate::alu::bits`]) into [`Op::Bits`]. A modifier
//! combination outside the forms of the PTX ISA (or `lop3`'s predicate
//! output form) is reported as unsupported by name.

use super::{FuncDecoder, ImmKind, Ins, R};
use crate::alu::bits::BitsOp;
use crate::program::*;

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// Decodes `lop3`, `shf`, `mul24` and `mad24`.
    pub(super) fn bits(&mut self, x: &Ins<'_, '_>) -> R<Op> {
        let only = |allowed: &[&str]| x.mods.iter().all(|m| allowed.contains(m));
        let one_of = |a: &str, b: &str| x.has(a) != x.has(b);
        let (op, n) = match x.opc {
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
}
