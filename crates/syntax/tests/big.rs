//! A 100 MB module parses in bounded time and memory.
//!
//! The module is generated in memory from corpus kernels (see `common/gen.rs`).
//! A counting global allocator records the peak number of live heap bytes
//! while parsing, and the test asserts that it stays within a fixed multiple of
//! the input size (the AST is proportional to the text: no quadratic growth,
//! no token buffer, no per-token string copies). Run it in `--release`.

mod common;

use std::time::Instant;

#[global_allocator]
static GLOBAL: ptxsim_testkit::Counting = ptxsim_testkit::Counting;

/// Peak heap while parsing, as a multiple of the input size. The AST holds
/// one `Statement` (440 bytes, instructions inline with up to four operands)
/// per ~25-byte line of PTX; block statements are moved into exact-size
/// vectors, so about 17x is measured. 25x leaves some room.
const MAX_RATIO: f64 = 25.0;

/// 100 MB in release builds (CI); 10 MB in debug builds, which parse about ten
/// times slower, so that a plain `cargo test` stays quick.
const SIZE: usize = if cfg!(debug_assertions) { 10 << 20 } else { 100 << 20 };

#[test]
fn hundred_megabyte_module() {
    let templates: Vec<_> = common::corpus_files()
        .iter()
        .filter_map(|p| common::gen::template(&common::rel(p), &common::read(p)))
        .collect();
    let text = common::gen::generate(&templates, SIZE);
    let mb = text.len() as f64 / (1 << 20) as f64;

    let m = ptxsim_testkit::mark();
    let t = Instant::now();
    let parsed = ptxsim_syntax::parse(&text);
    let secs = t.elapsed().as_secs_f64();
    let peak = m.peak();

    assert!(!parsed.has_errors(), "the generated module should parse cleanly");
    let items = parsed.module.items.len();
    let ratio = peak as f64 / text.len() as f64;
    eprintln!(
        "{mb:.1} MB, {items} items: parsed in {secs:.2} s ({:.0} MB/s), peak heap {:.0} MB = {ratio:.1}x input",
        mb / secs,
        peak as f64 / (1 << 20) as f64
    );
    assert!(ratio < MAX_RATIO, "peak heap {ratio:.1}x the input");
    // Generous: release builds parse well over 100 MB/s; debug builds are slower.
    let limit = if cfg!(debug_assertions) { 60.0 } else { 20.0 };
    assert!(secs < limit, "parsing took {secs:.1} s");
}
