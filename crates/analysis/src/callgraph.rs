//! The call graph of a module: for each function, its call sites and their
//! callees: direct calls by name, indirect calls through an `flist` (a
//! `.calltargets` list or a jump table: a `.global`/`.const` array
//! initialised with function names), and indirect calls through a
//! `.callprototype` (any address-taken function may be called; listed as
//! candidates).

use crate::flat::FlatFunction;
use ptxsim_syntax::ast::{Expr, Init, Item, Module, OperandKind};
use std::collections::{BTreeSet, HashMap};

/// The callees of one `call`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callees {
    Direct(String),
    /// Through an `flist`: a `.calltargets` list, or a jump table (the
    /// functions named in its initialiser, in order).
    Targets(Vec<String>),
    /// Through a `.callprototype`: the address-taken functions are candidates.
    Prototype { candidates: std::sync::Arc<[String]> },
    /// The target could not be resolved.
    Unknown,
}

#[derive(Clone, Debug)]
pub struct CallSite {
    pub instr: usize,
    pub callees: Callees,
}

/// Calls made by each function of a module, in module order.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    pub functions: Vec<(String, Vec<CallSite>)>,
    /// Functions whose address is taken (jump tables, `mov`).
    pub address_taken: Vec<String>,
}

impl CallGraph {
    pub fn new(m: &Module<'_>) -> CallGraph {
        let funcs: BTreeSet<&str> = m
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Function(f) => Some(f.name.text),
                _ => None,
            })
            .collect();
        let mut taken = BTreeSet::new();
        // Jump tables: variables whose initialiser names functions.
        let mut tables: HashMap<&str, Vec<String>> = HashMap::new();
        let table = |init: &Init<'_>, taken: &mut BTreeSet<String>| -> Option<Vec<String>> {
            let mut listed = Vec::new();
            init_names(init, &funcs, &mut listed);
            taken.extend(listed.iter().cloned());
            (!listed.is_empty()).then_some(listed)
        };
        for it in &m.items {
            match it {
                Item::Var(v) => {
                    for d in &v.declarators {
                        if let Some(init) = &d.init {
                            if let Some(l) = table(init, &mut taken) {
                                tables.insert(d.name.text, l);
                            }
                        }
                    }
                }
                Item::Function(f) => {
                    if let Some(flat) = FlatFunction::new(f) {
                        for i in &flat.instrs {
                            if ptxsim_isa::flow(i.opcode.text) == ptxsim_isa::Flow::Call {
                                continue;
                            }
                            for o in &i.operands {
                                if let OperandKind::Name { name, .. } = &o.kind {
                                    if funcs.contains(name.text) {
                                        taken.insert(name.text.to_string());
                                    }
                                }
                            }
                        }
                        for (v, _) in &flat.vars {
                            for d in &v.declarators {
                                if let Some(init) = &d.init {
                                    if let Some(l) = table(init, &mut taken) {
                                        tables.insert(d.name.text, l);
                                    }
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let address_taken: Vec<String> = taken.into_iter().collect();
        // Shared by every prototype call site (a copy per site is quadratic).
        let candidates: std::sync::Arc<[String]> = address_taken.clone().into();
        let mut functions = Vec::new();
        for it in &m.items {
            let Item::Function(f) = it else { continue };
            let Some(flat) = FlatFunction::new(f) else {
                continue;
            };
            let mut sites = Vec::new();
            for (k, i) in flat.instrs.iter().enumerate() {
                if ptxsim_isa::flow(i.opcode.text) != ptxsim_isa::Flow::Call {
                    continue;
                }
                let names: Vec<&str> = i
                    .operands
                    .iter()
                    .filter_map(|o| match &o.kind {
                        OperandKind::Name { name, .. } => Some(name.text),
                        _ => None,
                    })
                    .collect();
                let callees = match names.first() {
                    Some(n) if funcs.contains(n) => Callees::Direct(n.to_string()),
                    Some(_) => match names.get(1) {
                        Some(l) if flat.call_targets.contains_key(l) => Callees::Targets(
                            flat.call_targets[l].iter().map(|n| n.text.to_string()).collect(),
                        ),
                        Some(l) if tables.contains_key(l) => Callees::Targets(tables[l].clone()),
                        Some(l) if flat.prototypes.contains_key(l) => {
                            Callees::Prototype { candidates: candidates.clone() }
                        }
                        _ => Callees::Unknown,
                    },
                    None => Callees::Unknown,
                };
                sites.push(CallSite { instr: k, callees });
            }
            functions.push((f.name.text.to_string(), sites));
        }
        CallGraph { functions, address_taken }
    }
}

/// The function names in an initialiser, in order.
fn init_names(i: &Init<'_>, funcs: &BTreeSet<&str>, out: &mut Vec<String>) {
    match i {
        Init::Expr(e) => expr_names(e, funcs, out),
        Init::List(l, _) => {
            for x in l {
                init_names(x, funcs, out);
            }
        }
    }
}

fn expr_names(e: &Expr<'_>, funcs: &BTreeSet<&str>, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) | Expr::Generic(n, _) if funcs.contains(n.text) => out.push(n.text.to_string()),
        Expr::Unary(_, a, _) | Expr::Mask(_, a, _) => expr_names(a, funcs, out),
        Expr::Binary(_, a, b, _) => {
            expr_names(a, funcs, out);
            expr_names(b, funcs, out);
        }
        Expr::Cond(c, a, b, _) => {
            expr_names(c, funcs, out);
            expr_names(a, funcs, out);
            expr_names(b, funcs, out);
        }
        _ => {}
    }
}
