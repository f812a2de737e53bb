//! `setp` and `selp`: the bridges between values and predicates.

use super::operand::{pred_reg, value, Role};
use super::{opname, CmpOp, Decoded};
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

fn setp_type_ok(t: ScalarType) -> bool {
    use ScalarType::*;
    matches!(t, B16 | B32 | B64 | U16 | U32 | U64 | S16 | S32 | S64 | F32 | F64 | F16 | F16x2 | Bf16 | Bf16x2)
}

/// Rules `check/setp-cmp-type`, `check/setp-form`, `check/setp-ftz`,
/// `check/pred-int` for setp (PTX ISA 9.3.1, 9.7.3 setp, seed 002): the
/// comparison must suit the type class, destinations are predicates, sources
/// are values of the type, a BoolOp needs a `c` predicate and vice versa,
/// `.ftz` only on `.f32` (and half types), `.f16/.f16x2` need 4.2/sm_53,
/// `.bf16/.bf16x2` 7.8/sm_90.
pub fn setp<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    for m in &d.other {
        cx.emit(
            Diagnostic::error("check/setp-form", m.span, format!("`{}` is not a modifier of `setp`", m.text))
                .with_label("unknown modifier")
                .with_note(format!("{SETP_NOTE}; the BoolOps are .and, .or and .xor")),
        );
    }
    let Some((cmp, cspan)) = d.cmp else {
        cx.emit(Diagnostic::error("check/setp-form", i.opcode.span, format!("`{}` has no comparison operator", opname(i))).with_label("expected e.g. `setp.lt.s32`").with_note(SETP_NOTE));
        return;
    };
    if d.types.len() != 1 || !setp_type_ok(d.types[0].0) {
        let span = d.types.first().map(|t| t.1).unwrap_or(i.opcode.span);
        let msg = match d.types.first() {
            None => format!("`{}` has no operand type", opname(i)),
            Some((t, _)) if *t == ScalarType::Pred => "`setp` compares values, not predicates: `.pred` is not a setp type".to_string(),
            Some((t, _)) => format!("`{}` is not a type `setp` compares", t.as_str()),
        };
        cx.emit(
            Diagnostic::error("check/setp-form", span, msg)
                .with_label("expected one of .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64 .f16 .f16x2 .bf16 .bf16x2")
                .with_note(format!("{SETP_NOTE}; to combine predicates use and/or/xor/not on `.pred`")),
        );
        return;
    }
    let (ty, tspan) = d.types[0];
    if !cmp_allowed(ty, cmp) {
        let cls = match class(ty) {
            Class::Bits => "a bit-size type (only eq and ne)",
            Class::Unsigned => "an unsigned type (no unordered, num or nan operators)",
            Class::Signed => "a signed type (lo/ls/hi/hs are for unsigned; unordered, num and nan for floats)",
            _ => "a floating-point type (lo/ls/hi/hs are for unsigned integers)",
        };
        let cmp_text = i.modifiers.iter().find(|m| m.span.same_as(cspan)).map(|m| m.text).unwrap_or("?");
        cx.emit(
            Diagnostic::error("check/setp-cmp-type", cspan, format!("comparison `{cmp_text}` is not defined for `{}`", ty.as_str()))
                .with_label("comparison operator not allowed for this type")
                .with_secondary(tspan, format!("`{}` is {cls}", ty.as_str()))
                .with_note(CMP_NOTE),
        );
    }
    if let Some(fs) = d.ftz {
        if !matches!(ty, ScalarType::F32 | ScalarType::F16 | ScalarType::F16x2) {
            cx.emit(
                Diagnostic::error("check/setp-ftz", fs, format!("`.ftz` is not allowed on `setp{}`", ty.as_str()))
                    .with_label("illegal modifier")
                    .with_secondary(tspan, "the type")
                    .with_note("rule check/setp-ftz (PTX ISA 9.7.3 setp): `.ftz` (flush subnormals) applies to `.f32` comparisons only"),
            );
        }
    }
    match ty {
        ScalarType::F16 | ScalarType::F16x2 => cx.require(Feature::SetpF16, tspan),
        ScalarType::Bf16 => cx.require(Feature::SetpBf16, tspan),
        ScalarType::Bf16x2 => cx.require(Feature::SetpBf16x2, tspan),
        _ => {}
    }
    let want = if d.boolop.is_some() { 4 } else { 3 };
    if i.operands.len() != want {
        let msg = if d.boolop.is_none() && i.operands.len() == 4 {
            "a fourth operand `c` needs a BoolOp (`.and`, `.or` or `.xor`)".to_string()
        } else if d.boolop.is_some() && i.operands.len() == 3 {
            "a BoolOp needs a fourth operand, the predicate `c` to combine with".to_string()
        } else {
            format!("`setp` takes {want} operands here, {} given", i.operands.len())
        };
        let span = if i.operands.len() == 4 && d.boolop.is_none() { i.operands[3].span } else { i.span };
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
            _ => cx.emit(Diagnostic::error("check/pred-int", c.span, "the BoolOp operand `c` of `setp` must be a predicate register, optionally negated").with_note(SETP_NOTE)),
        }
    }
}

use crate::ctx::Ctx;

/// Rule `check/selp-type` (PTX ISA 9.7.8.1 selp, seed 004 "Use selp to
/// materialize"): `selp.type d, a, b, c` with type one of the 16/32/64-bit
/// integer, bit-size or `.f32/.f64` types (never `.pred`), `d, a, b` of that
/// type, and `c` a `.pred` register (or an immediate, which ptxas accepts).
pub fn selp<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    const NOTE: &str = "rule check/selp-type (PTX ISA 9.7.8.1 selp): `selp.type d, a, b, c;` with type .b16/.b32/.b64/.u16/.u32/.u64/.s16/.s32/.s64/.f32/.f64 and `c` a predicate";
    use ScalarType::*;
    let ty = match d.types.as_slice() {
        [(t, _)] if matches!(t, B16 | B32 | B64 | U16 | U32 | U64 | S16 | S32 | S64 | F32 | F64) => *t,
        [(t, s)] => {
            let extra = if *t == Pred { "; to choose between predicates use and/or/not" } else { "" };
            cx.emit(Diagnostic::error("check/selp-type", *s, format!("`selp` does not take type `{}`{extra}", t.as_str())).with_label("unexpected instruction type").with_note(NOTE));
            return;
        }
        [] => {
            cx.emit(Diagnostic::error("check/selp-type", i.opcode.span, "`selp` needs an instruction type, e.g. `selp.u32`").with_label("no type given").with_note(NOTE));
            return;
        }
        [_, (_, s), ..] => {
            cx.emit(Diagnostic::error("check/selp-type", *s, "`selp` takes exactly one instruction type").with_note(NOTE));
            return;
        }
    };
    for m in &d.other {
        cx.emit(Diagnostic::error("check/selp-type", m.span, format!("`{}` is not a modifier of `selp`", m.text)).with_note(NOTE));
    }
    if i.operands.len() != 4 {
        cx.emit(Diagnostic::error("check/selp-type", i.span, format!("`selp` takes four operands `d, a, b, c`; {} given", i.operands.len())).with_note(NOTE));
        return;
    }
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
