//! One reusable data-flow framework (in the manner of `rustc_mir_dataflow`): an
//! analysis gives a lattice state, a join and a block transfer function; the
//! solver runs a worklist ordered by reverse post-order (forward) or
//! post-order (backward) until nothing changes. An analysis may also inject
//! facts into other blocks' entry states from inside a transfer (uniformity uses
//! this for sync dependence at join blocks).
//!
//! Also here: [`SparseSet`], a sorted-vector set whose cost follows its size
//! (live sets stay small, so states stay small), and [`Liveness`], the backward
//! register liveness the uniformity analysis prunes its states with.
//!
//! Invariant: joins are monotone, so each block's entry state only grows and
//! the solver terminates; unreachable blocks keep the bottom state.

use crate::cfg::{BlockId, Cfg};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Which way facts flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// Facts injected into other blocks during a transfer.
pub struct Effects<S> {
    pub(crate) inject: Vec<(BlockId, S)>,
}

impl<S> Effects<S> {
    /// Joins `state` into the entry state of `block` (and revisits it).
    pub fn inject(&mut self, block: BlockId, state: S) {
        self.inject.push((block, state));
    }
}

/// A data-flow analysis over a CFG.
pub trait Analysis {
    type State: Clone;
    const DIRECTION: Direction;
    /// The state every block starts from.
    fn bottom(&self) -> Self::State;
    /// The state at the boundary: the entry block (forward) or every exiting block (backward).
    fn boundary(&self) -> Self::State;
    /// Joins `from` into the entry state of `target`; whether it changed.
    fn join(&self, target: BlockId, into: &mut Self::State, from: &Self::State) -> bool;
    /// Applies block `b` to `state` (its entry state in the analysis direction).
    fn transfer(&mut self, b: BlockId, state: &mut Self::State, fx: &mut Effects<Self::State>);
}

/// The fixpoint: each block's entry state in the analysis direction (for a
/// backward analysis, the state at the block's end).
pub struct Results<S> {
    pub entry: Vec<S>,
    /// How many block transfers the solver ran.
    pub transfers: usize,
}

/// Solves `a` over `cfg`.
pub fn solve<A: Analysis>(cfg: &Cfg, a: &mut A) -> Results<A::State> {
    let nb = cfg.blocks.len();
    let rpo = cfg.reverse_postorder();
    // Priority: position in the iteration order (RPO forward, its reverse backward).
    let mut prio = vec![usize::MAX; nb];
    let order: Vec<BlockId> = match A::DIRECTION {
        Direction::Forward => rpo.clone(),
        Direction::Backward => rpo.iter().rev().copied().collect(),
    };
    for (i, &b) in order.iter().enumerate() {
        prio[b] = i;
    }
    let mut entry: Vec<A::State> = (0..nb).map(|_| a.bottom()).collect();
    let mut queued = vec![false; nb];
    let mut heap = BinaryHeap::new();
    match A::DIRECTION {
        Direction::Forward => {
            if nb > 0 {
                let s = a.boundary();
                a.join(0, &mut entry[0], &s);
            }
        }
        Direction::Backward => {
            let s = a.boundary();
            for &b in &rpo {
                if cfg.blocks[b].exits {
                    a.join(b, &mut entry[b], &s);
                }
            }
        }
    }
    for &b in &order {
        queued[b] = true;
        heap.push(Reverse((prio[b], b)));
    }
    let mut fx = Effects { inject: Vec::new() };
    let mut transfers = 0;
    while let Some(Reverse((_, b))) = heap.pop() {
        queued[b] = false;
        let mut state = entry[b].clone();
        a.transfer(b, &mut state, &mut fx);
        transfers += 1;
        let next: &[BlockId] = match A::DIRECTION {
            Direction::Forward => &cfg.blocks[b].succs,
            Direction::Backward => &cfg.blocks[b].preds,
        };
        for &s in next {
            if prio[s] != usize::MAX && a.join(s, &mut entry[s], &state) && !queued[s] {
                queued[s] = true;
                heap.push(Reverse((prio[s], s)));
            }
        }
        for (t, st) in fx.inject.drain(..) {
            if t < nb && prio[t] != usize::MAX && a.join(t, &mut entry[t], &st) && !queued[t] {
                queued[t] = true;
                heap.push(Reverse((prio[t], t)));
            }
        }
    }
    Results { entry, transfers }
}

/// A set of small integers as a sorted vector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SparseSet(pub Vec<u32>);

impl SparseSet {
    pub fn new() -> SparseSet {
        SparseSet(Vec::new())
    }
    pub fn from_unsorted(mut v: Vec<u32>) -> SparseSet {
        v.sort_unstable();
        v.dedup();
        SparseSet(v)
    }
    pub fn contains(&self, x: u32) -> bool {
        self.0.binary_search(&x).is_ok()
    }
    pub fn insert(&mut self, x: u32) -> bool {
        match self.0.binary_search(&x) {
            Ok(_) => false,
            Err(i) => {
                self.0.insert(i, x);
                true
            }
        }
    }
    pub fn remove(&mut self, x: u32) -> bool {
        match self.0.binary_search(&x) {
            Ok(i) => {
                self.0.remove(i);
                true
            }
            Err(_) => false,
        }
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }
    /// `self ∪= other`; whether anything was added.
    pub fn union_with(&mut self, other: &SparseSet) -> bool {
        self.union_filtered(other, |_| true)
    }
    /// `self ∪= {x ∈ other | keep(x)}`; whether anything was added.
    pub fn union_filtered(&mut self, other: &SparseSet, keep: impl Fn(u32) -> bool) -> bool {
        if other.0.iter().all(|&x| !keep(x) || self.contains(x)) {
            return false;
        }
        let mut out = Vec::with_capacity(self.0.len() + other.0.len());
        let (a, b) = (&self.0, &other.0);
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if j >= b.len() || (i < a.len() && a[i] < b[j]) {
                out.push(a[i]);
                i += 1;
            } else if i >= a.len() || b[j] < a[i] {
                if keep(b[j]) {
                    out.push(b[j]);
                }
                j += 1;
            } else {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
        self.0 = out;
        true
    }
}

/// Per-block register facts for liveness: uses before any definition (upward
/// exposed) and unconditional definitions (kills).
#[derive(Clone, Debug, Default)]
pub struct GenKill {
    pub gen: SparseSet,
    pub kill: SparseSet,
}

/// Backward liveness: `live_in[b]` holds the registers live at the start of `b`.
pub struct Liveness {
    pub live_in: Vec<SparseSet>,
}

struct LiveAnalysis<'g> {
    gk: &'g [GenKill],
}

impl Analysis for LiveAnalysis<'_> {
    type State = SparseSet;
    const DIRECTION: Direction = Direction::Backward;
    fn bottom(&self) -> SparseSet {
        SparseSet::new()
    }
    fn boundary(&self) -> SparseSet {
        SparseSet::new()
    }
    fn join(&self, _t: BlockId, into: &mut SparseSet, from: &SparseSet) -> bool {
        into.union_with(from)
    }
    fn transfer(&mut self, b: BlockId, state: &mut SparseSet, _fx: &mut Effects<SparseSet>) {
        let gk = &self.gk[b];
        let kill = &gk.kill;
        let mut out = SparseSet(state.0.iter().copied().filter(|&x| !kill.contains(x)).collect());
        out.union_with(&gk.gen);
        *state = out;
    }
}

impl Liveness {
    /// Liveness from per-block gen/kill sets.
    pub fn new(cfg: &Cfg, gk: &[GenKill]) -> Liveness {
        let mut a = LiveAnalysis { gk };
        let r = solve(cfg, &mut a);
        // `r.entry[b]` is live-out; apply the block once more for live-in.
        let mut fx = Effects { inject: Vec::new() };
        let live_in = r
            .entry
            .into_iter()
            .enumerate()
            .map(|(b, mut s)| {
                a.transfer(b, &mut s, &mut fx);
                s
            })
            .collect();
        Liveness { live_in }
    }
}
