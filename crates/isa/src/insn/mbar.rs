//! The modifier enums of the `mbarrier` row of [`crate::for_each_op!`]
//! (PTX ISA 9.7.13.15), the operation its fields spell ([`Mbar`],
//! [`Insn::mbarrier`]) with the combinations its grammar cannot say, and
//! the decode tests of the row against the manual's syntax sections.
//!
//! The manual's syntax, which the grammar and [`Insn::mbarrier`] follow:
//!
//! ```text
//! mbarrier.init{.shared{::cta}}.b64 [addr], count;
//! mbarrier.inval{.shared{::cta}}.b64 [addr];
//! mbarrier.arrive{.sem.scope}{.shared{::cta}}.b64 state, [addr]{, count};
//! mbarrier.arrive{.sem.scope}{.shared::cluster}.b64 _, [addr]{, count};
//! mbarrier.arrive.expect_tx{.sem.scope}{.shared{::cta}}.b64 state, [addr], txCount;
//! mbarrier.arrive.expect_tx{.sem.scope}{.shared::cluster}.b64 _, [addr], txCount;
//! mbarrier.arrive.noComplete{.release.cta}{.shared{::cta}}.b64 state, [addr], count;
//! mbarrier.arrive_drop... (the same forms as arrive)
//! mbarrier.expect_tx{.relaxed.scope}{.shared{::cta, ::cluster}}.b64 [addr], txCount;
//! mbarrier.complete_tx{.relaxed.scope}{.shared{::cta, ::cluster}}.b64 [addr], txCount;
//! mbarrier.test_wait{.parity}{.sem.scope}{.shared{::cta}}.b64 waitComplete, [addr], state | phaseParity;
//! mbarrier.try_wait{.parity}{.sem.scope}{.shared{::cta}}.b64 waitComplete, [addr], state | phaseParity{, suspendTimeHint};
//! mbarrier.pending_count.b64 count, state;
//! .sem   = { .release, .relaxed } (arrive, arrive_drop), { .acquire, .relaxed } (the waits)
//! .scope = { .cta, .cluster }
//! ```
//!
//! The operation is the first modifier, `.expect_tx` and `.parity` the
//! second when written; the others follow in any order (ptxas accepts
//! `mbarrier.arrive.shared.release.cta.b64`). Which
//! version and target each form needs, and the operands, are the
//! checker's (`rules/mbar.rs`).

use super::{field_spans, Insn, Misfit};
use ptxsim_syntax::ast::Instruction;
use ptxsim_syntax::Span;

crate::choices! {
    /// The operation of an `mbarrier` (the first modifier); `.expect_tx`
    /// after `.arrive`/`.arrive_drop` is the arrival's mode (the row's
    /// `op` pair: `[Arrive, ExpectTx]`).
    pub enum MbarrierOp "mbarrier operation" {
        Init = ".init", Inval = ".inval", Arrive = ".arrive", ArriveDrop = ".arrive_drop", ExpectTx = ".expect_tx",
        CompleteTx = ".complete_tx", TestWait = ".test_wait", TryWait = ".try_wait", PendingCount = ".pending_count"
    }
    /// The memory-ordering semantics of an `mbarrier` (`.sem`).
    pub enum MbarrierSem "memory-ordering semantics" { Release = ".release", Acquire = ".acquire", Relaxed = ".relaxed" }
    /// The scope of an `mbarrier`'s `.sem`.
    pub enum MbarrierScope "scope" { Cta = ".cta", Cluster = ".cluster" }
    /// The state space of the mbarrier object (none: a generic address).
    pub enum MbarrierSpace "state space" { Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster" }
}

/// The spelling of the flag `.noComplete` (a rule that points at it finds
/// it by this).
pub const NO_COMPLETE: &str = ".noComplete";
/// The spelling of the flag `.parity`.
pub const PARITY: &str = ".parity";

impl MbarrierOp {
    /// `arrive` or `arrive_drop`.
    pub fn arrives(self) -> bool {
        matches!(self, MbarrierOp::Arrive | MbarrierOp::ArriveDrop)
    }
    /// `test_wait` or `try_wait`.
    pub fn waits(self) -> bool {
        matches!(self, MbarrierOp::TestWait | MbarrierOp::TryWait)
    }
    /// `expect_tx` or `complete_tx`.
    pub fn tx(self) -> bool {
        matches!(self, MbarrierOp::ExpectTx | MbarrierOp::CompleteTx)
    }
}

/// An `mbarrier` instruction as its fields spell it, once the
/// combinations are checked ([`Insn::mbarrier`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mbar {
    pub op: MbarrierOp,
    /// `arrive.expect_tx` / `arrive_drop.expect_tx`.
    pub expect_tx: bool,
    pub no_complete: bool,
    pub parity: bool,
    pub sem: Option<MbarrierSem>,
    pub scope: Option<MbarrierScope>,
    pub space: Option<MbarrierSpace>,
}

impl Mbar {
    /// Whether the object may be another CTA's of the cluster
    /// (`.shared::cluster`).
    pub fn cluster_space(&self) -> bool {
        self.space == Some(MbarrierSpace::SharedCluster)
    }
}

impl Insn {
    /// The `mbarrier` this instruction is, or the combination rule it
    /// breaks (PTX ISA 9.7.13.15, as ptxas 12.9 and 13.5 judge it: each
    /// case below is one of their verdicts); `None` for another row.
    pub fn mbarrier(&self) -> Option<Result<Mbar, Misfit>> {
        let Insn::Mbarrier { op, no_complete, parity, sem, scope, space, .. } = *self else { return None };
        Some(mbar_fit(op, no_complete, parity, sem, scope, space))
    }
}

fn mbar_fit(
    op: [Option<MbarrierOp>; 2],
    no_complete: bool,
    parity: bool,
    sem: Option<MbarrierSem>,
    scope: Option<MbarrierScope>,
    space: [Option<MbarrierSpace>; 2],
) -> Result<Mbar, Misfit> {
    let no = |modifier: &'static str, why: String| Err(Misfit { modifier, why });
    // ptxas 13.5: "Not a name of any known instruction: 'mbarrier'".
    let Some(kind) = op[0] else { return no("", "`mbarrier` needs an operation (`.init`, `.arrive`, `.test_wait`, ...)".into()) };
    let name = kind.as_str();
    let expect_tx = match op[1] {
        None => false,
        Some(MbarrierOp::ExpectTx) if kind.arrives() => true,
        // ptxas 13.5: "Unknown modifier '.arrive'".
        Some(o) => return no(o.as_str(), format!("`{}` is not a modifier of `mbarrier{name}`", o.as_str())),
    };
    if let Some(s) = space[1] {
        // ptxas 13.5: "Unexpected number of state spaces specified".
        return no(s.as_str(), format!("`mbarrier{name}` takes one state space; `{}` is a second one", s.as_str()));
    }
    let space = space[0];
    if let Some(s) = space {
        if kind == MbarrierOp::PendingCount {
            return no(s.as_str(), "`mbarrier.pending_count` takes no state space: it reads the state operand, not the barrier".into());
        }
        if s == MbarrierSpace::SharedCluster && !(kind.arrives() || kind.tx()) {
            return no(s.as_str(), format!("`.shared::cluster` is not a state space of `mbarrier{name}`: only arrive, arrive_drop, expect_tx and complete_tx reach another CTA's barrier"));
        }
    }
    if no_complete && !kind.arrives() {
        return no(NO_COMPLETE, format!("`.noComplete` is not a modifier of `mbarrier{name}`"));
    }
    if no_complete && expect_tx {
        return no(NO_COMPLETE, format!("`.noComplete` does not combine with `.expect_tx` on `mbarrier{name}`"));
    }
    if parity && !kind.waits() {
        return no(PARITY, format!("`.parity` is not a modifier of `mbarrier{name}`"));
    }
    use MbarrierSem::*;
    let sem_ok = |s: MbarrierSem| match kind {
        _ if kind.arrives() => matches!(s, Release | Relaxed),
        _ if kind.tx() => s == Relaxed,
        _ if kind.waits() => matches!(s, Acquire | Relaxed),
        _ => false,
    };
    if let Some(s) = sem.filter(|s| !sem_ok(*s)) {
        return no(s.as_str(), format!("`{}` is not a modifier of `mbarrier{name}`", s.as_str()));
    }
    if let Some(s) = scope.filter(|_| matches!(kind, MbarrierOp::Init | MbarrierOp::Inval | MbarrierOp::PendingCount)) {
        return no(s.as_str(), format!("`{}` is not a modifier of `mbarrier{name}`", s.as_str()));
    }
    match (sem, scope) {
        (Some(s), None) => return no(s.as_str(), format!("`{}` on `mbarrier{name}` needs a scope (`.cta` or `.cluster`)", s.as_str())),
        (None, Some(s)) => return no(s.as_str(), format!("the scope `{}` on `mbarrier{name}` needs memory-ordering semantics (`.release`, `.acquire` or `.relaxed`)", s.as_str())),
        _ => {}
    }
    if no_complete {
        // ptxas 12.9: "Modifier '.X' cannot be combined with modifier '.noComplete'".
        let clash = space.filter(|s| *s == MbarrierSpace::SharedCluster).map(MbarrierSpace::as_str)
            .or(sem.filter(|s| *s != Release).map(MbarrierSem::as_str))
            .or(scope.filter(|s| *s != MbarrierScope::Cta).map(MbarrierScope::as_str));
        if let Some(s) = clash {
            return no(s, format!("`{s}` cannot be combined with `.noComplete`"));
        }
    }
    Ok(Mbar { op: kind, expect_tx, no_complete, parity, sem, scope, space })
}

/// What a written `mbarrier` breaks that its fields cannot show: an
/// operation that is not the first modifier (ptxas 13.5: "Unknown
/// modifier '.init'" for `mbarrier.shared.init`), an `.expect_tx` or
/// `.parity` that is not the second, or a modifier written
/// twice (ptxas 13.5: "Multiple .noComplete modifiers specified",
/// "Duplicate .release modifier", "Multiple scope modifiers specified",
/// "Unknown modifier '.parity'"); the span of the modifier at fault and
/// why. `None` when `i` is fine or is not an `mbarrier` whose modifiers
/// decode.
pub fn mbarrier_layout(i: &Instruction<'_>) -> Option<(Span, String)> {
    let spans = field_spans(i);
    let (first, span) = *spans.first()?;
    if !matches!(decode_row(i), Some(Insn::Mbarrier { .. })) {
        return None;
    }
    if first != "op" {
        return Some((span, format!("the operation comes first in `mbarrier`: `{}` stands before it", i.modifiers.first().map_or("", |m| m.text))));
    }
    for (k, (f, s)) in spans.iter().enumerate() {
        let m = i.modifiers.iter().find(|m| m.span.same_as(*s)).map_or("", |m| m.text);
        if matches!(*f, "no_complete" | "parity" | "sem" | "scope") && spans[..k].iter().any(|(g, _)| g == f) {
            return Some((*s, format!("`mbarrier` takes `{m}` once")));
        }
        // `.expect_tx` (the second `op`) and `.parity` right after the
        // operation (ptxas 13.5: "Unknown modifier '.expect_tx'" for
        // `mbarrier.arrive.shared.expect_tx`).
        if k > 1 && (*f == "parity" || (*f == "op" && spans[..k].iter().any(|(g, _)| *g == "op"))) {
            return Some((*s, format!("`{m}` follows the operation at once")));
        }
    }
    None
}

fn decode_row(i: &Instruction<'_>) -> Option<Insn> {
    super::decode(i).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::tests::{dec, first_instruction};
    use crate::DecodeErrorKind as K;

    fn mbar(t: &str) -> Result<Mbar, Misfit> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).mbarrier().expect("an mbarrier")
    }
    fn misfit(t: &str) -> Option<&'static str> {
        mbar(t).err().map(|m| m.modifier)
    }
    fn layout(t: &str) -> Option<String> {
        let src = format!(".version 8.0\n.target sm_80\n.entry k() {{ {t}; }}");
        let parsed = ptxsim_syntax::parse(&src);
        mbarrier_layout(first_instruction(&parsed.module)).map(|(s, _)| src[s.start as usize..s.end as usize].to_string())
    }

    /// The message names the modifier at fault, not the first one.
    #[test]
    fn the_message_names_the_modifier_at_fault() {
        let src = ".version 8.0\n.target sm_90\n.entry k() { mbarrier.arrive.shared.expect_tx.b64 %rd1, [%rd2], %r1; }";
        let parsed = ptxsim_syntax::parse(src);
        let (_, why) = mbarrier_layout(first_instruction(&parsed.module)).expect("misplaced");
        assert!(why.contains("`.expect_tx`"), "{why}");
    }

    /// Each operation of PTX ISA 9.7.13.15 decodes to its fields.
    #[test]
    fn every_operation_decodes() {
        use MbarrierOp::*;
        let base = Mbar { op: Init, expect_tx: false, no_complete: false, parity: false, sem: None, scope: None, space: None };
        assert_eq!(mbar("mbarrier.init.shared.b64 [%rd1], %r1"), Ok(Mbar { space: Some(MbarrierSpace::Shared), ..base }));
        assert_eq!(mbar("mbarrier.inval.shared::cta.b64 [%rd1]"), Ok(Mbar { op: Inval, space: Some(MbarrierSpace::SharedCta), ..base }));
        assert_eq!(
            mbar("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%rd1], %r1"),
            Ok(Mbar { op: Arrive, expect_tx: true, sem: Some(MbarrierSem::Release), scope: Some(MbarrierScope::Cluster), space: Some(MbarrierSpace::SharedCluster), ..base })
        );
        assert_eq!(mbar("mbarrier.arrive_drop.noComplete.release.cta.b64 %rd1, [%rd2], %r1"), Ok(Mbar { op: ArriveDrop, no_complete: true, sem: Some(MbarrierSem::Release), scope: Some(MbarrierScope::Cta), ..base }));
        assert_eq!(mbar("mbarrier.expect_tx.relaxed.cta.b64 [%rd1], %r1"), Ok(Mbar { op: ExpectTx, sem: Some(MbarrierSem::Relaxed), scope: Some(MbarrierScope::Cta), ..base }));
        assert_eq!(mbar("mbarrier.complete_tx.shared::cluster.b64 [%rd1], %r1"), Ok(Mbar { op: CompleteTx, space: Some(MbarrierSpace::SharedCluster), ..base }));
        assert_eq!(mbar("mbarrier.test_wait.parity.b64 %p1, [%rd1], %r1"), Ok(Mbar { op: TestWait, parity: true, ..base }));
        assert_eq!(
            mbar("mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%rd1], %r1, %r2"),
            Ok(Mbar { op: TryWait, parity: true, sem: Some(MbarrierSem::Acquire), scope: Some(MbarrierScope::Cluster), space: Some(MbarrierSpace::SharedCta), ..base })
        );
        assert_eq!(mbar("mbarrier.pending_count.b64 %r1, %rd1"), Ok(Mbar { op: PendingCount, ..base }));
        // The qualifiers follow the operation in any order (ptxas 12.9
        // accepts `tests/check/accept/tensor-operands--mbarrier-qualifier-order.ptx`).
        assert_eq!(mbar("mbarrier.arrive.shared.cta.release.b64 %rd1, [%rd2]"), mbar("mbarrier.arrive.release.cta.shared.b64 %rd1, [%rd2]"));
    }

    /// Modifiers no slot takes, a second type, a missing type (ptxas 13.5:
    /// "Unexpected instruction types specified for 'mbarrier.init'").
    #[test]
    fn grammar_errors() {
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("mbarrier.init.b32 [%rd1], %r1"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        assert!(matches!(e("mbarrier.init [%rd1], %r1"), (K::Missing { .. }, _)));
        assert!(matches!(e("mbarrier.init.shared.b64.b64 [%rd1], %r1"), (K::UnexpectedModifier { .. }, s) if s == ".b64"));
        assert!(matches!(e("mbarrier.init.global.b64 [%rd1], %r1"), (K::UnexpectedModifier { .. }, s) if s == ".global"));
        assert!(matches!(e("mbarrier.arrive.sys.release.b64 %rd1, [%rd2]"), (K::UnexpectedModifier { .. }, s) if s == ".sys"));
        assert!(matches!(e("mbarrier.arrive.acq_rel.cta.b64 %rd1, [%rd2]"), (K::UnexpectedModifier { .. }, s) if s == ".acq_rel"));
        // "Multiple scope modifiers specified"; a third operation.
        assert!(matches!(e("mbarrier.arrive.release.cta.cluster.b64 %rd1, [%rd2]"), (K::Conflict { .. }, s) if s == ".cluster"));
        assert!(matches!(e("mbarrier.arrive.release.relaxed.cta.b64 %rd1, [%rd2]"), (K::Conflict { .. }, s) if s == ".relaxed"));
        assert!(matches!(e("mbarrier.arrive.expect_tx.expect_tx.b64 %rd1, [%rd2], %r1"), (K::UnexpectedModifier { .. }, s) if s == ".expect_tx"));
    }

    /// The combinations, as ptxas 12.9 (`tests/check/*/tensor-operands--mbarrier-*`)
    /// and 13.5 judge them.
    #[test]
    fn combinations() {
        for ok in [
            "mbarrier.arrive.noComplete.release.cta.shared.b64 %rd1, [%rd2], %r1",
            "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%rd2]",
            "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%rd1], %r1",
            "mbarrier.test_wait.relaxed.cta.b64 %p1, [%rd1], %rd2",
            "mbarrier.arrive_drop.expect_tx.shared::cta.b64 %rd1, [%rd2], %r1",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        // ptxas 13.5: "Not a name of any known instruction: 'mbarrier'".
        assert_eq!(misfit("mbarrier.b64 [%rd1], %r1"), Some(""));
        // "Unknown modifier '.arrive'", "Unknown modifier '.expect_tx'".
        assert_eq!(misfit("mbarrier.expect_tx.arrive.b64 %rd1, [%rd2], %r1"), Some(".arrive"));
        assert_eq!(misfit("mbarrier.complete_tx.expect_tx.b64 [%rd1], %r1"), Some(".expect_tx"));
        // "Unexpected number of state spaces specified in instruction 'mbarrier.init'".
        assert_eq!(misfit("mbarrier.init.shared.shared.b64 [%rd1], %r1"), Some(".shared"));
        assert_eq!(misfit("mbarrier.init.shared::cta.shared.b64 [%rd1], %r1"), Some(".shared"));
        assert_eq!(misfit("mbarrier.pending_count.shared.b64 %r1, %rd1"), Some(".shared"));
        assert_eq!(misfit("mbarrier.init.shared::cluster.b64 [%rd1], %r1"), Some(".shared::cluster"));
        assert_eq!(misfit("mbarrier.try_wait.shared::cluster.b64 %p1, [%rd1], %rd2"), Some(".shared::cluster"));
        assert_eq!(misfit("mbarrier.init.noComplete.b64 [%rd1], %r1"), Some(NO_COMPLETE));
        assert_eq!(misfit("mbarrier.arrive.expect_tx.noComplete.b64 %rd1, [%rd2], %r1"), Some(NO_COMPLETE));
        assert_eq!(misfit("mbarrier.arrive.parity.b64 %rd1, [%rd2]"), Some(PARITY));
        assert_eq!(misfit("mbarrier.arrive.acquire.cta.b64 %rd1, [%rd2]"), Some(".acquire"));
        assert_eq!(misfit("mbarrier.expect_tx.release.cta.b64 [%rd1], %r1"), Some(".release"));
        assert_eq!(misfit("mbarrier.test_wait.release.cta.b64 %p1, [%rd1], %rd2"), Some(".release"));
        assert_eq!(misfit("mbarrier.init.cta.b64 [%rd1], %r1"), Some(".cta"));
        assert_eq!(misfit("mbarrier.arrive.release.b64 %rd1, [%rd2]"), Some(".release"));
        assert_eq!(misfit("mbarrier.arrive.cluster.b64 %rd1, [%rd2]"), Some(".cluster"));
        // "Modifier '.X' cannot be combined with modifier '.noComplete'".
        assert_eq!(misfit("mbarrier.arrive.noComplete.shared::cluster.b64 _, [%rd2], %r1"), Some(".shared::cluster"));
        assert_eq!(misfit("mbarrier.arrive.noComplete.relaxed.cta.b64 %rd1, [%rd2], %r1"), Some(".relaxed"));
        assert_eq!(misfit("mbarrier.arrive.noComplete.release.cluster.b64 %rd1, [%rd2], %r1"), Some(".cluster"));
    }

    /// The operation first, each flag and qualifier once (ptxas 13.5:
    /// "Unknown modifier '.init'", "Multiple .noComplete modifiers
    /// specified", "Duplicate .release modifier", "Multiple scope modifiers
    /// specified", "Unknown modifier '.parity'").
    #[test]
    fn layout_rules() {
        assert_eq!(layout("mbarrier.init.shared.b64 [%rd1], %r1"), None);
        assert_eq!(layout("mbarrier.arrive.expect_tx.shared.b64 %rd1, [%rd2], %r1"), None);
        assert_eq!(layout("mbarrier.arrive.shared.noComplete.b64 %rd1, [%rd2], %r1"), None);
        // "Unknown modifier '.expect_tx'", "Unknown modifier '.parity'".
        assert_eq!(layout("mbarrier.arrive.shared.expect_tx.b64 %rd1, [%rd2], %r1").as_deref(), Some(".expect_tx"));
        assert_eq!(layout("mbarrier.arrive.release.expect_tx.cta.b64 %rd1, [%rd2], %r1").as_deref(), Some(".expect_tx"));
        assert_eq!(layout("mbarrier.test_wait.shared.parity.b64 %p1, [%rd1], %r1").as_deref(), Some(".parity"));
        assert_eq!(layout("mbarrier.shared.init.b64 [%rd1], %r1").as_deref(), Some(".shared"));
        assert_eq!(layout("mbarrier.b64.init [%rd1], %r1").as_deref(), Some(".b64"));
        assert_eq!(layout("mbarrier.arrive.noComplete.noComplete.b64 %rd1, [%rd2], %r1").as_deref(), Some(".noComplete"));
        assert_eq!(layout("mbarrier.arrive.release.release.cta.b64 %rd1, [%rd2]").as_deref(), Some(".release"));
        assert_eq!(layout("mbarrier.arrive.release.cta.cta.b64 %rd1, [%rd2]").as_deref(), Some(".cta"));
        assert_eq!(layout("mbarrier.test_wait.parity.parity.b64 %p1, [%rd1], %r1").as_deref(), Some(".parity"));
        // Not an mbarrier, or one whose modifiers do not decode.
        assert_eq!(layout("mbarrier.init.b32 [%rd1], %r1"), None);
        assert_eq!(layout("add.s32 %r1, %r2, %r3"), None);
    }
}
