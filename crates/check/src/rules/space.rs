//! Rule `check/space-operands`: `isspacep`, `mapa` and `getctarank` (typed
//! rows), the instructions that ask about address windows and cluster ranks. What
//! each accepts was measured with ptxas 12.9 (`tests/check/*/space--*.ptx`):
//!
//! - `isspacep.space p, a` (PTX ISA 9.7.9.16): exactly one of `.const
//!   .global .local .shared .shared::cta .shared::cluster .param
//!   .param::entry` ("State space modifier required", "Unexpected number of
//!   state spaces"), no type; `p` a predicate, `a` a 32- or 64-bit integer
//!   register or an integer constant (not a variable's name). Gates:
//!   `.const` 3.1; `.param` 7.7 and sm_70; `::cta` 7.8; `::cluster` 7.8 and
//!   sm_90; `::entry` 8.3.
//! - `mapa{.shared::cluster}.type d, a, b` (PTX ISA 9.7.9.17): `.type` one
//!   of `.u32 .u64 .s32 .s64`, no other state space ("expected
//!   '::cluster'"); `d` and `a` of the type (`a` may be a variable or a
//!   constant), `b` a 32-bit integer (the target CTA's rank). 7.8, sm_90.
//! - `getctarank{.shared::cluster}.type d, a` (PTX ISA 9.7.9.18): the same
//!   types; `d` a 32-bit integer register, `a` an address of the type.
//!   7.8, sm_90.

use super::operand::{pred_reg, value, Role};
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{Insn, IsspacepSpace};
use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/space-operands (PTX ISA 9.7.9.16 isspacep, 9.7.9.17 mapa, 9.7.9.18 getctarank): `isspacep.space p, a` with one of .const .global .local .shared{::cta, ::cluster} .param{::entry}; `mapa{.shared::cluster}.type d, a, b` and `getctarank{.shared::cluster}.type d, a` with .type .u32 .u64 .s32 .s64 and d a 32-bit register for getctarank";

/// Checks `isspacep`, `mapa` and `getctarank` (typed rows: the grammar
/// took one state space, and the type where there is one).
pub fn space<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    match insn {
        Insn::Isspacep { space } => isspacep(cx, i, space),
        Insn::Mapa { ty, .. } => mapa_getctarank(cx, i, true, ty),
        Insn::Getctarank { ty, .. } => mapa_getctarank(cx, i, false, ty),
        _ => super::operand::resolve_all(cx, i),
    }
}

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/space-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

fn isspacep<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, sp: IsspacepSpace) {
    let span = modifier_span(i, sp.as_str());
    match sp {
        IsspacepSpace::Const => cx.require(Feature::SpaceConst, span),
        IsspacepSpace::Param => cx.require(Feature::SpaceParam, span),
        IsspacepSpace::ParamEntry => {
            cx.require(Feature::SpaceParam, span);
            cx.require(Feature::SpaceParamEntry, span);
        }
        IsspacepSpace::SharedCta => cx.require(Feature::SharedCta, span),
        IsspacepSpace::SharedCluster => cx.require(Feature::SpaceCluster, span),
        _ => {}
    }
    match &i.operands[0].kind {
        OperandKind::Name { name, component: None } => {
            if !pred_reg(cx, *name, i) {
                return;
            }
        }
        _ => return err(cx, i.operands[0].span, "the result of `isspacep` is a `.pred` register".to_string(), "predicate expected"),
    }
    let a = &i.operands[1];
    if let OperandKind::Name { name, .. } = &a.kind {
        if let Some(Sym::Var(v)) = cx.lookup(name.text) {
            if v.space() != StateSpace::Reg {
                return err(cx, a.span, format!("`isspacep` tests an address held in a register, not the variable `{}`", name.text), "a register or a constant is expected");
            }
            // A 32-bit or 64-bit integer register.
            let want = if v.ty().is_some_and(|t| t.bits() == 32) { ScalarType::U32 } else { ScalarType::U64 };
            value(cx, a, want, Role::Src, Size::Exact, i);
            return;
        }
    }
    value(cx, a, ScalarType::U64, Role::Src, Size::Exact, i);
}

fn mapa_getctarank<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, mapa: bool, t: ScalarType) {
    cx.require(if mapa { Feature::Mapa } else { Feature::Getctarank }, head(i));
    if mapa {
        value(cx, &i.operands[0], t, Role::Dest, Size::Exact, i);
        value(cx, &i.operands[1], t, Role::Src, Size::Exact, i);
        value(cx, &i.operands[2], ScalarType::U32, Role::Src, Size::Exact, i);
    } else {
        value(cx, &i.operands[0], ScalarType::U32, Role::Dest, Size::Exact, i);
        value(cx, &i.operands[1], t, Role::Src, Size::Exact, i);
    }
}
