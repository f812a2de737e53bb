//! The scalar instructions outside the arithmetic table, each with its own
//! operand shape (rule `check/scalar-operands`; the cache hints are typed
//! rows, their combinations `Insn::mem_misfit`'s; `testp`, `dp4a`, `dp2a`,
//! `bmsk`, `szext` and `fns` are typed rows, in [`super::arith`];
//! `cvt.pack` one in [`super::convert`]):
//!
//! - `prefetch{.global,.local}.level [a]` with level `.L1 .L2
//!   .L2::evict_last .L2::evict_normal`, `prefetch{.const,.param}.tensormap
//!   [a]`, `prefetchu.L1 [a]` (PTX ISA 9.7.9 prefetch): 2.0, sm_20; the
//!   eviction priorities 7.4, sm_80; `.tensormap` 8.0, sm_90.
//! - `applypriority{.global}.L2::evict_normal [a], 128` and
//!   `discard{.global}.L2 [a], 128` (PTX ISA 9.7.9 applypriority,
//!   discard): 7.4, sm_80.
//! - `createpolicy.fractional.L2::p{.L2::s}.b64 d{, fraction}`,
//!   `createpolicy.range{.global}.L2::p{.L2::s}.b64 d, [a], size, total`,
//!   `createpolicy.cvt.L2.b64 d, a` (PTX ISA 9.7.9 createpolicy): 7.4,
//!   sm_80; an immediate fraction lies in (0, 1].

use super::memory::address;
use super::operand::{value, Role};
use super::opname;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{GlobalSpace, Insn, PolicyKind, PrefetchLevel, PrefetchSpace};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_syntax::ast::{FloatLit, Instruction, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/scalar-operands (PTX ISA 9.7.9 cvt.pack/prefetch/applypriority/discard/createpolicy): each instruction's modes, types and operands as the manual lists them";

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/scalar-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

/// Reports a wrong operand count; false when reported.
fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, n: usize) -> bool {
    if i.operands.len() == n {
        return true;
    }
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {n} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
    );
    false
}

fn int32<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, k: usize, t: ScalarType, role: Role) {
    value(cx, &i.operands[k], t, role, Size::Exact, i);
}

/// The typed cache-hint rows (`prefetch`, `prefetchu`, `applypriority`,
/// `discard`, `createpolicy`): the combination rules of
/// [`Insn::mem_misfit`] at the modifier at fault, the gates, then the
/// operands.
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    use ScalarType::*;
    if let Some(m) = insn.misfit() {
        cx.emit(Diagnostic::error("check/modifiers", modifier_span(i, m.modifier), m.why).with_label("modifier does not apply here").with_note(NOTE));
        return super::operand::resolve_all(cx, i);
    }
    let global = |s: Option<GlobalSpace>| s.map(|_| StateSpace::Global);
    match insn {
        Insn::Prefetch { space, level } => {
            match level {
                Some(PrefetchLevel::Tensormap) => cx.require(Feature::PrefetchTensormap, head(i)),
                Some(PrefetchLevel::L2EvictLast | PrefetchLevel::L2EvictNormal) => cx.require(Feature::CacheEviction, head(i)),
                _ => {}
            }
            let space = space.map(|s| match s {
                PrefetchSpace::Global => StateSpace::Global,
                PrefetchSpace::Local => StateSpace::Local,
                PrefetchSpace::Const => StateSpace::Const,
                PrefetchSpace::Param => StateSpace::Param,
            });
            address(cx, i, &i.operands[0], space, false, false);
        }
        Insn::Prefetchu { .. } => address(cx, i, &i.operands[0], None, false, false),
        Insn::Applypriority { space, .. } | Insn::Discard { space, .. } => {
            address(cx, i, &i.operands[0], global(space), false, false);
            let is128 = matches!(i.operands[1].kind, OperandKind::Int(n) if n.value == 128);
            if !is128 {
                err(cx, i.operands[1].span, format!("`{}` takes the size 128 (bytes of one cache line)", opname(i)), "expected the immediate 128");
            }
        }
        Insn::Createpolicy { kind, space, .. } => {
            let n = match kind {
                PolicyKind::Cvt => 2,
                PolicyKind::Range => 4,
                PolicyKind::Fractional => i.operands.len().clamp(1, 2),
            };
            if !count(cx, i, n) {
                return super::operand::resolve_all(cx, i);
            }
            int32(cx, i, 0, B64, Role::Dest);
            match kind {
                PolicyKind::Cvt => int32(cx, i, 1, B64, Role::Src),
                PolicyKind::Range => {
                    address(cx, i, &i.operands[1], global(space), false, false);
                    int32(cx, i, 2, B32, Role::Src);
                    int32(cx, i, 3, B32, Role::Src);
                }
                PolicyKind::Fractional => fraction(cx, i),
            }
        }
        _ => super::operand::resolve_all(cx, i),
    }
}

/// The fraction of `createpolicy.fractional`, when given: an `.f32`
/// register or a float immediate in (0, 1].
fn fraction<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    let Some(f) = i.operands.get(1) else { return };
    match &f.kind {
        OperandKind::Int(_) => err(cx, f.span, "the fraction of `createpolicy.fractional` is a float (an `.f32` register or a float immediate)".to_string(), "integer immediate"),
        OperandKind::Float(lit) => {
            let v = match lit {
                FloatLit::F32Bits(b) => f32::from_bits(*b) as f64,
                FloatLit::F64Bits(b) => f64::from_bits(*b),
                FloatLit::Decimal(x) => *x,
            };
            if !(v > 0.0 && v <= 1.0) {
                err(cx, f.span, format!("the fraction of `createpolicy.fractional` lies in (0, 1]; {v} does not"), "out of range");
            }
        }
        _ => {
            value(cx, f, ScalarType::F32, Role::Src, Size::Exact, i);
        }
    }
}
