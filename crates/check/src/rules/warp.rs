//! The typed warp rows: `shfl`, `vote`, `bar`/`barrier`, `activemask`,
//! `nanosleep`, `pmevent`, `istypep` ([`typed`] also hands `match`,
//! `redux` and `elect` to [`super::collective`]). Each row's grammar
//! (`ptxsim_isa::decode`) has taken the modifiers, one of each kind, and
//! its roles the operand count (`bar`/`barrier` count here: their
//! operands differ by operation); these rules read the [`Insn`] fields.
//!
//! - Rule `check/shfl-operands` (PTX ISA 9.7.9.6 shfl.sync, and the deprecated
//!   `shfl`): `shfl.sync.mode.b32 d[|p], a, b, c, membermask` with exactly one
//!   mode of `.up .down .bfly .idx` and type `.b32`; `d`, `a`, `b`, `c` fit
//!   `.b32` (any 32-bit register but a predicate: ptxas accepts an `.f32`
//!   lane), `p` is a predicate or `_`, `membermask` fits `.u32`. The form
//!   without `.sync` has no membermask, and ptxas rejects it on sm_70 and
//!   higher from `.version` 6.4.
//! - Rule `check/vote-operands` (PTX ISA 9.7.13.9 vote.sync, and the
//!   deprecated `vote`): `vote.sync.mode.pred d, {!}a, membermask` with mode
//!   `.all .any .uni`, or `vote.sync.ballot.b32 d, {!}a, membermask`; `d`
//!   fits the type, `a` is a predicate (or an immediate), `membermask` fits
//!   `.u32`; the form without `.sync` as for `shfl`.
//! - Rule `check/bar-operands` (PTX ISA 9.7.13.1 bar/barrier, 9.7.13.3
//!   bar.warp.sync): `bar{.cta}.sync a{, b}`, `bar{.cta}.arrive a, b`,
//!   `bar{.cta}.red.popc.u32 d, a{, b}, {!}c`, `bar{.cta}.red.{and,or}.pred
//!   p, a{, b}, {!}c` (and the same with `barrier`, which alone takes
//!   `.aligned`), and `bar.warp.sync membermask` (no `barrier.warp`). `a` and `b` are `.u32` registers (or `.s32`,
//!   `.b32`) or immediates, never a 64-bit, float or predicate register or a
//!   variable; an immediate barrier id is 0..15, an immediate thread count a
//!   multiple of the warp size (non-zero for `.arrive`); `.sync` and `.arrive`
//!   take no type; `c` is a predicate. `barrier.cluster.arrive{.release|
//!   .relaxed}{.aligned}` and `barrier.cluster.wait{.acquire}{.aligned}` take
//!   no type and no operands.
//! - `activemask.b32 d` (9.7.13.12), `nanosleep.u32 t` (9.7.13), `pmevent
//!   a` / `pmevent.mask a` (an immediate: index 0..15, or a 16-bit mask),
//!   `istypep.{texref,samplerref,surfref} p, a` (9.7.10; `p` a predicate).

use super::operand::{resolve_all, value, Role};
use super::opname;
use crate::ctx::{sym_kind, sym_span, Ctx, Sym};
use crate::isa::Feature;
use ptxsim_isa::{BarFields, BarOp, BarRedOp, BarScope, BarSem, Insn, VoteMode};
use crate::types::Size;
use ptxsim_syntax::ast::{Instruction, Name, Operand, OperandKind, ScalarType, StateSpace};
use ptxsim_syntax::{Diagnostic, Span};

const SHFL_NOTE: &str = "rule check/shfl-operands (PTX ISA 9.7.9.6 shfl.sync): `shfl.sync.mode.b32 d[|p], a, b, c, membermask;` with mode .up/.down/.bfly/.idx; d, a, b, c are 32-bit values, p a predicate, membermask a .u32; `shfl` without `.sync` is not supported on sm_70 and higher from PTX ISA 6.4";
const VOTE_NOTE: &str = "rule check/vote-operands (PTX ISA 9.7.13.9 vote.sync): `vote.sync.mode.pred d, {!}a, membermask;` (mode .all/.any/.uni) or `vote.sync.ballot.b32 d, {!}a, membermask;`; a is a predicate, membermask a .u32; `vote` without `.sync` is not supported on sm_70 and higher from PTX ISA 6.4";
const CLUSTER_NOTE: &str = "rule check/bar-operands (PTX ISA 9.7.13.2 barrier.cluster): `barrier.cluster.arrive{.release|.relaxed}{.aligned};` and `barrier.cluster.wait{.acquire}{.aligned};` take no operands; they need PTX ISA 7.8 and sm_90 (the .release/.relaxed/.acquire qualifiers 8.0)";
const BAR_NOTE: &str = "rule check/bar-operands (PTX ISA 9.7.13.1 bar/barrier, 9.7.13.3 bar.warp.sync): `bar.sync a{, b}`, `bar.arrive a, b`, `bar.red.popc.u32 d, a{, b}, {!}c`, `bar.red.{and,or}.pred p, a{, b}, {!}c`, `bar.warp.sync membermask`; a (barrier 0..15) and b (thread count, a multiple of the warp size) are .u32 registers or immediates, c a predicate";

fn head(i: &Instruction<'_>) -> Span {
    i.opcode.span.to(i.modifiers.last().map(|m| m.span).unwrap_or(i.opcode.span))
}

fn err(cx: &mut Ctx<'_, '_>, code: &'static str, span: Span, msg: String, label: &str, note: &'static str) {
    cx.emit(Diagnostic::error(code, span, msg).with_label(label.to_string()).with_note(note));
}

fn count(cx: &mut Ctx<'_, '_>, code: &'static str, i: &Instruction<'_>, shape: &str, note: &'static str) {
    cx.emit(
        Diagnostic::error(code, i.span, format!("`{}` takes the operands {shape}; {} given", opname(i), i.operands.len()))
            .with_label("wrong operand count")
            .with_note(note),
    );
}

/// The legacy (non-`.sync`) form on sm_70+ under `.version` 6.4+.
fn legacy_removed(cx: &Ctx<'_, '_>) -> bool {
    let sm70 = cx.sm.is_some_and(|(s, _)| s.number >= 70);
    sm70 && cx.version_at_least(crate::isa::PtxVersion::new(6, 4))
}

fn name_op<'a>(n: Name<'a>) -> Operand<'a> {
    if n.text == "_" {
        Operand { kind: OperandKind::Sink, span: n.span }
    } else {
        Operand { kind: OperandKind::Name { name: n, component: None }, span: n.span }
    }
}

/// Checks an instruction of a typed warp row (its modifiers decoded by
/// the row's grammar, its operand count by the row's roles).
pub fn typed<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, insn: Insn) {
    match insn {
        Insn::Shfl { sync, .. } => shfl(cx, i, sync),
        Insn::Vote { sync, mode, ty } => vote(cx, i, sync, mode, ty),
        Insn::Match { mode, ty, .. } => super::collective::match_sync(cx, i, mode, ty),
        Insn::Redux { op, abs, nan, ty, .. } => super::collective::redux(cx, i, op, abs, nan, ty),
        Insn::Elect { .. } => super::collective::elect(cx, i),
        Insn::Activemask { .. } => activemask(cx, i),
        Insn::Nanosleep { .. } => nanosleep(cx, i),
        Insn::Pmevent { mask } => pmevent(cx, i, mask),
        Insn::Istypep { .. } => {
            value(cx, &i.operands[0], ScalarType::Pred, Role::Dest, Size::Exact, i);
            super::operand::resolve_operand(cx, &i.operands[1]);
        }
        _ => match insn.bar() {
            Some(b) => bar(cx, i, b),
            None => resolve_all(cx, i),
        },
    }
}

/// `activemask.b32 d` (PTX ISA 9.7.13.12; the row's grammar and count
/// hold the rest): `d` is a 32-bit register.
fn activemask<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    value(cx, &i.operands[0], ScalarType::B32, Role::Dest, Size::Exact, i);
}

/// `nanosleep.u32 t` (PTX ISA 9.7.13.x nanosleep; 6.2 / sm_70, the row's
/// gate): `t` a 32-bit integer register or an immediate (ptxas accepts
/// `.b32`/`.s32` registers and any immediate).
fn nanosleep<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>) {
    value(cx, &i.operands[0], ScalarType::U32, Role::Src, Size::Exact, i);
}

/// `pmevent a` and `pmevent.mask a` (PTX ISA 9.7.13 pmevent): `a` an
/// immediate, an event index 0..15, or with `.mask` a 16-bit mask of
/// events.
fn pmevent<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, mask: bool) {
    const NOTE: &str = "rule check/operand-type (PTX ISA 9.7.13 pmevent): `pmevent a;` with an event index 0..15, or `pmevent.mask a;` with a 16-bit mask of events; `a` is an immediate";
    let o = &i.operands[0];
    let limit = if mask { 0xffff } else { 15 };
    match &o.kind {
        OperandKind::Int(n) if n.value <= limit => {}
        OperandKind::Int(n) => {
            let what = if mask { "a 16-bit event mask" } else { "an event index 0..15" };
            err(cx, "check/operand-type", o.span, format!("`{}` takes {what}, not `{}`", opname(i), n.value), "out of range", NOTE);
        }
        _ => {
            err(cx, "check/operand-type", o.span, format!("`{}` takes an immediate", opname(i)), "an integer constant is expected here", NOTE);
            super::operand::resolve_operand(cx, o);
        }
    }
}

/// `shfl.sync` and the deprecated `shfl` (the row's grammar holds the
/// one mode and the type `.b32`).
fn shfl<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, sync: bool) {
    const C: &str = "check/shfl-operands";
    if sync {
        cx.require(Feature::ShflSync, head(i));
    } else if legacy_removed(cx) {
        err(cx, C, head(i), "`shfl` without `.sync` is not supported on sm_70 and higher from PTX ISA 6.4".into(), "use `shfl.sync` with a membermask", SHFL_NOTE);
        return resolve_all(cx, i);
    }
    let ops = &i.operands;
    let want = if sync { 5 } else { 4 };
    if ops.len() != want {
        let shape = if sync { "`d[|p], a, b, c, membermask`" } else { "`d[|p], a, b, c`" };
        count(cx, C, i, shape, SHFL_NOTE);
        return resolve_all(cx, i);
    }
    if let OperandKind::PredPair(dn, p) = &ops[0].kind {
        value(cx, &name_op(*dn), ScalarType::B32, Role::Dest, Size::Exact, i);
        if p.text != "_" {
            super::operand::pred_reg(cx, *p, i);
        }
    } else {
        value(cx, &ops[0], ScalarType::B32, Role::Dest, Size::Exact, i);
    }
    for o in &ops[1..4] {
        value(cx, o, ScalarType::B32, Role::Src, Size::Exact, i);
    }
    if sync {
        value(cx, &ops[4], ScalarType::U32, Role::Src, Size::Exact, i);
    }
}

/// `vote.sync` and the deprecated `vote` (the row's grammar holds the one
/// mode and a type, `.pred` or `.b32`).
fn vote<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, sync: bool, mode: VoteMode, ty: ScalarType) {
    const C: &str = "check/vote-operands";
    if sync {
        cx.require(Feature::VoteSync, head(i));
    } else if legacy_removed(cx) {
        err(cx, C, head(i), "`vote` without `.sync` is not supported on sm_70 and higher from PTX ISA 6.4".into(), "use `vote.sync` with a membermask", VOTE_NOTE);
        return resolve_all(cx, i);
    }
    let want_ty = if mode == VoteMode::Ballot { ScalarType::B32 } else { ScalarType::Pred };
    if ty != want_ty {
        let span = ptxsim_isa::field_span(i, "ty").unwrap_or(head(i));
        err(cx, C, span, format!("`vote{}` takes type `{}`, not `{}`", mode.as_str(), want_ty.as_str(), ty.as_str()), "unexpected instruction type", VOTE_NOTE);
        return resolve_all(cx, i);
    }
    let ops = &i.operands;
    let want = if sync { 3 } else { 2 };
    if ops.len() != want {
        let shape = if sync { "`d, {!}a, membermask`" } else { "`d, {!}a`" };
        count(cx, C, i, shape, VOTE_NOTE);
        return resolve_all(cx, i);
    }
    value(cx, &ops[0], want_ty, Role::Dest, Size::Exact, i);
    value(cx, &ops[1], ScalarType::Pred, Role::Src, Size::Exact, i);
    if sync {
        value(cx, &ops[2], ScalarType::U32, Role::Src, Size::Exact, i);
    }
}

/// A barrier id or thread count: a 32-bit integer register or an immediate,
/// never a variable's address. `kind` picks the immediate's range check.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BarArg {
    Id,
    Count { arrive: bool },
}

fn bar_arg<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, o: &Operand<'a>, kind: BarArg) {
    const C: &str = "check/bar-operands";
    match &o.kind {
        OperandKind::Int(n) => {
            let v = n.value;
            match kind {
                BarArg::Id if v > 15 => err(cx, C, o.span, format!("barrier `{v}` is out of range: barriers are numbered 0..15"), "barrier id", BAR_NOTE),
                BarArg::Count { arrive: true } if v == 0 => err(cx, C, o.span, "`bar.arrive` needs a non-zero thread count".into(), "thread count", BAR_NOTE),
                BarArg::Count { .. } if v % 32 != 0 => err(cx, C, o.span, format!("thread count `{v}` is not a multiple of the warp size (32)"), "thread count", BAR_NOTE),
                _ => {}
            }
        }
        OperandKind::Name { name, .. } => {
            if let Some(sym @ (Sym::Var(_) | Sym::Func(_))) = cx.lookup(name.text).cloned() {
                if !matches!(&sym, Sym::Var(v) if v.space() == StateSpace::Reg) {
                    let decl = sym_span(&sym, &cx.funcs);
                    cx.emit(
                        Diagnostic::error(C, o.span, format!("`{}` is {}; `{}` takes a register or an immediate here", name.text, sym_kind(&sym), opname(i)))
                            .with_label("not a register")
                            .with_secondary(decl, "declared here")
                            .with_note(BAR_NOTE),
                    );
                    return;
                }
            }
            value(cx, o, ScalarType::U32, Role::Src, Size::Exact, i);
        }
        _ => {
            value(cx, o, ScalarType::U32, Role::Src, Size::Exact, i);
        }
    }
}

/// A modifier of `i` by the field of its row that took it (or the whole
/// opcode and modifiers), and its text.
fn field<'a>(i: &Instruction<'a>, f: &str) -> (Span, &'a str) {
    match ptxsim_isa::field_span(i, f).and_then(|s| i.modifiers.iter().find(|m| m.span.same_as(s))) {
        Some(m) => (m.span, m.text),
        None => (head(i), ""),
    }
}

/// `barrier.cluster.arrive{.release|.relaxed}{.aligned}` and
/// `barrier.cluster.wait{.acquire}{.aligned}`: no type, no operands (PTX ISA
/// 9.7.13.2; gated by `isa::Feature::ClusterBarrier`, the orderings by
/// `ClusterBarrierSem`). `bar.cluster` is not an instruction (ptxas:
/// "Unknown modifier '.arrive'").
fn cluster_barrier<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, b: BarFields) {
    const C: &str = "check/bar-operands";
    if !b.barrier {
        err(cx, C, head(i), "`bar.cluster` is not an instruction; the cluster barrier is `barrier.cluster.arrive` / `barrier.cluster.wait`".into(), "write `barrier.cluster`", CLUSTER_NOTE);
        return resolve_all(cx, i);
    }
    cx.require(Feature::ClusterBarrier, head(i));
    if b.sem.is_some() {
        cx.require(Feature::ClusterBarrierSem, head(i));
    }
    let arrive = match b.op {
        Some(BarOp::Arrive) => true,
        Some(BarOp::Wait) => false,
        _ => {
            err(cx, C, head(i), format!("`{}` needs .arrive or .wait", opname(i)), "cluster barrier operation", CLUSTER_NOTE);
            return resolve_all(cx, i);
        }
    };
    let kind = if arrive { BarOp::Arrive } else { BarOp::Wait }.as_str();
    if let Some(t) = b.ty {
        err(cx, C, field(i, "ty").0, format!("`barrier.cluster{kind}` takes no type, but `{}` is given", t.as_str()), "unexpected instruction type", CLUSTER_NOTE);
        return resolve_all(cx, i);
    }
    let sem_ok = match b.sem {
        None => true,
        Some(s) => arrive == matches!(s, BarSem::Release | BarSem::Relaxed),
    };
    let stray = [(b.red.is_some(), "red"), (!sem_ok, "sem")].into_iter().find(|x| x.0);
    if let Some((_, f)) = stray {
        let (span, text) = field(i, f);
        err(cx, C, span, format!("`{text}` is not a modifier of `barrier.cluster{kind}`"), "illegal modifier", CLUSTER_NOTE);
        return resolve_all(cx, i);
    }
    if !i.operands.is_empty() {
        cx.emit(
            Diagnostic::error(C, i.operands[0].span.to(i.operands[i.operands.len() - 1].span), format!("`{}` takes no operands; {} given", opname(i), i.operands.len()))
                .with_label("unexpected operands")
                .with_note(CLUSTER_NOTE),
        );
        resolve_all(cx, i);
    }
}

/// `bar.warp.sync membermask` (PTX ISA 9.7.13.3; `barrier` has no warp
/// form, and `.warp` takes `.sync` alone).
fn warp_barrier<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, b: BarFields) {
    const C: &str = "check/bar-operands";
    if b.barrier {
        err(cx, C, field(i, "scope").0, "`barrier.warp` is not an instruction; the warp barrier is `bar.warp.sync`".into(), "write `bar.warp.sync`", BAR_NOTE);
        return resolve_all(cx, i);
    }
    cx.require(Feature::BarWarpSync, head(i));
    let stray = [(b.op != Some(BarOp::Sync), "op"), (b.red.is_some(), "red"), (b.sem.is_some(), "sem"), (b.aligned, "aligned")].into_iter().find(|x| x.0);
    if let Some((_, f)) = stray {
        let (span, text) = field(i, f);
        let msg = if text.is_empty() { "`bar.warp` needs `.sync`".to_string() } else { format!("`{text}` is not a modifier of `bar.warp.sync`") };
        err(cx, C, span, msg, "illegal modifier", BAR_NOTE);
        return resolve_all(cx, i);
    }
    if let Some(t) = b.ty {
        err(cx, C, field(i, "ty").0, format!("`bar.warp.sync` takes no type, but `{}` is given", t.as_str()), "unexpected instruction type", BAR_NOTE);
        return resolve_all(cx, i);
    }
    if i.operands.len() != 1 {
        count(cx, C, i, "`membermask`", BAR_NOTE);
        return resolve_all(cx, i);
    }
    value(cx, &i.operands[0], ScalarType::U32, Role::Src, Size::Exact, i);
}

/// `bar`/`barrier` `.sync`, `.arrive`, `.red`, `bar.warp.sync` and
/// `barrier.cluster` (the rows' grammar holds one of each kind of
/// modifier; this rule which go together, and the operands).
fn bar<'a>(cx: &mut Ctx<'_, 'a>, i: &Instruction<'a>, b: BarFields) {
    const C: &str = "check/bar-operands";
    let ops = &i.operands;
    match b.scope {
        Some(BarScope::Cluster) => return cluster_barrier(cx, i, b),
        Some(BarScope::Warp) => return warp_barrier(cx, i, b),
        Some(BarScope::Cta) | None => {}
    }
    let op = match b.op {
        Some(op @ (BarOp::Sync | BarOp::Arrive | BarOp::Red)) => op,
        _ => {
            err(cx, C, head(i), format!("`{}` needs .sync, .arrive or .red", opname(i)), "barrier operation", BAR_NOTE);
            return resolve_all(cx, i);
        }
    };
    // `.aligned` is `barrier`'s (`bar` is always aligned); orderings are
    // `barrier.cluster`'s; a reduction operation needs `.red`.
    let stray = [(b.sem.is_some(), "sem"), (b.aligned && !b.barrier, "aligned"), (b.red.is_some() && op != BarOp::Red, "red")].into_iter().find(|x| x.0);
    if let Some((_, f)) = stray {
        let (span, text) = field(i, f);
        err(cx, C, span, format!("`{text}` is not a modifier of `{}{}`", i.opcode.text, op.as_str()), "illegal modifier", BAR_NOTE);
        return resolve_all(cx, i);
    }
    if op != BarOp::Red {
        if let Some(t) = b.ty {
            err(cx, C, field(i, "ty").0, format!("`{}{}` takes no type, but `{}` is given", i.opcode.text, op.as_str(), t.as_str()), "unexpected instruction type", BAR_NOTE);
            return resolve_all(cx, i);
        }
        let arrive = op == BarOp::Arrive;
        let ok = if arrive { ops.len() == 2 } else { matches!(ops.len(), 1 | 2) };
        if !ok {
            if arrive && ops.len() == 1 {
                err(cx, C, i.span, "`bar.arrive` needs a non-zero thread count: `bar.arrive a, b`".into(), "no thread count", BAR_NOTE);
            } else {
                count(cx, C, i, if arrive { "`a, b`" } else { "`a{, b}`" }, BAR_NOTE);
            }
            return resolve_all(cx, i);
        }
        bar_arg(cx, i, &ops[0], BarArg::Id);
        if let Some(b) = ops.get(1) {
            bar_arg(cx, i, b, BarArg::Count { arrive });
        }
        return;
    }
    // bar.red
    let Some(red) = b.red else {
        err(cx, C, head(i), format!("`{}` needs a reduction operation: .popc, .and or .or", opname(i)), "reduction operation", BAR_NOTE);
        return resolve_all(cx, i);
    };
    let want_ty = if red == BarRedOp::Popc { ScalarType::U32 } else { ScalarType::Pred };
    match b.ty {
        Some(t) if t == want_ty => {}
        Some(t) => {
            err(cx, C, field(i, "ty").0, format!("`bar.red{}` takes type `{}`, not `{}`", red.as_str(), want_ty.as_str(), t.as_str()), "unexpected instruction type", BAR_NOTE);
            return resolve_all(cx, i);
        }
        None => {
            err(cx, C, head(i), format!("`{}` needs its type `{}`", opname(i), want_ty.as_str()), "no type given", BAR_NOTE);
            return resolve_all(cx, i);
        }
    }
    if !matches!(ops.len(), 3 | 4) {
        count(cx, C, i, "`d, a{, b}, {!}c`", BAR_NOTE);
        return resolve_all(cx, i);
    }
    value(cx, &ops[0], want_ty, Role::Dest, Size::Exact, i);
    bar_arg(cx, i, &ops[1], BarArg::Id);
    if ops.len() == 4 {
        bar_arg(cx, i, &ops[2], BarArg::Count { arrive: false });
    }
    value(cx, &ops[ops.len() - 1], ScalarType::Pred, Role::Src, Size::Exact, i);
}

#[cfg(test)]
mod tests {
    /// The error codes of the first error of each instruction `body` (one
    /// kernel on sm_90, PTX 8.0), or `None` where it checks clean.
    fn first_error(body: &str) -> Option<String> {
        crate::testing::first_error(&crate::testing::kernel("8.0", "sm_90", "", &format!(".reg .b32 %r<4>;\n.reg .pred %p<4>;\n.reg .b64 %rd<4>;\n{body}")))
    }

    #[test]
    fn pmevent_takes_an_event_index_or_mask_immediate() {
        // PTX ISA 9.7.13 pmevent: an index 0..15, or with `.mask` a 16-bit mask.
        assert_eq!(first_error("pmevent 15;"), None);
        assert_eq!(first_error("pmevent.mask 0xffff;"), None);
        assert_eq!(first_error("pmevent 16;").as_deref(), Some("check/operand-type"));
        assert_eq!(first_error("pmevent.mask 0x10000;").as_deref(), Some("check/operand-type"));
        assert_eq!(first_error("pmevent %r1;").as_deref(), Some("check/operand-type"));
        assert_eq!(first_error("pmevent 1, 2;").as_deref(), Some("check/operand-count"));
        assert_eq!(first_error("pmevent.all 1;").as_deref(), Some("check/modifiers"));
    }

    #[test]
    fn istypep_writes_a_predicate() {
        // PTX ISA 9.7.10 istypep.type p, a.
        assert_eq!(first_error("istypep.texref %p1, %rd1;"), None);
        assert!(first_error("istypep.texref %r1, %rd1;").is_some());
        assert_eq!(first_error("istypep.b32 %p1, %rd1;").as_deref(), Some("check/modifiers"));
    }

    #[test]
    fn barriers_take_the_modifiers_of_their_syntax() {
        // PTX ISA 9.7.13.1-3: what the manual lists is accepted ...
        for ok in ["bar.sync 0;", "bar.cta.sync 0, 64;", "barrier.sync.aligned 1;", "bar.red.popc.u32 %r1, 0, %p1;", "barrier.cta.red.and.aligned.pred %p1, 0, 32, !%p2;", "bar.warp.sync -1;", "barrier.cluster.arrive.release.aligned;", "barrier.cluster.wait.acquire;"] {
            assert_eq!(first_error(ok), None, "{ok}");
        }
        // ... and a modifier outside it is not (the rule before the grammar
        // ignored these).
        for bad in ["bar.sync.aligned 0;", "bar.sync.release 0;", "bar.sync.popc 0;", "barrier.warp.sync -1;", "bar.warp.sync.aligned -1;", "bar.sync.ftz 0;", "barrier.cluster.wait.release;"] {
            assert!(first_error(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn shfl_and_vote_take_no_stray_modifier() {
        assert_eq!(first_error("shfl.sync.idx.b32 %r1|%p1, %r2, 1, 31, -1;"), None);
        assert_eq!(first_error("shfl.sync.idx.ftz.b32 %r1, %r2, 1, 31, -1;").as_deref(), Some("check/modifiers"));
        assert_eq!(first_error("vote.sync.ballot.b32 %r1, %p1, -1;"), None);
        assert_eq!(first_error("vote.sync.any.shared.pred %p1, %p2, -1;").as_deref(), Some("check/state-space"));
        assert_eq!(first_error("vote.sync.any.rn.pred %p1, %p2, -1;").as_deref(), Some("check/modifiers"));
    }
}
