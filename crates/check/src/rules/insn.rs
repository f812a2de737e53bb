//! The rules of the rows whose modifier grammar is written
//! (`OpInfo::typed`): the modifiers are decoded by the row's grammar
//! (`ptxsim_isa::decode`, each error a `check/modifiers` diagnostic at the
//! modifier at fault), the operand count comes from the row's roles, and
//! the rule matches on the typed [`Insn`]. Today: `lop3` and `shf`
//! (their operand rules in [`super::forms`]), the bit and integer rows of
//! [`super::arith`] (`popc` ... `sad`), and the scalar video
//! instructions (PTX ISA 9.7.16.1: `vadd`, `vsub`, `vabsdiff`, `vmin`,
//! `vmax`, `vshl`, `vshr`, `vmad`, `vset`), as ptxas 12.9 judges them
//! (`tests/check/{accept,reject}/video-scalar--*`), and the warp rows
//! (`shfl` ... `istypep`, in [`super::warp`] and [`super::collective`]),
//! and the memory rows (`ld`, `ldu`, `st`, `fence`, `membar`, `cvta`, the
//! stack rows, the cache hints, `isspacep`, `mapa`, `getctarank`:
//! [`super::memory::rows`]), `wmma` ([`super::wmma`]) and `clusterlaunchcontrol` ([`super::clc`]).

use super::operand::{resolve_all, value, Role};
use super::opname;
use crate::ctx::Ctx;
use crate::types::Size;
use ptxsim_isa::grammar::Choice;
use ptxsim_isa::{DecodeErrorKind, Insn, VideoSel};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/operand-type (PTX ISA 9.7.16.1): a scalar video instruction takes 32-bit registers or immediates; `d`, `a` and `b` may name a byte or halfword (`.b0`-`.b3`, `.h0`, `.h1`), `d`'s only to merge into `c`; only vmad's sources may be negated";

fn error(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, label: &str, note: &str) {
    cx.emit(Diagnostic::error(code, span, msg).with_label(label.to_string()).with_note(note.to_string()));
}

/// The rows checked by [`super::arith::arith`].
fn arith_row(insn: &Insn) -> bool {
    matches!(
        insn,
        Insn::And { .. } | Insn::Or { .. } | Insn::Xor { .. } | Insn::Not { .. } | Insn::Shl { .. } | Insn::Shr { .. }
        | Insn::Rem { .. } | Insn::Copysign { .. } | Insn::Neg { .. } | Insn::Abs { .. } | Insn::Add { .. } | Insn::Sub { .. }
        | Insn::Mul { .. } | Insn::Mad { .. } | Insn::Madc { .. } | Insn::Addc { .. } | Insn::Subc { .. } | Insn::Fma { .. }
        | Insn::Div { .. } | Insn::Rcp { .. } | Insn::Sqrt { .. } | Insn::Rsqrt { .. } | Insn::Sin { .. } | Insn::Cos { .. }
        | Insn::Lg2 { .. } | Insn::Ex2 { .. } | Insn::Tanh { .. } | Insn::Min { .. } | Insn::Max { .. } | Insn::Popc { .. }
        | Insn::Clz { .. } | Insn::Bfind { .. } | Insn::Brev { .. } | Insn::Cnot { .. } | Insn::Prmt { .. } | Insn::Bfe { .. }
        | Insn::Bfi { .. } | Insn::Bmsk { .. } | Insn::Szext { .. } | Insn::Fns { .. } | Insn::Dp4a { .. } | Insn::Dp2a { .. }
        | Insn::Testp { .. } | Insn::Mul24 { .. } | Insn::Mad24 { .. } | Insn::Sad { .. } | Insn::Vadd2 { .. } | Insn::Vsub2 { .. }
        | Insn::Vavrg2 { .. } | Insn::Vabsdiff2 { .. } | Insn::Vmin2 { .. } | Insn::Vmax2 { .. } | Insn::Vset2 { .. } | Insn::Vadd4 { .. }
        | Insn::Vsub4 { .. } | Insn::Vavrg4 { .. } | Insn::Vabsdiff4 { .. } | Insn::Vmin4 { .. } | Insn::Vmax4 { .. } | Insn::Vset4 { .. }
    )
}

/// The instruction's name as written: its opcode and modifiers (where a
/// feature gate is reported).
pub fn name_span(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

/// Checks an instruction of a typed row.
pub fn typed<'f, 'a>(cx: &mut Ctx<'f, 'a>, i: &'f Instruction<'a>) {
    let insn = match ptxsim_isa::decode(i) {
        Ok(x) => x,
        Err(e) => {
            // A state space or `.uni` where the syntax has none is reported
            // under the rules of their own.
            let stray = match &e.kind {
                DecodeErrorKind::UnexpectedModifier { modifier, .. } => Some(modifier.as_str()),
                _ => None,
            };
            if stray.is_some_and(ptxsim_isa::modifiers::is_uni) {
                super::uni_error(cx, i, e.span);
            } else if let Some(sp) = stray.and_then(StateSpace::from_str) {
                super::space_error(cx, i, sp, e.span);
            } else {
                error(cx, "check/modifiers", e.span, e.to_string(), "does not fit the instruction's syntax", "rule check/modifiers: each instruction takes the modifiers its syntax lists, each once (PTX ISA chapter 9)");
            }
            return resolve_all(cx, i);
        }
    };
    // The instruction's own row (`cvt.pack`'s is not `cvt`'s).
    if let Some((min, max)) = insn.row().operand_count() {
        let n = i.operands.len();
        if n < min || n > max {
            let want = if min == max { format!("{min}") } else { format!("{min} or {max}") };
            // Too many: point at the extra ones.
            let (span, label) = match (i.operands.get(max), i.operands.last()) {
                (Some(first), Some(last)) => (first.span.to(last.span), "unexpected operand"),
                _ => (i.span, "operands missing"),
            };
            cx.emit(
                Diagnostic::error("check/operand-count", span, format!("`{}` takes {want} operands; {n} given", opname(i)))
                    .with_label(label)
                    .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
            );
            return resolve_all(cx, i);
        }
    }
    match insn {
        Insn::Vadd { op2, .. }
        | Insn::Vsub { op2, .. }
        | Insn::Vabsdiff { op2, .. }
        | Insn::Vmin { op2, .. }
        | Insn::Vmax { op2, .. }
        | Insn::Vshl { op2, .. }
        | Insn::Vshr { op2, .. }
        | Insn::Vset { op2, .. } => video(cx, i, op2.is_some(), false),
        Insn::Vmad { po, .. } => video(cx, i, false, true) && vmad(cx, i, po),
        Insn::Lop3 { boolop, .. } => {
            if boolop.is_some() {
                cx.require(ptxsim_isa::Feature::Lop3BoolOp, name_span(i));
            }
            super::forms::lop3(cx, i, boolop.is_some());
            true
        }
        Insn::Shf { .. } => {
            super::forms::shf(cx, i);
            true
        }
        Insn::Ldmatrix { .. } | Insn::Stmatrix { .. } | Insn::Movmatrix { .. } | Insn::Mma { .. } | Insn::Wgmma { .. } | Insn::Setmaxnreg { .. } | Insn::Tensormap { .. } => {
            super::tensor::typed(cx, i, &insn);
            true
        }
        Insn::Mbarrier { .. } => {
            super::mbar::mbarrier(cx, i, &insn);
            true
        }
        Insn::Wmma { .. } => {
            super::wmma::check(cx, i, &insn);
            true
        }
        Insn::Clusterlaunchcontrol { .. } => {
            super::clc::check(cx, i, &insn);
            true
        }
        Insn::Tex { .. } | Insn::Tld4 { .. } | Insn::Txq { .. } | Insn::Suld { .. } | Insn::Sust { .. } | Insn::Sured { .. } | Insn::Suq { .. } => super::tex::check(cx, i, &insn),
        Insn::Multimem { .. } => {
            super::multimem::check(cx, i, &insn);
            true
        }
        Insn::Tcgen05 { .. } => {
            super::tcgen05::check(cx, i, &insn);
            true
        }
        Insn::Cp { .. } | Insn::CpAsync { .. } => {
            super::acopy::typed(cx, i, &insn);
            true
        }
        _ if arith_row(&insn) => {
            super::arith::arith(cx, i, insn);
            true
        }
        Insn::Atom { .. } | Insn::Red { .. } | Insn::RedAsync { .. } => {
            super::atomic::typed(cx, i, insn);
            true
        }
        Insn::Mov { .. } | Insn::Cvt { .. } | Insn::CvtPack { .. } => {
            super::convert::typed(cx, i, insn);
            true
        }
        Insn::Bra { .. } => {
            super::branch::bra(cx, i);
            true
        }
        Insn::Brx { .. } => {
            super::branch::brx(cx, i);
            true
        }
        Insn::Call { .. } => {
            super::call::call(cx, i);
            true
        }
        Insn::Setp { cmp, boolop, ftz, ty } => {
            super::setp::setp(cx, i, cmp, boolop, ftz, ty);
            true
        }
        Insn::Set { cmp, boolop, ftz, dtype, stype } => {
            super::forms::set(cx, i, cmp, boolop, ftz, dtype, stype);
            true
        }
        Insn::Selp { ty } => {
            super::setp::selp(cx, i, ty);
            true
        }
        Insn::Slct { ftz, dtype, ctype } => {
            super::forms::slct(cx, i, ftz, dtype, ctype);
            true
        }
        Insn::Bar { .. } | Insn::Barrier { .. } | Insn::Shfl { .. } | Insn::Vote { .. } | Insn::Match { .. } | Insn::Redux { .. } | Insn::Elect { .. } | Insn::Activemask { .. } | Insn::Nanosleep { .. } | Insn::Pmevent { .. } | Insn::Istypep { .. } => {
            super::warp::typed(cx, i, insn);
            true
        }
        _ if super::memory::rows(cx, i, insn) => true,
        // No operands (the roles' count): nothing more to check.
        Insn::Ret { .. } | Insn::Exit {} | Insn::Trap {} | Insn::Brkpt {} | Insn::Griddepcontrol { .. } => true,
        _ => {
            resolve_all(cx, i);
            true
        }
    };
}

/// The operands of a scalar video instruction; returns whether all fit.
fn video<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, op2: bool, is_vmad: bool) -> bool {
    let mut ok = true;
    for (k, o) in i.operands.iter().enumerate() {
        let (name, component) = match &o.kind {
            OperandKind::Name { name, component } => (*name, *component),
            OperandKind::Neg { name, component } if is_vmad && k > 0 => (*name, *component),
            OperandKind::Int(_) if k > 0 => continue,
            OperandKind::Sink => {
                error(cx, "check/sink", o.span, format!("`{}` does not take the sink `_`", opname(i)), "sink here", "rule check/sink (PTX ISA 9.7.16.1): a video instruction writes a register");
                ok = false;
                continue;
            }
            _ => {
                ok &= value(cx, o, ScalarType::U32, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
                continue;
            }
        };
        if let Some(c) = component {
            let bad = match VideoSel::from_modifier(c.text) {
                None => Some(format!("`{}` is not a video selector", c.text)),
                Some(_) if k == 0 && (is_vmad || op2 || i.operands.len() < 4) => {
                    Some(format!("`{}`: a destination selector merges into `c`, and needs `c` and no secondary operation{}", opname(i), if is_vmad { " (vmad has none)" } else { "" }))
                }
                Some(_) if k == 3 => Some(format!("`{}`: `c` takes no selector", opname(i))),
                Some(_) => None,
            };
            if let Some(msg) = bad {
                error(cx, "check/operand-type", c.span, msg, "selector not allowed here", NOTE);
                ok = false;
            }
        }
        let reg = Operand { span: name.span, kind: OperandKind::Name { name, component: None } };
        ok &= value(cx, &reg, ScalarType::U32, if k == 0 { Role::Dest } else { Role::Src }, Size::Exact, i);
    }
    if op2 && i.operands.len() < 4 {
        cx.emit(
            Diagnostic::error("check/operand-count", i.span, format!("`{}`: a secondary operation needs `c`", opname(i)))
                .with_note("rule check/operand-count (PTX ISA 9.7.16.1): `vop.dtype.atype.btype.op2 d, a, b, c`"),
        );
        ok = false;
    }
    ok
}

/// vmad's negation rules (PTX ISA 9.7.16.1.3): the product (`a` xor `b`)
/// or `c` may be negated, not both, and none with `.po`.
fn vmad(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, po: bool) -> bool {
    let neg = |k: usize| i.operands.get(k).is_some_and(|o| matches!(o.kind, OperandKind::Neg { .. }));
    let (a, b, c) = (neg(1), neg(2), neg(3));
    let msg = if po && (a || b || c) {
        "`.po` takes no operand negation"
    } else if (a ^ b) && c {
        "operand negation is limited to the product (`a` xor `b`) or `c`"
    } else {
        return true;
    };
    error(cx, "check/operand-type", i.span, format!("`{}`: {msg}", opname(i)), "negation", NOTE);
    false
}
