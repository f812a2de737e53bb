//! `atom` and `red`: atomic read-modify-write and reduction.
//!
//! Rule `check/atom-operands` (PTX ISA 9.7.13.5 atom) and rule
//! `check/red-operands` (PTX ISA 9.7.13.6 red):
//!
//! - exactly one operation (`.and .or .xor .cas .exch .add .inc .dec .min
//!   .max`; `red` has no `.cas` or `.exch`);
//! - a state space of `.global` or `.shared` (`::cta`, `::cluster`), or none
//!   (generic); `.const`, `.local` and `.param` are not atomic spaces;
//! - exactly one type, and one the operation defines, as ptxas 12.9 checks it:
//!   bitwise operations take `.b32`/`.b64`, `.cas` `.b16`/`.b32`/`.b64`/`.b128`,
//!   `.exch` `.b32`/`.b64`/`.b128`, `.add` `.u32 .s32 .u64 .f32 .f64` and the
//!   half types, `.inc`/`.dec` `.u32`, `.min`/`.max` `.u32 .s32 .u64 .s64` and
//!   the half types (`atom.add.b32`, `atom.add.s64`, `atom.cas.u32`,
//!   `atom.min.f32` are rejected);
//! - operands `d, [a], b` (`d, [a], b, c` for `.cas`; `red` has no `d`), an
//!   optional trailing cache policy with `.L2::cache_hint`; `d` is a register
//!   or `_`, `a` an address checked like `ld`'s ([`super::memory`]), and
//!   `d`, `b`, `c` fit the type exactly by the type-checking rules
//!   ([`crate::types`]): `.b32` takes an `.f32` register, `.u32` a `.s32`
//!   one, never a `.u64` or a predicate.
//!
//! Vector forms (`atom.global.v2.f32`, sm_90) are checked up to the type;
//! their operands are only resolved.

use super::operand::{resolve_all, resolve_operand, value, Role};
use super::{opname, Decoded};
use crate::ctx::Ctx;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const OPS: &[&str] = &[".and", ".or", ".xor", ".cas", ".exch", ".add", ".inc", ".dec", ".min", ".max"];

/// The types ptxas 12.9 allows for an operation.
fn op_types(op: &str) -> &'static [ScalarType] {
    use ScalarType::*;
    match op {
        ".and" | ".or" | ".xor" => &[B32, B64],
        ".cas" => &[B16, B32, B64, B128],
        ".exch" => &[B32, B64, B128],
        ".add" => &[U32, S32, U64, F32, F64, F16, F16x2, Bf16, Bf16x2],
        ".inc" | ".dec" => &[U32],
        ".min" | ".max" => &[U32, S32, U64, S64, F16, F16x2, Bf16, Bf16x2],
        _ => &[],
    }
}

struct Rule {
    code: &'static str,
    name: &'static str,
    note: &'static str,
}

const ATOM: Rule = Rule {
    code: "check/atom-operands",
    name: "atom",
    note: "rule check/atom-operands (PTX ISA 9.7.13.5 atom): `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}`; .space is .global or .shared (or none: generic); .and/.or/.xor take .b32/.b64, .cas .b32/.b64 (.b16, .b128), .exch .b32/.b64 (.b128), .add .u32/.s32/.u64/.f32/.f64 (and half types), .inc/.dec .u32, .min/.max .u32/.s32/.u64/.s64 (and half types)",
};

const RED: Rule = Rule {
    code: "check/red-operands",
    name: "red",
    note: "rule check/red-operands (PTX ISA 9.7.13.6 red): `red{.sem}{.scope}{.space}.op.type [a], b`: no destination; .space is .global or .shared (or none: generic); operations .and/.or/.xor (.b32/.b64), .add (.u32/.s32/.u64/.f32/.f64, half types), .inc/.dec (.u32), .min/.max (.u32/.s32/.u64/.s64); no .cas or .exch",
};

fn err(cx: &mut Ctx<'_, '_>, r: &Rule, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error(r.code, span, msg).with_label(label.to_string()).with_note(r.note));
}

/// Checks `atom` (`red == false`) or `red`.
pub fn atom_red<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>, red: bool) {
    let r = if red { &RED } else { &ATOM };
    let head = i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span));
    // The operation.
    let ops: Vec<_> = d.other.iter().filter(|m| OPS.contains(&m.text)).collect();
    let op = match ops.as_slice() {
        [] => {
            err(cx, r, head, format!("`{}` needs an operation (.add, .cas, .exch, .min, ...)", opname(i)), "no operation given");
            return resolve_all(cx, i);
        }
        [one] => *one,
        [_, second, ..] => {
            err(cx, r, second.span, format!("`{}` takes one operation; `{}` is a second one", r.name, second.text), "second operation");
            return resolve_all(cx, i);
        }
    };
    if red && matches!(op.text, ".cas" | ".exch") {
        err(cx, r, op.span, format!("`red` has no `{}` operation; use `atom`", op.text), "not a reduction");
        return resolve_all(cx, i);
    }
    // The state space.
    if let Some((s, span)) = d.space {
        if !matches!(s, StateSpace::Global | StateSpace::Shared) {
            err(cx, r, span, format!("`{}` cannot operate on the `{}` state space", r.name, s.as_str()), "atomic operations work on .global and .shared memory");
            return resolve_all(cx, i);
        }
    }
    // The type.
    let ty = match d.types.as_slice() {
        [(t, _)] => *t,
        [] => {
            err(cx, r, head, format!("`{}` needs a type", opname(i)), "no type given");
            return resolve_all(cx, i);
        }
        [_, (t, s), ..] => {
            err(cx, r, *s, format!("`{}` takes one type; `{}` is a second one", r.name, t.as_str()), "unexpected instruction type");
            return resolve_all(cx, i);
        }
    };
    let allowed = op_types(op.text);
    if !allowed.contains(&ty) {
        let list: Vec<&str> = allowed.iter().map(|t| t.as_str()).collect();
        let span = d.types[0].1;
        err(cx, r, span, format!("`{}{}` does not take type `{}`; it takes {}", r.name, op.text, ty.as_str(), list.join(", ")), "type not defined for this operation");
        return resolve_all(cx, i);
    }
    if d.vector.is_some() {
        // Vector atomics (sm_90): not typed element-wise.
        return resolve_all(cx, i);
    }
    // The operands.
    let ops = &i.operands;
    let is_addr = |k: usize| ops.get(k).is_some_and(|o| matches!(o.kind, OperandKind::Address(_)));
    let dests = if red { 0 } else { 1 };
    if red && !is_addr(0) && is_addr(1) {
        cx.emit(
            Diagnostic::error(r.code, ops[0].span, "`red` has no destination operand; `atom` returns the old value, `red` does not")
                .with_label("unexpected destination")
                .with_note(r.note),
        );
        return resolve_all(cx, i);
    }
    let sources = if op.text == ".cas" { 2 } else { 1 };
    let hint = d.other.iter().any(|m| m.text.starts_with(".L2::cache_hint"));
    let want = dests + 1 + sources;
    if ops.len() != want && !(hint && ops.len() == want + 1) {
        let shape = match (red, sources) {
            (true, _) => "`[a], b`",
            (false, 2) => "`d, [a], b, c`",
            (false, _) => "`d, [a], b`",
        };
        cx.emit(
            Diagnostic::error(r.code, i.span, format!("`{}` takes the operands {shape}; {} given", opname(i), ops.len()))
                .with_label("wrong operand count")
                .with_note(r.note),
        );
        return resolve_all(cx, i);
    }
    if !red {
        value(cx, &ops[0], ty, Role::Dest, Size::Exact, i);
    }
    let addr = &ops[dests];
    if !matches!(addr.kind, OperandKind::Address(_)) {
        cx.emit(
            Diagnostic::error(r.code, addr.span, format!("`{}` needs an address in brackets here", opname(i)))
                .with_label("expected `[address]`")
                .with_note(r.note),
        );
    } else {
        super::memory::address(cx, i, addr, d.space.map(|s| s.0), false, d.space_other);
    }
    for o in &ops[dests + 1..dests + 1 + sources] {
        value(cx, o, ty, Role::Src, Size::Exact, i);
    }
    for o in &ops[dests + 1 + sources..] {
        resolve_operand(cx, o);
    }
}
