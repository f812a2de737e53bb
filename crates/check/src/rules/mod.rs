//! The instruction table and the per-instruction rules.
//!
//! [`TABLE`] lists every opcode ptxsim knows, once, with its operand form,
//! the instruction types it allows and the feature gate it needs: the rows
//! of `ptxsim_isa`, which also decodes the modifier strings the parser
//! keeps ([`Decoded`]); each form
//! is checked by one module: [`branch`] (`bra`, `brx.idx`, `ret`, `exit`),
//! [`call`] (direct and indirect calls), [`setp`] (`setp`, `selp`), [`typed`]
//! (the untyped arithmetic, `cvta`), [`convert`] (`mov`, `cvt`, `cvt.pack`),
//! [`memory`] (`ld`, `st`, addresses and state spaces),
//! [`atomic`] (`atom`, `red`), [`warp`] (the typed warp rows: `shfl`,
//! `vote`, `bar`/`barrier`, `activemask`, `nanosleep`, `pmevent`,
//! `istypep`), [`collective`] (`match.sync`, `redux.sync`, `elect.sync`),
//! [`sink`] (where `_` may stand, for every instruction), [`forms`]
//! (`lop3`, `shf`, `set`, `slct`), [`arith`] (the
//! typed bit and integer rows: `popc` ... `sad`, `testp`), [`scalar`] (the
//! cache hints `prefetch`, `applypriority`, `discard`, `createpolicy`),
//! [`acopy`] (`cp.async` and its groups, the bulk and tensor copies),
//! with [`operand`] resolving and typing
//! single operands for all of them. Opcodes of the `Loose` form are known
//! but only their names are resolved.

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
pub mod mbar;
pub mod multimem;
pub mod tcgen05;
pub mod hopper;
pub mod space;
pub mod typed;
pub mod insn;
pub mod warp;
pub mod wmma;

use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::Diagnostic;
use smallvec::SmallVec;

pub use ptxsim_isa::modifiers::opname;
pub use ptxsim_isa::{allows, decode_modifiers as decode, ts, CmpOp, Decoded, Form};

/// One row of the instruction table (`ptxsim_isa`'s description of an opcode).
pub type Spec = ptxsim_isa::OpInfo;

/// Every opcode ptxsim knows, with its form and allowed types: the rows of
/// `ptxsim_isa`'s one description of every instruction.
pub const TABLE: &[Spec] = ptxsim_isa::OPS;

/// The table row of an opcode.
pub fn spec(op: &str) -> Option<&'static Spec> {
    ptxsim_isa::lookup(op)
}

/// Checks one instruction: the guard, `.uni`, the opcode, then its form's rule.
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
    let d = decode(i);
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
    // Rule check/state-space: ld, st, atom and red take at most one state space
    // (ptxas: "Unexpected number of state spaces specified in instruction").
    if let (Some((first, fs)), Some((second, ss))) = (d.space, d.second_space) {
        if matches!(spec.form, Form::Ld | Form::St) {
            cx.emit(
                Diagnostic::error("check/state-space", ss, format!("`{}` takes one state space; `{}` is a second one", i.opcode.text, second.as_str()))
                    .with_label("second state space")
                    .with_secondary(fs, format!("`{}` given here", first.as_str()))
                    .with_note("rule check/state-space (PTX ISA 9.7.9.8 ld, 9.7.9.10 st, 9.7.13.5 atom, 9.7.13.6 red): one state space, or none for generic addressing"),
            );
            return;
        }
    }
    // Only the memory forms name a state space (ptxas: "No state space
    // qualifier expected for instruction"); `Loose` opcodes are not typed.
    if let Some((sp, span)) = d.space {
        if !matches!(spec.form, Form::Ld | Form::St | Form::Cvta | Form::Scalar | Form::Tensor | Form::Space | Form::Loose | Form::Typed) {
            cx.emit(
                Diagnostic::error("check/state-space", span, format!("`{}` takes no state space, but `{}` is given", i.opcode.text, sp.as_str()))
                    .with_label("unexpected state space")
                    .with_note("rule check/state-space: only memory instructions (ld, st, atom, cvta, ...) name a state space"),
            );
            return;
        }
    }
    // An immediate address `[imm]` is a `.local` one only (ptxas 13.5:
    // "Immediate addresses allowed only for .local state space").
    if d.space.map(|(sp, _)| sp) != Some(StateSpace::Local) {
        if let Some(o) = i.operands.iter().find(|o| matches!(&o.kind, OperandKind::Address(a) if a.base.is_none())) {
            cx.emit(
                Diagnostic::error("check/state-space", o.span, format!("`{}` takes an immediate address only in the `.local` state space", i.opcode.text))
                    .with_label("an immediate address")
                    .with_note("rule check/state-space (PTX ISA 6.4.1 addresses): `[imm]` addresses the local frame; other spaces are addressed through a register or a variable (ptxas: \"Immediate addresses allowed only for .local state space\")"),
            );
            return operand::resolve_all(cx, i);
        }
    }
    // Rule check/uni-modifier (PTX ISA 9.7.12, Thread Divergence): `.uni` exists on bra, brx.idx, call and ret only.
    // (`vote.uni` is a vote mode, not this modifier.)
    if !matches!(spec.form, Form::Bra | Form::Brx | Form::Call | Form::Ret | Form::Vote) {
        if let Some(&s) = d.uni.first() {
            cx.emit(
                Diagnostic::error("check/uni-modifier", s, format!("`.uni` is not a modifier of `{}`", i.opcode.text))
                    .with_label("illegal modifier")
                    .with_note("rule check/uni-modifier (PTX ISA 9.7.12): only `bra`, `brx.idx`, `call` and `ret` take `.uni`"),
            );
            // A typed row's grammar would report the same `.uni` again.
            if spec.typed {
                return operand::resolve_all(cx, i);
            }
        }
    }
    gates(cx, i, spec, &d);
    operand::special_operands(cx, i, &d);
    if !sink::check(cx, i) {
        return operand::resolve_all(cx, i);
    }
    if spec.typed {
        return insn::typed(cx, i);
    }
    match spec.form {
        Form::Tensor => tensor::tensor(cx, i, &d),
        Form::Typed => insn::typed(cx, i),
        Form::Loose => operand::resolve_all(cx, i),
        _ => typed::typed(cx, i, &d, spec),
    }
}

/// Feature gates that depend on the opcode, its modifiers and its types.
/// Several can apply to one instruction; each is reported.
fn gates(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, spec: &Spec, d: &Decoded<'_>) {
    let mut fs: SmallVec<[Feature; 2]> = SmallVec::new();
    // The opcode's own gate (its row), then those of its modifiers and types.
    fs.extend(spec.gate);
    if spec.form == Form::Lop3 && d.boolop.is_some() {
        fs.push(Feature::Lop3BoolOp);
    }
    let span = i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span));
    for f in fs {
        cx.require(f, span);
    }
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
