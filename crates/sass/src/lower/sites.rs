//! Phases 1 and 2 of the lowering: where the SSY/PBK tokens go.
//!
//! Phase 1 ([`find_sites`]) gives each divergent branch a site (a token
//! pushed in front of it, or hoisted in front of the outermost loop it
//! leaves) with its region: the blocks reachable from the site's block
//! without passing the meeting block. Phase 2 ([`nest_sites`]) drops a site
//! whose region overlaps a larger one without nesting in it.
//!
//! A region is walked once, to check it (phase 1); a site is kept only when
//! every block of its region is dominated by the site's block, and such a
//! region is exactly that block's dominator subtree less the meeting block's
//! subtree when the meeting block lies in it (a block of the subtree is
//! reached from the site's block along a path that avoids the meeting block
//! unless the meeting block dominates it). So a kept region is stored as two
//! blocks and answers "does it hold block b" from the subtrees' preorder
//! intervals ([`DomPre`]) in constant time, and its blocks are two ranges of
//! the preorder.
//!
//! Cost: each phase touches each region's blocks a bounded number of times,
//! with scratch arrays stamped per walk (never an array per site), and keeps
//! memory linear in the blocks and sites: linear for sequential `if`s, a
//! `brx.idx` table or a chain of loops; `n` times the nesting depth for
//! branches nested `depth` deep (as the uniformity analysis, which walks the
//! same regions).

use super::{Analysed, Fallback, SiteKind};
use ptxsim_analysis::cfg::Terminator;
use ptxsim_analysis::dom::DomTree;
use ptxsim_analysis::Reconvergence;
use std::collections::HashMap;

/// Where a site's token is pushed: in front of PTX instruction `k` (its
/// branch), or in front of the loop whose header starts at instruction `h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Pos {
    Before(usize),
    Pre(usize),
}

pub(super) struct Site {
    pub(super) pos: Pos,
    pub(super) join: usize,
    pub(super) branches: Vec<usize>,
    /// The region: the dominator subtree of `start`, less that of `cut`.
    start: usize,
    cut: Option<usize>,
    pub(super) size: usize,
    pub(super) kind: SiteKind,
    /// The loop it is hoisted before (an index of the function's loop forest).
    pub(super) lp: Option<usize>,
    pub(super) alive: bool,
}

/// The dominator tree's preorder: block `b` is at `pre[b]`, its subtree at
/// `pre[b]..=last[b]`, and `by_pre` lists the blocks in that order.
/// Unreachable blocks have no place (`u32::MAX`).
pub(super) struct DomPre {
    pre: Vec<u32>,
    last: Vec<u32>,
    by_pre: Vec<u32>,
}

const NOWHERE: u32 = u32::MAX;

impl DomPre {
    pub(super) fn new(t: &DomTree) -> DomPre {
        let n = t.idom.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, p) in t.idom.iter().enumerate() {
            if let Some(p) = *p {
                if v != t.root && p < n {
                    children[p].push(v);
                }
            }
        }
        let (mut pre, mut last) = (vec![NOWHERE; n], vec![NOWHERE; n]);
        let mut by_pre = Vec::with_capacity(n);
        if t.root < n && t.idom[t.root].is_some() {
            let mut stack: Vec<(usize, usize)> = vec![(t.root, 0)];
            pre[t.root] = 0;
            by_pre.push(t.root as u32);
            while let Some(&mut (v, ref mut k)) = stack.last_mut() {
                if let Some(&c) = children[v].get(*k) {
                    *k += 1;
                    pre[c] = by_pre.len() as u32;
                    by_pre.push(c as u32);
                    stack.push((c, 0));
                } else {
                    last[v] = by_pre.len() as u32 - 1;
                    stack.pop();
                }
            }
        }
        DomPre { pre, last, by_pre }
    }

    /// Whether `a` dominates `b` (reflexive); false for unreachable blocks.
    pub(super) fn dominates(&self, a: usize, b: usize) -> bool {
        match (self.pre.get(a), self.pre.get(b)) {
            (Some(&pa), Some(&pb)) if pa != NOWHERE && pb != NOWHERE => pa <= pb && pb <= self.last[a],
            _ => false,
        }
    }

    fn subtree_len(&self, a: usize) -> usize {
        (self.last[a] - self.pre[a]) as usize + 1
    }

    /// Whether `s`'s region holds block `b`.
    pub(super) fn holds(&self, s: &Site, b: usize) -> bool {
        self.dominates(s.start, b) && !s.cut.is_some_and(|c| self.dominates(c, b))
    }

    /// The blocks of `s`'s region, in preorder.
    fn blocks<'t>(&'t self, s: &Site) -> impl Iterator<Item = usize> + 't {
        let (a, z) = (self.pre[s.start] as usize, self.last[s.start] as usize);
        let (c0, c1) = match s.cut {
            Some(c) => (self.pre[c] as usize, self.last[c] as usize + 1),
            None => (z + 1, z + 1),
        };
        self.by_pre[a..c0].iter().chain(&self.by_pre[c1..=z]).map(|&b| b as usize)
    }
}

/// The meeting point of a branch that needs a site, if it does: a divergent
/// conditional `bra` or `brx.idx` whose threads meet at an instruction
/// other than the one they would all reach anyway.
fn meeting_point(a: &Analysed<'_>, k: usize) -> Option<usize> {
    let cfg = &a.fa.cfg;
    let (targets, conditional, is_uni) = match &cfg.terms[k] {
        Terminator::Branch { target, conditional, uni } => (std::slice::from_ref(target), *conditional, *uni),
        Terminator::IndirectBranch { targets, conditional, uni } => (targets.as_slice(), *conditional || targets.len() > 1, *uni),
        _ => return None,
    };
    if !conditional || is_uni || !a.uni.is_divergent(k) {
        return None;
    }
    let Some(Reconvergence::At(j)) = a.fa.simt_reconvergence[k] else { return None };
    let fall = matches!(cfg.terms[k], Terminator::Branch { .. });
    if targets.iter().all(|&t| t == j) && (!fall || k + 1 == j) {
        return None;
    }
    (j < a.n).then_some(j)
}

/// Phase 1: the SSY/PBK sites of a function's divergent branches, with
/// their regions; a branch whose region cannot be a site is a fallback.
pub(super) fn find_sites(a: &Analysed<'_>, fallbacks: &mut Vec<Fallback>) -> Vec<Site> {
    let (cfg, loops, n, tree) = (&a.fa.cfg, a.loops, a.n, &a.tree);
    let nb = cfg.blocks.len();
    let mut sites: Vec<Site> = Vec::new();
    let meets: Vec<(usize, usize)> = (0..n).filter_map(|k| Some((k, meeting_point(a, k)?))).collect();
    // The meeting point of each block's branch, and the first site (in
    // creation order) with that meeting point whose region holds the block.
    let mut wants: Vec<Option<usize>> = vec![None; nb];
    for &(k, j) in &meets {
        wants[cfg.block_of[k]] = Some(j);
    }
    let mut first_holding: Vec<Option<usize>> = vec![None; nb];
    // The site at each position and meeting point.
    let mut at_pos: HashMap<(Pos, usize), usize> = HashMap::new();
    // The natural loop headed by each block (one per header).
    let mut loop_at: Vec<Option<usize>> = vec![None; nb];
    for (l, lp) in loops.loops.iter().enumerate() {
        if let Some(x) = loop_at.get_mut(lp.header) {
            x.get_or_insert(l);
        }
    }
    let (mut seen, mut stamp) = (vec![0usize; nb], 0usize);
    let mut stack: Vec<usize> = Vec::new();
    let mut headers: Vec<usize> = Vec::new();
    for (k, j) in meets {
        let kb = cfg.block_of[k];
        let jb = cfg.block_of[j];
        let outer = loops.loops_containing(kb).into_iter().filter(|&l| !loops.loops[l].contains(jb)).min_by_key(|&l| loops.loops[l].depth);
        let pos = match outer {
            Some(l) => Pos::Pre(cfg.blocks[loops.loops[l].header].start),
            None => Pos::Before(k),
        };
        if let Some(&s) = at_pos.get(&(pos, j)) {
            sites[s].branches.push(k);
            continue;
        }
        // A branch inside a live region with the same meeting point needs no
        // SSY of its own (ptxas: short-circuit chains, an `if` whose join is
        // the enclosing one's): its DIV token sits above that SSY, and the
        // SYNC at the join runs the other side first.
        if matches!(pos, Pos::Before(_)) {
            if let Some(s) = first_holding[kb] {
                sites[s].branches.push(k);
                continue;
            }
        }
        let start = match pos {
            Pos::Before(_) => kb,
            Pos::Pre(h) => cfg.block_of[h],
        };
        // The walk over the region: the blocks reachable from `start`
        // without passing `jb`, each checked as it is reached.
        let in_place = matches!(pos, Pos::Before(_));
        let lp = outer.map(|l| &loops.loops[l]);
        stamp += 1;
        seen[start] = stamp;
        stack.clear();
        stack.push(start);
        headers.clear();
        let (mut cyclic, mut undominated, mut reentered) = (false, false, false);
        while let Some(b) = stack.pop() {
            undominated |= !tree.dominates(start, b);
            if let Some(lp) = lp {
                reentered |= !lp.contains(b) && cfg.blocks[b].succs.binary_search(&start).is_ok();
            }
            if loop_at[b].is_some() {
                headers.push(b);
            }
            for &s in &cfg.blocks[b].succs {
                if s >= nb || s == jb {
                    continue;
                }
                if s == start && in_place {
                    cyclic = true;
                }
                if seen[s] != stamp {
                    seen[s] = stamp;
                    stack.push(s);
                }
            }
        }
        let mut bad = None;
        if cyclic {
            bad = Some("the branch can run again before its threads meet");
        }
        if undominated {
            bad = Some("its region can be entered other than through the branch (unstructured control flow)");
        }
        if reentered {
            bad = Some("the loop can be re-entered from its own exit before the threads meet");
        }
        if let Some(r) = bad {
            fallbacks.push(a.fallback(k, r));
            continue;
        }
        // ptxas (observed): PBK for a switch and when the region holds a
        // loop that is left by a break (more than one exit edge), SSY otherwise.
        let breaks = |l: &ptxsim_analysis::loops::Loop| l.exits.len() > 1;
        // A natural loop lies wholly in the region when its header does and
        // the meeting block is not in it: every block of the loop is reached
        // from the header inside the loop, and the walk stops only at the
        // meeting block (unless that is where the walk started).
        let whole = |l: &ptxsim_analysis::loops::Loop| {
            if start != jb {
                !l.contains(jb)
            } else {
                l.blocks.iter().all(|&b| seen[b] == stamp)
            }
        };
        let kind = match (pos, &outer) {
            // A `brx.idx` switch: its cases end in BRK to a PBK, as ptxas
            // lowers a C switch whose cases end in `break`.
            (Pos::Before(_), _) if matches!(cfg.terms[k], Terminator::IndirectBranch { .. }) => SiteKind::Pbk,
            (Pos::Pre(_), Some(l)) if breaks(&loops.loops[*l]) => SiteKind::Pbk,
            (Pos::Pre(_), _) => SiteKind::Ssy,
            (Pos::Before(_), _) if headers.iter().any(|&h| loop_at[h].is_some_and(|l| breaks(&loops.loops[l]) && whole(&loops.loops[l]))) => SiteKind::Pbk,
            _ => SiteKind::Ssy,
        };
        // Every block of the region is dominated by `start`: the region is
        // `start`'s subtree, less `jb`'s when `jb` lies in it.
        let cut = (jb != start && tree.dominates(start, jb)).then_some(jb);
        let size = tree.subtree_len(start) - cut.map_or(0, |c| tree.subtree_len(c));
        let site = Site { pos, join: j, branches: vec![k], start, cut, size, kind, lp: outer, alive: true };
        let id = sites.len();
        at_pos.insert((pos, j), id);
        for b in tree.blocks(&site) {
            if wants[b] == Some(j) && first_holding[b].is_none() {
                first_holding[b] = Some(id);
            }
        }
        sites.push(site);
    }
    sites
}

/// Phase 2: a site whose region overlaps a larger one without nesting in it
/// is dropped (its branches become fallbacks).
///
/// The sites are taken largest first; a site is kept when every kept site
/// whose region overlaps its own holds it and agrees with it (the meeting
/// block of an enclosing site with another meeting point is not entered
/// from the inner region; two sites hoisted to one loop with different
/// meeting points do not have the same size). The kept sites therefore
/// nest, and each block's innermost kept site (`owner`) with the chain of
/// sites around it (`parent`) says which kept sites a region overlaps: all
/// of them hold it exactly when every block of the region has the same
/// innermost site. Only a site that is dropped is compared with each
/// overlapping site in turn, to find, as a pairwise comparison in size order
/// would, the first (largest) site it conflicts with: the fallbacks are
/// listed in that order.
pub(super) fn nest_sites(a: &Analysed<'_>, sites: &mut [Site], fallbacks: &mut Vec<Fallback>) {
    let (cfg, tree) = (&a.fa.cfg, &a.tree);
    let nb = cfg.blocks.len();
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sites[i].size));
    let mut rank = vec![0usize; sites.len()];
    for (r, &s) in order.iter().enumerate() {
        rank[s] = r;
    }
    let mut owner: Vec<Option<usize>> = vec![None; nb];
    let mut parent: Vec<Option<usize>> = vec![None; sites.len()];
    // Blocks entered by an edge from the region of the site being placed.
    let mut entered = vec![usize::MAX; nb];
    let mut seen = vec![usize::MAX; sites.len()];
    // (rank of the site it conflicts with, its own rank, the site).
    let mut dropped: Vec<(usize, usize, usize)> = Vec::new();
    for (y_rank, &y) in order.iter().enumerate() {
        let sy = &sites[y];
        if !sy.alive {
            continue;
        }
        for u in tree.blocks(sy) {
            for &s in &cfg.blocks[u].succs {
                if s < nb {
                    entered[s] = y;
                }
            }
        }
        // Whether the kept site `x`, which holds y's region, agrees with it.
        let agrees = |x: usize| {
            let sx = &sites[x];
            (sy.join == sx.join || entered[cfg.block_of[sx.join]] != y) && !(sx.pos == sy.pos && sx.join != sy.join && matches!(sx.pos, Pos::Pre(_)) && sx.size == sy.size)
        };
        let inner = owner[sy.start];
        let mut clean = tree.blocks(sy).all(|b| owner[b] == inner);
        let mut cur = inner;
        while clean {
            let Some(x) = cur else { break };
            clean = agrees(x);
            cur = parent[x];
        }
        let mut conflict: Option<usize> = None;
        if !clean {
            // Every kept site overlapping y: the chains of its blocks' owners.
            for b in tree.blocks(sy) {
                let mut cur = owner[b];
                while let Some(x) = cur {
                    if seen[x] == y {
                        break;
                    }
                    seen[x] = y;
                    let nested = tree.blocks(sy).all(|u| tree.holds(&sites[x], u)) && agrees(x);
                    if !nested && conflict.is_none_or(|c| rank[x] < rank[c]) {
                        conflict = Some(x);
                    }
                    cur = parent[x];
                }
            }
        }
        match conflict {
            Some(x) => dropped.push((rank[x], y_rank, y)),
            // (A site that is not clean always conflicts with one of them.)
            None => {
                for b in tree.blocks(sy) {
                    owner[b] = Some(y);
                }
                parent[y] = inner;
            }
        }
    }
    dropped.sort_unstable();
    for (_, _, y) in dropped {
        sites[y].alive = false;
        for &k in &sites[y].branches {
            fallbacks.push(a.fallback(k, "its SSY region overlaps another without nesting in it (unstructured control flow)"));
        }
    }
}
