//! Rule `check/space-operands`: `isspacep`, `mapa` and `getctarank`, the
//! instructions that ask about address windows and cluster ranks. What
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
use super::{opname, Decoded};
use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, Name, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/space-operands (PTX ISA 9.7.9.16 isspacep, 9.7.9.17 mapa, 9.7.9.18 getctarank): `isspacep.space p, a` with one of .const .global .local .shared{::cta, ::cluster} .param{::entry}; `mapa{.shared::cluster}.type d, a, b` and `getctarank{.shared::cluster}.type d, a` with .type .u32 .u64 .s32 .s64 and d a 32-bit register for getctarank";

const SPACES: &[&str] = &[".const", ".global", ".local", ".shared", ".shared::cta", ".shared::cluster", ".param", ".param::entry"];

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/space-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

/// Whether a modifier names a state space, with or without a `::` qualifier.
fn is_space(m: &str) -> bool {
    StateSpace::from_str(m.split("::").next().unwrap_or("")).is_some()
}

/// Checks `isspacep`, `mapa` and `getctarank`.
pub fn space<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    match i.opcode.text {
        "isspacep" => isspacep(cx, i),
        _ => mapa_getctarank(cx, i, d),
    }
}

fn isspacep<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    let mut space: Option<Name<'a>> = None;
    for m in &i.modifiers {
        if ScalarType::from_str(m.text).is_some() {
            return err(cx, m.span, format!("`isspacep` takes no type, but `{}` is given", m.text), "unexpected instruction type");
        }
        if !is_space(m.text) {
            return err(cx, m.span, format!("`{}` is not a modifier of `isspacep`", m.text), "illegal modifier");
        }
        if !SPACES.contains(&m.text) {
            return err(cx, m.span, format!("`isspacep` does not test `{}`; it takes .const, .global, .local, .shared{{::cta, ::cluster}} or .param{{::entry}}", m.text), "state space incorrect for isspacep");
        }
        if let Some(first) = space {
            return err(cx, m.span, format!("`isspacep` tests one state space; `{}` is a second one after `{}`", m.text, first.text), "second state space");
        }
        space = Some(*m);
    }
    let Some(sp) = space else {
        return err(cx, head(i), format!("`{}` needs the state space it tests", opname(i)), "state space required");
    };
    match sp.text {
        ".const" => cx.require(Feature::SpaceConst, sp.span),
        ".param" => cx.require(Feature::SpaceParam, sp.span),
        ".param::entry" => {
            cx.require(Feature::SpaceParam, sp.span);
            cx.require(Feature::SpaceParamEntry, sp.span);
        }
        ".shared::cta" => cx.require(Feature::SharedCta, sp.span),
        ".shared::cluster" => cx.require(Feature::SpaceCluster, sp.span),
        _ => {}
    }
    if i.operands.len() != 2 {
        return count(cx, i, 2);
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

fn mapa_getctarank<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    let op = i.opcode.text;
    let mut ty: Option<(ScalarType, Span)> = None;
    for m in &i.modifiers {
        if let Some(t) = ScalarType::from_str(m.text) {
            if ty.is_some() || !matches!(t, ScalarType::U32 | ScalarType::U64 | ScalarType::S32 | ScalarType::S64) {
                return err(cx, m.span, format!("`{op}` takes one type of .u32 .u64 .s32 .s64, not `{}`", m.text), "unexpected instruction type");
            }
            ty = Some((t, m.span));
        } else if is_space(m.text) {
            if m.text != ".shared::cluster" {
                return err(cx, m.span, format!("`{op}` takes the state space `.shared::cluster` only, not `{}`", m.text), "state space incorrect, expected `::cluster`");
            }
        } else {
            return err(cx, m.span, format!("`{}` is not a modifier of `{op}`", m.text), "illegal modifier");
        }
    }
    let _ = d;
    cx.require(if op == "mapa" { Feature::Mapa } else { Feature::Getctarank }, head(i));
    let Some((t, _)) = ty else {
        return err(cx, head(i), format!("`{}` needs a type: .u32, .u64, .s32 or .s64", opname(i)), "no type given");
    };
    let n = if op == "mapa" { 3 } else { 2 };
    if i.operands.len() != n {
        return count(cx, i, n);
    }
    if op == "mapa" {
        value(cx, &i.operands[0], t, Role::Dest, Size::Exact, i);
        value(cx, &i.operands[1], t, Role::Src, Size::Exact, i);
        value(cx, &i.operands[2], ScalarType::U32, Role::Src, Size::Exact, i);
    } else {
        value(cx, &i.operands[0], ScalarType::U32, Role::Dest, Size::Exact, i);
        value(cx, &i.operands[1], t, Role::Src, Size::Exact, i);
    }
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, n: usize) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {n} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
    );
}
