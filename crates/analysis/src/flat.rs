//! Linearisation of a function body: nested `{}` blocks flattened into one
//! instruction sequence, with labels resolved to instruction indices.
//!
//! This numbering is shared by every later stage (CFG, reconvergence, the
//! engine's decoder, the SASS lowering), so an instruction index means the same
//! thing everywhere. Declarations, `.loc`, `.pragma` and the `.branchtargets` /
//! `.calltargets` / `.callprototype` directives are not instructions; the
//! directives are collected by label name.

use ptxsim_syntax::ast::{Block, Function, Instruction, Name, Param, Statement, VarDecl};
use std::collections::HashMap;

/// One function body, flattened.
#[derive(Debug)]
pub struct FlatFunction<'f, 'a> {
    pub func: &'f Function<'a>,
    /// The instructions in execution order.
    pub instrs: Vec<&'f Instruction<'a>>,
    /// For each label, the index of the instruction it precedes
    /// (`instrs.len()` for a label at the very end of the body).
    pub labels: HashMap<&'a str, usize>,
    /// Where each label was written, for diagnostics.
    pub label_names: Vec<Name<'a>>,
    /// `.branchtargets` lists by label.
    pub branch_targets: HashMap<&'a str, &'f [Name<'a>]>,
    /// `.calltargets` lists by label.
    pub call_targets: HashMap<&'a str, &'f [Name<'a>]>,
    /// `.callprototype` directives by label: (returns, params).
    pub prototypes: HashMap<&'a str, (Option<&'f [Param<'a>]>, &'f [Param<'a>])>,
    /// Every local declaration, with the block depth it appears at (1 = function body).
    pub vars: Vec<(&'f VarDecl<'a>, u32)>,
}

impl<'f, 'a> FlatFunction<'f, 'a> {
    /// Flattens a function; `None` if it has no body.
    pub fn new(func: &'f Function<'a>) -> Option<FlatFunction<'f, 'a>> {
        let body = func.body.as_ref()?;
        let mut f = FlatFunction {
            func,
            instrs: Vec::new(),
            labels: HashMap::new(),
            label_names: Vec::new(),
            branch_targets: HashMap::new(),
            call_targets: HashMap::new(),
            prototypes: HashMap::new(),
            vars: Vec::new(),
        };
        f.walk(body, 1);
        Some(f)
    }

    fn walk(&mut self, b: &'f Block<'a>, depth: u32) {
        for s in &b.stmts {
            match s {
                Statement::Instr(i) => self.instrs.push(i),
                Statement::Label(n) => {
                    // The first definition wins; duplicates are the checker's to report.
                    self.labels.entry(n.text).or_insert(self.instrs.len());
                    self.label_names.push(*n);
                }
                Statement::Block(inner) => self.walk(inner, depth + 1),
                Statement::Var(v) => self.vars.push((v, depth)),
                Statement::BranchTargets { label, targets, .. } => {
                    self.branch_targets.entry(label.text).or_insert(targets);
                }
                Statement::CallTargets { label, targets, .. } => {
                    self.call_targets.entry(label.text).or_insert(targets);
                }
                Statement::CallPrototype { label, returns, params, .. } => {
                    self.prototypes.entry(label.text).or_insert((returns.as_deref(), params));
                }
                Statement::Pragma(_) | Statement::Loc(_) => {}
            }
        }
    }

    /// The instruction index a label resolves to.
    pub fn label(&self, name: &str) -> Option<usize> {
        self.labels.get(name).copied()
    }
}
