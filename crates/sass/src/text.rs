//! The SASS text form, in nvdisasm's style: one line per 8-byte slot with its
//! address (`/*0008*/`), the control word of each bundle (`.ctrl`), labels
//! (`.L_x_N:`), targets as `` `(.L_x_N) `` or function names, and the PTX line
//! of each instruction as a `// line N` comment.
//!
//! Data-flow instructions are printed as their PTX text (lower-case opcodes);
//! machine instructions in upper case. Guards name PTX predicates (`@!%p1`)
//! because the data path's registers are the PTX ones; `R0..R255` are the
//! machine scratch registers. PTX declarations that the data instructions need
//! are carried in `.ptx` (module items and function headers) and `.decl`
//! (function body declarations) lines. `parse` reads this text back.

use crate::cc::CcTest;
use crate::isa::*;
use crate::layout;
use std::collections::HashMap;
use std::fmt::Write;

/// The absolute byte address an instruction with an immediate target goes to
/// (`None` for register and constant-bank forms, or a target outside the window).
pub fn static_target(_p: &MProgram, i: usize, ins: &MInstr) -> Option<u64> {
    let pc = layout::addr_of(i);
    match &ins.op {
        MOp::Ssy { off } | MOp::Pbk { off } | MOp::Pcnt { off } | MOp::Pret { off } | MOp::Pexit { off } | MOp::Cal { off, .. } => {
            layout::relative(pc, *off, 0).ok()
        }
        MOp::Bra { dest: Dest::Imm(off), .. } => layout::relative(pc, *off, 0).ok(),
        MOp::Jmp { dest: Dest::Imm(a), .. } => layout::absolute(0, *a).ok(),
        MOp::Jcal { addr, .. } => Some(*addr as u64),
        _ => None,
    }
}

fn hex(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}", v.unsigned_abs())
    } else {
        format!("0x{v:x}")
    }
}

fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}", v.unsigned_abs())
    } else {
        format!("+0x{v:x}")
    }
}

/// The names of instruction indices, looked up once per program: the first
/// function starting there, and the first label there (as `p.labels` lists
/// them), so that printing costs one lookup per target.
pub struct Names<'p> {
    p: &'p MProgram,
    funcs: HashMap<usize, &'p str>,
    labels: HashMap<usize, &'p str>,
}

impl<'p> Names<'p> {
    pub fn new(p: &'p MProgram) -> Names<'p> {
        let mut funcs = HashMap::with_capacity(p.functions.len());
        for f in &p.functions {
            funcs.entry(f.start).or_insert(f.name.as_str());
        }
        let mut labels = HashMap::with_capacity(p.labels.len());
        for (i, l) in &p.labels {
            labels.entry(*i).or_insert(l.as_str());
        }
        Names { p, funcs, labels }
    }

    /// The label at instruction `i`, if any.
    pub fn label(&self, i: usize) -> Option<&'p str> {
        self.labels.get(&i).copied()
    }

    /// How a target address is written: a function or label name where one
    /// sits exactly there, else the hex address.
    fn target_text(&self, addr: u64) -> String {
        if let Ok(m) = layout::index_of(addr, self.p.code.len()) {
            if layout::addr_of(m) == addr {
                if let Some(f) = self.funcs.get(&m) {
                    return format!("`({f})");
                }
                if let Some(l) = self.labels.get(&m) {
                    return format!("`({l})");
                }
            }
        }
        format!("0x{addr:x}")
    }

    fn rel_text(&self, i: usize, off: i64) -> String {
        match layout::relative(layout::addr_of(i), off, 0) {
            Ok(a) => self.target_text(a),
            Err(_) => format!("REL:{}", hex(off)),
        }
    }
}

fn cc_prefix(cc: CcTest) -> String {
    if cc == CcTest::T {
        String::new()
    } else {
        format!("CC.{}, ", cc.name())
    }
}

fn cc_suffix(cc: CcTest) -> String {
    if cc == CcTest::T {
        String::new()
    } else {
        format!(" CC.{}", cc.name())
    }
}

fn reg(r: &AnyReg) -> String {
    match r {
        AnyReg::R(n) => format!("R{n}"),
        AnyReg::Ptx { name, .. } => name.clone(),
    }
}

fn src(s: &MSrc) -> String {
    match s {
        MSrc::R(n) => format!("R{n}"),
        MSrc::Imm(v) => format!("0x{v:x}"),
    }
}

fn mods(u: bool, lmt: bool) -> String {
    format!("{}{}", if u { ".U" } else { "" }, if lmt { ".LMT" } else { "" })
}

fn dest_text(nm: &Names<'_>, i: usize, d: &Dest, relative: bool) -> String {
    match d {
        Dest::Const { bank, offset } => format!("c[0x{bank:x}][0x{offset:x}]"),
        Dest::Imm(v) if relative => nm.rel_text(i, *v),
        Dest::Imm(v) => nm.target_text(*v as u64),
    }
}

fn binding(c: &Option<CallBinding>) -> String {
    match c {
        Some(b) => format!(" {{{}}}", b.text),
        None => String::new(),
    }
}

/// The text of one instruction (without guard, address or `;`). It indexes
/// the program's names first; [`body_named`] reuses an index.
pub fn body(p: &MProgram, i: usize, ins: &MInstr) -> String {
    body_named(&Names::new(p), i, ins)
}

/// [`body`] with the program's names already indexed.
pub fn body_named(nm: &Names<'_>, i: usize, ins: &MInstr) -> String {
    match &ins.op {
        MOp::Data { text, .. } => text.clone(),
        MOp::Nop => "NOP".into(),
        MOp::Ssy { off } => format!("SSY {}", nm.rel_text(i, *off)),
        MOp::Pbk { off } => format!("PBK {}", nm.rel_text(i, *off)),
        MOp::Pcnt { off } => format!("PCNT {}", nm.rel_text(i, *off)),
        MOp::Pret { off } => format!("PRET {}", nm.rel_text(i, *off)),
        MOp::Pexit { off } => format!("PEXIT {}", nm.rel_text(i, *off)),
        MOp::Sync { cc } => format!("SYNC{}", cc_suffix(*cc)),
        MOp::Brk { cc } => format!("BRK{}", cc_suffix(*cc)),
        MOp::Cont { cc } => format!("CONT{}", cc_suffix(*cc)),
        MOp::Ret { cc } => format!("RET{}", cc_suffix(*cc)),
        MOp::Exit { cc } => format!("EXIT{}", cc_suffix(*cc)),
        MOp::Bra { cc, u, lmt, dest } => format!("BRA{} {}{}", mods(*u, *lmt), cc_prefix(*cc), dest_text(nm, i, dest, true)),
        MOp::Jmp { cc, u, lmt, dest } => format!("JMP{} {}{}", mods(*u, *lmt), cc_prefix(*cc), dest_text(nm, i, dest, false)),
        MOp::Brx { cc, lmt, ra, imm, call } => format!("BRX{} {}{} {}{}", mods(false, *lmt), cc_prefix(*cc), reg(ra), signed_hex(*imm), binding(call)),
        MOp::Jmx { cc, lmt, ra, imm } => format!("JMX{} {}{} {}", mods(false, *lmt), cc_prefix(*cc), reg(ra), signed_hex(*imm)),
        MOp::Cal { off, call } => format!("CAL {}{}", nm.rel_text(i, *off), binding(call)),
        MOp::Jcal { addr, call } => format!("JCAL {}{}", nm.target_text(*addr as u64), binding(call)),
        MOp::Mov32i { d, imm } => format!("MOV32I R{d}, 0x{imm:x}"),
        MOp::Iadd { x, cc, d, a, b } => format!("IADD{} R{d}{}, R{a}, {}", if *x { ".X" } else { "" }, if *cc { ".CC" } else { "" }, src(b)),
        MOp::Fadd { cc, d, a, b } => format!("FADD R{d}{}, R{a}, {}", if *cc { ".CC" } else { "" }, src(b)),
        MOp::Iset { cmp, unsigned, cc, d, a, b } => {
            format!("ISET.{}{}.BM R{d}{}, R{a}, {}", cmp.name(), if *unsigned { ".U32" } else { "" }, if *cc { ".CC" } else { "" }, src(b))
        }
        MOp::Fset { test, cc, d, a, b } => format!("FSET.{}.BM R{d}{}, R{a}, {}", test.name(), if *cc { ".CC" } else { "" }, src(b)),
        MOp::Shl { d, a, sh } => format!("SHL R{d}, {}, 0x{sh:x}", reg(a)),
        MOp::Ldc { d, bank, a, imm } => format!("LDC R{d}, c[0x{bank:x}][{}{}]", reg(a), signed_hex(*imm as i64)),
    }
}

/// The guard as written (`@!%p1`), or nothing.
pub fn guard_text(g: &Option<Guard>) -> String {
    match g {
        Some(g) => format!("@{}{}", if g.neg { "!" } else { "" }, g.name),
        None => String::new(),
    }
}

/// Prints a whole program.
pub fn print(p: &MProgram) -> String {
    print_only(p, None)
}

/// Prints the program's preamble and one function (`Some(name)`) or all of them.
pub fn print_only(p: &MProgram, only: Option<&str>) -> String {
    let nm = Names::new(p);
    let mut s = String::new();
    s.push_str("// sm_50 machine form (ptxsim sass). Data instructions are PTX; R0..R255 are machine scratch registers.\n");
    for l in &p.ptx_module {
        let _ = writeln!(s, ".ptx {l}");
    }
    if !p.bank2.is_empty() {
        s.push_str("\n// constant bank 2: jump tables (absolute addresses)\n");
        for t in &p.tables {
            let _ = writeln!(s, ".table 0x{:x} {}", t.offset, t.len);
        }
        for (o, w) in p.bank2.chunks(4).enumerate() {
            let mut b = [0u8; 4];
            b[..w.len()].copy_from_slice(w);
            let v = u32::from_le_bytes(b) as u64;
            let _ = writeln!(s, ".bank2 /*{:04x}*/ {}", o * 4, nm.target_text(v));
        }
    }
    for f in p.functions.iter().filter(|f| only.is_none_or(|n| n == f.name)) {
        let _ = writeln!(s, "\n.function {} {}", f.name, if f.is_kernel { "kernel" } else { "func" });
        for l in &f.ptx_header {
            let _ = writeln!(s, ".ptx {l}");
        }
        let mut decls = f.ptx_decls.iter().peekable();
        for i in f.start..f.start + f.len {
            while let Some((_, l)) = decls.next_if(|(k, _)| *k <= i - f.start) {
                let _ = writeln!(s, ".decl {l}");
            }
            if i % 3 == 0 {
                let c = p.control.get(i / 3).copied().unwrap_or(0);
                let _ = writeln!(s, "        /*{:04x}*/ {:>18} .ctrl 0x{c:016x} ;", layout::addr_of(i) - 8, "");
            }
            if let Some(l) = nm.label(i) {
                let _ = writeln!(s, "{l}:");
            }
            let ins = &p.code[i];
            let line = format!("        /*{:04x}*/ {:>18} {} ;", layout::addr_of(i), guard_text(&ins.guard), body_named(&nm, i, ins));
            if ins.line != 0 {
                let _ = writeln!(s, "{line:<80} // line {}", ins.line);
            } else {
                let _ = writeln!(s, "{line}");
            }
        }
        for (_, l) in decls {
            let _ = writeln!(s, ".decl {l}");
        }
    }
    s
}
