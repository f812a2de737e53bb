//! Benchmark: analysis time (CFG, dominators, post-dominators, loops, liveness,
//! uniformity) for the whole corpus, and for generated functions of 25k to 200k
//! instructions (a chain of divergent if/else diamonds and loops), to show the
//! time grows near-linearly. Run: `cargo bench -p ptxsim-analysis`.
//!
//! Baseline, in the same run: the dominator and post-dominator trees of the
//! same CFGs computed by `petgraph::algo::dominators::simple_fast` (also
//! Cooper–Harvey–Kennedy), beside ours (`dom::cfg_dominators` and
//! `dom::cfg_post_dominators`); the two must give the same trees.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use ptxsim_analysis::cfg::Cfg;
use ptxsim_analysis::dom::{cfg_dominators, cfg_post_dominators};
use ptxsim_analysis::report::analyse_module;
use std::path::Path;
use std::time::Instant;

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                out.push(std::fs::read_to_string(p).unwrap_or_default());
            }
        }
    }
    out
}

/// A kernel of about `n` instructions: diamonds on %tid-derived predicates,
/// uniform counted loops, and registers recycled as a compiler would.
fn generated(n: usize) -> String {
    let mut s = String::from(".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry big(.param .u32 n)\n{\n.reg .u32 %r<64>;\n.reg .pred %p<16>;\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n");
    let mut k = 0;
    let mut i = 0;
    while k < n {
        let a = 3 + (i % 50);
        s.push_str(&format!(
            "setp.lt.u32 %p1, %r2, {i};\n@%p1 bra T{i};\nadd.u32 %r{a}, %r2, 1;\nbra.uni J{i};\nT{i}:\nadd.u32 %r{a}, %r1, 2;\nJ{i}:\nmov.u32 %r60, 0;\nL{i}:\nadd.u32 %r60, %r60, 1;\nadd.u32 %r{a}, %r{a}, %r60;\nsetp.lt.u32 %p2, %r60, %r1;\n@%p2 bra L{i};\n"
        ));
        k += 10;
        i += 1;
    }
    s.push_str("ret;\n}\n");
    s
}

fn time<F: FnMut()>(mut f: F, reps: u32) -> f64 {
    f();
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() / reps as f64
}

/// The CFG and its reverse (rooted at a virtual exit `n`) as petgraph graphs.
fn petgraph_graphs(cfg: &Cfg) -> (DiGraph<(), ()>, DiGraph<(), ()>) {
    let n = cfg.blocks.len();
    let mut fwd = DiGraph::with_capacity(n, 2 * n);
    let mut rev = DiGraph::with_capacity(n + 1, 2 * n);
    for _ in 0..n {
        fwd.add_node(());
        rev.add_node(());
    }
    rev.add_node(());
    for (b, bb) in cfg.blocks.iter().enumerate() {
        for &s in &bb.succs {
            fwd.add_edge(NodeIndex::new(b), NodeIndex::new(s), ());
            rev.add_edge(NodeIndex::new(s), NodeIndex::new(b), ());
        }
        if bb.exits {
            rev.add_edge(NodeIndex::new(n), NodeIndex::new(b), ());
        }
    }
    (fwd, rev)
}

/// Dominators and post-dominators of `cfgs`: ours and petgraph's, in seconds
/// per pass over all of them, after checking that both give the same trees.
fn dom_vs_petgraph(cfgs: &[Cfg], reps: u32) -> (f64, f64) {
    let graphs: Vec<_> = cfgs.iter().map(petgraph_graphs).collect();
    for (cfg, (fwd, rev)) in cfgs.iter().zip(&graphs) {
        let n = cfg.blocks.len();
        let (ours, ours_post) = (cfg_dominators(cfg), cfg_post_dominators(cfg));
        let (theirs, theirs_post) = (simple_fast(fwd, NodeIndex::new(0)), simple_fast(rev, NodeIndex::new(n)));
        for b in 0..n {
            let t = theirs.immediate_dominator(NodeIndex::new(b)).map(|x| x.index());
            assert_eq!(ours.idom[b].filter(|&d| d != b), t, "idom of block {b}");
            let t = theirs_post.immediate_dominator(NodeIndex::new(b)).map(|x| x.index());
            assert_eq!(ours_post.idom[b].filter(|&d| d != b), t, "ipdom of block {b}");
        }
    }
    let ours = time(
        || {
            for c in cfgs {
                std::hint::black_box((cfg_dominators(c), cfg_post_dominators(c)));
            }
        },
        reps,
    );
    let theirs = time(
        || {
            for (c, (fwd, rev)) in cfgs.iter().zip(&graphs) {
                std::hint::black_box((simple_fast(fwd, NodeIndex::new(0)), simple_fast(rev, NodeIndex::new(c.blocks.len()))));
            }
        },
        reps,
    );
    (ours, theirs)
}

fn print_dom(what: &str, (ours, theirs): (f64, f64)) {
    println!(
        "  dominators + post-dominators of {what}: ptxsim {:.2} ms, petgraph simple_fast {:.2} ms (ratio {:.2}x)",
        ours * 1e3,
        theirs * 1e3,
        theirs / ours
    );
}

fn main() {
    let texts = corpus();
    let parsed: Vec<_> = texts.iter().map(|t| ptxsim_syntax::parse(t)).collect();
    let instrs: usize = parsed.iter().map(|p| analyse_module(&p.module).iter().map(|r| r.flat.instrs.len()).sum::<usize>()).sum();
    let t = time(
        || {
            for p in &parsed {
                std::hint::black_box(analyse_module(&p.module));
            }
        },
        20,
    );
    println!("corpus: {} files, {} instructions: {:.2} ms per full analysis", texts.len(), instrs, t * 1e3);
    let cfgs: Vec<Cfg> =
        parsed.iter().flat_map(|p| analyse_module(&p.module).into_iter().map(|r| r.fa.cfg)).collect();
    print_dom(&format!("the corpus' {} functions", cfgs.len()), dom_vs_petgraph(&cfgs, 20));
    for n in [25_000, 50_000, 100_000, 200_000] {
        let src = generated(n);
        let p = ptxsim_syntax::parse(&src);
        let r = analyse_module(&p.module);
        let ni = r[0].flat.instrs.len();
        let nb = r[0].fa.cfg.blocks.len();
        let cfg = r.into_iter().next().map(|r| r.fa.cfg);
        let t = time(|| drop(std::hint::black_box(analyse_module(&p.module))), 3);
        println!("generated: {ni} instructions, {nb} blocks: {:.1} ms ({:.0} ns/instruction)", t * 1e3, t * 1e9 / ni as f64);
        if let Some(cfg) = cfg {
            print_dom("this function", dom_vs_petgraph(std::slice::from_ref(&cfg), 3));
        }
    }
}
