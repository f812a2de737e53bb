//! Uniformity analysis: which branches (and calls) may diverge, and why.
//!
//! A forward data-flow problem on the [`crate::dataflow`] framework. The state
//! at each point is the set of registers that may hold different values in the
//! threads of a warp, pruned to the live registers (so states stay as small as
//! register pressure). Sources of divergence are `%tid`, `%laneid`,
//! `%lanemask_*`, atomics, lane-dependent warp operations, loads from local or
//! generic memory, call results and parameters of non-kernel functions (see
//! [`crate::insn`]). Divergence flows through data dependence, through guards
//! (a divergent guard makes its results divergent), and through sync
//! dependence: when a branch is found divergent, the registers written in its
//! divergent region become divergent at the region's join blocks (blocks that
//! two disjoint paths from different successors reach, found by label
//! propagation as in LLVM's `SyncDependenceAnalysis`), and the registers
//! written in a loop become divergent at the loop's exits when threads may
//! leave that loop in different iterations (temporal divergence). Regions inside
//! irreducible cycles fall back to treating every merge block as a join.
//!
//! Every divergent register records its first reason, so each divergent branch
//! carries a cause chain back to a source.
//!
//! Invariants: the analysis is sound (a branch reported uniform cannot
//! diverge, for the sources above); states only grow, so it terminates.

use crate::cfg::{BlockId, Cfg, Terminator};
use crate::dataflow::{solve, Analysis, Direction, Effects, GenKill, Liveness, SparseSet};
use crate::dom::{cfg_dominators, DomTree};
use crate::flat::FlatFunction;
use crate::insn::{InsnInfo, Reg, RegTable, ResultKind};
use crate::loops::LoopForest;
use crate::reconv::FunctionAnalysis;
use ptxsim_syntax::ast::FunctionKind;
use std::collections::HashMap;

/// Why a register became divergent somewhere.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Why {
    Source(String),
    Data(Reg),
    Guard(Reg),
    Sync { branch: usize, join: BlockId },
    Temporal { branch: usize, exit: BlockId, header: BlockId },
    Param,
}

/// One link of a cause chain, from the branch back towards a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CauseStep {
    /// `reg` is written at `instr` from the divergent register `from`.
    Data { reg: String, instr: usize, from: String },
    /// `reg` is written at `instr` under the divergent guard `pred`.
    Guard { reg: String, instr: usize, pred: String },
    /// `reg` is written at `instr` from a source of divergence.
    Source { reg: String, instr: usize, what: String },
    /// `reg` is a `.reg` parameter of a non-kernel function.
    Param { reg: String },
    /// `reg` is written on the divergent paths of the branch at `branch` and
    /// merges at the join block starting at instruction `join`.
    Sync { reg: String, join: usize, branch: usize },
    /// `reg` is written in the loop headed at instruction `header`, which the
    /// branch at `branch` lets threads leave in different iterations; it is
    /// read after the exit starting at instruction `exit`.
    Temporal { reg: String, exit: usize, header: usize, branch: usize },
    /// The chain was cut (a cycle, or too long).
    Truncated,
}

/// The verdict on one branch-like instruction (`bra`, `brx.idx`, guarded
/// `ret`/`exit`/`trap`, `call`).
#[derive(Clone, Debug)]
pub struct BranchVerdict {
    pub instr: usize,
    pub divergent: bool,
    /// Whether it is marked `.uni`.
    pub uni: bool,
    /// The register that decides it (guard, or `brx.idx` index / call target).
    pub decided_by: Option<String>,
    /// From the deciding register back to a source (empty when uniform).
    pub cause: Vec<CauseStep>,
}

/// Uniformity facts about one function.
#[derive(Debug)]
pub struct Uniformity {
    /// Verdicts for every conditional branch, guarded leave, `brx.idx` and call, by instruction.
    pub verdicts: Vec<BranchVerdict>,
    by_instr: HashMap<usize, usize>,
    /// How many block transfers the solver needed.
    pub transfers: usize,
}

impl Uniformity {
    /// Analyses a function whose CFG and post-dominators are already known.
    pub fn new(f: &FlatFunction<'_, '_>, fa: &FunctionAnalysis) -> Uniformity {
        let dom = cfg_dominators(&fa.cfg);
        let loops = LoopForest::new(&fa.cfg, &dom);
        Uniformity::with(f, fa, &dom, &loops)
    }

    /// Analyses a function given its dominators and loops too.
    pub fn with(f: &FlatFunction<'_, '_>, fa: &FunctionAnalysis, dom: &DomTree, loops: &LoopForest) -> Uniformity {
        let _ = dom;
        let regs = RegTable::new(f);
        let infos: Vec<InsnInfo> = f.instrs.iter().map(|i| InsnInfo::new(f, &regs, i)).collect();
        let cfg = &fa.cfg;
        let nb = cfg.blocks.len();
        let mut gk = vec![GenKill::default(); nb];
        let mut block_defs = vec![SparseSet::new(); nb];
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let (mut gen, mut kill, mut defs) = (Vec::new(), SparseSet::new(), Vec::new());
            for k in blk.start..blk.end {
                let info = &infos[k];
                for &u in info.uses.iter().chain(info.guard.iter()) {
                    if !kill.contains(u) {
                        gen.push(u);
                    }
                }
                for &d in &info.defs {
                    // A guarded write keeps the old value in some threads: it reads it too.
                    if info.guard.is_some() {
                        if !kill.contains(d) {
                            gen.push(d);
                        }
                    } else {
                        kill.insert(d);
                    }
                    defs.push(d);
                }
            }
            gk[b] = GenKill { gen: SparseSet::from_unsorted(gen), kill };
            block_defs[b] = SparseSet::from_unsorted(defs);
        }
        let live = Liveness::new(cfg, &gk);
        let rpo = cfg.reverse_postorder();
        let mut rpo_idx = vec![usize::MAX; nb];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_idx[b] = i;
        }
        let mut entry_div = SparseSet::new();
        if f.func.kind != FunctionKind::Entry {
            for p in f.func.params.iter().flatten() {
                if let Some(r) = regs.get(p.name.text) {
                    entry_div.insert(r);
                }
            }
        }
        let mut a = UniAnalysis {
            cfg,
            fa,
            loops,
            infos: &infos,
            live: &live,
            block_defs: &block_defs,
            rpo_idx: &rpo_idx,
            entry_div: entry_div.clone(),
            def_why: HashMap::new(),
            entry_why: HashMap::new(),
            branch_why: HashMap::new(),
            reg_first: HashMap::new(),
            scratch: Scratch { lab: vec![NONE; nb], inr: vec![0; nb], gen: 0 },
        };
        for r in entry_div.iter() {
            a.reg_first.insert(r, Site::Param);
        }
        let res = solve(cfg, &mut a);
        // Verdicts.
        let mut verdicts = Vec::new();
        let mut by_instr = HashMap::new();
        for (k, i) in f.instrs.iter().enumerate() {
            let t = &cfg.terms[k];
            let relevant = match t {
                Terminator::Branch { conditional, .. } | Terminator::Leave { conditional } => *conditional,
                Terminator::IndirectBranch { .. } => true,
                Terminator::None => i.opcode.text == "call",
                Terminator::Unresolved => false,
            };
            let b = cfg.block_of[k];
            if !relevant || rpo_idx[b] == usize::MAX {
                continue;
            }
            let decided = a.branch_why.get(&k).cloned();
            let decided_by_reg = match t {
                Terminator::IndirectBranch { .. } => infos[k].uses.first().copied().or(infos[k].guard),
                _ => infos[k].guard,
            };
            let (divergent, cause, decided_by) = match decided {
                Some(r) => {
                    let mut visited = Vec::new();
                    let mut cause = Vec::new();
                    a.explain(&regs, r, k, &res.entry, &mut cause, &mut visited, 0);
                    (true, cause, Some(regs.name(r)))
                }
                None => (false, Vec::new(), decided_by_reg.map(|r| regs.name(r))),
            };
            by_instr.insert(k, verdicts.len());
            verdicts.push(BranchVerdict { instr: k, divergent, uni: i.has_modifier(".uni"), decided_by, cause });
        }
        Uniformity { verdicts, by_instr, transfers: res.transfers }
    }

    /// The verdict for the instruction at `k`, if it is branch-like.
    pub fn verdict(&self, k: usize) -> Option<&BranchVerdict> {
        self.by_instr.get(&k).map(|&i| &self.verdicts[i])
    }

    /// Whether the instruction at `k` may diverge.
    pub fn is_divergent(&self, k: usize) -> bool {
        self.verdict(k).is_some_and(|v| v.divergent)
    }
}

const NONE: usize = usize::MAX;

/// Where a register first became divergent.
#[derive(Clone, Copy, Debug)]
enum Site {
    Def(usize),
    Entry(BlockId),
    Param,
}

struct Scratch {
    lab: Vec<usize>,
    inr: Vec<u32>,
    gen: u32,
}

struct UniAnalysis<'x> {
    cfg: &'x Cfg,
    fa: &'x FunctionAnalysis,
    loops: &'x LoopForest,
    infos: &'x [InsnInfo],
    live: &'x Liveness,
    block_defs: &'x [SparseSet],
    rpo_idx: &'x [usize],
    entry_div: SparseSet,
    def_why: HashMap<usize, Why>,
    entry_why: HashMap<(BlockId, Reg), Why>,
    /// For each divergent branch-like instruction, the divergent register deciding it.
    branch_why: HashMap<usize, Reg>,
    reg_first: HashMap<Reg, Site>,
    scratch: Scratch,
}

impl Analysis for UniAnalysis<'_> {
    type State = SparseSet;
    const DIRECTION: Direction = Direction::Forward;
    fn bottom(&self) -> SparseSet {
        SparseSet::new()
    }
    fn boundary(&self) -> SparseSet {
        self.entry_div.clone()
    }
    fn join(&self, target: BlockId, into: &mut SparseSet, from: &SparseSet) -> bool {
        let live = &self.live.live_in[target];
        into.union_filtered(from, |r| live.contains(r))
    }
    fn transfer(&mut self, b: BlockId, state: &mut SparseSet, fx: &mut Effects<SparseSet>) {
        let blk = &self.cfg.blocks[b];
        for k in blk.start..blk.end {
            let info = &self.infos[k];
            let gdiv = info.guard.filter(|&g| state.contains(g));
            let udiv = info.uses.iter().copied().find(|&u| state.contains(u));
            let (result, why) = match &info.kind {
                ResultKind::Source(s) => (true, Some(Why::Source(s.clone()))),
                ResultKind::Uniform => (false, None),
                ResultKind::Data => (udiv.is_some(), udiv.map(Why::Data)),
            };
            let (new, why) = match (info.guard, gdiv) {
                (_, Some(g)) if !result => (true, Some(Why::Guard(g))),
                _ => (result, why),
            };
            for &d in &info.defs {
                if new {
                    state.insert(d);
                    self.reg_first.entry(d).or_insert(Site::Def(k));
                } else if info.guard.is_none() {
                    state.remove(d);
                }
            }
            if new && !info.defs.is_empty() {
                if let Some(w) = why {
                    self.def_why.entry(k).or_insert(w);
                }
            }
            let decider = match &self.cfg.terms[k] {
                Terminator::Branch { conditional: true, .. } | Terminator::Leave { conditional: true } => gdiv,
                Terminator::IndirectBranch { .. } => info.uses.first().copied().filter(|&u| state.contains(u)).or(gdiv),
                Terminator::None if self.fa.cfg.terms.len() > k && is_call(info) => gdiv.or(udiv),
                _ => None,
            };
            if let Some(r) = decider {
                if let std::collections::hash_map::Entry::Vacant(e) = self.branch_why.entry(k) {
                    e.insert(r);
                    if matches!(self.cfg.terms[k], Terminator::Branch { .. } | Terminator::IndirectBranch { .. }) {
                        self.sync_effects(k, b, fx);
                    }
                }
            }
        }
    }
}

fn is_call(info: &InsnInfo) -> bool {
    matches!(&info.kind, ResultKind::Source(s) if s == "the result of a call")
}

impl UniAnalysis<'_> {
    /// A branch at `k` in block `b` has just been found divergent: mark the
    /// registers written on its divergent paths divergent at its join blocks,
    /// and the registers of loops it lets threads leave at those loops' exits.
    fn sync_effects(&mut self, k: usize, b: BlockId, fx: &mut Effects<SparseSet>) {
        let cfg = self.cfg;
        let nb = cfg.blocks.len();
        let p = match self.fa.postdom.idom.get(b).copied().flatten() {
            Some(p) if p < nb => Some(p),
            _ => None,
        };
        let s = &mut self.scratch;
        s.gen += 1;
        let gen = s.gen;
        // Region: reachable from the successors without passing the ipdom.
        let mut region: Vec<BlockId> = Vec::new();
        let mut stack: Vec<BlockId> = Vec::new();
        for &x in &cfg.blocks[b].succs {
            if Some(x) != p && s.inr[x] != gen {
                s.inr[x] = gen;
                stack.push(x);
            }
        }
        while let Some(u) = stack.pop() {
            region.push(u);
            for &x in &cfg.blocks[u].succs {
                if Some(x) != p && s.inr[x] != gen {
                    s.inr[x] = gen;
                    stack.push(x);
                }
            }
        }
        let mut defs = Vec::new();
        for &u in &region {
            defs.extend(self.block_defs[u].iter());
        }
        let region_defs = SparseSet::from_unsorted(defs);
        let mut nodes = region.clone();
        nodes.extend(p);
        nodes.sort_by_key(|&u| self.rpo_idx[u]);
        let in_region = |s: &Scratch, u: BlockId| s.inr[u] == gen;
        // Headers of the loops holding the branch: edges into them are cut
        // (they start a new iteration); what reaches them is collected apart.
        let holding = self.loops.loops_containing(b);
        let headers: Vec<BlockId> = holding.iter().map(|&l| self.loops.loops[l].header).collect();
        let cut = |_u: BlockId, v: BlockId| headers.contains(&v);
        for &u in &nodes {
            s.lab[u] = NONE;
        }
        let succs_b = &cfg.blocks[b].succs;
        // Contributions reaching `v` over uncut edges.
        let contributions = |s: &Scratch, v: BlockId| -> (usize, bool) {
            let mut first = NONE;
            let mut many = false;
            let add = |l: usize, first: &mut usize, many: &mut bool| {
                if l == NONE {
                    return;
                }
                if *first == NONE {
                    *first = l;
                } else if *first != l {
                    *many = true;
                }
            };
            if succs_b.contains(&v) && !cut(b, v) {
                add(v, &mut first, &mut many);
            }
            for &q in &cfg.blocks[v].preds {
                if q != b && in_region(s, q) && !cut(q, v) {
                    add(s.lab[q], &mut first, &mut many);
                }
            }
            (first, many)
        };
        let mut converged = false;
        for _ in 0..(2 * nodes.len() + 4) {
            let mut changed = false;
            for &v in &nodes {
                let (first, many) = contributions(s, v);
                let new = if many { v } else { first };
                if s.lab[v] != new {
                    s.lab[v] = new;
                    changed = true;
                }
            }
            if !changed {
                converged = true;
                break;
            }
        }
        let irreducible = !converged
            || self.loops.irreducible_containing(b).is_some()
            || nodes.iter().any(|&u| self.loops.irreducible_containing(u).is_some());
        let mut joins: Vec<BlockId> = Vec::new();
        for &v in &nodes {
            let (_, many) = contributions(s, v);
            let merge = irreducible && cfg.blocks[v].preds.len() > 1;
            if many || merge {
                joins.push(v);
            }
        }
        // Labels arriving at each holding loop's header over cut edges.
        let mut header_labels: Vec<(BlockId, Vec<usize>)> = Vec::new();
        for &h in &headers {
            let mut ls = Vec::new();
            if succs_b.contains(&h) {
                ls.push(h);
            }
            for &q in &cfg.blocks[h].preds {
                if q != b && in_region(s, q) && s.lab[q] != NONE {
                    ls.push(s.lab[q]);
                }
            }
            ls.sort_unstable();
            ls.dedup();
            if ls.len() > 1 && !joins.contains(&h) {
                joins.push(h);
            }
            header_labels.push((h, ls));
        }
        for &j in &joins {
            let live = &self.live.live_in[j];
            let regs: Vec<Reg> = region_defs.iter().filter(|&r| live.contains(r)).collect();
            for &r in &regs {
                self.entry_why.entry((j, r)).or_insert(Why::Sync { branch: k, join: j });
                self.reg_first.entry(r).or_insert(Site::Entry(j));
            }
            if !regs.is_empty() {
                fx.inject(j, SparseSet(regs));
            }
        }
        // Temporal divergence at loop exits.
        for (li, &l) in holding.iter().enumerate() {
            let (h, ref hl) = header_labels[li];
            if hl.is_empty() {
                continue;
            }
            let lp = &self.loops.loops[l];
            let mut ldefs = Vec::new();
            for &x in &lp.blocks {
                ldefs.extend(self.block_defs[x].iter());
            }
            let ldefs = SparseSet::from_unsorted(ldefs);
            for x in lp.exit_blocks() {
                if !(in_region(s, x) || Some(x) == p) {
                    continue;
                }
                let mut ls = hl.clone();
                if succs_b.contains(&x) {
                    ls.push(x);
                }
                for &q in &cfg.blocks[x].preds {
                    if q != b && in_region(s, q) && s.lab[q] != NONE && lp.contains(q) {
                        ls.push(s.lab[q]);
                    }
                }
                ls.sort_unstable();
                ls.dedup();
                if ls.len() < 2 && !irreducible {
                    continue;
                }
                let live = &self.live.live_in[x];
                let regs: Vec<Reg> = ldefs.iter().filter(|&r| live.contains(r)).collect();
                for &r in &regs {
                    self.entry_why.entry((x, r)).or_insert(Why::Temporal { branch: k, exit: x, header: h });
                    self.reg_first.entry(r).or_insert(Site::Entry(x));
                }
                if !regs.is_empty() {
                    fx.inject(x, SparseSet(regs));
                }
            }
        }
    }

    /// Appends the chain explaining why `r` is divergent when read at instruction `k`.
    #[allow(clippy::too_many_arguments)]
    fn explain(
        &self,
        regs: &RegTable<'_>,
        r: Reg,
        k: usize,
        entry: &[SparseSet],
        out: &mut Vec<CauseStep>,
        visited: &mut Vec<(Reg, usize)>,
        depth: u32,
    ) {
        if depth > 24 || visited.contains(&(r, k)) {
            out.push(CauseStep::Truncated);
            return;
        }
        visited.push((r, k));
        let name = regs.name(r);
        let b = self.cfg.block_of.get(k).copied().unwrap_or(0);
        let start = self.cfg.blocks.get(b).map_or(0, |x| x.start);
        // The last write of `r` before `k` in this block.
        let mut site = None;
        for j in (start..k.min(self.infos.len())).rev() {
            if self.infos[j].defs.contains(&r) && self.def_why.contains_key(&j) {
                site = Some(Site::Def(j));
                break;
            }
            if self.infos[j].defs.contains(&r) && self.infos[j].guard.is_none() {
                break;
            }
        }
        if site.is_none() && self.entry_why.contains_key(&(b, r)) && entry.get(b).is_some_and(|e| e.contains(r)) {
            site = Some(Site::Entry(b));
        }
        let site = site.or_else(|| self.reg_first.get(&r).copied());
        match site {
            Some(Site::Def(j)) => match self.def_why.get(&j) {
                Some(Why::Source(what)) => out.push(CauseStep::Source { reg: name, instr: j, what: what.clone() }),
                Some(Why::Data(u)) => {
                    out.push(CauseStep::Data { reg: name, instr: j, from: regs.name(*u) });
                    self.explain(regs, *u, j, entry, out, visited, depth + 1);
                }
                Some(Why::Guard(g)) => {
                    out.push(CauseStep::Guard { reg: name, instr: j, pred: regs.name(*g) });
                    self.explain(regs, *g, j, entry, out, visited, depth + 1);
                }
                _ => out.push(CauseStep::Truncated),
            },
            Some(Site::Entry(x)) => match self.entry_why.get(&(x, r)) {
                Some(Why::Sync { branch, join }) => {
                    let join_at = self.cfg.blocks[*join].start;
                    out.push(CauseStep::Sync { reg: name, join: join_at, branch: *branch });
                    if let Some(&g) = self.branch_why.get(branch) {
                        self.explain(regs, g, *branch, entry, out, visited, depth + 1);
                    }
                }
                Some(Why::Temporal { branch, exit, header }) => {
                    out.push(CauseStep::Temporal {
                        reg: name,
                        exit: self.cfg.blocks[*exit].start,
                        header: self.cfg.blocks[*header].start,
                        branch: *branch,
                    });
                    if let Some(&g) = self.branch_why.get(branch) {
                        self.explain(regs, g, *branch, entry, out, visited, depth + 1);
                    }
                }
                _ => out.push(CauseStep::Truncated),
            },
            Some(Site::Param) => out.push(CauseStep::Param { reg: name }),
            None => out.push(CauseStep::Truncated),
        }
        let _ = Why::Param;
    }
}
