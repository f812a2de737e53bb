//! The typed forms of `lop3`, `shf`, `set` and `slct` (their rows in
//! `ptxsim_isa` have their grammar written and these rules read their
//! `Insn`'s fields). What each accepts was measured against ptxas 12.9
//! (`tests/check/*/forms--*.ptx`):
//!
//! - `lop3.b32 d, a, b, c, immLut` (PTX ISA 9.7.8.6): `.b32` only, `a b c d`
//!   32-bit values, `immLut` an integer constant; `lop3.BoolOp.b32 d|p, a,
//!   b, c, immLut, q` with `.BoolOp` `.and` or `.or` (PTX 8.2, sm_70), a
//!   predicate output `p` and predicate input `q`. ptxas accepts a look-up
//!   table outside 0..255 (`check/lop3-lut` warns: only 8 bits mean something).
//! - `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c` (PTX ISA 9.7.8.8): one
//!   direction and one mode, both required; `c` a `.u32` shift amount.
//! - `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}` (PTX ISA 9.7.8.2):
//!   `dtype` `.u32 .s32 .f32`, `stype` a type `setp` compares (the
//!   comparison suits it as for `setp`), `.ftz` on `.f32` only. The
//!   half-precision forms (a 16-bit or packed `dtype` or `stype`) have
//!   gates of their own and are not typed here yet.
//! - `slct.dtype.s32 d, a, b, c`, `slct{.ftz}.dtype.f32 d, a, b, c` (PTX ISA
//!   9.7.8.3): `dtype` a 16/32/64-bit integer, bit-size, `.f32` or `.f64` type.

use super::operand::{pred_reg, value, Role};
use super::setp::cmp_allowed;
use ptxsim_isa::{BoolOp, CmpOp};
use super::opname;
use crate::ctx::Ctx;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType};
use ptxsim_syntax::{Diagnostic, Span};

const LOP3_NOTE: &str = "rule check/lop3 (PTX ISA 9.7.8.6 lop3): `lop3.b32 d, a, b, c, immLut;` or `lop3.BoolOp.b32 d|p, a, b, c, immLut, q;` with .BoolOp .and or .or; immLut is an integer constant";
const SHF_NOTE: &str = "rule check/shf (PTX ISA 9.7.8.8 shf): `shf.l.mode.b32 d, a, b, c;` or `shf.r.mode.b32 d, a, b, c;` with mode .wrap or .clamp, and c a .u32 shift amount";
const SET_NOTE: &str = "rule check/set (PTX ISA 9.7.8.2 set): `set.CmpOp{.ftz}.dtype.stype d, a, b;` or `set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, {!}c;` with dtype .u32, .s32 or .f32";
const SLCT_NOTE: &str = "rule check/slct (PTX ISA 9.7.8.3 slct): `slct.dtype.s32 d, a, b, c;` or `slct{.ftz}.dtype.f32 d, a, b, c;` with dtype a 16/32/64-bit integer or bit-size type, .f32 or .f64";

fn error(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, label: &str, note: &str) {
    cx.emit(Diagnostic::error(code, span, msg).with_label(label.to_string()).with_note(note.to_string()));
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, want: usize, note: &str) -> bool {
    if i.operands.len() == want {
        return true;
    }
    error(cx, "check/operand-count", i.span, format!("`{}` takes {want} operands; {} given", opname(i), i.operands.len()), "wrong number of operands", note);
    false
}

/// A `.b32` source of `lop3` or `shf`: like any bit-size operand, except
/// that a floating-point constant is refused (ptxas: "Arguments mismatch").
fn bits_src<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, k: usize, note: &str) {
    let o = &i.operands[k];
    if let OperandKind::Float(_) = o.kind {
        error(cx, "check/operand-type", o.span, format!("operand {} of `{}` is a floating-point constant", k + 1, opname(i)), "an integer constant or a 32-bit register is expected here", note);
        return;
    }
    value(cx, o, ScalarType::B32, Role::Src, Size::Exact, i);
}

/// A predicate source: a register, optionally negated, or an integer constant.
fn pred_src(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, k: usize, note: &str) {
    let o = &i.operands[k];
    match &o.kind {
        OperandKind::Name { name, component: None } | OperandKind::Not(name) => {
            pred_reg(cx, *name, i);
        }
        OperandKind::Int(_) => {}
        _ => error(cx, "check/pred-int", o.span, format!("operand {} of `{}` must be a predicate, optionally negated", k + 1, opname(i)), "a predicate is expected here", note),
    }
}

/// `lop3` (a typed row: its grammar took `.and`/`.or` and `.b32`;
/// `boolop` says whether one of them was given).
pub fn lop3<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, boolop: bool) {
    let dst = &i.operands.first().map(|o| &o.kind);
    let pair = matches!(dst, Some(OperandKind::PredPair(..)));
    if boolop != pair {
        let (msg, label) = if boolop {
            (format!("`{}` writes a predicate too: its destination is `d|p`", opname(i)), "expected `d|p`")
        } else {
            (format!("`{}` has no predicate output; `d|p` needs `.and` or `.or`", opname(i)), "unexpected `d|p`")
        };
        let span = i.operands.first().map(|o| o.span).unwrap_or(i.span);
        error(cx, "check/lop3", span, msg, label, LOP3_NOTE);
        return super::operand::resolve_all(cx, i);
    }
    if !count(cx, i, if boolop { 6 } else { 5 }, LOP3_NOTE) {
        return super::operand::resolve_all(cx, i);
    }
    match &i.operands[0].kind {
        OperandKind::PredPair(dn, p) => {
            if dn.text != "_" {
                let o = ptxsim_syntax::ast::Operand { kind: OperandKind::Name { name: *dn, component: None }, span: dn.span };
                value(cx, &o, ScalarType::B32, Role::Dest, Size::Exact, i);
            }
            if p.text != "_" {
                pred_reg(cx, *p, i);
            }
        }
        _ => {
            value(cx, &i.operands[0], ScalarType::B32, Role::Dest, Size::Exact, i);
        }
    }
    for k in 1..4 {
        bits_src(cx, i, k, LOP3_NOTE);
    }
    let lut = &i.operands[4];
    match &lut.kind {
        OperandKind::Int(v) => {
            let signed = v.value as i64;
            if !(0..=255).contains(&signed) {
                cx.emit(
                    Diagnostic::warning("check/lop3-lut", lut.span, format!("look-up table {signed} is outside 0..255"))
                        .with_label("only an 8-bit table means something")
                        .with_note("rule check/lop3-lut (PTX ISA 9.7.8.6 lop3): immLut is the 8-bit truth table of F(a, b, c); ptxas accepts a wider constant"),
                );
            }
        }
        OperandKind::Expr(e) => {
            super::operand::resolve_expr(cx, e);
        }
        _ => error(cx, "check/lop3", lut.span, format!("the look-up table of `{}` must be an integer constant", opname(i)), "not a constant", LOP3_NOTE),
    }
    if boolop {
        pred_src(cx, i, 5, LOP3_NOTE);
    }
}

/// `shf` (a typed row: its grammar took the direction, the mode and `.b32`).
pub fn shf<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    if !count(cx, i, 4, SHF_NOTE) {
        return super::operand::resolve_all(cx, i);
    }
    value(cx, &i.operands[0], ScalarType::B32, Role::Dest, Size::Exact, i);
    bits_src(cx, i, 1, SHF_NOTE);
    bits_src(cx, i, 2, SHF_NOTE);
    value(cx, &i.operands[3], ScalarType::U32, Role::Src, Size::Exact, i);
}

fn half(t: ScalarType) -> bool {
    use ScalarType::*;
    matches!(t, F16 | F16x2 | Bf16 | Bf16x2 | U16 | S16)
}

/// `set` (the `Set` row's grammar took the comparison, BoolOp, `.ftz`
/// and the two types).
pub fn set<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, cmp: CmpOp, boolop: Option<BoolOp>, ftz: bool, dt: ScalarType, st: ScalarType) {
    // The half-precision forms: resolved, not typed (see the module's doc).
    if half(dt) || matches!(st, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2) {
        return super::operand::resolve_all(cx, i);
    }
    let at = |f: &str| ptxsim_isa::field_span(i, f).unwrap_or(i.opcode.span);
    if !cmp_allowed(st, cmp) {
        error(cx, "check/setp-cmp-type", at("cmp"), format!("comparison `{}` is not defined for `{}`", cmp.as_str(), st.as_str()), "comparison operator not allowed for this type", SET_NOTE);
    }
    if ftz && st != ScalarType::F32 {
        error(cx, "check/modifiers", at("ftz"), format!("`.ftz` is not allowed on `set` comparing `{}`", st.as_str()), "illegal modifier", SET_NOTE);
    }
    let want = if boolop.is_some() { 4 } else { 3 };
    if !count(cx, i, want, SET_NOTE) {
        return super::operand::resolve_all(cx, i);
    }
    value(cx, &i.operands[0], dt, Role::Dest, Size::Exact, i);
    value(cx, &i.operands[1], st, Role::Src, Size::Exact, i);
    value(cx, &i.operands[2], st, Role::Src, Size::Exact, i);
    if want == 4 {
        pred_src(cx, i, 3, SET_NOTE);
    }
}

/// `slct` (the `Slct` row's grammar took `.ftz` and the two types; the
/// roles, the four operands).
pub fn slct<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ftz: bool, dt: ScalarType, ct: ScalarType) {
    if ftz && ct != ScalarType::F32 {
        let span = ptxsim_isa::field_span(i, "ftz").unwrap_or(i.opcode.span);
        error(cx, "check/modifiers", span, "`.ftz` applies to `slct` with an `.f32` selector only".into(), "illegal modifier", SLCT_NOTE);
        return super::operand::resolve_all(cx, i);
    }
    value(cx, &i.operands[0], dt, Role::Dest, Size::Exact, i);
    value(cx, &i.operands[1], dt, Role::Src, Size::Exact, i);
    value(cx, &i.operands[2], dt, Role::Src, Size::Exact, i);
    value(cx, &i.operands[3], ct, Role::Src, Size::Exact, i);
}

