//! `ld` and `st`: addresses and state spaces.
//!
//! Rule `check/state-space` (PTX ISA 5.1 state spaces, 9.7.9.8 ld, 9.7.9.10
//! st): a symbol addressed by `ld.ss`/`st.ss` lives in state space `ss` (a
//! generic access may name `.global`, `.shared`, `.const`, `.local` and
//! `.param` symbols); nothing stores to `.const`; kernel parameters and a
//! function's own input parameters are read-only; an address register is a
//! 32- or 64-bit integer, and with `.address_size 64` a 32-bit register
//! cannot address `.global` or generic memory (ptxas 12.9: "32-Bit
//! compilation is no longer supported"). The data operand may be wider than
//! the instruction type (rule `check/operand-type`).

use super::operand::{special, value, Role};
use super::{opname, Decoded};
use crate::ctx::{sym_kind, sym_span, Ctx, Sym, VarRole};
use crate::types::{class, Class, Size};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::Diagnostic;

const SPACE_NOTE: &str = "rule check/state-space (PTX ISA 5.1, 9.7.9.8 ld, 9.7.9.10 st): an `ld`/`st` with a state space must address a symbol of that space; a generic access may name any addressable symbol";

pub fn ld_st<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>, store: bool) {
    let space = d.space.map(|s| s.0);
    if store {
        if let Some((StateSpace::Const, s)) = d.space {
            cx.emit(
                Diagnostic::error("check/state-space", s, "`st` cannot write to the `.const` state space")
                    .with_label("constant memory is read-only for kernels")
                    .with_note("rule check/state-space (PTX ISA 5.1.3 constant state space, 9.7.9.10 st): `.const` is initialised by the host; st takes .global, .local, .shared, .param or a generic address"),
            );
        }
    }
    if i.operands.len() < 2 {
        cx.emit(Diagnostic::error("check/operand-count", i.span, format!("`{}` takes a data operand and an address", opname(i))).with_note("rule check/operand-count"));
        return;
    }
    let (data, addr) = if store { (&i.operands[1], &i.operands[0]) } else { (&i.operands[0], &i.operands[1]) };
    address(cx, i, addr, space, store, d.space_other);
    for extra in &i.operands[2..] {
        super::operand::resolve_operand(cx, extra);
    }
    if let [_, (t, s), ..] = d.types.as_slice() {
        cx.emit(
            Diagnostic::error("check/instruction-type", *s, format!("`{}` takes one data type; `{}` is a second one", i.opcode.text, t.as_str()))
                .with_label("unexpected instruction type")
                .with_note("rule check/instruction-type (PTX ISA 9.7.9.8 ld, 9.7.9.10 st)"),
        );
        return;
    }
    let Some(&(ty, ty_span)) = d.types.last() else {
        cx.emit(Diagnostic::error("check/instruction-type", i.opcode.span, format!("`{}` needs a data type", opname(i))).with_note("rule check/instruction-type (PTX ISA 9.7.9.8 ld)"));
        return;
    };
    if ty == ScalarType::Pred {
        // ptxas 12.9: "Unexpected instruction types specified for 'st'".
        cx.emit(
            Diagnostic::error("check/instruction-type", ty_span, format!("`{}` has no `.pred` form: predicates are not loaded or stored", opname(i)))
                .with_label("not a type of ld/st")
                .with_note("rule check/instruction-type (PTX ISA 9.7.9.8 ld, 9.7.9.10 st: `.type = { .b8, .b16, .b32, .b64, .b128, .u8, ..., .f64 }`, no `.pred`): materialise a predicate with `selp` before storing it, and test a loaded value with `setp`"),
        );
        return;
    }
    if let Some((n, _)) = d.vector {
        match &data.kind {
            OperandKind::Vector(v) if v.len() == n as usize => {}
            _ => {
                cx.emit(
                    Diagnostic::error("check/operand-type", data.span, format!("`{}` moves a vector of {n}; the data operand must be `{{...}}` with {n} elements", opname(i)))
                        .with_note("rule check/operand-type (PTX ISA 9.7.9.8 ld): `.vN` loads and stores take a brace-enclosed vector of N registers"),
                );
                return;
            }
        }
    }
    let role = if store { Role::Src } else { Role::Dest };
    value(cx, data, ty, role, Size::AtLeast, i);
}

pub(crate) fn address<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, op: &Operand<'a>, space: Option<StateSpace>, store: bool, space_other: bool) {
    let OperandKind::Address(a) = &op.kind else {
        cx.emit(
            Diagnostic::error("check/state-space", op.span, format!("`{}` needs an address in brackets", opname(i)))
                .with_label("expected `[address]`")
                .with_note(SPACE_NOTE),
        );
        return;
    };
    let Some(base) = a.base else { return };
    if special(base.text).is_some() {
        return;
    }
    let Some(sym) = cx.lookup(base.text).cloned() else {
        cx.unknown(base, "register or variable");
        return;
    };
    let decl = sym_span(&sym, &cx.funcs);
    match &sym {
        Sym::Var(v) if v.space() == StateSpace::Reg => {
            let ok = v.ty().is_some_and(|t| matches!(class(t), Class::Bits | Class::Unsigned | Class::Signed) && matches!(t.bits(), 32 | 64));
            if !ok {
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("address register `{}` must be a 32- or 64-bit integer", base.text))
                        .with_label(format!("`{}` register", v.ty().map(|t| t.as_str()).unwrap_or("?")))
                        .with_secondary(decl, "declared here")
                        .with_note(SPACE_NOTE),
                );
            } else if cx.addr64 && v.ty().is_some_and(|t| t.bits() == 32) && matches!(space, None | Some(StateSpace::Global)) && !space_other {
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("32-bit register `{}` used as a {} address with `.address_size 64`", base.text, space.map(|s| s.as_str()).unwrap_or("generic")))
                        .with_label("a 64-bit address is needed here")
                        .with_secondary(decl, "declared 32-bit here")
                        .with_note("rule check/state-space (PTX ISA 11.1.3 .address_size): generic and .global addresses are 64-bit under `.address_size 64`; ptxas 12.9 rejects 32-bit ones (\"32-Bit compilation is no longer supported\")"),
                );
            }
        }
        Sym::Var(v) => {
            let vs = v.space();
            let ok = match space {
                None => space_other || !matches!(vs, StateSpace::Reg | StateSpace::Sreg),
                Some(s) => s == vs,
            };
            if !ok {
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("`{}` addresses `{}`, a `{}` variable", opname(i), base.text, vs.as_str()))
                        .with_label(format!("state space mismatch: the instruction accesses `{}`", space.map(|s| s.as_str()).unwrap_or("generic memory")))
                        .with_secondary(decl, format!("declared in `{}` here", vs.as_str()))
                        .with_note(SPACE_NOTE),
                );
            } else if store && vs == StateSpace::Param && matches!(v.role, VarRole::KernelParam | VarRole::FuncParam) {
                let whose = if v.role == VarRole::KernelParam { "a kernel parameter" } else { "an input parameter of this function" };
                cx.emit(
                    Diagnostic::error("check/state-space", base.span, format!("`{}` writes `{}`, which is {whose} and read-only", opname(i), base.text))
                        .with_label("illegal write to an input parameter")
                        .with_secondary(decl, "declared here")
                        .with_note("rule check/state-space (PTX ISA 5.1.6 parameter state space): kernel parameters and a function's input parameters are read-only; copy the value to a register or a local variable"),
                );
            }
        }
        other => {
            cx.emit(
                Diagnostic::error("check/state-space", base.span, format!("`{}` cannot be addressed: it is {}", base.text, sym_kind(other)))
                    .with_label("not a variable or an address register")
                    .with_secondary(decl, "declared here")
                    .with_note(SPACE_NOTE),
            );
        }
    }
}
