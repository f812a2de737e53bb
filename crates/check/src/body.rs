//! Function bodies: the scoped walk over `{}` blocks (rule
//! `check/label-scope`, `check/unknown-symbol`, `check/duplicate-definition`),
//! the `.branchtargets`, `.calltargets` and `.callprototype` directives (rules
//! `check/brx-tlist`, `check/call-indirect`, `check/directive-scope`), and the
//! dispatch of each instruction to its rule.

use crate::ctx::{Ctx, Frame, LabelKind, ParamSig, Sym, VarRole, VarSym};
use crate::isa::Feature;
use crate::module::declare_var;
use crate::rules;
use ptxsim_syntax::ast::{Block, Function, FunctionKind, Instruction, Operand, OperandKind, StateSpace, Statement};
use ptxsim_syntax::Diagnostic;

/// Checks `body`, the body of `f` (whose own `body` may be a stand-in, as
/// in an outline), the function `idx` of the function table.
pub fn check_function<'f, 'a>(cx: &mut Ctx<'f, 'a>, f: &'f Function<'a>, body: &'f Block<'a>, idx: usize) {
    cx.current = Some((idx, f.kind));
    // The parameters and the body's outermost declarations share one scope
    // (ptxas: "Duplicate definition of variable" for a body variable named
    // like a parameter); an inner `{ }` block may shadow them.
    let params = f.returns.iter().chain(&f.params).map(Vec::len).sum::<usize>();
    cx.frames.push(Frame::with_capacity(params));
    let input_role = if f.kind == FunctionKind::Entry { VarRole::KernelParam } else { VarRole::FuncParam };
    for (p, role) in f
        .returns
        .iter()
        .flatten()
        .map(|p| (p, VarRole::FuncReturn))
        .chain(f.params.iter().flatten().map(|p| (p, input_role)))
    {
        let sym = Sym::Var(VarSym { name: p.name, sig: ParamSig::from_param(p), role, decl: None, declarator: 0 });
        cx.declare(p.name, sym, "parameter");
    }
    let mut uni_seen = false;
    walk_block_in(cx, body, &mut uni_seen, false);
    cx.at = u32::MAX;
    cx.frames.pop();
    if uni_seen {
        crate::ub::uniformity(cx, f, body);
    }
    cx.current = None;
}

/// Whether the uniformity analysis could find `.uni` instruction `i`
/// divergent, so `ub::uniformity` must run: it decides guarded branches and
/// leaves, `brx.idx`, and calls by their guard and the registers they name
/// (a function pointer, `.reg` arguments). An unguarded `bra.uni`, or a
/// `call.uni` naming only functions and `.param` variables, as compilers
/// emit them everywhere, needs no analysis. A name not known here counts as
/// a register.
fn may_diverge(cx: &Ctx<'_, '_>, i: &Instruction<'_>) -> bool {
    fn names_register(cx: &Ctx<'_, '_>, ops: &[Operand<'_>]) -> bool {
        ops.iter().any(|o| match &o.kind {
            OperandKind::Name { name, .. } => match cx.lookup(name.text) {
                Some(Sym::Var(v)) => v.space() == StateSpace::Reg,
                Some(Sym::Func(_)) | Some(Sym::Label { .. }) => false,
                None => true,
            },
            OperandKind::List(l) => names_register(cx, l),
            OperandKind::Int(_) | OperandKind::Float(_) | OperandKind::Sink => false,
            _ => true,
        })
    }
    if i.guard.is_some() {
        return true;
    }
    match ptxsim_isa::flow(i.opcode.text) {
        ptxsim_isa::Flow::IndirectBranch => true,
        ptxsim_isa::Flow::Call => names_register(cx, &i.operands),
        _ => false,
    }
}

/// How many names the statements of `b` (not those of its inner blocks)
/// declare in its frame's name table: labels, and variables other than
/// `%r<N>` ranges.
fn names_declared(b: &Block<'_>) -> usize {
    b.stmts
        .iter()
        .map(|s| match s {
            Statement::Label(_) | Statement::BranchTargets { .. } | Statement::CallTargets { .. } | Statement::CallPrototype { .. } => 1,
            Statement::Var(v) => v.declarators.iter().filter(|d| d.count.is_none()).count(),
            _ => 0,
        })
        .sum()
}

fn walk_block<'f, 'a>(cx: &mut Ctx<'f, 'a>, b: &'f Block<'a>, uni_seen: &mut bool) {
    walk_block_in(cx, b, uni_seen, true)
}

/// Walks a block, in a scope of its own or (the function body) in the
/// parameters' scope.
fn walk_block_in<'f, 'a>(cx: &mut Ctx<'f, 'a>, b: &'f Block<'a>, uni_seen: &mut bool, own_scope: bool) {
    // The frame's name table sized once for what the block declares (its
    // labels and variables) rather than grown name by name.
    let names = names_declared(b);
    if own_scope {
        cx.frames.push(Frame::with_capacity(names));
    } else if let Some(top) = cx.frames.last_mut() {
        top.names.reserve(names);
    }
    // Labels are visible throughout their block (branches may go forward).
    for s in &b.stmts {
        let (name, kind) = match s {
            Statement::Label(n) => (*n, LabelKind::Plain),
            Statement::BranchTargets { label, targets, .. } => (*label, LabelKind::BranchTargets(targets)),
            Statement::CallTargets { label, targets, .. } => (*label, LabelKind::CallTargets(targets)),
            Statement::CallPrototype { label, returns, params, .. } => {
                (*label, LabelKind::CallPrototype { returns: returns.as_deref(), params })
            }
            _ => continue,
        };
        cx.declare(name, Sym::Label { name, kind }, "label");
    }
    for s in &b.stmts {
        match s {
            Statement::Label(_) | Statement::Pragma(_) | Statement::Loc(_) => {}
            Statement::Var(v) => {
                cx.at = v.span.start;
                declare_var(cx, v, VarRole::Local);
            }
            Statement::Block(inner) => walk_block(cx, inner, uni_seen),
            Statement::Instr(i) => {
                cx.at = i.span.start;
                *uni_seen |= ptxsim_isa::is_uni(i) && may_diverge(cx, i);
                rules::instruction(cx, i);
            }
            Statement::BranchTargets { targets, span, .. } => {
                cx.at = span.start;
                cx.require(Feature::BranchTargets, *span);
                for t in targets {
                    match cx.lookup(t.text) {
                        Some(Sym::Label { kind: LabelKind::Plain, .. }) => {}
                        Some(other) => {
                            let what = crate::ctx::sym_kind(other);
                            let decl = crate::ctx::sym_span(other, &cx.funcs);
                            let mut d = Diagnostic::error("check/brx-tlist", t.span, format!("`.branchtargets` entry `{}` is not a label of this function", t.text))
                                .with_label(format!("this names {what}"))
                                .with_secondary(decl, "declared here");
                            if let Some(l) = cx.shadowed_forward_label(t.text) {
                                d = d.with_secondary(l, format!("the label `{}` comes after the directive: a forward reference names a label only when nothing else of that name is visible (ptxas 12.9)", t.text));
                            }
                            cx.emit(d.with_note("rule check/brx-tlist (PTX ISA 9.7.12.4): `.branchtargets` \"must refer to labels within the current function\""));
                        }
                        None => {
                            cx.emit(
                                Diagnostic::error("check/brx-tlist", t.span, format!("`.branchtargets` entry `{}` is not a label visible here", t.text))
                                    .with_label("no label of this name in this block or an enclosing one")
                                    .with_note("rule check/brx-tlist (PTX ISA 9.7.12.4): `.branchtargets` must refer to labels within the current function, visible from the directive (labels inside a nested `{ }` block are not)"),
                            );
                        }
                    }
                }
            }
            Statement::CallTargets { targets, span, .. } => {
                cx.at = span.start;
                cx.require(Feature::CallTargets, *span);
                for t in targets {
                    match cx.lookup(t.text) {
                        Some(Sym::Func(i)) => {
                            let i = *i;
                            if cx.funcs.get(i).is_some_and(|f| f.kind == FunctionKind::Entry) {
                                let decl = cx.funcs[i].name.span;
                                cx.emit(
                                    Diagnostic::error("check/call-indirect", t.span, format!("`.calltargets` entry `{}` is a kernel (`.entry`), not a device function", t.text))
                                        .with_secondary(decl, "declared here as `.entry`")
                                        .with_note("rule check/call-indirect (PTX ISA 9.7.12.5): call targets are `.func` functions"),
                                );
                            }
                        }
                        other => {
                            let mut d = Diagnostic::error("check/call-indirect", t.span, format!("`.calltargets` entry `{}` is not a declared device function", t.text))
                                .with_label("expected the name of a `.func` declared before this directive");
                            if let Some(s) = other {
                                d = d.with_secondary(crate::ctx::sym_span(s, &cx.funcs), format!("`{}` is {}", t.text, crate::ctx::sym_kind(s)));
                            } else if let Some(later) = cx.all_funcs.get(t.text) {
                                d = d.with_secondary(*later, "the function is declared only later");
                            }
                            cx.emit(d.with_note("rule check/call-indirect (PTX ISA 9.7.12.5): \"All functions must be declared prior to being referenced in a ... .calltargets directive\""));
                        }
                    }
                }
            }
            Statement::CallPrototype { span, .. } => cx.require(Feature::CallPrototype, *span),
        }
    }
    if own_scope {
        cx.frames.pop();
    }
}
