//! The analyses and their rendering stay close to linear in the module:
//! uniformity over long dependence chains, many labels, many functions with
//! calls between them; and `cfg --format dot` gives one graph for a module of
//! several functions. Each test bounds wall time (generous: the machine may be
//! shared; the quadratic versions took minutes).

mod common;

use common::{ptxsim_measured, temp_dir, MB};
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

/// `n` copies of a kernel that takes two functions' addresses and calls
/// through a `.callprototype`: every call site's candidates are all the
/// module's address-taken functions (2n of them).
fn prototype_copies(n: usize) -> String {
    let mut s = String::from(HDR);
    for i in 0..n {
        s.push_str(&format!(
            ".func (.param .b32 r) inc{i}(.param .b32 x)\n{{\n.reg .b32 %v;\nld.param.b32 %v, [x];\nst.param.b32 [r], %v;\nret;\n}}\n\
             .func (.param .b32 r) dec{i}(.param .b32 x)\n{{\n.reg .b32 %v;\nld.param.b32 %v, [x];\nst.param.b32 [r], %v;\nret;\n}}\n\
             .visible .entry k{i}(.param .u32 n)\n{{\n.reg .u64 %fp;\n.reg .b32 %a, %b;\nFproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n\
             mov.u64 %fp, inc{i};\nmov.u64 %fp, dec{i};\nld.param.u32 %a, [n];\n{{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], %a;\n\
             call (pr), %fp, (pa), Fproto;\nld.param.b32 %b, [pr];\n}}\nret;\n}}\n"
        ));
    }
    s
}

#[test]
fn cfg_shares_one_candidate_list_among_prototype_call_sites() {
    let dir = temp_dir("proto");
    let p = dir.join("proto.ptx");
    std::fs::write(&p, prototype_copies(3000)).unwrap();
    let r = ptxsim_measured(&["check", p.to_str().unwrap()], Duration::from_secs(120));
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let r = ptxsim_measured(&["cfg", p.to_str().unwrap()], Duration::from_secs(120));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // Text shows 16 names per site and how many more.
    assert!(r.stdout.contains("calls through a prototype; candidates (address taken): `dec0`, `dec1`,") && r.stdout.contains(" and 5984 more"), "{}", &r.stdout[..r.stdout.len().min(3000)]);
    // 3,000 sites x 6,000 names copied per site took gigabytes.
    assert!(r.peak_rss < 200 * MB, "peak RSS {} MB", r.peak_rss / MB);
    assert!(r.wall < Duration::from_secs(30), "{:?}", r.wall);
}
