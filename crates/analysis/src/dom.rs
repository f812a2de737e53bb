//! Dominator and post-dominator trees (Cooper, Harvey and Kennedy's iterative
//! algorithm over reverse post-order). Post-dominators run on the reversed CFG
//! rooted at a virtual exit that every leaving block flows into.

use crate::cfg::{BlockId, Cfg};

/// An immediate-dominator tree over nodes `0..n`; `idom[root] == root`, and
/// `None` marks nodes not reachable from the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    pub idom: Vec<Option<usize>>,
    pub root: usize,
}

impl DomTree {
    /// Whether `a` dominates `b` (reflexive).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        if self.idom.get(b).copied().flatten().is_none() {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            if b == self.root {
                return false;
            }
            match self.idom[b] {
                Some(p) => b = p,
                None => return false,
            }
        }
    }
}

/// Computes immediate dominators of a graph given as successor lists, from `root`.
pub fn dominators(n: usize, root: usize, succs: &dyn Fn(usize) -> Vec<usize>) -> DomTree {
    // Reverse post-order from the root.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(root, succs(root), 0)];
    seen[root] = true;
    while let Some(top) = stack.last_mut() {
        if top.2 < top.1.len() {
            let s = top.1[top.2];
            top.2 += 1;
            let from = top.0;
            preds[s].push(from);
            if !seen[s] {
                seen[s] = true;
                let ss = succs(s);
                stack.push((s, ss, 0));
            }
        } else {
            order.push(top.0);
            stack.pop();
        }
    }
    order.reverse();
    let mut rpo_num = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        rpo_num[b] = i;
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[root] = Some(root);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, &rpo_num, p, cur),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    DomTree { idom, root }
}

fn intersect(idom: &[Option<usize>], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a].unwrap_or(a);
        }
        while rpo[b] > rpo[a] {
            b = idom[b].unwrap_or(b);
        }
    }
    a
}

/// Dominators of a CFG (node ids are block ids).
pub fn cfg_dominators(cfg: &Cfg) -> DomTree {
    dominators(cfg.blocks.len(), 0, &|b| cfg.blocks[b].succs.clone())
}

/// Post-dominators of a CFG. Node `cfg.blocks.len()` is the virtual exit, the root.
/// A block from which no exit is reachable (an infinite loop) has no post-dominator.
pub fn cfg_post_dominators(cfg: &Cfg) -> DomTree {
    let nb = cfg.blocks.len();
    let exit = nb;
    dominators(nb + 1, exit, &|b: BlockId| {
        if b == exit {
            (0..nb).filter(|&x| cfg.blocks[x].exits).collect()
        } else {
            cfg.blocks[b].preds.clone()
        }
    })
}

/// Post-dominators of a CFG whose virtual exit (node `cfg.blocks.len()`) is
/// joined only to the blocks for which `joins_exit` holds; the other leaving
/// blocks end there (used for SIMT reconvergence, where threads that `exit`
/// need not be waited for).
pub fn cfg_post_dominators_to(cfg: &Cfg, joins_exit: &dyn Fn(BlockId) -> bool) -> DomTree {
    let nb = cfg.blocks.len();
    let exit = nb;
    dominators(nb + 1, exit, &|b: BlockId| {
        if b == exit {
            (0..nb).filter(|&x| cfg.blocks[x].exits && joins_exit(x)).collect()
        } else {
            cfg.blocks[b].preds.clone()
        }
    })
}

/// Constant-time dominance queries: each node's interval in a depth-first walk
/// of the tree (`a` dominates `b` iff `b`'s interval nests in `a`'s).
#[derive(Clone, Debug)]
pub struct DomOrder {
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomOrder {
    pub fn new(t: &DomTree) -> DomOrder {
        let n = t.idom.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, p) in t.idom.iter().enumerate() {
            if let Some(p) = *p {
                if v != t.root && p < n {
                    children[p].push(v);
                }
            }
        }
        let (mut pre, mut post) = (vec![u32::MAX; n], vec![0u32; n]);
        let mut clock = 0u32;
        if t.root < n && t.idom[t.root].is_some() {
            let mut stack: Vec<(usize, usize)> = vec![(t.root, 0)];
            pre[t.root] = clock;
            clock += 1;
            while let Some(&mut (v, ref mut k)) = stack.last_mut() {
                if let Some(&c) = children[v].get(*k) {
                    *k += 1;
                    pre[c] = clock;
                    clock += 1;
                    stack.push((c, 0));
                } else {
                    post[v] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
        DomOrder { pre, post }
    }

    /// Whether `a` dominates `b` (reflexive); false for unreachable nodes.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.pre.get(a), self.pre.get(b)) {
            (Some(&pa), Some(&pb)) if pa != u32::MAX && pb != u32::MAX => pa <= pb && self.post[b] <= self.post[a],
            _ => false,
        }
    }
}
