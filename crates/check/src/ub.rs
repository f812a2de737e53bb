//! Warnings for constructs that are legal but undefined at run time, where
//! static analysis can see them (PTX ISA 9.7.12.4, 9.7.12.5, 9.7.12 Thread
//! Divergence):
//!
//! - `check/brx-index-out-of-range`: a constant `brx.idx` index at or past
//!   the end of its `.branchtargets` list ("Behaviour is undefined if the
//!   value of index is greater than or equal to the length of tlist").
//! - `check/uni-divergent`: a `.uni` branch, `brx.idx` or call whose guard,
//!   index or target is thread-dependent according to
//!   `ptxsim_analysis::uniformity` (`.uni` promises non-divergence); the
//!   warning is built by `ptxsim_analysis::report`, which `ptxsim cfg` uses too.
//! - `check/prototype-unmatched`: a call through a `.callprototype` that no
//!   function of the module matches ("If a function that doesn't match the
//!   prototype is called, the behavior is undefined").
//!
//! These are warnings, never errors: ptxas accepts all three.

use crate::ctx::{Ctx, ParamSig};
use crate::types::arg_fits;
use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Uniformity};
use ptxsim_syntax::ast::{Block, Function, FunctionKind, Param};
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

fn sig_matches(a: &[ParamSig<'_>], b: Option<&Vec<Param<'_>>>) -> bool {
    let b = b.map_or(&[][..], Vec::as_slice);
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, f)| {
            let f = ParamSig::from_param(f);
            match (p.ty, f.ty) {
                (Some(pt), Some(ft)) => p.elems == f.elems && arg_fits(pt, ft) && p.vector == f.vector,
                _ => true,
            }
        })
}

pub fn prototype_unmatched(cx: &mut Ctx<'_, '_>, span: Span, decl: Span, returns: &[ParamSig<'_>], params: &[ParamSig<'_>]) {
    let any = cx.headers.iter().any(|f| f.kind == FunctionKind::Func && sig_matches(returns, f.returns.as_ref()) && sig_matches(params, f.params.as_ref()));
    if !any {
        cx.emit(
            Diagnostic::warning("check/prototype-unmatched", span, "no function of this module matches this call prototype")
                .with_label("whatever this call reaches, its signature differs from the prototype")
                .with_secondary(decl, "`.callprototype` declared here")
                .with_note("rule check/prototype-unmatched (PTX ISA 9.7.12.5 call): \"If a function that doesn't match the prototype is called, the behavior is undefined\"; unless the target comes from another module, this call is undefined"),
        );
    }
}

/// Warns about `.uni` control flow that the uniformity analysis finds
/// divergent in `body`, the body of `f`; the warning itself is built in one
/// place, `ptxsim_analysis::report::uni_divergent_warning`. The analysis
/// reads a whole function: when `f.body` is not `body` (an outline's header
/// and a body parsed on its own), the two are put together in a copy.
pub fn uniformity<'a>(cx: &mut Ctx<'_, '_>, f: &Function<'a>, body: &Block<'a>) {
    let whole;
    let f = if f.body.as_ref().is_some_and(|b| std::ptr::eq(b, body)) {
        f
    } else {
        whole = Function { body: Some(body.clone()), ..f.clone() };
        &whole
    };
    let Some(flat) = FlatFunction::new(f) else { return };
    let fa = FunctionAnalysis::new(&flat);
    let u = Uniformity::new(&flat, &fa);
    for v in &u.verdicts {
        if let Some(d) = ptxsim_analysis::report::uni_divergent_warning(&flat, v) {
            cx.emit(d);
        }
    }
}
