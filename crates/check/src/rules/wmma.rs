//! The warp matrix functions, rule `check/wmma` (PTX ISA 9.7.14.4), on the
//! typed row `wmma` ([`Insn::wmma`]) as ptxas 13.5 judges it
//! (`-arch=sm_90a`):
//!
//! - the operation comes first, `wmma.load.{a,b,c}`, `wmma.store.d`,
//!   `wmma.mma`, the other qualifiers in any order after it (ptxas:
//!   "Unknown modifier '.load'" otherwise);
//! - the shape, layouts and types are a combination the manual lists
//!   ([`ptxsim_isa::WmmaForm::misfit`]);
//! - `wmma.load` takes `d, [p]{, stride}`, `wmma.store` `[p], d{, stride}`,
//!   `wmma.mma` `d, a, b, c`; each fragment is a vector of exactly the
//!   registers it needs ("Argument vector size mismatch"), each 32-bit
//!   (64-bit for `.f64`), the first of a type that fits the fragment
//!   ("Arguments mismatch"); the stride a `.u32` value.

use super::memory::address;
use super::operand::{value, Role};
use super::opname;
use super::tensor::{fragment, vector};
use crate::ctx::Ctx;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{Insn, WmmaElem, WmmaForm, WmmaOp, WmmaSpace};
use ptxsim_syntax::ast::{Instruction, Operand, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/wmma (PTX ISA 9.7.14.4): `wmma.load.{a,b,c}.sync.aligned.layout.shape{.global,.shared{::cta}}.type r, [p]{, stride}`, `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`, `wmma.mma{.xor.popc,.and.popc}.sync.aligned.alayout.blayout.shape{.rnd}.dtype{.atype.btype}.ctype{.satfinite} d, a, b, c`, in the shapes and types the manual lists, each fragment a vector of its registers";

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/wmma", span, msg).with_label(label.to_string()).with_note(NOTE));
}

fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, n: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {n} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count (PTX ISA 9.7.14.4): `wmma.load` takes `r, [p]{, stride}`, `wmma.store` `[p], r{, stride}`, `wmma.mma` `d, a, b, c`"),
    );
}

/// The register type the first element of a fragment of `t` must fit:
/// the accumulators have their type, packed multiplicands are bit-size
/// or integer registers.
fn reg_ty(t: WmmaElem) -> ScalarType {
    match t {
        WmmaElem::Ty(ScalarType::F32) => ScalarType::F32,
        WmmaElem::Ty(ScalarType::F64) => ScalarType::F64,
        WmmaElem::Ty(ScalarType::S32) => ScalarType::S32,
        _ => ScalarType::U32,
    }
}

/// Checks a `wmma`.
pub fn check<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Some(f) = insn.wmma() else { return super::operand::resolve_all(cx, i) };
    // The operation (and a load's or store's matrix) leads.
    let lead = i.modifiers.first().map(|m| m.text) == Some(f.op.as_str())
        && (f.op == WmmaOp::Mma || i.modifiers.get(1).map(|m| m.text) == f.frag.map(|x| x.as_str()));
    if !lead {
        let s = modifier_span(i, f.op.as_str());
        err(cx, s, format!("`{}`: the operation comes first: `wmma.load.a`, `wmma.load.b`, `wmma.load.c`, `wmma.store.d` or `wmma.mma`", opname(i)), "unknown modifier here");
        return super::operand::resolve_all(cx, i);
    }
    if let Some(m) = f.misfit() {
        err(cx, modifier_span(i, m.modifier), format!("`{}`: {}", opname(i), m.why), "not a form of `wmma`");
        return super::operand::resolve_all(cx, i);
    }
    match f.op {
        WmmaOp::Load | WmmaOp::Store => load_store(cx, i, &f),
        WmmaOp::Mma => mma(cx, i, &f),
    }
}

fn load_store<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, f: &WmmaForm) {
    let (Some(which), Some(t)) = (f.which(), f.types[0]) else { return };
    let load = f.op == WmmaOp::Load;
    let (frag, addr, stride) = match (load, i.operands.as_slice()) {
        (true, [d, p]) => (d, p, None),
        (true, [d, p, s]) => (d, p, Some(s)),
        (false, [p, d]) => (d, p, None),
        (false, [p, d, s]) => (d, p, Some(s)),
        _ => return count(cx, i, "2 or 3"),
    };
    let space = f.space.map(|s| match s {
        WmmaSpace::Global => StateSpace::Global,
        WmmaSpace::Shared | WmmaSpace::SharedCta => StateSpace::Shared,
    });
    address(cx, i, addr, space, !load, false);
    let (n, bits) = f.regs(which, t);
    let what = format!("the {} fragment", which as char);
    if let Some(elems) = vector(cx, i, frag, n, &what) {
        fragment(cx, i, elems, reg_ty(t), bits, if load { Role::Dest } else { Role::Src }, false);
    }
    if let Some(s) = stride {
        value(cx, s, ScalarType::U32, Role::Src, Size::Exact, i);
    }
}

fn mma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, f: &WmmaForm) {
    let Some([dt, at, bt, ct]) = f.mma_types() else { return };
    let [d, a, b, c] = i.operands.as_slice() else { return count(cx, i, "four") };
    let parts: [(&Operand<'a>, u8, WmmaElem, &str, Role); 4] = [(d, b'c', dt, "D", Role::Dest), (a, b'a', at, "A", Role::Src), (b, b'b', bt, "B", Role::Src), (c, b'c', ct, "C", Role::Src)];
    for (o, which, t, what, role) in parts {
        let (n, bits) = f.regs(which, t);
        let Some(elems) = vector(cx, i, o, n, what) else { return };
        if !fragment(cx, i, elems, reg_ty(t), bits, role, false) {
            return;
        }
    }
}
