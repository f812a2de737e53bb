//! The sm_80 tensor and asynchronous-copy instructions, rule
//! `check/tensor-operands`, as ptxas 12.9 checks them (each verdict recorded
//! in `tests/check/`, files `tensor-operands--*`):
//!
//! - `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B,
//!   .L2::128B, .L2::256B} [dst], [src], cp-size{, src-size | ignore-src}
//!   {, cache-policy}` (PTX ISA 9.7.9.25): `.ca` or `.cg` required, the
//!   state spaces `.shared` then `.global`; cp-size an immediate 4, 8 or
//!   16 (16 only with `.cg`); src-size a `.u32` value, ignore-src a
//!   predicate (7.5); the cache policy a `.b64` operand that needs
//!   `.L2::cache_hint` (7.4, as do the prefetch sizes). 7.0, sm_80.
//!   `cp.async.commit_group`, `cp.async.wait_all` (no operands) and
//!   `cp.async.wait_group N` (an integer constant): 7.0, sm_80.
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
//! - `cp.async.mbarrier.arrive{.noinc}{.shared}.b64 [addr]`: 7.0, sm_80
//!   (`mbarrier` itself is [`super::mbar`]'s).
//!
//! Other shapes and forms (`m8n8k4` on `.f16`, `m8n8k16`, sparse
//! `mma.sp`, `.m16n16` `ldmatrix`) are reported as not known by this rule;
//! the non-tensor bulk copies and reductions (`cp.async.bulk`,
//! `cp.reduce.async.bulk`, PTX ISA 9.7.9.25.4) are typed as ptxas 12.9
//! types them; the tensor ones (`.tensor`) are only resolved.

use super::operand::{pred_reg, resolve_operand, value, Role};
use super::{opname, Decoded};
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

/// Checks `cp.async` and its groups and the bulk copies.
pub fn tensor<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, d: &Decoded<'a>) {
    let _ = d;
    match i.opcode.text {
        "cp" if i.modifiers.first().is_some_and(|m| m.text == ".reduce") && i.has_modifier(".async") && i.has_modifier(".bulk") && !i.has_modifier(".tensor") => cp_reduce_bulk(cx, i),
        "cp" if i.has_modifier(".async") && i.has_modifier(".bulk") && !i.has_modifier(".tensor") && i.modifiers.first().is_some_and(|m| m.text == ".async") => cp_async_bulk(cx, i),
        // The tensor bulk copies (`cp.async.bulk.tensor`,
        // `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`)
        // are resolved, and their tensor map must be a generic address.
        "cp" if !i.has_modifier(".async") || i.has_modifier(".bulk") => {
            super::operand::resolve_all(cx, i);
            tensor_map_operand(cx, i);
        }
        "cp" if i.has_modifier(".mbarrier") => cp_async_mbarrier(cx, i),
        "cp" => cp_async(cx, i),
        _ => super::operand::resolve_all(cx, i),
    }
}

/// The tensor map of a tensor copy, `[tensorMap, {coordinates}]`: "the
/// generic address of the opaque tensor-map object" (PTX ISA
/// 9.7.9.25.5.1), so a register holding one, or a `.global` variable by
/// name; ptxas 13.5 refuses a `.param` or `.const` variable by name
/// ("State space mismatch between instruction and address"): such a map's
/// address is taken with `mov` first, as nvcc does.
fn tensor_map_operand(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) {
    for o in &i.operands {
        let OperandKind::Bracket(parts) = &o.kind else { continue };
        let Some(Operand { kind: OperandKind::Name { name, component: None }, span }) = parts.first() else { continue };
        let Some(Sym::Var(v)) = cx.lookup(name.text) else { continue };
        let sp = v.space();
        if !matches!(sp, StateSpace::Reg | StateSpace::Global) {
            cx.emit(
                Diagnostic::error("check/state-space", *span, format!("the tensor map of `{}` is a generic address: `{}` is a {} variable (take its address with `mov` into a register first)", opname(i), name.text, sp.as_str()))
                    .with_label("not a generic address".to_string())
                    .with_note("rule check/state-space (PTX ISA 9.7.9.25.5.1 cp.async.bulk.tensor): the tensor map operand is the generic address of the tensor map, in a register or as a .global variable's name; ptxas: State space mismatch between instruction and address"),
            );
        }
    }
}

/// The register size of a name operand, if it is a register.
pub(super) fn reg_bits(cx: &Ctx<'_, '_>, o: &Operand<'_>) -> Option<u32> {
    match &o.kind {
        OperandKind::Name { name, component: None } => match cx.lookup(name.text) {
            Some(Sym::Var(v)) if v.space() == StateSpace::Reg => v.ty().map(|t| t.bits()),
            _ => None,
        },
        _ => None,
    }
}

/// An address operand of `cp.async`/`ldmatrix`/`stmatrix`: `[reg{+off}]`
/// with a 32- or 64-bit integer register, or `[var{+off}]` naming a
/// variable of state space `want` (any addressable one for generic).
pub(super) fn address<'a>(cx: &mut Ctx<'_, 'a>, op: &Operand<'a>, want: Option<StateSpace>) -> bool {
    let OperandKind::Address(a) = &op.kind else {
        err(cx, op.span, "an address `[...]` is expected here".to_string(), "expected `[address]`");
        return false;
    };
    let Some(base) = a.base else { return true };
    match cx.lookup(base.text) {
        Some(Sym::Var(v)) if v.space() == StateSpace::Reg => {
            let ok = v.ty().is_some_and(|t| !matches!(t, ScalarType::Pred) && matches!(t.bits(), 32 | 64) && !matches!(t, ScalarType::F32 | ScalarType::F64));
            if !ok {
                err(cx, base.span, format!("address register `{}` must be a 32- or 64-bit integer", base.text), "not an address register");
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

fn cp_async<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
    if mods.first() != Some(&".async") {
        return err(cx, head(i), format!("`{}` is not a form of `cp` ptxsim knows (only `cp.async` with its groups)", opname(i)), "unknown form");
    }
    cx.require(Feature::CpAsync, head(i));
    let ops = &i.operands;
    match &mods[1..] {
        [".commit_group"] | [".wait_all"] => {
            if !ops.is_empty() {
                count(cx, i, "no");
            }
            return;
        }
        [".wait_group"] => {
            match ops.as_slice() {
                [o] if matches!(o.kind, OperandKind::Int(_)) => {}
                [o] => err(cx, o.span, "`cp.async.wait_group N` takes an integer constant".to_string(), "not a constant"),
                _ => count(cx, i, "one"),
            }
            return;
        }
        _ => {}
    }
    let (mut level, mut spaces, mut hint, mut prefetch) = (None, Vec::new(), false, false);
    for m in &i.modifiers[1..] {
        match m.text {
            ".ca" | ".cg" if level.is_none() => level = Some(m.text),
            ".shared" | ".shared::cta" | ".global" => spaces.push(m.text),
            ".L2::cache_hint" if !hint => hint = true,
            ".L2::64B" | ".L2::128B" | ".L2::256B" if !prefetch => prefetch = true,
            _ => return err(cx, m.span, format!("`{}` is not a modifier of `cp.async`", m.text), "illegal modifier"),
        }
    }
    let Some(level) = level else { return err(cx, head(i), format!("`{}` needs `.ca` or `.cg`", opname(i)), "missing `.ca`/`.cg`") };
    if !matches!(spaces.as_slice(), [".shared" | ".shared::cta", ".global"]) {
        return err(cx, head(i), format!("`{}` copies `.shared.global`: the destination in shared memory, the source in global memory", opname(i)), "state space incorrect");
    }
    if hint || prefetch {
        cx.require(Feature::CpAsyncHint, head(i));
    }
    let fixed = 3 + hint as usize;
    if ops.len() != fixed && ops.len() != fixed + 1 {
        if ops.len() == fixed + 1 + 1 && !hint {
            return err(cx, head(i), format!("`{}` with {} operands needs `.L2::cache_hint`", opname(i), ops.len()), "cache policy without `.L2::cache_hint`");
        }
        return count(cx, i, &format!("{fixed} or {}", fixed + 1));
    }
    if !address(cx, &ops[0], Some(StateSpace::Shared)) || !address(cx, &ops[1], Some(StateSpace::Global)) {
        return;
    }
    match &ops[2].kind {
        OperandKind::Int(v) if matches!(v.value, 4 | 8 | 16) && (level == ".ca" || v.value == 16) => {}
        _ => {
            let want = if level == ".cg" { "16" } else { "4, 8 or 16" };
            return err(cx, ops[2].span, format!("`{}`: cp-size must be the constant {want}", opname(i)), "illegal cp-size");
        }
    }
    if ops.len() == fixed + 1 {
        let o = &ops[3];
        let pred = match &o.kind {
            OperandKind::Not(_) => true,
            OperandKind::Name { name, component: None } => matches!(cx.lookup(name.text), Some(Sym::Var(v)) if v.ty() == Some(ScalarType::Pred)),
            _ => false,
        };
        if pred {
            cx.require(Feature::CpAsyncIgnoreSrc, o.span);
            let n = match &o.kind {
                OperandKind::Not(n) => *n,
                OperandKind::Name { name, .. } => *name,
                _ => return,
            };
            pred_reg(cx, n, i);
        } else if !value(cx, o, ScalarType::U32, Role::Src, Size::Exact, i) {
            return;
        }
    }
    if hint {
        value(cx, &ops[ops.len() - 1], ScalarType::B64, Role::Src, Size::Exact, i);
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
    matches!(mnk, (16, 8, 16) | (16, 8, 8) | (16, 8, 4) | (16, 8, 32) | (8, 8, 4)).then_some(mnk)
}

fn mma<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, f: MmaForm) {
    use ScalarType::*;
    let Some(shape) = f.shape else { return err(cx, head(i), format!("`{}` needs a shape", opname(i)), "missing shape") };
    let sspan = span_of(i, &shape.to_string());
    let Some((m, n, k)) = mma_shape(shape) else {
        return err(cx, sspan, format!("`{shape}` is not a shape of `mma` that ptxsim knows (m16n8k4/k8/k16/k32 and m8n8k4)"), "illegal or unknown modifier");
    };
    match f.layout {
        [Some(MmaLayout::Row), Some(MmaLayout::Col)] => {}
        [Some(MmaLayout::Row), Some(l)] | [Some(l), _] => return err(cx, span_of(i, l.as_str()), format!("`{}`: the layouts of these shapes are `.row.col`", opname(i)), "illegal layout"),
        _ => return err(cx, head(i), format!("`{}` needs `.row.col`", opname(i)), "missing layouts"),
    }
    let [dt, at, bt, ct] = f.types;
    let aspan = i.modifiers.iter().filter(|m| ScalarType::from_str(m.text).is_some()).nth(1).map(|m| m.span).unwrap_or_else(|| head(i));
    let int = |t: ScalarType| matches!(t, S8 | U8);
    let ok = match (at, bt) {
        (F16, F16) => matches!((m, n, k), (16, 8, 8) | (16, 8, 16)) && matches!((dt, ct), (F32, F32) | (F16, F16)),
        (Bf16, Bf16) | (Tf32, Tf32) if !matches!((m, n, k), (16, 8, 16) | (16, 8, 8) | (16, 8, 4)) => false,
        (Bf16, Bf16) => k != 4 && dt == F32 && ct == F32,
        (Tf32, Tf32) => k != 16 && dt == F32 && ct == F32,
        (a, b) if int(a) && int(b) => matches!((m, n, k), (16, 8, 16) | (16, 8, 32)) && dt == S32 && ct == S32,
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
        if k == 8 && at == F16 {
            Feature::MmaM16N8K8
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
    let regs = |elems: usize, t: ScalarType| elems / 32 / per(t);
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

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`: 7.0, sm_80.
fn cp_async_mbarrier<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    cx.require(Feature::CpAsync, head(i));
    let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
    let (space, ok) = match &mods[..] {
        [".async", ".mbarrier", ".arrive", rest @ ..] => match rest.strip_prefix(&[".noinc"][..]).unwrap_or(rest) {
            [".shared", ".b64"] => (Some(StateSpace::Shared), true),
            [".shared::cta", ".b64"] => {
                cx.require(Feature::SharedCta, head(i));
                (Some(StateSpace::Shared), true)
            }
            [".b64"] => (None, true),
            _ => (None, false),
        },
        _ => (None, false),
    };
    if !ok {
        return err(cx, head(i), format!("`{}`: the form is `cp.async.mbarrier.arrive{{.noinc}}{{.shared}}.b64 [addr]`", opname(i)), "illegal form");
    }
    match i.operands.as_slice() {
        [a] => {
            address(cx, a, space);
        }
        _ => count(cx, i, "one"),
    }
}

const BULK_NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.9.25.4 cp.async.bulk): `cp.async.bulk.{shared::cluster,shared::cta}.global.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint} [dst], [src], size, [mbar]{, ctaMask}{, policy}`, `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]`, `cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}{.cp_mask} [dst], [src], size{, policy}{, byteMask}`, `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group{.read} N`, `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy}`; size a 32-bit register or a multiple of 16";

fn bulk_err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(BULK_NOTE));
}

/// `size` of a bulk copy: a 32-bit integer register or an integer constant
/// that is a multiple of 16 (ptxas 12.9: "Arguments mismatch" for other
/// registers, "expected to be a multiple of 16" for other constants).
fn bulk_size<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>) {
    match &o.kind {
        OperandKind::Int(v) if v.value % 16 != 0 => bulk_err(cx, o.span, format!("`{}`: size {} is not a multiple of 16", opname(i), v.value), "size not a multiple of 16"),
        OperandKind::Int(_) => {}
        _ => {
            value(cx, o, ScalarType::U32, Role::Src, Size::Exact, i);
        }
    }
}

/// `cp.async.bulk` without `.tensor`: its forms, state spaces, completion
/// mechanisms, operand counts and the size, as ptxas 12.9 checks them.
fn cp_async_bulk<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    cx.require(Feature::BulkCopy, head(i));
    let ops = &i.operands;
    let rest: Vec<&str> = i.modifiers.iter().skip(2).map(|m| m.text).collect();
    match rest.as_slice() {
        [".commit_group"] => {
            if !ops.is_empty() {
                count(cx, i, "no");
            }
            return;
        }
        [".wait_group"] | [".wait_group", ".read"] => {
            match ops.as_slice() {
                [o] if matches!(o.kind, OperandKind::Int(_)) => {}
                [o] => bulk_err(cx, o.span, "`cp.async.bulk.wait_group N` takes an integer constant".to_string(), "not a constant"),
                _ => count(cx, i, "one"),
            }
            return;
        }
        [".prefetch", ".L2", ".global", hint @ ..] if hint.is_empty() || hint == [".L2::cache_hint"] => {
            let want = 2 + hint.len();
            if ops.len() != want {
                return count(cx, i, &want.to_string());
            }
            if address(cx, &ops[0], Some(StateSpace::Global)) {
                bulk_size(cx, i, &ops[1]);
            }
            if want == 3 {
                value(cx, &ops[2], ScalarType::B64, Role::Src, Size::Exact, i);
            }
            return;
        }
        _ => {}
    }
    let (mut spaces, mut mbar, mut group, mut multicast, mut hint, mut mask) = (Vec::new(), false, false, false, false, false);
    for m in i.modifiers.iter().skip(2) {
        match m.text {
            ".global" | ".shared::cta" | ".shared::cluster" => spaces.push(m.text),
            ".mbarrier::complete_tx::bytes" if !mbar && !group => mbar = true,
            ".bulk_group" if !mbar && !group => group = true,
            ".multicast::cluster" if !multicast => multicast = true,
            ".L2::cache_hint" if !hint => hint = true,
            ".cp_mask" if !mask => mask = true,
            _ => return bulk_err(cx, m.span, format!("`{}` is not a modifier of `cp.async.bulk` here", m.text), "illegal modifier"),
        }
    }
    let to_shared = match spaces.as_slice() {
        [".shared::cluster" | ".shared::cta", ".global"] => true,
        [".shared::cluster", ".shared::cta"] => true,
        [".global", ".shared::cta"] => false,
        _ => return bulk_err(cx, head(i), format!("`{}`: the state spaces must be `.shared::cluster.global`, `.shared::cta.global`, `.shared::cluster.shared::cta` or `.global.shared::cta`", opname(i)), "state space incorrect"),
    };
    if !mbar && !group {
        return bulk_err(cx, head(i), format!("`{}` needs its completion mechanism (`.mbarrier::complete_tx::bytes` or `.bulk_group`)", opname(i)), "missing completion mechanism");
    }
    let from_shared = spaces[1] == ".shared::cta";
    if to_shared != mbar || (multicast && (from_shared || !to_shared)) || (mask && to_shared) || (hint && from_shared && to_shared) {
        return bulk_err(cx, head(i), format!("`{}` is not a form of `cp.async.bulk`", opname(i)), "illegal combination");
    }
    if spaces[0] == ".shared::cta" {
        cx.require(Feature::BulkCopyCtaDst, head(i));
    }
    if mask {
        cx.require(Feature::BulkCopyCpMask, head(i));
    }
    let want = 3 + mbar as usize + multicast as usize + hint as usize + mask as usize;
    if ops.len() != want {
        return count(cx, i, &want.to_string());
    }
    let space = |s: &str| if s == ".global" { StateSpace::Global } else { StateSpace::Shared };
    if !address(cx, &ops[0], Some(space(spaces[0]))) || !address(cx, &ops[1], Some(space(spaces[1]))) {
        return;
    }
    bulk_size(cx, i, &ops[2]);
    let mut k = 3;
    if mbar {
        address(cx, &ops[k], Some(StateSpace::Shared));
        k += 1;
    }
    if multicast {
        value(cx, &ops[k], ScalarType::B16, Role::Src, Size::Exact, i);
        k += 1;
    }
    if hint {
        value(cx, &ops[k], ScalarType::B64, Role::Src, Size::Exact, i);
        k += 1;
    }
    if mask {
        value(cx, &ops[k], ScalarType::B16, Role::Src, Size::Exact, i);
    }
}

/// `cp.reduce.async.bulk` without `.tensor` (PTX ISA 9.7.9.25.4.2): into
/// global memory with `.bulk_group{.L2::cache_hint}` or into a cluster
/// CTA's shared memory with `.mbarrier::complete_tx::bytes`, from this
/// CTA's shared memory, with the manual's table of reduction operations
/// and element types (ptxas 12.9: "Incorrect type", "Illegal reduction
/// operation", "Modifier '.noftz' required").
fn cp_reduce_bulk<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    cx.require(Feature::BulkCopy, head(i));
    let ops = &i.operands;
    let (mut spaces, mut mbar, mut group, mut hint, mut noftz) = (Vec::new(), false, false, false, false);
    let (mut op, mut ty) = (None, None);
    for m in i.modifiers.iter().skip(3) {
        match m.text {
            ".global" | ".shared::cta" | ".shared::cluster" => spaces.push(m.text),
            ".mbarrier::complete_tx::bytes" if !mbar && !group => mbar = true,
            ".bulk_group" if !mbar && !group => group = true,
            ".L2::cache_hint" if !hint => hint = true,
            ".noftz" if !noftz => noftz = true,
            ".and" | ".or" | ".xor" | ".add" | ".inc" | ".dec" | ".min" | ".max" if op.is_none() => op = Some(m.text),
            t if ty.is_none() && ScalarType::from_str(t).is_some() => ty = ScalarType::from_str(t).map(|x| (x, m.span)),
            _ => return bulk_err(cx, m.span, format!("`{}` is not a modifier of `cp.reduce.async.bulk` here", m.text), "illegal modifier"),
        }
    }
    let global = match spaces.as_slice() {
        [".global", ".shared::cta"] => true,
        [".shared::cluster", ".shared::cta"] => false,
        _ => return bulk_err(cx, head(i), format!("`{}`: the state spaces must be `.global.shared::cta` or `.shared::cluster.shared::cta`", opname(i)), "state space incorrect"),
    };
    if global != group || global == mbar || (hint && !global) {
        let want = if global { "`.bulk_group` (and optionally `.L2::cache_hint`)" } else { "`.mbarrier::complete_tx::bytes`" };
        return bulk_err(cx, head(i), format!("`{}` into {} memory completes with {want}", opname(i), if global { "global" } else { "shared::cluster" }), "completion mechanism");
    }
    let (Some(op), Some((t, tspan))) = (op, ty) else {
        return bulk_err(cx, head(i), format!("`{}` needs a reduction operation and an element type", opname(i)), "missing modifier");
    };
    use ScalarType::*;
    let ok = match (op, global) {
        (".add", true) => matches!(t, U32 | S32 | U64 | F32 | F64 | F16 | Bf16),
        (".min" | ".max", true) => matches!(t, U32 | S32 | U64 | S64 | F16 | Bf16),
        (".and" | ".or" | ".xor", true) => matches!(t, B32 | B64),
        (".add", false) => matches!(t, U32 | S32 | U64),
        (".min" | ".max", false) => matches!(t, U32 | S32),
        (".and" | ".or" | ".xor", false) => t == B32,
        _ => t == U32, // .inc, .dec
    };
    if !ok {
        return bulk_err(cx, tspan, format!("`{}`: `{op}` does not take `{}` into {} memory", opname(i), t.as_str(), if global { "global" } else { "shared::cluster" }), "incorrect type for the operation");
    }
    let half = matches!(t, F16 | Bf16);
    if op == ".add" && half && !noftz {
        return bulk_err(cx, tspan, format!("`{}`: `.add` on `{}` needs `.noftz`", opname(i), t.as_str()), "missing `.noftz`");
    }
    if noftz && !(half && op == ".add") {
        return bulk_err(cx, head(i), format!("`{}`: `.noftz` applies to `.add` on `.f16` and `.bf16` only", opname(i)), "illegal modifier");
    }
    let want = 3 + mbar as usize + hint as usize;
    if ops.len() != want {
        return count(cx, i, &want.to_string());
    }
    let dst = if global { StateSpace::Global } else { StateSpace::Shared };
    if !address(cx, &ops[0], Some(dst)) || !address(cx, &ops[1], Some(StateSpace::Shared)) {
        return;
    }
    bulk_size(cx, i, &ops[2]);
    if mbar {
        address(cx, &ops[3], Some(StateSpace::Shared));
    }
    if hint {
        value(cx, &ops[ops.len() - 1], ScalarType::B64, Role::Src, Size::Exact, i);
    }
}

#[cfg(test)]
mod tests {
    /// The error code of the first error of `body` in a kernel on sm_90a
    /// with a `.param` tensor map `tmap`, a `.global` one `gmap` and a
    /// `.const` one `cmap`, or `None` where it checks clean.
    fn first_error(body: &str) -> Option<String> {
        let src = format!(
            ".version 8.0\n.target sm_90a\n.address_size 64\n.global .align 64 .b8 gmap[128];\n.const .align 64 .b8 cmap[128];\n.visible .entry k(.param .align 64 .b8 tmap[128])\n{{\n.reg .b32 %r<8>;\n.reg .b16 %h<4>;\n.reg .b64 %rd<8>;\n.shared .align 128 .b8 box[256];\n.shared .align 8 .b64 bar;\nmov.u32 %r2, box;\nmov.u32 %r3, bar;\nmov.u64 %rd5, tmap;\ncvta.param.u64 %rd6, %rd5;\n{body}\nret;\n}}\n"
        );
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{body}: {:?}", parsed.diagnostics);
        crate::check_module(&parsed.module).into_iter().find(|d| d.is_error()).map(|d| d.code.to_string())
    }

    /// The tensor map of a tensor copy is a generic address (PTX ISA
    /// 9.7.9.25.5.1): ptxas 13.5 takes a register or a `.global` variable,
    /// and refuses a `.param` or `.const` variable named directly ("State
    /// space mismatch between instruction and address").
    #[test]
    fn a_tensor_map_is_a_generic_address() {
        let load = |m: &str| format!("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [{m}, {{%r1}}], [%r3];");
        assert_eq!(first_error(&load("%rd6")), None);
        assert_eq!(first_error(&load("gmap")), None);
        assert_eq!(first_error(&load("tmap")).as_deref(), Some("check/state-space"));
        assert_eq!(first_error(&load("cmap")).as_deref(), Some("check/state-space"));
        let store = "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [tmap, {%r1}], [%r2];";
        assert_eq!(first_error(store).as_deref(), Some("check/state-space"));
        let reduce = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [tmap, {%r1}], [%r2];";
        assert_eq!(first_error(reduce).as_deref(), Some("check/state-space"));
        assert_eq!(first_error(&reduce.replace("tmap", "%rd6")), None);
        let prefetch = "cp.async.bulk.prefetch.tensor.1d.L2.global.tile [tmap, {%r1}];";
        assert_eq!(first_error(prefetch).as_deref(), Some("check/state-space"));
        // The im2col forms (ptxas 13.5 accepts these).
        assert_eq!(first_error("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r2], [%rd6, {%r1, %r1, %r1}], [%r3], {%h1};"), None);
        assert_eq!(first_error("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd6, {%r1, %r1, %r1}], [%r2];"), None);
    }
}
