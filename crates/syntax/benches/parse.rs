//! Parse-throughput benchmark: lexing and parsing a generated module of 10 MB
//! or more, with the crates.io parser `ptx-90-parser` side by side on an input
//! it accepts.
//!
//! The input is built deterministically from the corpus (`tests/corpus`): each
//! file's items are copied again and again with renamed module-level names
//! (see `tests/common/gen.rs`). Two inputs are used:
//! - `all`: every corpus file that parses, for our own lexer and parser;
//! - `common`: only the corpus files `ptx-90-parser` accepts, for the
//!   comparison (both parsers run on exactly the same text).
//!
//! Run: `cargo bench -p ptxsim-syntax --bench parse --features compare-ptx-90-parser`
//! (without the feature, only ptxsim is measured: `ptx-90-parser` is large and
//! slow to compile, so it is an optional dependency). Besides criterion's
//! report, a summary with MB/s (median of several runs) and the ratio between
//! the two parsers is printed at the end.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ptxsim_syntax::lexer::{Lexer, Tok};
use std::time::{Duration, Instant};

#[path = "../tests/common/mod.rs"]
#[allow(dead_code)]
mod common;

const MIN_BYTES: usize = 12 << 20;

#[cfg_attr(not(feature = "compare-ptx-90-parser"), allow(dead_code))]
struct Inputs {
    all: String,
    common: String,
    accepted: Vec<String>,
    rejected: Vec<String>,
}

fn inputs() -> Inputs {
    let mut all = Vec::new();
    let mut shared = Vec::new();
    let mut accepted = Vec::new();
    let mut rejected = Vec::new();
    for p in common::corpus_files() {
        let text = common::read(&p);
        let name = common::rel(&p);
        let Some(t) = common::gen::template(&name, &text) else { continue };
        if theirs_accept(&text) {
            accepted.push(name.clone());
            shared.push(common::gen::template(&name, &text).expect("parsed once already"));
        } else {
            rejected.push(name);
        }
        all.push(t);
    }
    let all = common::gen::generate(&all, MIN_BYTES);
    let common_text = if shared.is_empty() { String::new() } else { common::gen::generate(&shared, MIN_BYTES) };
    Inputs { all, common: common_text, accepted, rejected }
}

fn lex_ours(src: &str) -> usize {
    let mut lx = Lexer::new(src);
    let mut n = 0;
    while lx.next_token().0 != Tok::Eof {
        n += 1;
    }
    n
}

fn parse_ours(src: &str) -> ptxsim_syntax::Parsed<'_> {
    let p = ptxsim_syntax::parse(src);
    assert!(!p.has_errors());
    p
}

#[cfg(feature = "compare-ptx-90-parser")]
fn theirs_accept(text: &str) -> bool {
    std::panic::catch_unwind(|| ptx_parser::parse_ptx(text).is_ok()).unwrap_or(false)
}

#[cfg(not(feature = "compare-ptx-90-parser"))]
fn theirs_accept(_: &str) -> bool {
    false
}

#[cfg(feature = "compare-ptx-90-parser")]
fn parse_theirs(src: &str) -> ptx_parser::r#type::Module {
    ptx_parser::parse_ptx(src).expect("ptx-90-parser rejected its own input")
}

#[cfg(feature = "compare-ptx-90-parser")]
fn lex_theirs(src: &str) -> usize {
    ptx_parser::tokenize(src).expect("ptx-90-parser's lexer failed").len()
}

/// Median MB/s over `runs` runs of `f` on `src`; what `f` returns (the AST)
/// is dropped after the clock stops, as criterion's `iter_with_large_drop` does.
fn mbps<'s, R>(src: &'s str, runs: usize, f: impl Fn(&'s str) -> R) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            let r = black_box(f(black_box(src)));
            let e = s.elapsed().as_secs_f64();
            drop(r);
            e
        })
        .collect();
    t.sort_by(|a, b| a.total_cmp(b));
    src.len() as f64 / (1 << 20) as f64 / t[runs / 2]
}

fn bench(c: &mut Criterion) {
    let inp = inputs();
    let mb = |s: &str| s.len() as f64 / (1 << 20) as f64;
    let mut g = c.benchmark_group("ptx");
    g.sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Bytes(inp.all.len() as u64));
    g.bench_function("lex/ptxsim/all", |b| b.iter(|| lex_ours(black_box(&inp.all))));
    g.bench_function("parse/ptxsim/all", |b| b.iter_with_large_drop(|| parse_ours(black_box(&inp.all))));
    #[cfg(feature = "compare-ptx-90-parser")]
    {
        g.throughput(Throughput::Bytes(inp.common.len() as u64));
        g.bench_function("lex/ptxsim/common", |b| b.iter(|| lex_ours(black_box(&inp.common))));
        g.bench_function("parse/ptxsim/common", |b| b.iter_with_large_drop(|| parse_ours(black_box(&inp.common))));
        g.bench_function("lex/ptx-90-parser/common", |b| b.iter(|| lex_theirs(black_box(&inp.common))));
        g.bench_function("parse/ptx-90-parser/common", |b| {
            b.iter_with_large_drop(|| parse_theirs(black_box(&inp.common)))
        });
    }
    g.finish();

    // A plain summary, so the figures and the ratio can be read off directly.
    let runs = 7;
    println!();
    println!("== parse throughput (median MB/s, 1 MB = 2^20 bytes, one thread) ==");
    println!("input `all`:    {:.1} MB from every corpus file", mb(&inp.all));
    println!("ptxsim lex            all:    {:8.1} MB/s", mbps(&inp.all, runs, lex_ours));
    println!("ptxsim parse          all:    {:8.1} MB/s", mbps(&inp.all, runs, parse_ours));
    #[cfg(feature = "compare-ptx-90-parser")]
    {
        let lex_c = mbps(&inp.common, runs, lex_ours);
        let parse_c = mbps(&inp.common, runs, parse_ours);
        let lex_t = mbps(&inp.common, 3, lex_theirs);
        let parse_t = mbps(&inp.common, 3, parse_theirs);
        println!(
            "input `common`: {:.1} MB from the {} corpus files ptx-90-parser accepts (it rejects {})",
            mb(&inp.common),
            inp.accepted.len(),
            inp.rejected.len()
        );
        println!("ptxsim lex            common: {lex_c:8.1} MB/s");
        println!("ptxsim parse          common: {parse_c:8.1} MB/s");
        println!("ptx-90-parser lex     common: {lex_t:8.1} MB/s");
        println!("ptx-90-parser parse   common: {parse_t:8.1} MB/s");
        println!("ratio ptxsim/ptx-90-parser: parse {:.1}x, lex {:.1}x", parse_c / parse_t, lex_c / lex_t);
        if std::env::var_os("PTX_BENCH_LIST").is_some() {
            println!("accepted by ptx-90-parser: {:?}", inp.accepted);
            println!("rejected by ptx-90-parser: {:?}", inp.rejected);
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
