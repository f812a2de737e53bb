//! Warnings for constructs that are legal but undefined at run time, where
//! static analysis can see them (PTX ISA 9.7.12.4, 9.7.12.5, 9.7.12 Thread
//! Divergence):
//!
//! - `check/brx-index-out-of-range`: a constant `brx.idx` index at or past
//!   the end of its `.branchtargets` list ("Behaviour is undefined if the
//!   value of index is greater than or equal to the length of tlist").
//! - `check/uni-divergent`: a `.uni` branch, `brx.idx` or call whose guard,
//!   index or target is thread-dependent according to
//!   `ptxsim_analysis::uniformity` (`.uni` promises non-divergence).
//! - `check/prototype-unmatched`: a call through a `.callprototype` that no
//!   function of the module matches ("If a function that doesn't match the
//!   prototype is called, the behavior is undefined").
//!
//! These are warnings, never errors: ptxas accepts all three.

use crate::ctx::{Ctx, ParamSig};
use crate::types::arg_fits;
use ptxsim_analysis::uniformity::CauseStep;
use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Uniformity};
use ptxsim_syntax::ast::{Function, FunctionKind};
use ptxsim_syntax::{Diagnostic, Span};

pub fn brx_constant_index(cx: &mut Ctx<'_, '_>, span: Span, index: u64, len: usize, decl: Span) {
    if index >= len as u64 {
        cx.emit(
            Diagnostic::warning("check/brx-index-out-of-range", span, format!("constant index {} is past the end of a {len}-entry `.branchtargets` list", index as i64))
                .with_label("undefined behaviour when executed")
                .with_secondary(decl, format!("`.branchtargets` with {len} labels declared here"))
                .with_note("rule check/brx-index-out-of-range (PTX ISA 9.7.12.4 brx.idx): \"Behaviour is undefined if the value of index is greater than or equal to the length of tlist\""),
        );
    }
}

fn sig_matches(a: &[ParamSig<'_>], b: &[ParamSig<'_>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, f)| match (p.ty, f.ty) {
            (Some(pt), Some(ft)) => p.elems == f.elems && arg_fits(pt, ft) && p.vector == f.vector,
            _ => true,
        })
}

pub fn prototype_unmatched(cx: &mut Ctx<'_, '_>, span: Span, decl: Span, returns: &[ParamSig<'_>], params: &[ParamSig<'_>]) {
    let any = cx.all_sigs.iter().any(|(kind, r, p)| *kind == FunctionKind::Func && sig_matches(returns, r) && sig_matches(params, p));
    if !any {
        cx.emit(
            Diagnostic::warning("check/prototype-unmatched", span, "no function of this module matches this call prototype")
                .with_label("whatever this call reaches, its signature differs from the prototype")
                .with_secondary(decl, "`.callprototype` declared here")
                .with_note("rule check/prototype-unmatched (PTX ISA 9.7.12.5 call): \"If a function that doesn't match the prototype is called, the behavior is undefined\"; unless the target comes from another module, this call is undefined"),
        );
    }
}

fn step(c: &CauseStep) -> (Option<usize>, String) {
    match c {
        CauseStep::Data { reg, instr, from } => (Some(*instr), format!("`{reg}` is computed from the thread-dependent `{from}` here")),
        CauseStep::Guard { reg, instr, pred } => (Some(*instr), format!("`{reg}` is written under the thread-dependent guard `{pred}` here")),
        CauseStep::Source { reg, instr, what } => (Some(*instr), format!("`{reg}` reads {what} here")),
        CauseStep::Param { reg } => (None, format!("`{reg}` is a parameter of a device function, which callers may pass per thread")),
        CauseStep::Sync { reg, join, .. } => (Some(*join), format!("`{reg}` merges here after a divergent branch")),
        CauseStep::Temporal { reg, exit, .. } => (Some(*exit), format!("`{reg}` is read after this loop exit, which threads may reach in different iterations")),
        CauseStep::Truncated => (None, "...".into()),
    }
}

/// Warns about `.uni` control flow that the uniformity analysis finds divergent.
pub fn uniformity(cx: &mut Ctx<'_, '_>, f: &Function<'_>) {
    let Some(flat) = FlatFunction::new(f) else { return };
    let fa = FunctionAnalysis::new(&flat);
    let u = Uniformity::new(&flat, &fa);
    for v in &u.verdicts {
        if !(v.uni && v.divergent) {
            continue;
        }
        let Some(i) = flat.instrs.get(v.instr) else { continue };
        let by = v.decided_by.clone().unwrap_or_else(|| "its operands".into());
        let mut d = Diagnostic::warning("check/uni-divergent", i.span, format!("`{}` is marked `.uni`, but `{by}` may differ between the threads of a warp", super_opname(i)))
            .with_label("`.uni` promises that every active thread takes the same path")
            .with_note("rule check/uni-divergent (PTX ISA 9.7.12.3 bra, 9.7.12 Thread Divergence): a `.uni` instruction whose guard, index or target differs between threads is undefined");
        for c in v.cause.iter().take(6) {
            match step(c) {
                (Some(k), msg) => {
                    if let Some(at) = flat.instrs.get(k) {
                        d = d.with_secondary(at.span, msg);
                    }
                }
                (None, msg) => d = d.with_note(format!("why: {msg}")),
            }
        }
        cx.emit(d);
    }
}

fn super_opname(i: &ptxsim_syntax::ast::Instruction<'_>) -> String {
    crate::rules::opname(i)
}
