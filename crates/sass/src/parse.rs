//! Reads the SASS text form (see `text`) back into a machine program.
//!
//! Machine instructions are parsed here; the PTX parts (declarations, data
//! instructions, call bindings, and the predicates and registers that guards
//! and `SHL`/`LDC` name) are resolved by building one PTX module in which
//! machine instruction `i` of a function is PTX instruction `i` (a data line
//! is itself; a call binding is the `call`; any other line a placeholder
//! carrying its guard), and loading that module in the engine. So a
//! hand-written machine program is checked and decoded by the same front end
//! as any PTX file, and its data instructions run on the same data path.
//!
//! Lines without an address are accepted (hand-written code); a written
//! address must be the one the layout gives.

use crate::cc::CcTest;
use crate::isa::*;
use crate::layout;
use ptxsim_exec::datapath::{op_class, OpClass};
use ptxsim_exec::program::{Op, Src};
use ptxsim_isa::Flow;
use std::collections::HashMap;

/// A parse error with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

fn err<T>(line: usize, m: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, message: m.into() })
}

/// A target before labels are known.
#[derive(Clone, Debug)]
enum Tgt {
    Label(String),
    Addr(u64),
    Rel(i64),
}

struct Pending {
    idx: usize,
    tgt: Tgt,
    line: usize,
}

fn parse_num(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else {
        s.parse::<i64>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_reg(s: &str) -> Option<AnyReg> {
    let s = s.trim();
    if let Some(n) = s.strip_prefix('R') {
        return n.parse::<u8>().ok().map(AnyReg::R);
    }
    if s.starts_with('%') || s.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_') {
        return Some(AnyReg::Ptx { name: s.to_string(), slot: 0 });
    }
    None
}

fn mreg(s: &str) -> Option<MReg> {
    s.trim().strip_prefix('R').and_then(|n| n.parse::<u8>().ok())
}

fn msrc(s: &str) -> Option<MSrc> {
    match mreg(s) {
        Some(r) => Some(MSrc::R(r)),
        None => parse_num(s).and_then(|v| u32::try_from(v).ok().or((v as i32 as i64 == v).then_some(v as u32))).map(MSrc::Imm),
    }
}

fn split_cc(ops: &str) -> Result<(CcTest, &str), String> {
    let ops = ops.trim();
    if let Some(rest) = ops.strip_prefix("CC.") {
        let (name, rest) = rest.split_once(',').unwrap_or((rest, ""));
        let t = CcTest::from_name(name.trim()).ok_or_else(|| format!("unknown CC test `{}`", name.trim()))?;
        return Ok((t, rest.trim()));
    }
    Ok((CcTest::T, ops))
}

fn parse_target(s: &str) -> Result<Tgt, String> {
    let s = s.trim();
    if let Some(l) = s.strip_prefix("`(").and_then(|r| r.strip_suffix(')')) {
        return Ok(Tgt::Label(l.to_string()));
    }
    if let Some(r) = s.strip_prefix("REL:") {
        return parse_num(r).map(Tgt::Rel).ok_or_else(|| format!("bad relative offset `{r}`"));
    }
    let r = s.strip_prefix("ABS:").unwrap_or(s);
    match parse_num(r) {
        Some(v) if v >= 0 => Ok(Tgt::Addr(v as u64)),
        _ => Err(format!("bad target `{s}`")),
    }
}

fn parse_const(s: &str) -> Option<(u8, String)> {
    let r = s.trim().strip_prefix("c[")?;
    let (bank, rest) = r.split_once(']')?;
    let inner = rest.strip_prefix('[')?.strip_suffix(']')?;
    Some((u8::try_from(parse_num(bank)?).ok()?, inner.to_string()))
}

/// Splits `Ra +0x10` / `Ra+0x10` / `Ra -0x48` / `Ra` into register and immediate.
fn reg_plus_imm(s: &str) -> Option<(AnyReg, i64)> {
    let s = s.trim();
    let cut = s.find(['+', '-']).unwrap_or(s.len());
    let r = parse_reg(&s[..cut])?;
    let rest: String = s[cut..].chars().filter(|c| !c.is_whitespace()).collect();
    let imm = if rest.is_empty() { 0 } else { parse_num(&rest)? };
    Some((r, imm))
}

/// The parsed text before the PTX parts are resolved.
struct Raw {
    prog: MProgram,
    pending: Vec<Pending>,
    bank_refs: Vec<(usize, Tgt, usize)>,
    /// Source line of each instruction.
    lines: Vec<usize>,
}

fn parse_raw(text: &str) -> Result<Raw, ParseError> {
    let mut p = MProgram::default();
    let mut pending = Vec::new();
    let mut bank_refs = Vec::new();
    let mut lines = Vec::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut controls: HashMap<usize, u64> = HashMap::new();
    let mut in_fn = false;
    let close = |p: &mut MProgram, lines: &mut Vec<usize>| {
        while p.code.len() % 3 != 0 {
            p.code.push(MInstr::new(MOp::Nop));
            lines.push(0);
        }
        if let Some(f) = p.functions.last_mut() {
            f.len = p.code.len() - f.start;
        }
    };
    for (ln0, raw) in text.lines().enumerate() {
        let ln = ln0 + 1;
        let (content, comment) = match raw.find("//") {
            Some(c) => (&raw[..c], &raw[c + 2..]),
            None => (raw, ""),
        };
        let t = content.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix(".ptx ").or_else(|| (t == ".ptx").then_some("")) {
            let line = raw.trim_start().strip_prefix(".ptx").unwrap_or("").trim_start().to_string();
            let _ = rest;
            match p.functions.last_mut() {
                Some(f) if in_fn => f.ptx_header.push(line),
                _ => p.ptx_module.push(line),
            }
            continue;
        }
        if t.starts_with(".decl") {
            let line = raw.trim_start().strip_prefix(".decl").unwrap_or("").trim().to_string();
            match p.functions.last_mut() {
                Some(f) if in_fn => f.ptx_decls.push((p.code.len() - f.start, line)),
                _ => return err(ln, "`.decl` outside a function"),
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix(".function") {
            close(&mut p, &mut lines);
            let mut w = rest.split_whitespace();
            let Some(name) = w.next() else { return err(ln, "`.function` needs a name") };
            let is_kernel = match w.next() {
                Some("kernel") | None => true,
                Some("func") => false,
                Some(o) => return err(ln, format!("`.function {name} {o}`: expected `kernel` or `func`")),
            };
            labels.insert(name.to_string(), p.code.len());
            p.functions.push(MFunction { name: name.into(), is_kernel, ptx: 0, start: p.code.len(), len: 0, ptx_header: vec![], ptx_decls: vec![] });
            in_fn = true;
            continue;
        }
        if let Some(rest) = t.strip_prefix(".table") {
            let v: Vec<i64> = rest.split_whitespace().filter_map(parse_num).collect();
            if v.len() != 2 || v[0] < 0 || v[1] < 0 || v[0] % 4 != 0 {
                return err(ln, "`.table OFFSET COUNT` expects a 4-byte-aligned offset and a count");
            }
            p.tables.push(TableRef { brx: 0, offset: v[0] as u32, len: v[1] as u32 });
            continue;
        }
        if let Some(rest) = t.strip_prefix(".bank2") {
            let rest = rest.trim();
            let (addr, val) = match rest.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
                Some((a, v)) => (parse_num(&format!("0x{a}")), v.trim()),
                None => (Some(p.bank2.len() as i64), rest),
            };
            let Some(off) = addr.filter(|&a| a >= 0 && a as usize == p.bank2.len()) else {
                return err(ln, "bank 2 words must be listed in order from offset 0");
            };
            let tgt = parse_target(val).map_err(|m| ParseError { line: ln, message: m })?;
            p.bank2.extend_from_slice(&[0; 4]);
            bank_refs.push((off as usize, tgt, ln));
            continue;
        }
        if let Some(l) = t.strip_suffix(':') {
            if !l.contains(char::is_whitespace) {
                if labels.insert(l.to_string(), p.code.len()).is_some() {
                    return err(ln, format!("label `{l}` defined twice"));
                }
                continue;
            }
        }
        if !in_fn {
            return err(ln, "an instruction before the first `.function`");
        }
        // Optional address.
        let mut body = t;
        let mut addr = None;
        if let Some(r) = body.strip_prefix("/*") {
            let Some((a, rest)) = r.split_once("*/") else { return err(ln, "unterminated address comment") };
            addr = match u64::from_str_radix(a.trim(), 16) {
                Ok(v) => Some(v),
                Err(_) => return err(ln, format!("bad address `{a}`")),
            };
            body = rest.trim();
        }
        let body = body.trim().strip_suffix(';').unwrap_or(body).trim();
        if let Some(c) = body.strip_prefix(".ctrl") {
            let Some(v) = parse_num(c).filter(|&v| v >= 0) else { return err(ln, "bad control word") };
            if p.code.len() % 3 != 0 {
                return err(ln, "a control word must start a bundle");
            }
            if let Some(a) = addr {
                if a != layout::addr_of(p.code.len()) - 8 {
                    return err(ln, format!("control word at {a:#x}, but the layout puts it at {:#x}", layout::addr_of(p.code.len()) - 8));
                }
            }
            controls.insert(p.code.len() / 3, v as u64);
            continue;
        }
        let i = p.code.len();
        if let Some(a) = addr {
            if a != layout::addr_of(i) {
                return err(ln, format!("instruction at {a:#x}, but the layout puts it at {:#x}", layout::addr_of(i)));
            }
        }
        let line_no = comment.trim().strip_prefix("line ").and_then(|n| n.trim().parse::<u32>().ok()).unwrap_or(0);
        let ins = parse_instr(body, i, &mut pending, ln).map_err(|m| ParseError { line: ln, message: m })?;
        p.code.push(MInstr { line: line_no, ..ins });
        lines.push(ln);
    }
    close(&mut p, &mut lines);
    p.control = (0..p.code.len() / 3).map(|b| controls.get(&b).copied().unwrap_or(crate::lower::DEFAULT_CONTROL)).collect();
    resolve_targets(&mut p, &labels, &pending, &bank_refs)?;
    Ok(Raw { prog: p, pending, bank_refs, lines })
}

/// Names the labels of `p` (function names excepted), and writes every
/// branch, call and bank-2 target as its offset or address, each checked
/// against the encoding's range.
fn resolve_targets(p: &mut MProgram, labels: &HashMap<String, usize>, pending: &[Pending], bank_refs: &[(usize, Tgt, usize)]) -> Result<(), ParseError> {
    let fnames: std::collections::HashSet<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    let mut names: Vec<(usize, String)> = labels.iter().filter(|(n, _)| !fnames.contains(n.as_str())).map(|(n, &i)| (i, n.clone())).collect();
    names.sort();
    p.labels = names;
    let resolve = |t: &Tgt, ln: usize| -> Result<u64, ParseError> {
        match t {
            Tgt::Label(l) => match labels.get(l) {
                Some(&i) => Ok(layout::addr_of(i)),
                None => err(ln, format!("unknown label `{l}`")),
            },
            Tgt::Addr(a) => Ok(*a),
            Tgt::Rel(_) => err(ln, "internal"),
        }
    };
    for pd in pending {
        let pc = layout::addr_of(pd.idx);
        let (abs, rel) = match &pd.tgt {
            Tgt::Rel(r) => (None, *r),
            t => {
                let a = resolve(t, pd.line)?;
                (Some(a), a as i64 - (pc as i64 + 8))
            }
        };
        let ins = &mut p.code[pd.idx];
        let chk = |v: i64, s24: bool| layout::check_imm(v, s24).map_err(|m| ParseError { line: pd.line, message: m });
        match &mut ins.op {
            MOp::Ssy { off } | MOp::Pbk { off } | MOp::Pcnt { off } | MOp::Pret { off } | MOp::Pexit { off } | MOp::Cal { off, .. } => {
                chk(rel, true)?;
                *off = rel;
            }
            MOp::Bra { dest, .. } => {
                chk(rel, true)?;
                *dest = Dest::Imm(rel);
            }
            MOp::Jmp { dest, .. } => {
                let a = abs.map(|a| a as i64).unwrap_or(rel);
                chk(a, false)?;
                *dest = Dest::Imm(a);
            }
            MOp::Jcal { addr, .. } => {
                let a = abs.map(|a| a as i64).unwrap_or(rel);
                chk(a, false)?;
                *addr = a as u32;
            }
            _ => {}
        }
    }
    for (off, t, ln) in bank_refs {
        let v = match t {
            Tgt::Rel(r) => *r as u64,
            t => resolve(t, *ln)?,
        };
        let Ok(v) = u32::try_from(v) else { return err(*ln, "bank 2 word does not fit 32 bits") };
        p.bank2[*off..*off + 4].copy_from_slice(&v.to_le_bytes());
    }
    Ok(())
}

fn parse_guard(body: &str) -> (Option<Guard>, &str) {
    if let Some(r) = body.strip_prefix('@') {
        let (neg, r) = match r.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, r),
        };
        let end = r.find(char::is_whitespace).unwrap_or(r.len());
        let name = &r[..end];
        return (Some(Guard { name: name.to_string(), slot: 0, neg }), r[end..].trim_start());
    }
    (None, body)
}

fn take_binding(ops: &str) -> (&str, Option<CallBinding>) {
    match (ops.find('{'), ops.rfind('}')) {
        (Some(a), Some(b)) if b > a => (ops[..a].trim(), Some(CallBinding { pc: 0, text: ops[a + 1..b].trim().to_string() })),
        _ => (ops, None),
    }
}

/// The machine instructions that stand for a PTX control-flow opcode, which
/// a data line (run by the engine's data path) cannot hold.
fn ptx_control(opc: &str) -> Option<&'static str> {
    Some(match ptxsim_isa::flow(opc.split('.').next().unwrap_or("")) {
        Flow::Branch => "BRA",
        Flow::IndirectBranch => "SHL, LDC and BRX (a jump table in bank 2)",
        Flow::Call => "CAL (JCAL, or PRET and BRX) with the call in braces",
        Flow::Ret => "RET (EXIT in a kernel)",
        Flow::Exit => "EXIT",
        Flow::Seq | Flow::Trap | Flow::Barrier => return None,
    })
}

/// The error for PTX control flow `opc` on the data line of instruction `i`.
fn control_on_data_line(opc: &str, i: usize) -> String {
    let m = ptx_control(opc).unwrap_or("machine instructions");
    format!("`{opc}` at {:#06x} is PTX control flow, which a data line cannot hold: write it as {m}", layout::addr_of(i))
}

/// An opcode split into its base and its `.` modifiers (`BRA.U.LMT`).
struct Mnemonic<'s> {
    base: &'s str,
    mods: Vec<&'s str>,
}

impl<'s> Mnemonic<'s> {
    fn new(opc: &'s str) -> Mnemonic<'s> {
        let mut parts = opc.split('.');
        let base = parts.next().unwrap_or("");
        Mnemonic { base, mods: parts.collect() }
    }

    fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }

    /// An error for the first modifier outside `allowed`.
    fn only(&self, allowed: &[&str]) -> Result<(), String> {
        match self.mods.iter().find(|m| !allowed.contains(m)) {
            Some(m) => Err(format!("{} does not take `.{m}`", self.base)),
            None => Ok(()),
        }
    }

    /// The CC test that is the whole operand list.
    fn cc_only(&self, ops: &str) -> Result<CcTest, String> {
        let (cc, rest) = split_cc(ops)?;
        if !rest.is_empty() {
            return Err(format!("{} takes no operand besides a CC test", self.base));
        }
        Ok(cc)
    }
}

/// The comma-separated operands.
fn args(ops: &str) -> Vec<String> {
    ops.split(',').map(|s| s.trim().to_string()).collect()
}

/// A branch target to resolve once the labels are known.
type Target<'t> = dyn FnMut(&str) -> Result<(), String> + 't;

fn parse_instr(body: &str, i: usize, pending: &mut Vec<Pending>, ln: usize) -> Result<MInstr, String> {
    let (guard, rest) = parse_guard(body);
    let (opc, ops) = match rest.find(char::is_whitespace) {
        Some(e) => (&rest[..e], rest[e..].trim()),
        None => (rest, ""),
    };
    if opc.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
        // (A `call` is told apart once decoded: `call vprintf` is a data
        // instruction.)
        if ptxsim_isa::flow(opc.split('.').next().unwrap_or("")) != Flow::Call && ptx_control(opc).is_some() {
            return Err(control_on_data_line(opc, i));
        }
        return Ok(MInstr::new(MOp::Data { pc: i as u32, text: body.to_string() }));
    }
    let m = Mnemonic::new(opc);
    let base = m.base;
    let mut tgt = |t: &str| -> Result<(), String> {
        pending.push(Pending { idx: i, tgt: parse_target(t)?, line: ln });
        Ok(())
    };
    let op = match base {
        "NOP" => MOp::Nop,
        "SSY" | "PBK" | "PCNT" | "PRET" | "PEXIT" => {
            m.only(&[])?;
            if guard.is_some() {
                return Err(format!("{base} is not predicated (push-only instructions take no guard)"));
            }
            tgt(ops)?;
            match base {
                "SSY" => MOp::Ssy { off: 0 },
                "PBK" => MOp::Pbk { off: 0 },
                "PCNT" => MOp::Pcnt { off: 0 },
                "PRET" => MOp::Pret { off: 0 },
                _ => MOp::Pexit { off: 0 },
            }
        }
        "SYNC" | "BRK" | "CONT" | "RET" | "EXIT" => {
            m.only(&[])?;
            let cc = m.cc_only(ops)?;
            match base {
                "SYNC" => MOp::Sync { cc },
                "BRK" => MOp::Brk { cc },
                "CONT" => MOp::Cont { cc },
                "RET" => MOp::Ret { cc },
                _ => MOp::Exit { cc },
            }
        }
        "BRA" | "JMP" => parse_bra(&m, ops, &mut tgt)?,
        "BRX" | "JMX" => parse_brx(&m, ops)?,
        "CAL" | "JCAL" => {
            m.only(&[])?;
            let (t, call) = take_binding(ops);
            tgt(t)?;
            if base == "CAL" {
                MOp::Cal { off: 0, call }
            } else {
                MOp::Jcal { addr: 0, call }
            }
        }
        "IADD" | "FADD" | "ISET" | "FSET" => parse_alu(&m, ops)?,
        "MOV32I" | "SHL" | "LDC" => parse_scratch(&m, ops)?,
        _ => return Err(format!("unknown machine instruction `{base}`")),
    };
    if guard.is_some() && !op.predicable() {
        return Err(format!("{base} is not predicated"));
    }
    Ok(MInstr { guard, op, origin: Origin::None, line: 0 })
}

/// `BRA`/`JMP {.U} {.LMT} {CC,} target`, the target a label, an address or
/// `c[bank][offset]`.
fn parse_bra(m: &Mnemonic<'_>, ops: &str, tgt: &mut Target<'_>) -> Result<MOp, String> {
    m.only(&["U", "LMT"])?;
    let (cc, t) = split_cc(ops)?;
    let dest = match parse_const(t) {
        Some((bank, off)) => {
            let o = parse_num(&off).and_then(|v| u16::try_from(v).ok()).ok_or("bad constant offset")?;
            if bank > 31 {
                return Err("constant bank must fit 5 bits".into());
            }
            Dest::Const { bank, offset: o }
        }
        None => {
            tgt(t)?;
            Dest::Imm(0)
        }
    };
    Ok(if m.base == "BRA" {
        MOp::Bra { cc, u: m.has("U"), lmt: m.has("LMT"), dest }
    } else {
        MOp::Jmp { cc, u: m.has("U"), lmt: m.has("LMT"), dest }
    })
}

/// `BRX`/`JMX {.LMT} {CC,} Ra + imm {call binding}`.
fn parse_brx(m: &Mnemonic<'_>, ops: &str) -> Result<MOp, String> {
    let base = m.base;
    m.only(&["LMT"])?;
    let (ops, call) = take_binding(ops);
    let (cc, t) = split_cc(ops)?;
    let (ra, imm) = reg_plus_imm(t).ok_or_else(|| format!("{base} expects `Ra + imm`, found `{t}`"))?;
    if base == "BRX" {
        if !layout::fits_signed(imm, 24) {
            return Err("BRX immediate does not fit the signed 24-bit field".into());
        }
        Ok(MOp::Brx { cc, lmt: m.has("LMT"), ra, imm, call })
    } else {
        if !layout::fits_signed(imm, 32) {
            return Err("JMX immediate does not fit the signed 32-bit field".into());
        }
        Ok(MOp::Jmx { cc, lmt: m.has("LMT"), ra, imm })
    }
}

/// `IADD{.X}`, `FADD`, `ISET.<cmp>{.U32}.BM`, `FSET.<test>.BM`:
/// `Rd{.CC}, Ra, Rb|imm`.
fn parse_alu(m: &Mnemonic<'_>, ops: &str) -> Result<MOp, String> {
    let base = m.base;
    let a = args(ops);
    if a.len() != 3 {
        return Err(format!("{base} expects three operands"));
    }
    let (dst, cc) = match a[0].strip_suffix(".CC") {
        Some(d) => (d, true),
        None => (a[0].as_str(), false),
    };
    let d = mreg(dst).ok_or("destination must be a scratch register R0..R255")?;
    let ra = mreg(&a[1]).ok_or("first source must be a scratch register")?;
    let b = msrc(&a[2]).ok_or("second source must be a scratch register or 32-bit immediate")?;
    Ok(match base {
        "IADD" => {
            m.only(&["X"])?;
            MOp::Iadd { x: m.has("X"), cc, d, a: ra, b }
        }
        "FADD" => {
            m.only(&[])?;
            MOp::Fadd { cc, d, a: ra, b }
        }
        "ISET" => {
            let cmp = m.mods.first().and_then(|x| ICmp::ALL.iter().find(|c| c.name() == *x)).copied().ok_or("ISET needs a comparison (.LT .EQ .LE .GT .NE .GE)")?;
            if !m.has("BM") {
                return Err("only the boolean-mask form ISET.<cmp>.BM is supported".into());
            }
            m.only(&[cmp.name(), "U32", "BM"])?;
            MOp::Iset { cmp, unsigned: m.has("U32"), cc, d, a: ra, b }
        }
        _ => {
            let test = m.mods.first().and_then(|x| CcTest::from_name(x)).filter(|t| (1..=14).contains(&t.code())).ok_or("FSET needs a float comparison (.LT .EQ .LE .GT .NE .GE .NUM .NAN .LTU .EQU .LEU .GTU .NEU .GEU)")?;
            if !m.has("BM") {
                return Err("only the boolean-mask form FSET.<cmp>.BM is supported".into());
            }
            m.only(&[test.name(), "BM"])?;
            MOp::Fset { test, cc, d, a: ra, b }
        }
    })
}

/// The scratch-register writers of jump tables: `MOV32I Rd, imm32`,
/// `SHL Rd, Ra, imm`, `LDC Rd, c[bank][Ra+imm]`.
fn parse_scratch(m: &Mnemonic<'_>, ops: &str) -> Result<MOp, String> {
    let a = args(ops);
    match m.base {
        "MOV32I" => match (a.first().and_then(|s| mreg(s)), a.get(1).and_then(|s| parse_num(s))) {
            (Some(d), Some(v)) if a.len() == 2 && (i32::MIN as i64..=u32::MAX as i64).contains(&v) => Ok(MOp::Mov32i { d, imm: v as u32 }),
            _ => Err("MOV32I expects `Rd, imm32`".into()),
        },
        "SHL" => match (a.first().and_then(|s| mreg(s)), a.get(1).and_then(|s| parse_reg(s)), a.get(2).and_then(|s| parse_num(s))) {
            (Some(d), Some(r), Some(sh)) if a.len() == 3 && (0..32).contains(&sh) => Ok(MOp::Shl { d, a: r, sh: sh as u8 }),
            _ => Err("SHL expects `Rd, Ra, imm` with a shift below 32".into()),
        },
        _ => {
            let d = a.first().and_then(|s| mreg(s)).ok_or("LDC destination must be a scratch register")?;
            let (bank, inner) = a.get(1).and_then(|s| parse_const(s)).ok_or("LDC expects `Rd, c[bank][Ra+imm]`")?;
            let (ra, imm) = reg_plus_imm(&inner).ok_or("LDC expects `c[bank][Ra+imm]`")?;
            let imm = i32::try_from(imm).map_err(|_| "LDC offset does not fit 32 bits")?;
            Ok(MOp::Ldc { d, bank, a: ra, imm })
        }
    }
}

/// The PTX module in which machine instruction `i` of each function is PTX
/// instruction `i` (see the module doc).
fn synthetic_ptx(p: &MProgram) -> String {
    let mut s = String::new();
    for l in &p.ptx_module {
        s.push_str(l);
        s.push('\n');
    }
    for f in &p.functions {
        for l in &f.ptx_header {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str("{\n");
        let mut decls = f.ptx_decls.iter().peekable();
        for (k, ins) in p.code[f.start..f.start + f.len].iter().enumerate() {
            while let Some((_, l)) = decls.next_if(|(j, _)| *j <= k) {
                s.push_str(l);
                s.push('\n');
            }
            let g = match &ins.guard {
                Some(g) if g.name != "PT" => format!("@{}{} ", if g.neg { "!" } else { "" }, g.name),
                _ => String::new(),
            };
            let line = match &ins.op {
                MOp::Data { text, .. } => format!("{text};"),
                MOp::Cal { call: Some(c), .. } | MOp::Jcal { call: Some(c), .. } | MOp::Brx { call: Some(c), .. } => format!("{g}{};", c.text),
                MOp::Shl { a: AnyReg::Ptx { name, .. }, .. } | MOp::Ldc { a: AnyReg::Ptx { name, .. }, .. } => format!("{g}mov.b32 {name}, {name};"),
                _ => format!("{g}bra $__sass_end;"),
            };
            s.push_str(&line);
            s.push('\n');
        }
        for (_, l) in decls {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str(if f.is_kernel { "$__sass_end:\nexit;\n}\n" } else { "$__sass_end:\nret;\n}\n" });
    }
    s
}

/// Parses SASS text and loads its PTX parts into `dev`: the machine program
/// and the engine module whose functions hold its data instructions.
pub fn parse(dev: &mut ptxsim_exec::Device, name: &str, text: &str) -> Result<(ptxsim_exec::Module, MProgram), String> {
    let raw = parse_raw(text).map_err(|e| format!("{name}:{e}"))?;
    let mut p = raw.prog;
    let _ = (&raw.pending, &raw.bank_refs);
    let ptx = synthetic_ptx(&p);
    let module = dev.load_named(&format!("{name} (PTX parts)"), &ptx).map_err(|e| format!("{name}: the PTX parts do not load:\n{}", e.message))?;
    // `Program::function_by_name` once per name: the first defined function.
    let mut by_name: HashMap<&str, u32> = HashMap::new();
    for (i, pf) in module.program.functions.iter().enumerate() {
        if pf.defined {
            by_name.entry(pf.name.as_str()).or_insert(i as u32);
        }
    }
    for fi in 0..p.functions.len() {
        let (fstart, flen) = (p.functions[fi].start, p.functions[fi].len);
        let fname = p.functions[fi].name.clone();
        let Some(&fid) = by_name.get(fname.as_str()) else {
            return Err(format!("{name}: `.function {fname}` has no PTX header defining it"));
        };
        p.functions[fi].ptx = fid;
        let code = &module.program.functions[fid as usize].code;
        if code.len() != flen + 1 {
            return Err(format!("{name}: `.function {fname}`: {flen} machine instructions but {} PTX ones; each data line must be one PTX instruction", code.len().saturating_sub(1)));
        }
        for k in 0..flen {
            let i = fstart + k;
            let ln = raw.lines.get(i).copied().unwrap_or(0);
            let d = &code[k];
            let ins = &mut p.code[i];
            if let Some(g) = &mut ins.guard {
                if g.name == "PT" {
                    g.slot = u32::MAX;
                } else {
                    match d.guard {
                        Some(dg) => g.slot = dg.slot,
                        None => return Err(format!("{name}:line {ln}: guard `{}` did not resolve", g.name)),
                    }
                }
            }
            match &mut ins.op {
                MOp::Data { text, .. } if matches!(op_class(&d.op), OpClass::Control) && !matches!(d.op, Op::Trap | Op::Unsupported(_)) => {
                    let opc = text.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or("");
                    return Err(format!("{name}:line {ln}: {}", control_on_data_line(opc, i)));
                }
                MOp::Data { pc, .. } => *pc = k as u32,
                MOp::Cal { call: Some(c), .. } | MOp::Jcal { call: Some(c), .. } | MOp::Brx { call: Some(c), .. } => {
                    if !matches!(d.op, Op::Call { .. }) {
                        return Err(format!("{name}:line {ln}: the braces must hold a PTX `call`"));
                    }
                    c.pc = k as u32;
                }
                MOp::Shl { a: AnyReg::Ptx { slot, name: rn }, .. } | MOp::Ldc { a: AnyReg::Ptx { slot, name: rn }, .. } => match d.op {
                    Op::Mov { a: Src::Reg(s), .. } => *slot = s,
                    _ => return Err(format!("{name}:line {ln}: `{rn}` is not a 32-bit PTX register")),
                },
                MOp::Brx { ra: AnyReg::Ptx { name: rn, .. }, call: None, .. } | MOp::Jmx { ra: AnyReg::Ptx { name: rn, .. }, .. } => {
                    return Err(format!("{name}:line {ln}: {rn}: BRX/JMX read a scratch register R0..R255 (a PTX register only with a call binding)"));
                }
                _ => {}
            }
        }
    }
    Ok((module, p))
}
