//! Reference dominator computations, kept beside the fast algorithm in
//! [`crate::dom`] to check it: the classic iterative set-based data-flow
//! formulation (`Dom(n) = {n} ∪ ⋂ Dom(p)`), and dominance straight from its
//! definition ("every path from the root to `n` passes through `d`", tested by
//! deleting `d` and searching). Both are quadratic or worse: tests only.

/// Dominator sets by the iterative data-flow equations. `sets[n]` is `None` for
/// nodes unreachable from `root`; otherwise it lists every dominator of `n`, sorted.
pub fn dominator_sets(n: usize, root: usize, succs: &dyn Fn(usize) -> Vec<usize>) -> Vec<Option<Vec<usize>>> {
    let reach = reachable(n, root, None, succs);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for u in 0..n {
        if reach[u] {
            for v in succs(u) {
                preds[v].push(u);
            }
        }
    }
    // Bit matrix: dom[v][d] == whether d dominates v.
    let mut dom: Vec<Vec<bool>> = (0..n).map(|v| if v == root { one_hot(n, root) } else { reach.clone() }).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n {
            if v == root || !reach[v] {
                continue;
            }
            let mut new = reach.clone();
            for &p in &preds[v] {
                for d in 0..n {
                    new[d] = new[d] && dom[p][d];
                }
            }
            new[v] = true;
            if new != dom[v] {
                dom[v] = new;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|v| if reach[v] { Some((0..n).filter(|&d| dom[v][d]).collect()) } else { None })
        .collect()
}

/// Whether `d` dominates `v` by the definition: `v` is reachable from `root`, and
/// either `d == v` or `v` is unreachable once `d` is removed.
pub fn dominates_by_definition(n: usize, root: usize, succs: &dyn Fn(usize) -> Vec<usize>, d: usize, v: usize) -> bool {
    if !reachable(n, root, None, succs)[v] {
        return false;
    }
    d == v || d == root || !reachable(n, root, Some(d), succs)[v]
}

/// Immediate dominators derived from dominator sets: the strict dominator with
/// the most dominators of its own.
pub fn idoms_from_sets(sets: &[Option<Vec<usize>>], root: usize) -> Vec<Option<usize>> {
    sets.iter()
        .enumerate()
        .map(|(v, s)| {
            let s = s.as_ref()?;
            if v == root {
                return Some(root);
            }
            s.iter()
                .copied()
                .filter(|&d| d != v)
                .max_by_key(|&d| sets[d].as_ref().map_or(0, |x| x.len()))
        })
        .collect()
}

fn one_hot(n: usize, k: usize) -> Vec<bool> {
    let mut v = vec![false; n];
    v[k] = true;
    v
}

fn reachable(n: usize, root: usize, removed: Option<usize>, succs: &dyn Fn(usize) -> Vec<usize>) -> Vec<bool> {
    let mut seen = vec![false; n];
    if Some(root) == removed {
        return seen;
    }
    seen[root] = true;
    let mut stack = vec![root];
    while let Some(u) = stack.pop() {
        for v in succs(u) {
            if !seen[v] && Some(v) != removed {
                seen[v] = true;
                stack.push(v);
            }
        }
    }
    seen
}
