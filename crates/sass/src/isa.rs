//! The sm_50 machine form: instructions, functions and the program.
//!
//! Control flow is modelled instruction by instruction after the SPA 5.0
//! opcode pages (the seed for BRA/BRX/JMP/JMX, the fact sheet for the rest).
//! Data flow is not re-implemented: a [`MOp::Data`] carries the index of a
//! decoded PTX instruction of `ptxsim_exec::program::Function::code`, run by
//! the engine's own data path. A handful of machine-only data instructions
//! exist because lowering or hand-written tests need them and PTX has no
//! equivalent: the CC writers (`IADD.CC`, `IADD.X.CC`, `FADD.CC`,
//! `ISET.BM.CC`, `FSET.BM.CC`), `MOV32I`, and `SHL`/`LDC` to read a jump
//! table from constant bank 2. They write machine scratch registers `R0..R255`,
//! which are separate from the PTX registers of the data path.
//!
//! Branch targets are stored as they are encoded: relative ones (BRA, BRX,
//! SSY, PBK, PCNT, PRET, PEXIT, CAL) as a byte offset from the instruction's
//! address + 8, absolute ones (JMP, JMX, JCAL) as a byte address. The layout
//! rules that turn them into instruction indices live in `layout`.

use crate::cc::CcTest;

/// Widest signed 24-bit offset (BRA/BRX/SSY/... immediates).
pub const S24_MIN: i64 = -(1 << 23);
pub const S24_MAX: i64 = (1 << 23) - 1;

/// A guard predicate: a PTX predicate register of the data path (`%p1`), or
/// `PT` (always true, printed as nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate's PTX name, as printed.
    pub name: String,
    /// Its slot in the PTX function's predicate file.
    pub slot: u32,
    pub neg: bool,
}

/// A machine scratch register `R<n>`.
pub type MReg = u8;

/// A source operand of a machine-only data instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MSrc {
    R(MReg),
    Imm(u32),
}

/// A register operand that may be a PTX data-path register (read only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyReg {
    /// A machine scratch register.
    R(MReg),
    /// A 32-bit PTX register of the current frame, by name and slot.
    Ptx { name: String, slot: u32 },
}

/// Integer comparisons of `ISET`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ICmp {
    Lt,
    Eq,
    Le,
    Gt,
    Ne,
    Ge,
}

impl ICmp {
    pub const ALL: [ICmp; 6] = [ICmp::Lt, ICmp::Eq, ICmp::Le, ICmp::Gt, ICmp::Ne, ICmp::Ge];
    pub fn name(self) -> &'static str {
        match self {
            ICmp::Lt => "LT",
            ICmp::Eq => "EQ",
            ICmp::Le => "LE",
            ICmp::Gt => "GT",
            ICmp::Ne => "NE",
            ICmp::Ge => "GE",
        }
    }
    pub fn eval<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            ICmp::Lt => a < b,
            ICmp::Eq => a == b,
            ICmp::Le => a <= b,
            ICmp::Gt => a > b,
            ICmp::Ne => a != b,
            ICmp::Ge => a >= b,
        }
    }
}

/// Where a BRA or JMP takes its target from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// The immediate: S24 relative offset (BRA) or U32 absolute address (JMP).
    Imm(i64),
    /// `c[bank][offset]`: an S32 relative offset (BRA) or U32 address (JMP).
    Const { bank: u8, offset: u16 },
}

/// Why a lowered instruction exists, for the text's comments and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Written by hand or parsed from text.
    None,
    /// Lowered from the PTX instruction at this index of the function.
    Ptx(u32),
}

/// The PTX call an ABI-level CAL/BRX performs: the index of the decoded
/// `call` instruction (its arguments, returns and callee resolution) and its
/// text, printed in braces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallBinding {
    pub pc: u32,
    pub text: String,
}

/// A machine operation.
#[derive(Clone, Debug, PartialEq)]
pub enum MOp {
    /// A data-flow instruction: index into the PTX function's decoded code.
    /// `text` is its PTX source (guard included), printed in braces.
    Data { pc: u32, text: String },
    Nop,
    // Push-only (not predicated): S24 offset from address + 8.
    Ssy { off: i64 },
    Pbk { off: i64 },
    Pcnt { off: i64 },
    /// `.NOINC`-less PRET counts against the ApiCallLimit.
    Pret { off: i64 },
    Pexit { off: i64 },
    // Popping (predicated, with CC test).
    Sync { cc: CcTest },
    Brk { cc: CcTest },
    Cont { cc: CcTest },
    Ret { cc: CcTest },
    Exit { cc: CcTest },
    // Branches and jumps.
    Bra { cc: CcTest, u: bool, lmt: bool, dest: Dest },
    /// `BRX Ra + imm`; with `call`, an indirect PTX call whose per-lane
    /// function pointer names the callee (see `exec`).
    Brx { cc: CcTest, lmt: bool, ra: AnyReg, imm: i64, call: Option<CallBinding> },
    Jmp { cc: CcTest, u: bool, lmt: bool, dest: Dest },
    Jmx { cc: CcTest, lmt: bool, ra: AnyReg, imm: i64 },
    /// S24 relative call; with `call`, it enters a PTX function with the
    /// engine's argument passing.
    Cal { off: i64, call: Option<CallBinding> },
    Jcal { addr: u32, call: Option<CallBinding> },
    // Machine-only data instructions.
    Mov32i { d: MReg, imm: u32 },
    Iadd { x: bool, cc: bool, d: MReg, a: MReg, b: MSrc },
    Fadd { cc: bool, d: MReg, a: MReg, b: MSrc },
    Iset { cmp: ICmp, unsigned: bool, cc: bool, d: MReg, a: MReg, b: MSrc },
    /// `FSET.<test>.BM`: a float compare whose test is one of CC tests 1-14
    /// (ordered LT..NUM, unordered NAN..GEU).
    Fset { test: CcTest, cc: bool, d: MReg, a: MReg, b: MSrc },
    Shl { d: MReg, a: AnyReg, sh: u8 },
    /// `LDC Rd, c[bank][Ra + imm]`; `line` names the PTX `brx.idx` whose
    /// table it reads (a read outside the table is that instruction's range trap).
    Ldc { d: MReg, bank: u8, a: AnyReg, imm: i32 },
}

impl MOp {
    /// Whether the opcode may carry a guard (push-only ones may not).
    pub fn predicable(&self) -> bool {
        !matches!(self, MOp::Ssy { .. } | MOp::Pbk { .. } | MOp::Pcnt { .. } | MOp::Pret { .. } | MOp::Pexit { .. } | MOp::Data { .. })
    }
}

/// One machine instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct MInstr {
    pub guard: Option<Guard>,
    pub op: MOp,
    pub origin: Origin,
    /// The PTX source line it came from (0: none).
    pub line: u32,
}

impl MInstr {
    pub fn new(op: MOp) -> MInstr {
        MInstr { guard: None, op, origin: Origin::None, line: 0 }
    }
}

/// One function of the machine program.
#[derive(Clone, Debug, PartialEq)]
pub struct MFunction {
    pub name: String,
    pub is_kernel: bool,
    /// Index of the PTX function in the engine's `Program::functions`.
    pub ptx: u32,
    /// Index of its first instruction in [`MProgram::code`] (a multiple of 3,
    /// so it starts a bundle).
    pub start: usize,
    /// Number of instructions, padding included (a multiple of 3).
    pub len: usize,
    /// The PTX text of its header (linkage, kind, name, parameters, directives).
    pub ptx_header: Vec<String>,
    /// The PTX declarations of its body (`.reg`, `.local`, `.shared`, ...,
    /// `.calltargets` and `.callprototype` lists, and the braces of nested
    /// blocks) that its data instructions use, each with the function-relative
    /// machine index it precedes.
    pub ptx_decls: Vec<(usize, String)>,
}

/// A whole machine program: every function laid out in one address space,
/// three instructions per 32-byte bundle; and constant bank 2 (jump tables).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MProgram {
    pub functions: Vec<MFunction>,
    pub code: Vec<MInstr>,
    /// Control word of each bundle (`code.len() / 3` of them).
    pub control: Vec<u64>,
    /// Constant bank 2, as bytes.
    pub bank2: Vec<u8>,
    /// Label names at instruction indices, for printing.
    pub labels: Vec<(usize, String)>,
    /// The jump tables in bank 2, each with the BRX that reads it.
    pub tables: Vec<TableRef>,
    /// The PTX module items other than function bodies (`.version`, `.target`,
    /// variables, function declarations), one line each.
    pub ptx_module: Vec<String>,
}

impl MProgram {
    /// The function holding instruction `i`.
    pub fn function_at(&self, i: usize) -> Option<usize> {
        self.functions.iter().position(|f| i >= f.start && i < f.start + f.len)
    }

    pub fn function_by_name(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }
}

/// A `brx.idx` jump table: `len` 4-byte absolute addresses at `offset` of
/// bank 2, read by the `LDC` before the BRX at index `brx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableRef {
    pub brx: usize,
    pub offset: u32,
    pub len: u32,
}
