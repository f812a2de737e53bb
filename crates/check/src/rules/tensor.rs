//! The sm_80 tensor instructions and `mbarrier`, rule
//! `check/tensor-operands`, as ptxas 12.9 checks them (each verdict recorded
//! in `tests/check/`, files `tensor-operands--*`):
//!
//! - `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16
//!   d, [p]` (9.7.14.5.15): a vector of 1, 2 or 4 32-bit registers; 6.5,
//!   sm_75 (`::cta` 7.8). `stmatrix` (9.7.14.5.16) the same with `[p], r`:
//!   7.8, sm_90. `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (9.7.14.5.17):
//!   two 32-bit registers, no vectors; 7.8, sm_75.
//! - `mma.sync.aligned.shape.row.col{.rnd}{.satfinite}.dtype.atype.btype.ctype
//!   d, a, b, c` (9.7.14.5.14) in the shapes and types the engine runs:
//!   m16n8k8 `.f16` (6.5, sm_75), `.bf16` and `.tf32` (7.0, sm_80);
//!   m16n8k16 `.f16`/`.bf16`/`.s8`/`.u8`, m16n8k32 `.s8`/`.u8`, m16n8k4
//!   `.tf32` and m8n8k4 `.f64` (7.0, sm_80). `.f16` multiplicands take
//!   `.f16` or `.f32` accumulators (D and C of one type), the others
//!   `.f32` (`.s32` for the integers, `.f64` for `.f64`); A and B have the
//!   same type except `.s8`/`.u8` mixes; `.rnd` only with `.f64`,
//!   `.satfinite` only with the integers. Each of d, a, b, c is a vector of
//!   exactly the registers the fragment needs (PTX ISA 9.7.14.5.x), each
//!   as wide as the fragment's registers (32-bit, or 64-bit for `.f64`);
//!   the first element's type must fit the operand (integer or bit-size
//!   registers for packed multiplicands, as ptxas 12.9 checks it); C may
//!   hold immediates.
//!
//!
//! Other shapes and forms (`m8n8k4` on `.f16`, `m8n8k16`, sparse
//! `mma.sp`, `.m16n16` `ldmatrix`) are reported as not known by this rule.
//! The asynchronous copies (`cp.async`, the bulk and tensor copies) are
//! [`super::acopy`]'s.

use super::operand::{reg_bits, resolve_operand, value, Role};
use super::opname;
use ptxsim_isa::grammar::{Choice, MatShape};
use ptxsim_isa::{spelling, Insn, MatrixNum, MatrixSpace, MmaLayout, MmaRnd};
use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.9.25 cp.async, 9.7.14.5 mma, ldmatrix, stmatrix, movmatrix): `cp.async.{ca,cg}.shared.global [dst], [src], 4|8|16{, src-size|ignore-src}{, policy}`, `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`; `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16 {d...}, [p]`; `movmatrix.sync.aligned.m8n8.trans.b16 d, a`; `mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype {d}, {a}, {b}, {c}` with one register per fragment register";

pub(super) fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

pub(super) fn count(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>, n: &str) {
    cx.emit(
        Diagnostic::error("check/operand-count", i.span, format!("`{}` takes {n} operands; {} given", opname(i), i.operands.len()))
            .with_note("rule check/operand-count: each instruction has a fixed operand list (PTX ISA chapter 9)"),
    );
}

/// Checks the typed tensor rows: `ldmatrix`, `stmatrix`, `movmatrix`,
/// `mma` here, `wgmma`, `setmaxnreg` and `tensormap` in [`super::hopper`].
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    match *insn {
        Insn::Ldmatrix { shape, num, space, ty, .. } => ld_st_matrix(cx, i, false, (shape, num, space, ty)),
        Insn::Stmatrix { shape, num, space, ty, .. } => ld_st_matrix(cx, i, true, (shape, num, space, ty)),
        Insn::Movmatrix { shape, trans, .. } => movmatrix(cx, i, shape, trans),
        Insn::Mma { shape, layout, rnd, satfinite, dtype, atype, btype, ctype, .. } => mma(cx, i, MmaForm { shape, layout, rnd: rnd.is_some(), satfinite, types: [dtype, atype, btype, ctype] }),
        _ => super::hopper::typed(cx, i, insn),
    }
}

/// The span of the first modifier spelling `text` (a typed field's
/// modifier), or the whole head when none does.
pub(super) fn span_of(i: &Instruction<'_>, text: &str) -> Span {
    i.modifiers.iter().find(|m| m.text == text).map(|m| m.span).unwrap_or_else(|| head(i))
}

/// An address operand of `cp.async`/`ldmatrix`/`stmatrix`: `[reg{+off}]`
/// with an integer register (8 to 64 bits, as ptxas 12.9 and 13.5 take), or `[var{+off}]` naming a
/// variable of state space `want` (any addressable one for generic).
pub(super) fn address<'a>(cx: &mut Ctx<'_, 'a>, op: &Operand<'a>, want: Option<StateSpace>) -> bool {
    let OperandKind::Address(a) = &op.kind else {
        err(cx, op.span, "an address `[...]` is expected here".to_string(), "expected `[address]`");
        return false;
    };
    let Some(base) = a.base else { return true };
    match cx.lookup(base.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => {
            let ok = v.ty().is_some_and(|t| !matches!(t, ScalarType::Pred) && matches!(t.bits(), 8 | 16 | 32 | 64) && !matches!(t, ScalarType::F16 | ScalarType::F32 | ScalarType::F64));
            if !ok {
                err(cx, base.span, format!("address register `{}` must be an integer register", base.text), "not an address register");
            }
            ok
        }
        Some(Sym::Var(v)) => {
            let vs = v.space();
            if want.is_some_and(|w| w != vs) || vs == StateSpace::Sreg {
                err(cx, base.span, format!("`{}` is a `{}` variable; this address is in `{}`", base.text, vs.as_str(), want.map(|w| w.as_str()).unwrap_or("generic memory")), "state space mismatch");
                return false;
            }
            true
        }
        Some(_) => {
            err(cx, base.span, format!("`{}` cannot be addressed", base.text), "not a variable or an address register");
            false
        }
        None => {
            cx.unknown(base, "register or variable");
            false
        }
    }
}

/// The elements of a vector operand, or `None` (and an error) when it is not one.
pub(super) fn vector<'o, 'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &'o Operand<'a>, n: usize, what: &str) -> Option<&'o [Operand<'a>]> {
    match &o.kind {
        OperandKind::Vector(v) if v.len() == n => Some(v),
        OperandKind::Vector(v) => {
            err(cx, o.span, format!("`{}`: {what} is a vector of {n} registers; {} given", opname(i), v.len()), "vector size mismatch");
            None
        }
        _ => {
            err(cx, o.span, format!("`{}`: {what} is a vector of {n} registers `{{...}}`", opname(i)), "vector expected");
            None
        }
    }
}

/// Checks a fragment vector: every element a register of `bits` bits
/// (sinks in a destination, immediates where `imm`), the first one of a
/// type that fits `ty`.
pub(super) fn fragment<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, elems: &[Operand<'a>], ty: ScalarType, bits: u32, role: Role, imm: bool) -> bool {
    for e in elems {
        match &e.kind {
            OperandKind::Sink => {}
            OperandKind::Int(_) | OperandKind::Float(_) if imm => {}
            OperandKind::Name { .. } => match reg_bits(cx, e) {
                Some(b) if b == bits => {}
                Some(b) => {
                    err(cx, e.span, format!("`{}`: the elements of this vector are {bits}-bit registers; this one has {b} bits", opname(i)), "incompatible vector element");
                    return false;
                }
                None => {
                    resolve_operand(cx, e);
                    err(cx, e.span, format!("`{}`: a fragment element must be a register", opname(i)), "register expected");
                    return false;
                }
            },
            _ => {
                err(cx, e.span, format!("`{}`: a fragment element must be a register", opname(i)), "register expected");
                return false;
            }
        }
    }
    match elems.iter().find(|e| !matches!(e.kind, OperandKind::Sink)) {
        Some(first) => value(cx, first, ty, role, Size::Exact, i),
        None => true,
    }
}

/// `ldmatrix`/`stmatrix` (`st`): shape, matrix count, state space, type.
type MatrixForm = (Option<MatShape>, MatrixNum, Option<MatrixSpace>, ScalarType);

fn ld_st_matrix<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, st: bool, (shape, num, space, ty): MatrixForm) {
    cx.require(if st { Feature::Stmatrix } else { Feature::Ldmatrix }, head(i));
    if space == Some(MatrixSpace::SharedCta) {
        cx.require(Feature::SharedCta, head(i));
    }
    if shape != Some(M8N8) || ty != ScalarType::B16 {
        return err(cx, head(i), format!("`{}`: the forms ptxsim knows are `{}.sync.aligned.m8n8.{{.x1,.x2,.x4}}{{.trans}}{{.shared}}.b16`", opname(i), i.opcode.text), "unknown form");
    }
    let n = num.count();
    let [first, second] = i.operands.as_slice() else { return count(cx, i, "two") };
    let (regs, addr) = if st { (second, first) } else { (first, second) };
    if !address(cx, addr, space.map(|_| StateSpace::Shared)) {
        return;
    }
    let Some(elems) = vector(cx, i, regs, n, if st { "the source" } else { "the destination" }) else { return };
    fragment(cx, i, elems, ScalarType::B32, 32, if st { Role::Src } else { Role::Dest }, false);
}

/// The `.m8n8` shape of the matrix moves.
const M8N8: MatShape = MatShape { m: 8, n: 8, k: None };

fn movmatrix<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, shape: Option<MatShape>, trans: bool) {
    cx.require(Feature::Movmatrix, head(i));
    if shape != Some(M8N8) || !trans {
        return err(cx, head(i), format!("`{}`: the form is `movmatrix.sync.aligned.m8n8.trans.b16`", opname(i)), "illegal form");
    }
    let [dst, src] = i.operands.as_slice() else { return count(cx, i, "two") };
    for o in [dst, src] {
        if matches!(o.kind, OperandKind::Vector(_)) {
            return err(cx, o.span, format!("`{}` takes registers, not vectors", i.opcode.text), "vector not allowed");
        }
    }
    if matches!(src.kind, OperandKind::Int(_) | OperandKind::Float(_)) {
        return err(cx, src.span, format!("`{}`'s source is a register", i.opcode.text), "register expected");
    }
    if value(cx, dst, ScalarType::B32, Role::Dest, Size::Exact, i) {
        value(cx, src, ScalarType::B32, Role::Src, Size::Exact, i);
    }
}

/// An `mma`'s typed modifiers.
struct MmaForm {
    shape: Option<MatShape>,
    layout: [Option<MmaLayout>; 2],
    rnd: bool,
    satfinite: bool,
    /// `.dtype.atype.btype.ctype`.
    types: [ScalarType; 4],
}

/// (M, N, K) of an `mma` shape the rule knows.
fn mma_shape(s: MatShape) -> Option<(usize, usize, usize)> {
    let mnk = (s.m as usize, s.n as usize, s.k? as usize);
    matches!(mnk, (16, 8, 16) | (16, 8, 8) | (16, 8, 4) | (16, 8, 32) | (8, 8, 4) | (8, 8, 16)).then_some(mnk)
}

fn mma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, f: MmaForm) {
    use ScalarType::*;
    let Some(shape) = f.shape else { return err(cx, head(i), format!("`{}` needs a shape", opname(i)), "missing shape") };
    let sspan = span_of(i, &shape.to_string());
    let Some((m, n, k)) = mma_shape(shape) else {
        return err(cx, sspan, format!("`{shape}` is not a shape of `mma` that ptxsim knows (m16n8k4/k8/k16/k32, m8n8k4 and m8n8k16)"), "illegal or unknown modifier");
    };
    let [dt, at, bt, ct] = f.types;
    // Volta's `mma.m8n8k4` on `.f16` (PTX ISA 6.4, sm_70): any layouts,
    // `.f16` or `.f32` accumulators, a quad-pair's fragments.
    let volta = (m, n, k) == (8, 8, 4) && at == F16 && bt == F16;
    match f.layout {
        [Some(_), Some(_)] if volta => {}
        [Some(MmaLayout::Row), Some(MmaLayout::Col)] => {}
        [Some(MmaLayout::Row), Some(l)] | [Some(l), _] => return err(cx, span_of(i, l.as_str()), format!("`{}`: the layouts of these shapes are `.row.col`", opname(i)), "illegal layout"),
        _ => return err(cx, head(i), format!("`{}` needs `.row.col`", opname(i)), "missing layouts"),
    }
    let aspan = i.modifiers.iter().filter(|m| ScalarType::from_str(m.text).is_some()).nth(1).map(|m| m.span).unwrap_or_else(|| head(i));
    let int = |t: ScalarType| matches!(t, S8 | U8);
    let ok = match (at, bt) {
        (F16, F16) if volta => matches!((dt, ct), (F16, F16) | (F32, F16) | (F32, F32)),
        (F16, F16) => matches!((m, n, k), (16, 8, 8) | (16, 8, 16)) && matches!((dt, ct), (F32, F32) | (F16, F16)),
        (Bf16, Bf16) | (Tf32, Tf32) if !matches!((m, n, k), (16, 8, 16) | (16, 8, 8) | (16, 8, 4)) => false,
        (Bf16, Bf16) => k != 4 && dt == F32 && ct == F32,
        (Tf32, Tf32) => k != 16 && dt == F32 && ct == F32,
        (a, b) if int(a) && int(b) => matches!((m, n, k), (16, 8, 16) | (16, 8, 32) | (8, 8, 16)) && dt == S32 && ct == S32,
        (F64, F64) => (m, n, k) == (8, 8, 4) && dt == F64 && ct == F64,
        (E4m3 | E5m2, E4m3 | E5m2) => (m, n, k) == (16, 8, 32) && dt == F32 && ct == F32,
        _ => false,
    };
    if !ok {
        return err(cx, aspan, format!("`{}`: ptxsim knows no `mma` of this shape with these types", opname(i)), "unexpected instruction types");
    }
    if f.rnd && at != F64 {
        let s = i.modifiers.iter().find(|m| MmaRnd::from_modifier(m.text).is_some()).map(|m| m.span).unwrap_or_else(|| head(i));
        return err(cx, s, "a rounding modifier applies to `mma` on `.f64` only".to_string(), "illegal rounding modifier");
    }
    if f.satfinite && !int(at) {
        return err(cx, span_of(i, spelling::SATFINITE), "`.satfinite` applies to the integer `mma` forms".to_string(), "unexpected modifier");
    }
    cx.require(
        if volta {
            Feature::MmaM8N8K4F16
        } else if k == 8 && at == F16 {
            Feature::MmaM16N8K8
        } else if (m, n, k) == (8, 8, 16) {
            Feature::MmaM8N8K16
        } else if matches!(at, E4m3 | E5m2) {
            Feature::MmaFp8
        } else {
            Feature::MmaSm80
        },
        sspan,
    );
    let per = |t: ScalarType| match t {
        S8 | U8 | E4m3 | E5m2 => 4,
        F16 | Bf16 => 2,
        _ => 1,
    };
    // (Volta's m8n8k4: each of the four quad-pairs computes its own
    // 8x8 product, so a thread holds four A and B elements and eight C.)
    let regs = |elems: usize, t: ScalarType| if volta { elems / 8 / per(t) } else { elems / 32 / per(t) };
    let [d, a, b, c] = i.operands.as_slice() else { return count(cx, i, "four") };
    let wide = if at == F64 { 64 } else { 32 };
    // The register type an element must fit: packed multiplicands are
    // integer or bit-size registers; accumulators have their type.
    let reg_ty = |t: ScalarType| match t {
        F32 => F32,
        F64 => F64,
        S32 => S32,
        _ => U32,
    };
    let parts = [(d, regs(m * n, dt), dt, "D", Role::Dest), (a, regs(m * k, at), at, "A", Role::Src), (b, regs(k * n, bt), bt, "B", Role::Src), (c, regs(m * n, ct), ct, "C", Role::Src)];
    for (o, count, t, what, role) in parts {
        let Some(elems) = vector(cx, i, o, count, what) else { return };
        if !fragment(cx, i, elems, reg_ty(t), wide, role, what == "C") {
            return;
        }
    }
}
