//! Mutation fuzzing of parse + check: every file of both corpora is mutated
//! at random (bytes replaced, lines deleted, duplicated or swapped, tokens
//! spliced from other files), and the checker must neither panic nor report a
//! span outside the input, and `check_text` must report what parsing and
//! checking the whole mutant reports. The default run is short; set
//! `PTXSIM_FUZZ_SECS=600` for a ten-minute run.

use ptxsim_syntax::{Diagnostic, SourceFile};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const PIECES: &[&str] = &[
    "%r1", "%p1", "%rd1", "%f1", ".u32", ".s64", ".pred", ".b32", ".f32", ".uni", "bra", "brx.idx", "call", "ret",
    "{", "}", ";", ",", "(", ")", "[", "]", "|", "!", "@", "L0", "ts", "ct", "pt", ".branchtargets", ".calltargets",
    ".callprototype", ".param", ".reg", ".global", ".const", ".shared", ".local", "setp.lt.and.s32", "selp.u32",
    "nanosleep.u32", "0", "-1", "0f3F800000", "4294967296", "_", "%tid.x", "%tid", ".version 2.0", ".target sm_10",
    ".func", ".entry", "f", "k", "mov.u32", "ld.param.u32", "st.param.u32", "cvt.u64.u32", "add.s32", "and.pred",
];

fn mutate(rng: &mut Rng, src: &str, other: &str) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    let n = 1 + rng.below(4);
    for _ in 0..n {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let k = rng.below(lines.len());
        match rng.below(7) {
            0 => {
                lines.remove(k);
            }
            1 => {
                let l = lines[k].clone();
                let at = rng.below(lines.len());
                lines.insert(at, l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(k, j);
            }
            3 => {
                let ol: Vec<&str> = other.lines().collect();
                if !ol.is_empty() {
                    let l = ol[rng.below(ol.len())].to_string();
                    lines.insert(k, l);
                }
            }
            _ => {
                // Replace a word with a piece.
                let words: Vec<&str> = lines[k].split_inclusive(|c: char| c.is_whitespace() || c == ',' || c == ';').collect();
                if !words.is_empty() {
                    let w = rng.below(words.len());
                    let mut s = String::new();
                    for (i, x) in words.iter().enumerate() {
                        if i == w {
                            s.push_str(PIECES[rng.below(PIECES.len())]);
                            s.push(' ');
                        } else {
                            s.push_str(x);
                        }
                    }
                    lines[k] = s;
                }
            }
        }
    }
    lines.join("\n")
}

/// `check_text` (the function-at-a-time pipeline of `ptxsim check`, on two
/// threads) reports what parsing the whole mutant and checking it reports.
fn streamed_agrees(src: &str) {
    let parsed = ptxsim_syntax::parse_with_limit(src, 100);
    let checked = if parsed.has_errors() { None } else { Some(ptxsim_check::check_module_mode(&parsed.module, 100, ptxsim_check::Mode::Relocatable)) };
    let want = format!("{:?} {} {:?}", parsed.diagnostics, parsed.errors_not_shown, checked);
    let r = ptxsim_check::stream::check_text_spread(src, 100, ptxsim_check::Mode::Relocatable, 2, 1);
    let got = format!("{:?} {} {:?}", r.parse_diagnostics, r.parse_errors_not_shown, r.checked);
    assert_eq!(got, want, "check_text differs on:\n{src}");
}

fn run_one(src: &str) {
    streamed_agrees(src);
    let parsed = ptxsim_syntax::parse(src);
    if parsed.diagnostics.iter().any(Diagnostic::is_error) {
        return;
    }
    let diags = ptxsim_check::check_module(&parsed.module);
    for d in &diags {
        for s in std::iter::once(d.primary.span).chain(d.secondary.iter().map(|l| l.span)) {
            assert!(s.start <= s.end && s.end as usize <= src.len(), "span {s:?} out of range in:\n{src}");
        }
    }
    let _ = SourceFile::new("fuzz.ptx", src).render(&diags, false);
}

#[test]
fn mutated_corpus_never_panics() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    let mut files = Vec::new();
    ptx_files(&root.join("check"), &mut files);
    ptx_files(&root.join("corpus"), &mut files);
    files.sort();
    let texts: Vec<String> = files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).collect();
    assert!(!texts.is_empty());
    let secs: u64 = std::env::var("PTXSIM_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut runs = 0u64;
    loop {
        for t in &texts {
            run_one(t);
            let other = &texts[rng.below(texts.len())];
            let m = mutate(&mut rng, t, other);
            let result = std::panic::catch_unwind(|| run_one(&m));
            assert!(result.is_ok(), "checker panicked on:\n{m}");
            runs += 1;
        }
        if Instant::now() >= deadline {
            break;
        }
    }
    assert!(runs > 0);
}

/// Writes parse-clean mutants and ptxsim's verdict on each to
/// `$PTXSIM_MUTANTS_DIR` (`verdicts.tsv`: file, 0 or 255, first error code),
/// for comparison with ptxas (`crates/check/scripts/diff_ptxas.py`).
#[test]
#[ignore]
fn write_mutants_for_ptxas() {
    let Ok(dir) = std::env::var("PTXSIM_MUTANTS_DIR") else { return };
    let n: usize = std::env::var("PTXSIM_MUTANTS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let seed: u64 = std::env::var("PTXSIM_MUTANTS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    let mut files = Vec::new();
    ptx_files(&root.join("check/accept"), &mut files);
    ptx_files(&root.join("corpus"), &mut files);
    files.sort();
    let texts: Vec<String> = files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).filter(|t| t.len() < 6000).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x1234_5678_9abc_def1));
    let _ = std::fs::create_dir_all(&dir);
    let mut tsv = String::new();
    let mut k = 0;
    while k < n {
        let t = &texts[rng.below(texts.len())];
        let other = &texts[rng.below(texts.len())];
        let m = mutate(&mut rng, t, other);
        let parsed = ptxsim_syntax::parse(&m);
        if parsed.diagnostics.iter().any(Diagnostic::is_error) {
            continue;
        }
        let diags = ptxsim_check::check_module(&parsed.module);
        let first = diags.iter().find(|d| d.is_error());
        let name = format!("m{k:04}.ptx");
        let _ = std::fs::write(Path::new(&dir).join(&name), &m);
        tsv.push_str(&format!("{name}\t{}\t{}\n", if first.is_some() { 255 } else { 0 }, first.map(|d| format!("{}: {}", d.code, d.message)).unwrap_or_default()));
        k += 1;
    }
    let _ = std::fs::write(Path::new(&dir).join("verdicts.tsv"), tsv);
}
