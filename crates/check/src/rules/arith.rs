//! The operand rules of the typed arithmetic and bit rows (their grammars
//! in `ptxsim_isa`, choices in `ptxsim_isa::insn::arith`): each rule matches
//! on the row's [`Insn`] and types every operand by the manual's operand
//! list. The modifiers were decoded by the row's grammar (and the operand
//! count checked from its roles) in [`super::insn::typed`]; a combination
//! the grammar cannot say (`mad24.lo.sat.s32`) is the row's
//! [`Insn::misfit`], reported here at the modifier at fault.
//!
//! - `and`, `or`, `xor` `.{pred,b16,b32,b64} d, a, b` and `not d, a` (PTX
//!   ISA 9.7.8.1-2), `shl.{b16,b32,b64}` and `shr` (also `.u*`, `.s*`) `d,
//!   a, b` with a `.u32` `b` (9.7.8.7-8), `rem.{u,s}{16,32,64} d, a, b`
//!   (9.7.1.9), `copysign.{f32,f64} d, a, b` (9.7.3.3).
//! - `popc`, `clz` `.b32/.b64 d, a` (PTX ISA 9.7.8.3-4): `d` is `.u32`;
//!   `bfind{.shiftamt}.{u32,u64,s32,s64} d, a` (9.7.1.17): `d` `.u32`;
//!   `brev.{b32,b64} d, a` (9.7.8.5), `cnot.{b16,b32,b64} d, a` (9.7.8.2).
//! - `prmt.b32{.mode} d, a, b, c` (9.7.9.7); `bfe.type d, a, b, c` and
//!   `bfi.type f, a, b, c, d` (9.7.1.19-20) with `.u32` positions and
//!   lengths; `bmsk.mode.b32 d, a, b` and `szext.mode.type d, a, b`
//!   (9.7.1.22-23) with a `.u32` `b`; `fns.b32 d, mask, base, offset`
//!   (9.7.1.21) with an `.s32` offset.
//! - `dp4a.atype.btype d, a, b, c` and `dp2a.mode.atype.btype d, a, b, c`
//!   (9.7.1.24-25): `d` and `c` are `.s32` when either type is signed.
//! - `testp.op.type p, a` (9.7.3.5): `p` a predicate.
//! - `mul24.mode.type d, a, b`, `mad24.mode{.sat}.type d, a, b, c`
//!   (9.7.1.5-6), `sad.type d, a, b, c` (9.7.1.8): every operand of the type.
//! - `add`, `sub` `{.rnd}{.ftz}{.sat}{.cc}.type d, a, b` (9.7.1.1-2,
//!   9.7.2.1-2, 9.7.3.1-2, 9.7.4.1-2): the combinations are
//!   `Insn::misfit`'s; `.cc`, the half types and `add.{u16x2,s16x2}`
//!   gated; packed integers take `.b32` registers only.
//! - `mul.mode.type`, `mul{.rnd}{.ftz}{.sat}.ftype d, a, b` (9.7.1.3,
//!   9.7.3.3, 9.7.4.3): `.wide`'s `d` twice as wide; half types gated.
//! - `min`, `max` (9.7.1.10-11, 9.7.3.10-11, 9.7.4.9-10): `d, a, b`, and
//!   `d, a, b, c` on `.f32` only; `.relu` on `.s32`/`.s16x2`; gated.
//! - `neg`, `abs` `{.ftz}.type d, a` (9.7.1.13-14, 9.7.3.7-8, 9.7.4.5-6):
//!   both operands of the type; `.ftz` on `.f32` and the f16 types only;
//!   the half types gated (sm_53, bfloat16 sm_80).
//! - the SIMD video instructions `vop2`/`vop4.dtype.atype.btype{.sat,.add}
//!   d{.mask}, a{.asel}, b{.bsel}, c` and `vset2`/`vset4.atype.btype.cmp{.add}`
//!   (9.7.16.2): registers for `a`, `b`, `c`; `.sat` and `.add` do not
//!   combine (ptxas 12.9).

use super::operand::{value, Role};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::Insn;
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType};
use ptxsim_syntax::Diagnostic;

const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.1, 9.7.3, 9.7.8): each instruction takes the modifiers its syntax lists, in the combinations the manual defines";

/// Checks an instruction of a typed arithmetic or bit row.
pub fn arith<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    use ScalarType::*;
    if let Some(m) = insn.misfit() {
        cx.emit(Diagnostic::error("check/modifiers", modifier_span(i, m.modifier), m.why).with_label("modifier does not apply here").with_note(NOTE));
        return super::operand::resolve_all(cx, i);
    }
    if let Some(x) = insn.add_sub() {
        return add_sub(cx, i, x);
    }
    if let Some(x) = insn.mul() {
        return mul(cx, i, x);
    }
    if let Some(x) = insn.min_max() {
        return min_max(cx, i, x);
    }
    if let Some(x) = insn.mad() {
        return super::fma::mad(cx, i, x);
    }
    if let Some(x) = insn.carry() {
        return super::fma::carry(cx, i, x);
    }
    if let Some(x) = insn.fma() {
        return super::fma::fma(cx, i, x);
    }
    if let Some(x) = insn.div() {
        return super::math::div(cx, i, x);
    }
    if let Some(x) = insn.math() {
        return super::math::math(cx, i, x);
    }
    if insn.simd().is_some() {
        super::operand::resolve_all(cx, i);
        return simd_video(cx, i);
    }
    // One type per operand, in order.
    let want: Vec<ScalarType> = match insn {
        Insn::Popc { ty } | Insn::Clz { ty } | Insn::Bfind { ty, .. } => vec![U32, ty],
        Insn::Brev { ty } | Insn::Cnot { ty } => vec![ty, ty],
        Insn::Prmt { ty, .. } | Insn::Sad { ty } | Insn::Mad24 { ty, .. } => vec![ty; 4],
        Insn::Mul24 { ty, .. } => vec![ty; 3],
        Insn::Bfe { ty } => vec![ty, ty, U32, U32],
        Insn::Bfi { ty } => vec![ty, ty, ty, U32, U32],
        Insn::Bmsk { ty, .. } | Insn::Szext { ty, .. } => vec![ty, ty, U32],
        Insn::Fns { ty } => vec![ty, ty, ty, S32],
        Insn::Dp4a { atype, btype } | Insn::Dp2a { atype, btype, .. } => {
            let dt = if atype == S32 || btype == S32 { S32 } else { U32 };
            vec![dt, atype, btype, dt]
        }
        Insn::Testp { ty, .. } => vec![Pred, ty],
        Insn::And { ty } | Insn::Or { ty } | Insn::Xor { ty } | Insn::Rem { ty } | Insn::Copysign { ty } => vec![ty; 3],
        Insn::Not { ty } => vec![ty; 2],
        Insn::Neg { ty, .. } | Insn::Abs { ty, .. } => {
            // PTX ISA 9.7.4.5-6: the half types need sm_53, bfloat16 sm_80.
            let span = whole(i);
            match ty {
                F16 | F16x2 => cx.require(Feature::F16Arith, span),
                Bf16 | Bf16x2 => cx.require(Feature::Bf16Arith, span),
                _ => {}
            }
            vec![ty; 2]
        }
        // The shift amount is an unsigned 32-bit value (PTX ISA 9.7.8.7 shl).
        Insn::Shl { ty } | Insn::Shr { ty } => vec![ty, ty, U32],
        _ => return super::operand::resolve_all(cx, i),
    };
    for (k, (o, t)) in i.operands.iter().zip(want).enumerate() {
        value(cx, o, t, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
}

/// The opcode and all its modifiers: where a gate is reported.
fn whole(i: &Instruction<'_>) -> ptxsim_syntax::Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

/// `add`/`sub` (their modifiers fit, [`Insn::misfit`]): the gates of
/// `.cc` (PTX ISA 9.7.2.1-2; 64 bits from PTX 4.3), of the half types
/// (9.7.4.1-2) and of the packed 16-bit integers (9.7.1.1, sm_90), then
/// the operands: of the type, `.b32` registers for the packed integers;
/// `.f32x2` only resolved (the engine does not run it yet).
fn add_sub<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: ptxsim_isa::AddSub) {
    use ptxsim_isa::PackedTy;
    use ScalarType::*;
    let span = whole(i);
    if x.cc {
        cx.require(if x.sub { Feature::CarrySub } else { Feature::CarryAdd }, span);
        if x.ty.is_some_and(|t| t.bits() == 64) {
            cx.require(Feature::Carry64, span);
        }
    }
    match (x.ty, x.packed) {
        (Some(Bf16 | Bf16x2), _) => cx.require(Feature::Bf16AddSubMul, span),
        (Some(F16 | F16x2), _) => cx.require(Feature::F16Arith, span),
        (None, Some(p @ (PackedTy::U16x2 | PackedTy::S16x2))) => {
            cx.require(Feature::PackedInt16, i.opcode.span.to(modifier_span(i, p.as_str())));
            return packed16_operands(cx, i, p.as_str());
        }
        _ => {}
    }
    let Some(ty) = x.ty else {
        cx.require(Feature::F32x2Arith, span);
        return super::operand::resolve_all(cx, i);
    };
    for (k, o) in i.operands.iter().enumerate() {
        value(cx, o, ty, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
}

/// `mul` (its modifiers fit, [`Insn::misfit`]): the gates of the half
/// types (PTX ISA 9.7.4.3), then the operands: `d` twice as wide as the
/// sources with `.wide` (9.7.1.3); `.f32x2` only resolved (the engine does
/// not run it yet).
fn mul<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: ptxsim_isa::MulFields) {
    use ScalarType::*;
    let Some(ty) = x.ty else {
        cx.require(Feature::F32x2Arith, whole(i));
        return super::operand::resolve_all(cx, i);
    };
    match ty {
        Bf16 | Bf16x2 => cx.require(Feature::Bf16AddSubMul, whole(i)),
        F16 | F16x2 => cx.require(Feature::F16Arith, whole(i)),
        _ => {}
    }
    let dt = match (x.mode, ty) {
        (Some(ptxsim_isa::MulMode::Wide), U16) => U32,
        (Some(ptxsim_isa::MulMode::Wide), U32) => U64,
        (Some(ptxsim_isa::MulMode::Wide), S16) => S32,
        (Some(ptxsim_isa::MulMode::Wide), S32) => S64,
        _ => ty,
    };
    for (k, o) in i.operands.iter().enumerate() {
        value(cx, o, if k == 0 { dt } else { ty }, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
}

/// `min`/`max` (their modifiers fit, [`Insn::misfit`]): the gates of the
/// half types, `.NaN`, `.xorsign`, `.relu` (PTX ISA 9.7.1.10-11,
/// 9.7.3.10-11, 9.7.4.9-10) and the packed integers, then the operands:
/// the third source on `.f32` only, `.b32` registers for the packed
/// integers.
fn min_max<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: ptxsim_isa::MinMax) {
    use ptxsim_isa::PackedTy;
    use ScalarType::*;
    let span = whole(i);
    let half = matches!(x.ty, Some(F16 | F16x2 | Bf16 | Bf16x2));
    for (on, f) in [(half, Feature::MinMaxHalf), (x.nan, Feature::MinMaxNaN), (x.xorsign, Feature::MinMaxXorsignAbs), (x.relu && !half, Feature::MinMaxRelu)] {
        if on {
            cx.require(f, span);
        }
    }
    let op = i.opcode.text;
    let n = i.operands.len();
    if n == 4 && x.ty == Some(F32) {
        cx.require(Feature::MinMax3, span);
    }
    if n == 4 && x.ty != Some(F32) {
        cx.emit(
            Diagnostic::error("check/operand-count", i.span, format!("`{}` takes three operands; {n} given: only `{op}.f32` has a third source", super::opname(i)))
                .with_note("rule check/operand-count (PTX ISA 9.7.1.10, 9.7.1.11, 9.7.3.10, 9.7.3.11): `min`/`max` take `d, a, b`; the three-source form `d, a, b, c` exists for `.f32` only"),
        );
        return;
    }
    if let Some(m) = x.operands_misfit(n) {
        cx.emit(
            Diagnostic::error("check/modifiers", modifier_span(i, m.modifier), m.why)
                .with_label("modifier does not apply here")
                .with_note("rule check/modifiers (PTX ISA 9.7.3.10-11): `min{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b;` and `min{.ftz}{.NaN}{.abs}.f32 d, a, b, c;`"),
        );
        return super::operand::resolve_all(cx, i);
    }
    if let Some(p @ (PackedTy::U16x2 | PackedTy::S16x2)) = x.packed {
        cx.require(Feature::PackedInt16, i.opcode.span.to(modifier_span(i, p.as_str())));
        return packed16_operands(cx, i, p.as_str());
    }
    let Some(ty) = x.ty else { return super::operand::resolve_all(cx, i) };
    for (k, o) in i.operands.iter().enumerate() {
        value(cx, o, ty, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
}

const VIDEO_NOTE: &str = "rule check/operand-type (PTX ISA 9.7.16.2 SIMD video instructions): `vop2.dtype.atype.btype d{.mask}, a{.asel}, b{.bsel}, c;` and the vop4/vset forms take registers for a, b and c (ptxas 12.9: `Incorrect video selector for operand N` for an immediate)";

/// The SIMD video instructions (`vadd2` ... `vset4`): `a`, `b` and `c`
/// are registers; ptxas rejects an immediate in any of them.
fn simd_video<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    for (k, o) in i.operands.iter().enumerate().skip(1) {
        if matches!(o.kind, OperandKind::Int(_) | OperandKind::Float(_) | OperandKind::Expr(_)) {
            cx.emit(
                Diagnostic::error("check/operand-type", o.span, format!("`{}`: operand {k} must be a register, not an immediate", super::opname(i)))
                    .with_label("register expected")
                    .with_note(VIDEO_NOTE),
            );
        }
    }
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

#[cfg(test)]
mod tests {
    /// The error code of the first error of `body` (one kernel on sm_90,
    /// PTX 8.0, or the target and version given), or `None` where it checks
    /// clean.
    fn first_error_at(target: &str, body: &str) -> Option<String> {
        first_error_vt("8.0", target, body)
    }

    fn first_error_vt(version: &str, target: &str, body: &str) -> Option<String> {
        const REGS: &str = ".reg .b16 %h<4>;\n.reg .b32 %r<4>;\n.reg .u32 %u<4>;\n.reg .s32 %s<4>;\n.reg .f32 %f<5>;\n.reg .f64 %fd<4>;\n.reg .u64 %rd<4>;\n.reg .s64 %sd<4>;";
        crate::testing::first_error(&crate::testing::kernel(version, target, "", &format!("{REGS}\n{body}")))
    }

    fn first_error(body: &str) -> Option<String> {
        first_error_at("sm_90", body)
    }

    /// The forms of PTX ISA 9.7.1.1-3, 9.7.1.10-11, 9.7.1.13-14, 9.7.2.1-2,
    /// 9.7.3, 9.7.4 check clean.
    #[test]
    fn arithmetic_rows_accept_the_manuals_forms() {
        for ok in [
            "add.sat.s32 %s1, %s2, %s3;",
            "sub.cc.u64 %rd1, %rd2, %rd3;",
            "add.rz.ftz.sat.f32 %f1, %f2, %f3;",
            "sub.rm.f64 %fd1, %fd2, %fd3;",
            "add.rn.ftz.sat.f16 %h1, %h2, %h3;",
            "sub.rn.bf16x2 %r1, %r2, %r3;",
            "add.s16x2 %r1, %r2, %r3;",
            "mul.wide.u32 %rd1, %u2, %u3;",
            "mul.hi.s64 %sd1, %sd2, %sd3;",
            "mul.rp.f32 %f1, %f2, %f3;",
            "mul.ftz.f16x2 %r1, %r2, %r3;",
            "max.relu.s32 %s1, %s2, %s3;",
            "min.relu.s16x2 %r1, %r2, %r3;",
            "max.ftz.NaN.xorsign.abs.f32 %f1, %f2, %f3;",
            "max.NaN.bf16 %h1, %h2, %h3;",
            "neg.ftz.f16x2 %r1, %r2;",
            "abs.s64 %sd1, %sd2;",
            "neg.bf16 %h1, %h2;",
        ] {
            assert_eq!(first_error(ok), None, "{ok}");
        }
        assert_eq!(first_error_vt("8.8", "sm_100a", "min.NaN.f32 %f1, %f2, %f3, %f4;"), None);
    }

    /// What the manual's syntax leaves out is an error at the modifier
    /// (the half types round `.rn` only and bfloat16 takes no `.sat`,
    /// 9.7.4.1-3; `min`/`max` take no rounding and no float `.relu`,
    /// 9.7.3.10-11, 9.7.4.9-10).
    #[test]
    fn arithmetic_rows_refuse_what_the_syntax_leaves_out() {
        for bad in [
            "add.sat.u32 %u1, %u2, %u3;",
            "add.cc.sat.s32 %s1, %s2, %s3;",
            "add.rn.s32 %s1, %s2, %s3;",
            "add.rz.f16 %h1, %h2, %h3;",
            "add.sat.bf16 %h1, %h2, %h3;",
            "sub.u16x2 %r1, %r2, %r3;",
            "mul.u32 %u1, %u2, %u3;",
            "mul.wide.u64 %rd1, %rd2, %rd3;",
            "mul.lo.f32 %f1, %f2, %f3;",
            "mul.rz.f16x2 %r1, %r2, %r3;",
            "min.rn.f16x2 %r1, %r2, %r3;",
            "min.relu.f16 %h1, %h2, %h3;",
            "max.relu.u32 %u1, %u2, %u3;",
            "max.abs.f32 %f1, %f2, %f3;",
            "max.NaN.f64 %fd1, %fd2, %fd3;",
            "neg.ftz.f64 %fd1, %fd2;",
            "abs.ftz.bf16 %h1, %h2;",
            "neg.u32 %u1, %u2;",
        ] {
            assert_eq!(first_error(bad).as_deref(), Some("check/modifiers"), "{bad}");
        }
        // The third source exists on `.f32` only.
        assert_eq!(first_error("min.s32 %s1, %s2, %s3, %s1;").as_deref(), Some("check/operand-count"));
        // `.wide`'s `d` is twice as wide as the sources.
        assert!(first_error("mul.wide.u32 %u1, %u2, %u3;").is_some());
        // Packed integers take `.b32` registers only.
        assert_eq!(first_error("add.u16x2 %u1, %r2, %r3;").as_deref(), Some("check/operand-type"));
    }

    /// The three-source `.f32` form takes `.abs` alone and no `.xorsign`,
    /// the two-source form `.abs` only with `.xorsign` (PTX ISA
    /// 9.7.3.10-11; ptxas 13.5 takes `max.abs.f32 d, a, b, c` on sm_100a,
    /// refuses `.xorsign` there: "Illegal modifier '.xorsign' for
    /// instruction 'max'", and `.abs` alone on two sources: "Modifier
    /// '.abs' requires modifier '.xorsign'").
    #[test]
    fn three_source_min_max_take_abs_alone() {
        for ok in ["max.abs.f32 %f1, %f2, %f3, %f4;", "min.ftz.NaN.abs.f32 %f1, %f2, %f3, %f4;"] {
            assert_eq!(first_error_vt("8.8", "sm_100a", ok), None, "{ok}");
        }
        for bad in ["max.xorsign.abs.f32 %f1, %f2, %f3, %f4;", "min.abs.f32 %f1, %f2, %f3;", "max.abs.f16 %h1, %h2, %h3;"] {
            assert_eq!(first_error_vt("8.8", "sm_100a", bad).as_deref(), Some("check/modifiers"), "{bad}");
        }
    }

    /// `rcp`, `sqrt`, `rsqrt`, `sin`, `cos` and `lg2` have no half-precision
    /// forms (ptxas 13.5: "Unexpected instruction types specified for
    /// 'rcp'"); `ex2` and `tanh` have them.
    #[test]
    fn unary_math_takes_half_types_only_where_the_manual_has_them() {
        for op in ["rcp.approx", "rcp.rn", "sqrt.approx", "sqrt.rn", "rsqrt.approx", "sin.approx", "cos.approx", "lg2.approx"] {
            for (ty, regs) in [("f16", "%h1, %h2"), ("bf16", "%h1, %h2"), ("f16x2", "%r1, %r2"), ("bf16x2", "%r1, %r2")] {
                let ins = format!("{op}.{ty} {regs};");
                assert!(first_error_vt("8.8", "sm_90a", &ins).is_some(), "{ins}");
            }
            assert_eq!(first_error_vt("8.8", "sm_90a", &format!("{op}.f32 %f1, %f2;")), None, "{op}.f32");
        }
        for ok in ["ex2.approx.f16 %h1, %h2;", "ex2.approx.ftz.bf16x2 %r1, %r2;", "tanh.approx.bf16 %h1, %h2;"] {
            assert_eq!(first_error_vt("8.8", "sm_90a", ok), None, "{ok}");
        }
    }

    /// The gates of the half types, `.cc` on 64 bits and the packed
    /// integers (PTX ISA 9.7.2.1, 9.7.4, 9.7.1.1).
    #[test]
    fn arithmetic_rows_are_gated() {
        assert!(first_error_at("sm_50", "neg.f16 %h1, %h2;").is_some());
        assert!(first_error_at("sm_75", "add.bf16 %h1, %h2, %h3;").is_some());
        assert!(first_error_at("sm_80", "add.u16x2 %r1, %r2, %r3;").is_some());
        assert!(first_error_at("sm_80", "max.NaN.f32 %f1, %f2, %f3;").is_none());
        assert!(first_error_at("sm_75", "max.NaN.f32 %f1, %f2, %f3;").is_some());
        // ptxas 13.5: "Feature 'min.f32 with 3 input operands' requires
        // .target sm_100 or higher", and the same of 'add.f32x2'.
        // ptxas 13.5 takes both at 8.8 on sm_100a; the three sources need
        // 8.8, `.f32x2` 8.6.
        for ins in ["min.f32 %f1, %f2, %f3, %f1;", "max.NaN.f32 %f1, %f2, %f3, %f1;", "add.f32x2 %rd1, %rd2, %rd3;", "mul.f32x2 %rd1, %rd2, %rd3;"] {
            assert!(first_error_vt("8.8", "sm_90a", ins).is_some(), "{ins} on sm_90a");
            assert_eq!(first_error_vt("8.8", "sm_100a", ins), None, "{ins} on sm_100a");
        }
        assert!(first_error_vt("8.7", "sm_100a", "min.f32 %f1, %f2, %f3, %f1;").is_some());
        assert_eq!(first_error_vt("8.6", "sm_100a", "sub.f32x2 %rd1, %rd2, %rd3;"), None);
        assert!(first_error_vt("8.5", "sm_100a", "sub.f32x2 %rd1, %rd2, %rd3;").is_some());
    }
}
