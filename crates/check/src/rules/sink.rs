//! Rule `check/sink`: where the sink symbol `_` may stand.
//!
//! The manual lets a few instructions discard a result by writing `_` in
//! its place (PTX ISA 9.7.3 setp, 9.7.13.5 atom, 9.7.13.15 mbarrier.arrive,
//! 9.7.13 match.sync and elect.sync, 9.7.9.6 shfl.sync's predicate, 9.7.1
//! lop3, and elements of a destination vector). What ptxas 12.9 accepts was
//! measured for every instruction form ptxsim knows, one module per form
//! and `_` position (`scripts/sweep_sink.py`, results in
//! `tests/check/sink_sweep.tsv`); this rule is that measurement:
//!
//! - `_` as the whole first operand: `setp`, `atom`, `lop3`,
//!   `match.all.sync`, and `mbarrier.arrive`/`arrive_drop` (the state).
//!   Anywhere else ptxas says "Result discard mode is not allowed for
//!   instruction 'add'" (also where the first operand is not a result:
//!   `st`, `red`, `bar`, ...).
//! - `_` as a half of a first-operand pair `d|p`: either half for `setp`
//!   and `match.all.sync`; only the predicate `p` for `shfl`; only `d` for
//!   `elect.sync` and `lop3` ("Predicate output expected"). `_|_` is a
//!   parse error everywhere.
//! - `_` as an element of a first-operand vector (`ld.v4 {a, _, c, _}`,
//!   `mov.b64 {lo, _}`, `mma`/`ldmatrix`/`tex` results): allowed when at
//!   least one element is a register ("Unable to infer type of vector
//!   elements" otherwise); as a `call` return (`call (_), f, (a)`): allowed.
//! - `_` anywhere else is a source: a parse error for ptxas as a whole
//!   operand, "Sink '_' not allowed as a source operand" in a vector, and
//!   "Illegal argument for formal parameter" as a `call` argument.
//!
//! One deliberate difference: ptxas 12.9 (and 11.8, 12.4) accept
//! `red.shared.add.u32 _, %r` (a sink for `red`'s address) and crash on the
//! same with `.global` or generic addressing; ptxsim rejects both, as `red`
//! has no result and `_` is no address.

use super::opname;
use crate::ctx::Ctx;
use ptxsim_isa::{Insn, MatchMode, MbarrierOp, Opcode};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/sink (PTX ISA 9.7.3 setp, 9.7.13.5 atom, 9.7.13.15 mbarrier.arrive, 9.7.13 match.sync/elect.sync, 9.7.9.6 shfl.sync, 9.7.1 lop3): the sink `_` discards a result where the instruction allows it (the whole result of setp, atom, lop3, match.all.sync and mbarrier.arrive; one half of setp's and match.all's `p|q`; shfl's predicate; elect's and lop3's value; elements of a destination vector; a call's return); it is never a source";

/// Where `_` may stand in an instruction's first operand.
struct Allowed {
    whole: bool,
    first_half: bool,
    second_half: bool,
}

fn allowed(i: &Instruction<'_>) -> Allowed {
    let (whole, first_half, second_half) = match Opcode::of_insn(i) {
        Some(Opcode::Setp) => (true, true, true),
        Some(Opcode::Atom) => (true, false, false),
        Some(Opcode::Lop3) => (true, true, false),
        // The typed warp rows and `mbarrier`, by their decoded fields (a row whose
        // modifiers do not decode allows no `_`; its grammar error is
        // reported too).
        _ => match ptxsim_isa::decode(i) {
            Ok(Insn::Match { mode: MatchMode::All, .. }) => (true, true, true),
            Ok(Insn::Shfl { .. }) => (false, false, true),
            Ok(Insn::Elect { .. }) => (false, true, false),
            // `mbarrier.arrive`/`arrive_drop`'s state (its first operation).
            Ok(Insn::Mbarrier { op: [Some(MbarrierOp::Arrive | MbarrierOp::ArriveDrop), _], .. }) => (true, false, false),
            _ => (false, false, false),
        },
    };
    Allowed { whole, first_half, second_half }
}

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/sink", span, msg).with_label(label.to_string()).with_note(NOTE));
}

/// Whether an operand is the sink.
fn is_sink(o: &Operand<'_>) -> bool {
    matches!(o.kind, OperandKind::Sink)
}

/// Checks every `_` of an instruction; false when one is misplaced.
pub fn check(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) -> bool {
    let mut ok = true;
    for (k, o) in i.operands.iter().enumerate() {
        ok &= if k == 0 { first(cx, i, o) } else { source(cx, i, o) };
    }
    ok
}

/// The first operand, the result of every instruction that has one.
fn first(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, o: &Operand<'_>) -> bool {
    // Where `_` may stand is asked only when one is written.
    let a = match &o.kind {
        OperandKind::Sink => allowed(i),
        OperandKind::PredPair(p, q) if p.text == "_" || q.text == "_" => allowed(i),
        _ => Allowed { whole: false, first_half: false, second_half: false },
    };
    match &o.kind {
        OperandKind::Sink if !a.whole => {
            err(cx, o.span, format!("result discard mode (`_`) is not allowed for `{}`", opname(i)), "`_` cannot stand here");
            false
        }
        OperandKind::Sink => true,
        OperandKind::PredPair(p, q) => {
            let (ps, qs) = (p.text == "_", q.text == "_");
            if ps && qs {
                err(cx, o.span, format!("`_|_` discards both results of `{}`", opname(i)), "at most one half of `d|p` may be `_`");
                false
            } else if ps && !a.first_half {
                err(cx, p.span, format!("result discard mode (`_`) is not allowed for the first result of `{}`", opname(i)), "`_` cannot stand here");
                false
            } else if qs && !a.second_half {
                err(cx, q.span, format!("the predicate output of `{}` cannot be `_`", opname(i)), "a predicate register is expected");
                false
            } else {
                true
            }
        }
        OperandKind::Vector(els) if !els.is_empty() && els.iter().all(is_sink) => {
            err(cx, o.span, format!("every element of the vector in `{}` is `_`", opname(i)), "at least one element must be a register");
            false
        }
        OperandKind::Vector(els) => nested_sources(cx, i, els, true),
        OperandKind::List(_) => true,
        _ => source(cx, i, o),
    }
}

/// An operand read by the instruction: `_` may appear nowhere in it.
fn source(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, o: &Operand<'_>) -> bool {
    match &o.kind {
        OperandKind::Sink => {
            err(cx, o.span, format!("`_` is not a source operand of `{}`", opname(i)), "the sink `_` only discards results");
            false
        }
        OperandKind::PredPair(p, q) => {
            let s = [p, q].into_iter().find(|n| n.text == "_");
            if let Some(n) = s {
                err(cx, n.span, format!("`_` is not a source operand of `{}`", opname(i)), "the sink `_` only discards results");
            }
            s.is_none()
        }
        OperandKind::Vector(els) | OperandKind::Bracket(els) => nested_sources(cx, i, els, false),
        OperandKind::List(els) => {
            let s = els.iter().find(|e| is_sink(e));
            if let Some(e) = s {
                err(cx, e.span, format!("`_` is not an argument of `{}`", opname(i)), "a call argument is a value");
            }
            s.is_none()
        }
        _ => true,
    }
}

/// The elements of a vector or bracket list; in a result vector `_` may
/// stand for an element.
fn nested_sources(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, els: &[Operand<'_>], result: bool) -> bool {
    let mut ok = true;
    for e in els {
        if result && is_sink(e) {
            continue;
        }
        ok &= source(cx, i, e);
    }
    ok
}
