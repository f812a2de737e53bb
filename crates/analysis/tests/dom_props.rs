//! Property tests: the fast dominator and post-dominator trees (Cooper-Harvey-
//! Kennedy) agree with the reference set-based algorithm and with the
//! definition of (post-)dominance, on thousands of random CFGs, including
//! irreducible ones, ones with unreachable blocks, infinite loops and several exits.

use proptest::prelude::*;
use ptxsim_analysis::cfg::{BasicBlock, Cfg};
use ptxsim_analysis::dom::{cfg_dominators, cfg_post_dominators, dominators};
use ptxsim_analysis::loops::LoopForest;
use ptxsim_analysis::refdom::{dominates_by_definition, dominator_sets, idoms_from_sets};

/// A random CFG: `n` blocks, each with up to 3 successors, some exiting.
fn arb_cfg() -> impl Strategy<Value = Cfg> {
    (1usize..14).prop_flat_map(|n| {
        (
            proptest::collection::vec(proptest::collection::vec(0..n, 0..4), n),
            proptest::collection::vec(proptest::bool::weighted(0.25), n),
        )
            .prop_map(move |(succs, exits)| make_cfg(n, succs, exits))
    })
}

fn make_cfg(n: usize, succs: Vec<Vec<usize>>, exits: Vec<bool>) -> Cfg {
    let mut blocks: Vec<BasicBlock> = (0..n)
        .map(|b| {
            let mut s = succs[b].clone();
            s.sort_unstable();
            s.dedup();
            // A block with no successor leaves the function.
            let ex = exits[b] || s.is_empty();
            BasicBlock { start: b, end: b + 1, succs: s, preds: Vec::new(), exits: ex }
        })
        .collect();
    for b in 0..n {
        for k in 0..blocks[b].succs.len() {
            let s = blocks[b].succs[k];
            blocks[s].preds.push(b);
        }
    }
    Cfg { blocks, block_of: (0..n).collect(), terms: vec![ptxsim_analysis::cfg::Terminator::None; n] }
}

fn succ_fn(cfg: &Cfg) -> impl Fn(usize) -> Vec<usize> + '_ {
    move |b| cfg.blocks[b].succs.clone()
}

/// The reversed CFG with the virtual exit `n` as root.
fn rev_fn(cfg: &Cfg) -> impl Fn(usize) -> Vec<usize> + '_ {
    let n = cfg.blocks.len();
    move |b| if b == n { (0..n).filter(|&x| cfg.blocks[x].exits).collect() } else { cfg.blocks[b].preds.clone() }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn dominators_match_reference_and_definition(cfg in arb_cfg()) {
        let n = cfg.blocks.len();
        let fast = cfg_dominators(&cfg);
        let s = succ_fn(&cfg);
        let sets = dominator_sets(n, 0, &s);
        prop_assert_eq!(&fast.idom, &idoms_from_sets(&sets, 0));
        let order = ptxsim_analysis::dom::DomOrder::new(&fast);
        for v in 0..n {
            for d in 0..n {
                prop_assert_eq!(fast.dominates(d, v), dominates_by_definition(n, 0, &s, d, v), "d={} v={}", d, v);
                prop_assert_eq!(order.dominates(d, v), fast.dominates(d, v));
            }
        }
    }

    #[test]
    fn post_dominators_match_reference_and_definition(cfg in arb_cfg()) {
        let n = cfg.blocks.len();
        let fast = cfg_post_dominators(&cfg);
        let r = rev_fn(&cfg);
        let sets = dominator_sets(n + 1, n, &r);
        prop_assert_eq!(&fast.idom, &idoms_from_sets(&sets, n));
        // Definition: d post-dominates v iff every path from v to the exit passes d.
        for v in 0..=n {
            for d in 0..=n {
                prop_assert_eq!(fast.dominates(d, v), dominates_by_definition(n + 1, n, &r, d, v), "d={} v={}", d, v);
            }
        }
    }

    #[test]
    fn generic_dominators_on_any_root(cfg in arb_cfg(), root in 0usize..14) {
        let n = cfg.blocks.len();
        let root = root % n;
        let s = succ_fn(&cfg);
        let fast = dominators(n, root, &s);
        let sets = dominator_sets(n, root, &s);
        prop_assert_eq!(fast.idom, idoms_from_sets(&sets, root));
    }

    /// Natural loops: every body block is dominated by the header and reaches a
    /// latch without passing the header; irreducible regions are cycles with
    /// several entries, and a CFG has one exactly when some retreating edge
    /// targets a block that does not dominate its source.
    #[test]
    fn loops_are_natural_and_irreducibility_is_detected(cfg in arb_cfg()) {
        let dom = cfg_dominators(&cfg);
        let lf = LoopForest::new(&cfg, &dom);
        for l in &lf.loops {
            for &b in &l.blocks {
                prop_assert!(dom.dominates(l.header, b));
            }
            for &x in &l.latches {
                prop_assert!(cfg.blocks[x].succs.contains(&l.header));
            }
            if let Some(p) = l.parent {
                prop_assert!(lf.loops[p].blocks.len() > l.blocks.len());
                for &b in &l.blocks {
                    prop_assert!(lf.loops[p].contains(b));
                }
            }
        }
        for r in &lf.irreducible {
            prop_assert!(r.entries.len() >= 2);
        }
        prop_assert_eq!(!lf.irreducible.is_empty(), has_irreducible_edge(&cfg, &dom));
    }
}

/// Reference test for irreducibility: a DFS retreating edge u->v (v on the DFS
/// stack) whose target does not dominate its source.
fn has_irreducible_edge(cfg: &Cfg, dom: &ptxsim_analysis::dom::DomTree) -> bool {
    let n = cfg.blocks.len();
    let mut state = vec![0u8; n];
    let mut found = false;
    fn dfs(cfg: &Cfg, dom: &ptxsim_analysis::dom::DomTree, u: usize, state: &mut [u8], found: &mut bool) {
        state[u] = 1;
        for &v in &cfg.blocks[u].succs {
            if state[v] == 1 && !dom.dominates(v, u) {
                *found = true;
            }
            if state[v] == 0 {
                dfs(cfg, dom, v, state, found);
            }
        }
        state[u] = 2;
    }
    dfs(cfg, dom, 0, &mut state, &mut found);
    found
}

#[test]
fn classic_irreducible_example() {
    // 0 -> 1, 0 -> 2, 1 <-> 2, 2 -> 3 (exit)
    let cfg = make_cfg(4, vec![vec![1, 2], vec![2], vec![1, 3], vec![]], vec![false; 4]);
    let dom = cfg_dominators(&cfg);
    let lf = LoopForest::new(&cfg, &dom);
    assert!(lf.loops.is_empty());
    assert_eq!(lf.irreducible.len(), 1);
    assert_eq!(lf.irreducible[0].blocks, vec![1, 2]);
    assert_eq!(lf.irreducible[0].entries, vec![1, 2]);
    let pd = cfg_post_dominators(&cfg);
    assert_eq!(pd.idom[0], Some(2));
    assert_eq!(pd.idom[1], Some(2));
    assert_eq!(pd.idom[2], Some(3));
}
