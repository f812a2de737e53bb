//! Branch targets: `bra` and `brx.idx` (their rows' grammars take the
//! modifiers; `ret`, `exit`, `trap` and `brkpt` have no operands, which
//! their rows' operand roles say).

use crate::ctx::{sym_kind, sym_span, Ctx, LabelKind, Sym};
use crate::rules::operand::special;
use ptxsim_syntax::ast::{Instruction, OperandKind, StateSpace};
use ptxsim_syntax::Diagnostic;

const BRA_NOTE: &str = "rule check/bra-target (PTX ISA 9.7.12.3 bra): \"The branch target must be a label\" of the same function; there is no indirect branching through `bra` (use `brx.idx`)";

/// Rule `check/bra-target` (PTX ISA 9.7.12.3): `bra{.uni} tgt`, where `tgt`
/// is a label visible from the branch in the same function — never a
/// register, an immediate, a function or a variable.
pub fn bra<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    if i.operands.len() != 1 {
        cx.emit(
            Diagnostic::error("check/bra-target", i.span, format!("`bra` takes one operand, a label; {} given", i.operands.len()))
                .with_note(BRA_NOTE),
        );
        return;
    }
    let op = &i.operands[0];
    let OperandKind::Name { name, component: None } = &op.kind else {
        cx.emit(
            Diagnostic::error("check/bra-target", op.span, "the target of `bra` must be a label")
                .with_label("not a label")
                .with_note(BRA_NOTE),
        );
        return;
    };
    match cx.lookup(name.text) {
        Some(Sym::Label { kind: LabelKind::Plain, .. }) => {}
        Some(s) => {
            let what = sym_kind(s);
            let decl = sym_span(s, &cx.funcs);
            let forward = cx.shadowed_forward_label(name.text);
            let hint = match s {
                _ if forward.is_some() => "",
                Sym::Var(v) if v.space() == StateSpace::Reg => "; to jump through a register use `brx.idx` with a `.branchtargets` list",
                _ => "",
            };
            let mut d = Diagnostic::error("check/bra-target", op.span, format!("the target of `bra` must be a label, but `{}` is {what}{hint}", name.text))
                .with_label("not a label")
                .with_secondary(decl, "declared here");
            if let Some(l) = forward {
                d = d.with_secondary(l, format!("the label `{}` comes after the branch: a forward reference names a label only when nothing else of that name is visible (ptxas 12.9); rename the label", name.text));
            }
            cx.emit(d.with_note(BRA_NOTE));
        }
        None if special(name.text).is_some() => {
            cx.emit(
                Diagnostic::error("check/bra-target", op.span, format!("the target of `bra` must be a label, but `{}` is a special register", name.text))
                    .with_label("not a label")
                    .with_note(BRA_NOTE),
            );
        }
        None => cx.unknown(*name, "label"),
    }
}

const BRX_INDEX_NOTE: &str = "rule check/brx-index-type (PTX ISA 9.7.12.4 brx.idx): \"The index operand is a .u32 register\"; ptxas also accepts `.b32` and `.s32` registers and immediates, and rejects 64-bit, 16-bit, float and predicate indexes";
const BRX_TLIST_NOTE: &str = "rule check/brx-tlist (PTX ISA 9.7.12.4 brx.idx): \"tlist must be the label of a .branchtargets directive\", \"defined in the local function scope before it is used\"";

/// Rules `check/brx-index-type` and `check/brx-tlist` (PTX ISA 9.7.12.4):
/// `brx.idx{.uni} index, tlist`; index a 32-bit integer register or an
/// immediate; tlist a `.branchtargets` label visible here and declared before
/// this instruction. Gated at 6.0 / sm_30.
pub fn brx<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    if i.operands.len() != 2 {
        cx.emit(Diagnostic::error("check/brx-tlist", i.span, format!("`brx.idx` takes two operands, `index, tlist`; {} given", i.operands.len())).with_note(BRX_TLIST_NOTE));
        return;
    }
    // The index.
    let idx = &i.operands[0];
    match &idx.kind {
        OperandKind::Int(_) => {}
        OperandKind::Name { name, component: None } => match cx.lookup(name.text) {
            Some(Sym::Var(v)) if v.space() == StateSpace::Reg => {
                let ok = v.ty().is_some_and(|t| t.bits() == 32 && matches!(crate::types::class(t), crate::types::Class::Bits | crate::types::Class::Unsigned | crate::types::Class::Signed));
                if !ok {
                    let decl = v.name.span;
                    let ty = v.ty().map(|t| t.as_str()).unwrap_or("?");
                    cx.emit(
                        Diagnostic::error("check/brx-index-type", idx.span, format!("the index of `brx.idx` must be a 32-bit integer register, but `{}` is `{ty}`", name.text))
                            .with_label("expected a `.u32` (or `.b32`/`.s32`) register")
                            .with_secondary(decl, format!("`{}` declared `{ty}` here", name.text))
                            .with_note(BRX_INDEX_NOTE),
                    );
                }
            }
            Some(s) => {
                let what = sym_kind(s);
                let decl = sym_span(s, &cx.funcs);
                cx.emit(
                    Diagnostic::error("check/brx-index-type", idx.span, format!("the index of `brx.idx` must be a register or an immediate, but `{}` is {what}", name.text))
                        .with_secondary(decl, "declared here")
                        .with_note(BRX_INDEX_NOTE),
                );
            }
            None => cx.unknown(*name, "register"),
        },
        _ => cx.emit(Diagnostic::error("check/brx-index-type", idx.span, "the index of `brx.idx` must be a 32-bit register or an immediate").with_note(BRX_INDEX_NOTE)),
    }
    // The target list.
    let tl = &i.operands[1];
    let OperandKind::Name { name, component: None } = &tl.kind else {
        cx.emit(Diagnostic::error("check/brx-tlist", tl.span, "the second operand of `brx.idx` must be a `.branchtargets` label").with_note(BRX_TLIST_NOTE));
        return;
    };
    match cx.lookup(name.text) {
        Some(Sym::Label { name: decl, kind: LabelKind::BranchTargets(list) }) => {
            let (decl, len) = (decl.span, list.len());
            if decl.start > tl.span.start {
                cx.emit(
                    Diagnostic::error("check/brx-tlist", tl.span, format!("`.branchtargets` `{}` is used before it is declared", name.text))
                        .with_label("used here")
                        .with_secondary(decl, format!("`{}` is declared here, after its use", name.text))
                        .with_note(BRX_TLIST_NOTE),
                );
            } else if let OperandKind::Int(v) = &idx.kind {
                crate::ub::brx_constant_index(cx, idx.span, v.value, len, decl);
            }
        }
        Some(s) => {
            let what = sym_kind(s);
            let decl = sym_span(s, &cx.funcs);
            cx.emit(
                Diagnostic::error("check/brx-tlist", tl.span, format!("the target list of `brx.idx` must be a `.branchtargets` label, but `{}` is {what}", name.text))
                    .with_label("not a `.branchtargets` label")
                    .with_secondary(decl, "declared here")
                    .with_note(BRX_TLIST_NOTE),
            );
        }
        None => cx.unknown(*name, "`.branchtargets` label"),
    }
}
