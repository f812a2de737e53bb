//! Decoding the SIMD video instructions (`vadd2` ... `vset4`, typed rows:
//! their fields from [`ptxsim_isa::Insn::simd`]; semantics in
//! [`ptxsim_sem::alu::video`]) with their operand selectors (`d.h0`,
//! `a.h10`, `b.b7654`), which the parser reads as the operands' components.

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{simd_selector_digits, Simd};
use ptxsim_sem::alu::ext::Lane3Op;
use ptxsim_sem::alu::video::{self, Video};
use ptxsim_syntax::ast::{self, Operand, OperandKind};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `vop2/vop4/vset2/vset4 d{.mask}, a{.asel}, b{.bsel}, c` (the
    /// operand count was checked from the row's roles).
    pub(super) fn video(&mut self, i: &ast::Instruction<'_>, s: Simd) -> R<Op> {
        if s.sat && s.add {
            return Err(DecodeError::Unsupported(opname(i)));
        }
        let mut v = Video::new(s.op, s.four, [s.d_signed, s.a_signed, s.b_signed], s.sat, s.add);
        let (dm, d) = split(&i.operands[0]);
        let (asel, a) = split(&i.operands[1]);
        let (bsel, b) = split(&i.operands[2]);
        let bad = |what: &str, c: Option<&str>| DecodeError::Operand(format!("`{}`: `{}` is not a {what}", opname(i), c.unwrap_or("")));
        let four = v.four;
        v.mask = digits(dm, four).and_then(|x| video::dest_mask(x, four)).ok_or_else(|| bad("destination mask", dm))?;
        v.asel = digits(asel, four).and_then(|x| video::selector(x, four, false)).ok_or_else(|| bad("source selector", asel))?;
        v.bsel = digits(bsel, four).and_then(|x| video::selector(x, four, true)).ok_or_else(|| bad("source selector", bsel))?;
        let k = ImmKind::Int(32);
        let d = self.dst(&d)?;
        let a = self.src(&a, k)?;
        let b = self.src(&b, k)?;
        let c = self.src(&i.operands[3], k)?;
        Ok(Op::Lane3 { op: Lane3Op::Video(v), d, a, b, c })
    }
}

/// The digits of an operand's selector component (`.h10`: `10`), `Some(None)`
/// when there is none; `None` for a component with the other element's
/// letter, which is refused like a bad digit.
fn digits(c: Option<&str>, four: bool) -> Option<Option<&str>> {
    match c {
        None => Some(None),
        Some(c) => simd_selector_digits(c, four).map(Some),
    }
}

/// An operand's selector, and the operand without it.
fn split<'a>(o: &Operand<'a>) -> (Option<&'a str>, Operand<'a>) {
    match &o.kind {
        OperandKind::Name { name, component: Some(c) } => (Some(c.text), Operand { span: o.span, kind: OperandKind::Name { name: *name, component: None } }),
        _ => (None, o.clone()),
    }
}
