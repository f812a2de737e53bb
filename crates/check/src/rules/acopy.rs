//! The asynchronous copies, rule `check/tensor-operands`, matched on their
//! typed rows (`cp.async`, `cp`: `ptxsim_isa`'s [`CopyKind`]), as ptxas
//! 12.9 checks them (each verdict recorded in `tests/check/`, files
//! `tensor-operands--cp-async*`, `bulk-copy--*`, `bulk-reduce--*`) and
//! ptxas 13.5 where the tests say so:
//!
//! - `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B,
//!   .L2::128B, .L2::256B} [dst], [src], cp-size{, src-size | ignore-src}
//!   {, cache-policy}` (PTX ISA 9.7.9.25.3): `.ca` or `.cg` required, the
//!   state spaces `.shared` then `.global`; cp-size an immediate 4, 8 or
//!   16 (16 only with `.cg`); src-size a `.u32` value, ignore-src a
//!   predicate (7.5); the cache policy a `.b64` operand that needs
//!   `.L2::cache_hint` (7.4, as do the prefetch sizes). 7.0, sm_80.
//!   `cp.async.commit_group`, `cp.async.wait_all` (no operands) and
//!   `cp.async.wait_group N` (an integer constant): 7.0, sm_80.
//!   `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`: 7.0, sm_80.
//! - the non-tensor bulk copies and reductions (`cp.async.bulk`,
//!   `cp.reduce.async.bulk`, PTX ISA 9.7.9.25.4): forms, state spaces,
//!   completion mechanisms, operand counts and the size.
//! - the tensor copies (`cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`,
//!   `cp.async.bulk.prefetch.tensor`, PTX ISA 9.7.9.25.5): 8.0, sm_90; the
//!   tensor map a generic address, one `.b32` coordinate per dimension,
//!   the mbarrier, the im2col offsets (dims - 2 `.b16` values), the
//!   multicast mask (`.b16`) and the cache policy (`.b64`), as ptxas 13.5
//!   types them ([`tensor`]); sm_100's load modes and CTA groups are gated
//!   on sm_100.

use super::operand::{pred_reg, resolve_all, resolve_operand, value, Role};
use super::opname;
use super::tensor::{address, count, head};
use crate::ctx::{Ctx, Sym};
use crate::isa::Feature;
use crate::types::Size;
use ptxsim_isa::grammar::Choice;
use ptxsim_isa::{copy_stray, AtomOp, Stray, CopyCompletion, CopyKind, CopyMode100, CopySpace, CpLevel, Insn, TensorDim, TensorLoadMode};
use ptxsim_syntax::ast::{Instruction, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.9.25 cp.async): `cp.async.{ca,cg}.shared.global [dst], [src], 4|8|16{, src-size|ignore-src}{, policy}`, `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`, `cp.async.mbarrier.arrive{.noinc}{.shared}.b64 [addr]`";

const BULK_NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.9.25.4 cp.async.bulk): `cp.async.bulk.{shared::cluster,shared::cta}.global.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint} [dst], [src], size, [mbar]{, ctaMask}{, policy}`, `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]`, `cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}{.cp_mask} [dst], [src], size{, policy}{, byteMask}`, `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group{.read} N`, `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy}`; size a 32-bit register or a multiple of 16";

const TENSOR_NOTE: &str = "rule check/tensor-operands (PTX ISA 9.7.9.25.5 cp.async.bulk.tensor, as ptxas 13.5 types it): `cp.async.bulk.tensor.Nd.shared::{cluster,cta}.global{.tile,.im2col}.mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint} [dst], [tensorMap, {c1..cN}], [mbar]{, {offsets}}{, ctaMask}{, policy}`, `cp.async.bulk.tensor.Nd.global.shared::cta{.tile,.im2col_no_offs}.bulk_group{.L2::cache_hint} [tensorMap, {c1..cN}], [src]{, policy}`, `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp{.tile,.im2col_no_offs}.bulk_group{.L2::cache_hint}` the same, `cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile,.im2col}{.L2::cache_hint} [tensorMap, {c1..cN}]{, {offsets}}{, policy}`; N `.b32` coordinates, N - 2 `.b16` im2col offsets (3 to 5 dimensions), a `.b16` mask, a `.b64` policy";

fn err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(NOTE));
}

fn bulk_err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(BULK_NOTE));
}

fn tensor_err(cx: &mut Ctx<'_, '_>, span: Span, msg: String, label: &str) {
    cx.emit(Diagnostic::error("check/tensor-operands", span, msg).with_label(label.to_string()).with_note(TENSOR_NOTE));
}

/// The state space an address of copy space `s` is in.
fn space(s: CopySpace) -> StateSpace {
    if s.shared() {
        StateSpace::Shared
    } else {
        StateSpace::Global
    }
}

/// Checks an instruction of the `cp.async` and `cp` rows.
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: &Insn) {
    let Some(kind) = insn.copy_kind() else {
        // `.mbarrier` without `.arrive`, `.bulk.wait_all`, `.tensor` without `.bulk`, ...
        cx.require(Feature::CpAsync, head(i));
        resolve_all(cx, i);
        return err(cx, head(i), format!("`{}` is not a form of `cp.async` ptxsim knows", opname(i)), "unknown form");
    };
    match kind {
        CopyKind::CpAsync | CopyKind::Commit | CopyKind::Wait | CopyKind::WaitAll | CopyKind::MbarrierArrive => cx.require(Feature::CpAsync, head(i)),
        _ => cx.require(Feature::BulkCopy, head(i)),
    }
    if let Some((m, span, why)) = copy_stray(i, kind) {
        resolve_all(cx, i);
        let label = "illegal modifier";
        let msg = match why {
            Stray::NotOfForm => format!("`{m}` is not a modifier of `{}`", kind.name()),
            // ptxas 13.5: "Unknown modifier '.arrive'" (`cp.async.arrive.mbarrier`).
            Stray::OutOfOrder => format!("`{}`: the instruction's name `{}` comes first, in order; `{m}` stands out of it", opname(i), kind.name()),
            // ptxas 13.5: "Multiple .noinc modifiers specified".
            Stray::Repeated => format!("`{}` takes `{m}` once", kind.name()),
        };
        return match kind {
            CopyKind::CpAsync | CopyKind::Commit | CopyKind::Wait | CopyKind::WaitAll | CopyKind::MbarrierArrive => err(cx, span, msg, label),
            CopyKind::Bulk | CopyKind::BulkCommit | CopyKind::BulkWait | CopyKind::BulkPrefetch | CopyKind::ReduceBulk => bulk_err(cx, span, msg, label),
            _ => tensor_err(cx, span, msg, label),
        };
    }
    match (kind, *insn) {
        (CopyKind::Commit | CopyKind::WaitAll | CopyKind::BulkCommit, _) => {
            if !i.operands.is_empty() {
                count(cx, i, "no");
            }
        }
        (CopyKind::Wait | CopyKind::BulkWait, _) => match i.operands.as_slice() {
            [o] if matches!(o.kind, OperandKind::Int(_)) => {}
            [o] => err(cx, o.span, format!("`{}` takes an integer constant", kind.name()), "not a constant"),
            _ => count(cx, i, "one"),
        },
        (CopyKind::CpAsync, Insn::CpAsync { level, spaces, hint, size, .. }) => cp_async(cx, i, level, spaces, hint || size.is_some(), hint),
        (CopyKind::MbarrierArrive, Insn::CpAsync { spaces, ty, .. }) => mbarrier_arrive(cx, i, spaces, ty),
        (CopyKind::BulkPrefetch, Insn::CpAsync { l2, spaces, hint, .. }) => bulk_prefetch(cx, i, l2, spaces, hint),
        (CopyKind::Bulk, Insn::CpAsync { spaces, completion, multicast, hint, cp_mask, .. }) => bulk(cx, i, spaces, completion, [multicast, hint, cp_mask]),
        (CopyKind::ReduceBulk, Insn::Cp { spaces, completion, op, hint, noftz, ty, .. }) => reduce_bulk(cx, i, spaces, completion, (op, ty), [hint, noftz]),
        _ => tensor(cx, i, kind, insn),
    }
}

/// `cp.async.{ca,cg}`: level, state spaces, operands.
fn cp_async<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, level: Option<CpLevel>, spaces: [Option<CopySpace>; 2], hinted: bool, hint: bool) {
    let ops = &i.operands;
    let Some(level) = level else { return err(cx, head(i), format!("`{}` needs `.ca` or `.cg`", opname(i)), "missing `.ca`/`.cg`") };
    if !matches!(spaces, [Some(CopySpace::Shared | CopySpace::SharedCta), Some(CopySpace::Global)]) {
        return err(cx, head(i), format!("`{}` copies `.shared.global`: the destination in shared memory, the source in global memory", opname(i)), "state space incorrect");
    }
    if hinted {
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
        OperandKind::Int(v) if matches!(v.value, 4 | 8 | 16) && (level == CpLevel::Ca || v.value == 16) => {}
        _ => {
            let want = if level == CpLevel::Cg { "16" } else { "4, 8 or 16" };
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

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`: 7.0, sm_80.
fn mbarrier_arrive<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, spaces: [Option<CopySpace>; 2], ty: Option<ScalarType>) {
    let space = match (spaces, ty) {
        ([None, None], Some(ScalarType::B64)) => None,
        ([Some(CopySpace::Shared), None], Some(ScalarType::B64)) => Some(StateSpace::Shared),
        ([Some(CopySpace::SharedCta), None], Some(ScalarType::B64)) => {
            cx.require(Feature::SharedCta, head(i));
            Some(StateSpace::Shared)
        }
        _ => return err(cx, head(i), format!("`{}`: the form is `cp.async.mbarrier.arrive{{.noinc}}{{.shared}}.b64 [addr]`", opname(i)), "illegal form"),
    };
    match i.operands.as_slice() {
        [a] => {
            address(cx, a, space);
        }
        _ => count(cx, i, "one"),
    }
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

/// `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy}`.
fn bulk_prefetch<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, l2: bool, spaces: [Option<CopySpace>; 2], hint: bool) {
    let ops = &i.operands;
    if !l2 || spaces != [Some(CopySpace::Global), None] {
        return bulk_err(cx, head(i), format!("`{}`: the form is `cp.async.bulk.prefetch.L2.global{{.L2::cache_hint}}`", opname(i)), "illegal form");
    }
    let want = 2 + hint as usize;
    if ops.len() != want {
        return count(cx, i, &want.to_string());
    }
    if address(cx, &ops[0], Some(StateSpace::Global)) {
        bulk_size(cx, i, &ops[1]);
    }
    if hint {
        value(cx, &ops[2], ScalarType::B64, Role::Src, Size::Exact, i);
    }
}

/// `cp.async.bulk` without `.tensor`: its forms, state spaces, completion
/// mechanisms, operand counts and the size, as ptxas 12.9 checks them.
fn bulk<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, spaces: [Option<CopySpace>; 2], completion: Option<CopyCompletion>, [multicast, hint, mask]: [bool; 3]) {
    use CopySpace::*;
    let ops = &i.operands;
    let (to_shared, dst, src) = match spaces {
        [Some(d @ (SharedCluster | SharedCta)), Some(Global)] => (true, d, Global),
        [Some(SharedCluster), Some(SharedCta)] => (true, SharedCluster, SharedCta),
        [Some(Global), Some(SharedCta)] => (false, Global, SharedCta),
        _ => return bulk_err(cx, head(i), format!("`{}`: the state spaces must be `.shared::cluster.global`, `.shared::cta.global`, `.shared::cluster.shared::cta` or `.global.shared::cta`", opname(i)), "state space incorrect"),
    };
    let Some(completion) = completion else {
        return bulk_err(cx, head(i), format!("`{}` needs its completion mechanism (`.mbarrier::complete_tx::bytes` or `.bulk_group`)", opname(i)), "missing completion mechanism");
    };
    let mbar = completion == CopyCompletion::Mbarrier;
    let from_shared = src == SharedCta;
    if to_shared != mbar || (multicast && (from_shared || !to_shared)) || (mask && to_shared) || (hint && from_shared && to_shared) {
        return bulk_err(cx, head(i), format!("`{}` is not a form of `cp.async.bulk`", opname(i)), "illegal combination");
    }
    if dst == SharedCta {
        cx.require(Feature::BulkCopyCtaDst, head(i));
    }
    if mask {
        cx.require(Feature::BulkCopyCpMask, head(i));
    }
    let want = 3 + mbar as usize + multicast as usize + hint as usize + mask as usize;
    if ops.len() != want {
        return count(cx, i, &want.to_string());
    }
    if !address(cx, &ops[0], Some(space(dst))) || !address(cx, &ops[1], Some(space(src))) {
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
fn reduce_bulk<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, spaces: [Option<CopySpace>; 2], completion: Option<CopyCompletion>, (op, ty): (Option<AtomOp>, Option<ScalarType>), [hint, noftz]: [bool; 2]) {
    use CopySpace::*;
    let ops = &i.operands;
    let global = match spaces {
        [Some(Global), Some(SharedCta)] => true,
        [Some(SharedCluster), Some(SharedCta)] => false,
        _ => return bulk_err(cx, head(i), format!("`{}`: the state spaces must be `.global.shared::cta` or `.shared::cluster.shared::cta`", opname(i)), "state space incorrect"),
    };
    let (group, mbar) = (completion == Some(CopyCompletion::BulkGroup), completion == Some(CopyCompletion::Mbarrier));
    if global != group || global == mbar || (hint && !global) {
        let want = if global { "`.bulk_group` (and optionally `.L2::cache_hint`)" } else { "`.mbarrier::complete_tx::bytes`" };
        return bulk_err(cx, head(i), format!("`{}` into {} memory completes with {want}", opname(i), if global { "global" } else { "shared::cluster" }), "completion mechanism");
    }
    let (Some(op), Some(t)) = (op, ty) else {
        return bulk_err(cx, head(i), format!("`{}` needs a reduction operation and an element type", opname(i)), "missing modifier");
    };
    let tspan = ptxsim_isa::field_span(i, "ty").unwrap_or_else(|| head(i));
    if matches!(op, AtomOp::Cas | AtomOp::Exch) {
        let span = ptxsim_isa::grammar::modifier_span(i, op.as_str());
        return bulk_err(cx, span, format!("`{}` is not a reduction operation of `cp.reduce.async.bulk`", op.as_str()), "illegal modifier");
    }
    use ScalarType::*;
    let ok = match (op, global) {
        (AtomOp::Add, true) => matches!(t, U32 | S32 | U64 | F32 | F64 | F16 | Bf16),
        (AtomOp::Min | AtomOp::Max, true) => matches!(t, U32 | S32 | U64 | S64 | F16 | Bf16),
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, true) => matches!(t, B32 | B64),
        (AtomOp::Add, false) => matches!(t, U32 | S32 | U64),
        (AtomOp::Min | AtomOp::Max, false) => matches!(t, U32 | S32),
        (AtomOp::And | AtomOp::Or | AtomOp::Xor, false) => t == B32,
        _ => t == U32, // .inc, .dec
    };
    if !ok {
        return bulk_err(cx, tspan, format!("`{}`: `{}` does not take `{}` into {} memory", opname(i), op.as_str(), t.as_str(), if global { "global" } else { "shared::cluster" }), "incorrect type for the operation");
    }
    let half = matches!(t, F16 | Bf16);
    if op == AtomOp::Add && half && !noftz {
        return bulk_err(cx, tspan, format!("`{}`: `.add` on `{}` needs `.noftz`", opname(i), t.as_str()), "missing `.noftz`");
    }
    if noftz && !(half && op == AtomOp::Add) {
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

/// The fields of a tensor copy the rule reads.
struct TensorForm {
    dim: Option<TensorDim>,
    spaces: [Option<CopySpace>; 2],
    mode: Option<TensorLoadMode>,
    wide: bool,
    completion: Option<CopyCompletion>,
    multicast: bool,
    hint: bool,
    l2: bool,
    op: Option<AtomOp>,
}

/// The tensor copies: `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`
/// and `cp.async.bulk.prefetch.tensor` (PTX ISA 9.7.9.25.5), as ptxas 13.5
/// checks them on sm_90a: the dimension, the state spaces (global to
/// `.shared::cluster` or, from 8.6, `.shared::cta` on an mbarrier; this
/// CTA's shared memory to global in a bulk group; the prefetch `.L2.global`),
/// the load mode (`.im2col` reads global memory, `.im2col_no_offs` writes
/// it, each on 3 to 5 dimensions; one mode), the reduction operation, and
/// the operands ([`tensor_operands`]).
fn tensor<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, kind: CopyKind, insn: &Insn) {
    use CopySpace::*;
    let f = match *insn {
        Insn::CpAsync { dim, spaces, mode, wide, completion, multicast, cta_group, hint, l2, .. } => {
            TensorForm { dim, spaces, mode, wide: wide.is_some() || cta_group.is_some(), completion, multicast, hint, l2, op: None }
        }
        Insn::Cp { dim, spaces, mode, wide, completion, op, hint, .. } => TensorForm { dim, spaces, mode, wide: wide.is_some(), completion, multicast: false, hint, l2: false, op },
        _ => return resolve_all(cx, i),
    };
    let name = kind.name();
    let bad = |cx: &mut Ctx<'_, 'a>, span: Span, msg: String, label: &str| {
        resolve_all(cx, i);
        tensor_err(cx, span, msg, label);
    };
    if f.wide {
        // sm_100's modes (a gather4 copy takes five coordinates in 2-d, an
        // `.im2col::w` copy two offsets) are not modelled: gated, the
        // operands resolved and the tensor map checked.
        cx.require(Feature::TensorCopySm100, head(i));
        resolve_all(cx, i);
        tensor_map_operand(cx, i);
        return;
    }
    let Some(dim) = f.dim else { return bad(cx, head(i), format!("`{}` needs its dimension (`.1d` to `.5d`)", opname(i)), "missing dimension") };
    let dims = dim.count();
    // ptxas 13.5: "Multiple .load_mode modifiers specified".
    let modes = i.modifiers.iter().filter(|m| TensorLoadMode::from_modifier(m.text).is_some() || CopyMode100::from_modifier(m.text).is_some());
    if let Some(second) = modes.skip(1).next() {
        return bad(cx, second.span, format!("`{}` takes one load mode", opname(i)), "second load mode");
    }
    let prefetch = kind == CopyKind::BulkPrefetchTensor;
    let to_shared = match (kind, f.spaces) {
        (CopyKind::BulkPrefetchTensor, [Some(Global), None]) => false,
        (CopyKind::BulkTensor, [Some(SharedCluster | SharedCta), Some(Global)]) => true,
        (CopyKind::BulkTensor | CopyKind::ReduceBulkTensor, [Some(Global), Some(SharedCta)]) => false,
        _ => {
            let want = match kind {
                CopyKind::BulkPrefetchTensor => "`.global`",
                CopyKind::ReduceBulkTensor => "`.global.shared::cta`",
                _ => "`.shared::cluster.global`, `.shared::cta.global` or `.global.shared::cta`",
            };
            return bad(cx, head(i), format!("`{}`: the state spaces of `{name}` are {want} (ptxas: State space incorrect)", opname(i)), "state space incorrect");
        }
    };
    if f.spaces[0] == Some(SharedCta) && to_shared {
        cx.require(Feature::BulkCopyCtaDst, head(i));
        if f.multicast {
            return bad(cx, head(i), format!("`{}`: `.multicast::cluster` copies into `.shared::cluster`, not `.shared::cta`", opname(i)), "illegal modifier");
        }
    }
    if prefetch && !f.l2 {
        return bad(cx, head(i), format!("`{}` needs its level `.L2`", opname(i)), "missing level");
    }
    match (prefetch, to_shared, f.completion) {
        (true, _, Some(c)) => return bad(cx, ptxsim_isa::grammar::modifier_span(i, c.as_str()), format!("`{name}` has no completion mechanism"), "illegal modifier"),
        (false, _, None) => return bad(cx, head(i), format!("`{}` needs its completion mechanism (`.mbarrier::complete_tx::bytes` or `.bulk_group`)", opname(i)), "missing completion mechanism"),
        (false, true, Some(CopyCompletion::BulkGroup)) | (false, false, Some(CopyCompletion::Mbarrier)) => {
            let want = if to_shared { "`.mbarrier::complete_tx::bytes`" } else { "`.bulk_group`" };
            return bad(cx, head(i), format!("`{}` into {} memory completes with {want}", opname(i), if to_shared { "shared" } else { "global" }), "completion mechanism");
        }
        _ => {}
    }
    if f.multicast && !to_shared {
        return bad(cx, ptxsim_isa::field_span(i, "multicast").unwrap_or_else(|| head(i)), format!("`{}`: only a copy into shared memory multicasts", opname(i)), "illegal modifier");
    }
    if kind == CopyKind::ReduceBulkTensor {
        match f.op {
            None => return bad(cx, head(i), format!("`{}` needs its reduction operation", opname(i)), "missing reduction operation"),
            Some(op @ (AtomOp::Cas | AtomOp::Exch)) => {
                return bad(cx, ptxsim_isa::grammar::modifier_span(i, op.as_str()), format!("`{}` is not a reduction operation of `{name}`", op.as_str()), "illegal reduction operation")
            }
            Some(_) => {}
        }
    }
    // The load mode: `.im2col` where global memory is read (a load or a
    // prefetch), `.im2col_no_offs` where it is written, on 3 to 5 dimensions.
    let im2col = match f.mode {
        None | Some(TensorLoadMode::Tile) => false,
        Some(m) => {
            let reads = to_shared || prefetch;
            let span = ptxsim_isa::grammar::modifier_span(i, m.as_str());
            if (m == TensorLoadMode::Im2col) != reads {
                return bad(cx, span, format!("`{}` is not a load mode of `{name}` in this direction (`.im2col` reads global memory, `.im2col_no_offs` writes it)", m.as_str()), "illegal modifier");
            }
            if dims < 3 {
                return bad(cx, span, format!("`{}` cannot be combined with `{}`: an im2col copy has 3 to 5 dimensions", dim.as_str(), m.as_str()), "too few dimensions");
            }
            m == TensorLoadMode::Im2col
        }
    };
    tensor_operands(cx, i, TensorOps { dims, to_shared, prefetch, offsets: im2col, multicast: f.multicast, hint: f.hint });
}

/// What a tensor copy's operands are.
struct TensorOps {
    dims: usize,
    to_shared: bool,
    prefetch: bool,
    /// im2col offsets (`.im2col` of a load or a prefetch).
    offsets: bool,
    multicast: bool,
    hint: bool,
}

/// The operands of a tensor copy, as ptxas 13.5 types them:
/// `[dst], [tensorMap, {c...}], [mbar]{, {offsets}}{, ctaMask}{, policy}`
/// into shared memory, `[tensorMap, {c...}], [src]{, policy}` into global
/// memory, `[tensorMap, {c...}]{, {offsets}}{, policy}` for a prefetch.
/// The coordinates are `dims` 32-bit integers ("Argument vector size
/// mismatch", "Arguments mismatch": not `.b64`, `.b16`, `.f32` or a
/// predicate), the offsets a vector of dims - 2 16-bit integers, the mask
/// 16 bits ("must be 16-bit size"), the policy `.b64`; the shared-memory
/// operands are shared addresses or registers ("State space mismatch" for
/// a `.global` variable).
fn tensor_operands<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, t: TensorOps) {
    let ops = &i.operands;
    let want = if t.prefetch {
        1 + t.offsets as usize + t.hint as usize
    } else if t.to_shared {
        3 + t.offsets as usize + t.multicast as usize + t.hint as usize
    } else {
        2 + t.hint as usize
    };
    if ops.len() != want {
        resolve_all(cx, i);
        return count(cx, i, &want.to_string());
    }
    let (map, rest) = match (t.prefetch, t.to_shared) {
        (true, _) => (&ops[0], &ops[1..]),
        (false, true) => {
            if !smem(cx, i, &ops[0]) || !smem(cx, i, &ops[2]) {
                return;
            }
            (&ops[1], &ops[3..])
        }
        (false, false) => {
            if !smem(cx, i, &ops[1]) {
                return;
            }
            (&ops[0], &ops[2..])
        }
    };
    if !tensor_map(cx, i, map, t.dims) {
        return;
    }
    let mut rest = rest.iter();
    if t.offsets {
        let Some(o) = rest.next() else { return };
        let OperandKind::Vector(v) = &o.kind else {
            return tensor_err(cx, o.span, format!("`{}`: the im2col offsets are a vector `{{...}}` of {} 16-bit values", opname(i), t.dims - 2), "vector expected");
        };
        if v.len() != t.dims - 2 {
            return tensor_err(cx, o.span, format!("`{}`: a {}-d im2col copy takes {} offsets; {} given (ptxas: Argument vector size mismatch)", opname(i), t.dims, t.dims - 2, v.len()), "vector size mismatch");
        }
        for e in v {
            if !int_elem(cx, i, e, 16, "an im2col offset") {
                return;
            }
        }
    }
    if t.multicast {
        let Some(o) = rest.next() else { return };
        if !value(cx, o, ScalarType::B16, Role::Src, Size::Exact, i) {
            return;
        }
    }
    if t.hint {
        if let Some(o) = rest.next() {
            value(cx, o, ScalarType::B64, Role::Src, Size::Exact, i);
        }
    }
}

/// A shared-memory operand of a tensor copy (the box, the mbarrier): an
/// address in shared memory or a register (ptxas 13.5 takes `%r`, `[%r]`
/// and `[%rd]`, and refuses a `.global` variable: "State space mismatch
/// between instruction and address").
fn smem<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>) -> bool {
    match &o.kind {
        OperandKind::Address(a) => {
            let Some(base) = a.base else { return true };
            match cx.lookup(base.text) {
                Some(Sym::Var(v)) if matches!(v.space(), StateSpace::Reg | StateSpace::Shared) => true,
                Some(Sym::Var(v)) => {
                    let sp = v.space();
                    cx.emit(
                        Diagnostic::error("check/state-space", base.span, format!("`{}` is a `{}` variable; this operand of `{}` is in shared memory", base.text, sp.as_str(), opname(i)))
                            .with_label("state space mismatch".to_string())
                            .with_note(TENSOR_NOTE),
                    );
                    false
                }
                Some(_) => {
                    tensor_err(cx, base.span, format!("`{}` cannot be addressed", base.text), "not a variable or an address register");
                    false
                }
                None => {
                    cx.unknown(base, "register or variable");
                    false
                }
            }
        }
        OperandKind::Name { .. } => {
            resolve_operand(cx, o);
            true
        }
        _ => {
            tensor_err(cx, o.span, format!("`{}`: a shared-memory address `[...]` is expected here", opname(i)), "expected `[address]`");
            false
        }
    }
}

/// An element of a coordinate or offset vector: an integer constant or a
/// `bits`-bit integer register (not a float, not a predicate).
fn int_elem<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, e: &Operand<'a>, bits: u32, what: &str) -> bool {
    let ok = match &e.kind {
        OperandKind::Int(_) => true,
        OperandKind::Name { name, component: None } => match cx.lookup(name.text) {
            Some(Sym::Var(v)) if v.space() == StateSpace::Reg => v.ty().is_some_and(|t| t.bits() == bits && !matches!(t, ScalarType::Pred | ScalarType::F16 | ScalarType::Bf16 | ScalarType::F32 | ScalarType::F64)),
            Some(_) => false,
            None => {
                cx.unknown(*name, "register");
                return false;
            }
        },
        _ => false,
    };
    if !ok {
        tensor_err(cx, e.span, format!("`{}`: {what} is a {bits}-bit integer register or constant (ptxas: Arguments mismatch)", opname(i)), "incorrect operand type");
    }
    ok
}

/// `[tensorMap, {c1, ..., cN}]`: the map (a register, or a variable whose
/// address is a generic one: [`tensor_map_operand`]) and N coordinates.
fn tensor_map<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, dims: usize) -> bool {
    let shape = || format!("`{}`: the tensor operand is `[tensorMap, {{c1, ..., c{dims}}}]`", opname(i));
    let OperandKind::Bracket(parts) = &o.kind else {
        resolve_operand(cx, o);
        tensor_err(cx, o.span, shape(), "expected `[tensorMap, {coordinates}]`");
        return false;
    };
    let [map, coords] = parts.as_slice() else {
        resolve_operand(cx, o);
        tensor_err(cx, o.span, shape(), "expected `[tensorMap, {coordinates}]`");
        return false;
    };
    resolve_operand(cx, map);
    if !tensor_map_operand(cx, i) {
        return false;
    }
    let OperandKind::Vector(v) = &coords.kind else {
        resolve_operand(cx, coords);
        tensor_err(cx, coords.span, format!("`{}`: the coordinates are a vector `{{...}}` (ptxas: Vector expected)", opname(i)), "vector expected");
        return false;
    };
    if v.len() != dims {
        tensor_err(cx, coords.span, format!("`{}`: a {dims}-d tensor takes {dims} coordinates; {} given (ptxas: Argument vector size mismatch)", opname(i), v.len()), "vector size mismatch");
        return false;
    }
    v.iter().all(|e| int_elem(cx, i, e, 32, "a coordinate"))
}

/// The tensor map of a tensor copy, `[tensorMap, {coordinates}]`: "the
/// generic address of the opaque tensor-map object" (PTX ISA
/// 9.7.9.25.5.1), so a register holding one, or a `.global` variable by
/// name; ptxas 13.5 refuses a `.param` or `.const` variable by name
/// ("State space mismatch between instruction and address"): such a map's
/// address is taken with `mov` first, as nvcc does.
fn tensor_map_operand(cx: &mut Ctx<'_, '_>, i: &Instruction<'_>) -> bool {
    let mut ok = true;
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
            ok = false;
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    /// The error code of the first error of `body` in a kernel on sm_90a
    /// with a `.param` tensor map `tmap`, a `.global` one `gmap` and a
    /// `.const` one `cmap`, or `None` where it checks clean.
    fn first_error(body: &str) -> Option<String> {
        first_error_at("8.0", body)
    }

    /// [`first_error`] at `.version` `version`.
    fn first_error_at(version: &str, body: &str) -> Option<String> {
        let src = format!(
            ".version {version}\n.target sm_90a\n.address_size 64\n.global .align 64 .b8 gmap[128];\n.const .align 64 .b8 cmap[128];\n.visible .entry k(.param .align 64 .b8 tmap[128])\n{{\n.reg .b32 %r<8>;\n.reg .b16 %h<4>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<2>;\n.reg .pred %p<2>;\n.shared .align 128 .b8 box[256];\n.shared .align 8 .b64 bar;\nmov.u32 %r2, box;\nmov.u32 %r3, bar;\nmov.u64 %rd5, tmap;\ncvta.param.u64 %rd6, %rd5;\n{body}\nret;\n}}\n"
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

    /// A load into shared memory of a `dims`-d box, with `coords`, then
    /// `rest` (the operands after the mbarrier), and extra modifiers.
    fn load(dims: usize, mods: &str, coords: &str, rest: &str) -> String {
        format!("cp.async.bulk.tensor.{dims}d.shared::cluster.global{mods}.mbarrier::complete_tx::bytes [%r2], [%rd6, {coords}], [%r3]{rest};")
    }

    use ptxsim_isa::{AtomOp, CopyCompletion, CopyMode100, TensorLoadMode};

    // The modifiers, spelled by their choices (no modifier literal outside
    // `crates/isa`, tests included).
    fn tile() -> &'static str {
        TensorLoadMode::Tile.as_str()
    }
    fn im2col() -> &'static str {
        TensorLoadMode::Im2col.as_str()
    }
    fn mbar() -> &'static str {
        CopyCompletion::Mbarrier.as_str()
    }

    const TENSOR: Option<&str> = Some("check/tensor-operands");
    const COUNT: Option<&str> = Some("check/operand-count");

    /// The coordinates of a tensor copy, as ptxas 13.5 types them on
    /// sm_90a: one per dimension ("Argument 2 of instruction
    /// 'cp.async.bulk.tensor': Argument vector size mismatch"), in a vector
    /// ("Vector expected for argument 2"), each a 32-bit integer register
    /// or a constant ("Arguments mismatch for instruction
    /// 'cp.async.bulk.tensor'" for `.b64`, `.b16`, `.f32` and predicate
    /// registers).
    #[test]
    fn tensor_coordinates_are_one_b32_per_dimension() {
        assert_eq!(first_error(&load(1, tile(), "{%r1}", "")), None);
        assert_eq!(first_error(&load(2, "", "{%r1, 7}", "")), None);
        assert_eq!(first_error(&load(5, tile(), "{%r1, %r1, %r1, %r1, %r1}", "")), None);
        assert_eq!(first_error(&load(2, tile(), "{%r1}", "")), TENSOR.map(String::from));
        assert_eq!(first_error(&load(1, tile(), "{%r1, %r4}", "")), TENSOR.map(String::from));
        assert_eq!(first_error(&load(3, tile(), "{%r1, %r1, %r1, %r1}", "")), TENSOR.map(String::from));
        for bad in ["{%rd1}", "{%h1}", "{%f1}", "{%p1}", "%r1"] {
            assert_eq!(first_error(&load(1, tile(), bad, "")).as_deref(), TENSOR, "{bad}");
        }
        // No coordinates at all: "Arguments mismatch".
        assert_eq!(first_error("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd6], [%r3];").as_deref(), TENSOR);
        let store = |c: &str| format!("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd6, {c}], [%r2];");
        assert_eq!(first_error(&store("{%r1}")), None);
        assert_eq!(first_error(&store("{%rd1}")).as_deref(), TENSOR);
        assert_eq!(first_error(&store("{%r1, %r1}")).as_deref(), TENSOR);
    }

    /// The other operands (ptxas 13.5): `.im2col` takes a vector of dims - 2
    /// 16-bit offsets ("Argument 4 ...: Argument vector size mismatch",
    /// "Vector expected for argument 4", "Arguments mismatch" for `{%r1}` or
    /// none) on 3 to 5 dimensions ("Modifier '.2d' cannot be combined with
    /// modifier '.im2col'"); the multicast mask is 16 bits ("Argument 4 of
    /// instruction 'cp.async.bulk.tensor': must be 16-bit size"), the cache
    /// policy `.b64`, and each is there exactly when its modifier is
    /// ("Arguments mismatch"). The mbarrier and the box are shared
    /// addresses or registers (`%r3`, `[%h1]` accepted), not a `.global`
    /// variable ("State space mismatch between instruction and address").
    #[test]
    fn tensor_operands_as_ptxas_types_them() {
        assert_eq!(first_error(&load(3, im2col(), "{%r1, %r1, %r1}", ", {%h1}")), None);
        assert_eq!(first_error(&load(3, im2col(), "{%r1, %r1, %r1}", ", {3}")), None);
        assert_eq!(first_error(&load(5, im2col(), "{%r1, %r1, %r1, %r1, %r1}", ", {%h1, %h2, %h3}")), None);
        assert_eq!(first_error(&load(3, im2col(), "{%r1, %r1, %r1}", ", {%h1, %h2}")).as_deref(), TENSOR);
        assert_eq!(first_error(&load(5, im2col(), "{%r1, %r1, %r1, %r1, %r1}", ", {%h1, %h2}")).as_deref(), TENSOR);
        assert_eq!(first_error(&load(3, im2col(), "{%r1, %r1, %r1}", ", {%r1}")).as_deref(), TENSOR);
        assert_eq!(first_error(&load(3, im2col(), "{%r1, %r1, %r1}", ", %h1")).as_deref(), TENSOR);
        assert_eq!(first_error(&load(3, im2col(), "{%r1, %r1, %r1}", "")).as_deref(), COUNT);
        assert_eq!(first_error(&load(2, im2col(), "{%r1, %r1}", ", {%h1}")).as_deref(), TENSOR);
        // "Illegal modifier '.im2col_no_offs' for instruction 'cp.async.bulk.tensor'" on a load,
        // "Illegal modifier '.im2col'" on a store.
        assert_eq!(first_error(&load(3, TensorLoadMode::Im2colNoOffs.as_str(), "{%r1, %r1, %r1}", "")).as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd6, {%r1, %r1, %r1}], [%r2];").as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%rd6, {%r1, %r1, %r1}], [%r2];"), None);
        let mc = |rest: &str| load(1, tile(), "{%r1}", rest).replace(mbar(), ".mbarrier::complete_tx::bytes.multicast::cluster");
        assert_eq!(first_error(&mc(", %h1")), None);
        assert_eq!(first_error(&mc(", 3")), None);
        assert_eq!(first_error(&mc(", %r1")).as_deref(), Some("check/operand-type"));
        assert_eq!(first_error(&mc("")).as_deref(), COUNT);
        let hint = |rest: &str| load(1, tile(), "{%r1}", rest).replace(mbar(), ".mbarrier::complete_tx::bytes.L2::cache_hint");
        assert_eq!(first_error(&hint(", %rd1")), None);
        assert_eq!(first_error(&hint(", %r1")).as_deref(), Some("check/operand-type"));
        assert_eq!(first_error(&hint("")).as_deref(), COUNT);
        assert_eq!(first_error(&load(1, tile(), "{%r1}", ", %rd1")).as_deref(), COUNT);
        assert_eq!(first_error("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%r2], [%rd6, {%r1, %r1, %r1}], [%r3], {%h1}, %h1, %rd1;"), None);
        // The mbarrier and the box.
        assert_eq!(first_error(&load(1, tile(), "{%r1}", "").replace("[%r3]", "%r3")), None);
        assert_eq!(first_error(&load(1, tile(), "{%r1}", "").replace("[%r3]", "[bar]")), None);
        assert_eq!(first_error(&load(1, tile(), "{%r1}", "").replace("[%r2]", "[%h1]")), None);
        assert_eq!(first_error(&load(1, tile(), "{%r1}", "").replace("[%r3]", "[gmap]")).as_deref(), Some("check/state-space"));
        assert_eq!(first_error(&load(1, tile(), "{%r1}", "").replace("[%r2]", "[gmap]")).as_deref(), Some("check/state-space"));
        assert_eq!(first_error("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%rd6, {%r1}], [gmap];").as_deref(), Some("check/state-space"));
    }

    /// The forms (ptxas 13.5): a dimension (".dim modifier required"), a
    /// completion mechanism (".completion_mechanism modifier required"),
    /// the state spaces ("State space incorrect": `.shared.global`,
    /// `.global.shared::cluster`, `.shared::cluster.shared::cta`), a
    /// `.shared::cta` destination from 8.6 ("Feature 'cp.async.bulk.tensor
    /// with destination state space as .shared::cta' requires PTX ISA
    /// .version 8.6 or later") and without multicast, one load mode
    /// ("Multiple .load_mode modifiers specified"), and sm_100's modes
    /// ("Feature '.cta_group::1' not supported on .target 'sm_90a'").
    #[test]
    fn tensor_forms_as_ptxas_judges_them() {
        assert_eq!(first_error("cp.async.bulk.tensor.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd6, {%r1}], [%r3];").as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.1d.shared::cluster.global.tile [%r2], [%rd6, {%r1}], [%r3];").as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.1d.shared.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd6, {%r1}], [%r3];").as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.1d.global.shared::cluster.tile.bulk_group [%rd6, {%r1}], [%r2];").as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.1d.global.shared::cta.tile.mbarrier::complete_tx::bytes [%rd6, {%r1}], [%r2], [%r3];").as_deref(), TENSOR);
        assert_eq!(first_error("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group.multicast::cluster [%rd6, {%r1}], [%r2], %h1;").as_deref(), TENSOR);
        assert_eq!(first_error(&load(1, ".tile.tile", "{%r1}", "")).as_deref(), TENSOR);
        assert_eq!(first_error(&load(1, "", "{%r1}", "").replace(mbar(), ".mbarrier::complete_tx::bytes.tile")), None);
        let cta = load(1, tile(), "{%r1}", "").replace("shared::cluster", "shared::cta");
        assert_eq!(first_error_at("8.5", &cta).as_deref(), Some("check/isa-version"));
        assert_eq!(first_error_at("8.6", &cta), None);
        assert_eq!(first_error_at("8.6", &cta.replace(mbar(), ".mbarrier::complete_tx::bytes.multicast::cluster").replace("[%r3];", "[%r3], %h1;")).as_deref(), TENSOR);
        for m in [CopyMode100::TileGather4.as_str(), CopyMode100::Im2colW.as_str()] {
            let src = load(2, m, "{%r1, %r1}", "").replace("tensor.2d", "tensor.3d").replace("{%r1, %r1}", "{%r1, %r1, %r1}");
            assert_eq!(first_error_at("8.6", &src).as_deref(), Some("check/isa-target"), "{m}");
        }
        assert_eq!(first_error_at("8.6", &load(1, tile(), "{%r1}", "").replace("::bytes", "::bytes.cta_group::1")).as_deref(), Some("check/isa-target"));
    }

    /// `cp.reduce.async.bulk.tensor` and `cp.async.bulk.prefetch.tensor`
    /// (ptxas 13.5): the reduction operation is required ("Reduction
    /// operation is required for instruction 'cp.reduce.async.bulk.tensor'"),
    /// not `.cas` ("Illegal modifier '.cas'") or `.exch` ("Illegal reduction
    /// operation"); no type ("Unexpected instruction types specified"), no
    /// `.noftz`, no multicast ("Illegal modifier"); the prefetch needs
    /// `.L2` (".level modifier required") and `.global` ("State space
    /// modifier required"), takes no completion mechanism ("Illegal
    /// modifier '.bulk_group'") and `.im2col` with its offsets.
    #[test]
    fn tensor_reductions_and_prefetches() {
        let red = |m: &str| format!("cp.reduce.async.bulk.tensor.1d.global.shared::cta{m}.tile.bulk_group [%rd6, {{%r1}}], [%r2];");
        assert_eq!(first_error(&red(AtomOp::Add.as_str())), None);
        assert_eq!(first_error(&red(AtomOp::Inc.as_str())), None);
        assert_eq!(first_error(&red(AtomOp::Add.as_str()).replace(tile(), "")), None);
        for bad in ["", AtomOp::Cas.as_str(), AtomOp::Exch.as_str(), ".add.u32", ".add.noftz"] {
            assert!(first_error(&red(bad)).is_some(), "{bad}");
        }
        // The reductions' grammar has no multicast.
        assert_eq!(first_error(&red(AtomOp::Add.as_str()).replace(CopyCompletion::BulkGroup.as_str(), ".bulk_group.multicast::cluster").replace("[%r2];", "[%r2], %h1;")).as_deref(), Some("check/modifiers"));
        assert_eq!(first_error(&red(AtomOp::Add.as_str()).replace("{%r1}", "{%rd1}")).as_deref(), TENSOR);
        assert_eq!(first_error(&red(AtomOp::Add.as_str()).replace("[%r2]", "[gmap]")).as_deref(), Some("check/state-space"));
        let pf = |m: &str, ops: &str| format!("cp.async.bulk.prefetch.tensor.{m} [%rd6, {ops};");
        assert_eq!(first_error(&pf("1d.L2.global.tile", "{%r1}]")), None);
        assert_eq!(first_error(&pf("1d.L2.global", "{%r1}]")), None);
        assert_eq!(first_error(&pf("1d.L2.global.tile.L2::cache_hint", "{%r1}], %rd1")), None);
        assert_eq!(first_error(&pf("3d.L2.global.im2col", "{%r1, %r1, %r1}], {%h1}")), None);
        assert_eq!(first_error(&pf("1d.global.tile", "{%r1}]")).as_deref(), TENSOR);
        assert_eq!(first_error(&pf("1d.L2.tile", "{%r1}]")).as_deref(), TENSOR);
        assert_eq!(first_error(&pf("1d.L2.global.tile.bulk_group", "{%r1}]")).as_deref(), TENSOR);
        assert_eq!(first_error(&pf("3d.L2.global.im2col_no_offs", "{%r1, %r1, %r1}]")).as_deref(), TENSOR);
        assert_eq!(first_error(&pf("3d.L2.global.im2col", "{%r1, %r1, %r1}]")).as_deref(), COUNT);
        assert_eq!(first_error(&pf("2d.L2.global.tile", "{%r1}]")).as_deref(), TENSOR);
        assert_eq!(first_error(&pf("1d.L2.global.tile.L2::cache_hint", "{%r1}], %r1")).as_deref(), Some("check/operand-type"));
    }

    /// The name of a copy comes first, in order, and no modifier is written
    /// twice (ptxas 13.5: "Unknown modifier '.arrive'" for
    /// `cp.async.arrive.mbarrier`, "Unknown modifier '.wait_group'" for
    /// `cp.async.bulk.read.wait_group`, "Multiple cache operation
    /// modifiers specified", "Multiple .noinc modifiers specified",
    /// "Multiple .L2::cache_hint modifiers specified"); the qualifiers
    /// stand in any order (`cp.async.shared.global.ca`,
    /// `cp.async.mbarrier.arrive.b64.shared` and
    /// `cp.async.bulk.prefetch.global.L2` are accepted).
    #[test]
    fn names_in_order_and_no_modifier_twice() {
        assert_eq!(first_error("cp.async.shared.global.ca [%r2], [%rd1], 4;"), None);
        assert_eq!(first_error("cp.async.mbarrier.arrive.b64.shared [%r3];"), None);
        assert_eq!(first_error("cp.async.bulk.prefetch.global.L2 [%rd1], 64;"), None);
        for bad in [
            "cp.async.arrive.mbarrier.shared.b64 [%r3];",
            "cp.async.bulk.read.wait_group 0;",
            "cp.async.bulk.L2.prefetch.global [%rd1], 64;",
            "cp.async.ca.shared.global.ca [%r2], [%rd1], 4;",
            "cp.async.mbarrier.arrive.noinc.noinc.shared.b64 [%r3];",
            "cp.async.ca.shared.global.L2::cache_hint.L2::cache_hint [%r2], [%rd1], 4, %rd2;",
            "cp.async.commit_group.commit_group;",
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.add.u32 [%rd1], [%r2], 64;",
        ] {
            assert_eq!(first_error(bad).as_deref(), TENSOR, "{bad}");
        }
    }
}
