//! The instruction table and the per-instruction rules.
//!
//! [`TABLE`] lists every opcode ptxsim knows, once: the rows of
//! `ptxsim_isa`, each with its feature gate, its modifier grammar (the
//! typed `Insn` that `ptxsim_isa::decode` makes) and its operand roles.
//! [`instruction`] checks what every instruction shares (the guard, the
//! opcode, state spaces, the row's gate, special registers, the sink `_`)
//! and hands a row with a written grammar to [`insn::typed`], which decodes
//! it once and matches on the `Insn`: [`branch`] (`bra`, `brx.idx`, `ret`,
//! `exit`), [`call`] (direct and indirect calls), [`setp`] (`setp`,
//! `selp`), [`convert`] (`mov`, `cvt`, `cvt.pack`), [`memory`] (`ld`,
//! `st`, addresses and state spaces), [`atomic`] (`atom`, `red`), [`warp`]
//! (`shfl`, `vote`, `bar`/`barrier`, `activemask`, `nanosleep`, `pmevent`,
//! `istypep`), [`collective`] (`match.sync`, `redux.sync`, `elect.sync`),
//! [`forms`] (`lop3`, `shf`, `set`, `slct`), [`arith`], [`fma`], [`math`]
//! (the arithmetic rows), [`scalar`] (the cache hints), [`acopy`]
//! (`cp.async` and its groups, the bulk and tensor copies), [`tensor`],
//! [`wmma`], [`hopper`], [`mbar`], [`clc`], [`tex`] (textures and surfaces),
//! [`multimem`], [`tcgen05`] and [`space`]; [`sink`] says
//! where `_` may stand, and [`operand`] resolves and types single operands
//! for all of them. A row whose grammar is not written yet is known, and
//! only its operands' names are resolved.

pub mod acopy;
pub mod arith;
pub mod atomic;
pub mod branch;
pub mod call;
pub mod clc;
pub mod collective;
pub mod fma;
pub mod math;
pub mod convert;
pub mod forms;
pub mod memory;
pub mod operand;
pub mod scalar;
pub mod setp;
pub mod sink;
pub mod tensor;
pub mod tex;
pub mod mbar;
pub mod multimem;
pub mod tcgen05;
pub mod hopper;
pub mod space;
pub mod insn;
pub mod warp;
pub mod wmma;

use crate::ctx::{Ctx, Sym};
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::Diagnostic;

pub use ptxsim_isa::modifiers::opname;
pub use ptxsim_isa::CmpOp;
use ptxsim_isa::Opcode;

/// One row of the instruction table (`ptxsim_isa`'s description of an opcode).
pub type Spec = ptxsim_isa::OpInfo;

/// Every opcode ptxsim knows, with its form and allowed types: the rows of
/// `ptxsim_isa`'s one description of every instruction.
pub const TABLE: &[Spec] = ptxsim_isa::OPS;

/// The table row of an opcode.
pub fn spec(op: &str) -> Option<&'static Spec> {
    ptxsim_isa::lookup(op)
}

/// Checks one instruction: the guard, the opcode, the state spaces, then
/// its row's grammar and rule ([`insn::typed`]).
pub fn instruction<'f, 'a>(cx: &mut Ctx<'f, 'a>, i: &'f Instruction<'a>) {
    guard(cx, i);
    let Some(spec) = spec(i.opcode.text) else {
        cx.emit(
            Diagnostic::error("check/unknown-instruction", i.opcode.span, format!("unknown instruction `{}`", i.opcode.text))
                .with_label("not a PTX opcode that ptxsim knows")
                .with_note("rule check/unknown-instruction: the opcode must be a PTX ISA instruction"),
        );
        return;
    };
    for m in &i.modifiers {
        // (`ld.weak`/`st.weak` are the grammar's: their row's `sem` takes it.)
        if ptxsim_syntax::ast::DIRECTIVES_NOT_MODIFIERS.contains(&m.text)
            && !(spec.typed && ptxsim_isa::field_span(i, "sem").is_some_and(|s| (s.start, s.end) == (m.span.start, m.span.end)))
        {
            cx.emit(
                Diagnostic::error("check/unknown-instruction", m.span, format!("`{}` is a directive, not a modifier of `{}`", m.text, i.opcode.text))
                    .with_label("unexpected directive in an instruction")
                    .with_note("rule check/unknown-instruction: instruction modifiers come from the instruction's own syntax (PTX ISA chapter 9)"),
            );
        }
    }
    let [space, second] = ptxsim_isa::modifiers::spaces(i);
    // Rule check/state-space: ld and st take at most one state space
    // (ptxas: "Unexpected number of state spaces specified in instruction").
    if let (Some((first, fs)), Some((second, ss))) = (space, second) {
        if matches!(Opcode::of_insn(i), Some(Opcode::Ld | Opcode::Ldu | Opcode::St)) {
            cx.emit(
                Diagnostic::error("check/state-space", ss, format!("`{}` takes one state space; `{}` is a second one", i.opcode.text, second.as_str()))
                    .with_label("second state space")
                    .with_secondary(fs, format!("`{}` given here", first.as_str()))
                    .with_note("rule check/state-space (PTX ISA 9.7.9.8 ld, 9.7.9.10 st, 9.7.13.5 atom, 9.7.13.6 red): one state space, or none for generic addressing"),
            );
            return;
        }
    }
    // An immediate address `[imm]` is a `.local` one only (ptxas 13.5:
    // "Immediate addresses allowed only for .local state space").
    if space.map(|(sp, _)| sp) != Some(StateSpace::Local) {
        if let Some(o) = i.operands.iter().find(|o| matches!(&o.kind, OperandKind::Address(a) if a.base.is_none())) {
            cx.emit(
                Diagnostic::error("check/state-space", o.span, format!("`{}` takes an immediate address only in the `.local` state space", i.opcode.text))
                    .with_label("an immediate address")
                    .with_note("rule check/state-space (PTX ISA 6.4.1 addresses): `[imm]` addresses the local frame; other spaces are addressed through a register or a variable (ptxas: \"Immediate addresses allowed only for .local state space\")"),
            );
            return operand::resolve_all(cx, i);
        }
    }
    if let Some(f) = spec.gate {
        cx.require(f, insn::name_span(i));
    }
    operand::special_operands(cx, i);
    if !sink::check(cx, i) {
        return operand::resolve_all(cx, i);
    }
    if spec.typed {
        return insn::typed(cx, i);
    }
    // A row whose grammar is not written yet: `.uni` is a modifier of
    // `bra`, `brx.idx`, `call` and `ret` only, and the operands are resolved.
    if let Some(m) = i.modifiers.iter().find(|m| ptxsim_isa::modifiers::is_uni(m.text)) {
        uni_error(cx, i, m.span);
    }
    operand::resolve_all(cx, i)
}

/// Rule check/uni-modifier (PTX ISA 9.7.12, Thread Divergence): `.uni`
/// exists on bra, brx.idx, call and ret only (`vote.uni` is a vote mode,
/// not this modifier).
pub(crate) fn uni_error(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, span: ptxsim_syntax::Span) {
    cx.emit(
        Diagnostic::error("check/uni-modifier", span, format!("`.uni` is not a modifier of `{}`", i.opcode.text))
            .with_label("illegal modifier")
            .with_note("rule check/uni-modifier (PTX ISA 9.7.12): only `bra`, `brx.idx`, `call` and `ret` take `.uni`"),
    );
}

/// Rule check/state-space: a state space the instruction's syntax does not
/// list (ptxas: "No state space qualifier expected for instruction", or
/// "Unexpected instruction types specified" where it takes other spaces).
pub(crate) fn space_error(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, sp: StateSpace, span: ptxsim_syntax::Span) {
    cx.emit(
        Diagnostic::error("check/state-space", span, format!("`{}` does not take state space `{}`", i.opcode.text, sp.as_str()))
            .with_label("unexpected state space")
            .with_note("rule check/state-space: only memory instructions (ld, st, atom, cvta, ...) name a state space, each from the list of its own syntax (PTX ISA chapter 9)"),
    );
}

/// Rule `check/guard-type` (PTX ISA 9.7.12.2 `@`): the guard is a `.pred` register.
fn guard(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    let Some(g) = i.guard else { return };
    match cx.lookup(g.pred.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg && v.ty() == Some(ScalarType::Pred) => {}
        Some(s) => {
            let what = crate::ctx::sym_kind(s);
            let decl = crate::ctx::sym_span(s, &cx.funcs);
            cx.emit(
                Diagnostic::error("check/guard-type", g.pred.span, format!("guard `{}` is not a predicate", g.pred.text))
                    .with_label(format!("this is {what}"))
                    .with_secondary(decl, "declared here")
                    .with_note("rule check/guard-type (PTX ISA 9.7.12.2, 9.3): a guard must be a `.pred` register; integers are not predicates (compute one with `setp`)"),
            );
        }
        None => cx.unknown(g.pred, "predicate register"),
    }
}
