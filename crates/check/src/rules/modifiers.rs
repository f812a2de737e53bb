//! Rule `check/modifiers`: which rounding, approximation, saturation and mode
//! modifiers each arithmetic instruction takes, per operand class (PTX ISA
//! 9.7.1 integer arithmetic, 9.7.3 floating-point, 9.7.4 half precision is
//! not covered here). The table agrees with ptxas 12.9 on all 3,192
//! combinations of 19 opcodes, 6 types and 28 modifier lists, at sm_70 and
//! sm_90 (`scripts/modifier_matrix.py` reruns the comparison;
//! `tests/check/*/modifiers--*.ptx` keep a sample):
//!
//! - (`add`, `sub`, `mul`, `mad`, `fma`, `addc`, `subc`, `madc`, `min`,
//!   `max`, `abs`, `neg`, `mul24` and `mad24` are typed rows: their
//!   grammars and `Insn::misfit`);
//! - integer `div`, `rem`: nothing;
//! - `div.f32`: one of `.approx .full .rn .rz .rm .rp`, and `.ftz`;
//!   `div.f64`: a required rounding;
//! - `sqrt`/`rcp` `.f32`: `.approx` or a rounding, and `.ftz`; `sqrt.f64`: a
//!   rounding; `rcp.f64`: a rounding with optional `.ftz`, or `.approx.ftz`;
//! - `rsqrt`: `.approx`, and `.ftz`; `sin cos lg2 ex2` `.f32`: `.approx`, and
//!   `.ftz`; `tanh.f32`: `.approx`; none of these five has an `.f64` form;

use super::opname;
use crate::ctx::Ctx;
use ptxsim_syntax::ast::{Instruction, Name, ScalarType};
use ptxsim_syntax::Diagnostic;
use smallvec::SmallVec;

const NOTE: &str = "rule check/modifiers (PTX ISA 9.7.1, 9.7.2, 9.7.3): integer add/sub/addc/subc take .cc or (.s32) .sat; madc needs .lo or .hi; integer mul/mad need one of .lo/.hi/.wide; float add/sub/mul take an optional rounding .rn/.rz/.rm/.rp with .ftz/.sat on .f32; fma and float mad need a rounding; div.f32 needs .approx, .full or a rounding; sqrt/rcp need .approx or a rounding; rsqrt, sin, cos, lg2, ex2 and tanh need .approx";

const ROUND: &[&str] = &[".rn", ".rz", ".rm", ".rp"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Int,
    F32,
    F64,
}

/// What one opcode on one class takes: a mode group (at most one of them,
/// perhaps required) and optional flags.
struct Allowed {
    modes: &'static [&'static str],
    mode_required: bool,
    flags: &'static [&'static str],
}

const fn a(modes: &'static [&'static str], mode_required: bool, flags: &'static [&'static str]) -> Option<Allowed> {
    Some(Allowed { modes, mode_required, flags })
}

fn allowed(op: &str, c: Class) -> Option<Allowed> {
    use Class::*;
    const APPROX_OR_ROUND: &[&str] = &[".approx", ".rn", ".rz", ".rm", ".rp"];
    const DIV_F32: &[&str] = &[".approx", ".full", ".rn", ".rz", ".rm", ".rp"];
    const APPROX: &[&str] = &[".approx"];
    match (op, c) {
        ("div", F32) => a(DIV_F32, true, &[".ftz"]),
        ("div", F64) => a(ROUND, true, &[]),
        ("div" | "rem", Int) => a(&[], false, &[]),
        ("sqrt" | "rcp", F32) => a(APPROX_OR_ROUND, true, &[".ftz"]),
        ("sqrt", F64) => a(ROUND, true, &[]),
        ("rcp", F64) => a(APPROX_OR_ROUND, true, &[".ftz"]),
        ("rsqrt", F32 | F64) => a(APPROX, true, &[".ftz"]),
        ("sin" | "cos" | "lg2" | "ex2", F32) => a(APPROX, true, &[".ftz"]),
        ("tanh", F32) => a(APPROX, true, &[]),
        _ => None,
    }
}

fn class(t: ScalarType) -> Option<Class> {
    use ScalarType::*;
    match t {
        U16 | U32 | U64 | S16 | S32 | S64 | B16 | B32 | B64 => Some(Class::Int),
        F32 => Some(Class::F32),
        F64 => Some(Class::F64),
        _ => None,
    }
}

fn err(cx: &mut Ctx<'_, '_>, m: Name<'_>, msg: String, label: &str) -> bool {
    cx.emit(Diagnostic::error("check/modifiers", m.span, msg).with_label(label.to_string()).with_note(NOTE));
    false
}

/// Checks the modifiers of the arithmetic opcodes of the table; returns false
/// after reporting an error. Other opcodes, and half-precision types, pass.
pub fn check(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) -> bool {
    let op = i.opcode.text;
    let mut ty = None;
    for m in &i.modifiers {
        if let Some(t) = ScalarType::from_str(m.text) {
            ty = Some(t);
        }
    }
    let Some(t) = ty else { return true };
    let Some(c) = class(t) else { return true };
    if matches!(op, "sin" | "cos" | "lg2" | "ex2" | "tanh") && c == Class::F64 {
        let m = i.modifiers.iter().find(|m| m.text == ".f64").copied().unwrap_or(i.opcode);
        return err(cx, m, format!("`{op}` has no `.f64` form (it takes `.f32`, and half types)"), "unexpected instruction type");
    }
    let Some(al) = allowed(op, c) else { return true };
    // `add.u32`, for messages (built only when one is reported).
    let what = || format!("{op}{}", t.as_str());
    let mut mode: Option<Name<'_>> = None;
    let mut seen: SmallVec<[&str; 4]> = SmallVec::new();
    for m in &i.modifiers {
        let x = m.text;
        if ScalarType::from_str(x).is_some() || x == ".uni" {
            continue;
        }
        if al.modes.contains(&x) {
            if let Some(prev) = mode {
                return err(cx, *m, format!("`{}` takes one of {}; `{}` is a second one after `{}`", what(), al.modes.join(" "), x, prev.text), "second mode");
            }
            mode = Some(*m);
        } else if al.flags.contains(&x) {
            if seen.contains(&x) {
                return err(cx, *m, format!("`{x}` is repeated on `{}`", what()), "repeated modifier");
            }
            seen.push(x);
        } else {
            let why = if ROUND.contains(&x) && c == Class::Int {
                "integer arithmetic takes no rounding modifier".to_string()
            } else {
                format!("`{}` does not take `{x}`", what())
            };
            return err(cx, *m, format!("`{x}` is not a modifier of `{}`: {why}", what()), "illegal modifier");
        }
    }
    if al.mode_required && mode.is_none() {
        cx.emit(
            Diagnostic::error("check/modifiers", i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span)), format!("`{}` needs one of {}", opname(i), al.modes.join(" ")))
                .with_label("missing modifier")
                .with_note(NOTE),
        );
        return false;
    }
    let has = |f: &str| seen.contains(&f);
    let mode_is = |s: &str| mode.is_some_and(|m| m.text == s);
    // Combinations the table above cannot say by itself.
    let bad = match (op, c) {
        ("rcp", Class::F64) if mode_is(".approx") && !has(".ftz") => Some((".approx", "`rcp.approx.f64` exists only as `rcp.approx.ftz.f64`".to_string())),
        _ => None,
    };
    if let Some((name, msg)) = bad {
        let m = i.modifiers.iter().find(|m| m.text == name).copied().unwrap_or(i.opcode);
        return err(cx, m, msg, "modifier does not apply here");
    }
    true
}
