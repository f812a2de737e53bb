//! Phases 1 and 2 of the lowering: where the SSY/PBK tokens go.
//!
//! Phase 1 ([`find_sites`]) gives each divergent branch a site (a token
//! pushed in front of it, or hoisted in front of the outermost loop it
//! leaves) with its region: the blocks reachable from the site's block
//! without passing the meeting block. Phase 2 ([`nest_sites`]) drops a site
//! whose region overlaps a larger one without nesting in it.
//!
//! Cost: a region is a sorted list of its blocks, found by a walk that
//! touches only those blocks (a stamped scratch array, never one array per
//! site), and every question about regions is answered from those lists, so
//! both phases cost about the sum of the region sizes (times a logarithm),
//! like the uniformity analysis, which walks the same regions: linear for a
//! function of sequential `if`s, a `brx.idx` table or a chain of loops, and
//! `n` times the nesting depth for branches nested `depth` deep.

use super::{Analysed, Fallback, SiteKind};
use ptxsim_analysis::cfg::{Cfg, Terminator};
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
    /// The blocks of its region, sorted; the site's own block is one of them.
    region: Vec<usize>,
    pub(super) size: usize,
    pub(super) kind: SiteKind,
    /// The loop it is hoisted before (an index of the function's loop forest).
    pub(super) lp: Option<usize>,
    pub(super) alive: bool,
}

impl Site {
    /// Whether block `b` is in the site's region.
    pub(super) fn holds(&self, b: usize) -> bool {
        self.region.binary_search(&b).is_ok()
    }
}

/// Phase 1: the SSY/PBK sites of a function's divergent branches, with
/// their regions; a branch whose region cannot be a site is a fallback.
pub(super) fn find_sites(a: &Analysed<'_>, fallbacks: &mut Vec<Fallback>) -> Vec<Site> {
    let (cfg, loops, n) = (&a.fa.cfg, a.loops, a.n);
    let nb = cfg.blocks.len();
    let mut sites: Vec<Site> = Vec::new();
    // The site with a given position and meeting point; for each meeting
    // point and block, the first site (in creation order) with that meeting
    // point whose region holds the block.
    let mut at_pos: HashMap<(Pos, usize), usize> = HashMap::new();
    let mut first_holding: HashMap<(usize, usize), usize> = HashMap::new();
    // The natural loop headed by each block (one per header).
    let mut loop_at: Vec<Option<usize>> = vec![None; nb];
    for (l, lp) in loops.loops.iter().enumerate() {
        if let Some(x) = loop_at.get_mut(lp.header) {
            x.get_or_insert(l);
        }
    }
    let mut walk = Walk { seen: vec![0; nb], stamp: 0 };
    for k in 0..n {
        let (targets, conditional, is_uni) = match &cfg.terms[k] {
            Terminator::Branch { target, conditional, uni } => (std::slice::from_ref(target), *conditional, *uni),
            Terminator::IndirectBranch { targets, conditional, uni } => (targets.as_slice(), *conditional || targets.len() > 1, *uni),
            _ => continue,
        };
        if !conditional || is_uni || !a.uni.is_divergent(k) {
            continue;
        }
        let Some(Reconvergence::At(j)) = a.fa.simt_reconvergence[k] else { continue };
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
        if let Some(&s) = at_pos.get(&(pos, j)) {
            sites[s].branches.push(k);
            continue;
        }
        // A branch inside a live region with the same meeting point needs no
        // SSY of its own (ptxas: short-circuit chains, an `if` whose join is
        // the enclosing one's): its DIV token sits above that SSY, and the
        // SYNC at the join runs the other side first.
        if matches!(pos, Pos::Before(_)) {
            if let Some(&s) = first_holding.get(&(j, kb)) {
                sites[s].branches.push(k);
                continue;
            }
        }
        let start = match pos {
            Pos::Before(_) => kb,
            Pos::Pre(h) => cfg.block_of[h],
        };
        let (region, cyclic) = walk.region(cfg, start, jb, matches!(pos, Pos::Before(_)));
        let mut bad = None;
        if cyclic {
            bad = Some("the branch can run again before its threads meet");
        }
        if region.iter().any(|&b| !a.order.dominates(start, b)) {
            bad = Some("its region can be entered other than through the branch (unstructured control flow)");
        }
        if let (Pos::Pre(_), Some(l)) = (pos, outer) {
            if region.iter().any(|&b| !loops.loops[l].contains(b) && cfg.blocks[b].succs.binary_search(&start).is_ok()) {
                bad = Some("the loop can be re-entered from its own exit before the threads meet");
            }
        }
        if let Some(r) = bad {
            fallbacks.push(a.fallback(k, r));
            continue;
        }
        // ptxas (observed): PBK for a switch and when the region holds a
        // loop that is left by a break (more than one exit edge), SSY otherwise.
        let breaks = |l: &ptxsim_analysis::loops::Loop| l.exits.len() > 1;
        let holds = |b: usize| region.binary_search(&b).is_ok();
        // A natural loop lies wholly in the region when its header does and
        // the meeting block is not in it: every block of the loop is reached
        // from the header inside the loop, and the walk stops only at the
        // meeting block (unless that is where the walk started).
        let whole = |l: &ptxsim_analysis::loops::Loop| {
            if start != jb {
                !l.contains(jb)
            } else {
                l.blocks.iter().all(|&b| holds(b))
            }
        };
        let kind = match (pos, &outer) {
            // A `brx.idx` switch: its cases end in BRK to a PBK, as ptxas
            // lowers a C switch whose cases end in `break`.
            (Pos::Before(_), _) if matches!(cfg.terms[k], Terminator::IndirectBranch { .. }) => SiteKind::Pbk,
            (Pos::Pre(_), Some(l)) if breaks(&loops.loops[*l]) => SiteKind::Pbk,
            (Pos::Pre(_), _) => SiteKind::Ssy,
            (Pos::Before(_), _) if region.iter().any(|&b| loop_at[b].is_some_and(|l| breaks(&loops.loops[l]) && whole(&loops.loops[l]))) => SiteKind::Pbk,
            _ => SiteKind::Ssy,
        };
        let id = sites.len();
        at_pos.insert((pos, j), id);
        for &b in &region {
            first_holding.entry((j, b)).or_insert(id);
        }
        sites.push(Site { pos, join: j, branches: vec![k], size: region.len(), region, kind, lp: outer, alive: true });
    }
    sites
}

/// The scratch of the region walks: a block is seen in the current walk
/// when its stamp is the walk's.
struct Walk {
    seen: Vec<usize>,
    stamp: usize,
}

impl Walk {
    /// The blocks reachable from `start` without passing the meeting block
    /// `jb` (sorted), and whether `start` is reached again (for a site in
    /// place, one not hoisted). Costs the region's size and edges.
    fn region(&mut self, cfg: &Cfg, start: usize, jb: usize, in_place: bool) -> (Vec<usize>, bool) {
        let nb = cfg.blocks.len();
        self.stamp += 1;
        let stamp = self.stamp;
        let mut region = vec![start];
        let mut stack = vec![start];
        self.seen[start] = stamp;
        let mut cyclic = false;
        while let Some(b) = stack.pop() {
            for &s in &cfg.blocks[b].succs {
                if s >= nb || s == jb {
                    continue;
                }
                if s == start && in_place {
                    cyclic = true;
                }
                if self.seen[s] != stamp {
                    self.seen[s] = stamp;
                    region.push(s);
                    stack.push(s);
                }
            }
        }
        region.sort_unstable();
        (region, cyclic)
    }
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
    let cfg = &a.fa.cfg;
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
        if !sites[y].alive {
            continue;
        }
        let sy = &sites[y];
        for &u in &sy.region {
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
        let inner = sy.region.first().and_then(|&b| owner[b]);
        let same = sy.region.iter().all(|&b| owner[b] == inner);
        let mut clean = same;
        let mut cur = inner;
        while clean {
            let Some(x) = cur else { break };
            clean = agrees(x);
            cur = parent[x];
        }
        if clean {
            for &b in &sy.region {
                owner[b] = Some(y);
            }
            parent[y] = inner;
            continue;
        }
        // Every kept site overlapping y: the chains of its blocks' owners.
        let mut conflict: Option<usize> = None;
        for &b in &sy.region {
            let mut cur = owner[b];
            while let Some(x) = cur {
                if seen[x] == y {
                    break;
                }
                seen[x] = y;
                let nested = sy.region.iter().all(|&u| sites[x].holds(u)) && agrees(x);
                if !nested && conflict.is_none_or(|c| rank[x] < rank[c]) {
                    conflict = Some(x);
                }
                cur = parent[x];
            }
        }
        match conflict {
            Some(x) => dropped.push((rank[x], y_rank, y)),
            // Not reached (a site that is not clean conflicts with one of
            // them); kept as the pairwise comparison would keep it.
            None => {
                for &b in &sy.region {
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
