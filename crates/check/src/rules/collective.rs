//! The `.sync` warp collectives beyond `shfl`/`vote`, rule
//! `check/collective-operands`. Their rows' grammars take the modifiers
//! (`ptxsim_isa::decode`: `.sync` required, one mode or operation, the
//! allowed types) and their roles the operand count; these rules read the
//! typed [`Insn`] fields:
//!
//! - `match.any.sync.type d, a, membermask` and `match.all.sync.type
//!   d{|p}, a, membermask` (PTX ISA 9.7.13 match.sync): `.sync` and one of
//!   `.any`/`.all` required, type `.b32`/`.b64`; `d` is 32-bit, `a` of the
//!   type, `membermask` a `.u32`; only `.all` has the predicate `p`, and
//!   either of `d|p` may be `_` (not both; rule `check/sink`). 6.0, sm_70.
//! - `redux.sync.op.type d, a, membermask` (PTX ISA 9.7.13 redux.sync):
//!   `.add .min .max` on `.u32`/`.s32`, `.and .or .xor` on `.b32` (7.0,
//!   sm_80); `.min .max` with optional `.abs` and `.NaN` on `.f32` (8.6,
//!   and in ptxas 12.9 only the targets sm_100a, sm_100f, sm_103a, sm_103f).
//! - `elect.sync d|p, membermask` (PTX ISA 9.7.13 elect.sync): no type, `d`
//!   a 32-bit register or `_`, `p` a predicate (not `_`: rule `check/sink`). 8.0, sm_90.

use super::operand::{pred_reg, value, Role};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::{MatchMode, ReduxKind};
use ptxsim_syntax::ast::{Instruction, Name, Operand, OperandKind, ScalarType};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/collective-operands (PTX ISA 9.7.13 match.sync, redux.sync, elect.sync): `match.{any,all}.sync.{b32,b64} d{|p}, a, membermask` (p with .all only), `redux.sync.{add,min,max}.{u32,s32}` / `.{and,or,xor}.b32` / `.{min,max}{.abs}{.NaN}.f32 d, a, membermask`, `elect.sync d|p, membermask`; membermask is a .u32";

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/collective-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

fn name_op<'a>(n: Name<'a>) -> Operand<'a> {
    if n.text == "_" {
        Operand { kind: OperandKind::Sink, span: n.span }
    } else {
        Operand { kind: OperandKind::Name { name: n, component: None }, span: n.span }
    }
}

/// `match.{any,all}.sync.{b32,b64} d{|p}, a, membermask`.
pub fn match_sync<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, mode: MatchMode, ty: ScalarType) {
    let ops = &i.operands;
    match &ops[0].kind {
        OperandKind::PredPair(dn, p) => {
            if mode != MatchMode::All {
                return err(cx, ops[0].span, "`match.any` has no predicate destination".to_string(), "predicate output not allowed");
            }
            value(cx, &name_op(*dn), ScalarType::B32, Role::Dest, Size::Exact, i);
            // Either half may be `_` (rule check/sink rejects `_|_`).
            if p.text != "_" && !pred_reg(cx, *p, i) {
                return;
            }
        }
        _ => {
            value(cx, &ops[0], ScalarType::B32, Role::Dest, Size::Exact, i);
        }
    }
    value(cx, &ops[1], ty, Role::Src, Size::Exact, i);
    value(cx, &ops[2], ScalarType::U32, Role::Src, Size::Exact, i);
}

/// `redux.sync.op.type d, a, membermask`: the operation suits the type,
/// `.abs`/`.NaN` only on `.f32`, and `.f32` only on the targets ptxas
/// 12.9 takes it on.
pub fn redux<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, op: ReduxKind, abs: bool, nan: bool, ty: ScalarType) {
    use ScalarType::*;
    let tspan = ptxsim_isa::field_span(i, "ty").unwrap_or(head(i));
    let ok = match op {
        ReduxKind::Add => matches!(ty, U32 | S32),
        ReduxKind::Min | ReduxKind::Max => matches!(ty, U32 | S32 | F32),
        ReduxKind::And | ReduxKind::Or | ReduxKind::Xor => ty == B32,
    };
    if !ok {
        return err(cx, tspan, format!("`redux.sync{}` does not take type `{}`", op.as_str(), ty.as_str()), "incorrect type for the operation");
    }
    if ty != F32 {
        for (given, field) in [(abs, "abs"), (nan, "nan")] {
            if given {
                let span = ptxsim_isa::field_span(i, field).unwrap_or(head(i));
                let text = i.modifiers.iter().find(|m| m.span.same_as(span)).map_or("", |m| m.text);
                return err(cx, span, format!("`{text}` applies to `redux.sync.{{min,max}}.f32` only"), "illegal modifier");
            }
        }
    } else {
        cx.require(Feature::ReduxF32, head(i));
        if let Some((sm, _)) = cx.sm {
            let family = matches!((sm.number, sm.suffix), (100 | 103, b'a' | b'f'));
            if !family {
                err(cx, head(i), format!("`redux.sync.f32` is not supported on .target {sm} (ptxas 12.9: sm_100a, sm_100f, sm_103a, sm_103f)"), "target without redux.f32");
            }
        }
    }
    let ops = &i.operands;
    value(cx, &ops[0], ty, Role::Dest, Size::Exact, i);
    value(cx, &ops[1], ty, Role::Src, Size::Exact, i);
    value(cx, &ops[2], U32, Role::Src, Size::Exact, i);
}

/// `elect.sync d|p, membermask` (its gate is the row's).
pub fn elect<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    let ops = &i.operands;
    let OperandKind::PredPair(dn, p) = &ops[0].kind else {
        return err(cx, ops[0].span, "`elect.sync` writes `d|p`: a 32-bit register (or `_`) and a predicate".to_string(), "`d|p` expected");
    };
    value(cx, &name_op(*dn), ScalarType::U32, Role::Dest, Size::Exact, i);
    // `p` is not `_` here (rule check/sink).
    if !pred_reg(cx, *p, i) {
        return;
    }
    value(cx, &ops[1], ScalarType::U32, Role::Src, Size::Exact, i);
}
