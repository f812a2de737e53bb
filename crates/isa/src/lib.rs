//! The one description of every PTX instruction ptxsim knows.
//!
//! [`for_each_op!`] holds one row per opcode: the feature gate it needs
//! whatever its modifiers ([`gates`] holds every gate's minimum PTX version
//! and target), what it writes and reads (registers and memory), how its
//! result relates to divergence, its control-flow kind, whether the engine
//! runs it (or "not supported yet" with the reason users see), its modifier
//! grammar (the typed [`Insn`] variant that [`decode`] makes) and its
//! operand roles. Everything that used to keep its own list of opcode
//! strings is derived from these rows: the checker's instruction table
//! ([`OPS`], [`lookup`]), the engine's list of what is not supported yet,
//! the analysis' definitions and uses and its control-flow terminators.
//!
//! [`modifiers`] reads the few things of an instruction's modifiers the
//! checker reports before its row's grammar does (its state spaces, `.uni`).
//!
//! Invariant: adding an instruction is one row here, one semantic function
//! (`ptxsim-exec`'s `alu`), and its tests. A modifier-level gate or a
//! modifier that changes the decoder family (`cvt.pack`) stays with
//! the rule or decoder that reads that modifier; a row holds what is true of
//! the opcode whatever its modifiers.
//!
//! The shape follows the opcode lists of bytecode interpreters (Pulley's
//! `for_each_op!`, wasmi's instruction list): the list is a macro that
//! hands every row to a macro of the caller's choice, so other derived
//! forms can be generated from the same text.

pub mod gates;
pub mod grammar;
mod insn;
pub mod modifiers;
mod opcode;

pub use gates::{Feature, PtxVersion};
pub use grammar::{DecodeError, DecodeErrorKind};
pub use insn::*;
pub use modifiers::CmpOp;
pub use opcode::Opcode;

#[doc(hidden)]
pub mod __private {
    pub use ptxsim_syntax::ast::ScalarType;
}

/// What an instruction writes and reads besides its source registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Writes its first operand (a register, a vector of registers, a
    /// predicate or a predicate pair `p|q`) unless that operand is an
    /// address; reads the others.
    Def,
    /// Writes no register: every operand is read.
    Use,
    /// [`Effect::Def`], and reads memory.
    Load,
    /// [`Effect::Use`], and writes memory.
    Store,
    /// [`Effect::Def`], and reads and writes memory (an atomic).
    Rmw,
    /// [`Effect::Use`], and reads and writes memory (a reduction, a copy).
    RmwNoDef,
    /// `call`: the leading parenthesised list is written, the rest read.
    Call,
    /// `bar`/`barrier`: writes its first operand only in the `.red` form.
    Barrier,
}

impl Effect {
    /// Whether the first operand can be a register the instruction writes.
    pub fn defines(self) -> bool {
        matches!(self, Effect::Def | Effect::Load | Effect::Rmw | Effect::Call | Effect::Barrier)
    }
    /// Whether it reads memory.
    pub fn reads_memory(self) -> bool {
        matches!(self, Effect::Load | Effect::Rmw | Effect::RmwNoDef)
    }
    /// Whether it writes memory.
    pub fn writes_memory(self) -> bool {
        matches!(self, Effect::Store | Effect::Rmw | Effect::RmwNoDef)
    }
}

/// How an instruction's result relates to divergence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Divergent exactly when an operand is (loads refine this by state
    /// space in the analysis).
    Data,
    /// Each lane gets its own value (`shfl`, `match`, `elect`).
    PerLane,
    /// An atomic's old value: divergent.
    Atomic,
    /// The same for every active thread (votes, CTA and warp reductions).
    Uniform,
}

/// Where control goes after an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// To the next instruction.
    Seq,
    /// `bra`: to a label.
    Branch,
    /// `brx.idx`: to one label of a `.branchtargets` list.
    IndirectBranch,
    /// Into a function and back.
    Call,
    /// Back to the caller.
    Ret,
    /// The thread ends.
    Exit,
    /// The launch ends with an error.
    Trap,
    /// Waits for other threads, then goes on.
    Barrier,
}

impl Flow {
    /// Whether control leaves the function here (the CFG's virtual exit).
    pub fn leaves(self) -> bool {
        matches!(self, Flow::Ret | Flow::Exit | Flow::Trap)
    }
}

/// What the engine does with an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The engine's decoder reads its typed [`Insn`] (and may still refuse
    /// some of its forms, naming them).
    Runs,
    /// Not supported yet, for the reason given (published with the list).
    NotYet(&'static str),
}

/// One row: everything ptxsim knows about an opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// The opcode as written; a row named by an opcode and its first
    /// modifier (`cvt.pack`, `red.async`, `cp.async`) is [`compound_row`]'s.
    pub op: &'static str,
    /// The feature gate the opcode needs whatever its modifiers (its
    /// minimum version and target are its row of [`gates::FEATURES`]).
    pub gate: Option<Feature>,
    pub effect: Effect,
    pub lanes: Lanes,
    pub flow: Flow,
    pub engine: Engine,
    /// Whether the row's modifier grammar is written (its [`Insn`] variant
    /// has typed fields); `false` for a row that carries
    /// [`grammar::Untyped`] (none does today; a new row may start so, and
    /// then only its operands' names are resolved).
    pub typed: bool,
    /// Its operands, in order, with their roles; empty while not written
    /// (then [`OpInfo::effect`] says what the first operand is).
    pub roles: &'static [OperandRole],
}

/// What an operand of an instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A register the instruction writes; the sink `_` is not allowed.
    Dst,
    /// A register the instruction writes, or the sink `_`.
    DstOrSink,
    /// A predicate the instruction writes.
    PredOut,
    /// A predicate the instruction writes, and after `|` a second one
    /// (`setp`'s `p|q`).
    PredPair,
    /// A register the instruction writes, and after `|` a predicate
    /// (`shfl`'s, `lop3.BoolOp`'s, `match.all`'s and `elect`'s `d|p`).
    DstPred,
    /// A value read: a register or an immediate.
    Src,
    /// A value read, that may be left out (the last operands only).
    OptSrc,
    /// A memory address read or written through.
    Addr,
    /// The row's opcode has several operations with different operands
    /// (`wgmma.fence` has none, `wgmma.mma_async` up to 131): the rule of
    /// each operation counts and types them, and the analysis reads the
    /// row's effect. Alone in its row's roles.
    PerOperation,
}

impl Role {
    /// Whether the operand is written.
    pub fn defines(self) -> bool {
        matches!(self, Role::Dst | Role::DstOrSink | Role::PredOut | Role::PredPair | Role::DstPred)
    }
}

/// One operand of a row: its name in the manual's syntax and its role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandRole {
    pub name: &'static str,
    pub role: Role,
}

impl OpInfo {
    /// Whether the row's operations differ in their operands
    /// ([`Role::PerOperation`]).
    pub fn per_operation(&self) -> bool {
        self.roles.iter().any(|r| r.role == Role::PerOperation)
    }

    /// Whether the roles name each operand (written, and not
    /// [`Role::PerOperation`]).
    pub fn names_operands(&self) -> bool {
        !self.roles.is_empty() && !self.per_operation()
    }

    /// How many operands the row's roles allow: (at least, at most); `None`
    /// while its roles are not written, and for `call`, whose operands are
    /// lists ([`Effect::Call`] says which are written).
    pub fn operand_count(&self) -> Option<(usize, usize)> {
        if !self.typed || self.effect == Effect::Call || self.per_operation() {
            return None;
        }
        let min = self.roles.iter().filter(|r| r.role != Role::OptSrc).count();
        Some((min, self.roles.len()))
    }
}

#[doc(hidden)]
#[macro_export]
macro_rules! __typed {
    (untyped) => {
        false
    };
    ($($k:ident)*) => {
        true
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __gate {
    (_) => {
        None
    };
    ($g:ident) => {
        Some($crate::gates::Feature::$g)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __engine {
    ($why:literal) => {
        $crate::Engine::NotYet($why)
    };
    (Typed) => {
        $crate::Engine::Runs
    };
}

/// Calls `$m!` with every row:
/// `"opcode" gate Effect Lanes Flow engine => Variant { grammar } [roles];`
/// where `gate` is `_` or a [`Feature`], and
/// `engine` is `Typed` (the engine decodes the row's [`Insn`]) or a string:
/// the reason it is not supported yet.
#[macro_export]
macro_rules! for_each_op {
    ($m:ident) => {
        $m! {
            // Control flow.
            "bra"          _          Use      Data     Branch         Typed
                => Bra { uni: flag(".uni") } [tgt: Src];
            "brx"          BrxIdx     Use      Data     IndirectBranch Typed
                => Brx { idx: one(BrxMode), uni: flag(".uni") } [index: Src, tlist: Src];
            "call"         _          Call     Data     Call           Typed
                => Call { uni: flag(".uni") } [];
            "ret"          _          Use      Data     Ret            Typed
                => Ret { uni: flag(".uni") } [];
            "exit"         _          Use      Data     Exit           Typed
                => Exit {} [];
            "trap"         _          Use      Data     Trap           Typed
                => Trap {} [];
            "brkpt"        _          Use      Data     Seq            "a breakpoint needs a debugger"
                => Brkpt {} [];
            // Comparison and selection.
            "setp"         _          Def      Data     Seq            Typed
                => Setp { cmp: one(CmpOp), boolop: opt(BoolOp), ftz: flag(".ftz"), ty: ty(B16 B32 B64 U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [p: PredPair, a: Src, b: Src, c: OptSrc];
            "set"          _          Def      Data     Seq            Typed
                => Set { cmp: one(CmpOp), boolop: opt(BoolOp), ftz: flag(".ftz"), dtype: ty(U32 S32 F32 U16 S16 F16 F16x2 Bf16 Bf16x2), stype: ty(B16 B32 B64 U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "selp"         _          Def      Data     Seq            Typed
                => Selp { ty: ty(B16 B32 B64 U16 U32 U64 S16 S32 S64 F32 F64) }
                [d: Dst, a: Src, b: Src, c: Src];
            "slct"         _          Def      Data     Seq            Typed
                => Slct { ftz: flag(".ftz"), dtype: ty(B16 B32 B64 U16 U32 U64 S16 S32 S64 F32 F64), ctype: ty(S32 F32) }
                [d: Dst, a: Src, b: Src, c: Src];
            // Memory.
            // PTX ISA 9.7.9.8 ld, 9.7.9.9 ld.global.nc, 9.7.9.10 ldu,
            // 9.7.9.11 st (the syntax lines in `insn/mem.rs`): which
            // modifier goes with which is `Insn::mem_misfit`; the state
            // space and the operands the checker's `rules/memory.rs`.
            "ld"           _          Load     Data     Seq            Typed
                => Ld { sem: opt(LdSem), mmio: flag(".mmio"), scope: opt(ProxyScope), space: pair(LdSpace), cop: opt(LdCop), nc: flag(".nc"), l1: opt(L1Evict), l2: opt(L2Evict),
                        hint: flag(".L2::cache_hint"), prefetch: opt(PrefetchSize), vec: opt(LdVec), ty: ty(B8 B16 B32 B64 B128 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 Pred) }
                [d: Dst, a: Addr, policy: OptSrc];
            "ldu"          _          Load     Data     Seq            Typed
                => Ldu { space: pair(LdSpace), vec: opt(LdVec), ty: ty(B8 B16 B32 B64 B128 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 Pred) }
                [d: Dst, a: Addr];
            "st"           _          Store    Data     Seq            Typed
                => St { asynchronous: flag(".async"), sem: opt(LdSem), mmio: flag(".mmio"), scope: opt(ProxyScope), space: pair(LdSpace), complete_tx: flag(".mbarrier::complete_tx::bytes"), cop: opt(LdCop), l1: opt(L1Evict), l2: opt(L2Evict),
                        hint: flag(".L2::cache_hint"), vec: opt(LdVec), ty: ty(B8 B16 B32 B64 B128 U8 U16 U32 U64 S8 S16 S32 S64 F32 F64 Pred) }
                [a: Addr, b: Src, policy: OptSrc];
            // PTX ISA 9.7.13.5-6: `atom{.sem}{.scope}{.space}.op{.vec}{.noftz}{.L2::cache_hint}.type
            // d, [a], b{, c}{, policy}` (`c` for `.cas`), `red` the same with no
            // `d`; the operation, the space and the type are the rule's
            // (`rules/atomic.rs`: which type each operation takes), the
            // other combinations `Insn::misfit`'s.
            "atom"         _          Rmw      Atomic   Seq            Typed
                => Atom { sem: opt(AtomSem), scope: opt(AtomScope), space: opt(AtomSpace), op: opt(AtomOp), vec: opt(AtomVec), noftz: flag(".noftz"), hint: flag(".L2::cache_hint"), ty: oty(B16 B32 B64 B128 U16 U32 U64 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 F32 F64) }
                [ops: PerOperation];
            "red"          _          RmwNoDef Data     Seq            Typed
                => Red { sem: opt(AtomSem), scope: opt(AtomScope), space: opt(AtomSpace), op: opt(AtomOp), vec: opt(AtomVec), noftz: flag(".noftz"), hint: flag(".L2::cache_hint"), ty: oty(B16 B32 B64 B128 U16 U32 U64 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 F32 F64) }
                [a: Addr, b: Src, policy: OptSrc];
            // PTX ISA 9.7.13.7: `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type
            // [a], b, [mbar]` (an instruction `red` whose first modifier is `.async`).
            "red.async"    _          RmwNoDef Data     Seq            Typed
                => RedAsync { is_async: req(".async"), sem: opt(AtomSem), scope: opt(AtomScope), space: opt(AtomSpace), mbar: flag(".mbarrier::complete_tx::bytes"), op: opt(AtomOp), ty: oty(B16 B32 B64 B128 U16 U32 U64 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 F32 F64) }
                [a: Addr, b: Src, mbar: OptSrc];
            // PTX ISA 9.7.13.4 membar/fence (the syntax lines in
            // `insn/mem.rs`): which modifier goes with which is
            // `Insn::mem_misfit`; only `fence.proxy.tensormap::generic.acquire`
            // takes operands (`[addr], size`).
            "membar"       _          Use      Data     Seq            Typed
                => Membar { level: opt(MembarLevel), proxy: flag(".proxy"), kind: opt(ProxyKind), space: opt(ProxySpace) } [];
            "fence"        _          Use      Data     Seq            Typed
                => Fence { proxy: flag(".proxy"), kind: opt(ProxyKind), space: opt(ProxySpace), op: opt(FenceOp), sem: opt(FenceSem), restrict: opt(SyncRestrict), scope: opt(ProxyScope) }
                [addr: OptSrc, size: OptSrc];
            // PTX ISA 9.7.9.15 prefetch/prefetchu, applypriority, discard,
            // createpolicy (the syntax lines in `insn/mem.rs`): which
            // modifier goes with which is `Insn::mem_misfit`; createpolicy's
            // operands differ by kind (its rule counts them).
            "prefetch"     Prefetch   Use      Data     Seq            Typed
                => Prefetch { space: opt(PrefetchSpace), level: opt(PrefetchLevel) } [a: Addr];
            "prefetchu"    Prefetch   Use      Data     Seq            Typed
                => Prefetchu { level: one(PrefetchuLevel) } [a: Addr];
            "applypriority" CacheEviction Use      Data     Seq            Typed
                => Applypriority { space: opt(GlobalSpace), level: one(ApplyLevel) } [a: Addr, size: Src];
            "discard"      CacheEviction Use      Data     Seq            Typed
                => Discard { space: opt(GlobalSpace), level: one(DiscardLevel) } [a: Addr, size: Src];
            "createpolicy" CacheEviction Def      Data     Seq            Typed
                => Createpolicy { kind: one(PolicyKind), space: opt(GlobalSpace), level: opt(DiscardLevel), prio: pair(PolicyPriority), ty: ty(B64) }
                [d: Dst, a: OptSrc, b: OptSrc, c: OptSrc];
            // PTX ISA 9.7.9.16 isspacep, 9.7.9.17 mapa, 9.7.9.18 getctarank.
            "isspacep"     _          Def      Data     Seq            Typed
                => Isspacep { space: one(IsspacepSpace) } [p: PredOut, a: Src];
            // PTX ISA 9.7.9.19 cvta: `cvta{.to}.space.size p, a`.
            "cvta"         _          Def      Data     Seq            Typed
                => Cvta { to: flag(".to"), space: one(CvtaSpace), ty: ty(U32 U64) }
                [p: Dst, a: Src];
            "mapa"         _          Def      Data     Seq            Typed
                => Mapa { space: opt(ClusterSpace), ty: ty(U32 U64 S32 S64) } [d: Dst, a: Src, b: Src];
            "getctarank"   _          Def      Data     Seq            Typed
                => Getctarank { space: opt(ClusterSpace), ty: ty(U32 U64 S32 S64) } [d: Dst, a: Src];
            // PTX ISA 9.7.17.2-4: `alloca.type ptr, size{, immAlign}`,
            // `stacksave.type d`, `stackrestore.type a`, `.type` `.u32`/`.u64`.
            "alloca"       _          Def      Data     Seq            "stack allocation is not modelled yet"
                => Alloca { ty: ty(U32 U64) } [ptr: Dst, size: Src, align: OptSrc];
            "stacksave"    _          Def      Data     Seq            "stack allocation is not modelled yet"
                => Stacksave { ty: ty(U32 U64) } [d: Dst];
            "stackrestore" _          Use      Data     Seq            "stack allocation is not modelled yet"
                => Stackrestore { ty: ty(U32 U64) } [a: Src];
            // Moves and conversions.
            // PTX ISA 9.7.9.1-2: `mov.type d, a` (a register, an immediate,
            // a special register, a variable's or function's address), and
            // the packing forms `mov.b16/b32/b64/b128 d, {a, b...}`.
            // No half types (ptxas 13.5: "Unexpected instruction types").
            "mov"          _   Def      Data     Seq            Typed
                => Mov { ty: ty(Pred B16 B32 B64 B128 U16 U32 U64 S16 S32 S64 F32 F64) }
                [d: Dst, a: Src];
            // PTX ISA 9.7.9.21: `cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a`,
            // the packing forms `cvt.frnd2{.relu}{.satfinite}.f16x2.f32 d,
            // a, b`, `cvt.rs ... d, a, b, rbits` and the narrow float
            // formats; which combination is whose is `Insn::misfit`'s and
            // the checker's (`rules/convert.rs`).
            "cvt"          _          Def      Data     Seq            Typed
                => Cvt { rnd: opt(CvtRnd), ftz: flag(".ftz"), sat: flag(".sat"), relu: flag(".relu"), satfinite: flag(".satfinite"), types: pair(CvtType) }
                [d: Dst, a: Src, b: OptSrc, c: OptSrc];
            // PTX ISA 9.7.9.22: `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`
            // (an instruction `cvt` whose first modifier is `.pack`).
            "cvt.pack"     _          Def      Data     Seq            Typed
                => CvtPack { pack: req(".pack"), sat: req(".sat"), ctype: one(PackType), atype: ty(S32), btype: oty(B32) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            // Integer and float arithmetic.
            // PTX ISA 9.7.1.1-2 (`{.sat}` `.u16`-`.s64`, add's `.u16x2`
            // `.s16x2`), 9.7.2.1-2 (`.cc` on 32/64 bits), 9.7.3.1-2
            // (`{.rnd}{.ftz}{.sat}.f32`, `{.rnd}{.ftz}.f32x2`,
            // `{.rnd}.f64`), 9.7.4.1-2 (`{.rn}{.ftz}{.sat}.f16{x2}`,
            // `{.rn}.bf16{x2}`): which modifier goes with which type is
            // `Insn::misfit`.
            "add"          _          Def      Data     Seq            Typed
                => Add { rnd: opt(FRnd), ftz: flag(".ftz"), sat: flag(".sat"), cc: flag(".cc"), packed: opt(PackedTy), ty: oty(U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src];
            "sub"          _          Def      Data     Seq            Typed
                => Sub { rnd: opt(FRnd), ftz: flag(".ftz"), sat: flag(".sat"), cc: flag(".cc"), packed: opt(PackedTy), ty: oty(U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src];
            // PTX ISA 9.7.2.2, 9.7.2.4 (`{.cc}` on `.u32`-`.s64`; ptxas 12.9
            // also takes `.sat.s32` and the 16-bit types without `.cc`):
            // the combinations are `Insn::misfit`'s.
            "addc"         _          Def      Data     Seq            Typed
                => Addc { cc: flag(".cc"), sat: flag(".sat"), ty: ty(U16 U32 U64 S16 S32 S64) }
                [d: Dst, a: Src, b: Src];
            "subc"         _          Def      Data     Seq            Typed
                => Subc { cc: flag(".cc"), sat: flag(".sat"), ty: ty(U16 U32 U64 S16 S32 S64) }
                [d: Dst, a: Src, b: Src];
            // PTX ISA 9.7.1.3 (`.hi .lo .wide` on `.u16`-`.s64`), 9.7.3.3
            // (`{.rnd}{.ftz}{.sat}.f32`, `{.rnd}{.ftz}.f32x2`, `{.rnd}.f64`),
            // 9.7.4.3 (`{.rn}{.ftz}{.sat}.f16{x2}`, `{.rn}.bf16{x2}`): which
            // modifier goes with which type is `Insn::misfit`.
            "mul"          _          Def      Data     Seq            Typed
                => Mul { mode: opt(MulMode), rnd: opt(FRnd), ftz: flag(".ftz"), sat: flag(".sat"), packed: opt(PackedTy), ty: oty(U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src];
            // PTX ISA 9.7.1.8 (`div.type` on `.u16`-`.s64`), 9.7.3.6
            // (`div.approx{.ftz}.f32`, `div.full{.ftz}.f32`,
            // `div.rnd{.ftz}.f32`, `div.rnd.f64`): `Insn::misfit`.
            "div"          _          Def      Data     Seq            Typed
                => Div { mode: opt(DivMode), rnd: opt(FRnd), ftz: flag(".ftz"), ty: ty(U16 U32 U64 S16 S32 S64 F32 F64) }
                [d: Dst, a: Src, b: Src];
            "rem"          _          Def      Data     Seq            Typed
                => Rem { ty: ty(U16 U32 U64 S16 S32 S64) }
                [d: Dst, a: Src, b: Src];
            // PTX ISA 9.7.1.10-11 (`.u16`-`.s64`, `.u16x2`, `{.relu}.s32`,
            // `{.relu}.s16x2`), 9.7.3.10-11 (`{.ftz}{.NaN}{.xorsign.abs}.f32
            // d, a, b`, `{.ftz}{.NaN}{.abs}.f32 d, a, b, c`, `.f64`), 9.7.4.9-10
            // (`{.ftz}{.NaN}{.xorsign.abs}.f16{x2}`, without `.ftz` on
            // `.bf16{x2}`): which modifier goes with which type is
            // `Insn::misfit`; the third source (`.f32` only) the checker's.
            "min"          _          Def      Data     Seq            Typed
                => Min { relu: flag(".relu"), ftz: flag(".ftz"), nan: flag(".NaN"), xorsign: flag(".xorsign"), abs: flag(".abs"), packed: opt(PackedTy), ty: oty(U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "max"          _          Def      Data     Seq            Typed
                => Max { relu: flag(".relu"), ftz: flag(".ftz"), nan: flag(".NaN"), xorsign: flag(".xorsign"), abs: flag(".abs"), packed: opt(PackedTy), ty: oty(U16 U32 U64 S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "mul24"        _          Def      Data     Seq            Typed
                => Mul24 { mode: one(Half), ty: ty(U32 S32) }
                [d: Dst, a: Src, b: Src];
            "copysign"     _          Def      Data     Seq            Typed
                => Copysign { ty: ty(F32 F64) }
                [d: Dst, a: Src, b: Src];
            "and"          _          Def      Data     Seq            Typed
                => And { ty: ty(Pred B16 B32 B64) }
                [d: Dst, a: Src, b: Src];
            "or"           _          Def      Data     Seq            Typed
                => Or { ty: ty(Pred B16 B32 B64) }
                [d: Dst, a: Src, b: Src];
            "xor"          _          Def      Data     Seq            Typed
                => Xor { ty: ty(Pred B16 B32 B64) }
                [d: Dst, a: Src, b: Src];
            // PTX ISA 9.7.1.4 (`.lo .hi .wide` on `.u16`-`.s64`,
            // `mad.hi.sat.s32`), 9.7.2.5 (`mad{.lo,.hi}.cc`), 9.7.3.4
            // (`mad.rnd{.ftz}{.sat}.f32`, `mad.rnd.f64`): `Insn::misfit`.
            "mad"          _          Def      Data     Seq            Typed
                => Mad { mode: opt(MulMode), rnd: opt(FRnd), ftz: flag(".ftz"), sat: flag(".sat"), cc: flag(".cc"), ty: ty(U16 U32 U64 S16 S32 S64 F32 F64) }
                [d: Dst, a: Src, b: Src, c: Src];
            // PTX ISA 9.7.2.6: `madc{.lo,.hi}{.cc}.type`.
            "madc"         _          Def      Data     Seq            Typed
                => Madc { mode: one(Half), sat: flag(".sat"), cc: flag(".cc"), ty: ty(U16 U32 U64 S16 S32 S64) }
                [d: Dst, a: Src, b: Src, c: Src];
            // PTX ISA 9.7.3.4 (`fma.rnd{.ftz}{.sat}.f32`, `fma.rnd{.ftz}.f32x2`,
            // `fma.rnd.f64`), 9.7.4.4 (`fma.rn{.ftz}{.sat}.f16{x2}`,
            // `fma.rn{.ftz}.relu.f16{x2}`, `fma.rn{.relu}.bf16{x2}`,
            // `fma.rn.oob{.relu}.type`): `Insn::misfit`.
            "fma"          _          Def      Data     Seq            Typed
                => Fma { rnd: opt(FRnd), ftz: flag(".ftz"), sat: flag(".sat"), relu: flag(".relu"), oob: flag(".oob"), packed: opt(PackedTy), ty: oty(F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src, b: Src, c: Src];
            "mad24"        _          Def      Data     Seq            Typed
                => Mad24 { mode: one(Half), sat: flag(".sat"), ty: ty(U32 S32) }
                [d: Dst, a: Src, b: Src, c: Src];
            "sad"          _          Def      Data     Seq            Typed
                => Sad { ty: ty(U16 U32 U64 S16 S32 S64) }
                [d: Dst, a: Src, b: Src, c: Src];
            "not"          _          Def      Data     Seq            Typed
                => Not { ty: ty(Pred B16 B32 B64) }
                [d: Dst, a: Src];
            "cnot"         _          Def      Data     Seq            Typed
                => Cnot { ty: ty(B16 B32 B64) }
                [d: Dst, a: Src];
            // PTX ISA 9.7.1.13-14 (`.s16 .s32 .s64`), 9.7.3.7-8 (`{.ftz}.f32`,
            // `.f64`), 9.7.4.5-6 (`{.ftz}.f16`/`.f16x2`, `.bf16`/`.bf16x2`):
            // `.ftz` only on `.f32` and the f16 types (`Insn::misfit`).
            "neg"          _          Def      Data     Seq            Typed
                => Neg { ftz: flag(".ftz"), ty: ty(S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src];
            "abs"          _          Def      Data     Seq            Typed
                => Abs { ftz: flag(".ftz"), ty: ty(S16 S32 S64 F32 F64 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src];
            // PTX ISA 9.7.3.13-23, 9.7.4.10-11: `rcp`/`sqrt` `.approx{.ftz}.f32`,
            // `.rnd{.ftz}.f32`, `.rnd.f64` (and `rcp.approx.ftz.f64`);
            // `rsqrt.approx{.ftz}.{f32,f64}`; `sin cos lg2 .approx{.ftz}.f32`;
            // `ex2.approx{.ftz}.f32`, `ex2.approx.{f16,f16x2}`,
            // `ex2.approx.ftz.{bf16,bf16x2}`; `tanh.approx.type`: `Insn::misfit`.
            "rcp"          _          Def      Data     Seq            Typed
                => Rcp { approx: flag(".approx"), rnd: opt(FRnd), ftz: flag(".ftz"), ty: ty(F32 F64) }
                [d: Dst, a: Src];
            "sqrt"         _          Def      Data     Seq            Typed
                => Sqrt { approx: flag(".approx"), rnd: opt(FRnd), ftz: flag(".ftz"), ty: ty(F32 F64) }
                [d: Dst, a: Src];
            "rsqrt"        _          Def      Data     Seq            Typed
                => Rsqrt { approx: req(".approx"), ftz: flag(".ftz"), ty: ty(F32 F64) }
                [d: Dst, a: Src];
            "sin"          _          Def      Data     Seq            Typed
                => Sin { approx: req(".approx"), ftz: flag(".ftz"), ty: ty(F32) }
                [d: Dst, a: Src];
            "cos"          _          Def      Data     Seq            Typed
                => Cos { approx: req(".approx"), ftz: flag(".ftz"), ty: ty(F32) }
                [d: Dst, a: Src];
            "lg2"          _          Def      Data     Seq            Typed
                => Lg2 { approx: req(".approx"), ftz: flag(".ftz"), ty: ty(F32) }
                [d: Dst, a: Src];
            "ex2"          _          Def      Data     Seq            Typed
                => Ex2 { approx: req(".approx"), ftz: flag(".ftz"), ty: ty(F32 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src];
            "tanh"         _          Def      Data     Seq            Typed
                => Tanh { approx: req(".approx"), ty: ty(F32 F16 F16x2 Bf16 Bf16x2) }
                [d: Dst, a: Src];
            "testp"        Testp      Def      Data     Seq            Typed
                => Testp { op: opt(TestpOp), ty: ty(F32 F64) }
                [p: PredOut, a: Src];
            // Bit manipulation.
            "brev"         _          Def      Data     Seq            Typed
                => Brev { ty: ty(B32 B64) }
                [d: Dst, a: Src];
            "shl"          _          Def      Data     Seq            Typed
                => Shl { ty: ty(B16 B32 B64) }
                [d: Dst, a: Src, b: Src];
            "shr"          _          Def      Data     Seq            Typed
                => Shr { ty: ty(B16 B32 B64 U16 U32 U64 S16 S32 S64) }
                [d: Dst, a: Src, b: Src];
            "popc"         _          Def      Data     Seq            Typed
                => Popc { ty: ty(B32 B64) }
                [d: Dst, a: Src];
            "clz"          _          Def      Data     Seq            Typed
                => Clz { ty: ty(B32 B64) }
                [d: Dst, a: Src];
            "bfind"        _          Def      Data     Seq            Typed
                => Bfind { shiftamt: flag(".shiftamt"), ty: ty(U32 U64 S32 S64) }
                [d: Dst, a: Src];
            "prmt"         _          Def      Data     Seq            Typed
                => Prmt { ty: ty(B32), mode: opt(PrmtMode) }
                [d: Dst, a: Src, b: Src, c: Src];
            "bfe"          _          Def      Data     Seq            Typed
                => Bfe { ty: ty(U32 U64 S32 S64) }
                [d: Dst, a: Src, b: Src, c: Src];
            "bfi"          _          Def      Data     Seq            Typed
                => Bfi { ty: ty(B32 B64) }
                [f: Dst, a: Src, b: Src, c: Src, d: Src];
            "bmsk"         SzextBmsk  Def      Data     Seq            Typed
                => Bmsk { mode: one(ClampMode), ty: ty(B32) }
                [d: Dst, a: Src, b: Src];
            "szext"        SzextBmsk  Def      Data     Seq            Typed
                => Szext { mode: one(ClampMode), ty: ty(U32 S32) }
                [d: Dst, a: Src, b: Src];
            "dp4a"         Dp4a       Def      Data     Seq            Typed
                => Dp4a { atype: ty(U32 S32), btype: ty(U32 S32) }
                [d: Dst, a: Src, b: Src, c: Src];
            "dp2a"         Dp4a       Def      Data     Seq            Typed
                => Dp2a { mode: one(Half), atype: ty(U32 S32), btype: ty(U32 S32) }
                [d: Dst, a: Src, b: Src, c: Src];
            "fns"          Fns        Def      Data     Seq            Typed
                => Fns { ty: ty(B32) }
                [d: Dst, mask: Src, base: Src, offset: Src];
            "lop3"         Lop3       Def      Data     Seq            Typed
                => Lop3 { boolop: opt(Lop3BoolOp), ty: ty(B32) }
                [d: DstPred, a: Src, b: Src, c: Src, lut: Src, q: OptSrc];
            "shf"          Shf        Def      Data     Seq            Typed
                => Shf { dir: one(ShfDir), mode: one(ClampMode), ty: ty(B32) }
                [d: Dst, a: Src, b: Src, c: Src];
            // Warps, barriers and collectives.
            "shfl"         _          Def      PerLane  Seq            Typed
                => Shfl { sync: flag(".sync"), mode: one(ShflMode), ty: ty(B32) }
                [d: DstPred, a: Src, b: Src, c: Src, membermask: OptSrc];
            "vote"         _          Def      Uniform  Seq            Typed
                => Vote { sync: flag(".sync"), mode: one(VoteMode), ty: ty(Pred B32) }
                [d: Dst, a: Src, membermask: OptSrc];
            // `bar`/`barrier`: the operands differ by operation (`.sync a{, b}`,
            // `.red.popc.u32 d, a{, b}, {!}c`, `barrier.cluster.arrive`).
            "bar"          _          Barrier  Uniform  Barrier        Typed
                => Bar { scope: opt(BarScope), op: opt(BarOp), red: opt(BarRedOp), sem: opt(BarSem), aligned: flag(".aligned"), ty: oty(U32 Pred) }
                [ops: PerOperation];
            "barrier"      _          Barrier  Uniform  Barrier        Typed
                => Barrier { scope: opt(BarScope), op: opt(BarOp), red: opt(BarRedOp), sem: opt(BarSem), aligned: flag(".aligned"), ty: oty(U32 Pred) }
                [ops: PerOperation];
            "nanosleep"    Nanosleep  Use      Data     Seq            Typed
                => Nanosleep { ty: ty(U32) }
                [t: Src];
            "activemask"   Activemask Def      Uniform  Seq            Typed
                => Activemask { ty: ty(B32) }
                [d: Dst];
            "match"        MatchSync  Def      PerLane  Seq            Typed
                => Match { mode: one(MatchMode), sync: req(".sync"), ty: ty(B32 B64) }
                [d: DstPred, a: Src, membermask: Src];
            "redux"        ReduxSync  Def      Uniform  Seq            Typed
                => Redux { sync: req(".sync"), op: one(ReduxKind), abs: flag(".abs"), nan: flag(".NaN"), ty: ty(U32 S32 B32 F32) }
                [d: Dst, a: Src, membermask: Src];
            "elect"        ElectSync  Def      PerLane  Seq            Typed
                => Elect { sync: req(".sync") }
                [d: DstPred, membermask: Src];
            "pmevent"      _          Use      Data     Seq            "performance monitor events are not modelled"
                => Pmevent { mask: flag(".mask") }
                [a: Src];
            "griddepcontrol" GridDepControl Use  Data     Seq            Typed
                => Griddepcontrol { mode: one(GridDepMode) } [];
            "setmaxnreg"   _          Use      Data     Seq            Typed
                => Setmaxnreg { action: one(RegAction), sync: req(".sync"), aligned: req(".aligned"), ty: ty(U32 S32) }
                [count: Src];
            // PTX ISA 9.7.13.17 (the syntax lines in `insn/clc.rs`): which
            // modifiers go with which operation is `Insn::clc_misfit`.
            "clusterlaunchcontrol" _          Def      Data     Seq            "cluster launch control is not modelled yet"
                => Clusterlaunchcontrol { op: one(ClcOp), is_async: flag(".async"), space: opt(ClcSpace), mbar: flag(".mbarrier::complete_tx::bytes"), multicast: flag(".multicast::cluster::all"),
                                          query: opt(ClcQuery), vec: opt(ClcVec), type1: oty(Pred B32 B128), type2: oty(B128) }
                [ops: PerOperation];
            "istypep"      _          Def      Data     Seq            "textures and surfaces are not modelled yet"
                => Istypep { ty: one(OpaqueKind) }
                [p: PredOut, a: Src];
            // Textures and surfaces.
            "tex"          _          Load     Data     Seq            "textures and surfaces are not modelled yet"
                => Tex { mip: opt(TexMip), geom: one(TexGeom), vec: opt(TexVec), dtype: ty(U32 S32 F16 F16x2 F32), ctype: ty(S32 F32) }
                [ops: PerOperation];
            "tld4"         _          Load     Data     Seq            "textures and surfaces are not modelled yet"
                => Tld4 { comp: one(Tld4Comp), geom: one(TexGeom), vec: opt(TexVec), dtype: ty(U32 S32 F32), ctype: ty(F32) }
                [d: Dst, a: Src, e: OptSrc, f: OptSrc];
            "txq"          _          Def      Data     Seq            "textures and surfaces are not modelled yet"
                => Txq { level: flag(".level"), query: one(TxqQuery), ty: ty(B32) }
                [d: Dst, a: Src, lod: OptSrc];
            "suld"         _          Load     Data     Seq            "textures and surfaces are not modelled yet"
                => Suld { access: one(SurfAccess), geom: one(TexGeom), cop: opt(SurfCop), vec: opt(TexVec), dtype: ty(B8 B16 B32 B64), clamp: one(SurfClamp) }
                [d: Dst, a: Src];
            "sust"         _          Store    Data     Seq            "textures and surfaces are not modelled yet"
                => Sust { access: one(SurfAccess), geom: one(TexGeom), cop: opt(SurfCop), vec: opt(TexVec), ctype: ty(B8 B16 B32 B64), clamp: one(SurfClamp) }
                [a: Src, c: Src];
            "sured"        _          RmwNoDef Data     Seq            "textures and surfaces are not modelled yet"
                => Sured { access: one(SurfAccess), op: one(SuredOp), geom: one(TexGeom), ctype: ty(U32 U64 S32 S64 B32 B64), clamp: one(SurfClamp) }
                [a: Src, c: Src];
            "suq"          _          Def      Data     Seq            "textures and surfaces are not modelled yet"
                => Suq { query: one(SuqQuery), ty: ty(B32) }
                [d: Dst, a: Src];
            // Asynchronous copies, matrices and tensors.
            // PTX ISA 9.7.9.25 (the syntax lines in `insn/acopy.rs`): `cp`
            // is `cp.reduce.async.bulk{.tensor}`; `cp.async` (an instruction
            // `cp` whose first modifier is `.async`) the copies, their groups,
            // `cp.async.mbarrier.arrive` and the bulk and tensor copies. Which
            // form an instruction is, is `Insn::copy_kind`; its operands differ
            // by form (the checker's `rules/acopy.rs` counts and types them).
            "cp"           _          RmwNoDef Data     Seq            "sm_100's tensor copy modes .tile::gather4, .tile::scatter4 and .im2col::w are not modelled yet (cp.async, cp.async.bulk, cp.reduce.async.bulk and the tile- and im2col-mode cp.async.bulk.tensor and cp.reduce.async.bulk.tensor are typed rows)"
                => Cp { reduce: req(".reduce"), is_async: req(".async"), bulk: req(".bulk"), tensor: flag(".tensor"), dim: opt(TensorDim), spaces: pair(CopySpace), mode: opt(TensorLoadMode), wide: opt(CopyMode100),
                        completion: opt(CopyCompletion), op: opt(AtomOp), hint: flag(".L2::cache_hint"), noftz: flag(".noftz"), ty: oty(B16 B32 B64 U16 U32 U64 S16 S32 S64 F16 F16x2 Bf16 Bf16x2 F32 F64) }
                [ops: PerOperation];
            "cp.async"     _          RmwNoDef Data     Seq            Typed
                => CpAsync { is_async: req(".async"), bulk: flag(".bulk"), tensor: flag(".tensor"), bulk_prefetch: flag(".prefetch"), group: opt(AsyncGroup), read: flag(".read"), mbar: flag(".mbarrier"), arrive: flag(".arrive"), noinc: flag(".noinc"),
                             level: opt(CpLevel), dim: opt(TensorDim), l2: flag(".L2"), spaces: pair(CopySpace), mode: opt(TensorLoadMode), wide: opt(CopyMode100), completion: opt(CopyCompletion), multicast: flag(".multicast::cluster"),
                             cta_group: opt(CtaGroup), hint: flag(".L2::cache_hint"), size: opt(PrefetchSize), cp_mask: flag(".cp_mask"), ty: oty(B64) }
                [ops: PerOperation];
            // PTX ISA 9.7.13.15 (the syntax lines in `insn/mbar.rs`): the
            // operation, and `.expect_tx` after `.arrive`, in `op`; which
            // modifier goes with which operation is `Insn::mbarrier`; the
            // gates and the operands the checker's `rules/mbar.rs`.
            "mbarrier"     Mbarrier   Rmw      Data     Seq            Typed
                => Mbarrier { op: pair(MbarrierOp), no_complete: flag(".noComplete"), parity: flag(".parity"), sem: opt(MbarrierSem), scope: opt(MbarrierScope),
                              space: pair(MbarrierSpace), ty: ty(B64) }
                [ops: PerOperation];
            "mma"          _          Def      PerLane  Seq            Typed
                => Mma { sync: req(".sync"), aligned: req(".aligned"), shape: shape, layout: pair(MmaLayout), rnd: opt(MmaRnd), satfinite: flag(".satfinite"),
                         dtype: ty(F16 F32 S32 F64), atype: ty(F16 Bf16 Tf32 S8 U8 F64 E4m3 E5m2), btype: ty(F16 Bf16 Tf32 S8 U8 F64 E4m3 E5m2), ctype: ty(F16 F32 S32 F64) }
                [d: Dst, a: Src, b: Src, c: Src];
            // PTX ISA 9.7.14.4 (the syntax lines in `insn/wmma.rs`): which
            // shape, types and layouts go together is `WmmaForm::misfit`;
            // the operands differ by operation (`rules/wmma.rs` counts them).
            "wmma"         _          Def      Data     Seq            Typed
                => Wmma { op: one(WmmaOp), frag: opt(WmmaFrag), bitop: opt(WmmaBitOp), popc: flag(".popc"), sync: req(".sync"), aligned: flag(".aligned"),
                          layout: pair(MmaLayout), shape: shape, space: opt(WmmaSpace), rnd: opt(MmaRnd), satfinite: flag(".satfinite"),
                          type1: oty(F16 F32 Bf16 Tf32 S8 U8 S32 F64), type2: oty(F16 F32 Bf16 Tf32 S8 U8 S32 F64), type3: oty(F16 F32 Bf16 Tf32 S8 U8 S32 F64),
                          type4: oty(F16 F32 Bf16 Tf32 S8 U8 S32 F64), sub: pair(WmmaSub) }
                [ops: PerOperation];
            "ldmatrix"     _          Load     PerLane  Seq            Typed
                => Ldmatrix { sync: req(".sync"), aligned: req(".aligned"), shape: shape, num: one(MatrixNum), trans: flag(".trans"), space: opt(MatrixSpace), ty: ty(B16 B8) }
                [d: Dst, p: Addr];
            "stmatrix"     _          Store    Data     Seq            Typed
                => Stmatrix { sync: req(".sync"), aligned: req(".aligned"), shape: shape, num: one(MatrixNum), trans: flag(".trans"), space: opt(MatrixSpace), ty: ty(B16 B8) }
                [p: Addr, r: Src];
            "movmatrix"    _          Def      PerLane  Seq            Typed
                => Movmatrix { sync: req(".sync"), aligned: req(".aligned"), shape: shape, trans: flag(".trans"), ty: ty(B16) }
                [d: Dst, a: Src];
            // Several operations under one opcode: the operands depend on
            // the operation, so the roles are left to the rule.
            "wgmma"        _          Use      Data     Seq            Typed
                => Wgmma { op: one(WgmmaOp), sp: flag(".sp"), sync: req(".sync"), aligned: req(".aligned"), shape: shape, satfinite: flag(".satfinite"),
                           dtype: oty(F16 F32 S32), atype: oty(F16 Bf16 Tf32 E4m3 E5m2 S8 U8), btype: oty(F16 Bf16 Tf32 E4m3 E5m2 S8 U8),
                           b1: pair(WgmmaBit), bitop: opt(WgmmaBitOp), popc: flag(".popc") }
                [ops: PerOperation];
            "tcgen05"      _          Use      Data     Seq            "matrix instructions are not modelled yet"
                => Tcgen05 { op: one(Tcgen05Op), sp: flag(".sp"), ws: flag(".ws"), cta_group: opt(CtaGroup), sync: flag(".sync"), aligned: flag(".aligned"), space: opt(Tcgen05Space),
                             shape: opt(Tcgen05Shape), num: opt(Tcgen05Num), pack: opt(Tcgen05Pack), down: flag(".down"), warps: opt(Tcgen05Warps), fmt: pair(Tcgen05Fmt),
                             completion: flag(".mbarrier::arrive::one"), multicast: flag(".multicast::cluster"), kind: opt(Tcgen05Kind), block_scale: flag(".block_scale"),
                             scale_vec: opt(Tcgen05ScaleVec), ashift: flag(".ashift"), collector: opt(Tcgen05Collector), ty: oty(B32 B64) }
                [ops: PerOperation];
            "multimem"     _          Def      Data     Seq            "multimem addresses are not modelled yet"
                => Multimem { op: one(MultimemOp), reduce: flag(".reduce"), is_async: flag(".async"), bulk: flag(".bulk"), sem: opt(MultimemSem), scope: opt(MultimemScope),
                              space: pair(MultimemSpace), group: flag(".bulk_group"), cp_mask: flag(".cp_mask"), redop: opt(MultimemRedOp), noftz: flag(".noftz"),
                              acc: opt(MultimemAcc), vec: opt(MultimemVec), x4: opt(MultimemFp8x4),
                              ty: oty(B32 B64 U32 U64 S32 S64 F16 F16x2 Bf16 Bf16x2 F32 F64 E4m3 E5m2 E4m3x2 E5m2x2) }
                [ops: PerOperation];
            "tensormap"    _          Store    Data     Seq            Typed
                => Tensormap { op: one(TensormapOp), mode: opt(TensormapMode), field: opt(TensormapField), spaces: pair(TensormapSpace), b1024: flag(".b1024"),
                               ty: oty(B32 B64), proxy: flag(".tensormap::generic"), release: flag(".release"), scope: opt(ProxyScope), sync: flag(".sync"), aligned: flag(".aligned") }
                [ops: PerOperation];
            // Scalar video instructions (PTX ISA 9.7.16.1).
            "vabsdiff"     _          Def      Data     Seq            Typed
                => Vabsdiff { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vadd"         _          Def      Data     Seq            Typed
                => Vadd { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vsub"         _          Def      Data     Seq            Typed
                => Vsub { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vmad"         _          Def      Data     Seq            Typed
                => Vmad { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), po: flag(".po"), sat: flag(".sat"), scale: opt(VmadScale) }
                [d: Dst, a: Src, b: Src, c: Src];
            "vmax"         _          Def      Data     Seq            Typed
                => Vmax { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vmin"         _          Def      Data     Seq            Typed
                => Vmin { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vset"         _          Def      Data     Seq            Typed
                => Vset { atype: ty(U32 S32), btype: ty(U32 S32), cmp: one(VideoCmp), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vshl"         _          Def      Data     Seq            Typed
                => Vshl { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32), sat: flag(".sat"), mode: one(ClampMode), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            "vshr"         _          Def      Data     Seq            Typed
                => Vshr { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32), sat: flag(".sat"), mode: one(ClampMode), op2: opt(VideoOp2) }
                [d: Dst, a: Src, b: Src, c: OptSrc];
            // SIMD video instructions (PTX ISA 9.7.16.2): `.add` is the
            // secondary accumulate (else the SIMD merge with `c`).
            "vabsdiff2"    _          Def      Data     Seq            Typed
                => Vabsdiff2 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vadd2"        _          Def      Data     Seq            Typed
                => Vadd2 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vsub2"        _          Def      Data     Seq            Typed
                => Vsub2 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vavrg2"       _          Def      Data     Seq            Typed
                => Vavrg2 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vmax2"        _          Def      Data     Seq            Typed
                => Vmax2 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vmin2"        _          Def      Data     Seq            Typed
                => Vmin2 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vset2"        _          Def      Data     Seq            Typed
                => Vset2 { atype: ty(U32 S32), btype: ty(U32 S32), cmp: one(VideoCmp), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vabsdiff4"    _          Def      Data     Seq            Typed
                => Vabsdiff4 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vadd4"        _          Def      Data     Seq            Typed
                => Vadd4 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vsub4"        _          Def      Data     Seq            Typed
                => Vsub4 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vavrg4"       _          Def      Data     Seq            Typed
                => Vavrg4 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vmax4"        _          Def      Data     Seq            Typed
                => Vmax4 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vmin4"        _          Def      Data     Seq            Typed
                => Vmin4 { dtype: ty(U32 S32), atype: ty(U32 S32), btype: ty(U32 S32), sat: flag(".sat"), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
            "vset4"        _          Def      Data     Seq            Typed
                => Vset4 { atype: ty(U32 S32), btype: ty(U32 S32), cmp: one(VideoCmp), add: flag(".add") }
                [d: Dst, a: Src, b: Src, c: Src];
        }
    };
}

macro_rules! rows {
    ($($op:literal $gate:tt $effect:ident $lanes:ident $flow:ident $engine:tt
        => $v:ident { $($f:ident : $k:ident $(($($ka:tt)*))?),* $(,)? } [$($rn:ident : $rr:ident),* $(,)?];)*) => {
        /// Every opcode ptxsim knows, one row each, in the order of [`for_each_op!`].
        pub const OPS: &[OpInfo] = {
            &[$(OpInfo {
                op: $op,
                gate: $crate::__gate!($gate),
                effect: Effect::$effect,
                lanes: Lanes::$lanes,
                flow: Flow::$flow,
                engine: $crate::__engine!($engine),
                typed: $crate::__typed!($($k)*),
                roles: &[$(OperandRole { name: stringify!($rn), role: Role::$rr }),*],
            },)*]
        };

        /// The row of an opcode (the opcode text alone, as the parser keeps it).
        pub fn lookup(op: &str) -> Option<&'static OpInfo> {
            match op {
                $($op => Some(&OpInfo {
                    op: $op,
                    gate: $crate::__gate!($gate),
                    effect: Effect::$effect,
                    lanes: Lanes::$lanes,
                    flow: Flow::$flow,
                    engine: $crate::__engine!($engine),
                    typed: $crate::__typed!($($k)*),
                    roles: &[$(OperandRole { name: stringify!($rn), role: Role::$rr }),*],
                }),)*
                _ => None,
            }
        }
    };
}

for_each_op!(rows);

/// What a `x|y` destination of an opcode means, if it can have one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairDest {
    /// No `x|y` destination.
    None,
    /// `p|q`: two predicates (`setp`).
    TwoPredicates,
    /// `d|p`: a value and a predicate (`shfl`, `lop3.BoolOp`, `match.all`,
    /// `elect`).
    ValueAndPredicate,
}

impl OpInfo {
    /// The `x|y` destination form of this opcode, from its first operand's role.
    pub fn pair_dest(&self) -> PairDest {
        match self.roles.first().map(|r| r.role) {
            Some(Role::PredPair) => PairDest::TwoPredicates,
            Some(Role::DstPred) => PairDest::ValueAndPredicate,
            _ => PairDest::None,
        }
    }
}

/// The row an instruction whose opcode and first modifier name a typed
/// row of their own takes (`cvt` `.pack` is `cvt.pack`'s, `red` `.async`
/// is `red.async`'s): the parser keeps the opcode alone, and such a row's
/// grammar takes that modifier (a `req` slot). `None` for every other
/// instruction, whose row is its opcode's ([`lookup`]).
pub fn compound_row(i: &ptxsim_syntax::ast::Instruction<'_>) -> Option<&'static OpInfo> {
    // The typed rows whose name is an opcode and its first modifier
    // (`cvt.pack`), found once.
    static COMPOUND: std::sync::OnceLock<Vec<&'static OpInfo>> = std::sync::OnceLock::new();
    let (op, m) = (i.opcode.text, i.modifiers.first()?.text);
    let rows = COMPOUND.get_or_init(|| OPS.iter().filter(|r| r.typed && r.op.contains('.')).collect());
    rows.iter().copied().find(|r| r.op.len() == op.len() + m.len() && r.op.starts_with(op) && r.op.ends_with(m))
}

/// The row of instruction `i`: [`compound_row`]'s, else its opcode's.
pub fn row_of(i: &ptxsim_syntax::ast::Instruction<'_>) -> Option<&'static OpInfo> {
    compound_row(i).or_else(|| lookup(i.opcode.text))
}

/// The control-flow kind of an opcode ([`Flow::Seq`] for one no row knows).
pub fn flow(op: &str) -> Flow {
    lookup(op).map_or(Flow::Seq, |r| r.flow)
}

/// The rows the engine does not run yet: opcode and reason, in table order.
pub fn not_supported_yet() -> impl Iterator<Item = (&'static str, &'static str)> {
    OPS.iter().filter_map(|o| match o.engine {
        Engine::NotYet(why) => Some((o.op, why)),
        Engine::Runs => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_has_one_row_and_lookup_agrees() {
        for (k, o) in OPS.iter().enumerate() {
            assert!(OPS[..k].iter().all(|p| p.op != o.op), "`{}` has two rows", o.op);
            let l = lookup(o.op).map(|l| (l.op, l.gate, l.effect, l.lanes, l.flow, l.engine));
            assert_eq!(l, Some((o.op, o.gate, o.effect, o.lanes, o.flow, o.engine)));
        }
        assert!(lookup("frobnicate").is_none());
    }

    #[test]
    fn control_flow_rows_write_no_register() {
        for o in OPS {
            if matches!(o.flow, Flow::Branch | Flow::IndirectBranch | Flow::Ret | Flow::Exit | Flow::Trap) {
                assert_eq!(o.effect, Effect::Use, "`{}`", o.op);
            }
        }
    }

    #[test]
    fn every_rows_gate_has_its_versions() {
        for o in OPS {
            if let Some(f) = o.gate {
                assert_eq!(gates::FEATURES.iter().filter(|g| g.feature == f).count(), 1, "`{}`: {f:?}", o.op);
            }
        }
    }

    #[test]
    fn reasons_are_given() {
        for (op, why) in not_supported_yet() {
            assert!(why.len() > 8, "`{op}` needs a reason");
        }
    }
}
