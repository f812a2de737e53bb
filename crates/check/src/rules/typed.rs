//! The instruction type of the rows still described by their form alone
//! (the arithmetic, logic, shift and bit rows are typed rows, in
//! [`super::arith`], [`super::fma`] and [`super::math`]; `mov` and `cvt` in
//! [`super::convert`]; `cvta` and the memory rows in [`super::memory`]),
//! and the packed 16-bit integer operands the typed rows share.
//!
//! Rules `check/instruction-type` (the instruction type is one the opcode
//! defines; `.pred` only on and/or/xor/not/mov), `check/operand-type` and
//! `check/pred-int` (each operand fits the type, [`crate::types`]), and
//! `check/operand-count`.

use super::operand::{value, Role};
use super::{allows, opname, Decoded, Spec};
use crate::ctx::Ctx;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, Name, OperandKind, ScalarType};
use ptxsim_syntax::Diagnostic;
use ptxsim_isa::grammar::Choice;
use ptxsim_isa::PackedTy;

const TYPE_NOTE: &str = "rule check/instruction-type: each PTX instruction defines which types it takes (PTX ISA chapter 9); predicates are manipulated only with and, or, xor, not and mov";

/// Checks the instruction-type modifier count and membership; returns the type.
fn one_type(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, d: &Decoded<'_>, spec: &Spec) -> Option<ScalarType> {
    match d.types.as_slice() {
        [] => {
            cx.emit(
                Diagnostic::error("check/instruction-type", i.opcode.span, format!("`{}` needs an instruction type", opname(i)))
                    .with_label("no type given")
                    .with_note(TYPE_NOTE),
            );
            None
        }
        [_, (t, s), ..] => {
            cx.emit(
                Diagnostic::error("check/instruction-type", *s, format!("`{}` takes one instruction type; `{}` is a second one", i.opcode.text, t.as_str()))
                    .with_label("unexpected instruction type")
                    .with_note(TYPE_NOTE),
            );
            None
        }
        [(t, s)] => {
            if !allows(spec.types, *t) {
                let hint = if *t == ScalarType::Pred { "; a predicate is not an integer (use selp to make one)" } else { "" };
                cx.emit(
                    Diagnostic::error("check/instruction-type", *s, format!("`{}` does not take type `{}`{hint}", i.opcode.text, t.as_str()))
                        .with_label("unexpected instruction type")
                        .with_note(TYPE_NOTE),
                );
                return None;
            }
            Some(*t)
        }
    }
}

/// The rows of the table typed by their form: one instruction type the
/// opcode allows, operands resolved.
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>, spec: &Spec) {
    // A state space on a typed form is reported by `rules::instruction`.
    if d.types.is_empty() {
        if let Some(m) = d.other.iter().find(|m| matches!(PackedTy::from_modifier(m.text), Some(PackedTy::U16x2 | PackedTy::S16x2))) {
            return packed16(cx, i, *m);
        }
        if d.other.iter().any(|m| m.text.ends_with("x2") || m.text.ends_with("x4")) {
            // Other packed forms are typed by their own rules.
            super::operand::resolve_all(cx, i);
            return;
        }
    }
    let Some(ty) = one_type(cx, i, d, spec) else {
        super::operand::resolve_all(cx, i);
        return;
    };
    // Every data row with operands of its own is typed; what remains is
    // resolved.
    let _ = ty;
    super::operand::resolve_all(cx, i);
}

/// A packed 16-bit integer type on an untyped row: only `add`, `min` and
/// `max` (typed rows) take one (PTX ISA 9.7.1.1, 9.7.1.10-11); ptxas 12.9:
/// "Unexpected instruction types".
fn packed16<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ty: Name<'a>) {
    const NOTE: &str = "rule check/instruction-type (PTX ISA 9.7.1.1, 9.7.1.10, 9.7.1.11): `add.{u16x2,s16x2} d, a, b;`, `min/max.u16x2 d, a, b;`, `min/max{.relu}.s16x2 d, a, b;` with `.b32` registers";
    let op = i.opcode.text;
    cx.emit(Diagnostic::error("check/instruction-type", ty.span, format!("`{op}` does not take type `{}`", ty.text)).with_label("unexpected instruction type").with_note(NOTE));
    super::operand::resolve_all(cx, i)
}

/// The operands of a packed 16-bit integer form (`ty` its type as
/// written): `.b32` registers, no immediates, no special registers.
pub fn packed16_operands<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ty: &str) {
    const NOTE: &str = "rule check/instruction-type (PTX ISA 9.7.1.1, 9.7.1.10, 9.7.1.11): `add.{u16x2,s16x2} d, a, b;`, `min/max.u16x2 d, a, b;`, `min/max{.relu}.s16x2 d, a, b;` with `.b32` registers";
    let op = i.opcode.text;
    for (k, o) in i.operands.iter().enumerate() {
        if matches!(o.kind, OperandKind::Int(_) | OperandKind::Float(_)) && k > 0 {
            cx.emit(
                Diagnostic::error("check/operand-type", o.span, format!("`{op}{}` takes registers only; an immediate is not allowed here", ty))
                    .with_label("immediate here")
                    .with_note(NOTE),
            );
            continue;
        }
        // The operands are `.b32` exactly: ptxas 12.9 rejects `.u32`,
        // `.s32` and `.f32` registers ("Arguments mismatch") and special
        // registers.
        let role = if k == 0 { Role::Dest } else { Role::Src };
        if let OperandKind::Name { name, .. } = &o.kind {
            if super::operand::special(name.text).is_some() {
                cx.emit(
                    Diagnostic::error("check/operand-type", o.span, format!("`{op}{}` takes `.b32` registers; special register `{}` is not allowed here", ty, name.text))
                        .with_label("special register here")
                        .with_note(NOTE),
                );
                continue;
            }
            if let Some(crate::ctx::Sym::Var(v)) = cx.lookup(name.text) {
                if v.space() == ptxsim_syntax::ast::StateSpace::Reg {
                    if let Some(rt) = v.ty().filter(|t| *t != ScalarType::B32) {
                        let what = if k == 0 { "destination" } else { "source" };
                        cx.emit(
                            Diagnostic::error("check/operand-type", o.span, format!("{what} `{}` is a `{}` register; `{op}{}` takes `.b32` registers only", name.text, rt.as_str(), ty))
                                .with_label("`.b32` register expected here")
                                .with_note(NOTE),
                        );
                        continue;
                    }
                }
            }
        }
        value(cx, o, ScalarType::B32, role, Size::Exact, i);
    }
}
