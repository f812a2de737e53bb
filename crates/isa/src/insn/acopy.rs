//! The modifier enums of the asynchronous-copy rows of
//! [`crate::for_each_op!`] (`cp.async`: an instruction `cp` whose first
//! modifier is `.async`; `cp`: `cp.reduce.async.bulk{.tensor}`), which
//! form of the family an instruction is ([`CopyKind`], [`Insn::copy_kind`])
//! and the modifiers each form takes ([`copy_stray`]), with the decode
//! tests of those rows against the manual's syntax sections.
//!
//! The manual's syntax (PTX ISA 9.7.9.25), which the grammars follow:
//!
//! ```text
//! cp.async.ca.shared{::cta}.global{.level::cache_hint}{.level::prefetch_size} [dst], [src], cp-size{, src-size}{, cache-policy};
//! cp.async.cg.shared{::cta}.global{.level::cache_hint}{.level::prefetch_size} [dst], [src], 16{, src-size}{, cache-policy};
//! cp.async.ca/cg... [dst], [src], cp-size{, ignore-src}{, cache-policy};
//! cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all;
//! cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr];
//! cp.async.bulk.dst.src.completion_mechanism{.multicast}{.level::cache_hint}{.cp_mask} [dst], [src], size{, [mbar]}{, ctaMask}{, policy}{, byteMask};
//! cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size{, policy};
//! cp.async.bulk.commit_group; cp.async.bulk.wait_group{.read} N;
//! cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp{.noftz}.type [dst], [src], size{, [mbar]}{, policy};
//! cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.cta_group}{.multicast}{.level::cache_hint}
//!     [dst], [tensorMap, tensorCoords], [mbar]{, im2colInfo}{, ctaMask}{, policy};     (global to shared)
//! cp.async.bulk.tensor.dim.global.shared::cta{.load_mode}.bulk_group{.level::cache_hint} [tensorMap, tensorCoords], [src]{, policy};
//! cp.reduce.async.bulk.tensor.dim.global.shared::cta.redOp{.load_mode}.bulk_group{.level::cache_hint} [tensorMap, tensorCoords], [src]{, policy};
//! cp.async.bulk.prefetch.tensor.dim.L2.global{.load_mode}{.level::cache_hint} [tensorMap, tensorCoords]{, im2colInfo}{, policy};
//! .dim = { .1d, .2d, .3d, .4d, .5d }
//! .load_mode = { .tile, .im2col, .im2col_no_offs } (sm_100: .tile::gather4, .tile::scatter4, .im2col::w, .im2col::w::128)
//! ```
//!
//! Which state spaces, completion mechanisms, operands and types go with
//! which form is the checker's (`rules/acopy.rs`), as ptxas judges them.

use super::{field_spans, Insn};
use ptxsim_syntax::ast::Instruction;
use ptxsim_syntax::Span;

crate::choices! {
    /// `cp.async`'s cache level (`.ca`: L1 and L2, `.cg`: L2 only).
    pub enum CpLevel "cache level" { Ca = ".ca", Cg = ".cg" }
    /// The group operations of `cp.async` and `cp.async.bulk`.
    pub enum AsyncGroup "group operation" { CommitGroup = ".commit_group", WaitGroup = ".wait_group", WaitAll = ".wait_all" }
    /// A state space of a copy (destination, then source).
    pub enum CopySpace "state space" { Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster", Global = ".global" }
    /// The dimension count of a tensor copy.
    pub enum TensorDim "dimension" { D1 = ".1d", D2 = ".2d", D3 = ".3d", D4 = ".4d", D5 = ".5d" }
    /// How a bulk copy completes: on an mbarrier (bytes of transactions)
    /// or in a bulk async-group.
    pub enum CopyCompletion "completion mechanism" { Mbarrier = ".mbarrier::complete_tx::bytes", BulkGroup = ".bulk_group" }
    /// sm_100's load modes of the tensor copies (not modelled: the
    /// checker gates them on sm_100, the engine refuses them by name).
    pub enum CopyMode100 "load mode" { TileGather4 = ".tile::gather4", TileScatter4 = ".tile::scatter4", Im2colW = ".im2col::w", Im2colW128 = ".im2col::w::128" }
    /// sm_100's CTA group of a tensor copy (not modelled).
    pub enum CtaGroup "CTA group" { One = ".cta_group::1", Two = ".cta_group::2" }
}

impl TensorDim {
    /// The number of dimensions.
    pub fn count(self) -> usize {
        match self {
            TensorDim::D1 => 1,
            TensorDim::D2 => 2,
            TensorDim::D3 => 3,
            TensorDim::D4 => 4,
            TensorDim::D5 => 5,
        }
    }
}

impl CopySpace {
    /// Whether the space is shared memory (of this CTA or of the cluster).
    pub fn shared(self) -> bool {
        !matches!(self, CopySpace::Global)
    }
}

/// Which form of the asynchronous-copy family an instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyKind {
    /// `cp.async.{ca,cg}`.
    CpAsync,
    /// `cp.async.commit_group`.
    Commit,
    /// `cp.async.wait_group N`.
    Wait,
    /// `cp.async.wait_all`.
    WaitAll,
    /// `cp.async.mbarrier.arrive{.noinc}`.
    MbarrierArrive,
    /// `cp.async.bulk` (not a tensor).
    Bulk,
    /// `cp.async.bulk.commit_group`.
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} N`.
    BulkWait,
    /// `cp.async.bulk.prefetch.L2`.
    BulkPrefetch,
    /// `cp.async.bulk.tensor`.
    BulkTensor,
    /// `cp.async.bulk.prefetch.tensor`.
    BulkPrefetchTensor,
    /// `cp.reduce.async.bulk` (not a tensor).
    ReduceBulk,
    /// `cp.reduce.async.bulk.tensor`.
    ReduceBulkTensor,
}

impl CopyKind {
    /// The form as the manual names it.
    pub fn name(self) -> &'static str {
        match self {
            CopyKind::CpAsync => "cp.async",
            CopyKind::Commit => "cp.async.commit_group",
            CopyKind::Wait => "cp.async.wait_group",
            CopyKind::WaitAll => "cp.async.wait_all",
            CopyKind::MbarrierArrive => "cp.async.mbarrier.arrive",
            CopyKind::Bulk => "cp.async.bulk",
            CopyKind::BulkCommit => "cp.async.bulk.commit_group",
            CopyKind::BulkWait => "cp.async.bulk.wait_group",
            CopyKind::BulkPrefetch => "cp.async.bulk.prefetch",
            CopyKind::BulkTensor => "cp.async.bulk.tensor",
            CopyKind::BulkPrefetchTensor => "cp.async.bulk.prefetch.tensor",
            CopyKind::ReduceBulk => "cp.reduce.async.bulk",
            CopyKind::ReduceBulkTensor => "cp.reduce.async.bulk.tensor",
        }
    }

    /// The fields (of its row's grammar) the form takes; a modifier of
    /// another field is not one of its modifiers.
    fn fields(self) -> &'static [&'static str] {
        match self {
            CopyKind::CpAsync => &["is_async", "level", "spaces", "hint", "size"],
            CopyKind::Commit | CopyKind::Wait | CopyKind::WaitAll => &["is_async", "group"],
            CopyKind::MbarrierArrive => &["is_async", "mbar", "arrive", "noinc", "spaces", "ty"],
            CopyKind::Bulk => &["is_async", "bulk", "spaces", "completion", "multicast", "hint", "cp_mask"],
            CopyKind::BulkCommit => &["is_async", "bulk", "group"],
            CopyKind::BulkWait => &["is_async", "bulk", "group", "read"],
            CopyKind::BulkPrefetch => &["is_async", "bulk", "bulk_prefetch", "l2", "spaces", "hint"],
            CopyKind::BulkTensor => &["is_async", "bulk", "tensor", "dim", "spaces", "mode", "wide", "completion", "cta_group", "multicast", "hint"],
            CopyKind::BulkPrefetchTensor => &["is_async", "bulk", "tensor", "bulk_prefetch", "dim", "l2", "spaces", "mode", "wide", "hint"],
            CopyKind::ReduceBulk => &["reduce", "is_async", "bulk", "spaces", "completion", "op", "hint", "noftz", "ty"],
            CopyKind::ReduceBulkTensor => &["reduce", "is_async", "bulk", "tensor", "dim", "spaces", "mode", "wide", "completion", "op", "hint"],
        }
    }
}

impl Insn {
    /// Which asynchronous-copy form the instruction is; `None` for the
    /// other rows, and for a `cp.async` that names no form (`.bulk` with
    /// `.wait_all`, `.mbarrier` without `.arrive`, ...).
    pub fn copy_kind(&self) -> Option<CopyKind> {
        use AsyncGroup::*;
        Some(match *self {
            Insn::Cp { tensor, .. } => {
                if tensor {
                    CopyKind::ReduceBulkTensor
                } else {
                    CopyKind::ReduceBulk
                }
            }
            Insn::CpAsync { bulk: true, tensor: true, bulk_prefetch, .. } => {
                if bulk_prefetch {
                    CopyKind::BulkPrefetchTensor
                } else {
                    CopyKind::BulkTensor
                }
            }
            Insn::CpAsync { bulk: true, bulk_prefetch: true, .. } => CopyKind::BulkPrefetch,
            Insn::CpAsync { bulk: true, group: Some(CommitGroup), .. } => CopyKind::BulkCommit,
            Insn::CpAsync { bulk: true, group: Some(WaitGroup), .. } => CopyKind::BulkWait,
            Insn::CpAsync { bulk: true, group: None, .. } => CopyKind::Bulk,
            Insn::CpAsync { bulk: false, mbar: true, arrive: true, .. } => CopyKind::MbarrierArrive,
            Insn::CpAsync { bulk: false, mbar: false, tensor: false, bulk_prefetch: false, group, .. } => match group {
                Some(CommitGroup) => CopyKind::Commit,
                Some(WaitGroup) => CopyKind::Wait,
                Some(WaitAll) => CopyKind::WaitAll,
                None => CopyKind::CpAsync,
            },
            _ => return None,
        })
    }
}

/// Why a modifier does not fit its copy form ([`copy_stray`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stray {
    /// Not a modifier of the form.
    NotOfForm,
    /// A part of the form's name (`.bulk`, `.wait_group`, `.arrive`)
    /// out of the name's order: ptxas reads the name first, in order
    /// (ptxas 13.5: "Unknown modifier" for `cp.async.bulk.read.wait_group`).
    OutOfOrder,
    /// Written a second time (ptxas 13.5: "Multiple .noinc modifiers
    /// specified", "Multiple cache operation modifiers specified").
    Repeated,
}

/// The first modifier of `i` (an instruction of form `kind`) that does
/// not fit the form: its text, span and why.
pub fn copy_stray<'a>(i: &Instruction<'a>, kind: CopyKind) -> Option<(&'a str, Span, Stray)> {
    let at = |span: Span| i.modifiers.iter().find(|m| (m.span.start, m.span.end) == (span.start, span.end));
    if let Some((_, span)) = field_spans(i).into_iter().find(|(f, _)| !kind.fields().contains(f)) {
        return at(span).map(|m| (m.text, span, Stray::NotOfForm));
    }
    // The name: `cp.async.bulk.prefetch.tensor` is `.async .bulk .prefetch .tensor` first.
    let name = kind.name().split('.').skip(1);
    if let Some((m, _)) = i.modifiers.iter().zip(name).find(|(m, p)| m.text.strip_prefix('.') != Some(*p)) {
        return Some((m.text, m.span, Stray::OutOfOrder));
    }
    let repeated = i.modifiers.iter().enumerate().find(|(k, m)| i.modifiers[..*k].iter().any(|p| p.text == m.text));
    repeated.map(|(_, m)| (m.text, m.span, Stray::Repeated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::tests::{dec, first_instruction};
    use crate::{AtomOp, DecodeErrorKind as K, PrefetchSize, TensorLoadMode};
    use ptxsim_syntax::ast::ScalarType::*;

    fn kind(t: &str) -> Option<CopyKind> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).copy_kind()
    }

    /// The first stray modifier of `t`, as written.
    fn stray(t: &str) -> Option<String> {
        let src = format!(".version 8.0\n.target sm_80\n.entry k() {{ {t}; }}");
        let parsed = ptxsim_syntax::parse(&src);
        let i = first_instruction(&parsed.module);
        let k = crate::decode(i).ok()?.copy_kind()?;
        copy_stray(i, k).map(|(m, _, _)| m.to_string())
    }

    /// PTX ISA 9.7.9.25.3: `cp.async` and its groups.
    #[test]
    fn cp_async_rows_decode_the_manual_forms() {
        let x = dec("cp.async.cg.shared::cta.global.L2::cache_hint.L2::128B [%r1], [%rd1], 16, %r2, %rd2").unwrap();
        match x {
            Insn::CpAsync { level, spaces, hint, size, bulk, .. } => {
                assert_eq!((level, spaces, hint, size, bulk), (Some(CpLevel::Cg), [Some(CopySpace::SharedCta), Some(CopySpace::Global)], true, Some(PrefetchSize::B128), false));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(x.row().op, "cp.async");
        assert_eq!(kind("cp.async.ca.shared.global [%r1], [%rd1], 4"), Some(CopyKind::CpAsync));
        assert_eq!(kind("cp.async.commit_group"), Some(CopyKind::Commit));
        assert_eq!(kind("cp.async.wait_group 0"), Some(CopyKind::Wait));
        assert_eq!(kind("cp.async.wait_all"), Some(CopyKind::WaitAll));
        let x = dec("cp.async.mbarrier.arrive.noinc.shared.b64 [%r1]").unwrap();
        assert!(matches!(x, Insn::CpAsync { mbar: true, arrive: true, noinc: true, ty: Some(B64), spaces: [Some(CopySpace::Shared), None], .. }));
        assert_eq!(x.copy_kind(), Some(CopyKind::MbarrierArrive));
        // `.mbarrier` without `.arrive` names no form.
        assert_eq!(kind("cp.async.mbarrier.b64 [%r1]"), None);
        assert_eq!(stray("cp.async.commit_group.ca"), Some(".ca".to_string()));
        assert_eq!(stray("cp.async.ca.shared.global.bulk_group [%r1], [%rd1], 4"), Some(".bulk_group".to_string()));
        assert_eq!(stray("cp.async.ca.shared.global [%r1], [%rd1], 4"), None);
        // Qualifiers stand in any order, the name first (ptxas 13.5 takes
        // `cp.async.shared.global.ca` and `...arrive.b64.shared`, and says
        // "Unknown modifier '.arrive'" of `cp.async.arrive.mbarrier`); none
        // twice ("Multiple cache operation modifiers specified").
        assert_eq!(stray("cp.async.shared.global.ca [%r1], [%rd1], 4"), None);
        assert_eq!(stray("cp.async.mbarrier.arrive.b64.shared [%r1]"), None);
        assert_eq!(stray("cp.async.arrive.mbarrier.shared.b64 [%r1]"), Some(".arrive".to_string()));
        assert_eq!(stray("cp.async.ca.shared.global.ca [%r1], [%rd1], 4"), Some(".ca".to_string()));
        assert_eq!(stray("cp.async.mbarrier.arrive.noinc.noinc.b64 [%r1]"), Some(".noinc".to_string()));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("cp.async.ca.cg.shared.global [%r1], [%rd1], 4"), (K::Conflict { first: ".ca", .. }, s) if s == ".cg"));
        assert!(matches!(e("cp.async.ca.shared.global.foo [%r1], [%rd1], 4"), (K::UnexpectedModifier { .. }, s) if s == ".foo"));
        assert!(matches!(e("cp.async.mbarrier.arrive.b32 [%r1]"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        // A third state space is a modifier no slot takes.
        assert!(matches!(e("cp.async.ca.shared.global.global [%r1], [%rd1], 4"), (K::UnexpectedModifier { .. }, s) if s == ".global"));
    }

    /// PTX ISA 9.7.9.25.4: the bulk copies, their groups and prefetch.
    #[test]
    fn bulk_rows_decode_the_manual_forms() {
        let x = dec("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%r1], [%rd1], 64, [%r2], %h1, %rd2").unwrap();
        assert!(matches!(x, Insn::CpAsync { bulk: true, completion: Some(CopyCompletion::Mbarrier), multicast: true, hint: true, spaces: [Some(CopySpace::SharedCluster), Some(CopySpace::Global)], .. }));
        assert_eq!(x.copy_kind(), Some(CopyKind::Bulk));
        assert_eq!(kind("cp.async.bulk.commit_group"), Some(CopyKind::BulkCommit));
        assert_eq!(kind("cp.async.bulk.wait_group.read 0"), Some(CopyKind::BulkWait));
        assert_eq!(kind("cp.async.bulk.wait_all"), None);
        assert_eq!(kind("cp.async.bulk.prefetch.L2.global [%rd1], 64"), Some(CopyKind::BulkPrefetch));
        assert_eq!(stray("cp.async.bulk.commit_group.read"), Some(".read".to_string()));
        assert_eq!(stray("cp.async.bulk.wait_group.read 0"), None);
        assert_eq!(stray("cp.async.bulk.read.wait_group 0"), Some(".read".to_string()));
        assert_eq!(stray("cp.async.bulk.L2.prefetch.global [%rd1], 64"), Some(".L2".to_string()));
        assert_eq!(stray("cp.async.bulk.global.shared::cta.bulk_group.L2::128B [%rd1], [%r1], 64"), Some(".L2::128B".to_string()));
        assert!(matches!(dec("cp.async.bulk.global.shared::cta.bulk_group.mbarrier::complete_tx::bytes [%rd1], [%r1], 64").unwrap_err(), (K::Conflict { first: ".bulk_group", .. }, s) if s == ".mbarrier::complete_tx::bytes"));
    }

    /// PTX ISA 9.7.9.25.4.2, 9.7.9.25.5: the reductions and the tensor copies.
    #[test]
    fn reduce_and_tensor_rows_decode_the_manual_forms() {
        let x = dec("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.noftz.f16 [%rd1], [%r1], 64, %rd2").unwrap();
        assert_eq!(
            x,
            Insn::Cp {
                reduce: (),
                is_async: (),
                bulk: (),
                tensor: false,
                dim: None,
                spaces: [Some(CopySpace::Global), Some(CopySpace::SharedCta)],
                mode: None,
                wide: None,
                completion: Some(CopyCompletion::BulkGroup),
                op: Some(AtomOp::Add),
                hint: true,
                noftz: true,
                ty: Some(F16)
            }
        );
        assert_eq!(x.row().op, "cp");
        assert_eq!(x.copy_kind(), Some(CopyKind::ReduceBulk));
        let x = dec("cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group [%rd1, {%r1, %r2}], [%r3]").unwrap();
        assert!(matches!(x, Insn::Cp { tensor: true, dim: Some(TensorDim::D2), op: Some(AtomOp::Min), mode: Some(TensorLoadMode::Tile), .. }));
        assert_eq!(x.copy_kind(), Some(CopyKind::ReduceBulkTensor));
        assert_eq!(stray("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group.noftz [%rd1, {%r1, %r2}], [%r3]"), Some(".noftz".to_string()));
        let x = dec("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r2, %r3}], [%r4], {%h1}").unwrap();
        assert!(matches!(x, Insn::CpAsync { tensor: true, dim: Some(TensorDim::D3), mode: Some(TensorLoadMode::Im2col), .. }));
        assert_eq!(x.copy_kind(), Some(CopyKind::BulkTensor));
        let x = dec("cp.async.bulk.prefetch.tensor.5d.L2.global.tile::gather4 [%rd1, {%r1, %r2, %r3, %r4, %r5}]").unwrap();
        assert!(matches!(x, Insn::CpAsync { l2: true, wide: Some(CopyMode100::TileGather4), .. }));
        assert_eq!(x.copy_kind(), Some(CopyKind::BulkPrefetchTensor));
        assert_eq!(TensorDim::D5.count(), 5);
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("cp.reduce.async.bulk.tensor.2d.3d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1, %r2}], [%r3]"), (K::Conflict { .. }, s) if s == ".3d"));
        assert!(matches!(e("cp.reduce.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 64"), (K::Missing { slot: "is_async", .. }, _)));
    }
}
