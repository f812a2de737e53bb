//! Property tests: the parser never panics on random token soup or on random
//! mutations of corpus files, every diagnostic span lies inside the input, the
//! diagnostics render, and whatever parses cleanly prints to text that parses
//! cleanly to the same printed form. (The long-running search for crashes is
//! the cargo-fuzz target in `fuzz/`; this is its quick, always-on sibling.)

mod common;

use proptest::prelude::*;
use ptxsim_syntax::{parse, print_module, SourceFile};
use std::sync::OnceLock;

const FRAGMENTS: &[&str] = &[
    ".version", "7.8", ".target", "sm_70", ".address_size", "64", ".visible", ".entry", ".func", ".extern",
    ".weak", ".common", ".param", ".reg", ".shared", ".global", ".const", ".local", ".tex", ".u32", ".b64",
    ".f32", ".pred", ".v4", ".align", "8", ".ptr", ".maxntid", ".noreturn", ".pragma", "\"nounroll\"", ".file",
    ".loc", ".section", ".debug_info", ".b8", ".branchtargets", ".calltargets", ".callprototype", "_", "k", "f",
    "%r1", "%r<4>", "%p", "%tid", ".x", "$L1", "L1", ":", ";", ",", "{", "}", "(", ")", "[", "]", "<", ">", "+",
    "-", "*", "/", "!", "|", "&", "^", "~", "@", "=", "?", "add", ".s32", "bra", ".uni", "call", "ret", "ld",
    "mov", "setp", ".eq", "0", "0x1F", "017", "0b101", "42U", "1.5", "1e-3", "0f3F800000", "0d3FF0000000000000",
    "08", "0x", "12abc", "generic", "\"s\"", "\"unterminated", "/*", "*/", "// c", "#", "é", " ", "\n", "\t", "::",
];

fn render_and_check(src: &str) {
    let parsed = parse(src);
    for d in &parsed.diagnostics {
        for s in std::iter::once(d.primary.span).chain(d.secondary.iter().map(|l| l.span)) {
            assert!(s.start <= s.end && s.end as usize <= src.len(), "span {s:?} out of range");
            assert!(src.is_char_boundary(s.start as usize) && src.is_char_boundary(s.end as usize));
        }
    }
    let sf = SourceFile::new("t.ptx", src);
    let _ = sf.render(&parsed.diagnostics, false);
    let _ = sf.to_json(&parsed.diagnostics);
    if !parsed.has_errors() {
        let printed = print_module(&parsed.module);
        let re = parse(&printed);
        assert!(
            !re.has_errors(),
            "printed text does not parse:\n{printed}\n{}",
            SourceFile::new("p.ptx", &printed).render(&re.diagnostics, false)
        );
        assert_eq!(print_module(&re.module), printed, "printing is not a fixed point");
    }
}

fn corpus() -> &'static Vec<String> {
    static C: OnceLock<Vec<String>> = OnceLock::new();
    C.get_or_init(|| {
        let mut v: Vec<String> = common::corpus_files().iter().map(|p| common::read(p)).collect();
        v.extend(common::accept_files().iter().take(40).map(|p| common::read(p)));
        v
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0..FRAGMENTS.len()).prop_map(|(a, f)| Mutation::Insert(a, f)),
        (any::<usize>(), 0usize..200).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

fn floor(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(mut s: String, m: &Mutation) -> String {
    let len = s.len().max(1);
    match *m {
        Mutation::Delete(a, n) => {
            let a = floor(&s, a % len);
            let b = floor(&s, a + n);
            s.replace_range(a..b, "");
        }
        Mutation::Insert(a, f) => {
            let a = floor(&s, a % len);
            s.insert_str(a, FRAGMENTS[f]);
        }
        Mutation::Duplicate(a, n) => {
            let a = floor(&s, a % len);
            let b = floor(&s, a + n);
            let piece = s[a..b].to_string();
            s.insert_str(b, &piece);
        }
        Mutation::Truncate(a) => {
            let a = floor(&s, a % len);
            s.truncate(a);
        }
        Mutation::Swap(a, b) => {
            let (a, b) = (floor(&s, a % len), floor(&s, b % len));
            let (a, b) = (a.min(b), a.max(b));
            let ea = floor(&s, a + 8).min(b);
            let eb = floor(&s, b + 8);
            let (x, y) = (s[a..ea].to_string(), s[b..eb].to_string());
            s = format!("{}{}{}{}{}", &s[..a], y, &s[ea..b], x, &s[eb..]);
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(toks in proptest::collection::vec((0..FRAGMENTS.len(), 0u8..3), 0..300)) {
        let mut s = String::new();
        for (t, sep) in toks {
            s.push_str(FRAGMENTS[t]);
            s.push_str(["", " ", "\n"][sep as usize]);
        }
        render_and_check(&s);
    }

    #[test]
    fn mutated_corpus_never_panics(file in any::<usize>(), muts in proptest::collection::vec(mutation(), 1..6)) {
        let c = corpus();
        let mut s = c[file % c.len()].clone();
        for m in &muts {
            s = apply(s, m);
        }
        render_and_check(&s);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        render_and_check(&s);
    }
}

/// Deeply nested input of every nesting construct stays within the depth bound
/// (no stack overflow), also in debug builds.
#[test]
fn deep_nesting_is_bounded() {
    for (open, close) in [("{", "}"), ("[t, ", "]"), ("(", ")"), ("-", ""), ("{", "}")] {
        for prefix in [".entry k() { ", ".entry k() { op ", ".global .u32 x = ", ""] {
            let n = 100_000;
            let s = format!("{prefix}{}1{};}}", open.repeat(n), close.repeat(n));
            render_and_check(&s);
        }
    }
    let s = format!(".entry k() {{ op {}1;}}", "1+".repeat(100_000));
    render_and_check(&s);
}
