//! The one description of every PTX instruction ptxsim knows.
//!
//! [`for_each_op!`] holds one row per opcode: its operand form (which
//! checker rule types it), the instruction types it allows, the feature gate
//! it needs whatever its modifiers ([`gates`] holds every gate's minimum
//! PTX version and target), what it writes and reads (registers and
//! memory), how its result relates to divergence, its control-flow kind, and
//! what the engine does with it (the decoder family that reads it, or "not
//! supported yet" with the reason users see). Everything that used to keep
//! its own list of opcode strings is derived from these rows: the checker's
//! instruction table ([`OPS`], [`lookup`]), the engine decoder's routing and
//! its list of what is not supported yet, the analysis' definitions and uses
//! and its control-flow terminators.
//!
//! [`modifiers`] decodes an instruction's modifier strings once
//! ([`Decoded`], [`CmpOp`]) for the checker and the engine's decoder.
//!
//! Invariant: adding an instruction is one row here, one semantic function
//! (`ptxsim-exec`'s `alu`), and its tests. A modifier-level gate or a
//! modifier that changes the decoder family (`add.cc`, `.f16x2`) stays with
//! the rule or decoder that reads that modifier; a row holds what is true of
//! the opcode whatever its modifiers.
//!
//! The shape follows the opcode lists of bytecode interpreters (Pulley's
//! `for_each_op!`, wasmi's instruction list): the list is a macro that
//! hands every row to a macro of the caller's choice, so other derived
//! forms can be generated from the same text.

pub mod gates;
pub mod modifiers;

pub use gates::{Feature, PtxVersion};
pub use modifiers::{decode, CmpOp, Decoded};

/// The operand form of an opcode: which checker rule types its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Bra,
    Brx,
    Call,
    Ret,
    Exit,
    Setp,
    Selp,
    Nanosleep,
    Ld,
    St,
    Mov,
    Cvt,
    Cvta,
    /// `d, a, b` of the instruction type (`min`/`max` may take more sources).
    Binary,
    /// `d, a`.
    Unary,
    /// `d, a, b, c`.
    Ternary,
    /// `d, a, b` with `b` a 32-bit shift amount.
    Shift,
    /// `d, a` with `d` a `.u32` count (`popc`, `clz`, `bfind`).
    Count,
    /// `prmt.b32{.mode} d, a, b, c`.
    Prmt,
    /// `bfe.type d, a, b, c` with `b`, `c` 32-bit positions.
    Bfe,
    /// `bfi.type f, a, b, c, d` with `c`, `d` 32-bit positions.
    Bfi,
    /// `atom`.
    Atom,
    /// `red`.
    Red,
    /// `shfl`.
    Shfl,
    /// `vote`.
    Vote,
    /// `bar`, `barrier`.
    Bar,
    /// `testp`, `dp4a`, `dp2a`, `bmsk`, `szext`, `fns`, `prefetch`,
    /// `prefetchu`, `applypriority`, `discard`, `createpolicy`.
    Scalar,
    /// `match.sync`, `redux.sync`, `elect.sync`.
    Collective,
    /// `lop3.b32 d, a, b, c, immLut` and `lop3.BoolOp.b32 d|p, a, b, c, immLut, q`.
    Lop3,
    /// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`.
    Shf,
    /// `set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c}`.
    Set,
    /// `slct{.ftz}.dtype.ctype d, a, b, c`.
    Slct,
    /// `activemask.b32 d`.
    Activemask,
    /// No operands, no modifiers (`trap`).
    Bare,
    /// `griddepcontrol.{wait,launch_dependents}`: one of the two modes, no
    /// type, no operands.
    GridDep,
    /// `cp.async` and its groups, `ldmatrix`, `stmatrix`, `movmatrix`,
    /// `mma`, `mbarrier` (the checker's `rules/tensor.rs`).
    Tensor,
    /// `isspacep.space p, a`, `mapa{.shared::cluster}.type d, a, b`,
    /// `getctarank{.shared::cluster}.type d, a`.
    Space,
    /// Known opcode; operands are resolved but not typed.
    Loose,
}

/// Type groups an opcode allows (a bit set).
pub mod ts {
    /// `.u16`..`.u64`, `.s16`..`.s64`
    pub const I: u32 = 1;
    /// `.s16`..`.s64`
    pub const S: u32 = 2;
    /// `.b16`..`.b64`
    pub const B: u32 = 4;
    /// `.f32`, `.f64`
    pub const F: u32 = 8;
    /// `.f16`, `.f16x2`, `.bf16`, `.bf16x2`
    pub const H: u32 = 16;
    /// `.pred`
    pub const P: u32 = 32;
    /// `.b32`, `.b64`
    pub const B3264: u32 = 64;
    /// `.u32`, `.u64`, `.s32`, `.s64`
    pub const I3264: u32 = 128;
    /// `.b128`
    pub const B128: u32 = 256;
    /// `.b32` only
    pub const B32: u32 = 512;
    /// `.u32`, `.s32`
    pub const I32: u32 = 1024;
    /// anything (not checked)
    pub const ANY: u32 = u32::MAX;
}

/// Whether a type is in a set of type groups ([`ts`]).
pub fn allows(set: u32, t: ptxsim_syntax::ast::ScalarType) -> bool {
    use ptxsim_syntax::ast::ScalarType::*;
    use ts::{B, B3264, F, H, I, I3264, P, S};
    let g = match t {
        U16 | U32 | U64 => I,
        S16 | S32 | S64 => I | S,
        B16 | B64 | B32 => B | if matches!(t, B32 | B64) { B3264 } else { 0 } | if t == B32 { ts::B32 } else { 0 },
        F32 | F64 => F,
        F16 | F16x2 | Bf16 | Bf16x2 => H,
        Pred => P,
        B128 => ts::B128,
        _ => 0,
    };
    let g = g | if matches!(t, U32 | U64 | S32 | S64) { I3264 } else { 0 } | if matches!(t, U32 | S32) { ts::I32 } else { 0 };
    set & g != 0
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

/// The engine decoder's family for an opcode (its `Route`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Mov,
    Binary,
    Unary,
    Ternary,
    SetpLike,
    SelectConvert,
    Memory,
    Control,
    WarpSync,
    Bits,
    Fence,
    CarryChain,
    Lane3,
    Testp,
    WarpCollective,
    Hint,
    CreatePolicy,
    /// `cp.async` and its groups (`cp` with `.async`: the decoder routes
    /// the modifier, as it does `add.cc`).
    AsyncCopy,
    /// `ldmatrix`, `stmatrix`, `movmatrix`.
    Matrix,
    /// `mma.sync.aligned`.
    Mma,
    /// `mbarrier.*`.
    Mbarrier,
    /// `isspacep`, `mapa`, `getctarank`: address windows and cluster ranks.
    Space,
}

/// What the engine does with an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// A decoder family reads it (which may still refuse some of its forms,
    /// naming them).
    Runs(Family),
    /// Not supported yet, for the reason given (published with the list).
    NotYet(&'static str),
}

/// One row: everything ptxsim knows about an opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    /// The opcode as written (a few rows name a form, `mul.wide`, so that
    /// the list of what is not supported yet can name it).
    pub op: &'static str,
    pub form: Form,
    /// Allowed instruction types (groups from [`ts`]).
    pub types: u32,
    /// The feature gate the opcode needs whatever its modifiers (its
    /// minimum version and target are its row of [`gates::FEATURES`]).
    pub gate: Option<Feature>,
    pub effect: Effect,
    pub lanes: Lanes,
    pub flow: Flow,
    pub engine: Engine,
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
    ($f:ident) => {
        $crate::Engine::Runs($crate::Family::$f)
    };
}

/// Calls `$m!` with every row:
/// `"opcode" Form (types) gate Effect Lanes Flow engine;` where `gate` is
/// `_` or a [`Feature`], the types are an expression over [`ts`], and
/// `engine` is a [`Family`] or a string: the reason it is not supported yet.
#[macro_export]
macro_rules! for_each_op {
    ($m:ident) => {
        $m! {
            // Control flow.
            "bra"        Bra        (0)               _          Use      Data     Branch         Control;
            "brx"        Brx        (0)               BrxIdx     Use      Data     IndirectBranch Control;
            "call"       Call       (0)               _          Call     Data     Call           Control;
            "ret"        Ret        (0)               _          Use      Data     Ret            Control;
            "exit"       Exit       (0)               _          Use      Data     Exit           Control;
            "trap"       Bare       (0)               _          Use      Data     Trap           Control;
            "brkpt"      Loose      (ANY)             _          Use      Data     Seq            "a breakpoint needs a debugger";
            // Comparison and selection.
            "setp"       Setp       (0)               _          Def      Data     Seq            SetpLike;
            "set"        Set        (0)               _          Def      Data     Seq            SetpLike;
            "selp"       Selp       (0)               _          Def      Data     Seq            SelectConvert;
            "slct"       Slct       (0)               _          Def      Data     Seq            SelectConvert;
            // Memory.
            "ld"         Ld         (ANY)             _          Load     Data     Seq            Memory;
            "ldu"        Ld         (ANY)             _          Load     Data     Seq            Memory;
            "st"         St         (ANY)             _          Store    Data     Seq            Memory;
            "atom"       Atom       (ANY)             _          Rmw      Atomic   Seq            Memory;
            "red"        Red        (ANY)             _          RmwNoDef Data     Seq            Memory;
            "st.async"   Loose      (ANY)             _          Store    Data     Seq            Memory;
            "red.async"  Loose      (ANY)             _          RmwNoDef Data     Seq            Memory;
            "membar"     Loose      (ANY)             _          Use      Data     Seq            Fence;
            "fence"      Loose      (ANY)             _          Use      Data     Seq            Fence;
            "prefetch"   Scalar     (ANY)             Prefetch   Use      Data     Seq            Hint;
            "prefetchu"  Scalar     (ANY)             Prefetch   Use      Data     Seq            Hint;
            "applypriority" Scalar  (ANY)             CacheEviction Use      Data     Seq            Hint;
            "discard"    Scalar     (ANY)             CacheEviction Use      Data     Seq            Hint;
            "createpolicy" Scalar   (ANY)             CacheEviction Def      Data     Seq            CreatePolicy;
            "isspacep"   Space      (0)               _          Def      Data     Seq            Space;
            "cvta"       Cvta       (I)               _          Def      Data     Seq            SelectConvert;
            "mapa"       Space      (I3264)           _          Def      Data     Seq            Space;
            "getctarank" Space      (I3264)           _          Def      Data     Seq            Space;
            "alloca"     Loose      (ANY)             _          Def      Data     Seq            "stack allocation is not modelled yet";
            "stacksave"  Loose      (ANY)             _          Def      Data     Seq            "stack allocation is not modelled yet";
            "stackrestore" Loose    (ANY)             _          Use      Data     Seq            "stack allocation is not modelled yet";
            // Moves and conversions.
            "mov"        Mov        (I | B | F | H | P | B128) _ Def      Data     Seq            Mov;
            "cvt"        Cvt        (ANY)             _          Def      Data     Seq            SelectConvert;
            "cvt.pack"   Loose      (ANY)             _          Def      Data     Seq            Lane3;
            // Integer and float arithmetic.
            "add"        Binary     (I | F | H)       _          Def      Data     Seq            Binary;
            "sub"        Binary     (I | F | H)       _          Def      Data     Seq            Binary;
            "addc"       Binary     (I)               _          Def      Data     Seq            CarryChain;
            "subc"       Binary     (I)               _          Def      Data     Seq            CarryChain;
            "mul"        Binary     (I | F | H)       _          Def      Data     Seq            Binary;
            "mul.wide"   Loose      (ANY)             _          Def      Data     Seq            Binary;
            "div"        Binary     (I | F)           _          Def      Data     Seq            Binary;
            "rem"        Binary     (I)               _          Def      Data     Seq            Binary;
            "min"        Binary     (I | F | H)       _          Def      Data     Seq            Binary;
            "max"        Binary     (I | F | H)       _          Def      Data     Seq            Binary;
            "mul24"      Binary     (I32)             _          Def      Data     Seq            Bits;
            "copysign"   Binary     (F)               _          Def      Data     Seq            Binary;
            "and"        Binary     (B | P)           _          Def      Data     Seq            Binary;
            "or"         Binary     (B | P)           _          Def      Data     Seq            Binary;
            "xor"        Binary     (B | P)           _          Def      Data     Seq            Binary;
            "mad"        Ternary    (I | F)           _          Def      Data     Seq            Ternary;
            "madc"       Ternary    (I)               _          Def      Data     Seq            CarryChain;
            "fma"        Ternary    (F | H)           _          Def      Data     Seq            Ternary;
            "mad24"      Ternary    (I32)             _          Def      Data     Seq            Bits;
            "sad"        Ternary    (I)               _          Def      Data     Seq            Lane3;
            "not"        Unary      (B | P)           _          Def      Data     Seq            Unary;
            "cnot"       Unary      (B)               _          Def      Data     Seq            Unary;
            "neg"        Unary      (S | F | H)       _          Def      Data     Seq            Unary;
            "abs"        Unary      (S | F | H)       _          Def      Data     Seq            Unary;
            "rcp"        Unary      (F | H)           _          Def      Data     Seq            Unary;
            "sqrt"       Unary      (F | H)           _          Def      Data     Seq            Unary;
            "rsqrt"      Unary      (F | H)           _          Def      Data     Seq            Unary;
            "sin"        Unary      (F | H)           _          Def      Data     Seq            Unary;
            "cos"        Unary      (F | H)           _          Def      Data     Seq            Unary;
            "lg2"        Unary      (F | H)           _          Def      Data     Seq            Unary;
            "ex2"        Unary      (F | H)           _          Def      Data     Seq            Unary;
            "ex2.approx" Loose      (ANY)             _          Def      Data     Seq            Unary;
            "tanh"       Unary      (F | H)           _          Def      Data     Seq            Unary;
            "testp"      Scalar     (ANY)             Testp      Def      Data     Seq            Testp;
            // Bit manipulation.
            "brev"       Unary      (B3264)           _          Def      Data     Seq            Unary;
            "shl"        Shift      (B)               _          Def      Data     Seq            Binary;
            "shr"        Shift      (B | I)           _          Def      Data     Seq            Binary;
            "popc"       Count      (B3264)           _          Def      Data     Seq            Unary;
            "clz"        Count      (B3264)           _          Def      Data     Seq            Unary;
            "bfind"      Count      (I3264)           _          Def      Data     Seq            Unary;
            "prmt"       Prmt       (B32)             _          Def      Data     Seq            Ternary;
            "bfe"        Bfe        (I3264)           _          Def      Data     Seq            Ternary;
            "bfi"        Bfi        (B3264)           _          Def      Data     Seq            Ternary;
            "bmsk"       Scalar     (ANY)             SzextBmsk  Def      Data     Seq            Lane3;
            "szext"      Scalar     (ANY)             SzextBmsk  Def      Data     Seq            Lane3;
            "dp4a"       Scalar     (ANY)             Dp4a       Def      Data     Seq            Lane3;
            "dp2a"       Scalar     (ANY)             Dp4a       Def      Data     Seq            Lane3;
            "fns"        Scalar     (ANY)             Fns        Def      Data     Seq            Lane3;
            "lop3"       Lop3       (B32)             Lop3       Def      Data     Seq            Bits;
            "shf"        Shf        (B32)             Shf        Def      Data     Seq            Bits;
            // Warps, barriers and collectives.
            "shfl"       Shfl       (ANY)             _          Def      PerLane  Seq            WarpSync;
            "vote"       Vote       (ANY)             _          Def      Uniform  Seq            WarpSync;
            "bar"        Bar        (ANY)             _          Barrier  Uniform  Barrier        WarpSync;
            "barrier"    Bar        (ANY)             _          Barrier  Uniform  Barrier        WarpSync;
            "nanosleep"  Nanosleep  (0)               Nanosleep  Use      Data     Seq            WarpSync;
            "activemask" Activemask (B32)             Activemask Def      Uniform  Seq            WarpSync;
            "match"      Collective (ANY)             MatchSync  Def      PerLane  Seq            WarpCollective;
            "redux"      Collective (ANY)             ReduxSync  Def      Uniform  Seq            WarpCollective;
            "elect"      Collective (ANY)             _          Def      PerLane  Seq            WarpCollective;
            "pmevent"    Loose      (ANY)             _          Use      Data     Seq            "performance monitor events are not modelled";
            "griddepcontrol" GridDep (0)              GridDepControl Use  Data     Seq            Hint;
            "setmaxnreg" Loose      (ANY)             _          Use      Data     Seq            "register reallocation is not modelled yet";
            "clusterlaunchcontrol" Loose (ANY)        _          Def      Data     Seq            "cluster launch control is not modelled yet";
            "istypep"    Loose      (ANY)             _          Def      Data     Seq            "textures and surfaces are not modelled yet";
            // Textures and surfaces.
            "tex"        Loose      (ANY)             _          Load     Data     Seq            "textures and surfaces are not modelled yet";
            "tld4"       Loose      (ANY)             _          Load     Data     Seq            "textures and surfaces are not modelled yet";
            "txq"        Loose      (ANY)             _          Def      Data     Seq            "textures and surfaces are not modelled yet";
            "suld"       Loose      (ANY)             _          Load     Data     Seq            "textures and surfaces are not modelled yet";
            "sust"       Loose      (ANY)             _          Store    Data     Seq            "textures and surfaces are not modelled yet";
            "sured"      Loose      (ANY)             _          RmwNoDef Data     Seq            "textures and surfaces are not modelled yet";
            "suq"        Loose      (ANY)             _          Def      Data     Seq            "textures and surfaces are not modelled yet";
            // Asynchronous copies, matrices and tensors.
            "cp"         Tensor     (ANY)             _          RmwNoDef Data     Seq            "tensor bulk copies (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor) are not modelled yet";
            "cp.async"   Tensor     (ANY)             _          RmwNoDef Data     Seq            AsyncCopy;
            "mbarrier"   Tensor     (ANY)             _          Rmw      Data     Seq            Mbarrier;
            "mma"        Tensor     (ANY)             _          Def      PerLane  Seq            Mma;
            "wmma"       Loose      (ANY)             _          Def      Data     Seq            Matrix;
            "ldmatrix"   Tensor     (ANY)             _          Load     PerLane  Seq            Matrix;
            "stmatrix"   Tensor     (ANY)             _          Store    Data     Seq            Matrix;
            "movmatrix"  Tensor     (ANY)             _          Def      PerLane  Seq            Matrix;
            "wgmma"      Loose      (ANY)             _          Use      Data     Seq            "matrix instructions are not modelled yet";
            "tcgen05"    Loose      (ANY)             _          Use      Data     Seq            "matrix instructions are not modelled yet";
            "multimem"   Loose      (ANY)             _          Def      Data     Seq            "multimem addresses are not modelled yet";
            "tensormap"  Loose      (ANY)             _          Store    Data     Seq            "tensor maps are not modelled yet";
            // SIMD video instructions.
            "vabsdiff"   Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vadd"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vsub"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vmad"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vmax"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vmin"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vset"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vshl"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vshr"       Loose      (ANY)             _          Def      Data     Seq            "video instructions are not decoded yet";
            "vabsdiff2"  Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vadd2"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vsub2"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vavrg2"     Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vmax2"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vmin2"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vset2"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vabsdiff4"  Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vadd4"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vsub4"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vavrg4"     Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vmax4"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vmin4"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
            "vset4"      Loose      (ANY)             _          Def      Data     Seq            Lane3;
        }
    };
}

macro_rules! rows {
    ($($op:literal $form:ident ($($types:tt)*) $gate:tt $effect:ident $lanes:ident $flow:ident $engine:tt;)*) => {
        /// Every opcode ptxsim knows, one row each, in the order of [`for_each_op!`].
        pub const OPS: &[OpInfo] = {
            use ts::*;
            &[$(OpInfo {
                op: $op,
                form: Form::$form,
                types: $($types)*,
                gate: $crate::__gate!($gate),
                effect: Effect::$effect,
                lanes: Lanes::$lanes,
                flow: Flow::$flow,
                engine: $crate::__engine!($engine),
            },)*]
        };

        /// The row of an opcode (the opcode text alone, as the parser keeps it).
        pub fn lookup(op: &str) -> Option<&'static OpInfo> {
            use ts::*;
            match op {
                $($op => Some(&OpInfo {
                    op: $op,
                    form: Form::$form,
                    types: $($types)*,
                    gate: $crate::__gate!($gate),
                    effect: Effect::$effect,
                    lanes: Lanes::$lanes,
                    flow: Flow::$flow,
                    engine: $crate::__engine!($engine),
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
    /// The `x|y` destination form of this opcode, from its operand form.
    pub fn pair_dest(&self) -> PairDest {
        match self.form {
            Form::Setp => PairDest::TwoPredicates,
            Form::Shfl | Form::Lop3 | Form::Collective => PairDest::ValueAndPredicate,
            _ => PairDest::None,
        }
    }
}

/// The control-flow kind of an opcode ([`Flow::Seq`] for one no row knows).
pub fn flow(op: &str) -> Flow {
    lookup(op).map_or(Flow::Seq, |r| r.flow)
}

/// The rows the engine does not run yet: opcode and reason, in table order.
pub fn not_supported_yet() -> impl Iterator<Item = (&'static str, &'static str)> {
    OPS.iter().filter_map(|o| match o.engine {
        Engine::NotYet(why) => Some((o.op, why)),
        Engine::Runs(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opcode_has_one_row_and_lookup_agrees() {
        for (k, o) in OPS.iter().enumerate() {
            assert!(OPS[..k].iter().all(|p| p.op != o.op), "`{}` has two rows", o.op);
            let l = lookup(o.op).map(|l| (l.op, l.form, l.types, l.gate, l.effect, l.lanes, l.flow, l.engine));
            assert_eq!(l, Some((o.op, o.form, o.types, o.gate, o.effect, o.lanes, o.flow, o.engine)));
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
