//! Lowering from PTX to the sm_50 machine form, as ptxas does for `-arch=sm_50`.
//!
//! Input: a parsed module and the engine's decoded program of the same text
//! (their instruction numbers agree: `ptxsim_analysis::flat`). For each
//! defined function, with the analysis' SIMT reconvergence points and
//! uniformity verdicts:
//!
//! - a divergent conditional `bra` or `brx.idx` with meeting point `j` gets
//!   an SSY (or PBK when its region contains a whole loop, as ptxas does for
//!   arms that contain loops) targeting `j`; every edge that enters `j` from
//!   the region executes a SYNC (BRK) first. When the branch sits in loops
//!   that `j` is outside of (a loop exit), the SSY is hoisted in front of the
//!   outermost such loop, so it is pushed once, not once per iteration;
//! - several SSYs with the same meeting point form a chain of SYNC stubs,
//!   innermost first; each SSY targets the next outer stub;
//! - `bra.uni` and branches the analysis proves uniform become a plain BRA;
//!   a divergent branch whose threads only meet at the exit needs no SSY;
//! - `brx.idx` becomes `SHL; LDC c[0x2][...]; BRX` with the table of target
//!   addresses in constant bank 2 (SSY first when it can diverge);
//! - a direct `call` becomes `CAL`, an indirect one `PRET` + `BRX` through
//!   the function pointer; a guarded call is wrapped as ptxas does
//!   (`SSY; @!P SYNC; CAL; SYNC`);
//! - `ret` becomes RET in a `.func` and EXIT in a kernel; `exit` is EXIT;
//!   every function ends with an implicit RET/EXIT, the self-loop `BRA` ptxas
//!   emits, and NOP padding to a whole bundle.
//!
//! Where the SSY regions of a function do not nest (unstructured control
//! flow), the inner SSY is dropped and the case is recorded in
//! [`Lowered::fallbacks`]: those threads meet again only at an enclosing
//! SYNC or at the exit.
//!
//! Placing the sites (phases 1 and 2) is `lower/sites.rs`; emission and
//! target resolution are here. Every phase is linear in the function's
//! instructions and blocks, but for regions nested in regions, which cost
//! their total size (see `sites`).

use crate::cc::CcTest;
use crate::isa::*;
use crate::layout;
use ptxsim_analysis::cfg::Terminator;
use ptxsim_analysis::dom::cfg_dominators;
use ptxsim_analysis::loops::LoopForest;
use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Uniformity};
use ptxsim_exec::program::{Callee, Op, Program};
use ptxsim_syntax::ast::{self, Item, Statement};
use ptxsim_syntax::LineIndex;
use std::collections::{HashMap, HashSet};

mod sites;
use sites::{find_sites, nest_sites, DomPre, Pos, Site};

/// The kind of reconvergence token a site pushes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    Ssy,
    Pbk,
}

/// One SSY/PBK the lowering placed.
#[derive(Clone, Debug)]
pub struct SiteInfo {
    pub function: String,
    pub kind: SiteKind,
    /// PTX instruction indices of the branches it covers.
    pub branches: Vec<usize>,
    /// PTX instruction index of the meeting point.
    pub join: usize,
    /// The loop header it was hoisted in front of, if any.
    pub hoisted_to: Option<usize>,
}

/// A divergent branch that got no SSY of its own, and why.
#[derive(Clone, Debug)]
pub struct Fallback {
    pub function: String,
    pub branch: usize,
    pub line: u32,
    pub reason: String,
}

/// The result of lowering a module.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub prog: MProgram,
    pub sites: Vec<SiteInfo>,
    pub fallbacks: Vec<Fallback>,
}

/// A symbolic target, resolved to a machine index once the code is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sym {
    Code(usize),
    SyncStub(usize),
    PreStub(usize),
    Local(usize),
    Func(u32),
}

fn text_of(src: &str, sp: ptxsim_syntax::Span) -> String {
    let t = src.get(sp.range()).unwrap_or("");
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    t.trim_end_matches(';').trim_end().to_string()
}

fn lines_of(t: &str) -> Vec<String> {
    t.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
}

/// Why a module has no machine form.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// A function of the syntax tree that the decoded program lacks (the
    /// two were not made from the same text).
    #[error("function {function} is not in the decoded program")]
    NotDecoded { function: String },
    #[error("{function}: no body")]
    NoBody { function: String },
    /// The analysis and the decoder numbered a function's instructions
    /// differently.
    #[error("{function}: the decoded function has {decoded} instructions, the analysis {analysed}")]
    Mismatch { function: String, decoded: usize, analysed: usize },
    /// A control-flow instruction the analysis left without its targets.
    #[error("{function}: line {line}: {what}")]
    Unresolved { function: String, line: u32, what: &'static str },
    /// A call of function `function` (its index in the program), which has
    /// no body.
    #[error("call to function #{function}, which has no body")]
    NoCallee { function: u32 },
    /// A branch whose offset does not fit the instruction's signed 24 bits.
    #[error("a branch at {at:#x} is too far from its target {target:#x} for the signed 24-bit offset")]
    TooFar { at: u64, target: u64 },
    /// A broken invariant of the lowering itself.
    #[error("internal: {0}")]
    Internal(String),
}

/// Lowers every defined function of `module` (whose decoded form is `prog`).
pub fn lower(src: &str, module: &ast::Module<'_>, prog: &Program) -> Result<Lowered, LowerError> {
    let li = LineIndex::new(src);
    let mut out = Lowered { prog: MProgram::default(), sites: Vec::new(), fallbacks: Vec::new() };
    // Module preamble: everything but function bodies.
    for item in &module.items {
        let t = match item {
            Item::Version(v) => text_of(src, v.span),
            // (Without `debug`: the DWARF sections stay out of the machine
            // form, and `.target debug` needs one.)
            Item::Target(t) => format!(".target {}", t.targets.iter().map(|n| n.text).filter(|n| *n != "debug").collect::<Vec<_>>().join(", ")),
            Item::AddressSize(a) => format!(".address_size {}", a.value),
            Item::Var(v) => format!("{};", src.get(v.span.range()).unwrap_or("").trim().trim_end_matches(';')),
            Item::File(f) => text_of(src, f.span),
            Item::Pragma(p) => format!("{};", text_of(src, p.span)),
            Item::Section(_) => continue,
            Item::Alias { span, .. } => format!("{};", text_of(src, *span)),
            Item::Function(f) => {
                if f.kind == ast::FunctionKind::Entry && f.body.is_some() {
                    continue;
                }
                format!("{};", header_text(src, f))
            }
        };
        out.prog.ptx_module.extend(lines_of(&t));
    }
    let mut pending: Vec<(usize, Sym)> = Vec::new();
    let mut func_start: HashMap<u32, usize> = HashMap::new();
    let mut locals: Vec<usize> = Vec::new();
    // `Program::function_by_name` once per name: the first defined function.
    let mut by_name: HashMap<&str, u32> = HashMap::new();
    for (i, pf) in prog.functions.iter().enumerate() {
        if pf.defined {
            by_name.entry(pf.name.as_str()).or_insert(i as u32);
        }
    }
    for item in &module.items {
        let Item::Function(f) = item else { continue };
        if f.body.is_none() {
            continue;
        }
        let Some(&fid) = by_name.get(f.name.text) else {
            return Err(LowerError::NotDecoded { function: f.name.text.to_string() });
        };
        lower_function(src, &li, f, prog, fid, &mut out, &mut pending, &mut func_start, &mut locals)?;
    }
    resolve(&mut out.prog, &pending, &func_start, &locals)?;
    out.prog.control = vec![DEFAULT_CONTROL; out.prog.code.len() / 3];
    name_labels(&mut out.prog);
    Ok(out)
}

/// The control word every bundle gets: each of the three 21-bit fields says
/// stall 1, no yield, no write/read barrier, no wait, no reuse.
pub const DEFAULT_CONTROL: u64 = {
    let f: u64 = 1 | (7 << 5) | (7 << 8);
    f | (f << 21) | (f << 42)
};

fn header_text(src: &str, f: &ast::Function<'_>) -> String {
    let end = f.body.as_ref().map(|b| b.span.start).unwrap_or(f.span.end);
    let t = src.get(f.span.start as usize..end as usize).unwrap_or("");
    t.trim().trim_end_matches(';').trim_end().to_string()
}

/// The body's declarations and nested-block braces, each with the PTX
/// instruction index it precedes.
fn collect_decls(src: &str, b: &ast::Block<'_>, count: &mut usize, out: &mut Vec<(usize, String)>) {
    for s in &b.stmts {
        match s {
            Statement::Instr(_) => *count += 1,
            Statement::Var(v) => {
                for l in lines_of(&format!("{};", src.get(v.span.range()).unwrap_or("").trim().trim_end_matches(';'))) {
                    out.push((*count, l));
                }
            }
            Statement::CallTargets { span, .. } | Statement::CallPrototype { span, .. } => {
                for l in lines_of(&format!("{};", text_of(src, *span))) {
                    out.push((*count, l));
                }
            }
            Statement::Block(inner) => {
                out.push((*count, "{".into()));
                collect_decls(src, inner, count, out);
                out.push((*count, "}".into()));
            }
            _ => {}
        }
    }
}

/// One function's analyses, as the lowering phases read them.
struct Analysed<'x> {
    name: &'x str,
    fa: &'x FunctionAnalysis,
    /// The dominator tree's preorder (dominance and regions in constant time).
    tree: DomPre,
    loops: &'x LoopForest,
    uni: &'x Uniformity,
    /// Instructions of the function.
    n: usize,
    /// The source line of each instruction.
    lines: Vec<u32>,
}

impl Analysed<'_> {
    fn line(&self, k: usize) -> u32 {
        self.lines.get(k).copied().unwrap_or(0)
    }

    fn fallback(&self, k: usize, reason: &str) -> Fallback {
        Fallback { function: self.name.to_string(), branch: k, line: self.line(k), reason: reason.into() }
    }

    /// The block a site's token is pushed in.
    fn site_block(&self, s: &Site) -> usize {
        match s.pos {
            Pos::Before(k) => self.fa.cfg.block_of[k],
            Pos::Pre(h) => self.fa.cfg.block_of[h],
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn lower_function(
    src: &str,
    li: &LineIndex,
    f: &ast::Function<'_>,
    prog: &Program,
    fid: u32,
    out: &mut Lowered,
    pending: &mut Vec<(usize, Sym)>,
    func_start: &mut HashMap<u32, usize>,
    locals: &mut Vec<usize>,
) -> Result<(), LowerError> {
    let name = f.name.text.to_string();
    let flat = FlatFunction::new(f).ok_or_else(|| LowerError::NoBody { function: f.name.text.to_string() })?;
    let fa = FunctionAnalysis::new(&flat);
    let dom = cfg_dominators(&fa.cfg);
    let loops = LoopForest::new(&fa.cfg, &dom);
    let uni = Uniformity::with(&flat, &fa, &dom, &loops);
    let pf = &prog.functions[fid as usize];
    let n = flat.instrs.len();
    if pf.code.len() != n {
        return Err(LowerError::Mismatch { function: name, decoded: pf.code.len(), analysed: n });
    }
    let lines = flat.instrs.iter().map(|i| li.line(i.span.start)).collect();
    let a = Analysed { name: &name, fa: &fa, tree: DomPre::new(&dom), loops: &loops, uni: &uni, n, lines };
    // 1. Sites; 2. nesting: tokens pushed while another is live must be popped first.
    let mut sites = find_sites(&a, &mut out.fallbacks);
    nest_sites(&a, &mut sites, &mut out.fallbacks);
    let live: Vec<usize> = (0..sites.len()).filter(|&i| sites[i].alive).collect();
    let stubs = Stubs::new(&sites, &live);
    // 3. Emission. Symbols are local to this function until `record` maps them.
    let fstart = out.prog.code.len();
    func_start.insert(fid, fstart);
    let mut em = Emission { fpending: Vec::new(), at: HashMap::new() };
    let cx = EmitCx { src, a: &a, flat: &flat, prog, code: &pf.code, sites: &sites, stubs: &stubs, is_kernel: pf.is_kernel };
    cx.emit_body(&mut out.prog, &mut em, locals)?;
    record(src, f, &cx, fid, fstart, em, out, pending, locals, &live)
}

/// The stubs at each instruction: SYNC stubs (innermost first) at a
/// meeting point, hoisted SSYs (outermost first) in front of a loop
/// header, and SSYs in place in front of their branch.
struct Stubs {
    sync_at: HashMap<usize, Vec<usize>>,
    pre_at: HashMap<usize, Vec<usize>>,
    before: HashMap<usize, Vec<usize>>,
}

impl Stubs {
    fn new(sites: &[Site], live: &[usize]) -> Stubs {
        let mut st = Stubs { sync_at: HashMap::new(), pre_at: HashMap::new(), before: HashMap::new() };
        for &s in live {
            st.sync_at.entry(sites[s].join).or_default().push(s);
            match sites[s].pos {
                Pos::Pre(h) => st.pre_at.entry(h).or_default().push(s),
                Pos::Before(k) => st.before.entry(k).or_default().push(s),
            }
        }
        for v in st.sync_at.values_mut() {
            v.sort_by_key(|&s| sites[s].size);
        }
        for v in st.pre_at.values_mut().chain(st.before.values_mut()) {
            v.sort_by_key(|&s| std::cmp::Reverse(sites[s].size));
        }
        st
    }

    /// Where an edge from block `ub` to instruction `t` enters: the SYNC
    /// stub of the innermost site whose region holds `ub`, the hoisted
    /// SSYs when coming from outside their loop, or `t` itself.
    fn entry(&self, a: &Analysed<'_>, sites: &[Site], ub: usize, t: usize) -> Sym {
        if t >= a.n {
            return Sym::Code(a.n);
        }
        if let Some(v) = self.sync_at.get(&t) {
            if let Some(&s) = v.iter().find(|&&s| a.tree.holds(&sites[s], ub)) {
                return Sym::SyncStub(s);
            }
        }
        if let Some(&s) = self.pre_at.get(&t).and_then(|v| v.first()) {
            if let Some(l) = sites[s].lp {
                if !a.loops.loops[l].contains(ub) {
                    return Sym::PreStub(t);
                }
            }
        }
        Sym::Code(t)
    }

    /// What falling through into `t` reaches first.
    fn natural(&self, t: usize) -> Sym {
        if let Some(v) = self.sync_at.get(&t) {
            return Sym::SyncStub(v[0]);
        }
        if self.pre_at.contains_key(&t) {
            return Sym::PreStub(t);
        }
        Sym::Code(t)
    }

    /// Where an SSY sends its threads once they have met.
    fn ssy_target(&self, a: &Analysed<'_>, sites: &[Site], s: usize) -> Sym {
        let j = sites[s].join;
        if let Some(chain) = self.sync_at.get(&j) {
            let i = chain.iter().position(|&x| x == s).unwrap_or(0);
            if let Some(&outer) = chain.get(i + 1) {
                return Sym::SyncStub(outer);
            }
        }
        if let Some(&p) = self.pre_at.get(&j).and_then(|v| v.first()) {
            if let Some(l) = sites[p].lp {
                if !a.loops.loops[l].contains(a.site_block(&sites[s])) {
                    return Sym::PreStub(j);
                }
            }
        }
        Sym::Code(j)
    }
}

/// What phase 3 reads while it emits one function.
struct EmitCx<'x, 'f, 'a> {
    src: &'x str,
    a: &'x Analysed<'x>,
    flat: &'x FlatFunction<'f, 'a>,
    prog: &'x Program,
    code: &'x [ptxsim_exec::program::Instr],
    sites: &'x [Site],
    stubs: &'x Stubs,
    is_kernel: bool,
}

/// What phase 3 produces besides the code: the symbolic targets to fix and
/// where each symbol landed.
struct Emission {
    fpending: Vec<(usize, Sym)>,
    at: HashMap<Sym, usize>,
}

fn bra(cc: CcTest) -> MOp {
    MOp::Bra { cc, u: false, lmt: false, dest: Dest::Imm(0) }
}

impl EmitCx<'_, '_, '_> {
    /// Appends one machine instruction; `k`, the PTX instruction it comes from.
    fn emit(&self, code_out: &mut Vec<MInstr>, op: MOp, guard: Option<Guard>, k: Option<usize>) -> usize {
        let (origin, ln) = match k {
            Some(k) => (Origin::Ptx(k as u32), self.a.line(k)),
            None => (Origin::None, 0),
        };
        code_out.push(MInstr { guard, op, origin, line: ln });
        code_out.len() - 1
    }

    fn guard_of(&self, k: usize) -> Option<Guard> {
        let g = self.code[k].guard?;
        let name = self.flat.instrs[k].guard.map(|g| g.pred.text.to_string()).unwrap_or_default();
        Some(Guard { name, slot: g.slot, neg: g.neg })
    }

    fn sync_op(&self, s: usize) -> MOp {
        match self.sites[s].kind {
            SiteKind::Ssy => MOp::Sync { cc: CcTest::T },
            SiteKind::Pbk => MOp::Brk { cc: CcTest::T },
        }
    }

    fn push_op(&self, s: usize) -> MOp {
        match self.sites[s].kind {
            SiteKind::Ssy => MOp::Ssy { off: 0 },
            SiteKind::Pbk => MOp::Pbk { off: 0 },
        }
    }

    /// Whether control can fall from instruction `k` into the next one.
    fn falls(&self, k: usize) -> bool {
        match &self.a.fa.cfg.terms[k] {
            Terminator::None | Terminator::Unresolved => true,
            Terminator::Branch { conditional, .. } => *conditional,
            Terminator::IndirectBranch { .. } => false,
            Terminator::Leave { conditional } => *conditional,
        }
    }

    fn entry(&self, ub: usize, t: usize) -> Sym {
        self.stubs.entry(self.a, self.sites, ub, t)
    }

    /// Phase 3: the function's code, with its stubs, in PTX order.
    fn emit_body(&self, mp: &mut MProgram, em: &mut Emission, locals: &mut Vec<usize>) -> Result<(), LowerError> {
        let (n, cfg, name) = (self.a.n, &self.a.fa.cfg, self.a.name);
        let is_block_end = |k: usize| cfg.blocks[cfg.block_of[k]].end == k + 1;
        for k in 0..=n {
            // Stubs in front of k.
            if let Some(v) = self.stubs.sync_at.get(&k) {
                for &s in v {
                    let i = self.emit(&mut mp.code, self.sync_op(s), None, None);
                    em.at.insert(Sym::SyncStub(s), i);
                }
            }
            if let Some(v) = self.stubs.pre_at.get(&k) {
                em.at.insert(Sym::PreStub(k), mp.code.len());
                for &s in v {
                    let i = self.emit(&mut mp.code, self.push_op(s), None, self.sites[s].branches.first().copied());
                    em.fpending.push((i, self.stubs.ssy_target(self.a, self.sites, s)));
                }
            }
            em.at.insert(Sym::Code(k), mp.code.len());
            if k == n {
                let op = if self.is_kernel { MOp::Exit { cc: CcTest::T } } else { MOp::Ret { cc: CcTest::T } };
                self.emit(&mut mp.code, op, None, None);
                let i = self.emit(&mut mp.code, bra(CcTest::T), None, None);
                em.fpending.push((i, Sym::Local(usize::MAX - i)));
                em.at.insert(Sym::Local(usize::MAX - i), i);
                break;
            }
            let kb = cfg.block_of[k];
            if let Some(v) = self.stubs.before.get(&k) {
                for &s in v {
                    let i = self.emit(&mut mp.code, self.push_op(s), None, Some(k));
                    em.fpending.push((i, self.stubs.ssy_target(self.a, self.sites, s)));
                }
            }
            let g = self.guard_of(k);
            match &self.code[k].op {
                Op::Bra { .. } => {
                    if let Terminator::Branch { target, .. } = cfg.terms[k] {
                        let i = self.emit(&mut mp.code, bra(CcTest::T), g.clone(), Some(k));
                        em.fpending.push((i, self.entry(kb, target)));
                    } else {
                        return Err(LowerError::Unresolved { function: name.to_string(), line: self.a.line(k), what: "a branch whose target is not resolved" });
                    }
                }
                Op::Brx { index, .. } => self.emit_brx(mp, em, k, index, g)?,
                Op::Call { callee, .. } => self.emit_call(mp, em, locals, k, callee, g),
                Op::Ret { .. } => {
                    let op = if self.is_kernel { MOp::Exit { cc: CcTest::T } } else { MOp::Ret { cc: CcTest::T } };
                    self.emit(&mut mp.code, op, g.clone(), Some(k));
                }
                Op::Exit => {
                    self.emit(&mut mp.code, MOp::Exit { cc: CcTest::T }, g.clone(), Some(k));
                }
                _ => {
                    self.emit(&mut mp.code, MOp::Data { pc: k as u32, text: text_of(self.src, self.flat.instrs[k].span) }, None, Some(k));
                }
            }
            // Fall-through into the next block through the right stub.
            if is_block_end(k) && self.falls(k) && k < n {
                let want = self.entry(kb, k + 1);
                if want != self.stubs.natural(k + 1) && k + 1 != n {
                    let i = self.emit(&mut mp.code, bra(CcTest::T), None, None);
                    em.fpending.push((i, want));
                }
            }
        }
        while mp.code.len() % 3 != 0 {
            mp.code.push(MInstr::new(MOp::Nop));
        }
        Ok(())
    }

    /// `brx.idx`: `SHL; LDC c[0x2][table]; BRX` with the table of targets in
    /// constant bank 2.
    fn emit_brx(&self, mp: &mut MProgram, em: &mut Emission, k: usize, index: &ptxsim_exec::program::Src, g: Option<Guard>) -> Result<(), LowerError> {
        let (cfg, name) = (&self.a.fa.cfg, self.a.name);
        let Terminator::IndirectBranch { targets, .. } = &cfg.terms[k] else {
            return Err(LowerError::Unresolved { function: name.to_string(), line: self.a.line(k), what: "brx.idx without a resolved target list" });
        };
        let kb = cfg.block_of[k];
        let idx_name = self.flat.instrs[k].operands.first().map(|o| text_of(self.src, o.span)).unwrap_or_default();
        match index {
            ptxsim_exec::program::Src::Reg(slot) => {
                self.emit(&mut mp.code, MOp::Shl { d: 0, a: AnyReg::Ptx { name: idx_name, slot: *slot }, sh: 2 }, g.clone(), Some(k));
            }
            ptxsim_exec::program::Src::Imm(v) => {
                self.emit(&mut mp.code, MOp::Mov32i { d: 0, imm: (*v as u32).wrapping_mul(4) }, g.clone(), Some(k));
            }
            _ => return Err(LowerError::Unresolved { function: name.to_string(), line: self.a.line(k), what: "brx.idx index is not a register or immediate" }),
        }
        let bank = &mut mp.bank2;
        while bank.len() % 4 != 0 {
            bank.push(0);
        }
        let off = bank.len();
        let table_len = targets.len() * 4;
        bank.resize(off + table_len, 0);
        self.emit(&mut mp.code, MOp::Ldc { d: 0, bank: 2, a: AnyReg::R(0), imm: off as i32 }, g.clone(), Some(k));
        let i = self.emit(&mut mp.code, MOp::Brx { cc: CcTest::T, lmt: false, ra: AnyReg::R(0), imm: 0, call: None }, g, Some(k));
        mp.tables.push(TableRef { brx: i, offset: off as u32, len: targets.len() as u32 });
        for (e, &t) in targets.iter().enumerate() {
            em.fpending.push((usize::MAX - (off + 4 * e), self.entry(kb, t)));
        }
        Ok(())
    }

    /// `call`: CAL (JCAL to an `.extern .func`), or PRET + BRX through a
    /// function pointer; a guarded call wrapped in SSY/SYNC.
    fn emit_call(&self, mp: &mut MProgram, em: &mut Emission, locals: &mut Vec<usize>, k: usize, callee: &Callee, g: Option<Guard>) {
        let (src, flat) = (self.src, self.flat);
        let text = text_of(src, flat.instrs[k].span);
        let text = match flat.instrs[k].guard {
            Some(gd) => text_of(src, ptxsim_syntax::Span { start: gd.span.end, end: flat.instrs[k].span.end }),
            None => text,
        };
        let binding = Some(CallBinding { pc: k as u32, text });
        // A guarded call is wrapped in SSY/SYNC as ptxas does; a
        // guarded `call.uni` keeps its guard on the CAL (no SSY), so
        // that lanes disagreeing on it are the PTX trap `non_uniform`.
        let uni_call = matches!(self.code[k].op, Op::Call { uni: true, .. });
        let wrap = g.is_some() && !uni_call;
        let cg = if uni_call { g.clone() } else { None };
        let lid = locals.len();
        if wrap {
            locals.push(0);
            let i = self.emit(&mut mp.code, MOp::Ssy { off: 0 }, None, Some(k));
            em.fpending.push((i, Sym::Local(lid)));
            let neg = g.map(|mut g| {
                g.neg = !g.neg;
                g
            });
            self.emit(&mut mp.code, MOp::Sync { cc: CcTest::T }, neg, Some(k));
        }
        match callee {
            Callee::Direct(t) if !self.prog.functions[*t as usize].defined => {
                // An `.extern .func`: ptxas emits JCAL to a relocated address.
                self.emit(&mut mp.code, MOp::Jcal { addr: 0, call: binding }, cg, Some(k));
            }
            Callee::Direct(t) => {
                let i = self.emit(&mut mp.code, MOp::Cal { off: 0, call: binding }, cg, Some(k));
                em.fpending.push((i, Sym::Func(*t)));
            }
            Callee::Indirect { .. } => {
                let rid = locals.len();
                locals.push(0);
                let i = self.emit(&mut mp.code, MOp::Pret { off: 0 }, None, Some(k));
                em.fpending.push((i, Sym::Local(rid)));
                let fp = flat.instrs[k].operands.iter().find(|o| matches!(o.kind, ast::OperandKind::Name { .. })).map(|o| text_of(src, o.span)).unwrap_or_default();
                self.emit(&mut mp.code, MOp::Brx { cc: CcTest::T, lmt: false, ra: AnyReg::Ptx { name: fp, slot: 0 }, imm: 0, call: binding }, cg, Some(k));
                em.at.insert(Sym::Local(rid), mp.code.len());
            }
        }
        if wrap {
            self.emit(&mut mp.code, MOp::Sync { cc: CcTest::T }, None, Some(k));
            em.at.insert(Sym::Local(lid), mp.code.len());
        }
    }
}

/// Records the lowered function, maps its local symbols to program-wide
/// ones, and reports its sites.
#[allow(clippy::too_many_arguments)]
fn record(
    src: &str,
    f: &ast::Function<'_>,
    cx: &EmitCx<'_, '_, '_>,
    fid: u32,
    fstart: usize,
    em: Emission,
    out: &mut Lowered,
    pending: &mut Vec<(usize, Sym)>,
    locals: &mut [usize],
    live: &[usize],
) -> Result<(), LowerError> {
    let name = cx.a.name;
    let len = out.prog.code.len() - fstart;
    let mut decls = Vec::new();
    if let Some(b) = &f.body {
        collect_decls(src, b, &mut 0, &mut decls);
    }
    let ptx_decls = decls.into_iter().map(|(k, t)| (em.at.get(&Sym::Code(k)).copied().unwrap_or(fstart) - fstart, t)).collect();
    out.prog.functions.push(MFunction {
        name: name.to_string(),
        is_kernel: cx.is_kernel,
        ptx: fid,
        start: fstart,
        len,
        ptx_header: lines_of(&header_text(src, f)),
        ptx_decls,
    });
    for (i, sym) in em.fpending {
        let target = match sym {
            Sym::Func(t) => Sym::Func(t),
            Sym::Local(l) if l < locals.len() => Sym::Local(l),
            s => match em.at.get(&s) {
                Some(&m) => Sym::Local(usize::MAX / 2 + m),
                None => return Err(LowerError::Internal(format!("{name}: unplaced target {s:?}"))),
            },
        };
        pending.push((i, target));
    }
    for (s, &m) in &em.at {
        if let Sym::Local(l) = s {
            if *l < locals.len() {
                locals[*l] = m;
            }
        }
    }
    for &s in live {
        let site = &cx.sites[s];
        out.sites.push(SiteInfo {
            function: name.to_string(),
            kind: site.kind,
            branches: site.branches.clone(),
            join: site.join,
            hoisted_to: match site.pos {
                Pos::Pre(h) => Some(h),
                Pos::Before(_) => None,
            },
        });
    }
    Ok(())
}

/// Turns symbolic targets into encoded offsets/addresses.
fn resolve(p: &mut MProgram, pending: &[(usize, Sym)], func_start: &HashMap<u32, usize>, locals: &[usize]) -> Result<(), LowerError> {
    for &(i, sym) in pending {
        let m = match sym {
            Sym::Func(t) => *func_start.get(&t).ok_or(LowerError::NoCallee { function: t })?,
            Sym::Local(l) if l >= usize::MAX / 2 => l - usize::MAX / 2,
            Sym::Local(l) => locals[l],
            _ => return Err(LowerError::Internal("unresolved symbol".into())),
        };
        let addr = layout::addr_of(m);
        if i >= usize::MAX / 4 {
            // A jump-table entry in bank 2: an absolute address.
            let off = usize::MAX - i;
            if let Some(slot) = p.bank2.get_mut(off..off + 4) {
                slot.copy_from_slice(&(addr as u32).to_le_bytes());
            }
            continue;
        }
        let rel = layout::offset_to(i, addr);
        match &mut p.code[i].op {
            MOp::Ssy { off } | MOp::Pbk { off } | MOp::Pcnt { off } | MOp::Pret { off } | MOp::Pexit { off } | MOp::Cal { off, .. } => *off = rel,
            MOp::Bra { dest, .. } => *dest = Dest::Imm(rel),
            MOp::Jmp { dest, .. } => *dest = Dest::Imm(addr as i64),
            MOp::Jcal { addr: a, .. } => *a = addr as u32,
            _ => return Err(LowerError::Internal("target on an instruction without one".into())),
        }
        if !layout::fits_signed(rel, 24) {
            return Err(LowerError::TooFar { at: layout::addr_of(i), target: addr });
        }
    }
    // BRX R0 - (address of BRX + 8): the table holds absolute addresses.
    let tables = p.tables.clone();
    for t in tables {
        if let MOp::Brx { imm, .. } = &mut p.code[t.brx].op {
            *imm = -((layout::addr_of(t.brx) + layout::SLOT) as i64);
        }
    }
    Ok(())
}

/// Names every branch target `.L_x_N` in address order (function entries keep their names).
pub fn name_labels(p: &mut MProgram) {
    let starts: HashSet<usize> = p.functions.iter().map(|f| f.start).collect();
    let mut targets: Vec<usize> = Vec::new();
    for (i, ins) in p.code.iter().enumerate() {
        if let Some(t) = crate::text::static_target(p, i, ins) {
            if let Ok(m) = layout::index_of(t, p.code.len()) {
                if layout::addr_of(m) == t && !starts.contains(&m) {
                    targets.push(m);
                }
            }
        }
    }
    for chunk in p.bank2.chunks(4) {
        if chunk.len() == 4 {
            let a = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]) as u64;
            if let Ok(m) = layout::index_of(a, p.code.len()) {
                if layout::addr_of(m) == a {
                    targets.push(m);
                }
            }
        }
    }
    targets.sort_unstable();
    targets.dedup();
    p.labels = targets.into_iter().enumerate().map(|(n, m)| (m, format!(".L_x_{n}"))).collect();
}
