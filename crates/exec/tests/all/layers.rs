//! The one-way layers of `crates/exec/src`: `lib.rs` declares its modules
//! bottom to top (`// layer: NAME` lines group them), and a module may use
//! (`use crate::...`, or a `crate::...` path in code) only the modules
//! declared before it, never one declared after it, nor an item of the
//! crate root (the root only declares and re-exports). Unit-test modules
//! (`#[cfg(test)] mod ... { ... }`) may reach anywhere. The check reads the
//! source text: every `crate::` path outside comments, with `crate::{a,
//! b::c}` groups split, and `super::` chains that climb to the root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The modules `lib.rs` declares, in order, each with its layer's name.
fn declared(lib: &str) -> Vec<(String, String)> {
    let mut layer = String::from("(none)");
    let mut out = Vec::new();
    for line in lib.lines() {
        let t = line.trim();
        if let Some(l) = t.strip_prefix("// layer:") {
            layer = l.trim().to_string();
            continue;
        }
        let t = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub ")).unwrap_or(t);
        if let Some(name) = t.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            out.push((name.trim().to_string(), layer.clone()));
        }
    }
    out
}

/// `s` without `//` comments (doc comments included) and string literals'
/// contents, so that neither a doc link nor a message counts as a use.
fn code_only(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if b[i] == b'"' && (i == 0 || b[i - 1] != b'\'') {
            // Skip to the closing quote (raw strings here hold no quote).
            out.push('"');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                if i < b.len() && b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push('"');
            i += 1;
            continue;
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// `s` with the bodies of `#[cfg(test)]` modules blanked (newlines kept,
/// so line numbers stay right).
fn without_test_modules(s: &str) -> String {
    let mut out = s.to_string();
    let mut from = 0;
    while let Some(k) = out[from..].find("#[cfg(test)]") {
        let at = from + k;
        let after = out[at + 12..].trim_start();
        let is_mod = after.starts_with("mod ") || after.starts_with("pub mod ") || after.starts_with("pub(crate) mod ");
        let Some(open) = out[at..].find('{').map(|o| at + o) else { break };
        if !is_mod || out[at..open].contains(';') {
            from = at + 12;
            continue;
        }
        let mut depth = 0;
        let mut end = out.len();
        for (j, c) in out[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blank: String = out[at..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        out.replace_range(at..end, &blank);
        from = at + 1;
    }
    out
}

fn ident(s: &str) -> &str {
    let n = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..n]
}

/// The first path segment after each `crate::` of `code`, with its line.
fn crate_paths(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `ptxsim_crate::` and the like
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[at + 7..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(std::mem::take(&mut item));
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            items.push(item);
            for it in items {
                let name = ident(it.trim());
                if !name.is_empty() {
                    out.push((line, name.to_string()));
                }
            }
        } else {
            out.push((line, ident(rest).to_string()));
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("src directory").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every import that runs back up (or through the crate root), as
/// `file:line: message`.
fn violations() -> Vec<String> {
    let root = src();
    let lib = std::fs::read_to_string(root.join("lib.rs")).expect("lib.rs");
    let order = declared(&lib);
    let rank: HashMap<&str, usize> = order.iter().enumerate().map(|(i, (m, _))| (m.as_str(), i)).collect();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut bad = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).expect("under src").to_string_lossy().replace('\\', "/");
        if rel == "lib.rs" {
            continue;
        }
        let top = rel.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_string();
        let Some(&mine) = rank.get(top.as_str()) else {
            bad.push(format!("src/{rel}: module `{top}` is not declared in lib.rs (declare it in its layer)"));
            continue;
        };
        let text = std::fs::read_to_string(&f).expect("source file");
        let code = without_test_modules(&code_only(&text));
        for (line, target) in crate_paths(&code) {
            if target == top {
                continue;
            }
            match rank.get(target.as_str()) {
                Some(&r) if r < mine => {}
                Some(&r) => bad.push(format!(
                    "src/{rel}:{line}: `{top}` (layer {}) uses `{target}` (layer {}), declared after it in lib.rs: the import runs back up",
                    order[mine].1, order[r].1
                )),
                None => bad.push(format!("src/{rel}:{line}: `{top}` uses `crate::{target}` through the crate root; name the module that owns it")),
            }
        }
        // `super::` chains long enough to leave the module tree reach the
        // crate root: `datapath/mem.rs` is `datapath::mem`, so
        // `super::super::` is the root; `datapath/mod.rs` is `datapath`.
        let depth = rel.split('/').count() - usize::from(rel.ends_with("/mod.rs"));
        for (k, _) in code.match_indices("super::") {
            if code[..k].ends_with("super::") {
                continue; // counted from the chain's first `super::`
            }
            let chain = code[k..].as_bytes().chunks(7).take_while(|c| *c == b"super::").count();
            if chain >= depth {
                let line = code[..k].matches('\n').count() + 1;
                bad.push(format!("src/{rel}:{line}: `{}` is the crate root; name the module that owns the item", "super::".repeat(chain)));
            }
        }
    }
    bad
}

#[test]
fn no_import_runs_back_up_the_layers() {
    let bad = violations();
    assert!(bad.is_empty(), "{} imports against the layer order of crates/exec/src/lib.rs:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn lib_declares_the_layers_in_order() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let layers: Vec<String> = declared(&lib).into_iter().map(|(_, l)| l).fold(Vec::new(), |mut v, l| {
        if v.last() != Some(&l) {
            v.push(l);
        }
        v
    });
    let names: Vec<&str> = layers.iter().map(|l| l.split_whitespace().next().unwrap_or_default()).collect();
    assert_eq!(names, ["program", "decode", "machine", "datapath", "sched", "api"]);
}

/// The checker itself: it sees a use that runs back up, a group, an inline
/// path, and neither a comment, a string nor a unit-test module.
#[test]
fn the_checker_reads_paths_as_the_compiler_does() {
    let s = "use crate::{a::X, b, c::{d, e}};\n// crate::z\nfn f() { crate::y::g(\"crate::w\"); }\n#[cfg(test)]\nmod tests {\n    use crate::t;\n}\nuse crate::u;\n";
    let code = without_test_modules(&code_only(s));
    let got: Vec<(usize, String)> = crate_paths(&code);
    let want: Vec<(usize, String)> = [(1, "a"), (1, "b"), (1, "c"), (3, "y"), (8, "u")].iter().map(|(l, n)| (*l, n.to_string())).collect();
    assert_eq!(got, want);
}
