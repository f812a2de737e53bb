//! The decoded program: the flat register-machine form the engine runs.
//!
//! A [`Program`] owns every function of a module as a `Vec<Instr>` whose
//! operands are register slots, immediates and special registers, and whose
//! branch targets are instruction indices in the numbering of
//! `ptxsim_analysis::FlatFunction` (so reconvergence points line up). It has
//! no lifetime: names are copied out of the source.

use ptxsim_sem::alu::bits::BitsOp;
use ptxsim_sem::alu::ext::{CarryKind, H2Op, Lane3Op, ReduxOp, TestpOp};
use ptxsim_sem::alu::{CmpOp, FBinOp, FTy, FUnOp, IBinOp, ITy, IUnOp, Rounding};

/// Index of a function in [`Program::functions`].
pub type FuncId = u32;

/// The 32 lanes of a register, one 64-bit slot per lane.
pub type L = [u64; 32];
/// A lane kernel: `d = f(a, b, c)` on the lanes of the mask (the other
/// lanes of `d` keep their values), over the frame's registers, with its
/// operands in [`KOps`].
pub type KOp = fn(&mut [L], &KOps, u32);
/// A lane kernel's operands: the destination register, then for each
/// source (a, b, c) a register index or an immediate value, as the shape
/// the kernel was chosen for says (unused sources are 0).
pub type KOps = [u64; 4];
/// A lane kernel with its operands.
pub type KArith = (KOp, KOps);
/// A comparison lane kernel: the lanes where it holds.
pub type KCmp = fn(&[L], &KOps) -> u32;
/// A comparison kernel with its operands (`a` and `b`; the destination
/// entry is unused).
pub type KCmpOps = (KCmp, KOps);

/// The lane kernel an instruction runs, chosen when its module was loaded (for
/// its operation, type, `.ftz`, `.sat`, rounding and the CPU's features),
/// or none where the instruction runs lane by lane through `alu`. It is a
/// function of the instruction's other fields, so it takes no part in
/// comparisons.
#[derive(Clone, Copy)]
pub struct Kern<F>(Option<F>);

impl<F: Copy> Kern<F> {
    /// No kernel: the instruction runs lane by lane.
    pub const NONE: Kern<F> = Kern(None);

    pub(crate) fn new(k: Option<F>) -> Kern<F> {
        Kern(k)
    }

    #[inline(always)]
    pub(crate) fn as_ref(&self) -> Option<&F> {
        self.0.as_ref()
    }
}

impl<F> PartialEq for Kern<F> {
    fn eq(&self, _: &Kern<F>) -> bool {
        true
    }
}

impl<F> std::fmt::Debug for Kern<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "kernel" } else { "lane by lane" })
    }
}

/// Sentinel instruction index meaning "the function's virtual exit".
pub const PC_EXIT: u32 = u32::MAX;

/// A source operand of a lane-wise instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    Reg(u32),
    /// An immediate, already truncated/encoded to the instruction's type.
    Imm(u64),
    Sreg(Sreg),
    /// The frame-local (per-thread local memory) address of a frame variable:
    /// the frame's local base plus this offset.
    LocalAddr(u32),
}

/// Special registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    Clock,
    Clock64,
    /// `%clock_hi`: the upper 32 bits of `%clock64`.
    ClockHi,
    GlobalTimer,
    /// `%globaltimer_lo` / `%globaltimer_hi`: the lower and upper 32 bits
    /// of `%globaltimer`.
    GlobalTimerLo,
    GlobalTimerHi,
    LaneMaskEq,
    LaneMaskLe,
    LaneMaskLt,
    LaneMaskGe,
    LaneMaskGt,
    ClusterId(u8),
    NClusterId(u8),
    ClusterCtaId(u8),
    ClusterNCtaId(u8),
    ClusterCtaRank,
    ClusterNCtaRank,
    IsExplicitCluster,
    DynamicSmemSize,
    TotalSmemSize,
    /// `%aggr_smem_size`: all the shared memory of the CTA, reserved and
    /// the program's (the emulator reserves none).
    AggrSmemSize,
    /// `%envreg1` / `%envreg2`: the high and low halves of a cooperative
    /// launch's grid workspace address (0 in other launches).
    EnvReg(u8),
}

/// A predicate source: a register (possibly negated) or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PSrc {
    Reg { slot: u32, neg: bool },
    Const(bool),
}

/// State spaces as the engine resolves them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    /// The shared window of the executing CTA's cluster: an offset below
    /// `1 << lanemem::RANK_SHIFT` is this CTA's own byte, a rank-tagged one
    /// another CTA's (a `.shared::cluster` address, and what `mapa`/`cvta`
    /// produce).
    Shared,
    /// A `.shared`/`.shared::cta` address of a memory instruction: an
    /// offset into this CTA's own shared memory only. The rank tag of a
    /// `.shared::cluster` address is not read here, so an offset past this
    /// CTA's window traps `out_of_bounds` whatever its high bits.
    SharedCta,
    Local,
    Const,
    /// The kernel's parameter buffer.
    KernelParam,
    /// A `.param` variable or formal of a `.func`: lives in the frame's local area.
    FrameParam,
    Generic,
}

/// The base of an address operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrBase {
    None,
    Reg(u32),
    /// Frame-relative: the frame's local base (frame variables and `.param`s).
    Frame,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: AddrBase,
    pub offset: i64,
}

/// Atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    /// `atom/red.add.noftz.{f16x2,bf16x2}`: two packed halves added
    /// separately (the operation's type is then the 32-bit word).
    AddHalf2(ptxsim_sem::alu::FTy),
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Inc,
    Dec,
}

/// Predicate-logic operations (`and/or/xor/not/mov` on `.pred`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredOp {
    And,
    Or,
    Xor,
    Not,
    Mov,
}

/// The `.and/.or/.xor` combining form of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// A `call` argument or return binding in the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CallArg {
    Reg(u32),
    Imm(u64),
    /// A caller `.param` variable: frame offset and size in bytes.
    Param { offset: u32, size: u32 },
}

/// A formal parameter or return value of a function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Formal {
    Reg { slot: u32, size: u32 },
    Param { offset: u32, size: u32 },
}

impl Formal {
    pub fn size(&self) -> u32 {
        match *self {
            Formal::Reg { size, .. } | Formal::Param { size, .. } => size,
        }
    }
}

/// What a `call` calls.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    Direct(FuncId),
    /// Through a per-lane function pointer. `allowed` is the `.calltargets`
    /// list or the call table's functions; `proto` the `.callprototype`
    /// signature (parameter and return sizes) every callee must match.
    Indirect { fptr: Src, allowed: Option<Vec<FuncId>>, table: Option<String>, proto: Option<Signature> },
}

/// A function signature as the engine compares it: sizes of returns and params.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub rets: Vec<u32>,
    pub params: Vec<u32>,
}

/// A destination that is a register or a predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dst {
    Reg(u32),
    Pred(u32),
}

/// Barrier kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    Sync,
    Arrive,
    /// `bar.red.popc.u32`
    RedPopc,
    RedAnd,
    RedOr,
}

/// One decoded instruction. (`repr(u8)`: the variant is a byte at the
/// start, which the dispatch reads and jumps by, instead of a niche in a
/// field that takes several instructions to decode.)
#[derive(Clone, Debug, PartialEq)]
#[repr(u8)]
pub enum Op {
    Nop,
    /// `membar` / `fence` (every variant): a sequentially consistent fence
    /// of the host thread, so that CTAs running on other workers see this
    /// warp's earlier accesses before its later ones.
    Fence,
    Mov { d: u32, a: Src, bits: u32 },
    /// `mov.b64 d, {a, b}` / `mov.b32 d, {a,b}`: pack `parts` (low first), each `part_bits` wide.
    Pack { d: u32, parts: Vec<Src>, part_bits: u32 },
    /// `mov.b64 {a, b}, d`: unpack.
    Unpack { ds: Vec<Option<u32>>, a: Src, part_bits: u32 },
    IBin { op: IBinOp, ty: ITy, d: u32, a: Src, b: Src, k: Kern<KArith> },
    IUn { op: IUnOp, ty: ITy, d: u32, a: Src },
    /// `mad.lo/.hi/.wide`: `d = (a*b).part + c`. `wide` doubles the width of c and d.
    Mad { hi: bool, wide: bool, sat: bool, ty: ITy, d: u32, a: Src, b: Src, c: Src, k: Kern<KArith> },
    Bfe { ty: ITy, d: u32, a: Src, b: Src, c: Src },
    /// The carry chain (`add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`):
    /// `cin` reads and `cout` writes the thread's CC.CF, which the decoder
    /// keeps in the function's hidden predicate slot `cf`; `c` is the addend
    /// of the `mad` forms.
    /// `lop3`, `shf`, `mul24`, `mad24` (`c` is 0 for `mul24`; `lop3`'s
    /// table is in `op`).
    Bits { op: BitsOp, d: u32, a: Src, b: Src, c: Src },
    /// `lop3.{and,or}.b32 d|p, a, b, c, lut, q`: `d` as `lop3.b32`, and
    /// `p = (d != 0) BoolOp q` (`or` picks `.or`, else `.and`).
    Lop3P { lut: u8, or: bool, d: u32, p: Option<u32>, a: Src, b: Src, c: Src, q: PSrc },
    Carry { kind: CarryKind, ty: ITy, cin: bool, cout: bool, cf: u32, d: u32, a: Src, b: Src, c: Src },
    /// `sad`, `dp4a`, `dp2a`, `bmsk`, `szext`, `fns`, `cvt.pack.sat`: `d = op(a, b, c)` lane by lane.
    Lane3 { op: Lane3Op, d: u32, a: Src, b: Src, c: Src },
    /// `.f16x2`/`.bf16x2` arithmetic on both halves (`ty` is the half type),
    /// and `cvt.rn{.relu}.{f16x2,bf16x2}.f32 d, a, b`.
    Half2 { op: H2Op, ty: FTy, ftz: bool, sat: bool, d: u32, a: Src, b: Src, c: Src },
    /// `fma.rn{.ftz}.relu.{f16,bf16}` ([`ptxsim_sem::alu::ext::fma_relu`]).
    FmaRelu { ty: FTy, ftz: bool, d: u32, a: Src, b: Src, c: Src },
    /// `testp.op.f32/.f64 p, a`.
    Testp { op: TestpOp, f64: bool, p: u32, a: Src },
    /// (`off`: the constant of an address operand written `reg+k`.)
    /// `isspacep.space p, a`: whether the generic address `a` falls in
    /// `space`'s window (`.shared::cta`/`.shared::cluster` are `Shared`,
    /// `.param{::entry}` the kernel parameters).
    /// `cluster`: `.shared::cluster` (any CTA of the cluster's window)
    /// rather than `.shared{::cta}` (the executing CTA's).
    Isspacep { space: Space, cluster: bool, p: u32, a: Src, off: u64 },
    /// `mapa{.shared::cluster}.type d, a, b`: the address of the shared
    /// location `a` of this CTA in the CTA of cluster rank `b`; `generic`
    /// without `.shared::cluster` (`a` and `d` generic addresses).
    Mapa { generic: bool, bits: u32, d: u32, a: Src, off: u64, b: Src },
    /// `getctarank{.shared::cluster}.type d, a`: the cluster rank of the
    /// CTA whose shared memory `a` addresses.
    Getctarank { generic: bool, bits: u32, d: u32, a: Src, off: u64 },
    /// `createpolicy`: writes the 64-bit cache policy `d` (a fixed value: the engine has no caches).
    CreatePolicy { d: u32 },
    Bfi { bits: u32, d: u32, f: Src, b: Src, c: Src, e: Src },
    Prmt { d: u32, a: Src, b: Src, c: Src },
    /// `prmt.b32.{f4e,b4e,rc8,ecl,ecr,rc16}`: the bytes `c[1:0]` selects
    /// in the mode's table ([`ptxsim_sem::alu::prmt_mode`]).
    PrmtMode { mode: ptxsim_sem::alu::PrmtMode, d: u32, a: Src, b: Src, c: Src },
    /// `cvt.rna{.satfinite}.tf32.f32`: `a` rounded to tf32's 10-bit
    /// fraction, ties away from zero, in a .b32 whose low 13 bits are 0.
    CvtTf32 { satfinite: bool, d: u32, a: Src },
    FBin { op: FBinOp, ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, d: u32, a: Src, b: Src, k: Kern<KArith> },
    FUn { op: FUnOp, ty: FTy, ftz: bool, rnd: Option<Rounding>, d: u32, a: Src, k: Kern<KArith> },
    Fma { ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, d: u32, a: Src, b: Src, c: Src, k: Kern<KArith> },
    Setp { cmp: CmpOp, ty: ITyOrF, ftz: bool, p: Option<u32>, q: Option<u32>, a: Src, b: Src, comb: Option<(BoolOp, PSrc)>, k: Kern<KCmpOps> },
    /// `set.cmp.dtype.stype`: like setp but writes 0xffffffff/0 (or 1.0f/0.0).
    /// `set`: `d` gets `one` (the destination type's true: all ones, or
    /// 1.0 in its float format) where the comparison holds, else 0.
    Set { cmp: CmpOp, ty: ITyOrF, ftz: bool, one: u32, d: u32, a: Src, b: Src, comb: Option<(BoolOp, PSrc)>, k: Kern<KCmpOps> },
    /// `setp` on `.f16x2`/`.bf16x2`: the halves compared apart, `p` from the
    /// lower half (bits 0..15), `q` from the upper, each combined with `c`.
    SetpX2 { cmp: CmpOp, ty: ptxsim_sem::alu::FTy, ftz: bool, p: Option<u32>, q: Option<u32>, a: Src, b: Src, comb: Option<(BoolOp, PSrc)> },
    /// `set` on `.f16x2`/`.bf16x2`: each half of `d` gets `one` (the
    /// destination's true per half: 0xffff, or 1.0 in f16/bf16) where the
    /// comparison of that half (combined with `c`) holds, else 0.
    SetX2 { cmp: CmpOp, ty: ptxsim_sem::alu::FTy, ftz: bool, one: u16, d: u32, a: Src, b: Src, comb: Option<(BoolOp, PSrc)> },
    Selp { bits: u32, d: u32, a: Src, b: Src, c: PSrc },
    Slct { bits: u32, cf: Option<bool>, d: u32, a: Src, b: Src, c: Src },
    PredLogic { op: PredOp, d: u32, a: PSrc, b: PSrc },
    /// Moves between a predicate and an integer register are not PTX; `selp` covers them.
    Cvt { dst: CvtTy, src: CvtTy, rnd: Option<Rounding>, sat: bool, ftz: bool, d: u32, a: Src, k: Kern<KArith> },
    /// `cvta` (`to == false`: space address → generic) or `cvta.to`.
    Cvta { to: bool, space: Space, bits: u32, d: u32, a: Src },
    Ld { space: Space, size: u32, signed: bool, ds: Vec<Option<u32>>, addr: Addr },
    St { space: Space, size: u32, srcs: Vec<Src>, addr: Addr },
    Atom { space: Space, op: AtomOp, ty: ITyOrF, d: Option<u32>, addr: Addr, b: Src, c: Src },
    /// `atom`/`red` on a vector (`.v2`, `.v4`, `.v8`; sm_90): element k, at
    /// `addr + k * size`, is an atomic operation of its own with `bs[k]`,
    /// whose old value `ds[k]` receives (PTX ISA 9.7.13.5: the atomicity
    /// holds for each element, not for the whole vector). `red` has no
    /// destinations.
    AtomVec { space: Space, op: AtomOp, ty: ITyOrF, ds: Vec<Option<u32>>, addr: Addr, bs: Vec<Src> },
    Bra { target: u32, uni: bool },
    Brx { index: Src, targets: Vec<u32>, table: String, uni: bool },
    Call { callee: Callee, args: Vec<CallArg>, rets: Vec<CallArg>, uni: bool },
    Ret { uni: bool },
    Exit,
    Trap,
    /// `d`: `bar.red.popc`'s register, `bar.red.and/.or`'s predicate.
    Bar { kind: BarKind, id: Src, count: Option<Src>, d: Option<Dst>, pred_in: Option<PSrc>, aligned: bool },
    ClusterArrive,
    ClusterWait,
    Nanosleep { t: Src },
    /// `d`: a register for `.ballot`, a predicate otherwise.
    Vote { mode: VoteMode, d: Dst, a: PSrc, membermask: Src },
    Activemask { d: u32 },
    Shfl { mode: ShflMode, d: u32, p: Option<u32>, a: Src, b: Src, c: Src, membermask: Src },
    /// `match.any.sync` / `match.all.sync` on `bits`-bit values, with the
    /// predicate `p` of `match.all`.
    MatchSync { all: bool, bits: u32, d: u32, p: Option<u32>, a: Src, membermask: Src },
    ReduxSync { op: ReduxOp, d: u32, a: Src, membermask: Src },
    /// `elect.sync d|p, membermask` (`_` leaves either out).
    ElectSync { d: Option<u32>, p: Option<u32>, membermask: Src },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], cp_size{, src-size |
    /// ignore-src}`: `dst` a shared address, `src` a global one.
    CpAsync { dst: Addr, src: Addr, cp_size: u32, size: CopySrcSize },
    /// `cp.async.bulk` (sm_90, non-tensor): `size` bytes (a multiple of 16,
    /// both addresses 16-byte aligned) from `src` to `dst`, performed when
    /// issued; with `mbar`, the copy's bytes then complete that many
    /// transactions of the mbarrier there (`.mbarrier::complete_tx::bytes`).
    /// With `mask` (`.multicast::cluster`), the copy and the completion go
    /// to the same CTA-relative offsets in each CTA of the cluster whose
    /// rank is a bit of the mask.
    BulkCopy { dst: (Space, Addr), src: (Space, Addr), size: Src, mbar: Option<Addr>, mask: Option<Src> },
    /// `st.async.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type
    /// [addr], b, [mbar]` (PTX ISA 9.7.9.12, sm_90): the store into the
    /// shared memory of the cluster CTA `addr` names, then `complete_tx` of
    /// its bytes on the mbarrier at `mbar`, which lies in the same CTA.
    StAsync { size: u32, srcs: Vec<Src>, addr: Addr, mbar: Addr },
    /// `red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type
    /// [addr], b, [mbar]` (PTX ISA 9.7.13.7, sm_90): the atomic reduction
    /// in the shared memory of the cluster CTA `addr` names, then
    /// `complete_tx` of the element's bytes on the mbarrier at `mbar`, in
    /// the same CTA.
    RedAsync { op: AtomOp, ty: ITyOrF, addr: Addr, b: Src, mbar: Addr },
    /// `cp.reduce.async.bulk` (sm_90, non-tensor): each `ty` element of
    /// `dst` (global, or a cluster CTA's shared memory) becomes
    /// `op(dst, src)` with the element at the same offset of `src` (this
    /// CTA's shared memory), one atomic operation per element, performed
    /// when issued; with `mbar`, the bytes then complete that many
    /// transactions of the mbarrier there.
    BulkReduce { dst: (Space, Addr), src: Addr, size: Src, mbar: Option<Addr>, op: AtomOp, ty: ITyOrF },
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n`, or `cp.async.wait_all` (`all`: commit, then wait for every group).
    CpAsyncWait { n: u32, all: bool },
    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 {ds}, [addr]`
    /// (`ds.len()` is N).
    Ldmatrix { trans: bool, space: Space, ds: Vec<u32>, addr: Addr },
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 [addr], {srcs}`.
    Stmatrix { trans: bool, space: Space, srcs: Vec<Src>, addr: Addr },
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`.
    Movmatrix { d: u32, a: Src },
    /// `mma.sync.aligned`.
    Mma(Box<Mma>),
    /// `wgmma.mma_async.sync.aligned` (`datapath/hopper.rs`).
    Wgmma(Box<Wgmma>),
    /// `wgmma.commit_group.sync.aligned`: the warp's `wgmma.mma_async`s not
    /// yet in a group form one.
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned n`: every group but the `n` most
    /// recent is complete.
    WgmmaWait { n: u32 },
    /// An instruction that reads a register a `wgmma.mma_async` of its
    /// function writes (its accumulator): the read traps `wgmma_race` while
    /// such a `wgmma` is not waited for (`copies.rs`).
    AccGuard(Box<AccGuard>),
    /// `cp.async.bulk.tensor` / `cp.reduce.async.bulk.tensor`, tile mode
    /// (`datapath/hopper.rs`).
    BulkTensor(Box<BulkTensor>),
    /// `tensormap.replace` ([`TensormapReplace`]).
    TensormapReplace(Box<TensormapReplace>),
    /// `tensormap.cp_fenceproxy.global.shared::cta...` `[dst], [src], 128`:
    /// each active lane copies the 128-byte map from shared to global
    /// memory, then a fence (the proxy fence of the manual).
    TensormapCopy { dst: Addr, src: Addr },
    /// `wmma.load.{a,b,c}`: a fragment from memory (`datapath/wmma.rs`).
    WmmaLoad { f: WmmaFrag, space: Space, ds: Vec<u32>, addr: Addr, stride: Src },
    /// `wmma.store.d`: a fragment to memory.
    WmmaStore { f: WmmaFrag, space: Space, srcs: Vec<Src>, addr: Addr, stride: Src },
    WmmaMma(Box<WmmaMma>),
    /// `mbarrier.*` on the object at `addr` (`space` `.shared` or generic),
    /// and `cp.async.mbarrier.arrive`: `d` the state (arrive), the predicate
    /// (test_wait/try_wait) or the count (pending_count, whose `a` is the
    /// state); `a` the count, transaction count, state or parity.
    Mbarrier { op: MbarOp, d: Option<Dst>, space: Space, addr: Addr, a: Src },
    /// A direct call of the CUDA system call `vprintf` (device `printf`):
    /// formats on the host (`printf.rs`), `ret` gets the number of
    /// arguments parsed.
    Printf { fmt: CallArg, args: CallArg, ret: Option<CallArg> },
    /// A direct call of `__assertfail(message, file, line, function,
    /// charSize)` (device `assert`): prints CUDA's message and traps.
    AssertFail { args: Vec<CallArg> },
    /// A direct call of one of libcudadevrt's cooperative-groups queries
    /// (`cudaCGGetIntrinsicHandle`, `cudaCGGetSize`, `cudaCGGetRank`) in a
    /// module linked with libcudadevrt (`datapath/sys.rs`).
    DevRt { f: DevRtFn, args: Vec<CallArg>, ret: Option<CallArg> },
    /// A direct call of libcudadevrt's `cudaCGSynchronize` or
    /// `cudaCGSynchronizeGrid(handle, flags)`: the grid-wide barrier of a
    /// cooperative launch (`sched.rs`); a null handle traps.
    GridSync { handle: CallArg, ret: Option<CallArg> },
    /// A direct call of the CUDA system call `malloc(size)`: a block of the
    /// device heap (`heap.rs`), or 0 when it is exhausted, into `ret`.
    Malloc { size: CallArg, ret: Option<CallArg> },
    /// A direct call of `free(ptr)`: the block goes back to the device
    /// heap; `free(0)` does nothing, anything else than a live block's
    /// start traps `bad_free`.
    Free { ptr: CallArg },
    /// An instruction this engine does not run yet: traps `unsupported` if reached.
    Unsupported(String),
}

/// libcudadevrt's cooperative-groups queries the engine runs itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevRtFn {
    /// `unsigned long long cudaCGGetIntrinsicHandle(cudaCGScope scope)`.
    GetIntrinsicHandle,
    /// `cudaError_t cudaCGGetSize(unsigned *numThreads, unsigned *numGrids, unsigned long long handle)`.
    GetSize,
    /// `cudaError_t cudaCGGetRank(unsigned *rank, unsigned *gridRank, unsigned long long handle)`.
    GetRank,
}

/// The `mbarrier` operations (PTX ISA 9.7.13.15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarOp {
    Init,
    Inval,
    /// `arrive`, `arrive_drop` (`drop`), with `.noComplete`, `.expect_tx`.
    Arrive { drop: bool, no_complete: bool, expect_tx: bool },
    /// `expect_tx`, `complete_tx` (`complete`).
    Tx { complete: bool },
    /// `test_wait` / `try_wait`, on a state or (`.parity`) a phase parity.
    TestWait { parity: bool },
    PendingCount,
    /// `cp.async.mbarrier.arrive{.noinc}`.
    CpAsyncArrive { noinc: bool },
}

/// The shapes of `mma.sync.aligned` the engine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaShape {
    M16N8K16,
    M16N8K8,
    M16N8K4,
    M16N8K32,
    M8N8K4,
    M8N8K16,
}

impl MmaShape {
    /// (M, N, K).
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16N8K16 => (16, 8, 16),
            MmaShape::M16N8K8 => (16, 8, 8),
            MmaShape::M16N8K4 => (16, 8, 4),
            MmaShape::M16N8K32 => (16, 8, 32),
            MmaShape::M8N8K4 => (8, 8, 4),
            MmaShape::M8N8K16 => (8, 8, 16),
        }
    }
}

/// Element types of `mma` operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaTy {
    F16,
    BF16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S32,
    /// The 8-bit floats of sm_89's `mma.m16n8k32` (`ptxsim_sem::alu::fp8`).
    E4m3,
    E5m2,
}

impl MmaTy {
    /// Width in bits of an element.
    pub fn bits(self) -> u32 {
        match self {
            MmaTy::S8 | MmaTy::U8 | MmaTy::E4m3 | MmaTy::E5m2 => 8,
            MmaTy::F16 | MmaTy::BF16 => 16,
            MmaTy::Tf32 | MmaTy::F32 | MmaTy::S32 => 32,
            MmaTy::F64 => 64,
        }
    }

    /// Elements of a fragment per 32-bit register.
    pub fn per_reg(self) -> usize {
        match self.bits() {
            8 => 4,
            16 => 2,
            _ => 1,
        }
    }
}

/// One `mma.sync.aligned.shape.row.col{.rnd}{.satfinite}.dtype.atype.btype.ctype d, a, b, c`:
/// the fragment registers of each operand, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Mma {
    pub shape: MmaShape,
    pub dtype: MmaTy,
    pub atype: MmaTy,
    pub btype: MmaTy,
    pub ctype: MmaTy,
    pub rnd: ptxsim_sem::alu::Rounding,
    pub satfinite: bool,
    pub d: Vec<u32>,
    pub a: Vec<Src>,
    pub b: Vec<Src>,
    pub c: Vec<Src>,
}

/// One `wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype
/// d, a, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a,
/// imm-trans-b}}`: `a` is A's 4 registers or its descriptor (a `.b64`).
#[derive(Clone, Debug, PartialEq)]
pub struct Wgmma {
    pub shape: ptxsim_sem::wgmma::Shape,
    pub satfinite: bool,
    pub d: Vec<u32>,
    pub a: WgmmaA,
    pub b: Src,
    pub scale_d: PSrc,
    pub neg_a: bool,
    pub neg_b: bool,
    pub trans_a: bool,
    pub trans_b: bool,
}

/// An instruction guarded for reads of `wgmma` accumulators: the
/// accumulator registers it reads (slots, and their names for the trap)
/// and the instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct AccGuard {
    pub regs: Vec<u32>,
    pub names: Vec<String>,
    pub op: Op,
}

/// Where `wgmma`'s A comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum WgmmaA {
    Regs(Vec<Src>),
    Desc(Src),
}

/// One tile-mode tensor copy: `cp.async.bulk.tensor.Nd.dst.src.tile
/// [dst], [tmap, {coords}]{, [mbar]}{, mask}` (global to shared, completing
/// on `mbar`, multicast to the CTAs of `mask`), or the shared-to-global
/// form `[tmap, {coords}], [src]` (`to_shared` false), possibly a
/// reduction (`reduce`).
#[derive(Clone, Debug, PartialEq)]
pub struct BulkTensor {
    pub to_shared: bool,
    /// The shared-memory box: the destination or the source.
    pub smem: (Space, Addr),
    /// The tensor map's address (`.param`, `.const`, `.global` or generic).
    pub tmap: (Space, Addr),
    pub coords: Vec<Src>,
    pub mbar: Option<Addr>,
    pub mask: Option<Src>,
    /// `cp.reduce.async.bulk.tensor`: the reduction; its element type is
    /// the tensor map's, known when the copy runs.
    pub reduce: Option<AtomOp>,
    /// An im2col copy: its 16-bit offsets, one per spatial dimension
    /// (`.im2col`), or none (`.im2col_no_offs`, whose offsets are 0).
    pub im2col: Option<Vec<Src>>,
}

/// `tensormap.replace.tile.field{.ss}.b1024.type [addr], {ord,} new_val`:
/// one field of the 128-byte tensor map at `addr` rewritten
/// (`ptxsim_sem::tma::replace`).
#[derive(Clone, Debug, PartialEq)]
pub struct TensormapReplace {
    pub field: ptxsim_isa::TensormapField,
    pub ord: u32,
    pub addr: (Space, Addr),
    pub val: Src,
}

/// A `wmma` fragment: of matrix A (`b'a'`, M x K), B (`b'b'`, K x N) or
/// C/D (`b'c'`, M x N) of shape (M, N, K), its memory layout, element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WmmaFrag {
    pub which: u8,
    pub shape: (usize, usize, usize),
    pub col_major: bool,
    pub ty: MmaTy,
}

impl WmmaFrag {
    /// Rows and columns of the fragment's matrix.
    pub fn dims(&self) -> (usize, usize) {
        let (m, n, k) = self.shape;
        match self.which {
            b'a' => (m, k),
            b'b' => (k, n),
            _ => (m, n),
        }
    }
}

/// `wmma.mma.sync.aligned`: D = A * B + C on fragments.
#[derive(Clone, Debug, PartialEq)]
pub struct WmmaMma {
    pub shape: (usize, usize, usize),
    /// `.satfinite` (the integer forms): the sum clamped to the `.s32` range.
    pub satfinite: bool,
    pub fa: WmmaFrag,
    pub fb: WmmaFrag,
    pub fc: WmmaFrag,
    pub fd: WmmaFrag,
    pub d: Vec<u32>,
    pub a: Vec<Src>,
    pub b: Vec<Src>,
    pub c: Vec<Src>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// A comparison/atomic type: integer or float.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ITyOrF {
    I(ITy),
    F(FTy),
}

impl ITyOrF {
    /// The size of one value in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            ITyOrF::I(t) => t.bits / 8,
            ITyOrF::F(f) => f.bits() / 8,
        }
    }
}

pub use ptxsim_sem::cvt::CvtTy;

/// A guard: predicate slot and whether it is negated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub slot: u32,
    pub neg: bool,
}

/// One instruction with its guard and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub op: Op,
    pub guard: Option<Guard>,
    /// 1-based source line.
    pub line: u32,
    /// Byte span in the source.
    pub span: (u32, u32),
}

/// A decoded function.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub is_kernel: bool,
    /// Whether it has a body (a declaration alone cannot be called).
    pub defined: bool,
    pub code: Vec<Instr>,
    /// Reconvergence pc of each branch / guarded ret (`PC_EXIT` for the virtual exit).
    pub reconv: Vec<u32>,
    pub num_regs: u32,
    pub num_preds: u32,
    /// Bytes of per-thread frame-local storage (locals and `.param`s).
    pub frame_bytes: u32,
    pub params: Vec<Formal>,
    pub rets: Vec<Formal>,
    /// Kernel parameters: (offset, size) in the kernel parameter buffer.
    pub kparams: Vec<(u32, u32)>,
    pub kparam_bytes: u32,
    /// `.reqntid` / `.maxntid` directive values, if any.
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    /// `.reqnctapercluster` (nvcc's `__cluster_dims__`): the cluster shape
    /// the kernel is launched in.
    pub reqnctapercluster: Option<[u32; 3]>,
    /// `.explicitcluster`: the kernel must be launched in clusters given at
    /// compile time or at launch.
    pub explicitcluster: bool,
    /// `.maxclusterrank`: the most CTAs a cluster of this kernel may have.
    pub maxclusterrank: Option<u32>,
    pub line: u32,
    /// The module it comes from (an index into [`Program::files`]).
    pub module: u32,
    /// For a kernel: the static `.shared` bytes a CTA of it uses (the
    /// module's variables, those of every device function, and its own;
    /// kernels' own variables overlap, as one kernel runs per CTA). 0 for a
    /// device function.
    pub shared_bytes: u32,
}

impl Function {
    pub fn signature(&self) -> Signature {
        Signature {
            rets: self.rets.iter().map(|f| f.size()).collect(),
            params: self.params.iter().map(|f| f.size()).collect(),
        }
    }
}

/// The whole decoded module.
#[derive(Clone, Debug)]
pub struct Program {
    pub functions: Vec<Function>,
    /// The `.const` bank's initial bytes (function addresses in its
    /// initialisers already resolved; `.global` variables live in device
    /// memory, allocated and initialised at load).
    pub const_init: Vec<u8>,
    /// The module-scope `.const` variables: (name, offset in the bank, size).
    pub const_vars: Vec<(String, u64, u64)>,
    /// Static `.shared` bytes per CTA: the most any kernel uses
    /// ([`Function::shared_bytes`]).
    pub shared_static: u32,
    /// Where dynamic (`extern .shared`) memory starts: after the static
    /// part of every kernel.
    pub shared_dynamic_offset: u32,
    /// The names of the linked modules (one empty name for a module loaded
    /// alone).
    pub files: Vec<String>,
}

impl Program {
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions.iter().position(|f| f.name == name && f.defined).map(|i| i as FuncId)
    }
}

/// Where a copy's bytes come from: `src_size` bytes of the source
/// (zero-filled up to `cp_size`), or none with `ignore-src`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CopySrcSize {
    /// No size operand: all `cp_size` bytes.
    Full,
    /// `src-size`: a 32-bit value, at most `cp_size`.
    Size(Src),
    /// `ignore-src`: when true the source is not read and zeros are written.
    Ignore(PSrc),
}

// The device address map, which decoded addresses (a shared variable's
// window offset, a function's address) and the memory layer share.

/// First global allocation address.
pub const GLOBAL_BASE: u64 = 0x0000_1000_0000_0000;
/// Generic windows of the per-CTA / per-thread / module spaces.
pub const SHARED_WINDOW: u64 = 0x0000_7e00_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x0000_7d00_0000_0000;
pub const CONST_WINDOW: u64 = 0x0000_7c00_0000_0000;
pub const PARAM_WINDOW: u64 = 0x0000_7b00_0000_0000;
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Function addresses: `FUNC_BASE + 16 * function index` (fit in 32 bits).
pub const FUNC_BASE: u64 = 0xfc00_0000;
pub const FUNC_STRIDE: u64 = 16;
