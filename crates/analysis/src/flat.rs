//! Linearisation of a function body: nested `{}` blocks flattened into one
//! instruction sequence, with labels resolved to instruction indices.
//!
//! This numbering is shared by every later stage (CFG, reconvergence, the
//! engine's decoder, the SASS lowering), so an instruction index means the same
//! thing everywhere. Declarations, `.loc`, `.pragma` and the `.branchtargets` /
//! `.calltargets` / `.callprototype` directives are not instructions; the
//! directives are collected by label name.
//!
//! Labels are scoped like variables: a branch names the label of that name
//! in its own `{}` block or the nearest enclosing one ([`FlatFunction::label_at`]),
//! so blocks may reuse label names (the spin loops of CUDA's inline
//! assembly, `LAB_WAIT: ... bra DONE; ... DONE:` in each of their blocks).

use ptxsim_syntax::ast::{Block, Function, Instruction, Name, Param, Statement, VarDecl};
use std::collections::HashMap;

/// The labels declared directly in one `{}` block.
#[derive(Debug, Default)]
pub struct LabelScope<'a> {
    /// The enclosing block (`None` for the function body, scope 0).
    pub parent: Option<u32>,
    /// Each label of the block and the index of the instruction it precedes.
    pub labels: HashMap<&'a str, usize>,
}

/// One function body, flattened.
#[derive(Debug)]
pub struct FlatFunction<'f, 'a> {
    pub func: &'f Function<'a>,
    /// The instructions in execution order.
    pub instrs: Vec<&'f Instruction<'a>>,
    /// For each label name, the index of the instruction its first
    /// definition precedes (`instrs.len()` for a label at the very end of
    /// the body); a branch resolves through [`Self::label_at`] instead.
    pub labels: HashMap<&'a str, usize>,
    /// The labels of each `{}` block; scope 0 is the function body.
    pub scopes: Vec<LabelScope<'a>>,
    /// For each instruction, the scope (block) it is written in.
    pub instr_scope: Vec<u32>,
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
            scopes: vec![LabelScope::default()],
            instr_scope: Vec::new(),
            label_names: Vec::new(),
            branch_targets: HashMap::new(),
            call_targets: HashMap::new(),
            prototypes: HashMap::new(),
            vars: Vec::new(),
        };
        f.walk(body, 1, 0);
        Some(f)
    }

    fn walk(&mut self, b: &'f Block<'a>, depth: u32, scope: u32) {
        for s in &b.stmts {
            match s {
                Statement::Instr(i) => {
                    self.instrs.push(i);
                    self.instr_scope.push(scope);
                }
                Statement::Label(n) => {
                    // The first definition wins (in the block and in
                    // `labels`); duplicates are the checker's to report.
                    self.labels.entry(n.text).or_insert(self.instrs.len());
                    self.scopes[scope as usize].labels.entry(n.text).or_insert(self.instrs.len());
                    self.label_names.push(*n);
                }
                Statement::Block(inner) => {
                    let id = self.scopes.len() as u32;
                    self.scopes.push(LabelScope { parent: Some(scope), labels: HashMap::new() });
                    self.walk(inner, depth + 1, id);
                }
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

    /// The instruction index of the first label named `name`, wherever it
    /// is (for a name seen from no particular instruction).
    pub fn label(&self, name: &str) -> Option<usize> {
        self.labels.get(name).copied()
    }

    /// The instruction index `name` resolves to when instruction `at` names
    /// it: the label of that name in `at`'s block or the nearest enclosing
    /// block that has one (forward references included); labels of nested
    /// blocks are not visible.
    pub fn label_at(&self, name: &str, at: usize) -> Option<usize> {
        let mut scope = self.instr_scope.get(at).copied();
        while let Some(s) = scope {
            let sc = &self.scopes[s as usize];
            if let Some(&t) = sc.labels.get(name) {
                return Some(t);
            }
            scope = sc.parent;
        }
        None
    }

    /// The index of every label's instruction, in every block.
    pub fn label_targets(&self) -> impl Iterator<Item = usize> + '_ {
        self.scopes.iter().flat_map(|s| s.labels.values().copied())
    }
}
