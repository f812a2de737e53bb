//! The operand rules and gates of the typed multiply-add and carry rows
//! (their grammars in `ptxsim_isa`, combinations in `Insn::misfit`, which
//! [`super::arith::arith`] reported first):
//!
//! - `mad.mode.type d, a, b, c` (PTX ISA 9.7.1.4): `.wide`'s `d` and `c`
//!   twice as wide as `a` and `b`; `mad{.lo,.hi}.cc` (9.7.2.5) gated;
//!   `mad.rnd{.ftz}{.sat}.f32`, `mad.rnd.f64` (9.7.3.4).
//! - `addc{.cc}.type d, a, b`, `subc{.cc}.type d, a, b` (9.7.2.2, 9.7.2.4),
//!   `madc{.lo,.hi}{.cc}.type d, a, b, c` (9.7.2.6): every operand of the
//!   type; gated (64 bits with `.cc` from PTX 4.3).
//! - `fma` (9.7.3.4, 9.7.4.4): every operand of the type, the half types
//!   `.relu` and `.oob` gated; `.f32x2` (sm_100) on `.b64` registers.
//!
//! ptxas 13.5 reads `mad.lo`, `mad.hi`, `mad.wide` and `madc.lo`,
//! `madc.hi` as instruction names: the mode comes first
//! ("Unexpected instruction types specified for 'mad'" for `mad.cc.lo`).

use super::operand::{value, Role};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{CarryFields, CarryOp, FmaFields, MadFields, MulMode};
use ptxsim_syntax::ast::{Instruction, ScalarType};
use ptxsim_syntax::{Diagnostic, Span};

/// The opcode and all its modifiers: where a gate is reported.
fn whole(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

/// Every operand of `ty`, `d` first.
fn all_of<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ty: ScalarType) {
    for (k, o) in i.operands.iter().enumerate() {
        value(cx, o, ty, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
}

/// Whether the mode `mode` (as written) is the first modifier, as ptxas
/// 13.5 requires of `mad` and `madc`; reports it where it is not.
fn mode_first(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, mode: &str) -> bool {
    if i.modifiers.first().is_none_or(|m| m.text == mode) {
        return true;
    }
    let op = i.opcode.text;
    cx.emit(
        Diagnostic::error("check/modifiers", modifier_span(i, mode), format!("`{mode}` comes right after `{op}`: `{op}{mode}` is the instruction's name"))
            .with_label("mode after another modifier")
            .with_note("rule check/modifiers (PTX ISA 9.7.1.4 mad, 9.7.2.5-6 mad.cc, madc: `mad.mode.type`, `mad{.hi,.lo}.cc.type`, `madc{.hi,.lo}{.cc}.type`); ptxas 13.5 refuses another modifier before the mode (\"Unexpected instruction types specified for 'mad'\")"),
    );
    false
}

/// `mad` (its modifiers fit, `Insn::misfit`).
pub(super) fn mad<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: MadFields) {
    use ScalarType::*;
    if let Some(m) = x.mode {
        if !mode_first(cx, i, m.as_str()) {
            return super::operand::resolve_all(cx, i);
        }
    }
    if x.cc {
        cx.require(Feature::MadCarry, whole(i));
        if x.ty.bits() == 64 {
            cx.require(Feature::Carry64, whole(i));
        }
    }
    let dt = match (x.mode, x.ty) {
        (Some(MulMode::Wide), U16) => U32,
        (Some(MulMode::Wide), U32) => U64,
        (Some(MulMode::Wide), S16) => S32,
        (Some(MulMode::Wide), S32) => S64,
        (_, t) => t,
    };
    for (k, o) in i.operands.iter().enumerate() {
        let (t, role) = match k {
            0 => (dt, Role::Dest),
            3 => (dt, Role::Src),
            _ => (x.ty, Role::Src),
        };
        value(cx, o, t, role, Size::Exact, i);
    }
}

/// `addc`, `subc`, `madc` (their modifiers fit, `Insn::misfit`).
pub(super) fn carry<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: CarryFields) {
    if let CarryOp::Madc(m) = x.op {
        if !mode_first(cx, i, m.as_str()) {
            return super::operand::resolve_all(cx, i);
        }
    }
    let span = whole(i);
    cx.require(
        match x.op {
            CarryOp::Addc => Feature::CarryAdd,
            CarryOp::Subc => Feature::CarrySub,
            CarryOp::Madc(_) => Feature::MadCarry,
        },
        span,
    );
    if x.cc && x.ty.bits() == 64 {
        cx.require(Feature::Carry64, span);
    }
    all_of(cx, i, x.ty);
}

/// `fma` (its modifiers fit, `Insn::misfit`): the gates of the half types
/// (PTX ISA 9.7.4.4: sm_53, bfloat16 sm_80), `.relu` (sm_80), `.oob` (PTX
/// 8.1, sm_90; ptxas 13.5: "Modifier '.oob' requires .target sm_90 or
/// higher") and
/// `.f32x2` (9.7.3.4: PTX 8.6, sm_100; ptxas 13.5 "Feature 'fma.f32x2'
/// requires .target sm_100 or higher"), then the operands.
pub(super) fn fma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: FmaFields) {
    use ScalarType::*;
    let span = whole(i);
    match x.ty {
        Some(Bf16 | Bf16x2) => cx.require(Feature::Bf16Arith, span),
        Some(F16 | F16x2) => cx.require(Feature::F16Arith, span),
        _ => {}
    }
    if x.relu {
        cx.require(Feature::Relu, span);
    }
    if x.oob {
        cx.require(Feature::FmaOob, span);
    }
    let Some(ty) = x.ty else {
        // `.f32x2`: two `.f32` values in each `.b64` operand.
        cx.require(Feature::F32x2Arith, span);
        return all_of(cx, i, B64);
    };
    all_of(cx, i, ty);
}

#[cfg(test)]
mod tests {
    /// The first error's code for `body` in one kernel (PTX `version`,
    /// target `target`), or `None` where it checks clean.
    fn first_error_vt(version: &str, target: &str, body: &str) -> Option<String> {
        const REGS: &str = ".reg .b16 %h<5>;\n.reg .b32 %r<5>;\n.reg .u32 %u<5>;\n.reg .s32 %s<5>;\n.reg .u16 %hu<5>;\n.reg .f32 %f<5>;\n.reg .f64 %fd<5>;\n.reg .u64 %rd<5>;\n.reg .s64 %sd<5>;\n.reg .b64 %b<5>;";
        crate::testing::first_error(&crate::testing::kernel(version, target, "", &format!("{REGS}\n{body}")))
    }

    fn first_error(body: &str) -> Option<String> {
        first_error_vt("8.8", "sm_90a", body)
    }

    /// The forms of PTX ISA 9.7.1.4, 9.7.2.2-6, 9.7.3.4 and 9.7.4.4 check
    /// clean (ptxas 13.5 takes each on sm_90a).
    #[test]
    fn manual_forms_check_clean() {
        for ok in [
            "mad.lo.s32 %s1, %s2, %s3, %s4;",
            "mad.hi.sat.s32 %s1, %s2, %s3, %s4;",
            "mad.wide.u32 %rd1, %u2, %u3, %rd4;",
            "mad.lo.cc.u64 %rd1, %rd2, %rd3, %rd4;",
            "mad.rz.ftz.sat.f32 %f1, %f2, %f3, %f4;",
            "mad.rn.f64 %fd1, %fd2, %fd3, %fd4;",
            "madc.hi.cc.u32 %u1, %u2, %u3, %u4;",
            "addc.cc.s64 %sd1, %sd2, %sd3;",
            "subc.u32 %u1, %u2, %u3;",
            "fma.rp.ftz.sat.f32 %f1, %f2, %f3, %f4;",
            "fma.rn.ftz.sat.f16 %h1, %h2, %h3, %h4;",
            "fma.rn.ftz.relu.f16x2 %r1, %r2, %r3, %r4;",
            "fma.rn.relu.bf16 %h1, %h2, %h3, %h4;",
            "fma.rn.oob.relu.bf16x2 %r1, %r2, %r3, %r4;",
            // ptxas 13.5 takes every rounding on bfloat16.
            "fma.rz.bf16 %h1, %h2, %h3, %h4;",
            // ptxas 13.5 reads the modifiers after a `mad` mode, and a
            // float rounding, in any order.
            "mad.lo.cc.u32 %u1, %u2, %u3, %u4;",
            "fma.ftz.rn.f32 %f1, %f2, %f3, %f4;",
        ] {
            assert_eq!(first_error(ok), None, "{ok}");
        }
        // `.f32x2` on `.b64` registers (PTX ISA 9.7.3.4: PTX 8.6, sm_100).
        assert_eq!(first_error_vt("8.6", "sm_100a", "fma.rn.ftz.f32x2 %b1, %b2, %b3, %b4;"), None);
    }

    /// What the manual and ptxas 13.5 refuse is refused at the modifier.
    #[test]
    fn refused_forms() {
        for bad in [
            // "Rounding modifier required for instruction 'fma'" (ptxas 13.5).
            "fma.f16 %h1, %h2, %h3, %h4;",
            "fma.bf16x2 %r1, %r2, %r3, %r4;",
            // "Illegal rounding modifier for instruction 'fma'" (ptxas 13.5).
            "fma.rz.f16 %h1, %h2, %h3, %h4;",
            "fma.rm.f16x2 %r1, %r2, %r3, %r4;",
            // "Illegal modifier '.sat' for instruction 'fma'" (ptxas 13.5).
            "fma.rn.sat.bf16 %h1, %h2, %h3, %h4;",
            "fma.rn.sat.bf16x2 %r1, %r2, %r3, %r4;",
            // "Modifier '.relu' cannot be combined with modifier '.sat'",
            // "Modifier '.ftz' cannot be combined with modifier '.oob'" (ptxas 13.5).
            "fma.rn.relu.sat.f16 %h1, %h2, %h3, %h4;",
            "fma.rn.ftz.oob.f16x2 %r1, %r2, %r3, %r4;",
            "fma.rn.ftz.bf16 %h1, %h2, %h3, %h4;",
            "fma.rn.relu.f32 %f1, %f2, %f3, %f4;",
            "mad.f32 %f1, %f2, %f3, %f4;",
            "mad.lo.sat.s32 %s1, %s2, %s3, %s4;",
            "mad.wide.cc.u32 %rd1, %u2, %u3, %rd4;",
            "mad.wide.u64 %rd1, %rd2, %rd3, %rd4;",
            "madc.u32 %u1, %u2, %u3, %u4;",
            "madc.lo.sat.s32 %s1, %s2, %s3, %s4;",
            "addc.cc.sat.s32 %s1, %s2, %s3;",
            "subc.cc.u16 %hu1, %hu2, %hu3;",
        ] {
            assert_eq!(first_error(bad).as_deref(), Some("check/modifiers"), "{bad}");
        }
        // ptxas 13.5: "Illegal modifier '.sat' for instruction 'fma'" and
        // "Rounding modifier required" on `.f32x2` too.
        assert_eq!(first_error_vt("8.6", "sm_100a", "fma.rn.sat.f32x2 %b1, %b2, %b3, %b4;").as_deref(), Some("check/modifiers"));
        assert_eq!(first_error_vt("8.6", "sm_100a", "fma.f32x2 %b1, %b2, %b3, %b4;").as_deref(), Some("check/modifiers"));
        // `.wide`'s `d` and `c` are twice as wide as `a` and `b`.
        assert_eq!(first_error("mad.wide.u32 %u1, %u2, %u3, %u4;").as_deref(), Some("check/operand-type"));
    }

    /// ptxas 13.5 reads `mad.lo`/`mad.hi`/`mad.wide` and `madc.lo`/`madc.hi`
    /// as the instruction's name: "Unexpected instruction types specified
    /// for 'mad'" for `mad.cc.lo.s32` and `mad.sat.hi.s32` (PTX ISA 9.7.2.5
    /// writes `mad{.hi,.lo}.cc.type`).
    #[test]
    fn the_mode_comes_first() {
        for bad in ["mad.cc.lo.s32 %s1, %s2, %s3, %s4;", "mad.sat.hi.s32 %s1, %s2, %s3, %s4;", "madc.cc.hi.u32 %u1, %u2, %u3, %u4;"] {
            assert_eq!(first_error(bad).as_deref(), Some("check/modifiers"), "{bad}");
        }
        assert_eq!(first_error("mad.hi.cc.s32 %s1, %s2, %s3, %s4;"), None);
    }

    /// The gates: `.f32x2` (ptxas 13.5: "Feature 'fma.f32x2' requires
    /// .target sm_100 or higher", PTX 8.6), the half types and `.relu`
    /// (PTX ISA 9.7.4.4), the carry chain (9.7.2).
    #[test]
    fn gates() {
        let fx2 = "fma.rn.f32x2 %b1, %b2, %b3, %b4;";
        assert!(first_error_vt("8.8", "sm_90a", fx2).is_some());
        assert!(first_error_vt("8.5", "sm_100a", fx2).is_some());
        assert_eq!(first_error_vt("8.6", "sm_100a", fx2), None);
        assert!(first_error_vt("7.0", "sm_75", "fma.rn.relu.f16 %h1, %h2, %h3, %h4;").is_some());
        assert!(first_error_vt("7.0", "sm_75", "fma.rn.bf16 %h1, %h2, %h3, %h4;").is_some());
        assert!(first_error_vt("4.2", "sm_50", "fma.rn.f16 %h1, %h2, %h3, %h4;").is_some());
        assert!(first_error_vt("4.2", "sm_53", "fma.rn.f16 %h1, %h2, %h3, %h4;").is_none());
        assert!(first_error_vt("4.2", "sm_50", "addc.cc.u64 %rd1, %rd2, %rd3;").is_some());
        assert!(first_error_vt("4.3", "sm_50", "addc.cc.u64 %rd1, %rd2, %rd3;").is_none());
        assert!(first_error_vt("2.0", "sm_20", "madc.lo.u32 %u1, %u2, %u3, %u4;").is_some());
        // ptxas 13.5: "Modifier '.oob' requires .target sm_90 or higher",
        // "Feature '.oob' requires PTX ISA .version 8.1 or later".
        let oob = "fma.rn.oob.relu.bf16 %h1, %h2, %h3, %h4;";
        assert!(first_error_vt("8.1", "sm_80", oob).is_some());
        assert!(first_error_vt("8.0", "sm_90", oob).is_some());
        assert_eq!(first_error_vt("8.1", "sm_90", oob), None);
    }
}
