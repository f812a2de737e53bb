//! Every module of the real-compiler corpus (`tests/corpus/**.ptx`: nvcc,
//! clang, llvmlite and the seeds) parses and checks with no error.

use ptxsim_syntax::{Diagnostic, SourceFile};
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
fn real_compiler_corpus_checks_clean() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files = Vec::new();
    ptx_files(&root, &mut files);
    files.sort();
    assert!(files.len() >= 60, "corpus not found: {} files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let parsed = ptxsim_syntax::parse(&text);
        let mut diags = parsed.diagnostics;
        if !diags.iter().any(Diagnostic::is_error) {
            diags.extend(ptxsim_check::check_module(&parsed.module));
        }
        let errors: Vec<Diagnostic> = diags.into_iter().filter(|d| d.is_error()).collect();
        if !errors.is_empty() {
            let name = f.display().to_string();
            let src = SourceFile::new(&name, &text);
            failures.push(src.render(&errors[..errors.len().min(3)], false));
        }
    }
    assert!(failures.is_empty(), "{} corpus files have errors:\n{}", failures.len(), failures.join("\n"));
}

/// Prints the checker's errors for every `.ptx` under `$PTXSIM_CHECK_DIR`
/// (`cargo test --test corpus -- --ignored --nocapture`), for surveying
/// other collections of modules.
#[test]
#[ignore]
fn survey_dir_from_env() {
    let Ok(dir) = std::env::var("PTXSIM_CHECK_DIR") else { return };
    let mut files = Vec::new();
    ptx_files(Path::new(&dir), &mut files);
    files.sort();
    let (mut clean, mut parse_err, mut check_err) = (0, 0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let parsed = ptxsim_syntax::parse(&text);
        if parsed.diagnostics.iter().any(Diagnostic::is_error) {
            parse_err += 1;
            continue;
        }
        let errors: Vec<Diagnostic> = ptxsim_check::check_module(&parsed.module).into_iter().filter(|d| d.is_error()).collect();
        if errors.is_empty() {
            clean += 1;
        } else {
            check_err += 1;
            let name = f.display().to_string();
            eprintln!("{}", SourceFile::new(&name, &text).render(&errors[..1], false));
        }
    }
    eprintln!("{clean} clean, {check_err} with check errors, {parse_err} with parse errors");
}
