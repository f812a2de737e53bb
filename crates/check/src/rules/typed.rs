//! Typed data instructions: `mov` and `cvt` (the arithmetic, logic,
//! shift and bit rows are typed rows, in [`super::arith`], [`super::fma`]
//! and [`super::math`]; `cvta` and the memory rows in [`super::memory`]).
//!
//! Rules `check/instruction-type` (the instruction type is one the opcode
//! defines; `.pred` only on and/or/xor/not/mov), `check/operand-type` and
//! `check/pred-int` (each operand fits the type, [`crate::types`]), and
//! `check/operand-count`.

use super::operand::{value, Role};
use super::{allows, opname, Decoded, Form, Spec};
use crate::ctx::Ctx;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, Name, OperandKind, ScalarType};
use ptxsim_syntax::Diagnostic;

const TYPE_NOTE: &str = "rule check/instruction-type: each PTX instruction defines which types it takes (PTX ISA chapter 9); predicates are manipulated only with and, or, xor, not and mov";

fn count_error(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, want: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {want} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
    );
}

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

/// The typed forms of the table (Mov, Cvt).
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>, spec: &Spec) {
    // A state space on a typed form is reported by `rules::instruction`.
    if spec.form == Form::Cvt {
        return cvt(cx, i, d);
    }
    if d.types.is_empty() {
        if let Some(m) = d.other.iter().find(|m| matches!(m.text, ".u16x2" | ".s16x2")) {
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
    let n = i.operands.len();
    let ops = &i.operands;
    match spec.form {
        Form::Mov => {
            if n != 2 {
                return count_error(cx, i, "two");
            }
            // Packing and unpacking (`mov.b64 %rd, {%r1, %r2}`) are not typed element-wise.
            let packs = matches!(ops[0].kind, OperandKind::Vector(_)) || matches!(ops[1].kind, OperandKind::Vector(_));
            if packs {
                super::operand::resolve_all(cx, i);
                return;
            }
            value(cx, &ops[0], ty, Role::Dest, Size::Exact, i);
            value(cx, &ops[1], ty, Role::Src, Size::Exact, i);
        }
        _ => super::operand::resolve_all(cx, i),
    }
}

/// `cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a`: `d` may be wider than `dtype`
/// and `a` wider than `atype` (PTX ISA 6.4.1: ld, st and cvt relax sizes).
fn cvt<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    let types = &d.types;
    let packed = types.iter().any(|(t, _)| matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2 | ScalarType::E4m3x2 | ScalarType::E5m2x2 | ScalarType::B32))
        || d.other.iter().any(|m| m.text.ends_with("x2") || m.text.ends_with("x4") || m.text == ".relu" || m.text == ".satfinite");
    if types.len() == 2 && i.operands.len() != 2 && !packed {
        return count_error(cx, i, "two");
    }
    let vector_form = types.iter().any(|(t, _)| matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2 | ScalarType::E4m3x2 | ScalarType::E5m2x2))
        || d.other.iter().any(|m| m.text.ends_with("x2") || m.text.ends_with("x4"));
    if types.len() > 2 && !vector_form {
        cx.emit(
            Diagnostic::error("check/instruction-type", types[2].1, format!("`cvt` takes a result type and a source type; `{}` is a third", types[2].0.as_str()))
                .with_label("unexpected instruction type")
                .with_note("rule check/instruction-type (PTX ISA 9.7.9.21 cvt): `cvt{.frnd}{.ftz}{.sat}.dtype.atype d, a;`"),
        );
        return;
    }
    if types.len() != 2 || i.operands.len() != 2 {
        // Packing conversions (`cvt.rn.f16x2.f32 d, a, b`) and other shapes are not typed here.
        super::operand::resolve_all(cx, i);
        return;
    }
    for (t, s) in types.iter() {
        if *t == ScalarType::Pred {
            cx.emit(
                Diagnostic::error("check/pred-int", *s, "`cvt` does not convert predicates; use `selp` to make a value from a predicate and `setp` to make a predicate from a value")
                    .with_label("unexpected instruction type")
                    .with_note(TYPE_NOTE),
            );
            return;
        }
    }
    if !int_to_int_modifiers(cx, d) {
        return;
    }
    value(cx, &i.operands[0], types[0].0, Role::Dest, Size::AtLeast, i);
    value(cx, &i.operands[1], types[1].0, Role::Src, Size::AtLeast, i);
}

/// The range of an integer type: (signed, bits).
fn int_range(t: ScalarType) -> Option<(bool, u32)> {
    use ScalarType::*;
    Some(match t {
        U8 => (false, 8),
        U16 => (false, 16),
        U32 => (false, 32),
        U64 => (false, 64),
        S8 => (true, 8),
        S16 => (true, 16),
        S32 => (true, 32),
        S64 => (true, 64),
        _ => return None,
    })
}

/// Rule `check/cvt-modifiers` on a conversion between integer types, as
/// ptxas 12.9 applies it: no rounding modifier ("Illegal rounding
/// modifier"), no `.ftz`, and `.sat` only where a source value can lie
/// outside the destination's range ("Illegal modifier '.sat'" when every
/// value of the source type fits: `cvt.sat.u32.u16`, `cvt.sat.s32.u16`,
/// `cvt.sat.u32.u32`). Returns false when it reported an error.
fn int_to_int_modifiers<'a>(cx: &mut Ctx<'_, 'a>, d: &Decoded<'a>) -> bool {
    const NOTE: &str = "rule check/cvt-modifiers (PTX ISA 9.7.9.21 cvt): between integer types there is no rounding and no `.ftz`; `.sat` clamps to the destination's range, and ptxas 12.9 refuses it where no source value can lie outside that range";
    let (Some((ds, db)), Some((ss, sb))) = (int_range(d.types[0].0), int_range(d.types[1].0)) else { return true };
    let mut ok = true;
    for m in d.other.iter().filter(|m| ptxsim_isa::modifiers::Rnd::from_str(m.text).is_some()) {
        cx.emit(
            Diagnostic::error("check/cvt-modifiers", m.span, format!("`{}`: a conversion between integer types has no rounding modifier", m.text))
                .with_label("illegal rounding modifier")
                .with_note(NOTE),
        );
        ok = false;
    }
    if let Some(f) = d.ftz {
        cx.emit(Diagnostic::error("check/cvt-modifiers", f, "`.ftz` does not apply to a conversion between integer types").with_label("illegal modifier").with_note(NOTE));
        ok = false;
    }
    // Every source value fits: same signedness and no wider, or unsigned
    // into a wider signed type.
    let fits = (ss == ds && sb <= db) || (!ss && ds && sb < db);
    if let Some(m) = d.other.iter().find(|m| m.text == ".sat").filter(|_| fits) {
        cx.emit(
            Diagnostic::error("check/cvt-modifiers", m.span, format!("`.sat` cannot apply: every `{}` value fits in `{}`", d.types[1].0.as_str(), d.types[0].0.as_str()))
                .with_label("illegal modifier")
                .with_note(NOTE),
        );
        ok = false;
    }
    ok
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
