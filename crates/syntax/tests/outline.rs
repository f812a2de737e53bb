//! `parse_outline` and `parse_function_at` (or `parse_body_at`, the body
//! alone) together give what `parse` gives:
//! on a module that parses without diagnostics, the outline is the module
//! with its bodies' statements left out, and each function parsed again at
//! its start is the function `parse` built, spans included; on a module
//! with any diagnostic, one of the two reports failure (so a caller falls
//! back to `parse` for the diagnostics). Checked on every file of the
//! corpus, `tests/check` and the malformed examples, and on mutations of
//! corpus files (bytes deleted, braces and semicolons added).

mod common;

use ptxsim_syntax::ast::{Item, Module};
use ptxsim_syntax::{parse, parse_body_at, parse_function_at, parse_outline};

/// The function items of `m`, each with its body's statements.
fn debug_items(m: &Module<'_>, drop_bodies: bool) -> Vec<String> {
    m.items
        .iter()
        .map(|i| match i {
            Item::Function(f) if drop_bodies => {
                let mut f = (**f).clone();
                if let Some(b) = &mut f.body {
                    b.stmts.clear();
                }
                format!("{f:?}")
            }
            other => format!("{other:?}"),
        })
        .collect()
}

/// Whether the outline path reports failure, and if not, that it rebuilt
/// exactly the module `parse` built.
fn outline_agrees(text: &str, what: &str) -> bool {
    let full = parse(text);
    let Some(outline) = parse_outline(text) else {
        assert!(!full.diagnostics.is_empty(), "{what}: the outline failed on a module that parses cleanly");
        return false;
    };
    let mut stack = Vec::new();
    let mut failed = false;
    for (k, item) in outline.items.iter().enumerate() {
        let Item::Function(f) = item else { continue };
        if f.body.is_none() {
            continue;
        }
        let open = f.body.as_ref().map_or(0, |b| b.span.start);
        let body = parse_body_at(text, open, Vec::new());
        match parse_function_at(text, f.span.start, std::mem::take(&mut stack)) {
            None => {
                failed = true;
                // The header parsed in the outline: what failed is the body,
                // or where it ends.
                assert!(body.is_none() || body.is_some_and(|b| !f.body.as_ref().is_some_and(|s| s.span.same_as(b.span))), "{what}: function {k} fails to parse but its body alone parses");
            }
            Some(mut g) => {
                if full.diagnostics.is_empty() {
                    let Item::Function(want) = &full.module.items[k] else { panic!("{what}: item {k} is not a function in the full parse") };
                    assert_eq!(format!("{g:?}"), format!("{want:?}"), "{what}: function {k} parsed at its start");
                    let body = body.unwrap_or_else(|| panic!("{what}: the body of function {k} fails to parse alone"));
                    assert_eq!(format!("{:?}", Some(&body)), format!("{:?}", want.body.as_ref()), "{what}: body {k} parsed at its `{{`");
                    assert!(body.span.same_as(want.body.as_ref().map_or(body.span, |b| b.span)), "{what}: body {k} ends where the whole parse's ends");
                }
                if let Some(b) = g.body.take() {
                    stack = b.stmts;
                }
            }
        }
    }
    if full.diagnostics.is_empty() {
        assert!(!failed, "{what}: a function failed to parse alone in a clean module");
        assert_eq!(debug_items(&outline, true), debug_items(&full.module, true), "{what}: outline items");
    } else {
        assert!(failed, "{what}: the module has diagnostics but the outline path found none: {:?}", full.diagnostics.first());
    }
    !failed
}

/// Runs `f` with the stack of a process's main thread: the malformed
/// examples nest blocks 200 deep, which formatting and dropping their trees
/// in a debug build takes more than a test thread's 2 MiB for.
fn with_main_stack(f: fn()) {
    std::thread::Builder::new().stack_size(8 << 20).spawn(f).expect("a thread").join().expect("no panic");
}

#[test]
fn outline_and_functions_rebuild_the_parse() {
    with_main_stack(rebuild);
}

fn rebuild() {
    let mut files = common::corpus_files();
    files.extend(common::ptx_files(&common::repo_root().join("tests/check")));
    files.extend(common::ptx_files(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")));
    let (mut clean, mut not) = (0, 0);
    for p in &files {
        if outline_agrees(&common::read(p), &common::rel(p)) {
            clean += 1;
        } else {
            not += 1;
        }
    }
    assert!(clean > 500 && not > 50, "{clean} clean, {not} with diagnostics");
}

#[test]
fn mutated_modules_fall_back_exactly_when_parse_reports() {
    with_main_stack(mutated);
}

fn mutated() {
    let files = common::corpus_files();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % n as u64) as usize
    };
    for p in files.iter().take(40) {
        let text = common::read(p);
        for _ in 0..25 {
            let mut b = text.clone().into_bytes();
            for _ in 0..1 + next(3) {
                let at = next(b.len().max(1));
                match next(4) {
                    0 => {
                        let end = (at + 1 + next(8)).min(b.len());
                        b.drain(at..end);
                    }
                    1 => b.insert(at, b'{'),
                    2 => b.insert(at, b'}'),
                    _ => b.insert(at, b';'),
                }
            }
            let Ok(t) = String::from_utf8(b) else { continue };
            outline_agrees(&t, &common::rel(p));
        }
    }
}

/// `lexer::skip_braced` ends where matching the braces of the lexer's
/// tokens ends, on random texts of braces, quotes, slashes, stars,
/// backslashes, newlines and letters, at every start.
#[test]
fn skip_braced_matches_the_tokens_braces() {
    use ptxsim_syntax::lexer::{skip_braced, Lexer, Tok};
    let alphabet = b"{}{}\"//**\\\n ab%.;";
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20_000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        // Short dense texts, and long sparse ones (runs of letters longer
        // than the eight bytes the scan takes at a time).
        let (len, sparse) = if s % 2 == 0 { ((s >> 8) as usize % 40, 1) } else { ((s >> 8) as usize % 300, 9) };
        let mut r = s;
        let text: String = (0..len)
            .map(|_| {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                if r % sparse == 0 { alphabet[(r >> 8) as usize % alphabet.len()] as char } else { 'x' }
            })
            .collect();
        let mut lx = Lexer::new(&text);
        let mut depth = 1u64;
        let want = loop {
            let (t, span) = lx.next_token();
            match t {
                Tok::Eof | Tok::UnterminatedComment => break None,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        break Some(span.end as usize);
                    }
                }
                _ => {}
            }
        };
        assert_eq!(skip_braced(&text, 0), want, "{text:?}");
    }
}
