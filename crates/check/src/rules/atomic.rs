//! `atom`, `red` and `red.async`: atomic read-modify-write and reduction
//! (typed rows: their modifiers decoded by the rows' grammars, the
//! combinations beyond each operation's types judged by `Insn::misfit`:
//! `.noftz` on the half types' `.add`/`.min`/`.max` and nowhere else, the
//! half `.min`/`.max` in vector forms only, the vector forms' operations
//! and widths, `.L2::cache_hint` off shared memory, `red`'s orders, and
//! `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes`
//! with its operations).
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
use super::opname;
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{AtomOp, AtomSpace, Insn, Opcode};
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

/// The types ptxas 12.9 allows for an operation.
fn op_types(op: AtomOp) -> &'static [ScalarType] {
    use ScalarType::*;
    match op {
        AtomOp::And | AtomOp::Or | AtomOp::Xor => &[B32, B64],
        AtomOp::Cas => &[B16, B32, B64, B128],
        AtomOp::Exch => &[B32, B64, B128],
        AtomOp::Add => &[U32, S32, U64, F32, F64, F16, F16x2, Bf16, Bf16x2],
        AtomOp::Inc | AtomOp::Dec => &[U32],
        AtomOp::Min | AtomOp::Max => &[U32, S32, U64, S64, F16, F16x2, Bf16, Bf16x2],
    }
}

struct Rule {
    code: &'static str,
    /// The opcode the messages name.
    name: Opcode,
    note: &'static str,
}

const ATOM: Rule = Rule {
    code: "check/atom-operands",
    name: Opcode::Atom,
    note: "rule check/atom-operands (PTX ISA 9.7.13.5 atom): `atom{.sem}{.scope}{.space}.op.type d, [a], b{, c}`; .space is .global or .shared (or none: generic); .and/.or/.xor take .b32/.b64, .cas .b32/.b64 (.b16, .b128), .exch .b32/.b64 (.b128), .add .u32/.s32/.u64/.f32/.f64 (and half types), .inc/.dec .u32, .min/.max .u32/.s32/.u64/.s64 (and half types)",
};

const RED: Rule = Rule {
    code: "check/red-operands",
    name: Opcode::Red,
    note: "rule check/red-operands (PTX ISA 9.7.13.6 red): `red{.sem}{.scope}{.space}.op.type [a], b`: no destination; .space is .global or .shared (or none: generic); operations .and/.or/.xor (.b32/.b64), .add (.u32/.s32/.u64/.f32/.f64, half types), .inc/.dec (.u32), .min/.max (.u32/.s32/.u64/.s64); no .cas or .exch",
};

fn err(cx: &mut Ctx<'_, '_>, r: &Rule, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error(r.code, span, msg).with_label(label.to_string()).with_note(r.note));
}

/// Checks an `atom`, `red` or `red.async` (its modifiers decoded by the
/// row's grammar).
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    let Some(x) = insn.atomic() else { return resolve_all(cx, i) };
    let red = x.red;
    let r = if red { &RED } else { &ATOM };
    let head = i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span));
    // The operation.
    let Some(op) = x.op else {
        err(cx, r, head, format!("`{}` needs an operation (.add, .cas, .exch, .min, ...)", opname(i)), "no operation given");
        return resolve_all(cx, i);
    };
    if red && matches!(op, AtomOp::Cas | AtomOp::Exch) {
        err(cx, r, modifier_span(i, op.as_str()), format!("`red` has no `{}` operation; use `atom`", op.as_str()), "not a reduction");
        return resolve_all(cx, i);
    }
    // The state space.
    if let Some(s) = x.space.filter(|s| matches!(s, AtomSpace::Local | AtomSpace::Const | AtomSpace::Param)) {
        err(cx, r, modifier_span(i, s.as_str()), format!("`{}` cannot operate on the `{}` state space", r.name.as_str(), s.as_str()), "atomic operations work on .global and .shared memory");
        return resolve_all(cx, i);
    }
    // The type.
    let Some(ty) = x.ty else {
        err(cx, r, head, format!("`{}` needs a type", opname(i)), "no type given");
        return resolve_all(cx, i);
    };
    let allowed = op_types(op);
    if !allowed.contains(&ty) && !x.is_async {
        let list: Vec<&str> = allowed.iter().map(|t| t.as_str()).collect();
        err(cx, r, modifier_span(i, ty.as_str()), format!("`{}{}` does not take type `{}`; it takes {}", r.name.as_str(), op.as_str(), ty.as_str(), list.join(", ")), "type not defined for this operation");
        return resolve_all(cx, i);
    }
    if let Some(m) = insn.misfit() {
        err(cx, r, modifier_span(i, m.modifier), m.why, "modifier does not apply here");
        return resolve_all(cx, i);
    }
    gates(cx, head, op, ty);
    qualifier_gates(cx, i, &x);
    if x.vec.is_some() {
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
    let sources = if op == AtomOp::Cas { 2 } else { 1 };
    // `.L2::cache_hint`'s cache policy, or `red.async`'s mbarrier.
    let extra = usize::from(x.hint || x.mbar);
    let want = dests + 1 + sources + extra;
    if ops.len() != want {
        let shape = match (red, sources, extra) {
            (true, _, 0) => "`[a], b`",
            (true, _, _) if x.mbar => "`[a], b, [mbar]`",
            (true, _, _) => "`[a], b, cache-policy`",
            (false, 2, 0) => "`d, [a], b, c`",
            (false, 2, _) => "`d, [a], b, c, cache-policy`",
            (false, _, 0) => "`d, [a], b`",
            (false, _, _) => "`d, [a], b, cache-policy`",
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
    let space = x.space.and_then(|s| StateSpace::from_str(s.as_str()));
    let space_other = x.space.is_some() && space.is_none();
    let addr = &ops[dests];
    if !matches!(addr.kind, OperandKind::Address(_)) {
        cx.emit(
            Diagnostic::error(r.code, addr.span, format!("`{}` needs an address in brackets here", opname(i)))
                .with_label("expected `[address]`")
                .with_note(r.note),
        );
    } else {
        super::memory::address(cx, i, addr, space, false, space_other);
    }
    for o in &ops[dests + 1..dests + 1 + sources] {
        value(cx, o, ty, Role::Src, Size::Exact, i);
    }
    for o in &ops[dests + 1 + sources..] {
        resolve_operand(cx, o);
    }
}

/// The gates of the types and operations (PTX ISA 9.7.13.5): `.add.f64`
/// (sm_60), bfloat16 (sm_90), the other 16-bit types (sm_70).
/// The gates of the ordering, scope, state space, vector and cache-hint
/// qualifiers (ptxas 12.9: "Feature '.acquire' requires .target sm_70 or
/// higher", "Feature '::cluster' requires .target sm_90 or higher",
/// "Feature 'atom instruction with vector types' requires .target sm_90").
fn qualifier_gates<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: &ptxsim_isa::Atomic) {
    use ptxsim_isa::{AtomScope, AtomSpace};
    if let Some(s) = x.sem {
        cx.require(Feature::MemSem, modifier_span(i, s.as_str()));
    }
    match x.scope {
        Some(AtomScope::Cluster) => cx.require(Feature::ClusterScope, modifier_span(i, AtomScope::Cluster.as_str())),
        Some(s) if !x.is_async => cx.require(Feature::AtomScope, modifier_span(i, s.as_str())),
        _ => {}
    }
    match x.space {
        Some(s @ AtomSpace::SharedCluster) if !x.is_async => cx.require(Feature::SpaceCluster, modifier_span(i, s.as_str())),
        Some(s @ AtomSpace::SharedCta) if !x.is_async => cx.require(Feature::SharedCta, modifier_span(i, s.as_str())),
        _ => {}
    }
    if let Some(v) = x.vec {
        cx.require(Feature::AtomVector, modifier_span(i, v.as_str()));
    }
    if x.ty == Some(ScalarType::B128) {
        // ptxas 12.9: "Instruction 'atom.cas.b128.global' requires .target sm_90".
        cx.require(Feature::AtomB128, modifier_span(i, ScalarType::B128.as_str()));
    }
    if x.hint {
        cx.require(Feature::CacheHint, modifier_span(i, ptxsim_isa::spelling::L2_CACHE_HINT));
    }
}

fn gates(cx: &mut Ctx<'_, '_>, span: Span, op: AtomOp, ty: ScalarType) {
    use ScalarType::*;
    if op == AtomOp::Add && ty == F64 {
        cx.require(Feature::AtomAddF64, span);
    } else if matches!(ty, Bf16 | Bf16x2) {
        cx.require(Feature::AtomBf16, span);
    } else if matches!(ty, F16 | F16x2 | B16) {
        cx.require(Feature::Atom16, span);
    }
}
