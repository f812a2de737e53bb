//! The operand rules and gates of the typed division and special-function
//! rows (their grammars in `ptxsim_isa`, combinations in `Insn::misfit`,
//! which [`super::arith::arith`] reported first): `div.type d, a, b`
//! (PTX ISA 9.7.1.8, 9.7.3.6) and `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`,
//! `lg2`, `ex2`, `tanh` `d, a` (9.7.3.13-23, 9.7.4.10-11), every operand
//! of the type; `tanh` (sm_75), `ex2` on the f16 types (sm_75) and both on
//! bfloat16 (sm_90) gated.

use super::operand::{value, Role};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::{DivFields, MathFields, MathOp};
use ptxsim_syntax::ast::{Instruction, ScalarType};

/// Every operand of `ty`, `d` first.
fn all_of<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ty: ScalarType) {
    for (k, o) in i.operands.iter().enumerate() {
        value(cx, o, ty, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
}

/// `div` (its modifiers fit, `Insn::misfit`).
pub(super) fn div<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: DivFields) {
    all_of(cx, i, x.ty);
}

/// `rcp` ... `tanh` (their modifiers fit, `Insn::misfit`): the gates of
/// `tanh` (PTX ISA 9.7.3.23: PTX 7.0, sm_75), `ex2` on `.f16`/`.f16x2`
/// (9.7.4.10: PTX 7.0, sm_75), of both on bfloat16 (PTX 7.8, sm_90), and
/// of `rsqrt.approx.ftz.f64` (PTX 4.0).
pub(super) fn math<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: MathFields) {
    use ScalarType::*;
    let span = i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span));
    let gate = match (x.op, x.ty) {
        (MathOp::Ex2 | MathOp::Tanh, Bf16 | Bf16x2) => Some(Feature::Bf16Transcendental),
        (MathOp::Tanh, _) => Some(Feature::Tanh),
        (MathOp::Ex2, F16 | F16x2) => Some(Feature::Ex2Half),
        (MathOp::Rsqrt, F64) if x.ftz => Some(Feature::RsqrtFtzF64),
        _ => None,
    };
    if let Some(f) = gate {
        cx.require(f, span);
    }
    all_of(cx, i, x.ty);
}

#[cfg(test)]
mod tests {
    /// The first error's code for `body` in one kernel (PTX `version`,
    /// target `target`), or `None` where it checks clean.
    fn first_error_vt(version: &str, target: &str, body: &str) -> Option<String> {
        const REGS: &str = ".reg .b16 %h<5>;\n.reg .b32 %r<5>;\n.reg .s32 %s<5>;\n.reg .f32 %f<5>;\n.reg .f64 %fd<5>;";
        crate::testing::first_error(&crate::testing::kernel(version, target, "", &format!("{REGS}\n{body}")))
    }

    fn first_error(body: &str) -> Option<String> {
        first_error_vt("8.8", "sm_90a", body)
    }

    /// The forms of PTX ISA 9.7.1.8, 9.7.3.6, 9.7.3.13-23 and 9.7.4.10-11
    /// check clean (ptxas 13.5 takes each on sm_90a).
    #[test]
    fn manual_forms_check_clean() {
        for ok in [
            "div.s32 %s1, %s2, %s3;",
            "div.approx.ftz.f32 %f1, %f2, %f3;",
            "div.full.f32 %f1, %f2, %f3;",
            "div.rz.ftz.f32 %f1, %f2, %f3;",
            "div.rn.f64 %fd1, %fd2, %fd3;",
            "rcp.rn.ftz.f32 %f1, %f2;",
            "rcp.approx.ftz.f64 %fd1, %fd2;",
            "sqrt.approx.f32 %f1, %f2;",
            "sqrt.rm.f64 %fd1, %fd2;",
            "rsqrt.approx.ftz.f64 %fd1, %fd2;",
            "sin.approx.ftz.f32 %f1, %f2;",
            "cos.approx.f32 %f1, %f2;",
            "lg2.approx.ftz.f32 %f1, %f2;",
            "ex2.approx.ftz.f32 %f1, %f2;",
            "ex2.approx.f16 %h1, %h2;",
            "ex2.approx.f16x2 %r1, %r2;",
            "ex2.approx.ftz.bf16 %h1, %h2;",
            "ex2.approx.ftz.bf16x2 %r1, %r2;",
            "tanh.approx.f32 %f1, %f2;",
            "tanh.approx.bf16x2 %r1, %r2;",
        ] {
            assert_eq!(first_error(ok), None, "{ok}");
        }
    }

    /// What the manual and ptxas 13.5 refuse is refused at the modifier.
    #[test]
    fn refused_forms() {
        for bad in [
            // ptxas 13.5: "Illegal modifier '.ftz' for instruction 'ex2'"
            // (PTX ISA 9.7.4.10: `ex2.approx.atype` on `.f16`, `.f16x2`).
            "ex2.approx.ftz.f16 %h1, %h2;",
            "ex2.approx.ftz.f16x2 %r1, %r2;",
            // ptxas 13.5: ".ftz modifier required for instruction
            // 'ex2.bf16'" (`ex2.approx.ftz.btype` on `.bf16`, `.bf16x2`).
            "ex2.approx.bf16 %h1, %h2;",
            "ex2.approx.bf16x2 %r1, %r2;",
            // ptxas 13.5: "Illegal modifier '.ftz' for instruction 'tanh'",
            // "Illegal modifier '.sat' for instruction 'ex2'", ".approx
            // modifier required".
            "tanh.approx.ftz.f16 %h1, %h2;",
            "tanh.approx.ftz.bf16x2 %r1, %r2;",
            "ex2.approx.sat.f16 %h1, %h2;",
            "ex2.f16 %h1, %h2;",
            "tanh.bf16 %h1, %h2;",
            "div.f32 %f1, %f2, %f3;",
            "div.approx.rn.f32 %f1, %f2, %f3;",
            "div.full.f64 %fd1, %fd2, %fd3;",
            "div.rn.s32 %s1, %s2, %s3;",
            "rcp.approx.f64 %fd1, %fd2;",
            "sqrt.approx.f64 %fd1, %fd2;",
            "sqrt.rn.ftz.f64 %fd1, %fd2;",
            "sin.approx.f64 %fd1, %fd2;",
            "tanh.approx.ftz.f32 %f1, %f2;",
            "lg2.f32 %f1, %f2;",
        ] {
            assert_eq!(first_error(bad).as_deref(), Some("check/modifiers"), "{bad}");
        }
    }

    /// The gates of `tanh`, `ex2` on the f16 types (PTX 7.0, sm_75) and on
    /// bfloat16 (PTX 7.8, sm_90) (PTX ISA 9.7.3.23, 9.7.4.10-11).
    #[test]
    fn gates() {
        assert!(first_error_vt("7.0", "sm_72", "tanh.approx.f32 %f1, %f2;").is_some());
        assert_eq!(first_error_vt("7.0", "sm_75", "tanh.approx.f32 %f1, %f2;"), None);
        assert!(first_error_vt("6.5", "sm_75", "ex2.approx.f16x2 %r1, %r2;").is_some());
        assert_eq!(first_error_vt("7.0", "sm_75", "ex2.approx.f16x2 %r1, %r2;"), None);
        assert!(first_error_vt("7.8", "sm_80", "ex2.approx.ftz.bf16 %h1, %h2;").is_some());
        assert!(first_error_vt("7.7", "sm_90", "tanh.approx.bf16 %h1, %h2;").is_some());
        assert_eq!(first_error_vt("7.8", "sm_90", "tanh.approx.bf16 %h1, %h2;"), None);
    }
}
