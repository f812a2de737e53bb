//! The modifier enums of the memory rows of [`crate::for_each_op!`]
//! (PTX ISA 9.7.9.8 `ld`, 9.7.9.9 `ld.global.nc`, 9.7.9.10 `ldu`,
//! 9.7.9.11 `st`), the fields those rows share ([`LdSt`]) and the
//! combinations their grammars cannot say ([`Insn::mem_misfit`]), with
//! the decode tests of those rows against the manual's syntax sections.
//!
//! The manual's syntax, which the grammars and the misfit rules follow:
//!
//! ```text
//! ld{.weak}{.ss}{.cop}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
//! ld{.weak}{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
//! ld.volatile{.ss}{.level::prefetch_size}{.vec}.type d, [a];
//! ld.relaxed.scope{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
//! ld.acquire.scope{.ss}{...the same...}{.vec}.type d, [a]{, cache-policy};
//! ld.mmio.relaxed.sys{.global}.type d, [a];
//! ld.global{.cop}.nc{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
//! ld.global.nc{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy};
//! ldu{.ss}{.vec}.type d, [a];                 .ss = .global
//! st{.weak}{.ss}{.cop}{.level::cache_hint}{.vec}.type [a], b{, cache-policy};
//! st{.weak}{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.vec}.type [a], b{, cache-policy};
//! st.volatile{.ss}{.vec}.type [a], b;
//! st.relaxed.scope{.ss}{...eviction priorities, hint...}{.vec}.type [a], b{, cache-policy};
//! st.release.scope{.ss}{...}{.vec}.type [a], b{, cache-policy};
//! st.mmio.relaxed.sys{.global}.type [a], b;
//! .cop (ld) = { .ca, .cg, .cs, .lu, .cv }   (ld.global.nc: .ca, .cg, .cs)
//! .cop (st) = { .wb, .cg, .cs, .wt }
//! ```
//!
//! Which state space an instruction may name, the one-space rule and the
//! data and address operands are the checker's (`rules/memory.rs`).

use super::{Insn, Misfit, ProxyScope};
use ptxsim_syntax::ast::{ScalarType, StateSpace};

crate::choices! {
    /// The state space of a load or store (PTX ISA 9.7.9.8: `.ss`); none
    /// is generic addressing.
    pub enum LdSpace "state space" {
        Global = ".global", Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster", Local = ".local",
        Const = ".const", Param = ".param", ParamEntry = ".param::entry", ParamFunc = ".param::func"
    }
    /// The memory-consistency qualifier of a load or store (PTX ISA 8,
    /// 9.7.9.8): `.acquire` is a load's, `.release` a store's.
    pub enum LdSem "memory ordering" { Weak = ".weak", Volatile = ".volatile", Relaxed = ".relaxed", Acquire = ".acquire", Release = ".release" }
    /// The cache operator (PTX ISA 9.7.9.1): `.ca .cg .cs .lu .cv` for
    /// loads, `.wb .cg .cs .wt` for stores.
    pub enum LdCop "cache operator" { Ca = ".ca", Cg = ".cg", Cs = ".cs", Lu = ".lu", Cv = ".cv", Wb = ".wb", Wt = ".wt" }
    /// The L1 eviction priority (`.level1::eviction_priority`).
    pub enum L1Evict "L1 eviction priority" {
        Normal = ".L1::evict_normal", Unchanged = ".L1::evict_unchanged", First = ".L1::evict_first", Last = ".L1::evict_last", NoAllocate = ".L1::no_allocate"
    }
    /// The L2 eviction priority (`.level2::eviction_priority`).
    pub enum L2Evict "L2 eviction priority" { Normal = ".L2::evict_normal", First = ".L2::evict_first", Last = ".L2::evict_last" }
    /// The L2 prefetch size of a load (`.level::prefetch_size`).
    pub enum PrefetchSize "prefetch size" { B64 = ".L2::64B", B128 = ".L2::128B", B256 = ".L2::256B" }
    /// A vector load or store (`.vec`).
    pub enum LdVec "vector width" { V2 = ".v2", V4 = ".v4", V8 = ".v8" }
    /// `membar`'s level (PTX ISA 9.7.13.4).
    pub enum MembarLevel "level" { Cta = ".cta", Gl = ".gl", Sys = ".sys" }
    /// The proxy kind of `fence.proxy`/`membar.proxy`, and the
    /// uni-directional `to_proxykind::from_proxykind` forms.
    pub enum ProxyKind "proxy kind" { Alias = ".alias", Async = ".async", TensormapGeneric = ".tensormap::generic", AsyncGeneric = ".async::generic" }
    /// The state space of `.proxy.async` (`.async.global`, `.async.shared::{cta,cluster}`).
    pub enum ProxySpace "state space" { Global = ".global", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster" }
    /// `fence`'s `.op_restrict`.
    pub enum FenceOp "restricted operation" { MbarrierInit = ".mbarrier_init" }
    /// `fence`'s memory ordering (`.sem`; none is `.acq_rel`).
    pub enum FenceSem "memory ordering" { Sc = ".sc", AcqRel = ".acq_rel", Acquire = ".acquire", Release = ".release" }
    /// `fence`'s `.sync_restrict`.
    pub enum SyncRestrict "synchronisation restriction" { SharedCta = ".sync_restrict::shared::cta", SharedCluster = ".sync_restrict::shared::cluster" }
    /// The state space `isspacep` tests (PTX ISA 9.7.9.16).
    pub enum IsspacepSpace "state space" {
        Const = ".const", Global = ".global", Local = ".local", Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster",
        Param = ".param", ParamEntry = ".param::entry"
    }
    /// The one state space `mapa` and `getctarank` name (PTX ISA
    /// 9.7.9.17-18); none is a generic address.
    pub enum ClusterSpace "state space" { SharedCluster = ".shared::cluster" }
    /// `prefetch`'s state space (PTX ISA 9.7.9.15): `.global`, `.local`
    /// for the cache levels, `.const`, `.param` for `.tensormap`.
    pub enum PrefetchSpace "state space" { Global = ".global", Local = ".local", Const = ".const", Param = ".param" }
    /// `prefetch`'s level (`.level`, `.level::eviction_priority`, or `.tensormap`).
    pub enum PrefetchLevel "cache level" { L1 = ".L1", L2 = ".L2", L2EvictLast = ".L2::evict_last", L2EvictNormal = ".L2::evict_normal", Tensormap = ".tensormap" }
    /// `prefetchu`'s level.
    pub enum PrefetchuLevel "cache level" { L1 = ".L1" }
    /// The one state space of `applypriority`, `discard` and `createpolicy.range`.
    pub enum GlobalSpace "state space" { Global = ".global" }
    /// `applypriority`'s eviction priority.
    pub enum ApplyLevel "eviction priority" { L2EvictNormal = ".L2::evict_normal" }
    /// `discard`'s (and `createpolicy.cvt`'s) cache level.
    pub enum DiscardLevel "cache level" { L2 = ".L2" }
    /// `createpolicy`'s kind.
    pub enum PolicyKind "policy kind" { Fractional = ".fractional", Range = ".range", Cvt = ".cvt" }
    /// `createpolicy`'s primary and secondary eviction priorities.
    pub enum PolicyPriority "eviction priority" {
        EvictLast = ".L2::evict_last", EvictNormal = ".L2::evict_normal", EvictFirst = ".L2::evict_first", EvictUnchanged = ".L2::evict_unchanged"
    }
    /// `cvta`'s state space (PTX ISA 9.7.9.19).
    pub enum CvtaSpace "state space" {
        Global = ".global", Shared = ".shared", SharedCta = ".shared::cta", SharedCluster = ".shared::cluster", Local = ".local",
        Const = ".const", Param = ".param", ParamEntry = ".param::entry"
    }
}

impl LdVec {
    /// The number of elements.
    pub fn len(self) -> u8 {
        match self {
            LdVec::V2 => 2,
            LdVec::V4 => 4,
            LdVec::V8 => 8,
        }
    }
}

impl LdSpace {
    /// The state space without its `::` qualifier.
    pub fn base(self) -> ptxsim_syntax::ast::StateSpace {
        use ptxsim_syntax::ast::StateSpace as S;
        match self {
            LdSpace::Global => S::Global,
            LdSpace::Shared | LdSpace::SharedCta | LdSpace::SharedCluster => S::Shared,
            LdSpace::Local => S::Local,
            LdSpace::Const => S::Const,
            LdSpace::Param | LdSpace::ParamEntry | LdSpace::ParamFunc => S::Param,
        }
    }
}

/// Which of the memory rows an instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LdStKind {
    Ld,
    Ldu,
    St,
}

/// The fields `ld`, `ldu` and `st` share (a field a row's grammar lacks
/// is empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdSt {
    pub kind: LdStKind,
    /// `st.async` (PTX ISA 9.7.9.12).
    pub asynchronous: bool,
    /// `.mbarrier::complete_tx::bytes`: `st.async`'s completion mechanism.
    pub complete_tx: bool,
    pub sem: Option<LdSem>,
    pub mmio: bool,
    pub scope: Option<ProxyScope>,
    /// The state spaces written, in order (one, or none for generic
    /// addressing; a second is the checker's error).
    pub space: [Option<LdSpace>; 2],
    pub cop: Option<LdCop>,
    /// `ld.global.nc`.
    pub nc: bool,
    pub l1: Option<L1Evict>,
    pub l2: Option<L2Evict>,
    /// `.L2::cache_hint`: a cache-policy operand follows.
    pub hint: bool,
    pub prefetch: Option<PrefetchSize>,
    pub vec: Option<LdVec>,
    pub ty: ScalarType,
}

impl LdSt {
    /// The state space, if one is named.
    pub fn space(&self) -> Option<LdSpace> {
        self.space[0]
    }
    /// Whether this is a store.
    pub fn store(&self) -> bool {
        self.kind == LdStKind::St
    }
}

impl Insn {
    /// The fields of an `ld`, `ldu` or `st`; `None` for another row.
    pub fn ld_st(&self) -> Option<LdSt> {
        Some(match *self {
            Insn::Ld { sem, mmio, scope, space, cop, nc, l1, l2, hint, prefetch, vec, ty } => {
                LdSt { kind: LdStKind::Ld, asynchronous: false, complete_tx: false, sem, mmio, scope, space, cop, nc, l1, l2, hint, prefetch, vec, ty }
            }
            Insn::Ldu { space, vec, ty } => {
                LdSt { kind: LdStKind::Ldu, asynchronous: false, complete_tx: false, sem: None, mmio: false, scope: None, space, cop: None, nc: false, l1: None, l2: None, hint: false, prefetch: None, vec, ty }
            }
            Insn::St { asynchronous, sem, mmio, scope, space, complete_tx, cop, l1, l2, hint, vec, ty } => {
                LdSt { kind: LdStKind::St, asynchronous, complete_tx, sem, mmio, scope, space, cop, nc: false, l1, l2, hint, prefetch: None, vec, ty }
            }
            _ => return None,
        })
    }

    /// The combination rule a memory row's instruction breaks, if any
    /// (`None` for the other rows).
    pub fn mem_misfit(&self) -> Option<Misfit> {
        match *self {
            Insn::Fence { proxy, kind, space, op, sem, restrict, scope } => fence_misfit(proxy, kind, space, op, sem, restrict, scope),
            Insn::Membar { level, proxy, kind, space } => membar_misfit(level, proxy, kind, space),
            Insn::Prefetch { space, level } => prefetch_misfit(space, level),
            Insn::Createpolicy { kind, space, level, prio, .. } => createpolicy_misfit(kind, space, level, prio),
            _ => self.ld_st().and_then(ld_st_misfit),
        }
    }

    /// Whether this is a memory row of this module whose combinations
    /// [`Insn::mem_misfit`] judges.
    pub fn is_mem_row(&self) -> bool {
        matches!(self, Insn::Fence { .. } | Insn::Membar { .. } | Insn::Prefetch { .. } | Insn::Createpolicy { .. }) || self.ld_st().is_some()
    }
}

/// The combination rule an `ld`/`ldu`/`st` breaks (PTX ISA 9.7.9.8-11,
/// the syntax lines in this module's doc).
fn ld_st_misfit(x: LdSt) -> Option<Misfit> {
    let op = match x.kind {
        LdStKind::Ld if x.nc => "ld.global.nc",
        LdStKind::Ld => "ld",
        LdStKind::Ldu => "ldu",
        LdStKind::St => "st",
    };
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    if x.kind == LdStKind::Ldu {
        if let Some(s) = x.space().filter(|s| *s != LdSpace::Global) {
            return no(s.as_str(), format!("`ldu` reads `.global` memory only, not `{}`", s.as_str()));
        }
        if x.vec == Some(LdVec::V8) {
            return no(".v8", "`ldu` takes `.v2` or `.v4`".into());
        }
        // ptxas 13.5: "Vector type too large, exceeds 128 bit limit".
        if let Some(v) = x.vec.filter(|v| x.ty.bits() * u32::from(v.len()) > 128) {
            return no(v.as_str(), format!("`ldu{}{}` moves more than 128 bits", v.as_str(), x.ty.as_str()));
        }
        return None;
    }
    if x.asynchronous || x.complete_tx {
        return st_async_misfit(x);
    }
    // `.mmio.relaxed.sys{.global}.type` and nothing else.
    if x.mmio {
        if x.sem != Some(LdSem::Relaxed) || x.scope != Some(ProxyScope::Sys) {
            return no(".mmio", format!("`{op}.mmio` is written `{op}.mmio.relaxed.sys`"));
        }
        if let Some(s) = x.space().filter(|s| *s != LdSpace::Global) {
            return no(s.as_str(), format!("`{op}.mmio` accesses `.global` memory only"));
        }
        let extra = x.cop.map(LdCop::as_str).or(x.l1.map(L1Evict::as_str)).or(x.l2.map(L2Evict::as_str)).or(x.hint.then_some(HINT)).or(x.prefetch.map(PrefetchSize::as_str)).or(x.vec.map(LdVec::as_str)).or(x.nc.then_some(NC));
        if let Some(m) = extra {
            return no(m, format!("`{op}.mmio` takes no `{m}`"));
        }
        return None;
    }
    if x.nc {
        if x.space() != Some(LdSpace::Global) {
            return no(NC, "`.nc` is a modifier of `ld.global` only".into());
        }
        if let Some(s) = x.sem {
            return no(s.as_str(), format!("`ld.global.nc` takes no `{}`", s.as_str()));
        }
    }
    // The memory ordering and its scope.
    match (x.sem, x.scope) {
        (Some(s @ (LdSem::Relaxed | LdSem::Acquire | LdSem::Release)), None) => return no(s.as_str(), format!("`{op}{}` needs a scope: `.cta`, `.cluster`, `.gpu` or `.sys`", s.as_str())),
        (None | Some(LdSem::Weak | LdSem::Volatile), Some(sc)) => {
            return no(sc.as_str(), format!("a scope belongs to `{op}.relaxed` and `{op}.{}` only", if x.store() { "release" } else { "acquire" }))
        }
        _ => {}
    }
    match (x.kind, x.sem) {
        (LdStKind::Ld, Some(LdSem::Release)) => return no(".release", "a load takes `.acquire`, not `.release`".into()),
        (LdStKind::St, Some(LdSem::Acquire)) => return no(".acquire", "a store takes `.release`, not `.acquire`".into()),
        _ => {}
    }
    if let Some(c) = x.cop {
        let fits = match x.kind {
            _ if x.nc => matches!(c, LdCop::Ca | LdCop::Cg | LdCop::Cs),
            LdStKind::St => matches!(c, LdCop::Wb | LdCop::Cg | LdCop::Cs | LdCop::Wt),
            _ => matches!(c, LdCop::Ca | LdCop::Cg | LdCop::Cs | LdCop::Lu | LdCop::Cv),
        };
        if !fits {
            return no(c.as_str(), format!("`{}` is not a cache operator of `{op}`", c.as_str()));
        }
        if let Some(s) = x.sem.filter(|s| *s != LdSem::Weak) {
            return no(c.as_str(), format!("a cache operator does not combine with `{}`", s.as_str()));
        }
        if let Some(e) = x.l1.map(L1Evict::as_str).or(x.l2.map(L2Evict::as_str)) {
            return no(e, format!("an eviction priority does not combine with the cache operator `{}`", c.as_str()));
        }
    }
    // Where each qualifier applies (ptxas 13.5: "Modifier '.relaxed'
    // cannot be applied to '.local' space", "... '.L2::cache_hint' cannot
    // be applied to '.shared' space", "State space incorrect for feature
    // 'cache prefetching'"): the memory orderings and `.mmio` to memory
    // other threads can see (`.global`, `.shared`, generic), `.volatile`
    // not to `.const` or `.param`, the eviction priorities, the cache hint
    // and the prefetch sizes to `.global` and generic addresses only.
    if let Some(s) = x.space() {
        let shared_or_global = matches!(s, LdSpace::Global | LdSpace::Shared | LdSpace::SharedCta | LdSpace::SharedCluster);
        let sem = x.sem.filter(|m| !matches!(m, LdSem::Weak)).map(LdSem::as_str);
        let bad = match sem {
            Some(m) if m == LdSem::Volatile.as_str() => (s.base() == StateSpace::Const || s.base() == StateSpace::Param).then_some(m),
            Some(m) => (!shared_or_global).then_some(m),
            None => None,
        };
        let bad = bad.or_else(|| (s != LdSpace::Global).then(|| x.l1.map(L1Evict::as_str).or(x.l2.map(L2Evict::as_str)).or(x.hint.then_some(HINT)).or(x.prefetch.map(PrefetchSize::as_str))).flatten());
        if let Some(m) = bad {
            return no(m, format!("`{m}` does not apply to the `{}` state space", s.as_str()));
        }
        if x.store() && s == LdSpace::ParamEntry {
            return no(s.as_str(), "a store cannot write `.param::entry`: kernel parameters are read-only".into());
        }
    }
    // An L2 eviction priority goes with the 256-bit accesses only (ptxas
    // 13.5: "Instruction 'ld' requires '.v8.b32/.v4.b64' type with
    // '.L2::evict_normal' modifier").
    let bits = x.ty.bits() * x.vec.map_or(1, |v| u32::from(v.len()));
    if let Some(e) = x.l2.filter(|_| bits != 256) {
        return no(e.as_str(), format!("`{}` goes with the 256-bit forms `.v8` of 32 bits and `.v4` of 64 bits", e.as_str()));
    }
    // Vectors: at most 256 bits, and `.b128` alone (ptxas
    // 13.5: "Vector type too large, exceeds 128 bit limit").
    if let Some(v) = x.vec {
        if x.ty.bits() == 128 || bits > 256 {
            return no(v.as_str(), format!("`{}` of `{}` is not a vector width {op} has", v.as_str(), x.ty.as_str()));
        }
    }
    if x.sem == Some(LdSem::Volatile) {
        if let Some(m) = x.l1.map(L1Evict::as_str).or(x.l2.map(L2Evict::as_str)).or(x.hint.then_some(HINT)) {
            return no(m, format!("`{op}.volatile` takes no `{m}`"));
        }
    }
    None
}

/// `st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type
/// [a], b, [mbar]` with `.type` `.b32 .b64 .u32 .u64 .s32 .s64 .f32 .f64`
/// (PTX ISA 9.7.9.12; ptxas 13.5: "Modifier '.shared::cluster' requires
/// modifier '.completion_mechanism'", "Illegal vector size: 8", "Vector
/// type too large, exceeds 128 bit limit", "Arguments mismatch" for `.b16`).
fn st_async_misfit(x: LdSt) -> Option<Misfit> {
    use ScalarType::*;
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    if !x.asynchronous {
        return no(COMPLETE_TX, "the completion mechanism is `st.async`'s".into());
    }
    if !x.complete_tx {
        return no(".async", "`st.async` needs its completion mechanism `.mbarrier::complete_tx::bytes`".into());
    }
    if let Some(s) = x.space().filter(|s| *s != LdSpace::SharedCluster) {
        return no(s.as_str(), format!("`st.async` writes `.shared::cluster` memory, not `{}`", s.as_str()));
    }
    let extra = x.sem.filter(|s| *s != LdSem::Weak).map(LdSem::as_str).or(x.mmio.then_some(".mmio")).or(x.scope.map(ProxyScope::as_str)).or(x.cop.map(LdCop::as_str));
    let extra = extra.or(x.l1.map(L1Evict::as_str)).or(x.l2.map(L2Evict::as_str)).or(x.hint.then_some(HINT));
    if let Some(m) = extra {
        return no(m, format!("`st.async` takes no `{m}`"));
    }
    if !matches!(x.ty, B32 | B64 | U32 | U64 | S32 | S64 | F32 | F64) {
        return no(x.ty.as_str(), format!("`st.async` does not take `{}`", x.ty.as_str()));
    }
    match x.vec {
        Some(v) if v == LdVec::V8 || x.ty.bits() * u32::from(v.len()) > 128 => no(v.as_str(), format!("`st.async{}{}` moves more than 128 bits", v.as_str(), x.ty.as_str())),
        _ => None,
    }
}

const COMPLETE_TX: &str = ".mbarrier::complete_tx::bytes";

/// `prefetch{.global,.local}.{L1,L2} [a]`,
/// `prefetch{.global}.L2::evict_{last,normal} [a]`,
/// `prefetch{.const,.param}.tensormap [a]` (PTX ISA 9.7.9.15; messages
/// as ptxas 12.9 judges the forms, `tests/check/*/scalar-operands--prefetch-*`).
fn prefetch_misfit(space: Option<PrefetchSpace>, level: Option<PrefetchLevel>) -> Option<Misfit> {
    use PrefetchLevel as L;
    use PrefetchSpace as S;
    let Some(level) = level else {
        return Some(Misfit { modifier: "", why: "`prefetch` needs a cache level: `.L1`, `.L2`, `.L2::evict_last`, `.L2::evict_normal` or `.tensormap`".into() });
    };
    let fits = match (level, space) {
        (_, None) => true,
        (L::Tensormap, Some(s)) => matches!(s, S::Const | S::Param),
        (L::L2EvictLast | L::L2EvictNormal, Some(s)) => s == S::Global,
        (L::L1 | L::L2, Some(s)) => matches!(s, S::Global | S::Local),
    };
    let s = space.map_or("", PrefetchSpace::as_str);
    (!fits).then(|| Misfit { modifier: s, why: format!("`prefetch{}` does not take the `{s}` state space", level.as_str()) })
}

/// `createpolicy.fractional.L2::p{.L2::s}.b64 d{, fraction}`,
/// `createpolicy.range{.global}.L2::p{.L2::s}.b64 d, [a], size, total`,
/// `createpolicy.cvt.L2.b64 d, a` (PTX ISA 9.7.9.15): the secondary
/// priority is `.L2::evict_first` or `.L2::evict_unchanged`.
fn createpolicy_misfit(kind: PolicyKind, space: Option<GlobalSpace>, level: Option<DiscardLevel>, prio: [Option<PolicyPriority>; 2]) -> Option<Misfit> {
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    if kind == PolicyKind::Cvt {
        if let Some(m) = prio[0].map(PolicyPriority::as_str).or(space.map(GlobalSpace::as_str)) {
            return no(m, format!("`{m}` is not a modifier of `createpolicy.cvt`"));
        }
        return level.is_none().then(|| Misfit { modifier: "", why: "`createpolicy.cvt` needs the cache level `.L2`".into() });
    }
    if let Some(l) = level {
        return no(l.as_str(), format!("`{}` is a modifier of `createpolicy.cvt` only", l.as_str()));
    }
    if let (PolicyKind::Fractional, Some(s)) = (kind, space) {
        return no(s.as_str(), "`createpolicy.fractional` takes no state space".into());
    }
    match prio {
        [None, _] => no("", "`createpolicy` needs an eviction priority: `.L2::evict_last`, `.L2::evict_normal`, `.L2::evict_first` or `.L2::evict_unchanged`".into()),
        [_, Some(p)] if !matches!(p, PolicyPriority::EvictFirst | PolicyPriority::EvictUnchanged) => {
            no(p.as_str(), format!("the secondary priority of `createpolicy` is `.L2::evict_first` or `.L2::evict_unchanged`, not `{}`", p.as_str()))
        }
        _ => None,
    }
}

/// `membar.level` or `membar.proxy.proxykind` (PTX ISA 9.7.13.4).
fn membar_misfit(level: Option<MembarLevel>, proxy: bool, kind: Option<ProxyKind>, space: Option<ProxySpace>) -> Option<Misfit> {
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    if proxy {
        if let Some(l) = level {
            return no(l.as_str(), "`membar.proxy` takes a proxy kind, not a level".into());
        }
        // ptxas 12.9: "Illegal modifier '.async' for instruction
        // 'membar.proxy'": membar's proxy kind is `.alias`.
        if let Some(k) = kind.filter(|k| *k != ProxyKind::Alias) {
            return no(k.as_str(), "`membar.proxy` takes the proxy kind `.alias` only; `fence.proxy` takes the others".into());
        }
        return proxy_kind_misfit("membar.proxy", kind, space, true);
    }
    if let Some(k) = kind {
        return no(k.as_str(), format!("`{}` is a proxy kind: `membar.proxy{}`", k.as_str(), k.as_str()));
    }
    if let Some(s) = space {
        return no(s.as_str(), "`membar` takes no state space".into());
    }
    // ptxas 13.5: "Membar level required for instruction 'membar'".
    level.is_none().then(|| Misfit { modifier: "", why: "`membar` needs a level: `.cta`, `.gl` or `.sys`".into() })
}

/// The bi-directional proxy kinds `.alias`, `.async{.space}`; `bidir`
/// only for those (the uni-directional ones are fence's).
fn proxy_kind_misfit(op: &str, kind: Option<ProxyKind>, space: Option<ProxySpace>, bidir: bool) -> Option<Misfit> {
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    match kind {
        // ptxas 13.5: ".proxykind modifier required for instruction 'fence.proxy'".
        None => no("", format!("`{op}` needs a proxy kind: `.alias`, `.async`, `.async.global`, `.async.shared::{{cta,cluster}}`")),
        Some(k @ (ProxyKind::TensormapGeneric | ProxyKind::AsyncGeneric)) if bidir => no(k.as_str(), format!("`{op}` takes the bi-directional proxy kinds only")),
        Some(ProxyKind::Async) => None,
        Some(_) => space.and_then(|s| no(s.as_str(), "a state space goes with `.proxy.async` only".into())),
    }
}

/// `fence` (PTX ISA 9.7.13.4; messages as ptxas 13.5 judges the forms):
/// `fence{.sem}.scope`, `fence.acquire.sync_restrict::shared::cluster.cluster`,
/// `fence.release.sync_restrict::shared::cta.cluster`,
/// `fence.op_restrict.release.cluster`, `fence.proxy.proxykind`,
/// `fence.proxy.tensormap::generic.{release,acquire}.scope`,
/// `fence.proxy.async::generic.{acquire,release}.sync_restrict::shared::{cluster,cta}.cluster`.
fn fence_misfit(proxy: bool, kind: Option<ProxyKind>, space: Option<ProxySpace>, op: Option<FenceOp>, sem: Option<FenceSem>, restrict: Option<SyncRestrict>, scope: Option<ProxyScope>) -> Option<Misfit> {
    let no = |modifier: &'static str, why: String| Some(Misfit { modifier, why });
    let sem_s = sem.map_or("", FenceSem::as_str);
    // `.sync_restrict::shared::cluster` with `.acquire`, `::cta` with
    // `.release`, both at `.cluster` scope.
    let restricted = |r: SyncRestrict| -> Option<Misfit> {
        let want = if r == SyncRestrict::SharedCluster { FenceSem::Acquire } else { FenceSem::Release };
        if sem != Some(want) {
            return no(r.as_str(), format!("`{}` goes with `{}`", r.as_str(), want.as_str()));
        }
        (scope != Some(ProxyScope::Cluster)).then(|| Misfit { modifier: r.as_str(), why: format!("`{}` takes the `.cluster` scope", r.as_str()) })
    };
    if proxy {
        if let Some(o) = op {
            return no(o.as_str(), "`.op_restrict` is not a modifier of `fence.proxy`".into());
        }
        match kind {
            Some(k @ (ProxyKind::TensormapGeneric | ProxyKind::AsyncGeneric)) => {
                if !matches!(sem, Some(FenceSem::Acquire | FenceSem::Release)) {
                    // ptxas 13.5: ".acquire/.release modifier required for instruction 'fence.proxy'".
                    return no(if sem.is_some() { sem_s } else { k.as_str() }, format!("`fence.proxy{}` needs `.acquire` or `.release`", k.as_str()));
                }
                if let Some(s) = space {
                    return no(s.as_str(), "a state space goes with `.proxy.async` only".into());
                }
                if k == ProxyKind::AsyncGeneric {
                    return match restrict {
                        Some(r) => restricted(r),
                        None => no(k.as_str(), "`fence.proxy.async::generic` needs `.sync_restrict::shared::cluster` or `::cta`".into()),
                    };
                }
                if let Some(r) = restrict {
                    return no(r.as_str(), "`.sync_restrict` is not a modifier of `fence.proxy.tensormap::generic`".into());
                }
                return scope.is_none().then(|| Misfit { modifier: k.as_str(), why: "`fence.proxy.tensormap::generic` needs a scope".into() });
            }
            _ => {
                if let Some(m) = sem.map(FenceSem::as_str).or(restrict.map(SyncRestrict::as_str)) {
                    return no(m, format!("`{m}` goes with a uni-directional proxy fence only"));
                }
                // ptxas 13.5: "Modifier '.gpu' requires order with 'fence.proxy' instruction".
                if let Some(s) = scope {
                    return no(s.as_str(), "a bi-directional proxy fence takes no scope".into());
                }
                return proxy_kind_misfit("fence.proxy", kind, space, true);
            }
        }
    }
    if let Some(m) = kind.map(ProxyKind::as_str).or(space.map(ProxySpace::as_str)) {
        return no(m, format!("`{m}` goes with `fence.proxy` only"));
    }
    if let Some(o) = op {
        // ptxas 13.5: "Modifier '.mbarrier_init' requires modifier 'order'".
        if sem != Some(FenceSem::Release) || scope != Some(ProxyScope::Cluster) || restrict.is_some() {
            return no(o.as_str(), "`fence.mbarrier_init` is written `fence.mbarrier_init.release.cluster`".into());
        }
        return None;
    }
    if let Some(r) = restrict {
        return restricted(r);
    }
    // ptxas 13.5: "Scope modifier required for instruction 'fence'".
    scope.is_none().then(|| Misfit { modifier: "", why: "`fence` needs a scope: `.cta`, `.cluster`, `.gpu` or `.sys`".into() })
}

const HINT: &str = ".L2::cache_hint";
const NC: &str = ".nc";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::tests::dec;
    use crate::DecodeErrorKind as K;
    use ptxsim_syntax::ast::ScalarType::*;

    fn misfit(t: &str) -> Option<&'static str> {
        dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).mem_misfit().map(|m| m.modifier)
    }

    /// PTX ISA 9.7.9.8 ld, 9.7.9.9 ld.global.nc, 9.7.9.10 ldu, 9.7.9.11 st.
    #[test]
    fn ld_st_rows_decode_the_manual_forms() {
        let x = dec("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]").unwrap().ld_st().unwrap();
        assert_eq!((x.kind, x.space(), x.vec, x.ty), (LdStKind::Ld, Some(LdSpace::Global), Some(LdVec::V4), F32));
        let x = dec("ld.relaxed.gpu.shared::cta.L1::evict_last.L2::evict_first.L2::cache_hint.L2::128B.u32 %r1, [%rd1], %rd2").unwrap().ld_st().unwrap();
        assert_eq!((x.sem, x.scope, x.space(), x.l1, x.l2, x.hint, x.prefetch), (Some(LdSem::Relaxed), Some(ProxyScope::Gpu), Some(LdSpace::SharedCta), Some(L1Evict::Last), Some(L2Evict::First), true, Some(PrefetchSize::B128)));
        let x = dec("ld.global.cg.nc.b32 %r1, [%rd1]").unwrap().ld_st().unwrap();
        assert!(x.nc && x.cop == Some(LdCop::Cg));
        let x = dec("st.release.sys.global.wb.b64 [%rd1], %rd2").unwrap().ld_st().unwrap();
        assert_eq!((x.kind, x.sem, x.cop), (LdStKind::St, Some(LdSem::Release), Some(LdCop::Wb)));
        let x = dec("ldu.global.v2.b128 {%q1, %q2}, [%rd1]").unwrap().ld_st().unwrap();
        assert_eq!((x.kind, x.vec, x.ty), (LdStKind::Ldu, Some(LdVec::V2), B128));
        let x = dec("st.global.shared.u32 [%rd1], %r1").unwrap().ld_st().unwrap();
        assert_eq!(x.space, [Some(LdSpace::Global), Some(LdSpace::Shared)]);
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("ld.global.foo.u32 %r1, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".foo"));
        assert!(matches!(e("ld.global.ca.cg.u32 %r1, [%rd1]"), (K::Conflict { first: ".ca", .. }, s) if s == ".cg"));
        assert!(matches!(e("st.global.nc.u32 [%rd1], %r1"), (K::UnexpectedModifier { .. }, s) if s == ".nc"));
        assert!(matches!(e("st.global.L2::128B.u32 [%rd1], %r1"), (K::UnexpectedModifier { .. }, s) if s == ".L2::128B"));
        assert!(matches!(e("ldu.global.ca.u32 %r1, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".ca"));
        assert!(matches!(e("ld.global.u32.u32 %r1, [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".u32"));
        assert!(matches!(e("ld.global %r1, [%rd1]"), (K::Missing { .. }, _)));
        assert!(matches!(e("ld.global.v4.v2.u32 {%r1, %r2}, [%rd1]"), (K::Conflict { .. }, s) if s == ".v2"));
    }

    /// The combinations the syntax lines allow, and the ones they leave
    /// out (PTX ISA 9.7.9.8-11).
    #[test]
    fn ld_st_misfits() {
        for ok in [
            "ld.global.ca.L2::cache_hint.L2::256B.v2.u32 {%r1, %r2}, [%rd1], %rd2",
            "ld.weak.global.lu.u32 %r1, [%rd1]",
            "ld.volatile.global.L2::64B.u32 %r1, [%rd1]",
            "ld.acquire.cluster.shared::cluster.u32 %r1, [%rd1]",
            "ld.mmio.relaxed.sys.global.u32 %r1, [%rd1]",
            "ld.global.cs.nc.L2::cache_hint.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1], %rd2",
            "ld.global.nc.L1::no_allocate.u32 %r1, [%rd1]",
            "st.weak.global.wt.u32 [%rd1], %r1",
            "st.relaxed.cta.L1::evict_first.u32 [%rd1], %r1",
            "st.mmio.relaxed.sys.u32 [%rd1], %r1",
            "ldu.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1]",
            "ldu.u32 %r1, [%rd1]",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("ld.relaxed.global.u32 %r1, [%rd1]"), Some(".relaxed"));
        assert_eq!(misfit("st.release.u32 [%rd1], %r1"), Some(".release"));
        assert_eq!(misfit("ld.weak.gpu.u32 %r1, [%rd1]"), Some(".gpu"));
        assert_eq!(misfit("ld.gpu.u32 %r1, [%rd1]"), Some(".gpu"));
        assert_eq!(misfit("ld.release.gpu.u32 %r1, [%rd1]"), Some(".release"));
        assert_eq!(misfit("st.acquire.gpu.u32 [%rd1], %r1"), Some(".acquire"));
        assert_eq!(misfit("ld.global.wb.u32 %r1, [%rd1]"), Some(".wb"));
        assert_eq!(misfit("st.global.ca.u32 [%rd1], %r1"), Some(".ca"));
        assert_eq!(misfit("ld.global.lu.nc.u32 %r1, [%rd1]"), Some(".lu"));
        assert_eq!(misfit("ld.volatile.global.cg.u32 %r1, [%rd1]"), Some(".cg"));
        assert_eq!(misfit("ld.relaxed.gpu.cg.u32 %r1, [%rd1]"), Some(".cg"));
        assert_eq!(misfit("ld.global.ca.L1::evict_last.u32 %r1, [%rd1]"), Some(".L1::evict_last"));
        assert_eq!(misfit("st.volatile.L2::cache_hint.u32 [%rd1], %r1, %rd2"), Some(".L2::cache_hint"));
        assert_eq!(misfit("ld.shared.nc.u32 %r1, [%rd1]"), Some(".nc"));
        assert_eq!(misfit("ld.weak.global.nc.u32 %r1, [%rd1]"), Some(".weak"));
        assert_eq!(misfit("ld.mmio.relaxed.gpu.u32 %r1, [%rd1]"), Some(".mmio"));
        assert_eq!(misfit("ld.mmio.relaxed.sys.shared.u32 %r1, [%rd1]"), Some(".shared"));
        assert_eq!(misfit("st.mmio.relaxed.sys.v2.u32 [%rd1], {%r1, %r2}"), Some(".v2"));
        assert_eq!(misfit("ldu.shared.u32 %r1, [%rd1]"), Some(".shared"));
        assert_eq!(misfit("ldu.global.v8.u32 {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, [%rd1]"), Some(".v8"));
    }

    /// The rules ptxas 13.5 applies beyond the syntax lines (sm_90a,
    /// PTX 9.0): where each qualifier applies, the L2 eviction priority on
    /// 256-bit accesses only, and the vector limits.
    #[test]
    fn ld_st_misfits_as_ptxas_13_5_judges() {
        for ok in [
            "ld.shared.ca.u32 %r1, [%rd1]",
            "ld.volatile.local.u32 %r1, [%rd1]",
            "ld.global.v8.b32 {%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}, [%rd1]",
            "ld.global.L2::evict_last.v4.b64 {%rd1, %rd1, %rd1, %rd1}, [%rd1]",
            "st.global.v8.b8 [%rd1], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1}",
            "ld.L2::cache_hint.u32 %r1, [%rd1], %rd2",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        // "Modifier '.relaxed' cannot be applied to '.local' space".
        assert_eq!(misfit("ld.relaxed.gpu.local.u32 %r1, [%rd1]"), Some(".relaxed"));
        assert_eq!(misfit("st.release.gpu.param.u32 [%rd1], %r1"), Some(".release"));
        assert_eq!(misfit("ld.volatile.const.u32 %r1, [%rd1]"), Some(".volatile"));
        // "... '.L2::cache_hint' cannot be applied to '.shared' space".
        assert_eq!(misfit("ld.shared.L2::cache_hint.u32 %r1, [%rd1], %rd2"), Some(".L2::cache_hint"));
        assert_eq!(misfit("st.local.L1::evict_last.u32 [%rd1], %r1"), Some(".L1::evict_last"));
        // "State space incorrect for feature 'cache prefetching'".
        assert_eq!(misfit("ld.const.L2::128B.u32 %r1, [%rd1]"), Some(".L2::128B"));
        // "Illegal modifier '::entry' for instruction 'st'".
        assert_eq!(misfit("st.param::entry.u32 [%rd1], %r1"), Some(".param::entry"));
        // "Instruction 'ld' requires '.v8.b32/.v4.b64' type with '.L2::evict_normal' modifier".
        assert_eq!(misfit("ld.global.L2::evict_normal.u32 %r1, [%rd1]"), Some(".L2::evict_normal"));
        // "Vector type too large, exceeds 128 bit limit".
        assert_eq!(misfit("ld.global.v2.b128 {%q1, %q2}, [%rd1]"), Some(".v2"));
        assert_eq!(misfit("ldu.global.v4.f64 {%fd1, %fd1, %fd1, %fd1}, [%rd1]"), Some(".v4"));
    }

    /// PTX ISA 9.7.13.4 membar/fence, as ptxas 13.5 judges the forms
    /// (sm_90a, PTX 9.0).
    #[test]
    fn fence_and_membar_rows() {
        assert_eq!(dec("membar.gl"), Ok(Insn::Membar { level: Some(MembarLevel::Gl), proxy: false, kind: None, space: None }));
        assert_eq!(
            dec("fence.proxy.async.shared::cta"),
            Ok(Insn::Fence { proxy: true, kind: Some(ProxyKind::Async), space: Some(ProxySpace::SharedCta), op: None, sem: None, restrict: None, scope: None })
        );
        let e = |t: &str| dec(t).unwrap_err();
        // "Illegal modifier '.gl' for instruction 'fence'", "... '.relaxed' ...".
        assert!(matches!(e("fence.gl"), (K::UnexpectedModifier { .. }, s) if s == ".gl"));
        assert!(matches!(e("fence.relaxed.gpu"), (K::UnexpectedModifier { .. }, s) if s == ".relaxed"));
        // "Multiple scope modifiers specified".
        assert!(matches!(e("fence.proxy.tensormap::generic.release.cta.gpu"), (K::Conflict { .. }, s) if s == ".gpu"));
        assert!(matches!(e("membar.gpu"), (K::UnexpectedModifier { .. }, s) if s == ".gpu"));
        let misfit = |t: &str| dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).misfit().map(|m| m.modifier);
        for ok in [
            "membar.cta",
            "membar.sys",
            "membar.proxy.alias",
            "fence.sc.gpu",
            "fence.acq_rel.cluster",
            "fence.cta",
            "fence.acquire.sync_restrict::shared::cluster.cluster",
            "fence.release.sync_restrict::shared::cta.cluster",
            "fence.mbarrier_init.release.cluster",
            "fence.proxy.alias",
            "fence.proxy.async.global",
            "fence.proxy.tensormap::generic.release.gpu",
            "fence.proxy.tensormap::generic.acquire.sys [%rd1], 128",
            "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        // "Membar level required for instruction 'membar'".
        assert_eq!(misfit("membar"), Some(""));
        // "Scope modifier required for instruction 'fence'".
        assert_eq!(misfit("fence.sc"), Some(""));
        // "Modifier '.mbarrier_init' requires modifier 'order'".
        assert_eq!(misfit("fence.mbarrier_init.cluster"), Some(".mbarrier_init"));
        // "Modifier '.gpu' requires order with 'fence.proxy' instruction".
        assert_eq!(misfit("fence.proxy.alias.gpu"), Some(".gpu"));
        // ".proxykind modifier required for instruction 'fence.proxy'".
        assert_eq!(misfit("fence.proxy"), Some(""));
        assert_eq!(misfit("fence.proxy.acquire.sync_restrict::shared::cta.cluster"), Some(".acquire"));
        // ".acquire/.release modifier required for instruction 'fence.proxy'".
        assert_eq!(misfit("fence.proxy.async::generic"), Some(".async::generic"));
        // "Modifier '.sync_restrict::shared::cluster' cannot be combined with modifier '.acq_rel'".
        assert_eq!(misfit("fence.acq_rel.sync_restrict::shared::cluster.cluster"), Some(".sync_restrict::shared::cluster"));
    }

    /// PTX ISA 9.7.9.19 cvta, 9.7.17.2-4 alloca, stacksave, stackrestore.
    #[test]
    fn cvta_and_stack_rows() {
        assert_eq!(dec("cvta.to.shared::cluster.u64 %rd1, %rd2"), Ok(Insn::Cvta { to: true, space: CvtaSpace::SharedCluster, ty: U64 }));
        let e = |t: &str| dec(t).unwrap_err();
        // ptxas 13.5: "State space modifier required for instruction 'cvta'",
        // "Instruction 'cvta' requires .u32 or .u64 type", "Illegal modifier '::func'".
        assert!(matches!(e("cvta.u64 %rd1, %rd2"), (K::Missing { .. }, _)));
        assert!(matches!(e("cvta.global.s64 %rd1, %rd2"), (K::TypeNotAllowed { .. }, s) if s == ".s64"));
        assert!(matches!(e("cvta.param::func.u64 %rd1, %rd2"), (K::UnexpectedModifier { .. }, s) if s == ".param::func"));
        assert_eq!(dec("alloca.u64 %rd1, %rd2, 8"), Ok(Insn::Alloca { ty: U64 }));
        // ptxas 13.5: "No state space qualifier expected for instruction 'alloca'",
        // "Unexpected instruction types specified for 'stacksave'".
        assert!(matches!(e("alloca.local.u64 %rd1, %rd2"), (K::UnexpectedModifier { .. }, s) if s == ".local"));
        assert!(matches!(e("stacksave.b64 %rd1"), (K::TypeNotAllowed { .. }, s) if s == ".b64"));
        assert_eq!(dec("stackrestore.u32 %r1"), Ok(Insn::Stackrestore { ty: U32 }));
    }

    /// PTX ISA 9.7.9.12 st.async, as ptxas 13.5 judges it (sm_90a).
    #[test]
    fn st_async_forms() {
        let x = dec("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%rd1], {%r1, %r2}, [%rd2]").unwrap().ld_st().unwrap();
        assert!(x.asynchronous && x.complete_tx && x.vec == Some(LdVec::V2));
        for ok in ["st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%rd1], %rd3, [%rd2]", "st.async.mbarrier::complete_tx::bytes.f32 [%rd1], %f1, [%rd2]"] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("st.async.shared::cluster.b32 [%rd1], %r1, [%rd2]"), Some(".async"));
        assert_eq!(misfit("st.async.global.mbarrier::complete_tx::bytes.b32 [%rd1], %r1, [%rd2]"), Some(".global"));
        assert_eq!(misfit("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64 [%rd1], {%rd1, %rd2, %rd3, %rd4}, [%rd2]"), Some(".v4"));
        assert_eq!(misfit("st.async.shared::cluster.mbarrier::complete_tx::bytes.b16 [%rd1], %h1, [%rd2]"), Some(".b16"));
        assert_eq!(misfit("st.global.mbarrier::complete_tx::bytes.b32 [%rd1], %r1"), Some(".mbarrier::complete_tx::bytes"));
    }

    /// PTX ISA 9.7.9.16-18, as ptxas 12.9 judges the forms
    /// (`tests/check/*/space-operands--*`).
    #[test]
    fn space_rows() {
        assert_eq!(dec("isspacep.shared::cluster %p1, %rd1"), Ok(Insn::Isspacep { space: IsspacepSpace::SharedCluster }));
        assert_eq!(dec("mapa.shared::cluster.u32 %r1, %r2, %r3"), Ok(Insn::Mapa { space: Some(ClusterSpace::SharedCluster), ty: U32 }));
        assert_eq!(dec("getctarank.s64 %r1, %rd2"), Ok(Insn::Getctarank { space: None, ty: S64 }));
        let e = |t: &str| dec(t).unwrap_err();
        // "State space modifier required", "Unexpected number of state spaces".
        assert!(matches!(e("isspacep %p1, %rd1"), (K::Missing { .. }, _)));
        assert!(matches!(e("isspacep.global.local %p1, %rd1"), (K::Conflict { .. }, s) if s == ".local"));
        assert!(matches!(e("isspacep.u64 %p1, %rd1"), (K::UnexpectedModifier { .. }, s) if s == ".u64"));
        assert!(matches!(e("isspacep.param::func %p1, %rd1"), (K::UnexpectedModifier { .. }, s) if s == ".param::func"));
        // "expected '::cluster'"; the types.
        assert!(matches!(e("mapa.shared.u32 %r1, %r2, %r3"), (K::UnexpectedModifier { .. }, s) if s == ".shared"));
        assert!(matches!(e("getctarank.b32 %r1, %r2"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        assert!(matches!(e("mapa %r1, %r2, %r3"), (K::Missing { .. }, _)));
    }

    /// PTX ISA 9.7.9.15 prefetch, prefetchu, applypriority, discard,
    /// createpolicy, as ptxas 12.9 judges the forms
    /// (`tests/check/*/scalar-operands--*`).
    #[test]
    fn cache_hint_rows() {
        assert_eq!(dec("prefetch.global.L2::evict_last [%rd1]"), Ok(Insn::Prefetch { space: Some(PrefetchSpace::Global), level: Some(PrefetchLevel::L2EvictLast) }));
        assert_eq!(dec("discard.global.L2 [%rd1], 128"), Ok(Insn::Discard { space: Some(GlobalSpace::Global), level: DiscardLevel::L2 }));
        let e = |t: &str| dec(t).unwrap_err();
        assert!(matches!(e("prefetch.L1.L2 [%rd1]"), (K::Conflict { .. }, s) if s == ".L2"));
        assert!(matches!(e("prefetch.shared.L1 [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".shared"));
        assert!(matches!(e("prefetchu.L2 [%rd1]"), (K::UnexpectedModifier { .. }, s) if s == ".L2"));
        assert!(matches!(e("applypriority.global.L2::evict_last [%rd1], 128"), (K::UnexpectedModifier { .. }, s) if s == ".L2::evict_last"));
        assert!(matches!(e("createpolicy.fractional.L2::evict_last.b32 %r1, 1.0"), (K::TypeNotAllowed { .. }, s) if s == ".b32"));
        let misfit = |t: &str| dec(t).unwrap_or_else(|e| panic!("{t}: {e:?}")).misfit().map(|m| m.modifier);
        for ok in [
            "prefetch.local.L1 [%rd1]",
            "prefetch.L2::evict_normal [%rd1]",
            "prefetch.param.tensormap [%rd1]",
            "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0.5",
            "createpolicy.range.global.L2::evict_normal.b64 %rd1, [%rd2], %r1, %r2",
            "createpolicy.cvt.L2.b64 %rd1, %rd2",
        ] {
            assert_eq!(misfit(ok), None, "{ok}");
        }
        assert_eq!(misfit("prefetch [%rd1]"), Some(""));
        assert_eq!(misfit("prefetch.local.L2::evict_last [%rd1]"), Some(".local"));
        assert_eq!(misfit("prefetch.global.tensormap [%rd1]"), Some(".global"));
        assert_eq!(misfit("createpolicy.fractional.L2::evict_first.L2::evict_normal.b64 %rd1, 0.5"), Some(".L2::evict_normal"));
        assert_eq!(misfit("createpolicy.cvt.L2::evict_last.b64 %rd1, %rd2"), Some(".L2::evict_last"));
        assert_eq!(misfit("createpolicy.fractional.global.L2::evict_last.b64 %rd1"), Some(".global"));
        assert_eq!(misfit("createpolicy.range.b64 %rd1, [%rd2], %r1, %r2"), Some(""));
    }
}
