//! Helpers shared by the integration tests: finding the corpus files.

#![allow(dead_code)]

pub mod gen;

use std::path::{Path, PathBuf};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.ptx` file under `dir` (recursively), sorted, so test output is stable.
pub fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The real-compiler corpus: `tests/corpus/**.ptx`.
pub fn corpus_files() -> Vec<PathBuf> {
    ptx_files(&repo_root().join("tests/corpus"))
}

/// ptxas-accepted small modules: `tests/check/accept/*.ptx`.
pub fn accept_files() -> Vec<PathBuf> {
    ptx_files(&repo_root().join("tests/check/accept"))
}

/// Modules ptxas rejects (some with real syntax errors): `tests/check/reject/*.ptx`.
pub fn reject_files() -> Vec<PathBuf> {
    ptx_files(&repo_root().join("tests/check/reject"))
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

pub fn rel(p: &Path) -> String {
    let root = repo_root();
    p.strip_prefix(&root).unwrap_or(p).display().to_string()
}
