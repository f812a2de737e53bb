//! The modifier enums of the warp, barrier and collective rows of
//! [`crate::for_each_op!`] (PTX ISA 9.7.13 parallel synchronisation and
//! communication: `activemask`, `nanosleep`, `elect.sync`, `vote`,
//! `shfl`, `match.sync`, `redux.sync`, `bar`/`barrier`,
//! `griddepcontrol`, `pmevent`; 9.7.10 `istypep`), and the decode tests
//! of those rows against the manual's syntax sections.

use super::Insn;
use ptxsim_syntax::ast::ScalarType;

crate::choices! {
    /// `griddepcontrol`'s action (PTX ISA 9.7.13.x griddepcontrol).
    pub enum GridDepMode "action" { LaunchDependents = ".launch_dependents", Wait = ".wait" }
    /// `shfl`'s lane selection (PTX ISA 9.7.9.6 shfl.sync).
    pub enum ShflMode "mode" { Up = ".up", Down = ".down", Bfly = ".bfly", Idx = ".idx" }
    /// `vote`'s mode (PTX ISA 9.7.13.9 vote.sync): `.ballot` on `.b32`,
    /// the others on `.pred`.
    pub enum VoteMode "mode" { All = ".all", Any = ".any", Uni = ".uni", Ballot = ".ballot" }
    /// `match.sync`'s mode (PTX ISA 9.7.13.10).
    pub enum MatchMode "mode" { Any = ".any", All = ".all" }
    /// `redux.sync`'s operation (PTX ISA 9.7.13.11): `.add .min .max` on
    /// `.u32`/`.s32`, `.and .or .xor` on `.b32`, `.min .max` on `.f32`.
    pub enum ReduxKind "operation" { Add = ".add", Min = ".min", Max = ".max", And = ".and", Or = ".or", Xor = ".xor" }
    /// Whose threads a `bar`/`barrier` waits for (PTX ISA 9.7.13.1
    /// `bar{.cta}`, 9.7.13.2 `barrier.cluster`, 9.7.13.3 `bar.warp.sync`).
    pub enum BarScope "scope" { Cta = ".cta", Cluster = ".cluster", Warp = ".warp" }
    /// A barrier's operation (`.wait` is `barrier.cluster`'s only).
    pub enum BarOp "barrier operation" { Sync = ".sync", Arrive = ".arrive", Red = ".red", Wait = ".wait" }
    /// `bar.red`'s reduction: `.popc` on `.u32`, `.and`/`.or` on `.pred`.
    pub enum BarRedOp "reduction operation" { Popc = ".popc", And = ".and", Or = ".or" }
    /// `barrier.cluster`'s memory ordering: `.release`/`.relaxed` on
    /// `.arrive`, `.acquire` on `.wait`.
    pub enum BarSem "memory ordering" { Release = ".release", Relaxed = ".relaxed", Acquire = ".acquire" }
    /// The opaque type `istypep` asks about (PTX ISA 9.7.10 istypep).
    pub enum OpaqueKind "opaque type" { Texref = ".texref", Samplerref = ".samplerref", Surfref = ".surfref" }
}

/// The fields of a `bar` or `barrier` instruction (the two rows share
/// their grammar; `barrier` is the one that names `.aligned`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarFields {
    /// `barrier` (else `bar`).
    pub barrier: bool,
    pub scope: Option<BarScope>,
    pub op: Option<BarOp>,
    pub red: Option<BarRedOp>,
    pub sem: Option<BarSem>,
    pub aligned: bool,
    pub ty: Option<ScalarType>,
}

impl Insn {
    /// The fields of a `bar`/`barrier`, if this is one.
    pub fn bar(&self) -> Option<BarFields> {
        match *self {
            Insn::Bar { scope, op, red, sem, aligned, ty } => Some(BarFields { barrier: false, scope, op, red, sem, aligned, ty }),
            Insn::Barrier { scope, op, red, sem, aligned, ty } => Some(BarFields { barrier: true, scope, op, red, sem, aligned, ty }),
            _ => None,
        }
    }

    /// Whether it is a barrier reduction (`bar.red`), the one barrier
    /// form that writes its first operand.
    pub fn is_bar_red(&self) -> bool {
        self.bar().is_some_and(|b| b.op == Some(BarOp::Red))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::dec;
    use super::*;
    use crate::DecodeErrorKind as K;
    use ptxsim_syntax::ast::ScalarType::*;

    #[test]
    fn simple_warp_rows_decode_typed_fields() {
        // PTX ISA 9.7.13.12 `activemask.b32 d`; 9.7.13.x `nanosleep.u32 t`;
        // `griddepcontrol.action` with action `.launch_dependents` or `.wait`.
        assert_eq!(dec("activemask.b32 %r1"), Ok(Insn::Activemask { ty: B32 }));
        assert_eq!(dec("nanosleep.u32 100"), Ok(Insn::Nanosleep { ty: U32 }));
        assert_eq!(dec("griddepcontrol.wait"), Ok(Insn::Griddepcontrol { mode: GridDepMode::Wait }));
        assert_eq!(dec("griddepcontrol.launch_dependents"), Ok(Insn::Griddepcontrol { mode: GridDepMode::LaunchDependents }));
    }

    #[test]
    fn simple_warp_rows_refuse_what_the_manual_does_not_list() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("activemask.u32 %r1"), (K::TypeNotAllowed { .. }, s) if s == ".u32"));
        assert!(matches!(e("activemask %r1"), (K::Missing { slot: "ty", .. }, s) if s == "activemask"));
        assert!(matches!(e("activemask.sync.b32 %r1"), (K::UnexpectedModifier { .. }, s) if s == ".sync"));
        assert!(matches!(e("nanosleep.s32 %r1"), (K::TypeNotAllowed { .. }, s) if s == ".s32"));
        assert!(matches!(e("nanosleep.u32.sync %r1"), (K::UnexpectedModifier { .. }, s) if s == ".sync"));
        assert!(matches!(e("griddepcontrol"), (K::Missing { .. }, s) if s == "griddepcontrol"));
        assert!(matches!(e("griddepcontrol.wait.launch_dependents"), (K::Conflict { first: ".wait", .. }, s) if s == ".launch_dependents"));
        assert!(matches!(e("griddepcontrol.wait.b32"), (K::UnexpectedModifier { .. }, s) if s == ".b32"));
        assert_eq!(crate::lookup("griddepcontrol").unwrap().operand_count(), Some((0, 0)));
        assert_eq!(crate::lookup("activemask").unwrap().operand_count(), Some((1, 1)));
    }

    #[test]
    fn collective_rows_decode_typed_fields() {
        // 9.7.13.x `elect.sync d|p, membermask`.
        assert_eq!(dec("elect.sync %r1|%p1, -1"), Ok(Insn::Elect { sync: () }));
        // 9.7.13.10 `match.any.sync.type d, a, membermask`, `match.all.sync.type d[|p], a, membermask`.
        assert_eq!(dec("match.all.sync.b64 %r1|%p1, %rd1, -1"), Ok(Insn::Match { mode: MatchMode::All, sync: (), ty: B64 }));
        // 9.7.13.11 `redux.sync.op{.abs}{.NaN}.f32 dst, src, membermask`.
        assert_eq!(
            dec("redux.sync.min.abs.NaN.f32 %f1, %f2, -1"),
            Ok(Insn::Redux { sync: (), op: ReduxKind::Min, abs: true, nan: true, ty: F32 })
        );
        assert_eq!(dec("redux.sync.add.s32 %r1, %r2, -1"), Ok(Insn::Redux { sync: (), op: ReduxKind::Add, abs: false, nan: false, ty: S32 }));
        // 9.7.9.6 `shfl.sync.mode.b32 d[|p], a, b, c, membermask` and the
        // deprecated `shfl.mode.b32 d[|p], a, b, c`.
        assert_eq!(dec("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1"), Ok(Insn::Shfl { sync: true, mode: ShflMode::Bfly, ty: B32 }));
        assert_eq!(dec("shfl.idx.b32 %r1, %r2, 1, 31"), Ok(Insn::Shfl { sync: false, mode: ShflMode::Idx, ty: B32 }));
        // 9.7.13.9 `vote.sync.mode.pred d, {!}a, membermask`, `vote.sync.ballot.b32 d, {!}a, membermask`.
        assert_eq!(dec("vote.sync.uni.pred %p1, %p2, -1"), Ok(Insn::Vote { sync: true, mode: VoteMode::Uni, ty: Pred }));
        assert_eq!(dec("vote.ballot.b32 %r1, !%p2"), Ok(Insn::Vote { sync: false, mode: VoteMode::Ballot, ty: B32 }));
    }

    #[test]
    fn collective_rows_refuse_what_the_manual_does_not_list() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("elect %r1|%p1, -1"), (K::Missing { .. }, s) if s == "elect"));
        assert!(matches!(e("elect.sync.b32 %r1|%p1, -1"), (K::UnexpectedModifier { .. }, s) if s == ".b32"));
        assert!(matches!(e("match.sync.b32 %r1, %r2, -1"), (K::Missing { slot: "mode", .. }, s) if s == "match.sync.b32"));
        assert!(matches!(e("match.any.all.sync.b32 %r1, %r2, -1"), (K::Conflict { .. }, s) if s == ".all"));
        assert!(matches!(e("match.any.sync.u32 %r1, %r2, -1"), (K::TypeNotAllowed { .. }, s) if s == ".u32"));
        assert!(matches!(e("redux.sync.add.s64 %rd1, %rd2, -1"), (K::TypeNotAllowed { .. }, s) if s == ".s64"));
        assert!(matches!(e("redux.add.u32 %r1, %r2, -1"), (K::Missing { .. }, _)));
        assert!(matches!(e("shfl.sync.up.down.b32 %r1, %r2, 1, 0, -1"), (K::Conflict { .. }, s) if s == ".down"));
        assert!(matches!(e("shfl.sync.up.f32 %r1, %r2, 1, 0, -1"), (K::TypeNotAllowed { .. }, s) if s == ".f32"));
        assert!(matches!(e("vote.sync.pred %p1, %p2, -1"), (K::Missing { slot: "mode", .. }, _)));
        assert!(matches!(e("vote.sync.all.u32 %r1, %p2, -1"), (K::TypeNotAllowed { .. }, s) if s == ".u32"));
        assert_eq!(crate::lookup("shfl").unwrap().operand_count(), Some((4, 5)));
        assert_eq!(crate::lookup("vote").unwrap().operand_count(), Some((2, 3)));
    }

    #[test]
    fn barrier_rows_decode_typed_fields() {
        // 9.7.13.1 `barrier{.cta}.red.op{.aligned}.pred p, a{, b}, {!}c`,
        // `bar{.cta}.sync a{, b}`; 9.7.13.2 `barrier.cluster.arrive{.sem}{.aligned}`;
        // 9.7.13.3 `bar.warp.sync membermask`.
        let b = dec("barrier.cta.red.or.aligned.pred %p1, 0, 64, !%p2").unwrap().bar().unwrap();
        assert_eq!((b.barrier, b.scope, b.op, b.red, b.aligned, b.ty), (true, Some(BarScope::Cta), Some(BarOp::Red), Some(BarRedOp::Or), true, Some(Pred)));
        assert!(dec("bar.red.popc.u32 %r1, 0, %p1").unwrap().is_bar_red());
        let b = dec("bar.sync 0").unwrap().bar().unwrap();
        assert_eq!((b.barrier, b.op, b.red, b.ty), (false, Some(BarOp::Sync), None, None));
        assert!(!dec("bar.sync 0").unwrap().is_bar_red());
        let b = dec("barrier.cluster.arrive.relaxed.aligned").unwrap().bar().unwrap();
        assert_eq!((b.scope, b.op, b.sem, b.aligned), (Some(BarScope::Cluster), Some(BarOp::Arrive), Some(BarSem::Relaxed), true));
        let b = dec("bar.warp.sync -1").unwrap().bar().unwrap();
        assert_eq!((b.scope, b.op), (Some(BarScope::Warp), Some(BarOp::Sync)));
        assert_eq!(crate::lookup("bar").unwrap().operand_count(), None);
    }

    #[test]
    fn barrier_rows_refuse_what_the_manual_does_not_list() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("bar.sync.arrive 0, 32"), (K::Conflict { .. }, s) if s == ".arrive"));
        assert!(matches!(e("bar.red.popc.and.u32 %r1, 0, %p1"), (K::Conflict { .. }, s) if s == ".and"));
        assert!(matches!(e("bar.sync.b32 0"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        assert!(matches!(e("barrier.cluster.arrive.release.acquire"), (K::Conflict { .. }, s) if s == ".acquire"));
        assert!(matches!(e("bar.sync.ftz 0"), (K::UnexpectedModifier { .. }, s) if s == ".ftz"));
    }

    #[test]
    fn pmevent_and_istypep_decode_typed_fields() {
        // 9.7.13.x `pmevent a`, `pmevent.mask a`; 9.7.10 `istypep.type p, a`
        // with type `.texref`, `.samplerref` or `.surfref`.
        assert_eq!(dec("pmevent 7"), Ok(Insn::Pmevent { mask: false }));
        assert_eq!(dec("pmevent.mask 0xff"), Ok(Insn::Pmevent { mask: true }));
        assert_eq!(dec("istypep.samplerref %p1, s"), Ok(Insn::Istypep { ty: OpaqueKind::Samplerref }));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("pmevent.u32 1"), (K::UnexpectedModifier { .. }, s) if s == ".u32"));
        assert!(matches!(e("istypep %p1, t"), (K::Missing { .. }, s) if s == "istypep"));
        assert!(matches!(e("istypep.texref.surfref %p1, t"), (K::Conflict { .. }, s) if s == ".surfref"));
        assert_eq!(crate::lookup("istypep").unwrap().operand_count(), Some((2, 2)));
    }
}
