//! The checker runs the uniformity analysis only for functions with a
//! `.uni` instruction it could find divergent (`body.rs`, `may_diverge`).
//! This test checks that the gate loses no warning: on every module of
//! `tests/check`, `tests/corpus` and `tests/analysis` that checks without
//! errors, the `check/uni-divergent` warnings are exactly the `.uni`
//! instructions that the analysis, run on every function, finds divergent.

use ptxsim_analysis::{FlatFunction, FunctionAnalysis, Uniformity};
use ptxsim_syntax::ast::Item;
use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

#[test]
fn gate_keeps_every_uni_divergent_warning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for d in ["tests/check", "tests/corpus", "tests/analysis"] {
        ptx_files(&root.join(d), &mut files);
    }
    files.sort();
    let (mut compared, mut warnings) = (0, 0);
    for p in &files {
        let Ok(text) = std::fs::read_to_string(p) else { continue };
        let parsed = ptxsim_syntax::parse(&text);
        if parsed.has_errors() {
            continue;
        }
        let diags = ptxsim_check::check_module(&parsed.module);
        if diags.iter().any(|d| d.is_error()) {
            continue;
        }
        let mut got: Vec<u32> = diags.iter().filter(|d| d.code == "check/uni-divergent").map(|d| d.primary.span.start).collect();
        let mut want = Vec::new();
        for item in &parsed.module.items {
            let Item::Function(f) = item else { continue };
            let Some(flat) = FlatFunction::new(f) else { continue };
            let fa = FunctionAnalysis::new(&flat);
            for v in Uniformity::new(&flat, &fa).verdicts.iter().filter(|v| v.uni && v.divergent) {
                want.push(flat.instrs[v.instr].span.start);
            }
        }
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "{}", p.display());
        compared += 1;
        warnings += want.len();
    }
    assert!(compared > 400, "only {compared} modules compared");
    assert!(warnings > 0, "no module has a uni-divergent warning to compare");
}
