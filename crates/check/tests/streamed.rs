//! Checking a module one function body at a time (`check_text`).
//!
//! - It reports what parsing the whole module and checking it reports
//!   (`parse_with_limit` then `check_module_mode`), in the same order, with
//!   the same counts past the limit and the same unresolved functions,
//!   whatever the number of threads: on every file of `tests/check` and
//!   `tests/corpus`, and on a module of corpus kernels with errors and
//!   warnings planted in many functions, at several limits.
//! - Its peak heap on a 12 MB module of corpus kernels (10 MB or more, as
//!   `ptxsim check`'s target is stated) stays within a small multiple of the
//!   input: the text, the outline, and one body per thread (a counting
//!   allocator measures it). Run it in `--release`.

#[path = "../../syntax/tests/common/gen.rs"]
mod gen;

use ptxsim_check::{check_module_mode, check_text, Mode};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[global_allocator]
static GLOBAL: ptxsim_testkit::Counting = ptxsim_testkit::Counting;

/// The memory test measures alone: the other tests wait for it.
static ALONE: Mutex<()> = Mutex::new(());

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

fn corpus_module(min_bytes: usize) -> String {
    let mut files = Vec::new();
    ptx_files(&root().join("tests/corpus"), &mut files);
    let templates: Vec<_> = files.iter().filter_map(|p| gen::template(&p.display().to_string(), &std::fs::read_to_string(p).ok()?)).collect();
    gen::generate(&templates, min_bytes)
}

/// Everything a report shows, positions included.
fn whole(text: &str, limit: usize, mode: Mode) -> String {
    let parsed = ptxsim_syntax::parse_with_limit(text, limit);
    let checked = if parsed.has_errors() { None } else { Some(check_module_mode(&parsed.module, limit, mode)) };
    format!("{:?} {} {:?}", parsed.diagnostics, parsed.errors_not_shown, checked)
}

fn streamed(text: &str, limit: usize, mode: Mode, threads: usize) -> String {
    let r = ptxsim_check::stream::check_text_spread(text, limit, mode, threads, 1);
    format!("{:?} {} {:?}", r.parse_diagnostics, r.parse_errors_not_shown, r.checked)
}

#[test]
fn every_test_file_gives_the_same_report() {
    let _g = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let mut files = Vec::new();
    ptx_files(&root().join("tests/check"), &mut files);
    ptx_files(&root().join("tests/corpus"), &mut files);
    assert!(files.len() > 1000, "{} files", files.len());
    for p in &files {
        let Ok(text) = std::fs::read_to_string(p) else { continue };
        for (limit, mode) in [(100, Mode::Relocatable), (1, Mode::WholeProgram)] {
            let want = whole(&text, limit, mode);
            for threads in [1, 3] {
                assert_eq!(streamed(&text, limit, mode, threads), want, "{} limit {limit} threads {threads}", p.display());
            }
        }
    }
}

/// A module of corpus kernels with problems planted in many functions:
/// registers renamed to undeclared ones (errors), guarded branches made
/// `.uni` (warnings where the guard is divergent), a second definition of a
/// function (an error at module level, between bodies).
fn planted(min_bytes: usize) -> String {
    let text = corpus_module(min_bytes);
    let mut out = String::with_capacity(text.len() + 4096);
    let (mut regs, mut branches) = (0usize, 0usize);
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("add.s32") || t.starts_with("mul.lo.s32") {
            regs += 1;
            if regs % 37 == 0 {
                out.push_str(&line.replacen("%r", "%undeclared_r", 1));
                out.push('\n');
                continue;
            }
        }
        if t.starts_with('@') && t.contains(" bra ") {
            branches += 1;
            if branches % 5 == 0 {
                out.push_str(&line.replacen(" bra ", " bra.uni ", 1));
                out.push('\n');
                continue;
            }
        }
        if t.starts_with(".visible .entry") && regs % 3 == 0 {
            out.push_str(".func planted_twice() { ret; }\n");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn planted_problems_are_reported_alike_whatever_the_threads() {
    let _g = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let text = planted(if cfg!(debug_assertions) { 300 << 10 } else { 2 << 20 });
    for limit in [1, 7, 100, usize::MAX] {
        let want = whole(&text, limit, Mode::Relocatable);
        if limit >= 100 {
            for code in ["check/unknown-symbol", "check/duplicate-definition", "check/uni-divergent"] {
                assert!(want.contains(code), "the planted {code} is found");
            }
        }
        for threads in [1, 2, 5] {
            assert_eq!(streamed(&text, limit, Mode::Relocatable, threads), want, "limit {limit} threads {threads}");
        }
    }
}

/// A syntax error in one body of many: the module is reported as a whole
/// parse reports it, whichever thread meets the body.
#[test]
fn a_syntax_error_in_a_late_body_is_reported_as_parse_reports_it() {
    let _g = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let text = corpus_module(if cfg!(debug_assertions) { 200 << 10 } else { 1 << 20 });
    let at = text[..text.len() * 3 / 4].rfind("\n\tret;").expect("a ret in the last quarter");
    let broken = format!("{}\n\tadd.s32 %r1, , 1;{}", &text[..at], &text[at..]);
    let want = whole(&broken, 100, Mode::Relocatable);
    assert!(want.contains("syntax/"), "a syntax error is reported");
    for threads in [1, 2, 5] {
        assert_eq!(streamed(&broken, 100, Mode::Relocatable, threads), want, "threads {threads}");
    }
}

/// Bodies nested as deep as the parser allows, and deeper, are checked on
/// the threads as on the calling thread. The calling thread gets the stack
/// of a process's main thread (8 MiB; a test thread has 2 MiB, too little
/// for 200 levels in a debug build), as `ptxsim` and the threads have.
#[test]
fn deeply_nested_bodies_on_threads() {
    let _g = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::Builder::new().stack_size(8 << 20).spawn(deeply_nested).expect("a thread").join().expect("no panic");
}

fn deeply_nested() {
    for depth in [150, 198, 199, 260] {
        let mut text = String::from(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry first() { ret; }\n.visible .entry deep() {\n.reg .b32 %r<2>;\n");
        for _ in 0..depth {
            text.push_str("{ .reg .b32 %q;\n mov.u32 %q, %r1;\n");
        }
        text.push_str(&"}\n".repeat(depth));
        text.push_str("ret;\n}\n.visible .entry last() { ret; }\n");
        let want = whole(&text, 100, Mode::Relocatable);
        for threads in [1, 3] {
            assert_eq!(streamed(&text, 100, Mode::Relocatable, threads), want, "depth {depth}, threads {threads}");
        }
    }
}

/// Peak heap while checking, the text included, as a multiple of the text.
fn peak_ratio(text: &str, threads: usize) -> f64 {
    let m = ptxsim_testkit::mark();
    let r = check_text(text, 100, Mode::Relocatable, threads);
    let peak = m.peak();
    assert!(r.parse_diagnostics.is_empty() && r.checked.is_some_and(|c| c.diagnostics.is_empty()), "the module checks cleanly");
    (peak + text.len()) as f64 / text.len() as f64
}

/// The target is peak memory below 10x the input for the whole process;
/// the heap is the input, the outline and a body per thread: about 1.5x is
/// measured. 4x leaves room and still catches a design that keeps every
/// body (the whole syntax tree is about 11x).
const MAX_RATIO: f64 = 4.0;

#[test]
fn a_large_module_is_checked_in_bounded_memory() {
    let _g = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let size = if cfg!(debug_assertions) { 2 << 20 } else { 12 << 20 };
    let text = corpus_module(size);
    for threads in [1, 4] {
        let ratio = peak_ratio(&text, threads);
        eprintln!("{:.1} MB, {threads} threads: peak heap {ratio:.2}x the input", text.len() as f64 / (1 << 20) as f64);
        assert!(ratio < MAX_RATIO, "{threads} threads: peak heap {ratio:.2}x the input");
    }
}
