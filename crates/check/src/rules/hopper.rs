//! The Hopper rows' rules (rule `check/tensor-operands`), on their typed
//! [`Insn`]s, as ptxas 12.9 judges them (verdicts in `tests/check/`, files
//! `hopper--*`):
//!
//! - `wgmma.{fence,commit_group}.sync.aligned` (no operands),
//!   `wgmma.wait_group.sync.aligned N` (an integer constant) and
//!   `wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype
//!   d, a, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a,}
//!   imm-trans-b}` (PTX ISA 9.7.15.5.2): the type combinations of 9.7.15.2,
//!   N in the manual's steps, D a vector of the fragment's registers, A a
//!   64-bit descriptor or a vector of four 32-bit registers, B a descriptor,
//!   scale-d a predicate or a constant, the scales -1 or 1, the transposes 0
//!   or 1 (only for `.f16`/`.bf16`; with A in registers only B's);
//!   `.satfinite` only on the integer form. 8.0, sm_90a; `.s8` with `.u8`
//!   8.4. The sparse
//!   (`.sp`) and single-bit (`.b1.b1.and.popc`) forms are typed by their
//!   modifiers; their operands are only resolved.
//! - `setmaxnreg.{inc,dec}.sync.aligned.u32 N` (9.7.17.1): N an integer
//!   constant, a multiple of 8 in 24..=256 (ptxas 12.9 also takes `.s32`).
//!   8.0, sm_90a (and the sm_100 family's `a`/`f` targets).
//! - `tensormap.replace.tile.field{.ss}.b1024.type [addr], {ord,} new_val`
//!   (9.7.9.28): `.b64` for `.global_address` and `.global_stride`, `.b32`
//!   for the others; `ord` an integer constant 0..=4 for the per-dimension
//!   fields; the enumerated fields (`.elemtype`, `.interleave_layout`,
//!   `.swizzle_mode`, `.fill_mode`) an integer constant in their sm_90a
//!   range; 8.3, sm_90a (`.swizzle_atomicity` 8.6, sm_100a).
//!   `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release
//!   .scope.sync.aligned [dst], [src], 128` (9.7.9.29): 8.3, sm_90.

use super::operand::{pred_reg, resolve_all, value, Role};
use super::opname;
use super::tensor::{address, count, fragment, head, span_of, vector};
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::MatShape;
use ptxsim_isa::{spelling, Insn, TensormapField, TensormapOp, TensormapSpace, WgmmaOp};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.15 wgmma, 9.7.17.1 setmaxnreg, 9.7.9.28 tensormap.replace, 9.7.9.29 tensormap.cp_fenceproxy, as ptxas 12.9 checks them)";

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

/// Checks `wgmma`, `setmaxnreg` and `tensormap`.
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    match *insn {
        Insn::Setmaxnreg { .. } => setmaxnreg(cx, i),
        Insn::Wgmma { op, sp, shape, satfinite, dtype, atype, btype, b1, bitop, popc, .. } => {
            cx.require(Feature::Wgmma, head(i));
            arch_specific(cx, i, |n| n == 90);
            let bits = b1[0].is_some() || bitop.is_some() || popc;
            match op {
                WgmmaOp::MmaAsync if sp || bits => resolve_all(cx, i),
                WgmmaOp::MmaAsync => wgmma_mma(cx, i, shape, satfinite, [dtype, atype, btype]),
                _ if sp || bits || shape.is_some() || satfinite || dtype.is_some() => {
                    err(cx, head(i), format!("`{}`: `wgmma{}` takes no shape, types or other qualifiers", opname(i), op.as_str()), "unexpected modifiers");
                }
                WgmmaOp::WaitGroup => match i.operands.as_slice() {
                    [o] if matches!(o.kind, OperandKind::Int(_)) => {}
                    [o] => err(cx, o.span, format!("`{}` takes an integer constant", opname(i)), "not a constant"),
                    _ => count(cx, i, "one"),
                },
                _ if !i.operands.is_empty() => count(cx, i, "no"),
                _ => {}
            }
        }
        Insn::Tensormap { op: TensormapOp::Replace, mode, field, spaces, b1024, ty, proxy, release, scope, sync, aligned } => {
            cx.require(Feature::TensormapReplace, head(i));
            if field == Some(TensormapField::SwizzleAtomicity) {
                cx.require(Feature::TensormapSwizzleAtomicity, head(i));
                arch_specific(cx, i, |n| n >= 100);
            } else {
                arch_specific(cx, i, |n| n >= 90);
            }
            if proxy || release || scope.is_some() || sync || aligned || spaces[1].is_some() {
                return err(cx, head(i), format!("`{}`: not a modifier combination of `tensormap.replace`", opname(i)), "illegal modifier");
            }
            let (Some(_), Some(field), true, Some(ty)) = (mode, field, b1024, ty) else {
                return err(cx, head(i), format!("`{}`: the form is `tensormap.replace.tile.field{{.global,.shared::cta}}.b1024.{{.b32,.b64}}`", opname(i)), "incomplete form");
            };
            tensormap_replace(cx, i, field, spaces[0], ty);
        }
        Insn::Tensormap { mode, field, spaces, b1024, ty, proxy, release, scope, sync, aligned, .. } => {
            cx.require(Feature::TensormapCpFenceproxy, head(i));
            if mode.is_some() || field.is_some() || b1024 || ty.is_some() {
                return err(cx, head(i), format!("`{}`: not a modifier of `tensormap.cp_fenceproxy`", opname(i)), "illegal modifier");
            }
            if spaces != [Some(TensormapSpace::Global), Some(TensormapSpace::SharedCta)] {
                return err(cx, head(i), format!("`{}` copies `.global.shared::cta`", opname(i)), "state space incorrect");
            }
            if !(proxy && release && scope.is_some() && sync && aligned) {
                return err(cx, head(i), format!("`{}`: the form is `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned`", opname(i)), "incomplete form");
            }
            let [dst, src, size] = i.operands.as_slice() else { return count(cx, i, "three") };
            if address(cx, dst, Some(StateSpace::Global)) && address(cx, src, Some(StateSpace::Shared)) {
                match &size.kind {
                    OperandKind::Int(v) if v.value == 128 => {}
                    _ => err(cx, size.span, format!("`{}`: the size is the constant 128", opname(i)), "size must be 128"),
                }
            }
        }
        _ => resolve_all(cx, i),
    }
}

/// The arch-specific target an instruction needs (`sm_90a`; ptxas 12.9:
/// "Instruction 'wgmma.fence' not supported on .target 'sm_90'"): below
/// sm_90 the feature gate already said so.
fn arch_specific(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, ok: impl Fn(u32) -> bool) {
    let Some((sm, tspan)) = cx.sm else { return };
    if sm.number < 90 || (sm.suffix != 0 && ok(sm.number) && (sm.number != 90 || sm.suffix == b'a')) {
        return;
    }
    cx.emit(
        Diagnostic::error("check/isa-target", head(i), format!("`{}` is not supported on .target {sm}: it needs an architecture-specific target (`sm_90a`)", opname(i)))
            .with_label("needs an `a` target")
            .with_secondary(tspan, "the module's target is declared here")
            .with_note(format!("rule check/isa-target: {NOTE}")),
    );
}

/// An integer-constant operand.
fn int(o: &Operand<'_>) -> Option<i64> {
    match &o.kind {
        OperandKind::Int(v) => Some(v.value as i64),
        _ => None,
    }
}

fn setmaxnreg<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    cx.require(Feature::Setmaxnreg, head(i));
    arch_specific(cx, i, |n| n >= 90);
    let [o] = i.operands.as_slice() else { return count(cx, i, "one") };
    match int(o) {
        None => err(cx, o.span, format!("`{}` takes an integer constant (ptxas: \"Arguments mismatch\")", opname(i)), "not a constant"),
        Some(v) if v % 8 != 0 || !(24..=256).contains(&v) => {
            err(cx, o.span, format!("`{}`: the register count {v} must be a multiple of 8 in 24..=256", opname(i)), "illegal register count")
        }
        Some(_) => {}
    }
}

/// The type rows of PTX ISA 9.7.15.2 (`.b1` apart): whether D, A, B go
/// together, and K of the shape.
fn wgmma_types(d: ScalarType, a: ScalarType, b: ScalarType) -> Option<u32> {
    use ScalarType::*;
    match (d, a, b) {
        (F16 | F32, F16, F16) | (F32, Bf16, Bf16) => Some(16),
        (F32, Tf32, Tf32) => Some(8),
        (F16 | F32, E4m3 | E5m2, E4m3 | E5m2) => Some(32),
        (S32, S8 | U8, S8 | U8) => Some(32),
        _ => None,
    }
}

fn wgmma_mma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, shape: Option<MatShape>, satfinite: bool, types: [Option<ScalarType>; 3]) {
    use ScalarType::*;
    let Some(shape) = shape else { return err(cx, head(i), format!("`{}` needs a shape `.m64nNkK` (ptxas: \"Shape modifier required\")", opname(i)), "missing shape") };
    let [Some(d), Some(a), Some(b)] = types else { return err(cx, head(i), format!("`{}` takes three types: `.dtype.atype.btype`", opname(i)), "unexpected instruction types") };
    let Some(k) = wgmma_types(d, a, b) else { return err(cx, head(i), format!("`{}`: wgmma does not take D `{}` with A `{}` and B `{}`", opname(i), d.as_str(), a.as_str(), b.as_str()), "unexpected instruction types") };
    if matches!((a, b), (S8, U8) | (U8, S8)) {
        cx.require(Feature::WgmmaMixedInt, head(i));
    }
    let int_ty = d == S32;
    let n_ok = if int_ty { matches!(shape.n, 8 | 16 | 24) || (32..=256).contains(&shape.n) && shape.n % 16 == 0 } else { (8..=256).contains(&shape.n) && shape.n % 8 == 0 };
    if shape.m != 64 || shape.k != Some(k) || !n_ok {
        return err(cx, span_of(i, &shape.to_string()), format!("`{shape}` is not a shape of `wgmma` with `{}` inputs (m64nNk{k})", a.as_str()), "unknown shape");
    }
    if satfinite && !int_ty {
        return err(cx, span_of(i, spelling::SATFINITE), format!("`{}`: `.satfinite` is only for the integer wgmma", opname(i)), "illegal modifier");
    }
    let ops = i.operands.as_slice();
    let a_regs = matches!(ops.get(1).map(|o| &o.kind), Some(OperandKind::Vector(_)));
    let half = matches!(a, F16 | Bf16);
    let imms = match (int_ty, half, a_regs) {
        (true, _, _) => 0,
        (false, false, _) => 2,
        (false, true, true) => 3,
        (false, true, false) => 4,
    };
    if ops.len() != 4 + imms {
        return count(cx, i, &(4 + imms).to_string());
    }
    let dregs = if d == F16 { shape.n / 4 } else { shape.n / 2 } as usize;
    let dty = match d {
        F32 => F32,
        S32 => S32,
        _ => U32,
    };
    let Some(elems) = vector(cx, i, &ops[0], dregs, "D") else { return };
    if !fragment(cx, i, elems, dty, 32, Role::Dest, false) {
        return;
    }
    if a_regs {
        let Some(elems) = vector(cx, i, &ops[1], 4, "A") else { return };
        if !fragment(cx, i, elems, U32, 32, Role::Src, false) {
            return;
        }
    } else if !value(cx, &ops[1], B64, Role::Src, Size::Exact, i) {
        return;
    }
    if !value(cx, &ops[2], B64, Role::Src, Size::Exact, i) {
        return;
    }
    match &ops[3].kind {
        OperandKind::Int(_) => {}
        OperandKind::Name { name, component: None } => {
            if !pred_reg(cx, *name, i) {
                return;
            }
        }
        _ => return err(cx, ops[3].span, format!("`{}`: scale-d is a predicate or a constant", opname(i)), "predicate expected"),
    }
    for (k, o) in ops[4..].iter().enumerate() {
        let (ok, what): (&[i64], &str) = if k < 2 { (&[1, -1], "imm-scale-a/b is -1 or 1") } else { (&[0, 1], "imm-trans-a/b is 0 or 1") };
        if !int(o).is_some_and(|v| ok.contains(&v)) {
            return err(cx, o.span, format!("`{}`: {what}", opname(i)), "illegal immediate");
        }
    }
}

fn tensormap_replace<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, field: TensormapField, space: Option<TensormapSpace>, ty: ScalarType) {
    if ty.bits() != field.bits() {
        let tspan = i.modifiers.iter().find(|m| ScalarType::from_str(m.text) == Some(ty)).map(|m| m.span).unwrap_or_else(|| head(i));
        return err(cx, tspan, format!("`{}`: `{}` takes a `.b{}` value", opname(i), field.as_str(), field.bits()), "illegal type for the field");
    }
    let want = 2 + field.ordinal() as usize;
    if i.operands.len() != want {
        return count(cx, i, &want.to_string());
    }
    let ops = i.operands.as_slice();
    let space = space.map(|s| if s == TensormapSpace::Global { StateSpace::Global } else { StateSpace::Shared });
    if !address(cx, &ops[0], space) {
        return;
    }
    if field.ordinal() && !int(&ops[1]).is_some_and(|v| (0..=4).contains(&v)) {
        return err(cx, ops[1].span, format!("`{}`: `{}` takes the dimension as an integer constant 0..=4", opname(i), field.as_str()), "ordinal expected");
    }
    if let Some(max) = field.max_value() {
        let o = &ops[want - 1];
        if !int(o).is_some_and(|v| (0..=max as i64).contains(&v)) {
            return err(cx, o.span, format!("`{}`: `{}` takes an integer constant 0..={max}", opname(i), field.as_str()), "illegal value");
        }
        return;
    }
    value(cx, &ops[want - 1], ty, Role::Src, Size::Exact, i);
}
