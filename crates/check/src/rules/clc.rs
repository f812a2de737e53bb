//! `clusterlaunchcontrol` (PTX ISA 9.7.13.17), rule `check/modifiers` on
//! its typed row: the operation comes first (`.try_cancel.async`,
//! `.query_cancel`), its modifiers and types are those of the operation
//! ([`Insn::clc_misfit`], as ptxas 13.5 judges them at `-arch=sm_100a`),
//! and it takes two operands. The operands are resolved, not typed.

use super::opname;
use super::operand::resolve_all;
use crate::ctx::Ctx;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{ClcOp, Insn};
use ptxsim_syntax::ast::Instruction;
use ptxsim_syntax::Diagnostic;

const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.13.17 clusterlaunchcontrol): `clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar]`, `clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r`, `clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, r`, `clusterlaunchcontrol.query_cancel.get_first_ctaid::{x,y,z}.b32.b128 d, r`";

/// Checks a `clusterlaunchcontrol`.
pub fn check<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Insn::Clusterlaunchcontrol { op, is_async, .. } = *insn else { return resolve_all(cx, i) };
    cx.require(crate::isa::Feature::Clc, i.opcode.span);
    // The operation leads, `.async` right after `.try_cancel` (ptxas 13.5:
    // "Unknown modifier '.try_cancel'" otherwise).
    let at = |k: usize| i.modifiers.get(k).map(|m| m.text);
    let lead = at(0) == Some(op.as_str()) && (op != ClcOp::TryCancel || !is_async || at(1) == Some(ClcOp::ASYNC));
    if !lead {
        cx.emit(
            Diagnostic::error("check/modifiers", modifier_span(i, op.as_str()), format!("`{}`: the operation comes first: `clusterlaunchcontrol.try_cancel.async` or `clusterlaunchcontrol.query_cancel`", opname(i)))
                .with_label("unknown modifier here")
                .with_note(NOTE),
        );
        return resolve_all(cx, i);
    }
    if let Some(m) = insn.clc_misfit() {
        cx.emit(Diagnostic::error("check/modifiers", modifier_span(i, m.modifier), format!("`{}`: {}", opname(i), m.why)).with_label("not a form of `clusterlaunchcontrol`").with_note(NOTE));
        return resolve_all(cx, i);
    }
    if i.operands.len() != 2 {
        cx.emit(
            Diagnostic::error("check/operand-count", i.span, format!("`{}` takes 2 operands; {} given", opname(i), i.operands.len()))
                .with_note("rule check/operand-count (PTX ISA 9.7.13.17): `try_cancel` takes `[addr], [mbar]`, `query_cancel` `d, response`"),
        );
    }
    resolve_all(cx, i)
}

#[cfg(test)]
mod tests {
    /// The error code of the first error of `body` in a kernel on sm_100a,
    /// or `None` where it checks clean.
    fn first_error(body: &str) -> Option<String> {
        const DECLS: &str = ".reg .b32 %r<4>;\n.reg .b128 %q<2>;\n.reg .pred %p<2>;\n.shared .b64 mb;\n.shared .align 16 .b8 resp[16];";
        crate::testing::first_error(&crate::testing::kernel("8.8", "sm_100a", "", &format!("{DECLS}\n{body}")))
    }

    /// ptxas 13.5 (`-arch=sm_100a`) verdicts, its message quoted for each refusal.
    #[test]
    fn modifiers_follow_the_operation() {
        let is = |b: &str, want: Option<&str>| assert_eq!(first_error(b).as_deref(), want, "{b}");
        is("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [resp], [mb];", None);
        is("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1;", None);
        is("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r0, %r1, %r2, _}, %q1;", None);
        // "Unknown modifier '.try_cancel'".
        is("clusterlaunchcontrol.async.try_cancel.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [mb];", Some("check/modifiers"));
        is("clusterlaunchcontrol.try_cancel.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [mb];", Some("check/modifiers"));
        // "State space incorrect for instruction 'clusterlaunchcontrol.try_cancel.async'".
        is("clusterlaunchcontrol.try_cancel.async.global.mbarrier::complete_tx::bytes.b128 [resp], [mb];", Some("check/state-space"));
        // "Illegal modifier '.async' for instruction 'clusterlaunchcontrol.query_cancel'".
        is("clusterlaunchcontrol.query_cancel.is_canceled.async.pred.b128 %p1, %q1;", Some("check/modifiers"));
        // "Unexpected instruction types specified for 'clusterlaunchcontrol.query_cancel'".
        is("clusterlaunchcontrol.query_cancel.get_first_ctaid.b32.b128 %r0, %q1;", Some("check/modifiers"));
    }
}
