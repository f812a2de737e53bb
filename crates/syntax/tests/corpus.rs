//! Corpus tests: every real-compiler PTX file and every ptxas-accepted module
//! parses with zero errors; printing then parsing gives back an equal AST; and
//! printing is a fixed point after one round. Rejected modules never panic.
//!
//! The file lists are globbed at run time, so files added to the corpus are
//! picked up without touching this test.

mod common;

use common::*;
use ptxsim_syntax::{parse, print_module, SourceFile};

/// Parses every file and returns a report of those with errors (empty if none).
fn errors_in(files: &[std::path::PathBuf]) -> String {
    let mut report = String::new();
    for f in files {
        let text = read(f);
        let parsed = parse(&text);
        if parsed.has_errors() {
            let name = rel(f);
            let sf = SourceFile::new(&name, &text);
            report.push_str(&sf.render(&parsed.diagnostics, false));
        }
    }
    report
}

#[test]
fn corpus_is_not_empty() {
    assert!(corpus_files().len() >= 10, "the corpus should hold real PTX files");
}

#[test]
fn corpus_parses_without_errors() {
    let report = errors_in(&corpus_files());
    assert!(report.is_empty(), "corpus files with syntax errors:\n{report}");
}

#[test]
fn accepted_modules_parse_without_errors() {
    let report = errors_in(&accept_files());
    assert!(report.is_empty(), "ptxas-accepted modules with syntax errors:\n{report}");
}

#[test]
fn rejected_modules_never_panic_and_spans_are_in_range() {
    for f in reject_files() {
        let text = read(&f);
        let parsed = parse(&text);
        for d in &parsed.diagnostics {
            let s = d.primary.span;
            assert!(s.start <= s.end && s.end as usize <= text.len(), "{}: span {s:?} out of range", rel(&f));
        }
        // Rendering must not panic either.
        let name = rel(&f);
        let _ = SourceFile::new(&name, &text).render(&parsed.diagnostics, false);
    }
}

/// `parse(print(ast)) == ast` and `print(parse(print(ast))) == print(ast)`.
fn round_trip(files: &[std::path::PathBuf]) {
    let mut failures = Vec::new();
    for f in files {
        let text = read(f);
        // Declared before `parsed`: the AST is invariant in its lifetime (SmallVec),
        // so both ASTs must borrow texts that outlive them.
        let printed: String;
        let parsed = parse(&text);
        if parsed.has_errors() {
            continue; // reported by the zero-errors tests
        }
        printed = print_module(&parsed.module);
        let reparsed = parse(&printed);
        if reparsed.has_errors() {
            let sf = SourceFile::new("printed", &printed);
            failures.push(format!(
                "{}: the printed module does not parse:\n{}",
                rel(f),
                sf.render(&reparsed.diagnostics, false)
            ));
            continue;
        }
        if reparsed.module != parsed.module {
            let (a, b) = (format!("{:#?}", parsed.module), format!("{:#?}", reparsed.module));
            let first = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
            let ctx = |s: &str| s.lines().skip(first.saturating_sub(8)).take(12).collect::<Vec<_>>().join("\n");
            failures.push(format!(
                "{}: the AST changed after print+parse; original:\n{}\nreparsed:\n{}",
                rel(f),
                ctx(&a),
                ctx(&b)
            ));
            continue;
        }
        let printed2 = print_module(&reparsed.module);
        if printed2 != printed {
            failures.push(format!("{}: printing is not a fixed point", rel(f)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn corpus_round_trips() {
    round_trip(&corpus_files());
}

#[test]
fn accepted_modules_round_trip() {
    round_trip(&accept_files());
}
