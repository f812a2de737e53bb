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

use crate::cc::CcTest;
use crate::isa::*;
use crate::layout;
use ptxsim_analysis::cfg::Terminator;
use ptxsim_analysis::dom::cfg_dominators;
use ptxsim_analysis::loops::LoopForest;
use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Reconvergence, Uniformity};
use ptxsim_exec::program::{Callee, Op, Program};
use ptxsim_syntax::ast::{self, Item, Statement};
use ptxsim_syntax::LineIndex;
use std::collections::HashMap;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pos {
    Before(usize),
    Pre(usize),
}

struct Site {
    pos: Pos,
    join: usize,
    branches: Vec<usize>,
    region: Vec<bool>,
    size: usize,
    kind: SiteKind,
    /// Blocks of the loop it is hoisted before.
    lp: Option<Vec<bool>>,
    alive: bool,
}

fn text_of(src: &str, sp: ptxsim_syntax::Span) -> String {
    let t = src.get(sp.range()).unwrap_or("");
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    t.trim_end_matches(';').trim_end().to_string()
}

fn lines_of(t: &str) -> Vec<String> {
    t.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
}

/// Lowers every defined function of `module` (whose decoded form is `prog`).
pub fn lower(src: &str, module: &ast::Module<'_>, prog: &Program) -> Result<Lowered, String> {
    let li = LineIndex::new(src);
    let mut out = Lowered { prog: MProgram::default(), sites: Vec::new(), fallbacks: Vec::new() };
    // Module preamble: everything but function bodies.
    for item in &module.items {
        let t = match item {
            Item::Version(v) => text_of(src, v.span),
            Item::Target(t) => text_of(src, t.span),
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
    for item in &module.items {
        let Item::Function(f) = item else { continue };
        if f.body.is_none() {
            continue;
        }
        let Some(fid) = prog.function_by_name(f.name.text) else {
            return Err(format!("function {} is not in the decoded program", f.name.text));
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
) -> Result<(), String> {
    let name = f.name.text.to_string();
    let flat = FlatFunction::new(f).ok_or("no body")?;
    let fa = FunctionAnalysis::new(&flat);
    let dom = cfg_dominators(&fa.cfg);
    let loops = LoopForest::new(&fa.cfg, &dom);
    let uni = Uniformity::with(&flat, &fa, &dom, &loops);
    let pf = &prog.functions[fid as usize];
    let code = &pf.code;
    let n = flat.instrs.len();
    if code.len() != n {
        return Err(format!("{name}: the decoded function has {} instructions, the analysis {n}", code.len()));
    }
    let cfg = &fa.cfg;
    let nb = cfg.blocks.len();
    let is_kernel = pf.is_kernel;
    let line = |k: usize| flat.instrs.get(k).map(|i| li.line(i.span.start)).unwrap_or(0);

    // 1. Sites.
    let mut sites: Vec<Site> = Vec::new();
    for k in 0..n {
        let (targets, conditional, is_uni) = match &cfg.terms[k] {
            Terminator::Branch { target, conditional, uni } => (vec![*target], *conditional, *uni),
            Terminator::IndirectBranch { targets, conditional, uni } => (targets.clone(), *conditional || targets.len() > 1, *uni),
            _ => continue,
        };
        if !conditional || is_uni || !uni.is_divergent(k) {
            continue;
        }
        let Some(Reconvergence::At(j)) = fa.simt_reconvergence[k] else { continue };
        let fall = matches!(cfg.terms[k], Terminator::Branch { .. });
        if targets.iter().all(|&t| t == j) && (!fall || k + 1 == j) {
            continue;
        }
        if j >= n {
            continue;
        }
        let kb = cfg.block_of[k];
        let jb = cfg.block_of[j];
        let outer = loops.loops_containing(kb).into_iter().filter(|&l| !loops.loops[l].contains(jb)).min_by_key(|&l| loops.loops[l].depth);
        let pos = match outer {
            Some(l) => Pos::Pre(cfg.blocks[loops.loops[l].header].start),
            None => Pos::Before(k),
        };
        if let Some(s) = sites.iter_mut().find(|s| s.pos == pos && s.join == j) {
            s.branches.push(k);
            continue;
        }
        // A branch inside a live region with the same meeting point needs no
        // SSY of its own (ptxas: short-circuit chains, an `if` whose join is
        // the enclosing one's): its DIV token sits above that SSY, and the
        // SYNC at the join runs the other side first.
        if let Some(s) = sites.iter_mut().find(|s| s.join == j && s.region[kb] && matches!(pos, Pos::Before(_))) {
            s.branches.push(k);
            continue;
        }
        let start = match pos {
            Pos::Before(_) => kb,
            Pos::Pre(h) => cfg.block_of[h],
        };
        let mut region = vec![false; nb];
        let mut stack = vec![start];
        region[start] = true;
        let mut cyclic = false;
        while let Some(b) = stack.pop() {
            for &s in &cfg.blocks[b].succs {
                if s >= nb || s == jb {
                    continue;
                }
                if s == start && matches!(pos, Pos::Before(_)) {
                    cyclic = true;
                }
                if !region[s] {
                    region[s] = true;
                    stack.push(s);
                }
            }
        }
        let lp = outer.map(|l| {
            let mut v = vec![false; nb];
            for &b in &loops.loops[l].blocks {
                v[b] = true;
            }
            v
        });
        let mut bad = None;
        if cyclic {
            bad = Some("the branch can run again before its threads meet");
        }
        if (0..nb).any(|b| region[b] && !dom.dominates(start, b)) {
            bad = Some("its region can be entered other than through the branch (unstructured control flow)");
        }
        if let (Pos::Pre(_), Some(lp)) = (pos, &lp) {
            if (0..nb).any(|b| region[b] && !lp[b] && cfg.blocks[b].succs.contains(&start)) {
                bad = Some("the loop can be re-entered from its own exit before the threads meet");
            }
        }
        if let Some(r) = bad {
            out.fallbacks.push(Fallback { function: name.clone(), branch: k, line: line(k), reason: r.into() });
            continue;
        }
        // ptxas (observed): PBK for a switch and when the region holds a
        // loop that is left by a break (more than one exit edge), SSY otherwise.
        let breaks = |l: &ptxsim_analysis::loops::Loop| l.exits.len() > 1;
        let kind = match (pos, &outer) {
            // A `brx.idx` switch: its cases end in BRK to a PBK, as ptxas
            // lowers a C switch whose cases end in `break`.
            (Pos::Before(_), _) if matches!(cfg.terms[k], Terminator::IndirectBranch { .. }) => SiteKind::Pbk,
            (Pos::Pre(_), Some(l)) if breaks(&loops.loops[*l]) => SiteKind::Pbk,
            (Pos::Pre(_), _) => SiteKind::Ssy,
            (Pos::Before(_), _) if loops.loops.iter().any(|l| l.blocks.iter().all(|&b| region[b]) && breaks(l)) => SiteKind::Pbk,
            _ => SiteKind::Ssy,
        };
        let size = region.iter().filter(|&&x| x).count();
        sites.push(Site { pos, join: j, branches: vec![k], region, size, kind, lp, alive: true });
    }
    // 2. Nesting: tokens pushed while another is live must be popped first.
    let site_block = |s: &Site| match s.pos {
        Pos::Before(k) => cfg.block_of[k],
        Pos::Pre(h) => cfg.block_of[h],
    };
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sites[i].size));
    for a in 0..order.len() {
        for b in a + 1..order.len() {
            let (x, y) = (order[a], order[b]);
            if !sites[x].alive || !sites[y].alive {
                continue;
            }
            let (sx, sy) = (&sites[x], &sites[y]);
            let overlap = (0..nb).any(|u| sx.region[u] && sy.region[u]);
            if !overlap {
                continue;
            }
            let jxb = cfg.block_of[sx.join];
            let nested = sx.region[site_block(sy)]
                && (0..nb).all(|u| !sy.region[u] || sx.region[u])
                && (sy.join == sx.join || (0..nb).all(|u| !sy.region[u] || !cfg.blocks[u].succs.contains(&jxb)))
                && !(sx.pos == sy.pos && sx.join != sy.join && matches!(sx.pos, Pos::Pre(_)) && sx.size == sy.size);
            if !nested {
                sites[y].alive = false;
                for &k in &sites[y].branches {
                    out.fallbacks.push(Fallback {
                        function: name.clone(),
                        branch: k,
                        line: line(k),
                        reason: "its SSY region overlaps another without nesting in it (unstructured control flow)".into(),
                    });
                }
            }
        }
    }
    let live: Vec<usize> = (0..sites.len()).filter(|&i| sites[i].alive).collect();
    // Stubs at each instruction: SYNC stubs (innermost first), then hoisted SSYs (outermost first).
    let mut sync_at: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut pre_at: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut before: HashMap<usize, Vec<usize>> = HashMap::new();
    for &s in &live {
        sync_at.entry(sites[s].join).or_default().push(s);
        match sites[s].pos {
            Pos::Pre(h) => pre_at.entry(h).or_default().push(s),
            Pos::Before(k) => before.entry(k).or_default().push(s),
        }
    }
    for v in sync_at.values_mut() {
        v.sort_by_key(|&s| sites[s].size);
    }
    for v in pre_at.values_mut().chain(before.values_mut()) {
        v.sort_by_key(|&s| std::cmp::Reverse(sites[s].size));
    }
    let entry = |ub: usize, t: usize| -> Sym {
        if t >= n {
            return Sym::Code(n);
        }
        if let Some(v) = sync_at.get(&t) {
            if let Some(&s) = v.iter().find(|&&s| sites[s].region[ub]) {
                return Sym::SyncStub(s);
            }
        }
        if let Some(v) = pre_at.get(&t) {
            if let Some(lp) = &sites[v[0]].lp {
                if !lp[ub] {
                    return Sym::PreStub(t);
                }
            }
        }
        Sym::Code(t)
    };
    let natural = |t: usize| -> Sym {
        if let Some(v) = sync_at.get(&t) {
            return Sym::SyncStub(v[0]);
        }
        if pre_at.contains_key(&t) {
            return Sym::PreStub(t);
        }
        Sym::Code(t)
    };
    // Where an SSY sends its threads once they have met.
    let ssy_target = |s: usize| -> Sym {
        let j = sites[s].join;
        let chain = &sync_at[&j];
        let i = chain.iter().position(|&x| x == s).unwrap_or(0);
        if let Some(&outer) = chain.get(i + 1) {
            return Sym::SyncStub(outer);
        }
        if let Some(v) = pre_at.get(&j) {
            if let Some(lp) = &sites[v[0]].lp {
                if !lp[site_block(&sites[s])] {
                    return Sym::PreStub(j);
                }
            }
        }
        Sym::Code(j)
    };
    // 3. Emission. Symbols are local to this function until `fix` maps them.
    let code_out = &mut out.prog.code;
    let fstart = code_out.len();
    func_start.insert(fid, fstart);
    let mut fpending: Vec<(usize, Sym)> = Vec::new();
    let mut at: HashMap<Sym, usize> = HashMap::new();
    let emit = |code_out: &mut Vec<MInstr>, op: MOp, guard: Option<Guard>, k: Option<usize>| -> usize {
        let (origin, ln) = match k {
            Some(k) => (Origin::Ptx(k as u32), line(k)),
            None => (Origin::None, 0),
        };
        code_out.push(MInstr { guard, op, origin, line: ln });
        code_out.len() - 1
    };
    let guard_of = |k: usize| -> Option<Guard> {
        let g = code[k].guard?;
        let name = flat.instrs[k].guard.map(|g| g.pred.text.to_string()).unwrap_or_default();
        Some(Guard { name, slot: g.slot, neg: g.neg })
    };
    let neg = |g: &Option<Guard>| g.clone().map(|mut g| {
        g.neg = !g.neg;
        g
    });
    let sync_op = |s: usize| match sites[s].kind {
        SiteKind::Ssy => MOp::Sync { cc: CcTest::T },
        SiteKind::Pbk => MOp::Brk { cc: CcTest::T },
    };
    let push_op = |s: usize| match sites[s].kind {
        SiteKind::Ssy => MOp::Ssy { off: 0 },
        SiteKind::Pbk => MOp::Pbk { off: 0 },
    };
    let falls = |k: usize| -> bool {
        match &cfg.terms[k] {
            Terminator::None | Terminator::Unresolved => true,
            Terminator::Branch { conditional, .. } => *conditional,
            Terminator::IndirectBranch { .. } => false,
            Terminator::Leave { conditional } => *conditional,
        }
    };
    let is_block_end = |k: usize| cfg.blocks[cfg.block_of[k]].end == k + 1;
    for k in 0..=n {
        // Stubs in front of k.
        if let Some(v) = sync_at.get(&k) {
            for &s in v {
                let i = emit(code_out, sync_op(s), None, None);
                at.insert(Sym::SyncStub(s), i);
            }
        }
        if let Some(v) = pre_at.get(&k) {
            let first = code_out.len();
            at.insert(Sym::PreStub(k), first);
            for &s in v {
                let i = emit(code_out, push_op(s), None, sites[s].branches.first().copied());
                fpending.push((i, ssy_target(s)));
            }
        }
        at.insert(Sym::Code(k), code_out.len());
        if k == n {
            let op = if is_kernel { MOp::Exit { cc: CcTest::T } } else { MOp::Ret { cc: CcTest::T } };
            emit(code_out, op, None, None);
            let i = emit(code_out, MOp::Bra { cc: CcTest::T, u: false, lmt: false, dest: Dest::Imm(0) }, None, None);
            fpending.push((i, Sym::Local(usize::MAX - i)));
            at.insert(Sym::Local(usize::MAX - i), i);
            break;
        }
        let kb = cfg.block_of[k];
        if let Some(v) = before.get(&k) {
            for &s in v {
                let i = emit(code_out, push_op(s), None, Some(k));
                fpending.push((i, ssy_target(s)));
            }
        }
        let g = guard_of(k);
        let bra = |cc| MOp::Bra { cc, u: false, lmt: false, dest: Dest::Imm(0) };
        match &code[k].op {
            Op::Bra { .. } => {
                if let Terminator::Branch { target, .. } = cfg.terms[k] {
                    let i = emit(code_out, bra(CcTest::T), g.clone(), Some(k));
                    fpending.push((i, entry(kb, target)));
                } else {
                    return Err(format!("{name}: line {}: a branch whose target is not resolved", line(k)));
                }
            }
            Op::Brx { index, .. } => {
                let Terminator::IndirectBranch { targets, .. } = &cfg.terms[k] else {
                    return Err(format!("{name}: line {}: brx.idx without a resolved target list", line(k)));
                };
                let idx_name = flat.instrs[k].operands.first().map(|o| text_of(src, o.span)).unwrap_or_default();
                match index {
                    ptxsim_exec::program::Src::Reg(slot) => {
                        emit(code_out, MOp::Shl { d: 0, a: AnyReg::Ptx { name: idx_name, slot: *slot }, sh: 2 }, g.clone(), Some(k));
                    }
                    ptxsim_exec::program::Src::Imm(v) => {
                        emit(code_out, MOp::Mov32i { d: 0, imm: (*v as u32).wrapping_mul(4) }, g.clone(), Some(k));
                    }
                    _ => return Err(format!("{name}: line {}: brx.idx index is not a register or immediate", line(k))),
                }
                let bank = &mut out.prog.bank2;
                while bank.len() % 4 != 0 {
                    bank.push(0);
                }
                let off = bank.len();
                let table_len = targets.len() * 4;
                bank.resize(off + table_len, 0);
                emit(code_out, MOp::Ldc { d: 0, bank: 2, a: AnyReg::R(0), imm: off as i32 }, g.clone(), Some(k));
                let i = emit(code_out, MOp::Brx { cc: CcTest::T, lmt: false, ra: AnyReg::R(0), imm: 0, call: None }, g.clone(), Some(k));
                out.prog.tables.push(TableRef { brx: i, offset: off as u32, len: targets.len() as u32 });
                for (e, &t) in targets.iter().enumerate() {
                    fpending.push((usize::MAX - (off + 4 * e), entry(kb, t)));
                }
            }
            Op::Call { callee, .. } => {
                let text = text_of(src, flat.instrs[k].span);
                let text = match flat.instrs[k].guard {
                    Some(gd) => text_of(src, ptxsim_syntax::Span { start: gd.span.end, end: flat.instrs[k].span.end }),
                    None => text,
                };
                let binding = Some(CallBinding { pc: k as u32, text });
                // A guarded call is wrapped in SSY/SYNC as ptxas does; a
                // guarded `call.uni` keeps its guard on the CAL (no SSY), so
                // that lanes disagreeing on it are the PTX trap `non_uniform`.
                let uni_call = matches!(code[k].op, Op::Call { uni: true, .. });
                let wrap = g.is_some() && !uni_call;
                let cg = if uni_call { g.clone() } else { None };
                let lid = locals.len();
                if wrap {
                    locals.push(0);
                    let i = emit(code_out, MOp::Ssy { off: 0 }, None, Some(k));
                    fpending.push((i, Sym::Local(lid)));
                    emit(code_out, MOp::Sync { cc: CcTest::T }, neg(&g), Some(k));
                }
                match callee {
                    Callee::Direct(t) if !prog.functions[*t as usize].defined => {
                        // An `.extern .func`: ptxas emits JCAL to a relocated address.
                        emit(code_out, MOp::Jcal { addr: 0, call: binding }, cg.clone(), Some(k));
                    }
                    Callee::Direct(t) => {
                        let i = emit(code_out, MOp::Cal { off: 0, call: binding }, cg.clone(), Some(k));
                        fpending.push((i, Sym::Func(*t)));
                    }
                    Callee::Indirect { .. } => {
                        let rid = locals.len();
                        locals.push(0);
                        let i = emit(code_out, MOp::Pret { off: 0 }, None, Some(k));
                        fpending.push((i, Sym::Local(rid)));
                        let fp = flat.instrs[k].operands.iter().find(|o| matches!(o.kind, ast::OperandKind::Name { .. })).map(|o| text_of(src, o.span)).unwrap_or_default();
                        emit(code_out, MOp::Brx { cc: CcTest::T, lmt: false, ra: AnyReg::Ptx { name: fp, slot: 0 }, imm: 0, call: binding }, cg.clone(), Some(k));
                        at.insert(Sym::Local(rid), code_out.len());
                    }
                }
                if wrap {
                    emit(code_out, MOp::Sync { cc: CcTest::T }, None, Some(k));
                    at.insert(Sym::Local(lid), code_out.len());
                }
            }
            Op::Ret { .. } => {
                let op = if is_kernel { MOp::Exit { cc: CcTest::T } } else { MOp::Ret { cc: CcTest::T } };
                emit(code_out, op, g.clone(), Some(k));
            }
            Op::Exit => {
                emit(code_out, MOp::Exit { cc: CcTest::T }, g.clone(), Some(k));
            }
            _ => {
                emit(code_out, MOp::Data { pc: k as u32, text: text_of(src, flat.instrs[k].span) }, None, Some(k));
            }
        }
        // Fall-through into the next block through the right stub.
        if is_block_end(k) && falls(k) && k + 1 <= n {
            let want = entry(kb, k + 1);
            if want != natural(k + 1) && !(k + 1 == n) {
                let i = emit(code_out, bra(CcTest::T), None, None);
                fpending.push((i, want));
            }
        }
    }
    while code_out.len() % 3 != 0 {
        code_out.push(MInstr::new(MOp::Nop));
    }
    let len = code_out.len() - fstart;
    // Record the function and map local symbols to program-wide ones.
    let mut decls = Vec::new();
    if let Some(b) = &f.body {
        collect_decls(src, b, &mut 0, &mut decls);
    }
    let ptx_decls = decls.into_iter().map(|(k, t)| (at.get(&Sym::Code(k)).copied().unwrap_or(fstart) - fstart, t)).collect();
    out.prog.functions.push(MFunction {
        name: name.clone(),
        is_kernel,
        ptx: fid,
        start: fstart,
        len,
        ptx_header: lines_of(&header_text(src, f)),
        ptx_decls,
    });
    for (i, sym) in fpending {
        let target = match sym {
            Sym::Func(t) => Sym::Func(t),
            Sym::Local(l) if l < locals.len() => Sym::Local(l),
            s => match at.get(&s) {
                Some(&m) => Sym::Local(usize::MAX / 2 + m),
                None => return Err(format!("{name}: internal: unplaced target {s:?}")),
            },
        };
        pending.push((i, target));
    }
    for (s, &m) in &at {
        if let Sym::Local(l) = s {
            if *l < locals.len() {
                locals[*l] = m;
            }
        }
    }
    for &s in &live {
        out.sites.push(SiteInfo {
            function: name.clone(),
            kind: sites[s].kind,
            branches: sites[s].branches.clone(),
            join: sites[s].join,
            hoisted_to: match sites[s].pos {
                Pos::Pre(h) => Some(h),
                Pos::Before(_) => None,
            },
        });
    }
    Ok(())
}

/// Turns symbolic targets into encoded offsets/addresses.
fn resolve(p: &mut MProgram, pending: &[(usize, Sym)], func_start: &HashMap<u32, usize>, locals: &[usize]) -> Result<(), String> {
    for &(i, sym) in pending {
        let m = match sym {
            Sym::Func(t) => *func_start.get(&t).ok_or_else(|| format!("call to function #{t}, which has no body"))?,
            Sym::Local(l) if l >= usize::MAX / 2 => l - usize::MAX / 2,
            Sym::Local(l) => locals[l],
            _ => return Err("internal: unresolved symbol".into()),
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
            _ => return Err("internal: target on an instruction without one".into()),
        }
        if !layout::fits_signed(rel, 24) {
            return Err(format!("a branch at {:#x} is too far from its target {addr:#x} for the signed 24-bit offset", layout::addr_of(i)));
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
    let mut targets: Vec<usize> = Vec::new();
    for (i, ins) in p.code.iter().enumerate() {
        if let Some(t) = crate::text::static_target(p, i, ins) {
            if let Ok(m) = layout::index_of(t, p.code.len()) {
                if layout::addr_of(m) == t && !p.functions.iter().any(|f| f.start == m) {
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
