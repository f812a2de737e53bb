//! The `.sync` warp collectives beyond `shfl`/`vote`, rule
//! `check/collective-operands`:
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
use super::{opname, Decoded};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
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

/// The modifiers that are neither types nor in `known`.
fn stray<'a>(i: &Instruction<'a>, known: &[&str]) -> Option<Name<'a>> {
    i.modifiers.iter().find(|m| ScalarType::from_str(m.text).is_none() && !known.contains(&m.text)).copied()
}

/// Checks `match`, `redux` and `elect`.
pub fn collective<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    use ScalarType::*;
    let op = i.opcode.text;
    let known: &[&str] = match op {
        "match" => &[".sync", ".any", ".all"],
        "redux" => &[".sync", ".add", ".min", ".max", ".and", ".or", ".xor", ".abs", ".NaN"],
        _ => &[".sync"],
    };
    if let Some(m) = stray(i, known) {
        return err(cx, m.span, format!("`{}` is not a modifier of `{op}`", m.text), "illegal modifier");
    }
    if !i.has_modifier(".sync") {
        return err(cx, head(i), format!("`{}` needs `.sync`", opname(i)), "missing `.sync`");
    }
    let ops = &i.operands;
    let types: Vec<(ScalarType, Span)> = d.types.iter().copied().collect();
    let want_ops = if op == "elect" { 2 } else { 3 };
    match op {
        "match" => {
            let modes: Vec<&Name<'a>> = i.modifiers.iter().filter(|m| matches!(m.text, ".any" | ".all")).collect();
            if modes.len() != 1 {
                return err(cx, head(i), format!("`{}` takes one of `.any` and `.all`", opname(i)), "mode");
            }
            let all = modes[0].text == ".all";
            let ty = match types.as_slice() {
                [(t @ (B32 | B64), _)] => *t,
                _ => return err(cx, types.first().map(|t| t.1).unwrap_or(head(i)), format!("`{}` takes one type, `.b32` or `.b64`", opname(i)), "unexpected instruction type"),
            };
            if ops.len() != want_ops {
                return count(cx, i, want_ops);
            }
            match &ops[0].kind {
                OperandKind::PredPair(dn, p) => {
                    if !all {
                        return err(cx, ops[0].span, "`match.any` has no predicate destination".to_string(), "predicate output not allowed");
                    }
                    value(cx, &name_op(*dn), B32, Role::Dest, Size::Exact, i);
                    // Either half may be `_` (rule check/sink rejects `_|_`).
                    if p.text != "_" && !pred_reg(cx, *p, i) {
                        return;
                    }
                }
                _ => {
                    value(cx, &ops[0], B32, Role::Dest, Size::Exact, i);
                }
            }
            value(cx, &ops[1], ty, Role::Src, Size::Exact, i);
            value(cx, &ops[2], U32, Role::Src, Size::Exact, i);
        }
        "redux" => {
            let ops_mods: Vec<&Name<'a>> = i.modifiers.iter().filter(|m| matches!(m.text, ".add" | ".min" | ".max" | ".and" | ".or" | ".xor")).collect();
            if ops_mods.len() != 1 {
                return err(cx, head(i), format!("`{}` takes one operation of .add .min .max .and .or .xor", opname(i)), "operation");
            }
            let red = ops_mods[0];
            let [(ty, tspan)] = types.as_slice() else {
                return err(cx, head(i), format!("`{}` takes one type", opname(i)), "unexpected instruction types");
            };
            let ok = match red.text {
                ".add" => matches!(ty, U32 | S32),
                ".min" | ".max" => matches!(ty, U32 | S32 | F32),
                _ => *ty == B32,
            };
            if !ok {
                return err(cx, *tspan, format!("`redux.sync{}` does not take type `{}`", red.text, ty.as_str()), "incorrect type for the operation");
            }
            if *ty != F32 {
                if let Some(m) = i.modifiers.iter().find(|m| matches!(m.text, ".abs" | ".NaN")) {
                    return err(cx, m.span, format!("`{}` applies to `redux.sync.{{min,max}}.f32` only", m.text), "illegal modifier");
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
            if ops.len() != want_ops {
                return count(cx, i, want_ops);
            }
            value(cx, &ops[0], *ty, Role::Dest, Size::Exact, i);
            value(cx, &ops[1], *ty, Role::Src, Size::Exact, i);
            value(cx, &ops[2], U32, Role::Src, Size::Exact, i);
        }
        _ => {
            cx.require(Feature::ElectSync, head(i));
            if let Some((_, s)) = types.first() {
                return err(cx, *s, "`elect.sync` takes no type".to_string(), "unexpected instruction type");
            }
            if ops.len() != want_ops {
                return count(cx, i, want_ops);
            }
            let OperandKind::PredPair(dn, p) = &ops[0].kind else {
                return err(cx, ops[0].span, "`elect.sync` writes `d|p`: a 32-bit register (or `_`) and a predicate".to_string(), "`d|p` expected");
            };
            value(cx, &name_op(*dn), U32, Role::Dest, Size::Exact, i);
            // `p` is not `_` here (rule check/sink).
            if !pred_reg(cx, *p, i) {
                return;
            }
            value(cx, &ops[1], U32, Role::Src, Size::Exact, i);
        }
    }
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, n: usize) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {n} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
    );
}
