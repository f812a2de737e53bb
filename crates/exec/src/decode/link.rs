//! Linking separately compiled modules, as nvlink does: the symbol table
//! of several modules' `.visible`, `.weak` and `.extern` functions and
//! `.global`/`.const` variables, and the errors nvlink reports, each naming
//! both files and lines:
//!
//! - two `.visible` definitions of one name ("Multiple definition"); a
//!   `.visible` definition wins over `.weak` ones, the first `.weak` one
//!   over later ones;
//! - a called `.extern` function, or an `.extern` variable, that no module
//!   defines ("Undefined reference"), CUDA system calls aside;
//! - an `.extern` function declaration whose parameters or return values
//!   differ in number, type, vector size or array size from the definition
//!   ("Prototype doesn't match");
//! - an `.extern` variable whose size differs from the definition's ("Size
//!   doesn't match"; the element type may differ, as for nvlink);
//! - an `.extern .func` that another module defines as a kernel, `.entry`
//!   ("Function not declared __global__ in all source files").
//!
//! Module-local names (no linkage directive) never meet across modules.
//! `tests/link/verdicts.tsv` records nvlink 13.5 on the cases of
//! `crates/exec/tests/all/link.rs`.

use super::{var_size, Unit};
use ptxsim_syntax::ast::{self, Item, Linkage, StateSpace};
use std::collections::HashMap;

/// Where a symbol is declared: the unit and its 1-based line.
#[derive(Clone, Copy)]
struct At {
    unit: usize,
    line: u32,
}

fn linkage<T>(l: Option<ast::Spanned<T>>) -> Option<T> {
    l.map(|l| l.value)
}

/// A parameter list as nvlink compares it: each parameter's state space,
/// type, vector size and array dimensions, as written.
fn proto(ps: Option<&Vec<ast::Param<'_>>>) -> Vec<String> {
    ps.map(|v| {
        v.iter()
            .map(|p| {
                let dims: Vec<String> = p.dims.iter().map(|d| d.map(|x| x.value.to_string()).unwrap_or_default()).collect();
                let v = p.vector.map(|x| format!(" .v{}", x.value)).unwrap_or_default();
                let d: String = dims.iter().map(|x| format!("[{x}]")).collect();
                format!("{}{v} {}{d}", p.space.value.as_str(), p.ty.value.as_str())
            })
            .collect()
    })
    .unwrap_or_default()
}

/// The first parameter (or return value) where a declaration differs from
/// the definition, in words; `None` when they agree.
fn first_difference((what, decl, def): (&str, &[String], &[String])) -> Option<String> {
    if decl.len() != def.len() {
        return Some(format!("{} {what}(s) declared, {} defined", decl.len(), def.len()));
    }
    let k = decl.iter().zip(def).position(|(a, b)| a != b)?;
    Some(format!("{what} {} is `{}` in the declaration and `{}` in the definition", k + 1, decl[k], def[k]))
}

/// Checks the link of `units`; `called[u]` lists the `.extern` functions
/// unit `u` calls without defining them, with the call's line (from the
/// checker). Returns every problem found, one per line.
pub(crate) fn check(units: &[Unit<'_, '_>], called: &[Vec<(String, u32)>]) -> Result<(), String> {
    let at = |a: At| format!("{}:{}", units[a.unit].name, a.line);
    let mut errors: Vec<String> = Vec::new();
    // Function definitions: name -> (where, weak, returns, params).
    let mut fdefs: HashMap<&str, (At, bool, Vec<String>, Vec<String>)> = HashMap::new();
    // Kernels (`.entry`) with linkage: name -> where.
    let mut entries: HashMap<&str, At> = HashMap::new();
    // Variable definitions: name -> (where, weak, size in bytes).
    let mut vdefs: HashMap<&str, (At, bool, Option<u64>)> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        for item in &unit.ast.items {
            match item {
                Item::Function(f) if f.body.is_some() => {
                    let weak = match linkage(f.linkage) {
                        Some(Linkage::Visible) => false,
                        Some(Linkage::Weak) | Some(Linkage::Common) => true,
                        _ => continue,
                    };
                    let here = At { unit: u, line: unit.lines.line(f.name.span.start) };
                    if f.kind == ast::FunctionKind::Entry {
                        entries.entry(f.name.text).or_insert(here);
                    }
                    let def = (here, weak, proto(f.returns.as_ref()), proto(f.params.as_ref()));
                    match fdefs.get(f.name.text) {
                        Some((first, false, ..)) if !weak => errors.push(format!(
                            "`{}` is defined twice: at {} and at {} (both `.visible`; nvlink: Multiple definition)",
                            f.name.text,
                            at(*first),
                            at(here)
                        )),
                        Some((_, true, ..)) if !weak => {
                            fdefs.insert(f.name.text, def);
                        }
                        Some(_) => {}
                        None => {
                            fdefs.insert(f.name.text, def);
                        }
                    }
                }
                Item::Var(v) if matches!(v.space.value, StateSpace::Global | StateSpace::Const) => {
                    let weak = match linkage(v.linkage) {
                        Some(Linkage::Visible) => false,
                        Some(Linkage::Weak) | Some(Linkage::Common) => true,
                        _ => continue,
                    };
                    for d in &v.declarators {
                        let here = At { unit: u, line: unit.lines.line(d.span.start) };
                        let n = d.init.as_ref().map(super::init_count);
                        let size = var_size(&v.ty.value, v.vector.map(|x| x.value), &d.dims, n).ok();
                        match vdefs.get(d.name.text) {
                            Some((first, false, _)) if !weak => errors.push(format!(
                                "`{}` is defined twice: at {} and at {} (both `.visible`; nvlink: Multiple definition)",
                                d.name.text,
                                at(*first),
                                at(here)
                            )),
                            Some((_, true, _)) if !weak => {
                                vdefs.insert(d.name.text, (here, weak, size));
                            }
                            Some(_) => {}
                            None => {
                                vdefs.insert(d.name.text, (here, weak, size));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for (u, unit) in units.iter().enumerate() {
        let has_body = |name: &str| unit.ast.items.iter().any(|i| matches!(i, Item::Function(g) if g.name.text == name && g.body.is_some()));
        for item in &unit.ast.items {
            match item {
                Item::Function(f) if f.body.is_none() && linkage(f.linkage) == Some(Linkage::Extern) && !has_body(f.name.text) => {
                    let here = At { unit: u, line: unit.lines.line(f.name.span.start) };
                    if let Some(k) = entries.get(f.name.text) {
                        errors.push(format!(
                            "`{}` is declared `.extern .func` at {}, but {} defines it as a kernel (`.entry`), which cannot be called (nvlink: Function not declared __global__ in all source files)",
                            f.name.text,
                            at(here),
                            at(*k)
                        ));
                        continue;
                    }
                    match fdefs.get(f.name.text) {
                        Some((def, _, rets, params)) => {
                            let (r, p) = (proto(f.returns.as_ref()), proto(f.params.as_ref()));
                            if let Some(diff) = first_difference(("return value", &r, rets)).or_else(|| first_difference(("parameter", &p, params))) {
                                errors.push(format!(
                                    "`{}` is declared at {} and defined at {} with different prototypes: {diff} (nvlink: Prototype doesn't match)",
                                    f.name.text,
                                    at(here),
                                    at(*def)
                                ));
                            }
                        }
                        None => {
                            if let Some((_, line)) = called[u].iter().find(|c| c.0 == f.name.text) {
                                errors.push(format!(
                                    "`{}` is called at {}:{line} and declared `.extern` at {}, but no module given defines it (`.visible` or `.weak`; nvlink: Undefined reference)",
                                    f.name.text,
                                    unit.name,
                                    at(here)
                                ));
                            }
                        }
                    }
                }
                Item::Var(v) if matches!(v.space.value, StateSpace::Global | StateSpace::Const) && linkage(v.linkage) == Some(Linkage::Extern) => {
                    for d in &v.declarators {
                        let here = At { unit: u, line: unit.lines.line(d.span.start) };
                        let defined_here = unit.ast.items.iter().any(|i| {
                            matches!(i, Item::Var(w) if linkage(w.linkage) != Some(Linkage::Extern) && w.declarators.iter().any(|e| e.name.text == d.name.text))
                        });
                        if defined_here {
                            continue;
                        }
                        match vdefs.get(d.name.text) {
                            Some((def, _, size)) => {
                                let mine = if d.dims.first().is_some_and(|x| x.is_none()) { None } else { var_size(&v.ty.value, v.vector.map(|x| x.value), &d.dims, None).ok() };
                                if let (Some(a), Some(b)) = (mine, size) {
                                    if a != *b {
                                        errors.push(format!(
                                            "`{}` is declared `.extern` at {} with {a} bytes, but its definition at {} has {b} bytes (nvlink: Size doesn't match)",
                                            d.name.text,
                                            at(here),
                                            at(*def)
                                        ));
                                    }
                                }
                            }
                            None => errors.push(format!(
                                "`{}` is declared `.extern` at {}, but no module given defines it (`.visible` or `.weak`; nvlink: Undefined reference)",
                                d.name.text,
                                at(here)
                            )),
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}
