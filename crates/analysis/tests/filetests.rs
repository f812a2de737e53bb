//! File tests: `tests/analysis/*.ptx` carry their expectations inline, as a
//! `// ...` comment on each branch-like line: `ipdom: <label|exit|line N>` and
//! `uniform` or `divergent because <source> [(sync)] [(temporal)]`. Every
//! branch-like instruction must carry one, and every such comment must belong to
//! one. Run with `BLESS=1` to rewrite the comments from the analysis (read the
//! diff before committing it).

use ptxsim_analysis::report::analyse_module;
use ptxsim_syntax::LineIndex;
use std::collections::BTreeMap;
use std::path::Path;

fn is_expectation(c: &str) -> bool {
    c.starts_with("ipdom:") || c.starts_with("uniform") || c.starts_with("divergent")
}

#[test]
fn inline_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/analysis");
    let bless = std::env::var_os("BLESS").is_some();
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("tests/analysis").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "ptx"));
    files.sort();
    assert!(files.len() >= 5);
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in files {
        let src = std::fs::read_to_string(&path).expect("read");
        let parsed = ptxsim_syntax::parse(&src);
        assert!(!parsed.has_errors(), "{}: {:?}", path.display(), parsed.diagnostics);
        let li = LineIndex::new(&src);
        let mut actual: BTreeMap<u32, String> = BTreeMap::new();
        for r in analyse_module(&parsed.module) {
            for k in 0..r.flat.instrs.len() {
                if let Some(a) = r.annotation(k, &li) {
                    actual.insert(li.line(r.instr_span(k).start), a);
                }
            }
        }
        let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
        for (i, l) in lines.iter_mut().enumerate() {
            let n = i as u32 + 1;
            let (code, comment) = match l.split_once("//") {
                Some((c, m)) => (c.to_string(), Some(m.trim().to_string())),
                None => (l.clone(), None),
            };
            let expected = comment.filter(|c| is_expectation(c));
            let got = actual.get(&n);
            if expected.as_ref() != got {
                if bless {
                    *l = match got {
                        Some(g) => format!("{} // {g}", code.trim_end()),
                        None => code.trim_end().to_string(),
                    };
                } else {
                    failures.push(format!("{}:{n}: expected {:?}, got {:?}", path.display(), expected, got));
                }
            }
            if got.is_some() {
                checked += 1;
            }
        }
        if bless {
            std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} expectations");
}

#[test]
fn irreducible_and_loop_structure() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/analysis");
    let src = std::fs::read_to_string(dir.join("irreducible.ptx")).expect("read");
    let parsed = ptxsim_syntax::parse(&src);
    let r = &analyse_module(&parsed.module)[0];
    assert!(r.loops.loops.is_empty(), "no natural loop: neither A nor B dominates the other");
    assert_eq!(r.loops.irreducible.len(), 1);
    assert_eq!(r.loops.irreducible[0].entries.len(), 2);
    let src = std::fs::read_to_string(dir.join("loops.ptx")).expect("read");
    let parsed = ptxsim_syntax::parse(&src);
    let r = &analyse_module(&parsed.module)[0];
    assert_eq!(r.loops.loops.len(), 3);
    let multi = r.loops.loops.iter().find(|l| l.exit_blocks().len() == 2).expect("a loop with two exits");
    assert_eq!(multi.depth, 1);
    assert!(r.loops.irreducible.is_empty());
    assert!(r.unreachable.is_empty());
}

#[test]
fn uni_warning_on_divergent_uni_branch() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/analysis");
    let src = std::fs::read_to_string(dir.join("unstructured.ptx")).expect("read");
    let parsed = ptxsim_syntax::parse(&src);
    let d = ptxsim_analysis::report::uni_diagnostics(&parsed.module, false);
    assert_eq!(d.len(), 1, "{d:?}");
    // The one `.uni` warning, the same that `ptxsim check` gives.
    assert_eq!(d[0].code, "check/uni-divergent");
    let notes = ptxsim_analysis::report::uni_diagnostics(&parsed.module, true);
    // The uniform `@%p3 bra LOOP` lacks .uni.
    assert!(notes.iter().any(|x| x.code == "analysis/uniform-not-uni"));
}
