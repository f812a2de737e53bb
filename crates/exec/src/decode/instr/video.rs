//! Decoding the SIMD video instructions (`vadd2` ... `vset4`, semantics in
//! [`ptxsim_sem::alu::video`]) with their operand selectors (`d.h0`, `a.h10`,
//! `b.b7654`), which the parser reads as the operands' components.

use super::{FuncDecoder, ImmKind};
use ptxsim_sem::alu::ext::Lane3Op;
use ptxsim_sem::alu::video;
use crate::program::*;
use ptxsim_syntax::ast::{self, Operand, OperandKind};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `vop2/vop4/vset2/vset4 d{.mask}, a{.asel}, b{.bsel}, c`.
    pub(super) fn video(&mut self, i: &ast::Instruction<'_>) -> Result<Op, String> {
        let opc = i.opcode.text;
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let full = format!("{opc}{}", mods.concat());
        let unsupported = || format!("instruction `{full}` is not supported yet");
        let mut v = video::decode(opc, &mods).ok_or_else(unsupported)?;
        if i.operands.len() != 4 {
            return Err(format!("`{full}` needs 4 operands"));
        }
        let (dm, d) = split(&i.operands[0]);
        let (asel, a) = split(&i.operands[1]);
        let (bsel, b) = split(&i.operands[2]);
        let bad = |what: &str, c: &Option<String>| format!("`{full}`: `{}` is not a {what}", c.as_deref().unwrap_or(""));
        v.mask = video::dest_mask(dm.as_deref(), v.four).ok_or_else(|| bad("destination mask", &dm))?;
        v.asel = video::selector(asel.as_deref(), v.four, false).ok_or_else(|| bad("source selector", &asel))?;
        v.bsel = video::selector(bsel.as_deref(), v.four, true).ok_or_else(|| bad("source selector", &bsel))?;
        let k = ImmKind::Int(32);
        let d = self.dst(&d)?;
        let a = self.src(&a, k)?;
        let b = self.src(&b, k)?;
        let c = self.src(&i.operands[3], k)?;
        Ok(Op::Lane3 { op: Lane3Op::Video(v), d, a, b, c })
    }
}

/// An operand's selector, and the operand without it.
fn split<'a>(o: &Operand<'a>) -> (Option<String>, Operand<'a>) {
    match &o.kind {
        OperandKind::Name { name, component: Some(c) } => {
            (Some(c.text.to_string()), Operand { span: o.span, kind: OperandKind::Name { name: *name, component: None } })
        }
        _ => (None, o.clone()),
    }
}
