//! The scalar instructions outside the arithmetic table, each with its own
//! operand shape (rule `check/scalar-operands`; `testp`, `dp4a`, `dp2a`,
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
use super::{opname, Decoded};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_syntax::ast::{FloatLit, Instruction, Name, OperandKind, ScalarType, StateSpace};
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

/// The modifiers of `i` that are in `set`.
fn among<'a>(i: &Instruction<'a>, set: &[&str]) -> Vec<Name<'a>> {
    i.modifiers.iter().filter(|m| set.contains(&m.text)).copied().collect()
}

/// Exactly one modifier of `set` (`what` names it in messages); false when an error was reported.
fn one_of(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, set: &[&str], what: &str, required: bool) -> bool {
    let found = among(i, set);
    match found.as_slice() {
        [] if required => {
            err(cx, head(i), format!("`{}` needs {what} ({})", opname(i), set.join(" ")), "missing modifier");
            false
        }
        [_, second, ..] => {
            err(cx, second.span, format!("`{}` takes one {what}; `{}` is a second one", i.opcode.text, second.text), "second modifier");
            false
        }
        _ => true,
    }
}

/// Every modifier is a type, a state space or one of `allowed`; false when an error was reported.
fn only(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, allowed: &[&str]) -> bool {
    for m in &i.modifiers {
        if ScalarType::from_str(m.text).is_some() || StateSpace::from_str(m.text).is_some() || allowed.contains(&m.text) {
            continue;
        }
        err(cx, m.span, format!("`{}` is not a modifier of `{}`", m.text, i.opcode.text), "illegal modifier");
        return false;
    }
    true
}

/// The instruction types, each one of `allowed` (`n` of them); None when an error was reported.
fn types(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, d: &Decoded<'_>, allowed: &[ScalarType], n: usize) -> Option<Vec<ScalarType>> {
    for (t, s) in d.types.iter() {
        if !allowed.contains(t) {
            cx.emit(
                Diagnostic::error("check/instruction-type", *s, format!("`{}` does not take type `{}`", i.opcode.text, t.as_str()))
                    .with_label("unexpected instruction type")
                    .with_note(NOTE),
            );
            return None;
        }
    }
    if d.types.len() != n {
        let want: Vec<&str> = allowed.iter().map(|t| t.as_str()).collect();
        cx.emit(
            Diagnostic::error("check/instruction-type", head(i), format!("`{}` takes {n} instruction type(s) of {}; {} given", opname(i), want.join(" "), d.types.len()))
                .with_label("wrong number of types")
                .with_note(NOTE),
        );
        return None;
    }
    Some(d.types.iter().map(|x| x.0).collect())
}

/// A state space, if any, is one of `allowed`; false when an error was reported.
fn space_in(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, d: &Decoded<'_>, allowed: &[StateSpace]) -> bool {
    if let Some((sp, span)) = d.space {
        if !allowed.contains(&sp) {
            cx.emit(
                Diagnostic::error("check/state-space", span, format!("`{}` does not take the `{}` state space", i.opcode.text, sp.as_str()))
                    .with_label("state space not allowed here")
                    .with_note(NOTE),
            );
            return false;
        }
    }
    true
}

fn int32<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, k: usize, t: ScalarType, role: Role) {
    value(cx, &i.operands[k], t, role, Size::Exact, i);
}

/// Checks one instruction of this module's opcodes.
pub fn scalar<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    let op = i.opcode.text;
    match op {
        "prefetch" | "prefetchu" => prefetch(cx, i, d),
        "applypriority" | "discard" => {
            let level: &[&str] = if op == "discard" { &[".L2"] } else { &[".L2::evict_normal"] };
            if !only(cx, i, level) || !one_of(cx, i, level, "cache level", true) || !space_in(cx, i, d, &[StateSpace::Global]) || types(cx, i, d, &[], 0).is_none() || !count(cx, i, 2) {
                return;
            }
            address(cx, i, &i.operands[0], d.space.map(|s| s.0), false, d.space_other);
            let is128 = matches!(i.operands[1].kind, OperandKind::Int(n) if n.value == 128);
            if !is128 {
                err(cx, i.operands[1].span, format!("`{}` takes the size 128 (bytes of one cache line)", opname(i)), "expected the immediate 128");
            }
        }
        "createpolicy" => createpolicy(cx, i, d),
        _ => super::operand::resolve_all(cx, i),
    }
}

/// `prefetch{.space}.level [a]`, `prefetch{.const,.param}.tensormap [a]`, `prefetchu.L1 [a]`.
fn prefetch<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    let u = i.opcode.text == "prefetchu";
    let tensormap = i.has_modifier(".tensormap");
    let levels: &[&str] = if u {
        &[".L1"]
    } else if tensormap {
        &[".tensormap"]
    } else {
        &[".L1", ".L2", ".L2::evict_last", ".L2::evict_normal"]
    };
    if !only(cx, i, levels) || !one_of(cx, i, levels, "cache level", true) || types(cx, i, d, &[], 0).is_none() {
        return;
    }
    let spaces: &[StateSpace] = if u {
        &[]
    } else if tensormap {
        &[StateSpace::Const, StateSpace::Param]
    } else if i.has_modifier(".L2::evict_last") || i.has_modifier(".L2::evict_normal") {
        cx.require(Feature::CacheEviction, head(i));
        &[StateSpace::Global]
    } else {
        &[StateSpace::Global, StateSpace::Local]
    };
    if tensormap {
        cx.require(Feature::PrefetchTensormap, head(i));
    }
    if !space_in(cx, i, d, spaces) || !count(cx, i, 1) {
        return;
    }
    address(cx, i, &i.operands[0], d.space.map(|s| s.0), false, d.space_other);
}

/// `createpolicy.fractional.L2::p{.L2::s}.b64 d{, fraction}`,
/// `createpolicy.range{.global}.L2::p{.L2::s}.b64 d, [a], size, total`,
/// `createpolicy.cvt.L2.b64 d, a`.
fn createpolicy<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    use ScalarType::*;
    const KINDS: &[&str] = &[".fractional", ".range", ".cvt"];
    const PRIMARY: &[&str] = &[".L2::evict_last", ".L2::evict_normal", ".L2::evict_first", ".L2::evict_unchanged"];
    if !one_of(cx, i, KINDS, "policy kind (.fractional, .range or .cvt)", true) {
        return;
    }
    let cvt = i.has_modifier(".cvt");
    let allowed: Vec<&str> = if cvt { vec![".cvt", ".L2"] } else { KINDS.iter().chain(PRIMARY).copied().collect() };
    if !only(cx, i, &allowed) || types(cx, i, d, &[B64], 1).is_none() {
        return;
    }
    let range = i.has_modifier(".range");
    if !space_in(cx, i, d, if range { &[StateSpace::Global] } else { &[] }) {
        return;
    }
    if cvt {
        if !one_of(cx, i, &[".L2"], "cache level", true) || !count(cx, i, 2) {
            return;
        }
        int32(cx, i, 0, B64, Role::Dest);
        int32(cx, i, 1, B64, Role::Src);
        return;
    }
    // The first eviction priority is the primary; a second (secondary) one is
    // .L2::evict_first or .L2::evict_unchanged.
    let prios = among(i, PRIMARY);
    match prios.as_slice() {
        [] => return err(cx, head(i), format!("`{}` needs an eviction priority ({})", opname(i), PRIMARY.join(" ")), "missing modifier"),
        [_, s] if !matches!(s.text, ".L2::evict_first" | ".L2::evict_unchanged") => {
            return err(cx, s.span, format!("the secondary priority of `createpolicy` is `.L2::evict_first` or `.L2::evict_unchanged`, not `{}`", s.text), "illegal secondary priority")
        }
        [_, _, third, ..] => return err(cx, third.span, "`createpolicy` takes at most two eviction priorities".to_string(), "third priority"),
        _ => {}
    }
    if range {
        if !count(cx, i, 4) {
            return;
        }
        int32(cx, i, 0, B64, Role::Dest);
        address(cx, i, &i.operands[1], d.space.map(|s| s.0), false, d.space_other);
        int32(cx, i, 2, B32, Role::Src);
        int32(cx, i, 3, B32, Role::Src);
        return;
    }
    if !(1..=2).contains(&i.operands.len()) {
        count(cx, i, 2);
        return;
    }
    int32(cx, i, 0, B64, Role::Dest);
    if let Some(f) = i.operands.get(1) {
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
                value(cx, f, F32, Role::Src, Size::Exact, i);
            }
        }
    }
}
