//! The `mbarrier` row's rule (rule `check/tensor-operands`, PTX ISA
//! 9.7.13.15), on its typed [`Insn`]: the modifiers are decoded by the
//! row's grammar, their combinations judged by `Insn::mbarrier` and
//! `ptxsim_isa::mbarrier_layout`; here the version and target each form
//! needs and the operands, as ptxas 12.9 judges them (each verdict in
//! `tests/check/`, files `tensor-operands--mbarrier-*`; every combination
//! of operation, semantics, scope and state space agrees with ptxas 12.9
//! at four version/target pairs, `scripts/mbarrier_matrix.py`) and as
//! ptxas 13.5 judges what 12.9's corpus does not show (the tests below):
//!
//! - 7.0, sm_80 (the row's gate); `.parity` 7.1; `try_wait` and an arrival
//!   count without `.noComplete` 7.8, sm_90; transaction counts 8.0,
//!   sm_90; `.sem` and `.scope` 8.0, `.cluster` on sm_90, `.relaxed` on
//!   arrive and the waits 8.6, sm_90; `.shared::cluster` 8.0, sm_90;
//!   `.shared::cta` 7.8;
//! - the state is a `.b64` register, counts `.u32`, the wait result a
//!   predicate; on `.shared::cluster` the state of `arrive`/`arrive_drop`
//!   is the sink `_`;
//! - (ptxas 13.5) registers or integer constants only, no vectors, no
//!   variable names, no floating-point constants; `init`'s count in
//!   [1, 1048575] (as a 32-bit value), an arrival count above 0, a phase
//!   parity 0 or 1; a generic address a 64-bit register under
//!   `.address_size 64`, or a `.shared` variable.

use super::operand::{pred_reg, value, Role};
use super::opname;
use super::tensor::{address, count, head, span_of};
use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::{Insn, MbarrierOp, MbarrierScope, MbarrierSem, MbarrierSpace};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::cexpr::{self, CVal};
use ptxsim_syntax::{Diagnostic, Span};

const MBAR_NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.13.15 mbarrier, as ptxas 12.9 types it): `mbarrier.{init,inval,arrive{.expect_tx|.noComplete},arrive_drop{...},expect_tx,complete_tx,test_wait{.parity},try_wait{.parity},pending_count}{.sem.scope}{.shared{::cta}|.shared::cluster}.b64`; `.sem` and `.scope` go together: `.release`/`.relaxed` on arrive (`.release.cta` with `.noComplete`), `.relaxed` on expect_tx/complete_tx, `.acquire`/`.relaxed` on the waits; `.shared::cluster` on arrive, arrive_drop, expect_tx and complete_tx only, with `_` as the state";

fn mbar_err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(MBAR_NOTE));
}

/// `mbarrier.*` (PTX ISA 9.7.13.15): the combinations, the gates, the
/// operands.
pub fn mbarrier<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Some(fit) = insn.mbarrier() else { return };
    if let Some((span, why)) = ptxsim_isa::mbarrier_layout(i) {
        return mbar_err(cx, span, format!("`{}`: {why}", opname(i)), "illegal modifier");
    }
    let x = match fit {
        Ok(x) => x,
        Err(m) => return mbar_err(cx, span_of(i, m.modifier), m.why, "illegal modifier"),
    };
    match x.space {
        Some(MbarrierSpace::SharedCta) => cx.require(Feature::SharedCta, span_of(i, MbarrierSpace::SharedCta.as_str())),
        Some(MbarrierSpace::SharedCluster) => cx.require(Feature::MbarrierSharedCluster, head(i)),
        _ => {}
    }
    if x.sem.is_some() {
        cx.require(Feature::MbarrierSem, head(i));
    }
    if x.sem == Some(MbarrierSem::Relaxed) && (x.op.arrives() || x.op.waits()) {
        cx.require(Feature::MbarrierRelaxed, head(i));
    }
    if x.scope == Some(MbarrierScope::Cluster) {
        cx.require(Feature::MbarrierClusterScope, head(i));
    }
    if x.parity {
        cx.require(Feature::MbarrierParity, head(i));
    }
    if x.op == MbarrierOp::TryWait {
        cx.require(Feature::MbarrierTryWait, head(i));
    }
    if x.expect_tx || x.op.tx() {
        cx.require(Feature::MbarrierTx, head(i));
    }
    let ops = &i.operands;
    let n = ops.len();
    use MbarrierOp::*;
    let want = match x.op {
        Init | ExpectTx | CompleteTx | PendingCount => 2..=2,
        Inval => 1..=1,
        Arrive | ArriveDrop if x.expect_tx || x.no_complete => 3..=3,
        Arrive | ArriveDrop => 2..=3,
        TryWait => 3..=4,
        TestWait => 3..=3,
    };
    if !want.contains(&n) {
        return count(cx, i, &if want.start() == want.end() { format!("{}", want.start()) } else { format!("{} or {}", want.start(), want.end()) });
    }
    // The address operand's position; every other operand is a value.
    let at = match x.op {
        Init | Inval | ExpectTx | CompleteTx => Some(0),
        PendingCount => None,
        _ => Some(1),
    };
    for (k, o) in ops.iter().enumerate() {
        if Some(k) != at && !plain_value(cx, i, o) {
            return;
        }
    }
    let space = x.space.map(|_| StateSpace::Shared);
    if let Some(k) = at {
        if x.space.is_none() && !generic_address(cx, i, &ops[k]) {
            return;
        }
    }
    use ScalarType::*;
    match x.op {
        Init | ExpectTx | CompleteTx => {
            if address(cx, &ops[0], space) && value(cx, &ops[1], U32, Role::Src, Size::Exact, i) && x.op == Init {
                // ptxas 13.5: "value '0' out of range, expected to be in range [1..1048575]".
                constant(cx, i, &ops[1], |v| (1..=1_048_575).contains(&(v as u32 as i32)), "`mbarrier.init`'s count is 1 to 1048575");
            }
        }
        Inval => {
            address(cx, &ops[0], space);
        }
        Arrive | ArriveDrop => {
            if n == 3 && !x.no_complete && !x.expect_tx {
                cx.require(Feature::MbarrierArriveCount, ops[2].span);
            }
            if x.cluster_space() && !matches!(ops[0].kind, OperandKind::Sink) {
                // ptxas 12.9: "Sink '_' is expected as a destination operand
                // for instruction 'mbarrier.arrive' with '.shared::cluster'".
                return mbar_err(cx, ops[0].span, format!("`{}` on another CTA's barrier returns no state: its destination is the sink `_`", opname(i)), "`_` expected");
            }
            if value(cx, &ops[0], B64, Role::Dest, Size::Exact, i) && address(cx, &ops[1], space) && n == 3 && value(cx, &ops[2], U32, Role::Src, Size::Exact, i) && !x.expect_tx {
                // ptxas 13.5: "value '0' expected to be a non-zero positive".
                constant(cx, i, &ops[2], |v| (v as i64) > 0, "an arrival count is above 0");
            }
        }
        TestWait | TryWait => {
            let p = match &ops[0].kind {
                OperandKind::Name { name, component: None } => pred_reg(cx, *name, i),
                _ => {
                    mbar_err(cx, ops[0].span, format!("`{}` writes a predicate", opname(i)), "predicate expected");
                    false
                }
            };
            if p && address(cx, &ops[1], space) && value(cx, &ops[2], if x.parity { U32 } else { B64 }, Role::Src, Size::Exact, i) {
                // ptxas 13.5: "unexpected value '2', expected to be 0 or 1".
                if x.parity && !constant(cx, i, &ops[2], |v| v <= 1, "a phase parity is 0 or 1") {
                    return;
                }
                if n == 4 {
                    value(cx, &ops[3], U32, Role::Src, Size::Exact, i);
                }
            }
        }
        PendingCount => {
            if value(cx, &ops[0], U32, Role::Dest, Size::Exact, i) {
                value(cx, &ops[1], B64, Role::Src, Size::Exact, i);
            }
        }
    }
}

/// A value operand of `mbarrier`: a register (or the sink, or a
/// predicate, judged later) or an integer constant (ptxas 13.5: "Arguments
/// mismatch" for a vector `{%r1}`, a floating-point constant, or a
/// variable's name; "must be register" for the state of the waits and
/// `pending_count`).
fn plain_value<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>) -> bool {
    let what = match &o.kind {
        OperandKind::Vector(_) => "a vector",
        OperandKind::Float(_) => "a floating-point constant",
        OperandKind::Name { name, .. } => match cx.lookup(name.text) {
            Some(Sym::Var(v)) if !matches!(v.space(), StateSpace::Reg | StateSpace::Sreg) => "a variable's address",
            _ => return true,
        },
        _ => return true,
    };
    mbar_err(cx, o.span, format!("`{}` takes registers and integer constants here, not {what}", opname(i)), "register or integer constant expected");
    false
}

/// A generic address of `mbarrier` (no state space): a 64-bit register
/// under `.address_size 64` (ptxas 13.5 refuses a 32-bit one: "32-Bit
/// ABI ... is not supported"), or a `.shared` variable (ptxas 13.5:
/// "Illegal state space for address operand 'g' with instruction
/// 'mbarrier.init'").
fn generic_address<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>) -> bool {
    let OperandKind::Address(a) = &o.kind else { return true };
    let Some(base) = a.base else { return true };
    let msg = match cx.lookup(base.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => match v.ty() {
            Some(t) if cx.addr64 && t.bits() == 32 => format!("32-bit register `{}` used as a generic address with `.address_size 64`", base.text),
            _ => return true,
        },
        Some(Sym::Var(v)) if v.space() != StateSpace::Shared => {
            format!("`{}` addresses `{}`, a `{}` variable: an mbarrier object is in shared memory", opname(i), base.text, v.space().as_str())
        }
        _ => return true,
    };
    mbar_err(cx, base.span, msg, "illegal address");
    false
}

/// Checks an integer-constant operand against `ok` (a register passes).
fn constant(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, o: &Operand<'_>, ok: impl Fn(u64) -> bool, rule: &str) -> bool {
    let v = match &o.kind {
        OperandKind::Int(v) => v.value,
        OperandKind::Expr(e) => match cexpr::check(e) {
            Ok(Some(CVal::Int { value, .. })) => value,
            _ => return true,
        },
        _ => return true,
    };
    if ok(v) {
        return true;
    }
    mbar_err(cx, o.span, format!("`{}`: {rule}", opname(i)), "value out of range");
    false
}

#[cfg(test)]
mod tests {

    /// The codes of the errors of the one instruction `ins` in a kernel
    /// declaring the registers and a `.shared`, `.global` and `.local`
    /// object (`.address_size 64`).
    fn errors_at(ins: &str, ver: &str, target: &str) -> Vec<String> {
        const BODY: &str = ".reg .b32 %r<5>;\n.reg .b64 %rd<5>;\n.reg .f32 %f<3>;\n.reg .pred %p<3>;\n.shared .align 8 .b64 bar;\n.local .align 8 .b64 lbar;";
        crate::testing::errors(&crate::testing::kernel(ver, target, ".global .align 8 .b64 gbar;", &format!("{BODY}\n{ins}")))
    }
    fn errors(ins: &str) -> Vec<String> {
        errors_at(ins, "9.0", "sm_90a")
    }
    fn accepted(ins: &str) {
        assert_eq!(errors(ins), Vec::<String>::new(), "{ins}");
    }
    fn rejected(ins: &str, code: &str) {
        let e = errors(ins);
        assert!(e.first().is_some_and(|c| c == code), "{ins}: {e:?}");
    }

    /// Every operation in one form ptxas 13.5 accepts (sm_90a, PTX 9.0).
    #[test]
    fn forms_ptxas_accepts() {
        for ins in [
            "mbarrier.init.shared.b64 [bar], 1048575;",
            "mbarrier.inval.shared::cta.b64 [bar];",
            "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar], 4294967296;",
            "mbarrier.arrive.expect_tx.relaxed.cta.shared.b64 %rd1, [bar], 0;",
            "mbarrier.arrive_drop.noComplete.release.cta.b64 %rd1, [%rd2], %r1;",
            "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [bar], %r1;",
            "mbarrier.complete_tx.shared.b64 [bar], 16;",
            "mbarrier.test_wait.parity.acquire.cta.shared.b64 %p1, [bar], 1;",
            "mbarrier.try_wait.relaxed.cluster.b64 %p1, [bar], %rd1, 1000;",
            "mbarrier.try_wait.b64 %p1, [bar], -1;",
            "mbarrier.pending_count.b64 %r1, %rd1;",
            "mbarrier.init.shared.b64 [%r1], 1;",
            "mbarrier.arrive.shared::cluster.b64 _, [%r2];",
        ] {
            accepted(ins);
        }
    }

    /// Modifiers written twice or before the operation (ptxas 13.5).
    #[test]
    fn layout_ptxas_refuses() {
        // "Unexpected instruction types specified for 'mbarrier.init'".
        rejected("mbarrier.init.shared.b64.b64 [bar], %r1;", "check/modifiers");
        // "Unknown modifier '.init'", "Not a name of any known instruction: 'mbarrier'".
        rejected("mbarrier.shared.init.b64 [bar], %r1;", "check/tensor-operands");
        rejected("mbarrier.b64 [bar], %r1;", "check/tensor-operands");
        // "Multiple .noComplete modifiers specified", "Duplicate .release modifier".
        rejected("mbarrier.arrive.noComplete.noComplete.b64 %rd1, [bar], %r1;", "check/tensor-operands");
        rejected("mbarrier.arrive.release.release.cta.b64 %rd1, [bar];", "check/tensor-operands");
        // "Unknown modifier '.parity'".
        rejected("mbarrier.test_wait.parity.parity.b64 %p1, [bar], %r1;", "check/tensor-operands");
        // "Unknown modifier '.expect_tx'", "Unknown modifier '.parity'": right after the operation.
        rejected("mbarrier.arrive.shared.expect_tx.b64 %rd1, [bar], %r1;", "check/tensor-operands");
        rejected("mbarrier.test_wait.b64.parity %p1, [bar], %r1;", "check/tensor-operands");
    }

    /// Operands ptxas 13.5 refuses that the types alone allow.
    #[test]
    fn operands_ptxas_refuses() {
        for ins in [
            // "value '0' out of range, expected to be in range [1..1048575]".
            "mbarrier.init.shared.b64 [bar], 0;",
            "mbarrier.init.shared.b64 [bar], 1048576;",
            "mbarrier.init.shared.b64 [bar], 4294967295;",
            "mbarrier.init.shared.b64 [bar], 2-2;",
            // "value '0' expected to be a non-zero positive".
            "mbarrier.arrive.shared.b64 %rd1, [bar], 0;",
            "mbarrier.arrive.noComplete.shared.b64 %rd1, [bar], -1;",
            // "unexpected value '2', expected to be 0 or 1".
            "mbarrier.test_wait.parity.shared.b64 %p1, [bar], 2;",
            "mbarrier.try_wait.parity.shared.b64 %p1, [bar], -1;",
            // "Arguments mismatch for instruction 'mbarrier.init'" (a variable's name, a vector, a float).
            "mbarrier.init.shared.b64 [bar], bar;",
            "mbarrier.init.shared.b64 [bar], {%r1};",
            "mbarrier.arrive.shared.b64 {%rd1}, [bar];",
            "mbarrier.test_wait.shared.b64 %p1, [bar], 1.0;",
            "mbarrier.pending_count.b64 %r1, 0f3F800000;",
            // "Argument 1 of instruction 'mbarrier.pending_count': must be register".
            "mbarrier.pending_count.b64 %r1, bar;",
            // "Illegal state space for address operand 'gbar' with instruction 'mbarrier.init'".
            "mbarrier.init.b64 [gbar], 1;",
            "mbarrier.arrive.b64 _, [lbar];",
            // "32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported".
            "mbarrier.init.b64 [%r1], 1;",
            "mbarrier.test_wait.b64 %p1, [%r1], %rd1;",
        ] {
            rejected(ins, "check/tensor-operands");
        }
    }

    /// The gates, as ptxas 12.9 and 13.5 both judge them.
    #[test]
    fn gates() {
        let refused = |ins: &str, v: &str, t: &str| !errors_at(ins, v, t).is_empty();
        assert!(refused("mbarrier.try_wait.shared.b64 %p1, [bar], %rd1;", "7.8", "sm_80"));
        assert!(!refused("mbarrier.try_wait.shared.b64 %p1, [bar], %rd1;", "7.8", "sm_90"));
        assert!(refused("mbarrier.expect_tx.shared.b64 [bar], %r1;", "7.8", "sm_90"));
        assert!(refused("mbarrier.arrive.relaxed.cta.shared.b64 %rd1, [bar];", "8.5", "sm_90"));
        assert!(!refused("mbarrier.arrive.relaxed.cta.shared.b64 %rd1, [bar];", "8.6", "sm_90"));
        assert!(refused("mbarrier.arrive.release.cluster.shared.b64 %rd1, [bar];", "8.0", "sm_80"));
        assert!(!refused("mbarrier.arrive.release.cta.shared.b64 %rd1, [bar];", "8.0", "sm_80"));
        assert!(refused("mbarrier.test_wait.parity.shared.b64 %p1, [bar], %r1;", "7.0", "sm_80"));
        assert!(refused("mbarrier.init.shared::cta.b64 [bar], 1;", "7.1", "sm_80"));
    }
}
