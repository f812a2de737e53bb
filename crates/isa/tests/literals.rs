//! No opcode or modifier string literal outside `crates/isa` (issue 22):
//! every stage above the syntax reads instructions through the rows and
//! the typed [`ptxsim_isa::Insn`]. Not yet true of the older per-form code,
//! so this is a ratchet: `literals.baseline` records, per source file, how
//! many literals there are (a string literal that is exactly an opcode of a
//! row, or exactly one dotted modifier such as `".sat"`; diagnostic texts,
//! which hold more, are not counted), and a file may only go down. The code
//! of the typed path has none, and a file not in the baseline has none.
//! `crates/syntax` is below the rows (it defines the type and state-space
//! spellings) and is not counted; tests are not counted.
//!
//! After removing literals, rewrite the baseline with
//! `PTXSIM_BLESS_LITERALS=1 cargo test -p ptxsim-isa --test literals`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of a line of Rust, outside a `//` comment.
fn literals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = line.as_bytes();
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'/' if b.get(k + 1) == Some(&b'/') => break,
            b'\'' => {
                // A char literal ('"', '\'') or a lifetime: skip the quote's content.
                if b.get(k + 2) == Some(&b'\'') {
                    k += 3;
                } else if b.get(k + 1) == Some(&b'\\') && b.get(k + 3) == Some(&b'\'') {
                    k += 4;
                } else {
                    k += 1;
                }
            }
            b'"' => {
                let mut s = String::new();
                k += 1;
                while k < b.len() && b[k] != b'"' {
                    if b[k] == b'\\' {
                        k += 1;
                    }
                    if let Some(&c) = b.get(k) {
                        s.push(c as char);
                    }
                    k += 1;
                }
                out.push(s);
                k += 1;
            }
            _ => k += 1,
        }
    }
    out
}

fn is_modifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next() == Some('.') && c.next().is_some_and(|x| x.is_ascii_lowercase()) && s[1..].chars().all(|x| x.is_ascii_lowercase() || x.is_ascii_digit() || x == '_' || x == ':')
}

fn counts() -> BTreeMap<String, usize> {
    let ops: Vec<&str> = ptxsim_isa::OPS.iter().map(|o| o.op).collect();
    let mut files = Vec::new();
    for c in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let name = c.file_name().to_string_lossy().to_string();
        if name != "isa" && name != "syntax" {
            rs_files(&c.path().join("src"), &mut files);
        }
    }
    let mut out = BTreeMap::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let n = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .flat_map(literals)
            .filter(|s| ops.contains(&s.as_str()) || is_modifier(s))
            .count();
        if n > 0 {
            let rel = f.strip_prefix(root()).unwrap_or(&f).to_string_lossy().replace("/../..", "");
            out.insert(rel.trim_start_matches("./").to_string(), n);
        }
    }
    out
}

#[test]
fn opcode_and_modifier_literals_only_go_down() {
    let now = counts();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/literals.baseline");
    if std::env::var_os("PTXSIM_BLESS_LITERALS").is_some() {
        let text: String = now.iter().map(|(f, n)| format!("{n}\t{f}\n")).collect();
        std::fs::write(&path, text).unwrap();
    }
    let base: BTreeMap<String, usize> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, f)| (f.to_string(), n.parse().unwrap()))
        .collect();
    for typed in ["crates/check/src/rules/insn.rs", "crates/exec/src/decode/instr/typed.rs", "crates/sem/src/alu/vscalar.rs"] {
        assert!(!now.contains_key(typed), "{typed}: the typed path has no opcode or modifier literal ({:?})", now.get(typed));
    }
    for (f, n) in &now {
        let b = base.get(f).copied().unwrap_or(0);
        assert!(*n <= b, "{f}: {n} opcode or modifier literals, more than the {b} of literals.baseline");
    }
}

#[test]
fn literal_scanner() {
    assert_eq!(literals(r#"match x { "vadd" => 1, '"' => 2, ".sat" => f("a \" b") } // ".x""#), ["vadd", ".sat", "a \" b"]);
    assert!(is_modifier(".shared::cta") && is_modifier(".b32") && !is_modifier(".") && !is_modifier("a.b") && !is_modifier(".X"));
}
