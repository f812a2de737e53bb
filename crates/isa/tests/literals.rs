//! No opcode or modifier string literal outside `crates/isa` (issue 22):
//! every stage above the syntax reads instructions through the rows and
//! the typed [`ptxsim_isa::Insn`]. A counted literal is a string literal
//! that is exactly an opcode of a row, or exactly one dotted modifier such
//! as `".sat"` (diagnostic texts, which hold more, are not counted;
//! `crates/syntax`, below the rows, which defines the type and state-space
//! spellings, and tests are not counted). None may stand, except the few in
//! `literals.allowed` that only look like one (a directive of the machine
//! form's own text format, a field name, a CPU feature), each with its
//! reason; an allowance nothing uses any more must go.

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

/// Every counted literal: (file, literal), in file order.
fn found() -> Vec<(String, String)> {
    let ops: Vec<&str> = ptxsim_isa::OPS.iter().map(|o| o.op).collect();
    let mut files = Vec::new();
    for c in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let name = c.file_name().to_string_lossy().to_string();
        if name != "isa" && name != "syntax" {
            rs_files(&c.path().join("src"), &mut files);
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(root()).unwrap_or(&f).to_string_lossy().replace("/../..", "");
        let rel = rel.trim_start_matches("./").to_string();
        for s in text.lines().filter(|l| !l.trim_start().starts_with("//")).flat_map(literals) {
            if ops.contains(&s.as_str()) || is_modifier(&s) {
                out.push((rel.clone(), s));
            }
        }
    }
    out
}

/// The literals `literals.allowed` lets stand: each spells something that
/// only looks like an opcode or a modifier (a directive of another text
/// format, a field name, a CPU feature, a stable external name), with the
/// reason on its line.
fn allowed() -> Vec<(String, String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/literals.allowed");
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut p = l.splitn(3, '\t');
            let (f, lit, why) = (p.next().unwrap_or(""), p.next().unwrap_or(""), p.next().unwrap_or(""));
            (f.to_string(), lit.to_string(), why.to_string())
        })
        .collect()
}

#[test]
fn no_opcode_or_modifier_literal_outside_isa() {
    let allow = allowed();
    for (f, lit, why) in &allow {
        assert!(why.trim().len() > 10, "literals.allowed: `{lit}` in {f} needs its reason");
    }
    let bad: Vec<String> = found()
        .into_iter()
        .filter(|(f, lit)| !allow.iter().any(|(af, al, _)| af == f && al == lit))
        .map(|(f, lit)| format!("{f}\t{lit}"))
        .collect();
    assert!(bad.is_empty(), "opcode or modifier literals outside crates/isa (read the instruction through ptxsim_isa's rows and Insn instead; a literal that only looks like one goes in literals.allowed with its reason):\n{}", bad.join("\n"));
    // An allowance nothing uses any more goes.
    let now = found();
    for (f, lit, _) in &allow {
        assert!(now.iter().any(|(nf, nl)| nf == f && nl == lit), "literals.allowed: `{lit}` no longer in {f}; remove the line");
    }
}

#[test]
fn literal_scanner() {
    assert_eq!(literals(r#"match x { "vadd" => 1, '"' => 2, ".sat" => f("a \" b") } // ".x""#), ["vadd", ".sat", "a \" b"]);
    assert!(is_modifier(".shared::cta") && is_modifier(".b32") && !is_modifier(".") && !is_modifier("a.b") && !is_modifier(".X"));
}
