//! Uniformity analysis: which branches (and calls) may diverge, and why.
//!
//! A forward data-flow problem, solved sparsely: the facts are "register `r`
//! may hold different values in the threads of a warp from point `p` on", and
//! each new fact walks only the occurrences of `r` up to its next
//! unconditional write (or the block's end, from where it enters the
//! successors in which `r` is live). Every occurrence is walked at most once,
//! so the work is linear in the number of register occurrences plus the
//! facts injected at joins, whatever the shape of the dependence chains (a
//! dense block-by-block solver re-walks a whole block each time one more
//! register of a loop-carried chain turns divergent: quadratic). Sources of divergence are `%tid`, `%laneid`,
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
use crate::dataflow::{Effects, GenKill, Liveness, SparseSet};
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
    /// How many facts (a register turning divergent at a point) the solver walked.
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
        let res = a.solve(regs.len());
        // Verdicts.
        let mut verdicts = Vec::new();
        let mut by_instr = HashMap::new();
        for (k, i) in f.instrs.iter().enumerate() {
            let t = &cfg.terms[k];
            let relevant = match t {
                Terminator::Branch { conditional, .. } | Terminator::Leave { conditional } => *conditional,
                Terminator::IndirectBranch { .. } => true,
                Terminator::None => ptxsim_isa::flow(i.opcode.text) == ptxsim_isa::Flow::Call,
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
            verdicts.push(BranchVerdict { instr: k, divergent, uni: ptxsim_isa::is_uni(i), decided_by, cause });
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

#[derive(Default)]
struct Scratch {
    lab: Vec<usize>,
    inr: Vec<u32>,
    gen: u32,
}

/// The solver's working state.
struct Walk {
    heap: std::collections::BinaryHeap<std::cmp::Reverse<Fact>>,
    /// (block, register) divergent at the block's entry / end.
    entry: std::collections::HashSet<(BlockId, Reg)>,
    out: std::collections::HashSet<(BlockId, Reg)>,
    /// Per instruction: its result is divergent; its divergent guard; its
    /// first operand found divergent; whether its first operand is divergent.
    div: Vec<bool>,
    gdiv: Vec<Option<Reg>>,
    udiv: Vec<Option<Reg>>,
    first_use_div: Vec<bool>,
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

/// Occurrence flags of a register at one instruction.
const OCC_USE: u8 = 1;
const OCC_GUARD: u8 = 2;
const OCC_KILL: u8 = 4;

/// Every register's occurrences in instruction order (grouped by register:
/// `occ[start[r]..end[r]]`), each with a flag saying it has been walked.
struct Occurrences {
    start: Vec<u32>,
    end: Vec<u32>,
    occ: Vec<(u32, u8)>,
    walked: Vec<bool>,
}

impl Occurrences {
    fn new(infos: &[InsnInfo], nregs: usize) -> Occurrences {
        fn each(info: &InsnInfo, f: &mut dyn FnMut(Reg, u8)) {
            for &u in &info.uses {
                f(u, OCC_USE);
            }
            if let Some(g) = info.guard {
                f(g, OCC_GUARD);
            }
            // A guarded write keeps the old value in some threads: no kill.
            if info.guard.is_none() {
                for &d in &info.defs {
                    f(d, OCC_KILL);
                }
            }
        }
        let mut start = vec![0u32; nregs + 1];
        for info in infos {
            each(info, &mut |r, _| {
                if let Some(c) = start.get_mut(r as usize + 1) {
                    *c += 1;
                }
            });
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let total = start.last().copied().unwrap_or(0) as usize;
        let mut end: Vec<u32> = start[..nregs].to_vec();
        let mut occ = vec![(u32::MAX, 0u8); total];
        for (k, info) in infos.iter().enumerate() {
            each(info, &mut |r, flag| {
                let r = r as usize;
                if r >= nregs {
                    return;
                }
                let at = end[r] as usize;
                // The same register twice in one instruction: one occurrence.
                if at > start[r] as usize && occ[at - 1].0 == k as u32 {
                    occ[at - 1].1 |= flag;
                    return;
                }
                occ[at] = (k as u32, flag);
                end[r] += 1;
            });
        }
        start.truncate(nregs);
        Occurrences { start, end, walked: vec![false; total], occ }
    }
}

/// A fact to walk: register `reg` is divergent from instruction `from` of
/// block `block` on. Ordered by the block's reverse post-order position, then
/// the instruction, so facts are found in about the order a forward pass
/// would find them (which decides the first reason each register records).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Fact {
    rpo: usize,
    from: usize,
    reg: Reg,
    block: BlockId,
    /// A fact at the block's entry (recorded in the entry state), not after a write.
    entry: bool,
}

/// The solution: each block's divergent registers at entry.
struct Solution {
    entry: Vec<SparseSet>,
    transfers: usize,
}

fn is_call(info: &InsnInfo) -> bool {
    matches!(&info.kind, ResultKind::Source(s) if s == "the result of a call")
}

impl UniAnalysis<'_> {
    /// Solves the analysis sparsely (see the module documentation).
    fn solve(&mut self, nregs: usize) -> Solution {
        use std::cmp::Reverse;
        use std::collections::{BinaryHeap, HashSet};
        let cfg = self.cfg;
        let nb = cfg.blocks.len();
        let n = self.infos.len();
        let mut occ = Occurrences::new(self.infos, nregs);
        let mut st = Walk {
            heap: BinaryHeap::new(),
            entry: HashSet::new(),
            out: HashSet::new(),
            div: vec![false; n],
            gdiv: vec![None; n],
            udiv: vec![None; n],
            first_use_div: vec![false; n],
        };
        let reachable = |b: BlockId| self.rpo_idx.get(b).is_some_and(|&i| i != usize::MAX);
        if nb > 0 && reachable(0) {
            for r in self.entry_div.iter() {
                st.heap.push(Reverse(Fact { rpo: self.rpo_idx[0], from: cfg.blocks[0].start, reg: r, block: 0, entry: true }));
            }
        }
        // Sources of divergence in reachable blocks.
        for (b, blk) in cfg.blocks.iter().enumerate() {
            if !reachable(b) {
                continue;
            }
            for k in blk.start..blk.end.min(n) {
                if let ResultKind::Source(s) = &self.infos[k].kind {
                    let why = Why::Source(s.clone());
                    self.set_divergent(k, b, why, &mut st);
                }
            }
        }
        let mut fx = Effects { inject: Vec::new() };
        let mut transfers = 0;
        while let Some(Reverse(f)) = st.heap.pop() {
            if f.entry {
                // Entry states are pruned to the live registers.
                if !self.live.live_in[f.block].contains(f.reg) {
                    continue;
                }
                if !st.entry.insert((f.block, f.reg)) {
                    continue;
                }
            }
            transfers += 1;
            self.walk(f, &mut occ, &mut st, &mut fx);
            for (t, set) in fx.inject.drain(..) {
                if t < nb && reachable(t) {
                    for r in set.iter() {
                        st.heap.push(Reverse(Fact { rpo: self.rpo_idx[t], from: cfg.blocks[t].start, reg: r, block: t, entry: true }));
                    }
                }
            }
        }
        let mut entry: Vec<Vec<Reg>> = vec![Vec::new(); nb];
        for (b, r) in st.entry {
            entry[b].push(r);
        }
        Solution { entry: entry.into_iter().map(SparseSet::from_unsorted).collect(), transfers }
    }

    /// Walks one fact: the occurrences of its register from its point to the
    /// next unconditional write or the block's end, stopping early at an
    /// occurrence an earlier fact already walked (which went on from there).
    fn walk(&mut self, f: Fact, occ: &mut Occurrences, st: &mut Walk, fx: &mut Effects<SparseSet>) {
        let cfg = self.cfg;
        let blk = &cfg.blocks[f.block];
        let r = f.reg as usize;
        let (lo, hi) = match (occ.start.get(r), occ.end.get(r)) {
            (Some(&a), Some(&z)) => (a as usize, z as usize),
            _ => (0, 0),
        };
        let list = &occ.occ[lo..hi];
        let mut i = lo + list.partition_point(|o| (o.0 as usize) < f.from);
        loop {
            if i >= hi || occ.occ[i].0 as usize >= blk.end {
                // Divergent at the block's end: into the successors.
                if st.out.insert((f.block, f.reg)) {
                    for &s in &blk.succs {
                        if let Some(&rpo) = self.rpo_idx.get(s).filter(|&&x| x != usize::MAX) {
                            st.heap.push(std::cmp::Reverse(Fact { rpo, from: cfg.blocks[s].start, reg: f.reg, block: s, entry: true }));
                        }
                    }
                }
                return;
            }
            if occ.walked[i] {
                return;
            }
            occ.walked[i] = true;
            let (k, flags) = occ.occ[i];
            let k = k as usize;
            if flags & OCC_USE != 0 {
                self.touch(k, f.block, f.reg, false, st, fx);
            }
            if flags & OCC_GUARD != 0 {
                self.touch(k, f.block, f.reg, true, st, fx);
            }
            if flags & OCC_KILL != 0 {
                return;
            }
            i += 1;
        }
    }

    /// Instruction `k` (in block `b`) reads the divergent register `r`, as an
    /// operand or as its guard: its result, and the branch it decides, may
    /// become divergent.
    fn touch(&mut self, k: usize, b: BlockId, r: Reg, guard: bool, st: &mut Walk, fx: &mut Effects<SparseSet>) {
        let infos = self.infos;
        let info = &infos[k];
        if guard {
            st.gdiv[k].get_or_insert(r);
        } else {
            st.udiv[k].get_or_insert(r);
            if info.uses.first() == Some(&r) {
                st.first_use_div[k] = true;
            }
        }
        if !st.div[k] {
            let result = match &info.kind {
                ResultKind::Source(_) => true,
                ResultKind::Uniform => false,
                ResultKind::Data => st.udiv[k].is_some(),
            };
            let why = if result {
                st.udiv[k].map(Why::Data)
            } else {
                st.gdiv[k].map(Why::Guard)
            };
            if let Some(why) = why {
                self.set_divergent(k, b, why, st);
            }
        }
        if self.branch_why.contains_key(&k) {
            return;
        }
        let decider = match &self.cfg.terms[k] {
            Terminator::Branch { conditional: true, .. } | Terminator::Leave { conditional: true } => st.gdiv[k],
            Terminator::IndirectBranch { .. } => {
                if st.first_use_div[k] {
                    info.uses.first().copied()
                } else {
                    st.gdiv[k]
                }
            }
            Terminator::None if is_call(info) => st.gdiv[k].or(st.udiv[k]),
            _ => None,
        };
        if let Some(d) = decider {
            self.branch_why.insert(k, d);
            if matches!(self.cfg.terms[k], Terminator::Branch { .. } | Terminator::IndirectBranch { .. }) {
                self.sync_effects(k, b, fx);
            }
        }
    }

    /// Instruction `k` writes a divergent value: its destinations are
    /// divergent from the next instruction on.
    fn set_divergent(&mut self, k: usize, b: BlockId, why: Why, st: &mut Walk) {
        if st.div[k] {
            return;
        }
        st.div[k] = true;
        let infos = self.infos;
        let info = &infos[k];
        if info.defs.is_empty() {
            return;
        }
        self.def_why.entry(k).or_insert(why);
        for &d in &info.defs {
            self.reg_first.entry(d).or_insert(Site::Def(k));
            st.heap.push(std::cmp::Reverse(Fact { rpo: self.rpo_idx[b], from: k + 1, reg: d, block: b, entry: false }));
        }
    }

    /// A branch at `k` in block `b` has just been found divergent: mark the
    /// registers written on its divergent paths divergent at its join blocks,
    /// and the registers of loops it lets threads leave at those loops' exits.
    fn sync_effects(&mut self, k: usize, b: BlockId, fx: &mut Effects<SparseSet>) {
        let nb = self.cfg.blocks.len();
        let p = match self.fa.postdom.idom.get(b).copied().flatten() {
            Some(p) if p < nb => Some(p),
            _ => None,
        };
        // The scratch arrays are taken out for the phases below (they read
        // the rest of `self`) and put back at the end.
        let mut s = std::mem::take(&mut self.scratch);
        s.gen += 1;
        let region = self.branch_region(&mut s, b, p);
        let mut defs = Vec::new();
        for &u in &region {
            defs.extend(self.block_defs[u].iter());
        }
        let region_defs = SparseSet::from_unsorted(defs);
        let mut nodes = region;
        nodes.extend(p);
        nodes.sort_by_key(|&u| self.rpo_idx[u]);
        // Headers of the loops holding the branch: edges into them are cut
        // (they start a new iteration); what reaches them is collected apart.
        let holding = self.loops.loops_containing(b);
        let headers: Vec<BlockId> = holding.iter().map(|&l| self.loops.loops[l].header).collect();
        let (joins, irreducible) = self.label_joins(&mut s, b, &nodes, &headers);
        let mut joins = joins;
        let header_labels = self.header_labels(&s, b, &headers, &mut joins);
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
        self.temporal_effects(&s, (k, b, p), &holding, &header_labels, irreducible, fx);
        self.scratch = s;
    }

    /// The blocks reachable from `b`'s successors without passing its
    /// immediate post-dominator `p`, marked with `s.gen` in `s.inr`.
    fn branch_region(&self, s: &mut Scratch, b: BlockId, p: Option<BlockId>) -> Vec<BlockId> {
        let cfg = self.cfg;
        let gen = s.gen;
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
        region
    }

    /// The path labels reaching `v` over uncut edges (edges into a holding
    /// loop's header are cut): the first, and whether there are several.
    fn contributions(&self, s: &Scratch, b: BlockId, headers: &[BlockId], v: BlockId) -> (usize, bool) {
        let cfg = self.cfg;
        let mut first = NONE;
        let mut many = false;
        let mut add = |l: usize| {
            if l == NONE {
                return;
            }
            if first == NONE {
                first = l;
            } else if first != l {
                many = true;
            }
        };
        let cut = |v: BlockId| headers.contains(&v);
        // `succs` is sorted (`Cfg::new`); a `brx.idx` block can have
        // thousands, and every node of its region asks.
        if cfg.blocks[b].succs.binary_search(&v).is_ok() && !cut(v) {
            add(v);
        }
        for &q in &cfg.blocks[v].preds {
            if q != b && s.inr[q] == s.gen && !cut(v) {
                add(s.lab[q]);
            }
        }
        (first, many)
    }

    /// Labels every node of the region (and the post-dominator) with the
    /// path it is reached on, to a fixpoint; the blocks where paths meet are
    /// the joins (every merge in an irreducible region). Also returns
    /// whether the region is treated as irreducible.
    fn label_joins(&self, s: &mut Scratch, b: BlockId, nodes: &[BlockId], headers: &[BlockId]) -> (Vec<BlockId>, bool) {
        for &u in nodes {
            s.lab[u] = NONE;
        }
        let mut converged = false;
        for _ in 0..(2 * nodes.len() + 4) {
            let mut changed = false;
            for &v in nodes {
                let (first, many) = self.contributions(s, b, headers, v);
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
        for &v in nodes {
            let (_, many) = self.contributions(s, b, headers, v);
            let merge = irreducible && self.cfg.blocks[v].preds.len() > 1;
            if many || merge {
                joins.push(v);
            }
        }
        (joins, irreducible)
    }

    /// The labels arriving at each holding loop's header over cut edges; a
    /// header reached by several is a join too.
    fn header_labels(&self, s: &Scratch, b: BlockId, headers: &[BlockId], joins: &mut Vec<BlockId>) -> Vec<(BlockId, Vec<usize>)> {
        let cfg = self.cfg;
        let mut out: Vec<(BlockId, Vec<usize>)> = Vec::new();
        for &h in headers {
            let mut ls = Vec::new();
            if cfg.blocks[b].succs.binary_search(&h).is_ok() {
                ls.push(h);
            }
            for &q in &cfg.blocks[h].preds {
                if q != b && s.inr[q] == s.gen && s.lab[q] != NONE {
                    ls.push(s.lab[q]);
                }
            }
            ls.sort_unstable();
            ls.dedup();
            if ls.len() > 1 && !joins.contains(&h) {
                joins.push(h);
            }
            out.push((h, ls));
        }
        out
    }

    /// Temporal divergence: the registers of a holding loop live at one of
    /// its exits that threads of the branch reach on different paths.
    fn temporal_effects(
        &mut self,
        s: &Scratch,
        (k, b, p): (usize, BlockId, Option<BlockId>),
        holding: &[usize],
        header_labels: &[(BlockId, Vec<usize>)],
        irreducible: bool,
        fx: &mut Effects<SparseSet>,
    ) {
        let cfg = self.cfg;
        let in_region = |u: BlockId| s.inr[u] == s.gen;
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
                if !(in_region(x) || Some(x) == p) {
                    continue;
                }
                let mut ls = hl.clone();
                if cfg.blocks[b].succs.contains(&x) {
                    ls.push(x);
                }
                for &q in &cfg.blocks[x].preds {
                    if q != b && in_region(q) && s.lab[q] != NONE && lp.contains(q) {
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
