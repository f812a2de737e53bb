//! `multimem` (PTX ISA 9.7.9.27 multimem.ld_reduce/st/red, 9.7.9.26
//! multimem.cp.async.bulk and multimem.cp.reduce.async.bulk) on its typed
//! row, as ptxas 13.5 judges it (`-arch=sm_90a`; `sm_100a` for the FP8
//! forms): rule `check/modifiers` for the operation's place and the
//! combinations of [`Insn::multimem`] (each at the modifier at fault), the
//! gates (8.1 and sm_90; FP8 and `.acc::f16` 8.6 on an sm_100-or-later
//! `a`/`f` target; the copies 9.1, `.cp_mask` sm_100), rule
//! `check/operand-count`, and the operands: `ld_reduce`'s destination and
//! `st`/`red`'s source a register (or a vector of `.vec` registers) of the
//! type (a 16-bit float or FP8 type takes no immediate), the address a
//! `.global` one (or generic), the copies' `[dst]` global, `[src]` shared,
//! size a `.u32` register or a multiple of 16 and the byte mask a `.b16`.

use super::memory::address;
use super::opname;
use super::operand::{resolve_all, value, Role};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{multimem_layout, Insn, MultimemAcc, MultimemKind, MultimemType};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.9.27 multimem.ld_reduce, multimem.st, multimem.red; 9.7.9.26 multimem.cp.async.bulk): `multimem.ld_reduce{.ldsem}{.scope}{.global}.op{.acc_prec}{.vec}.type d, [a]`, `multimem.st{.stsem}{.scope}{.global}{.vec}.type [a], b`, `multimem.red{.redsem}{.scope}{.global}.op{.vec}.type [a], b`, `multimem.cp.async.bulk.global.shared::cta.bulk_group{.cp_mask} [dst], [src], size{, byteMask}`, `multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.op{.noftz}.type [dst], [src], size`; the operation first; a floating-point vector 32, 64 or 128 bits wide";

const OPERAND_NOTE: &str = "rule check/operand-type (PTX ISA 9.7.9.27 multimem): the data operand is a register, or a vector of `.vec` registers, of the instruction's type (FP8 data in bit-size registers of its width); `.f16`/`.bf16` data takes no immediate";

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map_or(i.opcode.span, |m| m.span))
}

fn error(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, label: &str, note: &str) {
    cx.emit(Diagnostic::error(code, span, msg).with_label(label.to_string()).with_note(note.to_string()));
}

/// Checks a `multimem`.
pub fn check<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Some(fit) = insn.multimem() else { return resolve_all(cx, i) };
    let cp = matches!(insn, Insn::Multimem { op: ptxsim_isa::MultimemOp::Cp, .. });
    cx.require(if cp { Feature::MultimemCp } else { Feature::Multimem }, head(i));
    if let Some((span, why)) = multimem_layout(i) {
        error(cx, "check/modifiers", span, format!("`{}`: {why}", opname(i)), "out of place", NOTE);
        return resolve_all(cx, i);
    }
    let m = match fit {
        Ok(m) => m,
        Err(f) => {
            error(cx, "check/modifiers", modifier_span(i, f.modifier), format!("`{}`: {}", opname(i), f.why), "not a form of `multimem`", NOTE);
            return resolve_all(cx, i);
        }
    };
    let fp8 = m.ty.is_some_and(|t| t.fp8()) || (m.kind == MultimemKind::LdReduce && m.acc == Some(MultimemAcc::F16));
    if fp8 {
        cx.require(Feature::MultimemFp8, head(i));
        family_target(cx, i);
    }
    if m.cp_mask {
        cx.require(Feature::MultimemCpMask, head(i));
    }
    let ops = i.operands.as_slice();
    match m.kind {
        MultimemKind::LdReduce | MultimemKind::St | MultimemKind::Red => {
            let [first, second] = ops else { return count(cx, i, "2") };
            let space = m.global.then_some(StateSpace::Global);
            let ty = m.ty.unwrap_or(MultimemType::Scalar(ScalarType::B32));
            if m.kind == MultimemKind::LdReduce {
                address(cx, i, second, space, false, false);
                data(cx, i, first, ty, m.count(), Role::Dest);
            } else {
                address(cx, i, first, space, true, false);
                data(cx, i, second, ty, m.count(), Role::Src);
            }
        }
        MultimemKind::CpBulk | MultimemKind::CpReduceBulk => {
            let want = 3 + m.cp_mask as usize;
            if ops.len() != want {
                return count(cx, i, &want.to_string());
            }
            address(cx, i, &ops[0], Some(StateSpace::Global), true, false);
            address(cx, i, &ops[1], Some(StateSpace::Shared), false, false);
            match &ops[2].kind {
                OperandKind::Int(v) if v.value % 16 == 0 && v.value > 0 => {}
                OperandKind::Int(_) => error(cx, "check/operand-type", ops[2].span, format!("`{}`: the size is a multiple of 16", opname(i)), "not a multiple of 16", OPERAND_NOTE),
                _ => {
                    value(cx, &ops[2], ScalarType::U32, Role::Src, Size::Exact, i);
                }
            }
            if let Some(mask) = ops.get(3) {
                value(cx, mask, ScalarType::B16, Role::Src, Size::Exact, i);
            }
        }
    }
}

/// FP8 and `.acc::f16` need an arch- or family-specific target (ptxas
/// 13.5: "Feature '.e4m3x4' not supported on .target 'sm_100'"); below
/// sm_100 the gate already said so.
fn family_target(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    let Some((sm, tspan)) = cx.sm else { return };
    if sm.number < 100 || sm.suffix != 0 {
        return;
    }
    cx.emit(
        Diagnostic::error("check/isa-target", head(i), format!("`{}` is not supported on .target {sm}: FP8 multimem needs an architecture- or family-specific target (`sm_100a`, `sm_100f`, ...)", opname(i)))
            .with_label("needs an `a` or `f` target")
            .with_secondary(tspan, "the module's target is declared here")
            .with_note("rule check/isa-target (PTX ISA 9.7.9.27 multimem, target ISA notes): the FP8 types and `.acc::f16` need sm_100a/sm_100f or a later `a`/`f` target"),
    );
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, want: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {want} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count (PTX ISA 9.7.9.26, 9.7.9.27 multimem): `ld_reduce d, [a]`, `st`/`red [a], b`, the copies `[dst], [src], size{, byteMask}`"),
    );
    resolve_all(cx, i)
}

/// The data operand: one register (or immediate source) of `ty`, or a
/// vector of `n`.
fn data<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, ty: MultimemType, n: usize, role: Role) {
    let elems: &[Operand<'a>] = match (&o.kind, n) {
        (OperandKind::Vector(v), n) if v.len() == n && n > 1 => v,
        (OperandKind::Vector(v), _) => {
            return error(cx, "check/operand-type", o.span, format!("`{}` takes {} here; a vector of {} is given", opname(i), if n == 1 { "one register".to_string() } else { format!("a vector of {n} registers") }, v.len()), "vector size mismatch", OPERAND_NOTE);
        }
        (_, 1) => std::slice::from_ref(o),
        _ => return error(cx, "check/operand-type", o.span, format!("`{}` takes a vector of {n} registers `{{...}}` here", opname(i)), "vector expected", OPERAND_NOTE),
    };
    let no_imm = ty.half() || ty.fp8();
    for e in elems {
        if no_imm && matches!(e.kind, OperandKind::Int(_) | OperandKind::Float(_)) {
            error(cx, "check/operand-type", e.span, format!("`{}` on `{}` takes registers, not immediates", opname(i), ty.as_str()), "immediate here", OPERAND_NOTE);
            return;
        }
        if matches!(e.kind, OperandKind::Sink) {
            continue;
        }
        if !value(cx, e, ty.register(), role, Size::Exact, i) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    /// The error codes of `body` in a kernel on `target` (PTX 9.1).
    fn errors(target: &str, body: &str) -> Vec<String> {
        let src = format!(
            ".version 9.1\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b16 %h<9>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.reg .f32 %f<9>;\n.reg .f64 %fd<3>;\n.reg .u32 %u<3>;\n.reg .s64 %sd<3>;\n.reg .pred %p<2>;\n.shared .align 16 .b8 sm[64];\n.global .align 16 .b8 gm[64];\n{body}\nret;\n}}\n"
        );
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{body}: {:?}", parsed.diagnostics);
        crate::check_module(&parsed.module).into_iter().filter(|d| d.is_error()).map(|d| d.code.to_string()).collect()
    }
    fn first(target: &str, body: &str) -> Option<String> {
        errors(target, body).into_iter().next()
    }

    /// ptxas 13.5 (`-arch=sm_90a`) verdicts, its message quoted for each refusal.
    #[test]
    fn sm_90a_verdicts() {
        let is = |b: &str, want: Option<&str>| assert_eq!(first("sm_90a", b).as_deref(), want, "{b}");
        is("multimem.ld_reduce.relaxed.sys.global.add.u32 %u1, [%rd2];", None);
        is("multimem.ld_reduce.add.f32 %f1, [sm];", None);
        is("multimem.ld_reduce.global.add.acc::f32.v8.f16 {%h1,%h2,%h3,%h4,%h5,%h6,%h7,%h8}, [%rd2];", None);
        is("multimem.ld_reduce.global.add.v2.f32 {%f1,_}, [%rd2];", None);
        is("multimem.st.weak.global.v4.f32 [%rd2], {%f1,%f2,%f3,1.0};", None);
        is("multimem.red.release.gpu.global.min.v2.bf16x2 [%rd2], {%r1,%r2};", None);
        is("multimem.ld_reduce.f32.global.add %f1, [%rd2];", None);
        is("multimem.cp.async.bulk.global.shared::cta.bulk_group [gm], [sm], %r1;", None);
        // "Incorrect type '.b32' for operation '.min' in instruction 'multimem.ld_reduce'".
        is("multimem.ld_reduce.global.min.b32 %r1, [%rd2];", Some("check/modifiers"));
        // "Incorrect type '.f16x2' for operation '.min' in instruction 'multimem.red'".
        is("multimem.red.global.min.f16x2 [%rd2], %r1;", Some("check/modifiers"));
        // "Inconsistent type '.bf16x2' with vector .v8 for 'multimem.ld_reduce'".
        is("multimem.ld_reduce.add.v8.bf16x2 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];", Some("check/modifiers"));
        // "Modifier '.relaxed' requires scope with 'multimem.ld_reduce' instruction".
        is("multimem.ld_reduce.relaxed.global.add.f32 %f1, [%rd2];", Some("check/modifiers"));
        // "Unknown modifier '.ld_reduce'".
        is("multimem.global.ld_reduce.add.f32 %f1, [%rd2];", Some("check/modifiers"));
        // "Duplicate .relaxed modifier".
        is("multimem.ld_reduce.relaxed.gpu.relaxed.global.add.f32 %f1, [%rd2];", Some("check/modifiers"));
        // "State space mismatch between instruction and address".
        is("multimem.ld_reduce.global.add.f32 %f1, [sm];", Some("check/state-space"));
        // "Arguments mismatch for instruction 'multimem.ld_reduce'".
        is("multimem.ld_reduce.global.add.u32 %f1, [%rd2];", Some("check/operand-type"));
        is("multimem.ld_reduce.global.add.f16x2 %u1, [%rd2];", Some("check/operand-type"));
        is("multimem.st.global.f16x2 [%rd2], 1.0;", Some("check/operand-type"));
        is("multimem.ld_reduce.global.add.f32 %f1, [%rd2], %f2;", Some("check/operand-count"));
        // "Vector of size 2 is expected for argument 0".
        is("multimem.ld_reduce.global.add.v2.f32 %f1, [%rd2];", Some("check/operand-type"));
        // "Feature '.e4m3x4' not supported on .target 'sm_90a'".
        is("multimem.ld_reduce.global.add.e4m3x4 %r1, [%rd2];", Some("check/isa-target"));
        // "Feature '.cp_mask' requires .target sm_100 or higher".
        is("multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%rd2], 16, %h1;", Some("check/isa-target"));
        // "Argument 2 of instruction 'multimem.cp.async.bulk': unexpected value '15', expected to be multiple of 16".
        is("multimem.cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%rd2], 15;", Some("check/operand-type"));
        // "Modifier '.noftz' required for instruction 'multimem.cp.reduce.async.bulk' with type '.f16' and operation '.add'".
        is("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd1], [%rd2], 16;", Some("check/modifiers"));
    }

    /// ptxas 13.5 verdicts of the FP8 forms and the gates.
    #[test]
    fn fp8_and_gates() {
        assert_eq!(first("sm_100a", "multimem.ld_reduce.global.add.acc::f16.v4.e4m3x4 {%r1,%r2,%r3,%r4}, [%rd2];"), None);
        assert_eq!(first("sm_120a", "multimem.st.global.v2.e5m2x2 [%rd2], {%h1,%h2};"), None);
        // "Feature '.e4m3x4' not supported on .target 'sm_100'".
        assert_eq!(first("sm_100", "multimem.ld_reduce.global.add.e4m3x4 %r1, [%rd2];").as_deref(), Some("check/isa-target"));
        // "Illegal modifier '.acc::f32' for instruction 'multimem.ld_reduce' with type '.e4m3x2'".
        assert_eq!(first("sm_100a", "multimem.ld_reduce.global.add.acc::f32.v2.e4m3x2 {%h1,%h2}, [%rd2];").as_deref(), Some("check/modifiers"));
        // "Unexpected instruction types specified for 'multimem.red'".
        assert_eq!(first("sm_100a", "multimem.red.global.add.e4m3x4 [%rd2], %r1;").as_deref(), Some("check/modifiers"));
        assert_eq!(first("sm_100a", "multimem.cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%rd2], 16, %h1;"), None);
        // "Feature 'multimem.ld_reduce' requires .target sm_90 or higher".
        assert_eq!(first("sm_89", "multimem.ld_reduce.global.add.u32 %u1, [%rd2];").as_deref(), Some("check/isa-target"));
    }
}
