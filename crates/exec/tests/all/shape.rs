//! The shape rules of issue 22 that a reader can check by eye, checked on
//! the source text: no function of any crate's `src/` is longer than 150
//! lines, and `crates/exec/src` holds no `allow(clippy::too_many_arguments)`
//! (a function that needs more than seven parameters groups them: a
//! struct, or the tuples of an instruction's form and operands).
//!
//! A function's length runs from its `fn` line to the closing brace at the
//! `fn` line's indentation (the code is rustfmt-shaped; a one-line function
//! and a body-less declaration count as one line).

use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every crate's `src/` files.
fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut crates: Vec<_> = std::fs::read_dir(crates_dir()).expect("crates/").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    crates.sort();
    for c in crates {
        rust_files(&c.join("src"), &mut files);
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    files
}

/// If `line` opens a function item, its indentation and name.
fn fn_start(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start().len();
    let mut t = line.trim_start();
    for kw in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
        t = t.strip_prefix(kw).unwrap_or(t);
    }
    let rest = t.strip_prefix("fn ")?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    (end > 0).then(|| (indent, &rest[..end]))
}

/// (lines, name, first line) of every function longer than `max` lines in `text`.
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some((indent, name)) = fn_start(l) else { continue };
        // Find the line with the body's opening brace (or a declaration's `;`).
        let Some(open) = (i..lines.len()).find(|&j| lines[j].contains('{') || lines[j].trim_end().ends_with(';')) else { continue };
        let o = lines[open].trim_end();
        if !o.contains('{') || (o.ends_with('}') && o.matches('{').count() == o.matches('}').count()) {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        let end = (open + 1..lines.len()).find(|&k| lines[k].trim_end() == close).unwrap_or(lines.len() - 1);
        let n = end - i + 1;
        if n > max {
            out.push((n, name.to_string(), i + 1));
        }
    }
    out
}

#[test]
fn the_scanner_measures_functions() {
    let body: String = (0..200).map(|k| format!("    let x{k} = {k};\n")).collect();
    let text = format!("fn short() {{ 1 }}\nfn decl();\npub(crate) fn long(a: u32) -> u32 {{\n{body}    a\n}}\nimpl X {{\n    fn inner() {{\n        ()\n    }}\n}}\n");
    assert_eq!(long_functions(&text, 150), vec![(203, "long".to_string(), 3)]);
    assert!(long_functions(&text, 203).is_empty());
}

#[test]
fn no_function_is_longer_than_150_lines() {
    let mut bad = Vec::new();
    for f in sources() {
        let text = std::fs::read_to_string(&f).expect("readable source");
        for (n, name, line) in long_functions(&text, 150) {
            bad.push(format!("{}:{line}: `{name}` is {n} lines", f.display()));
        }
    }
    assert!(bad.is_empty(), "functions over 150 lines (split them):\n{}", bad.join("\n"));
}

#[test]
fn exec_has_no_too_many_arguments_allowance() {
    let mut files = Vec::new();
    rust_files(&crates_dir().join("exec").join("src"), &mut files);
    assert!(!files.is_empty());
    let bad: Vec<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).expect("readable source").contains(concat!("clippy::", "too_many_arguments")))
        .map(|f| f.display().to_string())
        .collect();
    assert!(bad.is_empty(), "allow(too_many_arguments) in: {bad:?}");
}
