//! `setp` and `selp`: the bridges between values and predicates.

use super::operand::{pred_reg, value, Role};
use ptxsim_isa::{BoolOp, CmpOp};
use crate::isa::Feature;
use crate::types::{class, Class, Size};
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType};
use ptxsim_syntax::Diagnostic;

const CMP_NOTE: &str = "rule check/setp-cmp-type (PTX ISA 9.3.1, 9.7.3.x setp): bit-size types compare only with eq/ne; signed with eq ne lt le gt ge; unsigned with those and lo ls hi hs; floats with eq ne lt le gt ge, the unordered equ neu ltu leu gtu geu, num and nan";
const SETP_NOTE: &str = "rule check/setp-form (PTX ISA 9.7.3 setp): `setp.CmpOp{.ftz}.type p[|q], a, b;` or `setp.CmpOp.BoolOp{.ftz}.type p[|q], a, b, {!}c;`";

/// Which comparison operators a type class allows (as ptxas 12.9 does: `lt`
/// etc. are accepted on unsigned types; `lo` etc. are rejected on signed).
pub fn cmp_allowed(t: ScalarType, c: CmpOp) -> bool {
    use CmpOp::*;
    match class(t) {
        Class::Bits => matches!(c, Eq | Ne),
        Class::Unsigned => matches!(c, Eq | Ne | Lt | Le | Gt | Ge | Lo | Ls | Hi | Hs),
        Class::Signed => matches!(c, Eq | Ne | Lt | Le | Gt | Ge),
        Class::Float => !matches!(c, Lo | Ls | Hi | Hs),
        Class::Pred | Class::Opaque => false,
    }
}

/// Rules `check/setp-cmp-type`, `check/setp-form`, `check/setp-ftz`,
/// `check/pred-int` for setp (PTX ISA 9.3.1, 9.7.3 setp, seed 002): the
/// comparison must suit the type class, destinations are predicates, sources
/// are values of the type, a BoolOp needs a `c` predicate and vice versa,
/// `.ftz` only on `.f32` (and half types), `.f16/.f16x2` need 4.2/sm_53,
/// `.bf16/.bf16x2` 7.8/sm_90.
pub fn setp<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, cmp: CmpOp, boolop: Option<BoolOp>, ftz: bool, ty: ScalarType) {
    let at = |f: &str| ptxsim_isa::field_span(i, f).unwrap_or(i.opcode.span);
    // (The spans are looked up where a diagnostic needs them: finding
    // them decodes the modifiers again.)
    if !cmp_allowed(ty, cmp) {
        let cls = match class(ty) {
            Class::Bits => "a bit-size type (only eq and ne)",
            Class::Unsigned => "an unsigned type (no unordered, num or nan operators)",
            Class::Signed => "a signed type (lo/ls/hi/hs are for unsigned; unordered, num and nan for floats)",
            _ => "a floating-point type (lo/ls/hi/hs are for unsigned integers)",
        };
        let cmp_text = cmp.as_str();
        cx.emit(
            Diagnostic::error("check/setp-cmp-type", at("cmp"), format!("comparison `{cmp_text}` is not defined for `{}`", ty.as_str()))
                .with_label("comparison operator not allowed for this type")
                .with_secondary(at("ty"), format!("`{}` is {cls}", ty.as_str()))
                .with_note(CMP_NOTE),
        );
    }
    if ftz {
        let fs = at("ftz");
        if !matches!(ty, ScalarType::F32 | ScalarType::F16 | ScalarType::F16x2) {
            cx.emit(
                Diagnostic::error("check/setp-ftz", fs, format!("`.ftz` is not allowed on `setp{}`", ty.as_str()))
                    .with_label("illegal modifier")
                    .with_secondary(at("ty"), "the type")
                    .with_note("rule check/setp-ftz (PTX ISA 9.7.3 setp): `.ftz` (flush subnormals) applies to `.f32` comparisons only"),
            );
        }
    }
    match ty {
        ScalarType::F16 | ScalarType::F16x2 => cx.require(Feature::SetpF16, at("ty")),
        ScalarType::Bf16 => cx.require(Feature::SetpBf16, at("ty")),
        ScalarType::Bf16x2 => cx.require(Feature::SetpBf16x2, at("ty")),
        _ => {}
    }
    let want = if boolop.is_some() { 4 } else { 3 };
    if i.operands.len() != want {
        let msg = if boolop.is_none() && i.operands.len() == 4 {
            "a fourth operand `c` needs a BoolOp (`.and`, `.or` or `.xor`)".to_string()
        } else if boolop.is_some() && i.operands.len() == 3 {
            "a BoolOp needs a fourth operand, the predicate `c` to combine with".to_string()
        } else {
            format!("`setp` takes {want} operands here, {} given", i.operands.len())
        };
        let span = if i.operands.len() == 4 && boolop.is_none() { i.operands[3].span } else { i.span };
        cx.emit(Diagnostic::error("check/setp-boolop", span, msg).with_label("BoolOp and `c` go together").with_note("rule check/setp-boolop (PTX ISA 9.7.3 setp): `setp.CmpOp.BoolOp.type p, a, b, {!}c` combines the comparison with `c`; without a BoolOp there is no `c`"));
        return;
    }
    // Destinations.
    let dst = &i.operands[0];
    match &dst.kind {
        OperandKind::PredPair(p, q) => {
            // Either half may be the sink `_` (ptxas 12.9 accepts `_|q`, `p|_`,
            // and a plain `_`; `_|_` is rejected by rule check/sink).
            for n in [p, q] {
                if n.text != "_" {
                    pred_reg(cx, *n, i);
                }
            }
        }
        OperandKind::Name { name, component: None } => {
            pred_reg(cx, *name, i);
        }
        OperandKind::Sink => {}
        _ => cx.emit(Diagnostic::error("check/pred-int", dst.span, "the destination of `setp` must be a predicate register (or `p|q`)").with_note(SETP_NOTE)),
    }
    value(cx, &i.operands[1], ty, Role::Src, Size::Exact, i);
    value(cx, &i.operands[2], ty, Role::Src, Size::Exact, i);
    if want == 4 {
        let c = &i.operands[3];
        match &c.kind {
            OperandKind::Name { name, component: None } | OperandKind::Not(name) => {
                pred_reg(cx, *name, i);
            }
            // An integer constant is a constant predicate (ptxas 12.9 takes
            // `1`, `0`, `!0`: nonzero is true).
            OperandKind::Int(_) => {}
            OperandKind::Expr(e) if matches!(ptxsim_syntax::cexpr::check(e), Ok(Some(ptxsim_syntax::cexpr::CVal::Int { .. }))) => {}
            _ => cx.emit(Diagnostic::error("check/pred-int", c.span, "the BoolOp operand `c` of `setp` must be a predicate register, optionally negated, or an integer constant").with_note(SETP_NOTE)),
        }
    }
}

use crate::ctx::Ctx;

/// Rule `check/selp-type` (PTX ISA 9.7.8.1 selp, seed 004 "Use selp to
/// materialize"): `selp.type d, a, b, c` with type one of the 16/32/64-bit
/// integer, bit-size or `.f32/.f64` types (never `.pred`), `d, a, b` of that
/// type, and `c` a `.pred` register (or an immediate, which ptxas accepts).
pub fn selp<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ty: ScalarType) {
    const NOTE: &str = "rule check/selp-type (PTX ISA 9.7.8.1 selp): `selp.type d, a, b, c;` with type .b16/.b32/.b64/.u16/.u32/.u64/.s16/.s32/.s64/.f32/.f64 and `c` a predicate";
    value(cx, &i.operands[0], ty, Role::Dest, Size::Exact, i);
    value(cx, &i.operands[1], ty, Role::Src, Size::Exact, i);
    value(cx, &i.operands[2], ty, Role::Src, Size::Exact, i);
    let c = &i.operands[3];
    match &c.kind {
        OperandKind::Int(_) => {}
        OperandKind::Name { name, component: None } | OperandKind::Not(name) => {
            pred_reg(cx, *name, i);
        }
        _ => cx.emit(Diagnostic::error("check/selp-type", c.span, "the selector of `selp` must be a predicate register").with_note(NOTE)),
    }
}
