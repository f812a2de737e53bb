//! The analyses and their rendering stay close to linear in the module:
//! uniformity over long dependence chains, many labels, many functions with
//! calls between them; and `cfg --format dot` gives one graph for a module of
//! several functions. Each test bounds wall time (generous: the machine may be
//! shared; the quadratic versions took minutes).

mod common;

use common::{ptxsim_measured, temp_dir};
use std::time::Duration;

const HDR: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

/// `mov`s `%r0 <- %r1 <- ... <- %rN <- %tid.x` in a loop, written so that
/// the chain runs against program order: each trip round the loop carries
/// divergence one step further.
fn loop_chain(n: usize) -> String {
    let mut s = format!("{HDR}.visible .entry k()\n{{\n.reg .u32 %r<{}>;\n.reg .pred %p;\nLOOP:\n", n + 1);
    for i in 0..n {
        s.push_str(&format!("mov.u32 %r{i}, %r{};\n", i + 1));
    }
    s.push_str(&format!("mov.u32 %r{n}, %tid.x;\nsetp.eq.u32 %p, %r0, 0;\n@%p bra.uni LOOP;\nret;\n}}\n"));
    s
}

/// The same chain in program order, in one block.
fn straight_chain(n: usize) -> String {
    let mut s = format!("{HDR}.visible .entry k()\n{{\n.reg .u32 %r<{}>;\n.reg .pred %p;\nmov.u32 %r{n}, %tid.x;\n", n + 1);
    for i in (0..n).rev() {
        s.push_str(&format!("mov.u32 %r{i}, %r{};\n", i + 1));
    }
    s.push_str("setp.eq.u32 %p, %r0, 0;\n@%p bra.uni L;\nL:\nret;\n}\n");
    s
}

#[test]
fn uniformity_of_a_32000_mov_chain_is_fast() {
    let dir = temp_dir("chain");
    for (name, src) in [("loop.ptx", loop_chain(32_000)), ("straight.ptx", straight_chain(32_000))] {
        let p = dir.join(name);
        std::fs::write(&p, src).unwrap();
        let p = p.to_str().unwrap();
        // `bra.uni` on a predicate that depends on %tid.x through the whole
        // chain: check warns (check/uni-divergent), cfg says why.
        let r = ptxsim_measured(&["check", "--color", "never", p], Duration::from_secs(60));
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert!(r.stdout.contains("warning[check/uni-divergent]"), "{name}: {}", &r.stdout[..r.stdout.len().min(1000)]);
        assert!(r.wall < Duration::from_secs(5), "{name}: check took {:?}", r.wall);
        let r = ptxsim_measured(&["cfg", "--color", "never", p], Duration::from_secs(60));
        assert_eq!(r.code, Some(0));
        assert!(r.stdout.contains("divergent: `%p` depends on `%r0`"), "{name}");
        assert!(r.wall < Duration::from_secs(5), "{name}: cfg took {:?}", r.wall);
    }
}

#[test]
fn cfg_of_a_million_labels_is_linear() {
    let dir = temp_dir("labels");
    let n = 1_000_000;
    let mut s = format!("{HDR}.visible .entry k()\n{{\n.reg .u32 %r1;\nmov.u32 %r1, 0;\n");
    for i in 0..n {
        s.push_str(&format!("L{i}:\nadd.u32 %r1, %r1, 1;\n"));
    }
    s.push_str("ret;\n}\n");
    let p = dir.join("labels.ptx");
    std::fs::write(&p, &s).unwrap();
    drop(s);
    let r = ptxsim_measured(&["cfg", p.to_str().unwrap()], Duration::from_secs(120));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // Every block is named by its label, found through the index.
    assert!(r.stdout.contains(&format!("B{n} L{}: line", n - 1)), "the last block");
    assert!(r.wall < Duration::from_secs(40), "cfg took {:?} (a scan of the labels per block: hours)", r.wall);
}

#[test]
fn cfg_of_100k_chained_functions_finds_callees_through_a_map() {
    let dir = temp_dir("funcs");
    let n = 100_000;
    let mut s = format!("{HDR}.func f0()\n{{\nret;\n}}\n");
    for i in 1..n {
        s.push_str(&format!(".func f{i}()\n{{\ncall f{}, ();\nret;\n}}\n", i - 1));
    }
    let p = dir.join("funcs.ptx");
    std::fs::write(&p, &s).unwrap();
    drop(s);
    let r = ptxsim_measured(&["cfg", p.to_str().unwrap()], Duration::from_secs(120));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains(&format!("calls `f{}`", n - 2)));
    assert!(r.wall < Duration::from_secs(20), "cfg took {:?}", r.wall);
}

#[test]
fn dot_of_several_functions_is_one_digraph_with_a_cluster_each() {
    let dir = temp_dir("dot");
    let src = format!("{HDR}.func g()\n{{\nret;\n}}\n.func h()\n{{\ncall g, ();\nret;\n}}\n.visible .entry k()\n{{\n.reg .u32 %r;\n.reg .pred %p;\nmov.u32 %r, %tid.x;\nsetp.eq.u32 %p, %r, 0;\n@%p bra L;\ncall h, ();\nL:\nret;\n}}\n");
    let p = dir.join("three.ptx");
    std::fs::write(&p, src).unwrap();
    let r = ptxsim_measured(&["cfg", "--format", "dot", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout.matches("digraph").count(), 1, "{}", r.stdout);
    assert_eq!(r.stdout.matches("subgraph cluster_").count(), 3, "{}", r.stdout);
    for f in ["g", "h", "k"] {
        assert!(r.stdout.contains(&format!("label=\"{f}\";")), "{}", r.stdout);
    }
    // Node names are distinct across clusters.
    assert!(r.stdout.contains("f0_B0") && r.stdout.contains("f2_B0"));
    assert!(r.stdout.trim_end().ends_with('}'));
    // Braces balance: one graph, closed once.
    assert_eq!(r.stdout.matches('{').count(), r.stdout.matches('}').count());
    // One function: the single digraph as before.
    let r = ptxsim_measured(&["cfg", "--format", "dot", "--function", "k", p.to_str().unwrap()], Duration::from_secs(30));
    assert!(r.stdout.starts_with("digraph \"k\""), "{}", r.stdout);
}
