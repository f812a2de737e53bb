//! The typed data-movement rows: `mov` (PTX ISA 9.7.9.1-2), `cvt`
//! (9.7.9.21) and `cvt.pack` (9.7.9.22). Their modifiers are decoded by
//! the rows' grammars (`ptxsim_isa`), the combinations judged by
//! `Insn::misfit`; this module adds the gates and types the operands.
//!
//! - `mov.type d, a`: both of the type; a packing form (`mov.b64 %rd,
//!   {%r1, %r2}`) is not typed element-wise.
//! - `cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a`: `d` may be wider than
//!   `dtype` and `a` wider than `atype` (PTX ISA 6.4.1: ld, st and cvt
//!   relax sizes); between integer types no rounding, no `.ftz`, and
//!   `.sat` only where a value can lie outside the result's range (rule
//!   `check/cvt-modifiers`, as ptxas 12.9 judges it). The packing forms
//!   (`cvt.rn.f16x2.f32 d, a, b`, the narrow float formats) are resolved,
//!   not typed. Gates: a bfloat16 or `.tf32` result, a bfloat16 source,
//!   `.relu`.
//! - `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`: `.u16`/`.s16`
//!   take `a, b`, the narrower types also `c` (`.b32`); gated (sm_72,
//!   sub-byte types sm_75).

use super::operand::{resolve_all, value, Role};
use super::opname;
use crate::ctx::Ctx;
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::modifier_span;
use ptxsim_isa::{CvtType, Insn, PackType};
use ptxsim_syntax::ast::{Instruction, OperandKind, ScalarType};
use ptxsim_syntax::{Diagnostic, Span};

const CVT_NOTE: &str = "rule check/cvt-modifiers (PTX ISA 9.7.9.21 cvt): between integer types there is no rounding and no `.ftz`; `.sat` clamps to the destination's range, and ptxas 12.9 refuses it where no source value can lie outside that range";
const PACK_NOTE: &str = "rule check/scalar-operands (PTX ISA 9.7.9.22 cvt.pack): `cvt.pack.sat.convertType.s32 d, a, b` for .u16/.s16, `cvt.pack.sat.convertType.s32.b32 d, a, b, c` for .u8/.s8/.u4/.s4/.u2/.s2";

/// The opcode and all its modifiers: where a gate is reported.
fn whole(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

fn count_error(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, want: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {want} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
    );
}

/// Checks a `mov`, `cvt` or `cvt.pack` (its modifiers decoded).
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    if let Some(m) = insn.misfit() {
        let (code, note) = match insn {
            Insn::CvtPack { .. } => ("check/scalar-operands", PACK_NOTE),
            _ => ("check/cvt-modifiers", CVT_NOTE),
        };
        cx.emit(Diagnostic::error(code, modifier_span(i, m.modifier), m.why).with_label("modifier does not apply here").with_note(note));
        return resolve_all(cx, i);
    }
    match insn {
        Insn::Mov { ty } => mov(cx, i, ty),
        Insn::CvtPack { ctype, btype, .. } => cvt_pack(cx, i, ctype, btype.is_some()),
        _ => match insn.cvt() {
            Some(x) => cvt(cx, i, x),
            None => resolve_all(cx, i),
        },
    }
}

/// `mov.type d, a`: both operands of the type, unless it packs or unpacks.
fn mov<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ty: ScalarType) {
    let ops = &i.operands;
    // Packing and unpacking (`mov.b64 %rd, {%r1, %r2}`): a `.b` type, two
    // or four elements of one size that together make the type's (ptxas
    // 12.9: "Arguments mismatch", "Illegal vector size", "Incompatible
    // elements of vector expression").
    if let Some(v) = ops.iter().find(|o| matches!(o.kind, OperandKind::Vector(_))) {
        const NOTE: &str = "rule check/operand-type (PTX ISA 9.7.9.10 mov): `mov.b16/.b32/.b64/.b128` packs or unpacks a vector of two or four elements whose sizes add up to the type's";
        let OperandKind::Vector(elems) = &v.kind else { return resolve_all(cx, i) };
        let n = elems.len();
        let why = if crate::types::class(ty) != crate::types::Class::Bits {
            Some(format!("`{}` packs and unpacks only with a `.b` type", opname(i)))
        } else if n != 2 && n != 4 {
            Some(format!("a vector of {n} elements: `{}` packs two or four", opname(i)))
        } else {
            None
        };
        if let Some(why) = why {
            cx.emit(Diagnostic::error("check/operand-type", v.span, why).with_note(NOTE));
            return resolve_all(cx, i);
        }
        if !super::operand::same_size_elements(cx, v, i) {
            return resolve_all(cx, i);
        }
        if let Some(b) = elems.iter().find_map(|e| super::operand::reg_bits(cx, e)) {
            if b * n as u32 != ty.bits() {
                cx.emit(Diagnostic::error("check/operand-type", v.span, format!("{n} elements of {b} bits make {} bits, not the {} of `{}`", b * n as u32, ty.bits(), opname(i))).with_note(NOTE));
                return resolve_all(cx, i);
            }
        }
        return resolve_all(cx, i);
    }
    value(cx, &ops[0], ty, Role::Dest, Size::Exact, i);
    value(cx, &ops[1], ty, Role::Src, Size::Exact, i);
}

/// `cvt`: the gates, then the operands of the scalar forms.
fn cvt<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, x: ptxsim_isa::Cvt) {
    let span = whole(i);
    if matches!(x.dtype, CvtType::Bf16 | CvtType::Bf16x2 | CvtType::Tf32) {
        cx.require(Feature::CvtToBf16, span);
    }
    if matches!(x.atype, CvtType::Bf16 | CvtType::Bf16x2) {
        cx.require(Feature::CvtFromBf16, span);
    }
    if x.relu {
        cx.require(Feature::Relu, span);
    }
    if x.dtype == CvtType::F16x2 && x.atype == CvtType::F32 {
        cx.require(Feature::CvtF16x2F32, span);
    }
    // ptxas 12.9: "Feature 'cvt with .e4m3x2/.e5m2x2' requires .target
    // sm_90 or higher", and on sm_89 "... on sm_89' requires PTX ISA
    // .version 8.1 or later".
    if [x.dtype, x.atype].iter().any(|t| matches!(t, CvtType::E4m3x2 | CvtType::E5m2x2)) {
        let sm89 = cx.sm.as_ref().is_some_and(|(sm, _)| sm.number == 89);
        cx.require(if sm89 { Feature::CvtF8x2Sm89 } else { Feature::CvtF8x2 }, span);
    }
    // The packing forms take more operands (ptxas 13.5: "Arguments
    // mismatch" for another count); only their two-operand forms with two
    // scalar types are typed here.
    let want = x.operands();
    if i.operands.len() != want {
        return count_error(cx, i, ["", "one", "two", "three", "four"][want]);
    }
    let (Some(dt), Some(at), 2) = (x.dtype.scalar(), x.atype.scalar(), want) else { return resolve_all(cx, i) };
    value(cx, &i.operands[0], dt, Role::Dest, Size::AtLeast, i);
    value(cx, &i.operands[1], at, Role::Src, Size::AtLeast, i);
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`.
fn cvt_pack<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, ctype: PackType, merge: bool) {
    use ScalarType::*;
    cx.require(Feature::CvtPack, whole(i));
    let (bits, _) = ctype.bits_signed();
    if bits < 8 {
        cx.require(Feature::CvtPackSubByte, whole(i));
    }
    let n = if merge { 4 } else { 3 };
    if i.operands.len() != n {
        return count_error(cx, i, if merge { "four" } else { "three" });
    }
    value(cx, &i.operands[0], U32, Role::Dest, Size::AtLeast, i);
    value(cx, &i.operands[1], S32, Role::Src, Size::Exact, i);
    value(cx, &i.operands[2], S32, Role::Src, Size::Exact, i);
    if merge {
        value(cx, &i.operands[3], B32, Role::Src, Size::Exact, i);
    }
}
