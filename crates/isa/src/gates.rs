//! The minimum PTX ISA version and target of every gated instruction and
//! feature: [`FEATURES`], one row per [`Feature`]. An opcode's row in the
//! instruction description names its opcode-level gate; the checker applies
//! that and the modifier- and operand-level gates of its rules from here.
//! Sources: the PTX ISA manual's "PTX ISA Notes" and "Target ISA Notes" of
//! each instruction, measured against ptxas 12.9 where noted (where ptxas
//! disagrees with the manual, the row follows ptxas and says so).

/// A PTX ISA version, `major.minor`, ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion {
    pub major: u32,
    pub minor: u32,
}

impl PtxVersion {
    pub const fn new(major: u32, minor: u32) -> PtxVersion {
        PtxVersion { major, minor }
    }
}

impl std::fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A gated instruction or feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    TypeB128,
    AggrSmemSize,
    ReservedSmem,
    CurrentGraphExec,
    BrxIdx,
    BranchTargets,
    IndirectCall,
    CallTargets,
    CallPrototype,
    FunctionInitialisers,
    ParamFormals,
    Nanosleep,
    SetpF16,
    SetpBf16,
    SetpBf16x2,
    AddressSize,
    ShflSync,
    VoteSync,
    BarWarpSync,
    Activemask,
    MatchSync,
    ReduxSync,
    AtomAddF64,
    F16Arith,
    ClusterBarrier,
    ClusterBarrierSem,
    ClusterRegisters,
    Tanh,
    Alias,
    MaskInit,
    RsqrtFtzF64,
    Ex2Half,
    Bf16Transcendental,
    MinMaxHalf,
    MinMaxNaN,
    MinMaxXorsignAbs,
    Bf16AddSubMul,
    Bf16Arith,
    Relu,
    CvtToBf16,
    CvtFromBf16,
    Atom16,
    AtomBf16,
    Fence,
    FenceProxy,
    SzextBmsk,
    Dp4a,
    MinMaxRelu,
    MinMax3,
    F32x2Arith,
    FmaOob,
    PackedInt16,
    GridDepControl,
    BulkCopy,
    BulkCopyCtaDst,
    BulkCopyCpMask,
    TensorCopySm100,
    CarryAdd,
    CarrySub,
    MadCarry,
    Carry64,
    Testp,
    Fns,
    Prefetch,
    CacheEviction,
    PrefetchTensormap,
    CvtPack,
    CvtPackSubByte,
    ElectSync,
    ReduxF32,
    Lop3,
    Lop3BoolOp,
    Shf,
    CpAsync,
    CpAsyncIgnoreSrc,
    CpAsyncHint,
    SharedCta,
    Ldmatrix,
    Stmatrix,
    Movmatrix,
    MmaM16N8K8,
    MmaM8N8K16,
    MmaSm80,
    MmaFp8,
    /// `wmma` (`.sync.aligned`), and its integer, sub-byte, `.and.popc`
    /// and sm_80 forms.
    Wmma,
    WmmaAligned,
    WmmaShapes61,
    WmmaInt,
    WmmaSubByte,
    WmmaAndPopc,
    WmmaSm80,
    Mbarrier,
    MbarrierParity,
    MbarrierTryWait,
    MbarrierArriveCount,
    MbarrierTx,
    MbarrierSem,
    /// `.relaxed` on `mbarrier.arrive`, `arrive_drop`, `test_wait`, `try_wait`.
    MbarrierRelaxed,
    /// The `.cluster` scope of `mbarrier`.
    MbarrierClusterScope,
    /// `.shared::cluster` on `mbarrier`.
    MbarrierSharedCluster,
    SpaceConst,
    SpaceParam,
    SpaceCluster,
    SpaceParamEntry,
    Mapa,
    Getctarank,
    // The Hopper rows (sm_90a; the `a` target is checked by their rule).
    Wgmma,
    WgmmaMixedInt,
    Setmaxnreg,
    TensormapReplace,
    TensormapCpFenceproxy,
    TensormapSwizzleAtomicity,
    LdSt256,
    LocalVolatile,
    /// `multimem.ld_reduce`, `multimem.st`, `multimem.red`.
    Multimem,
    /// `multimem`'s FP8 types and `.acc::f16` (the `a`/`f` targets are checked by its rule).
    MultimemFp8,
    /// `multimem.cp.async.bulk`, `multimem.cp.reduce.async.bulk`.
    MultimemCp,
    /// `multimem.cp.async.bulk`'s `.cp_mask`.
    MultimemCpMask,
    /// The `tcgen05` family (the `a`/`f` targets are checked by its rule).
    Tcgen05,
    /// `.relaxed`, `.acquire`, `.release` (`.acq_rel`) on ld, st, atom, red.
    MemSem,
    /// Scopes on `atom`/`red` (`.cta`, `.gpu`, `.sys`).
    AtomScope,
    /// The `.cluster` scope of ld, st, atom, red and fence.
    ClusterScope,
    /// `.param::func` on ld/st.
    SpaceParamFunc,
    /// `cvta` to or from `.param`.
    CvtaParam,
    /// Eviction priorities (`.L1::evict_*`, `.L1::no_allocate`, `.L2::evict_*`) on ld/st.
    LdEviction,
    /// `.L2::64B`/`.L2::128B` prefetch sizes on ld.
    LdPrefetchSize,
    /// `.L2::256B` on ld.
    LdPrefetch256,
    /// `.L2::cache_hint` on ld/st/atom/red.
    CacheHint,
    /// `.mmio` on ld/st.
    Mmio,
    /// `st.async`.
    StAsync,
    /// `atom`/`red` on vector types.
    AtomVector,
    /// `cvt` of two `.f32` into `.f16x2`/`.bf16x2`.
    CvtF16x2F32,
    /// `cvt` to or from `.e4m3x2`/`.e5m2x2` (sm_90; sm_89 from 8.1: its rule).
    CvtF8x2,
    /// `cvt` to or from `.e4m3x2`/`.e5m2x2` on sm_89.
    CvtF8x2Sm89,
    /// `%dynamic_smem_size`, `%total_smem_size`.
    SmemSizeRegs,
    /// `%globaltimer` (and `_lo`, `_hi`).
    Globaltimer,
    /// `%lanemask_*`.
    Lanemask,
    /// `%clock64`.
    Clock64,
    /// `%nsmid`.
    Nsmid,
    /// `.explicitcluster`, `.reqnctapercluster`, `.maxclusterrank`.
    ClusterDirectives,
    /// `clusterlaunchcontrol`.
    Clc,
    /// Volta's `mma.m8n8k4` on `.f16`.
    MmaM8N8K4F16,
    /// `atom.cas`/`.exch` on `.b128`.
    AtomB128,
    /// The `.f16x2` type of a variable.
    F16x2Type,
}

/// One row of the gating table.
pub struct Gate {
    pub feature: Feature,
    /// How diagnostics name it.
    pub name: &'static str,
    pub min_version: PtxVersion,
    /// Minimum `sm_` number.
    pub min_sm: u32,
    /// Where the requirement comes from.
    pub source: &'static str,
}

const fn v(a: u32, b: u32) -> PtxVersion {
    PtxVersion::new(a, b)
}

/// The gating table: minimum PTX ISA version and target of every gated feature.
pub const FEATURES: &[Gate] = &[
    Gate { feature: Feature::AggrSmemSize, name: "%aggr_smem_size", min_version: v(8, 1), min_sm: 90, source: "PTX ISA 10 %aggr_smem_size: introduced in 8.1, requires sm_90 (ptxas 13.5 agrees)" },
    Gate { feature: Feature::ReservedSmem, name: "the %reserved_smem_offset registers", min_version: v(7, 6), min_sm: 80, source: "PTX ISA 10 %reserved_smem_offset_begin/_end/_cap/_<2>: introduced in 7.6, require sm_80 (ptxas 13.5 agrees)" },
    Gate { feature: Feature::CurrentGraphExec, name: "%current_graph_exec", min_version: v(8, 0), min_sm: 50, source: "PTX ISA 10 %current_graph_exec: introduced in 8.0, requires sm_50 (ptxas 13.5 agrees)" },
    Gate { feature: Feature::TypeB128, name: "the .b128 type", min_version: v(8, 3), min_sm: 70, source: "PTX ISA 5.2.1 fundamental types: .b128 introduced in 8.3, requires sm_70 (ptxas: Feature 'Type .b128' requires PTX ISA .version 8.3 or later)" },
    Gate { feature: Feature::BrxIdx, name: "brx.idx", min_version: v(6, 0), min_sm: 30, source: "PTX ISA 9.7.12.4 brx.idx: introduced in 6.0, requires sm_30" },
    Gate { feature: Feature::BranchTargets, name: ".branchtargets directive", min_version: v(6, 0), min_sm: 30, source: "PTX ISA 9.7.12.4 brx.idx (and ptxas 12.9)" },
    Gate { feature: Feature::IndirectCall, name: "indirect call", min_version: v(2, 1), min_sm: 20, source: "PTX ISA 9.7.12.5 call: indirect call introduced in 2.1, requires sm_20" },
    Gate { feature: Feature::CallTargets, name: ".calltargets directive", min_version: v(2, 1), min_sm: 20, source: "PTX ISA 9.7.12.5 call (and ptxas 12.9)" },
    Gate { feature: Feature::CallPrototype, name: ".callprototype directive", min_version: v(2, 1), min_sm: 20, source: "PTX ISA 9.7.12.5 call (and ptxas 12.9)" },
    Gate { feature: Feature::FunctionInitialisers, name: "functions as initial values", min_version: v(2, 1), min_sm: 20, source: "PTX ISA 9.7.12.5 call tables (and ptxas 12.9)" },
    Gate { feature: Feature::ParamFormals, name: ".param formal parameters of a .func", min_version: v(2, 0), min_sm: 20, source: "PTX ISA 5.1.6.4 kernel function parameters / ptxas 12.9 ('Function parameter has illegal state space' on sm_10)" },
    Gate { feature: Feature::Nanosleep, name: "nanosleep", min_version: v(6, 2), min_sm: 70, source: "PTX ISA 9.7.13 nanosleep requires sm_70; the manual says PTX ISA 6.3, but ptxas 11.8 and 12.9 accept 6.2 (and reject 6.1), and ptxsim follows ptxas" },
    Gate { feature: Feature::SetpF16, name: "setp.f16/.f16x2", min_version: v(4, 2), min_sm: 53, source: "PTX ISA 9.7.4.4 setp (half precision): introduced in 4.2, requires sm_53" },
    Gate { feature: Feature::SetpBf16, name: "setp.bf16", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.4.4 setp.bf16: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::SetpBf16x2, name: "setp.bf16x2", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.4.4 setp.bf16x2: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::AddressSize, name: ".address_size directive", min_version: v(2, 3), min_sm: 0, source: "PTX ISA 11.1.3 .address_size: introduced in 2.3" },
    Gate { feature: Feature::ShflSync, name: "shfl.sync", min_version: v(6, 0), min_sm: 30, source: "PTX ISA 9.7.9.6 shfl.sync: introduced in 6.0, requires sm_30" },
    Gate { feature: Feature::VoteSync, name: "vote.sync", min_version: v(6, 0), min_sm: 30, source: "PTX ISA 9.7.13.9 vote.sync: introduced in 6.0, requires sm_30" },
    Gate { feature: Feature::BarWarpSync, name: "bar.warp.sync", min_version: v(6, 0), min_sm: 30, source: "PTX ISA 9.7.13.3 bar.warp.sync: introduced in 6.0, requires sm_30" },
    Gate { feature: Feature::Activemask, name: "activemask", min_version: v(6, 2), min_sm: 30, source: "PTX ISA 9.7.13.12 activemask: introduced in 6.2, requires sm_30" },
    Gate { feature: Feature::MatchSync, name: "match.sync", min_version: v(6, 0), min_sm: 70, source: "PTX ISA 9.7.13.10 match.sync: introduced in 6.0, requires sm_70" },
    Gate { feature: Feature::ReduxSync, name: "redux.sync", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.13.11 redux.sync: introduced in 7.0, requires sm_80" },
    Gate { feature: Feature::AtomAddF64, name: "atom.add.f64", min_version: v(5, 0), min_sm: 60, source: "PTX ISA 9.7.13.5 atom: .f64 add introduced in 5.0, requires sm_60" },
    Gate { feature: Feature::F16Arith, name: "f16 arithmetic", min_version: v(4, 2), min_sm: 53, source: "PTX ISA 9.7.4 half precision instructions: introduced in 4.2, require sm_53" },
    // The rows below were measured with ptxas 12.9 (lowest target accepted
    // under .version 8.8, then lowest version accepted at that target) and
    // agree with the manual's PTX ISA notes / target ISA notes.
    Gate { feature: Feature::ClusterBarrier, name: "barrier.cluster", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.13.2 barrier.cluster: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::ClusterBarrierSem, name: "`.relaxed`/`.release`/`.acquire` on barrier.cluster", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.13.2 barrier.cluster: the .sem qualifiers were introduced in 8.0" },
    Gate { feature: Feature::ClusterRegisters, name: "cluster special registers", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 10 (%clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid, %cluster_ctarank, %cluster_nctarank, %is_explicit_cluster): introduced in 7.8, require sm_90" },
    Gate { feature: Feature::Tanh, name: "tanh", min_version: v(7, 0), min_sm: 75, source: "PTX ISA 9.7.3.23 tanh (and 9.7.4.11 for .f16): introduced in 7.0, requires sm_75" },
    Gate { feature: Feature::MaskInit, name: "mask operator in initializer", min_version: v(7, 1), min_sm: 0, source: "PTX ISA 5.4.4 initializers: the mask operator introduced in 7.1 (ptxas 12.9: 'Feature 'mask operator in initializer' requires PTX ISA .version 7.1 or later')" },
    Gate { feature: Feature::Alias, name: ".alias", min_version: v(6, 3), min_sm: 30, source: "PTX ISA 11.6.1 .alias: introduced in 6.3, requires sm_30 (ptxas 12.9: 'Feature '.alias' requires PTX ISA .version 6.3 or later')" },
    Gate { feature: Feature::RsqrtFtzF64, name: "rsqrt.approx.ftz.f64", min_version: v(4, 0), min_sm: 0, source: "PTX ISA 9.7.4.8 rsqrt: rsqrt.approx.ftz.f64 introduced in 4.0 (ptxas 12.9: 'Feature 'rsqrt.approx.ftz.f64' requires PTX ISA .version 4.0 or later')" },
    Gate { feature: Feature::Ex2Half, name: "ex2.f16/.f16x2", min_version: v(7, 0), min_sm: 75, source: "PTX ISA 9.7.4.10 ex2 (half precision): introduced in 7.0, requires sm_75" },
    Gate { feature: Feature::Bf16Transcendental, name: "ex2/tanh on .bf16", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.4.10/9.7.4.11: .bf16 and .bf16x2 introduced in 7.8, require sm_90" },
    Gate { feature: Feature::MinMaxHalf, name: "min/max on .f16/.bf16", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.4.8/9.7.4.9 min/max (half precision): introduced in 7.0, require sm_80" },
    Gate { feature: Feature::MinMaxNaN, name: "min/max `.NaN`", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.3.10/9.7.3.11 min/max: .NaN introduced in 7.0, requires sm_80" },
    Gate { feature: Feature::MinMaxXorsignAbs, name: "min/max `.xorsign.abs`", min_version: v(7, 2), min_sm: 86, source: "PTX ISA 9.7.3.10/9.7.3.11 min/max: .xorsign.abs introduced in 7.2, requires sm_86" },
    Gate { feature: Feature::Bf16AddSubMul, name: "add/sub/mul on .bf16", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.4.1-9.7.4.3: add/sub/mul .bf16/.bf16x2 introduced in 7.8, require sm_90" },
    Gate { feature: Feature::Bf16Arith, name: "fma/neg/abs on .bf16", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.4.4-9.7.4.7: fma, neg, abs .bf16/.bf16x2 introduced in 7.0, require sm_80" },
    Gate { feature: Feature::Relu, name: "`.relu`", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.4.4 fma and 9.7.9.21 cvt: .relu introduced in 7.0, requires sm_80" },
    Gate { feature: Feature::CvtToBf16, name: "cvt to .bf16/.tf32", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.9.21 cvt: .bf16 and .tf32 results introduced in 7.0, require sm_80" },
    Gate { feature: Feature::CvtFromBf16, name: "cvt from .bf16", min_version: v(7, 1), min_sm: 80, source: "PTX ISA 9.7.9.21 cvt: conversions from .bf16 introduced in 7.1 (ptxas 12.9), require sm_80" },
    Gate { feature: Feature::Atom16, name: "16-bit atom/red (`.b16` cas, `.f16` add)", min_version: v(6, 3), min_sm: 70, source: "PTX ISA 9.7.13.5 atom: .b16 cas and .f16 add introduced in 6.3, require sm_70" },
    Gate { feature: Feature::AtomBf16, name: "atom/red add on .bf16", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.13.5 atom: .bf16 add introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::Fence, name: "fence", min_version: v(6, 0), min_sm: 70, source: "PTX ISA 9.7.13.4 membar/fence: fence introduced in 6.0, requires sm_70 (membar has no such requirement)" },
    Gate { feature: Feature::FenceProxy, name: "fence.proxy", min_version: v(7, 5), min_sm: 70, source: "PTX ISA 9.7.13.4 fence.proxy: introduced in 7.5 (ptxas 12.9 requires sm_70)" },
    Gate { feature: Feature::SzextBmsk, name: "szext/bmsk", min_version: v(7, 6), min_sm: 70, source: "PTX ISA 9.7.1.x szext, bmsk: introduced in 7.6, require sm_70" },
    Gate { feature: Feature::BulkCopy, name: "cp.async.bulk", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.9.25.4.1 cp.async.bulk: introduced in 8.0, requires sm_90" },
    Gate { feature: Feature::BulkCopyCtaDst, name: "cp.async.bulk with a `.shared::cta` destination", min_version: v(8, 6), min_sm: 90, source: "PTX ISA 9.7.9.25.4.1 cp.async.bulk: .shared::cta as the destination state space introduced in 8.6; ptxas 12.9 agrees" },
    Gate { feature: Feature::TensorCopySm100, name: "sm_100's tensor copy modes (`.tile::gather4`, `.tile::scatter4`, `.im2col::w`, `.im2col::w::128`) and `.cta_group`", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.9.25.5 cp.async.bulk.tensor: introduced in 8.6, require sm_100 (ptxas 13.5: \"Feature '.cta_group::1' not supported on .target 'sm_90a'\")" },
    Gate { feature: Feature::BulkCopyCpMask, name: "cp.async.bulk `.cp_mask`", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.9.25.4.1 cp.async.bulk: .cp_mask introduced in 8.6, requires sm_100; ptxas 12.9 agrees" },
    Gate { feature: Feature::GridDepControl, name: "griddepcontrol", min_version: v(7, 8), min_sm: 90, source: "PTX ISA griddepcontrol (parallel synchronization instructions): introduced in 7.8, requires sm_90; ptxas 12.9 agrees" },
    Gate { feature: Feature::PackedInt16, name: "`.u16x2`/`.s16x2` integer arithmetic", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.1.1 add, 9.7.1.10/9.7.1.11 min/max: .u16x2/.s16x2 introduced in 8.0, require sm_90" },
    Gate { feature: Feature::MinMax3, name: "min/max.f32 with 3 input operands", min_version: v(8, 8), min_sm: 100, source: "PTX ISA 9.7.3.10/9.7.3.11 min/max: the three-source .f32 form, introduced in 8.8, requires sm_100 (ptxas 13.5)" },
    Gate { feature: Feature::F32x2Arith, name: "add/sub/mul/fma `.f32x2`", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.3.1-4 add/sub/mul/fma: .f32x2 introduced in 8.6, requires sm_100 (ptxas 13.5)" },
    Gate { feature: Feature::FmaOob, name: "fma `.oob`", min_version: v(8, 1), min_sm: 90, source: "PTX ISA 9.7.4.4 fma: .oob introduced in 8.1, requires sm_90 (ptxas 13.5: \"Modifier '.oob' requires .target sm_90 or higher\")" },
    Gate { feature: Feature::MinMaxRelu, name: "min/max `.relu`", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.1.10/9.7.1.11 min/max: .relu introduced in 8.0, requires sm_90" },
    // The carry chain, measured with ptxas 12.9 (the manual's notes give the
    // same versions: add.cc/addc 1.2, sub.cc/subc 1.3, mad.cc/madc 3.0 on
    // sm_20, 64-bit types with .cc 4.3 on sm_20).
    Gate { feature: Feature::CarryAdd, name: "add.cc/addc", min_version: v(1, 2), min_sm: 0, source: "PTX ISA 9.7.2.1 add.cc, 9.7.2.2 addc: introduced in 1.2" },
    Gate { feature: Feature::CarrySub, name: "sub.cc/subc", min_version: v(1, 3), min_sm: 0, source: "PTX ISA 9.7.2.3 sub.cc, 9.7.2.4 subc: introduced in 1.3" },
    Gate { feature: Feature::MadCarry, name: "mad.cc/madc", min_version: v(3, 0), min_sm: 20, source: "PTX ISA 9.7.2.5 mad.cc, 9.7.2.6 madc: introduced in 3.0, require sm_20" },
    Gate { feature: Feature::Carry64, name: ".cc with a 64-bit type", min_version: v(4, 3), min_sm: 20, source: "PTX ISA 9.7.2: 64-bit add.cc, addc.cc, sub.cc, subc.cc, mad.cc, madc.cc introduced in 4.3, require sm_20" },
    // Measured with ptxas 12.9 (each at its minimum, one version and one
    // target below).
    Gate { feature: Feature::Testp, name: "testp", min_version: v(2, 0), min_sm: 20, source: "PTX ISA 9.7.3 testp: introduced in 2.0, requires sm_20" },
    Gate { feature: Feature::Fns, name: "fns", min_version: v(6, 0), min_sm: 30, source: "PTX ISA 9.7.1 fns: introduced in 6.0, requires sm_30" },
    Gate { feature: Feature::Prefetch, name: "prefetch/prefetchu", min_version: v(2, 0), min_sm: 20, source: "PTX ISA 9.7.9 prefetch, prefetchu: introduced in 2.0, require sm_20" },
    Gate { feature: Feature::CacheEviction, name: "cache eviction priority (applypriority, discard, createpolicy, prefetch .L2::evict_*)", min_version: v(7, 4), min_sm: 80, source: "PTX ISA 9.7.9 applypriority, discard, createpolicy and the .level::eviction_priority of prefetch: introduced in 7.4, require sm_80" },
    Gate { feature: Feature::PrefetchTensormap, name: "prefetch.tensormap", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.9 prefetch: .tensormap introduced in 8.0, requires sm_90" },
    Gate { feature: Feature::CvtPack, name: "cvt.pack", min_version: v(6, 5), min_sm: 72, source: "PTX ISA 9.7.9 cvt.pack: introduced in 6.5, requires sm_72" },
    Gate { feature: Feature::CvtPackSubByte, name: "cvt.pack with a sub-byte type", min_version: v(6, 5), min_sm: 75, source: "PTX ISA 9.7.9 cvt.pack: .u4/.s4 (and, in ptxas 12.9, .u2/.s2) require sm_75" },
    Gate { feature: Feature::ElectSync, name: "elect.sync", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.13 elect.sync: introduced in 8.0, requires sm_90" },
    Gate { feature: Feature::ReduxF32, name: "redux.sync on .f32", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.13 redux.sync: .f32 min/max introduced in 8.6, require sm_100a/sm_100f/sm_103a/sm_103f (ptxas 12.9)" },
    Gate { feature: Feature::Dp4a, name: "dp4a/dp2a", min_version: v(5, 0), min_sm: 61, source: "PTX ISA 9.7.1.23/9.7.1.24 dp4a, dp2a: introduced in 5.0, require sm_61" },
    // Measured with ptxas 12.9 (at the minimum, one version and one target
    // below; `tests/check/*/forms--*.ptx`).
    Gate { feature: Feature::Lop3, name: "lop3", min_version: v(4, 3), min_sm: 50, source: "PTX ISA 9.7.8.6 lop3: introduced in 4.3, requires sm_50" },
    Gate { feature: Feature::Lop3BoolOp, name: "lop3.BoolOp", min_version: v(8, 2), min_sm: 70, source: "PTX ISA 9.7.8.6 lop3: the .BoolOp form with a predicate output was introduced in 8.2, requires sm_70" },
    Gate { feature: Feature::Shf, name: "shf", min_version: v(3, 1), min_sm: 32, source: "PTX ISA 9.7.8.8 shf: introduced in 3.1, requires sm_32" },
    // The tensor and asynchronous-copy path, measured with ptxas 12.9 (at
    // the minimum, one version and one target below;
    // `tests/check/*/tensor-operands--*.ptx`).
    Gate { feature: Feature::CpAsync, name: "cp.async", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.9.25 cp.async, commit_group, wait_group, wait_all: introduced in 7.0, require sm_80" },
    Gate { feature: Feature::CpAsyncIgnoreSrc, name: "ignore-src on cp.async", min_version: v(7, 5), min_sm: 80, source: "PTX ISA 9.7.9.25 cp.async: the ignore-src predicate was introduced in 7.5" },
    Gate { feature: Feature::CpAsyncHint, name: "cp.async `.L2::cache_hint` and prefetch sizes", min_version: v(7, 4), min_sm: 80, source: "PTX ISA 9.7.9.25 cp.async: .L2::cache_hint and .L2::64B/128B/256B were introduced in 7.4" },
    Gate { feature: Feature::SharedCta, name: "`.shared::cta`", min_version: v(7, 8), min_sm: 0, source: "PTX ISA 9.7.14.5.15 ldmatrix, 9.7.13.15 mbarrier: .shared::cta was introduced in 7.8 (ptxas 12.9 takes it on cp.async from 7.0)" },
    Gate { feature: Feature::Wmma, name: "wmma", min_version: v(6, 0), min_sm: 70, source: "PTX ISA 9.7.14.4 wmma: introduced in 6.0, sm_70 (ptxas 12.9 takes `wmma.load.a.sync.row.m16n16k16.f16` under .version 6.0)" },
    Gate { feature: Feature::WmmaAligned, name: "`.aligned` on wmma", min_version: v(6, 3), min_sm: 70, source: "PTX ISA 9.7.14.4 wmma: .aligned required from 6.3 on; ptxas 12.9: 'Feature '.aligned modifier for wmma' requires PTX ISA .version 6.3 or later'" },
    Gate { feature: Feature::WmmaShapes61, name: "wmma shapes .m8n32k16 and .m32n8k16", min_version: v(6, 1), min_sm: 70, source: "PTX ISA 9.7.14.4 wmma: .m8n32k16 and .m32n8k16 introduced in 6.1 (ptxas 12.9: 'Feature '.m32n8k16' requires PTX ISA .version 6.1 or later')" },
    Gate { feature: Feature::WmmaInt, name: "wmma on .s8/.u8", min_version: v(6, 3), min_sm: 72, source: "PTX ISA 9.7.14.4 wmma: the integer forms were introduced in 6.3, require sm_72 (ptxas 12.9)" },
    Gate { feature: Feature::WmmaSubByte, name: "wmma on sub-byte types (.m8n8k32, .m8n8k128)", min_version: v(6, 3), min_sm: 75, source: "PTX ISA 9.7.14.4 wmma: .s4/.u4/.b1 introduced in 6.3, require sm_75 (ptxas 12.9: 'WMMA with sub-byte integer types requires .target sm_75')" },
    Gate { feature: Feature::WmmaAndPopc, name: "wmma.mma.and.popc", min_version: v(7, 1), min_sm: 80, source: "PTX ISA 9.7.14.4 wmma.mma: .and.popc introduced in 7.1, requires sm_80 (ptxas 13.5: 'Modifier .and on wmma.mma requires .target sm_80')" },
    Gate { feature: Feature::WmmaSm80, name: "wmma on .bf16/.tf32/.f64 (.m16n16k8, .m8n8k4)", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.14.4 wmma: .bf16, .tf32 and .f64 introduced in 7.0, require sm_80 (ptxas 13.5: 'WMMA with fp64 types requires .target sm_80')" },
    Gate { feature: Feature::Ldmatrix, name: "ldmatrix", min_version: v(6, 5), min_sm: 75, source: "PTX ISA 9.7.14.5.15 ldmatrix: introduced in 6.5, requires sm_75" },
    Gate { feature: Feature::Stmatrix, name: "stmatrix", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.14.5.16 stmatrix: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::Movmatrix, name: "movmatrix", min_version: v(7, 8), min_sm: 75, source: "PTX ISA 9.7.14.5.17 movmatrix: introduced in 7.8, requires sm_75" },
    Gate { feature: Feature::MmaM16N8K8, name: "mma .m16n8k8 on .f16", min_version: v(6, 5), min_sm: 75, source: "PTX ISA 9.7.14.5.14 mma: .m16n8k8 introduced in 6.5, requires sm_75" },
    Gate { feature: Feature::MmaM8N8K16, name: "mma .m8n8k16 on .s8/.u8", min_version: v(6, 5), min_sm: 75, source: "PTX ISA 9.7.14.5.14 mma: .m8n8k16 introduced in 6.5, requires sm_75" },
    Gate { feature: Feature::MmaSm80, name: "mma .m16n8k16/.m16n8k32/.m16n8k4/.m8n8k4.f64, .bf16, .tf32", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.14.5.14 mma: these shapes and types were introduced in 7.0, require sm_80" },
    Gate { feature: Feature::MmaFp8, name: "mma with FP8 floating point type", min_version: v(8, 4), min_sm: 89, source: "PTX ISA 9.7.14.5.14 mma: .e4m3/.e5m2 introduced in 8.4, require sm_89 (ptxas 12.9: 'mma with FP8 floating point type')" },
    Gate { feature: Feature::Mbarrier, name: "mbarrier", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.13.15 mbarrier: introduced in 7.0, requires sm_80" },
    Gate { feature: Feature::MbarrierParity, name: "mbarrier .parity", min_version: v(7, 1), min_sm: 80, source: "PTX ISA 9.7.13.15 mbarrier.test_wait.parity: introduced in 7.1" },
    Gate { feature: Feature::MbarrierTryWait, name: "mbarrier.try_wait", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.13.15 mbarrier.try_wait: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::MbarrierArriveCount, name: "mbarrier.arrive with a count and without .noComplete", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.13.15 mbarrier.arrive: the count operand without .noComplete was introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::MbarrierTx, name: "mbarrier transaction counts (expect_tx, complete_tx)", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.13.15 mbarrier: .expect_tx, expect_tx and complete_tx were introduced in 8.0, require sm_90" },
    Gate { feature: Feature::MbarrierSem, name: "mbarrier .sem and .scope", min_version: v(8, 0), min_sm: 80, source: "PTX ISA 9.7.13.15 mbarrier: .release/.acquire/.relaxed and .cta/.cluster were introduced in 8.0" },
    Gate { feature: Feature::MbarrierRelaxed, name: "`.relaxed` on mbarrier.arrive, arrive_drop, test_wait and try_wait", min_version: v(8, 6), min_sm: 90, source: "PTX ISA 9.7.13.15 mbarrier: .relaxed on arrive/test_wait/try_wait introduced in 8.6 (ptxas 12.9: \"Modifier '.relaxed' on 'mbarrier.arrive' requires PTX ISA .version 8.6\", \"requires .target sm_90\")" },
    Gate { feature: Feature::MbarrierClusterScope, name: "the `.cluster` scope of mbarrier", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.13.15 mbarrier: .cluster scope requires sm_90 (ptxas 12.9: \"Feature '.cluster scope' requires .target sm_90 or higher\")" },
    Gate { feature: Feature::MbarrierSharedCluster, name: "`.shared::cluster` on mbarrier", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.13.15 mbarrier: .shared::cluster on arrive, arrive_drop, expect_tx and complete_tx introduced in 8.0, requires sm_90 (ptxas 12.9: \"Feature '.shared::cluster' requires PTX ISA .version 8.0\", \"requires .target sm_90\")" },
    Gate { feature: Feature::SpaceConst, name: "isspacep.const", min_version: v(3, 1), min_sm: 0, source: "PTX ISA 9.7.9.16 isspacep: .const introduced in 3.1 (ptxas 12.9: 'cvta/isspacep with .const state space' requires 3.1)" },
    Gate { feature: Feature::SpaceParam, name: "isspacep.param", min_version: v(7, 7), min_sm: 70, source: "PTX ISA 9.7.9.16 isspacep: .param introduced in 7.7, requires sm_70 (ptxas 12.9: 'cvta/isspacep with .param state space')" },
    Gate { feature: Feature::SpaceCluster, name: "the `::cluster` qualifier of `.shared`", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.9.16 isspacep: .shared::cluster introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::SpaceParamEntry, name: "the `::entry` qualifier of `.param`", min_version: v(8, 3), min_sm: 70, source: "PTX ISA 9.7.9.16 isspacep: .param::entry introduced in 8.3 (ptxas 12.9: Feature '::entry' requires 8.3)" },
    Gate { feature: Feature::Mapa, name: "mapa", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.9.17 mapa: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::Getctarank, name: "getctarank", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.9.18 getctarank: introduced in 7.8, requires sm_90" },
    Gate { feature: Feature::Wgmma, name: "WGMMA", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.15 wgmma: introduced in 8.0, requires sm_90a (ptxas 12.9: \"Feature 'WGMMA' requires PTX ISA .version 8.0 or later\")" },
    Gate { feature: Feature::WgmmaMixedInt, name: "WGMMA with mixed integer types", min_version: v(8, 4), min_sm: 90, source: "PTX ISA 9.7.15 wgmma: .s8 with .u8 (ptxas 12.9: \"Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4 or later\")" },
    Gate { feature: Feature::Setmaxnreg, name: "setmaxnreg", min_version: v(8, 0), min_sm: 90, source: "PTX ISA 9.7.17.1 setmaxnreg: introduced in 8.0, requires sm_90a" },
    Gate { feature: Feature::TensormapReplace, name: "tensormap.replace", min_version: v(8, 3), min_sm: 90, source: "PTX ISA 9.7.9.28 tensormap.replace: introduced in 8.3, requires sm_90a" },
    Gate { feature: Feature::TensormapCpFenceproxy, name: "tensormap.cp_fenceproxy", min_version: v(8, 3), min_sm: 90, source: "PTX ISA 9.7.9.29 tensormap.cp_fenceproxy: introduced in 8.3, requires sm_90 (ptxas 12.9 takes it on sm_90 without `a`)" },
    Gate { feature: Feature::TensormapSwizzleAtomicity, name: "tensormap.replace.swizzle_atomicity", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.9.28 tensormap.replace: .swizzle_atomicity introduced in 8.6, requires sm_100a" },
    Gate { feature: Feature::LdSt256, name: "256 bit wide load/store", min_version: v(8, 8), min_sm: 100, source: "PTX ISA 9.7.9.8 ld, 9.7.9.11 st: .v8 of 32 bits and .v4 of 64 bits introduced in 8.8, require sm_100 (ptxas 13.5: \"Feature '256 bit wide load/store' requires .target sm_100 or higher\")" },
    Gate { feature: Feature::LocalVolatile, name: "ld/st with .local.volatile", min_version: v(9, 1), min_sm: 0, source: "ptxas 13.5: \"Feature 'ld/st with .local.volatile' requires PTX ISA .version 9.1 or later\" (PTX ISA 9.7.9.8 ld, 9.7.9.11 st)" },
    Gate { feature: Feature::Multimem, name: "multimem.ld_reduce/st/red", min_version: v(8, 1), min_sm: 90, source: "PTX ISA 9.7.9.27 multimem.ld_reduce, multimem.st, multimem.red: introduced in 8.1, require sm_90 (ptxas 13.5: \"Feature 'multimem.ld_reduce' requires PTX ISA .version 8.1 or later\", \"requires .target sm_90 or higher\")" },
    Gate { feature: Feature::MultimemFp8, name: "multimem with FP8 types or `.acc::f16`", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.9.27 multimem: .e4m3/.e5m2 (x2, x4) and .acc::f16 introduced in 8.6, require sm_100a/sm_100f or later arch- or family-specific targets (ptxas 13.5: \"Feature '.e4m3x4' not supported on .target 'sm_100'\", \"requires PTX ISA .version 8.6 or later\")" },
    Gate { feature: Feature::MultimemCp, name: "multimem.cp.async.bulk/multimem.cp.reduce.async.bulk", min_version: v(9, 1), min_sm: 90, source: "PTX ISA 9.7.9.26 multimem.cp.async.bulk, multimem.cp.reduce.async.bulk: introduced in 9.1, require sm_90 (ptxas 13.5: \"Feature 'multimem.cp.async.bulk' requires PTX ISA .version 9.1 or later\")" },
    Gate { feature: Feature::MultimemCpMask, name: "multimem.cp.async.bulk `.cp_mask`", min_version: v(9, 1), min_sm: 100, source: "PTX ISA 9.7.9.26 multimem.cp.async.bulk: .cp_mask requires sm_100 (ptxas 13.5: \"Feature '.cp_mask' requires .target sm_100 or higher\")" },
    Gate { feature: Feature::Tcgen05, name: "tcgen05", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.16 tcgen05: introduced in 8.6, requires sm_100a/sm_100f, sm_103a/sm_103f or sm_110a/sm_110f (ptxas 13.5: \"Feature 'tcgen05.fence' requires PTX ISA .version 8.6 or later\", \"Instruction 'tcgen05.fence' not supported on .target 'sm_100'\")" },
    // Measured with ptxas 12.9 (one version or target below each minimum:
    // tests/check/*/gates-memory--*.ptx, gates-sreg--*.ptx).
    Gate { feature: Feature::MemSem, name: "`.relaxed`/`.acquire`/`.release` on ld, st, atom and red", min_version: v(6, 0), min_sm: 70, source: "PTX ISA 9.7.9.8 ld, 9.7.9.11 st, 9.7.13.5 atom: .sem introduced in 6.0, requires sm_70 (ptxas 12.9: \"Feature '.relaxed' requires .target sm_70 or higher\")" },
    Gate { feature: Feature::AtomScope, name: "the scope of atom/red", min_version: v(5, 0), min_sm: 60, source: "PTX ISA 9.7.13.5 atom, 9.7.13.6 red: .scope introduced in 5.0, requires sm_60" },
    Gate { feature: Feature::ClusterScope, name: "the `.cluster` scope", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.9.8 ld, 9.7.9.11 st, 9.7.13.5 atom, 9.7.13.4 fence: .cluster scope introduced in 7.8, requires sm_90 (ptxas 12.9: \"Feature '.cluster scope' requires .target sm_90 or higher\")" },
    Gate { feature: Feature::SpaceParamFunc, name: "the `::func` qualifier of `.param`", min_version: v(8, 3), min_sm: 0, source: "PTX ISA 9.7.9.8 ld: .param::func introduced in 8.3 (ptxas 12.9: \"Feature '::func' requires PTX ISA .version 8.3 or later\")" },
    Gate { feature: Feature::CvtaParam, name: "cvta with the `.param` state space", min_version: v(7, 7), min_sm: 70, source: "PTX ISA 9.7.9.19 cvta: .param introduced in 7.7, requires sm_70 (ptxas 12.9: \"Feature 'cvta/isspacep with .param state space' requires PTX ISA .version 7.7 or later\")" },
    Gate { feature: Feature::LdEviction, name: "eviction priorities on ld/st", min_version: v(7, 4), min_sm: 70, source: "PTX ISA 9.7.9.8 ld, 9.7.9.11 st: .level::eviction_priority introduced in 7.4, requires sm_70 (ptxas 12.9: \"Modifier '.evict_last' on 'ld' requires PTX ISA .version 7.4 or later\")" },
    Gate { feature: Feature::LdPrefetchSize, name: "cache prefetching (`.L2::64B`, `.L2::128B`)", min_version: v(7, 4), min_sm: 75, source: "PTX ISA 9.7.9.8 ld: .level::prefetch_size introduced in 7.4, requires sm_75 (ptxas 12.9: \"Feature 'cache prefetching' requires PTX ISA .version 7.4 or later\")" },
    Gate { feature: Feature::LdPrefetch256, name: "`.L2::256B`", min_version: v(7, 4), min_sm: 80, source: "PTX ISA 9.7.9.8 ld: .L2::256B requires sm_80 (ptxas 12.9: \"Modifier '.L2::256B' requires .target sm_80 or higher\")" },
    Gate { feature: Feature::CacheHint, name: "`.L2::cache_hint`", min_version: v(7, 4), min_sm: 80, source: "PTX ISA 9.7.9.8 ld, 9.7.9.11 st, 9.7.13.5 atom: .L2::cache_hint introduced in 7.4, requires sm_80 (ptxas 12.9: \"Modifier '.L2::cache_hint' requires .target sm_80 or higher\")" },
    Gate { feature: Feature::Mmio, name: "`.mmio`", min_version: v(8, 2), min_sm: 70, source: "PTX ISA 9.7.9.8 ld, 9.7.9.11 st: .mmio introduced in 8.2, requires sm_70 (ptxas 12.9: \"Feature '.mmio' requires PTX ISA .version 8.2 or later\")" },
    Gate { feature: Feature::StAsync, name: "st.async", min_version: v(8, 1), min_sm: 90, source: "PTX ISA 9.7.9.12 st.async: introduced in 8.1, requires sm_90 (ptxas 12.9: \"Feature 'st.async' requires PTX ISA .version 8.1 or later\")" },
    Gate { feature: Feature::AtomVector, name: "atom/red with vector types", min_version: v(8, 1), min_sm: 90, source: "PTX ISA 9.7.13.5 atom, 9.7.13.6 red: .v2/.v4/.v8 introduced in 8.1, require sm_90 (ptxas 12.9: \"Feature 'atom instruction with vector types' requires .target sm_90 or higher\")" },
    Gate { feature: Feature::CvtF16x2F32, name: "cvt of two .f32 to .f16x2/.bf16x2", min_version: v(7, 0), min_sm: 80, source: "PTX ISA 9.7.9.21 cvt: .f16x2/.bf16x2 from two .f32 introduced in 7.0, requires sm_80 (ptxas 12.9: \"Feature 'cvt.f16x2.f32' requires .target sm_80 or higher\")" },
    Gate { feature: Feature::CvtF8x2, name: "cvt with .e4m3x2/.e5m2x2", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 9.7.9.21 cvt: .e4m3x2/.e5m2x2 introduced in 7.8, requires sm_90 (ptxas 12.9: \"Feature 'cvt with .e4m3x2/.e5m2x2' requires .target sm_90 or higher\")" },
    Gate { feature: Feature::CvtF8x2Sm89, name: "cvt with .e4m3x2/.e5m2x2 on sm_89", min_version: v(8, 1), min_sm: 89, source: "PTX ISA 9.7.9.21 cvt: support on sm_89 introduced in 8.1 (ptxas 12.9: \"Feature 'cvt with .e4m3x2/.e5m2x2 on sm_89' requires PTX ISA .version 8.1 or later\")" },
    Gate { feature: Feature::SmemSizeRegs, name: "%dynamic_smem_size and %total_smem_size", min_version: v(4, 1), min_sm: 20, source: "PTX ISA 10 %dynamic_smem_size, %total_smem_size: introduced in 4.1, require sm_20 (ptxas 12.9: \"Feature '%dynamic_smem_size' requires PTX ISA .version 4.1 or later\")" },
    Gate { feature: Feature::Globaltimer, name: "%globaltimer", min_version: v(3, 1), min_sm: 30, source: "PTX ISA 10 %globaltimer: introduced in 3.1, requires sm_30 (ptxas 12.9: \"Feature '%globaltimer' requires .target sm_30 or higher\")" },
    Gate { feature: Feature::Lanemask, name: "the %lanemask registers", min_version: v(2, 0), min_sm: 20, source: "PTX ISA 10 %lanemask_eq/le/lt/ge/gt: introduced in 2.0, require sm_20 (ptxas 12.9: \"Feature '%lanemask_eq' requires .target sm_20 or higher\")" },
    Gate { feature: Feature::Clock64, name: "%clock64", min_version: v(2, 0), min_sm: 20, source: "PTX ISA 10 %clock64: introduced in 2.0, requires sm_20 (ptxas 12.9: \"Feature '%clock64' requires .target sm_20 or higher\")" },
    Gate { feature: Feature::Nsmid, name: "%nsmid", min_version: v(2, 0), min_sm: 20, source: "PTX ISA 10 %nsmid: introduced in 2.0, requires sm_20 (ptxas 12.9: \"Feature '%nsmid' requires PTX ISA .version 2.0 or later\", \"requires .target sm_20 or higher\")" },
    Gate { feature: Feature::ClusterDirectives, name: "the cluster directives (.explicitcluster, .reqnctapercluster, .maxclusterrank)", min_version: v(7, 8), min_sm: 90, source: "PTX ISA 11.4 cluster dimension directives: introduced in 7.8, require sm_90 (ptxas 12.9: \"Feature '.maxclusterrank' requires PTX ISA .version 7.8 or later\", \"requires .target sm_90 or higher\")" },
    Gate { feature: Feature::Clc, name: "clusterlaunchcontrol", min_version: v(8, 6), min_sm: 100, source: "PTX ISA 9.7.13.17 clusterlaunchcontrol: introduced in 8.6, requires sm_100 (ptxas 12.9: \"Feature '.is_canceled' requires .target sm_100 or higher\")" },
    Gate { feature: Feature::MmaM8N8K4F16, name: "mma .m8n8k4 on .f16", min_version: v(6, 4), min_sm: 70, source: "PTX ISA 9.7.14.5.14 mma: .m8n8k4 with .f16 introduced in 6.4, requires sm_70" },
    Gate { feature: Feature::AtomB128, name: "atom on .b128", min_version: v(8, 3), min_sm: 90, source: "PTX ISA 9.7.13.5 atom: .b128 cas and exch introduced in 8.3, require sm_90 (ptxas 12.9: \"Instruction 'atom.cas.b128.global' requires .target sm_90 or higher\")" },
    Gate { feature: Feature::F16x2Type, name: "the .f16x2 packed data type", min_version: v(4, 2), min_sm: 53, source: "PTX ISA 5.2.1 .f16x2 (ptxas 12.9: \"Feature '.f16x2 packed data-type' requires .target sm_53 or higher\")" },
];

/// The gating row of a feature.
pub fn gate(f: Feature) -> &'static Gate {
    // Every variant has a row (checked by a unit test); fall back to the first row.
    FEATURES.iter().find(|g| g.feature == f).unwrap_or(&FEATURES[0])
}
