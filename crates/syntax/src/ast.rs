//! The PTX abstract syntax tree. Every node carries the [`Span`] of its text.
//!
//! The AST borrows names from the source (`&'a str`), so parsing allocates only
//! for lists. It records what was written, not what it means: opcodes and their
//! modifiers stay strings here, and the checking stage decodes them against its
//! instruction table. Counts written in the source (`%r<N>`, array sizes) are
//! recorded as written; later stages bound them before allocating.

use crate::span::Span;
use smallvec::SmallVec;

/// A parsed module: its items in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct Module<'a> {
    pub items: Vec<Item<'a>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item<'a> {
    Version(Version),
    Target(Target<'a>),
    AddressSize(Spanned<u32>),
    Function(Box<Function<'a>>),
    Var(VarDecl<'a>),
    File(FileDirective<'a>),
    Section(Section<'a>),
    Pragma(Pragma<'a>),
    /// `.alias alias, aliasee;`
    Alias { alias: Name<'a>, aliasee: Name<'a>, span: Span },
}

/// A value with the span it was written at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// An identifier as written, with its span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Name<'a> {
    pub text: &'a str,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub span: Span,
}

/// `.target sm_70, texmode_independent, debug`
#[derive(Clone, Debug, PartialEq)]
pub struct Target<'a> {
    pub targets: Vec<Name<'a>>,
    pub span: Span,
}

/// `.file 1 "a.cu", 1700000000, 1234`
#[derive(Clone, Debug, PartialEq)]
pub struct FileDirective<'a> {
    pub index: u32,
    /// The path, with its quotes.
    pub path: &'a str,
    pub timestamp: Option<u64>,
    pub size: Option<u64>,
    pub span: Span,
}

/// `.pragma "nounroll";` (one or more strings, quotes kept).
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma<'a> {
    pub strings: Vec<&'a str>,
    pub span: Span,
}

/// `.section .debug_info { ... }`: debug data, kept as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Section<'a> {
    pub name: Name<'a>,
    pub entries: Vec<SectionEntry<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SectionEntry<'a> {
    Label(Name<'a>),
    /// `.b8 1, 2, 3` or `.b32 .debug_abbrev` or `.b64 $L__func_begin0`
    Data { ty: Name<'a>, values: Vec<Expr<'a>>, span: Span },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Extern,
    Visible,
    Weak,
    Common,
}

impl Linkage {
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Extern => ".extern",
            Linkage::Visible => ".visible",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

impl FunctionKind {
    /// The directive's spelling: `.entry` or `.func`.
    pub fn as_str(self) -> &'static str {
        match self {
            FunctionKind::Entry => ".entry",
            FunctionKind::Func => ".func",
        }
    }
}

/// The module and function directives (PTX ISA 11) a word after an opcode
/// can be mistaken for: none is a modifier of an instruction, except
/// `.weak`, which is also the memory order of `ld.weak` and `st.weak`.
pub const DIRECTIVES_NOT_MODIFIERS: &[&str] =
    &[".calltargets", ".branchtargets", ".callprototype", ".target", ".version", ".address_size", ".entry", ".func", ".extern", ".visible", ".weak", ".align"];

/// `.entry` or `.func`, with its parameters, directives and (unless it is only
/// declared) its body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<'a> {
    pub linkage: Option<Spanned<Linkage>>,
    pub kind: FunctionKind,
    pub name: Name<'a>,
    /// `.func (.reg .b32 rv) f(...)`: `None` when there is no return list.
    pub returns: Option<Vec<Param<'a>>>,
    /// `None` when the parameter list is omitted entirely (`.func f`).
    pub params: Option<Vec<Param<'a>>>,
    /// Directives between the parameters and the body (`.maxntid`, `.noreturn`, `.pragma`, ...).
    pub directives: Vec<FuncDirective<'a>>,
    /// `None` for a declaration (`.func f(...);`).
    pub body: Option<Block<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FuncDirective<'a> {
    /// `.maxntid 256, 1, 1`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`,
    /// `.explicitcluster`, `.reqnctapercluster`, `.maxclusterrank`, ...
    Perf { name: Name<'a>, values: Vec<Spanned<u64>>, span: Span },
    Pragma(Pragma<'a>),
}

/// The performance-tuning and cluster directives of a function header
/// (PTX ISA 11.4, 11.7), by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfDirective {
    Maxntid,
    Reqntid,
    Minnctapersm,
    Maxnctapersm,
    Maxnreg,
    Noreturn,
    Explicitcluster,
    Reqnctapercluster,
    Maxclusterrank,
    Blocksareclusters,
    AbiPreserve,
    AbiPreserveControl,
}

impl PerfDirective {
    pub const ALL: &'static [(PerfDirective, &'static str)] = &[
        (PerfDirective::Maxntid, ".maxntid"),
        (PerfDirective::Reqntid, ".reqntid"),
        (PerfDirective::Minnctapersm, ".minnctapersm"),
        (PerfDirective::Maxnctapersm, ".maxnctapersm"),
        (PerfDirective::Maxnreg, ".maxnreg"),
        (PerfDirective::Noreturn, ".noreturn"),
        (PerfDirective::Explicitcluster, ".explicitcluster"),
        (PerfDirective::Reqnctapercluster, ".reqnctapercluster"),
        (PerfDirective::Maxclusterrank, ".maxclusterrank"),
        (PerfDirective::Blocksareclusters, ".blocksareclusters"),
        (PerfDirective::AbiPreserve, ".abi_preserve"),
        (PerfDirective::AbiPreserveControl, ".abi_preserve_control"),
    ];

    pub fn from_str(s: &str) -> Option<PerfDirective> {
        Self::ALL.iter().find(|(_, t)| *t == s).map(|(d, _)| *d)
    }

    pub fn as_str(self) -> &'static str {
        Self::ALL.iter().find(|(d, _)| *d == self).map(|(_, t)| *t).unwrap_or("")
    }
}

/// A formal parameter or return value: `.param .align 8 .b8 p[16]`,
/// `.param .u64 .ptr .global .align 16 p`, `.reg .b32 r`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param<'a> {
    pub space: Spanned<StateSpace>,
    pub align: Option<Spanned<u64>>,
    pub vector: Option<Spanned<u8>>,
    pub ty: Spanned<Type<'a>>,
    /// `.ptr .global .align 16`: the pointee's space and alignment.
    pub ptr: Option<PtrAttr>,
    /// The parameter's name; `_` in a `.callprototype`.
    pub name: Name<'a>,
    pub dims: Vec<Option<Spanned<u64>>>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: Option<u64>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    Tex,
}

impl StateSpace {
    pub fn from_str(s: &str) -> Option<StateSpace> {
        Some(match s {
            ".reg" => StateSpace::Reg,
            ".sreg" => StateSpace::Sreg,
            ".const" => StateSpace::Const,
            ".global" => StateSpace::Global,
            ".local" => StateSpace::Local,
            ".param" => StateSpace::Param,
            ".shared" => StateSpace::Shared,
            ".tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::Sreg => ".sreg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::Shared => ".shared",
            StateSpace::Tex => ".tex",
        }
    }
}

/// A type keyword as written (`.u32`, `.f16x2`, `.pred`, `.texref`, ...).
///
/// The parser accepts the fundamental, packed and opaque types the PTX ISA
/// defines; [`Type::Other`] never comes out of the parser, but lets tools build
/// ASTs for types this crate does not list yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type<'a> {
    Scalar(ScalarType),
    Other(&'a str),
}

macro_rules! scalar_types {
    ($($variant:ident => $text:literal, $bits:expr;)*) => {
        /// The PTX fundamental, packed and opaque types.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ScalarType { $($variant,)* }

        impl ScalarType {
            pub const ALL: &'static [ScalarType] = &[$(ScalarType::$variant,)*];

            pub fn from_str(s: &str) -> Option<ScalarType> {
                match s { $($text => Some(ScalarType::$variant),)* _ => None }
            }

            pub fn as_str(self) -> &'static str {
                match self { $(ScalarType::$variant => $text,)* }
            }

            /// Width in bits (0 for `.pred` and opaque types, whose size is not data).
            pub fn bits(self) -> u32 {
                match self { $(ScalarType::$variant => $bits,)* }
            }
        }
    };
}

scalar_types! {
    B8 => ".b8", 8; B16 => ".b16", 16; B32 => ".b32", 32; B64 => ".b64", 64; B128 => ".b128", 128;
    U8 => ".u8", 8; U16 => ".u16", 16; U32 => ".u32", 32; U64 => ".u64", 64;
    S8 => ".s8", 8; S16 => ".s16", 16; S32 => ".s32", 32; S64 => ".s64", 64;
    F16 => ".f16", 16; F16x2 => ".f16x2", 32; Bf16 => ".bf16", 16; Bf16x2 => ".bf16x2", 32;
    F32 => ".f32", 32; F64 => ".f64", 64; Tf32 => ".tf32", 32;
    E4m3 => ".e4m3", 8; E5m2 => ".e5m2", 8; E4m3x2 => ".e4m3x2", 16; E5m2x2 => ".e5m2x2", 16;
    Pred => ".pred", 0;
    Texref => ".texref", 0; Samplerref => ".samplerref", 0; Surfref => ".surfref", 0;
}

impl<'a> Type<'a> {
    pub fn as_str(&self) -> &'a str {
        match self {
            Type::Scalar(s) => s.as_str(),
            Type::Other(s) => s,
        }
    }

    pub fn scalar(&self) -> Option<ScalarType> {
        match self {
            Type::Scalar(s) => Some(*s),
            Type::Other(_) => None,
        }
    }
}

/// A variable declaration: `.reg .b32 %r<10>;`, `.shared .align 4 .b8 buf[256];`,
/// `.global .u32 jmptbl[3] = { foo, bar, baz };`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl<'a> {
    pub linkage: Option<Spanned<Linkage>>,
    pub space: Spanned<StateSpace>,
    /// Other attributes as written, e.g. `.attribute(.managed)` is kept as its name `.attribute`
    /// with arguments; `.ptr` is not valid here.
    pub attributes: Vec<Name<'a>>,
    pub align: Option<Spanned<u64>>,
    pub vector: Option<Spanned<u8>>,
    pub ty: Spanned<Type<'a>>,
    pub declarators: Vec<Declarator<'a>>,
    pub span: Span,
}

/// One name in a declaration, with its `<N>` count, array dimensions and initialiser.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator<'a> {
    pub name: Name<'a>,
    /// `%r<100>` declares `%r0` .. `%r99`.
    pub count: Option<Spanned<u64>>,
    /// `[4][8]`; `None` for `[]` (size taken from the initialiser, or `extern`).
    pub dims: Vec<Option<Spanned<u64>>>,
    pub init: Option<Init<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Init<'a> {
    Expr(Expr<'a>),
    List(Vec<Init<'a>>, Span),
}

/// Constant expressions, as in initialisers, section data and address offsets.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr<'a> {
    Int(IntLit, Span),
    Float(FloatLit, Span),
    /// A symbol: a variable, a function (in jump tables), a label (in sections).
    Name(Name<'a>),
    /// `generic(var)`: the generic address of a variable.
    Generic(Name<'a>, Span),
    Unary(UnOp, Box<Expr<'a>>, Span),
    Binary(BinOp, Box<Expr<'a>>, Box<Expr<'a>>, Span),
    /// `c ? a : b`, the conditional operator.
    Cond(Box<Expr<'a>>, Box<Expr<'a>>, Box<Expr<'a>>, Span),
    /// `0xFF00(expr)`, the mask operator of initialisers (PTX ISA 5.4.4,
    /// 7.1): one byte of an address, the mask `0xFF << 8k` naming byte k.
    Mask(u64, Box<Expr<'a>>, Span),
}

impl<'a> Expr<'a> {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(_, s) | Expr::Float(_, s) | Expr::Generic(_, s) => *s,
            Expr::Name(n) => n.span,
            Expr::Unary(_, _, s) | Expr::Binary(_, _, _, s) | Expr::Cond(_, _, _, s) | Expr::Mask(_, _, s) => *s,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
    /// `(.s64)`: reads the operand as signed.
    CastS64,
    /// `(.u64)`: reads the operand as unsigned.
    CastU64,
}

impl UnOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
            UnOp::CastS64 => "(.s64)",
            UnOp::CastU64 => "(.u64)",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    /// `&&`
    LAnd,
    /// `||`
    LOr,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Xor => "^",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::LAnd => "&&",
            BinOp::LOr => "||",
        }
    }

    /// Binding strength, as in C: `*` `/` `%` bind tightest (10), `||` loosest
    /// (1); the conditional operator `?:` is below them all (0).
    pub fn prec(self) -> u8 {
        match self {
            BinOp::LOr => 1,
            BinOp::LAnd => 2,
            BinOp::Or => 3,
            BinOp::Xor => 4,
            BinOp::And => 5,
            BinOp::Eq | BinOp::Ne => 6,
            BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge => 7,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
        }
    }
}

/// An integer literal. PTX integer literals are 64-bit; a `U` suffix makes one
/// unsigned, and so does a value too large for a signed 64-bit integer
/// (PTX ISA 4.5.5: literals are signed unless unsigned is needed to prevent
/// overflow).
/// A negative literal `-5` is stored in two's complement with `unsigned == false`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntLit {
    pub value: u64,
    pub unsigned: bool,
}

/// A floating-point literal, as exact bits or as a decimal value.
#[derive(Clone, Copy, Debug)]
pub enum FloatLit {
    /// `0fXXXXXXXX`
    F32Bits(u32),
    /// `0dXXXXXXXXXXXXXXXX`
    F64Bits(u64),
    /// `1.5`, `1e-3` (a double-precision value).
    Decimal(f64),
}

impl PartialEq for FloatLit {
    /// Bitwise equality, so that NaN payloads and signed zeros compare exactly.
    fn eq(&self, other: &FloatLit) -> bool {
        match (self, other) {
            (FloatLit::F32Bits(a), FloatLit::F32Bits(b)) => a == b,
            (FloatLit::F64Bits(a), FloatLit::F64Bits(b)) => a == b,
            (FloatLit::Decimal(a), FloatLit::Decimal(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl FloatLit {
    pub fn as_f64(self) -> f64 {
        match self {
            FloatLit::F32Bits(b) => f32::from_bits(b) as f64,
            FloatLit::F64Bits(b) => f64::from_bits(b),
            FloatLit::Decimal(d) => d,
        }
    }
}

/// `{ ... }`: a function body or a nested scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Block<'a> {
    pub stmts: Vec<Statement<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement<'a> {
    Label(Name<'a>),
    Instr(Instruction<'a>),
    Var(VarDecl<'a>),
    Block(Block<'a>),
    /// `ts: .branchtargets L1, L2, L3;`
    BranchTargets { label: Name<'a>, targets: Vec<Name<'a>>, span: Span },
    /// `Ftgt: .calltargets foo, bar, baz;`
    CallTargets { label: Name<'a>, targets: Vec<Name<'a>>, span: Span },
    /// `Fproto: .callprototype (.param .b32 _) _ (.param .b32 _);`
    CallPrototype {
        label: Name<'a>,
        returns: Option<Vec<Param<'a>>>,
        params: Vec<Param<'a>>,
        noreturn: bool,
        span: Span,
    },
    Pragma(Pragma<'a>),
    /// `.loc 1 12 5` with optional `, function_name L, inlined_at 1 2 3`.
    Loc(Loc<'a>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Loc<'a> {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    /// `function_name $L__info_string0` / `inlined_at 1 12 3`: keyword then operands.
    pub attrs: Vec<(Name<'a>, Vec<Expr<'a>>)>,
    pub span: Span,
}

/// `@!p opcode.mod1.mod2 operands;`
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction<'a> {
    pub guard: Option<Guard<'a>>,
    pub opcode: Name<'a>,
    /// The dotted modifiers in order, each with its dot (`.eq`, `.f32`).
    pub modifiers: SmallVec<[Name<'a>; 2]>,
    pub operands: SmallVec<[Operand<'a>; 3]>,
    pub span: Span,
}

impl<'a> Instruction<'a> {
    /// Whether a modifier is present (with its dot: `.uni`).
    pub fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x.text == m)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guard<'a> {
    pub negated: bool,
    pub pred: Name<'a>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    pub kind: OperandKind<'a>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind<'a> {
    /// A register, variable, label, function or special register, with an optional
    /// vector component (`%tid.x`, `%v.y`).
    Name { name: Name<'a>, component: Option<Name<'a>> },
    /// `!p`: a negated predicate source.
    Not(Name<'a>),
    /// `-a`, `-a.h1`: a negated register source (`vmad`'s operand
    /// negation), with its optional selector. Only a `%`-name after `-`
    /// reads as one; `-1`, `-(x)` are constant expressions.
    Neg { name: Name<'a>, component: Option<Name<'a>> },
    /// `p|q`: the two predicate destinations of `setp`/`set`-like instructions.
    PredPair(Name<'a>, Name<'a>),
    /// `_`: the sink.
    Sink,
    Int(IntLit),
    Float(FloatLit),
    /// A constant expression that is more than a literal, e.g. `sym+4` or `-(1)`.
    Expr(Expr<'a>),
    /// `{a, b, c, d}`
    Vector(Vec<Operand<'a>>),
    /// `{a, b, c, d}|p`: a vector destination and a predicate destination
    /// (a texture fetch's residency, PTX ISA 9.7.10.3 `tex`, 9.7.10.4 `tld4`).
    VectorPred(Vec<Operand<'a>>, Name<'a>),
    /// `[base+offset]`
    Address(Address<'a>),
    /// `(a, b)`: a `call` argument or return list.
    List(Vec<Operand<'a>>),
    /// `[tex, sampler, {x, y}]`: a bracketed operand list (texture and surface
    /// instructions), anything in brackets that is not a single address.
    Bracket(Vec<Operand<'a>>),
}

/// `[reg]`, `[reg+imm]`, `[sym+imm]`, `[imm]`: the offset is a constant
/// expression folded to 64 bits; the base is a name, or absent for `[imm]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Address<'a> {
    pub base: Option<Name<'a>>,
    pub offset: i64,
}
