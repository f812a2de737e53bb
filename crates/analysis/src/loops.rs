//! Loop analysis: natural loops (one per header, found from back edges whose
//! target dominates their source), their nesting, exits and latches; and
//! irreducible regions, found by recursive strongly-connected-component
//! decomposition (a cycle entered at more than one block).
//!
//! Invariants: loops are listed outermost first in nesting order of discovery
//! (a parent always precedes its children); `innermost[b]` is the smallest
//! natural loop containing block `b`. Unreachable blocks belong to no loop.

use crate::cfg::{BlockId, Cfg};
use crate::dom::{DomOrder, DomTree};

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub header: BlockId,
    /// Every block of the loop, header included, sorted.
    pub blocks: Vec<BlockId>,
    /// Blocks with a back edge to the header.
    pub latches: Vec<BlockId>,
    /// Edges leaving the loop: (inside, outside).
    pub exits: Vec<(BlockId, BlockId)>,
    /// Blocks inside the loop from which control can leave the function.
    pub function_exits: Vec<BlockId>,
    /// Index of the enclosing loop.
    pub parent: Option<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
}

impl Loop {
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
    /// The distinct blocks outside the loop that an exit edge enters.
    pub fn exit_blocks(&self) -> Vec<BlockId> {
        let mut v: Vec<BlockId> = self.exits.iter().map(|e| e.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A cycle with more than one entry block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Irreducible {
    /// The blocks of the strongly connected region, sorted.
    pub blocks: Vec<BlockId>,
    /// Blocks of the region entered from outside it, sorted.
    pub entries: Vec<BlockId>,
}

/// All loops of a function.
#[derive(Clone, Debug)]
pub struct LoopForest {
    pub loops: Vec<Loop>,
    pub innermost: Vec<Option<usize>>,
    pub irreducible: Vec<Irreducible>,
}

impl LoopForest {
    pub fn new(cfg: &Cfg, dom: &DomTree) -> LoopForest {
        let nb = cfg.blocks.len();
        let reach: Vec<bool> = (0..nb).map(|b| dom.idom[b].is_some()).collect();
        let order = DomOrder::new(dom);
        // Back edges grouped by header.
        let mut latches: Vec<Vec<BlockId>> = vec![Vec::new(); nb];
        for u in 0..nb {
            if !reach[u] {
                continue;
            }
            for &h in &cfg.blocks[u].succs {
                if order.dominates(h, u) {
                    latches[h].push(u);
                }
            }
        }
        let mut loops = Vec::new();
        let mut mark = vec![usize::MAX; nb];
        for h in 0..nb {
            if latches[h].is_empty() {
                continue;
            }
            let id = loops.len();
            mark[h] = id;
            let mut blocks = vec![h];
            let mut stack: Vec<BlockId> = Vec::new();
            for &l in &latches[h] {
                if mark[l] != id {
                    mark[l] = id;
                    blocks.push(l);
                    stack.push(l);
                }
            }
            while let Some(u) = stack.pop() {
                for &p in &cfg.blocks[u].preds {
                    if reach[p] && mark[p] != id {
                        mark[p] = id;
                        blocks.push(p);
                        stack.push(p);
                    }
                }
            }
            blocks.sort_unstable();
            let mut exits = Vec::new();
            let mut function_exits = Vec::new();
            for &b in &blocks {
                for &s in &cfg.blocks[b].succs {
                    if mark[s] != id {
                        exits.push((b, s));
                    }
                }
                if cfg.blocks[b].exits {
                    function_exits.push(b);
                }
            }
            loops.push(Loop {
                header: h,
                blocks,
                latches: latches[h].clone(),
                exits,
                function_exits,
                parent: None,
                depth: 0,
            });
        }
        // Nesting: larger loops first; each block's innermost loop is the last
        // (smallest) loop that covers it. A loop's parent is the innermost loop
        // covering its header before the loop itself is laid down.
        let mut order: Vec<usize> = (0..loops.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(loops[i].blocks.len()), loops[i].header));
        let mut innermost: Vec<Option<usize>> = vec![None; nb];
        for &i in &order {
            let h = loops[i].header;
            loops[i].parent = innermost[h];
            for k in 0..loops[i].blocks.len() {
                let b = loops[i].blocks[k];
                innermost[b] = Some(i);
            }
        }
        for &i in &order {
            loops[i].depth = loops[i].parent.map_or(1, |p| loops[p].depth + 1);
        }
        let irreducible = irreducible_regions(cfg, &reach);
        LoopForest { loops, innermost, irreducible }
    }

    /// The loops containing `b`, innermost first.
    pub fn loops_containing(&self, b: BlockId) -> Vec<usize> {
        let mut v = Vec::new();
        let mut cur = self.innermost.get(b).copied().flatten();
        while let Some(l) = cur {
            v.push(l);
            cur = self.loops[l].parent;
        }
        v
    }

    /// The irreducible region holding `b`, if any (the smallest one).
    pub fn irreducible_containing(&self, b: BlockId) -> Option<&Irreducible> {
        self.irreducible
            .iter()
            .filter(|r| r.blocks.binary_search(&b).is_ok())
            .min_by_key(|r| r.blocks.len())
    }
}

/// Recursive SCC decomposition: a nontrivial SCC with one entry is a reducible
/// loop (recurse without its header); with several, an irreducible region
/// (recorded, then recurse without its entries).
fn irreducible_regions(cfg: &Cfg, reach: &[bool]) -> Vec<Irreducible> {
    let nb = cfg.blocks.len();
    let mut out = Vec::new();
    // in_set[b] == gen marks membership of the current subgraph.
    let mut in_set = vec![0u32; nb];
    let mut gen = 1u32;
    let mut work: Vec<Vec<BlockId>> = vec![(0..nb).filter(|&b| reach[b]).collect()];
    while let Some(set) = work.pop() {
        gen += 1;
        for &b in &set {
            in_set[b] = gen;
        }
        for comp in tarjan(cfg, &set, &in_set, gen) {
            let cyclic = comp.len() > 1 || cfg.blocks[comp[0]].succs.contains(&comp[0]);
            if !cyclic {
                continue;
            }
            let mut comp = comp;
            comp.sort_unstable();
            let inside = |x: BlockId| comp.binary_search(&x).is_ok();
            let entries: Vec<BlockId> = comp
                .iter()
                .copied()
                .filter(|&b| b == 0 || cfg.blocks[b].preds.iter().any(|&p| reach[p] && !inside(p)))
                .collect();
            let rest: Vec<BlockId> = comp.iter().copied().filter(|b| !entries.contains(b)).collect();
            if entries.len() > 1 {
                out.push(Irreducible { blocks: comp.clone(), entries });
            }
            if !rest.is_empty() {
                work.push(rest);
            }
        }
    }
    out.sort_by(|a, b| a.blocks.cmp(&b.blocks));
    out
}

/// Iterative Tarjan over the subgraph of blocks with `in_set[b] == gen`.
fn tarjan(cfg: &Cfg, set: &[BlockId], in_set: &[u32], gen: u32) -> Vec<Vec<BlockId>> {
    let nb = cfg.blocks.len();
    let mut index = vec![usize::MAX; nb];
    let mut low = vec![0usize; nb];
    let mut on_stack = vec![false; nb];
    let mut stack = Vec::new();
    let mut comps = Vec::new();
    let mut next = 0usize;
    for &root in set {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(BlockId, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            let succs = &cfg.blocks[v].succs;
            if *k < succs.len() {
                let w = succs[*k];
                *k += 1;
                if in_set[w] != gen {
                    continue;
                }
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comps.push(comp);
                }
            }
        }
    }
    comps
}
