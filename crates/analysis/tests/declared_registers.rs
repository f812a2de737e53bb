//! The cost of the analyses follows the registers a function uses, not the
//! counts it declares: `.reg .b32 %r<4294967295>;` is one line of text
//! (ptxas 12.9 accepts counts up to 2^32 - 1 and reserves 8 bytes for each
//! declared register; ptxsim's checker accepts them too). The whole `ptxsim
//! cfg` pipeline (CFG, dominators, loops, uniformity with cause chains, the
//! text and DOT reports, the `.uni` diagnostics) runs on such a module under
//! a counting allocator, which also refuses any allocation past a hard cap so
//! that a regression fails here instead of exhausting the machine. Run it in
//! `--release` (it is quick in debug too once the cost is bounded).

use ptxsim_analysis::report::{analyse_module, uni_diagnostics};
use ptxsim_syntax::LineIndex;
#[global_allocator]
static GLOBAL: ptxsim_testkit::Counting = ptxsim_testkit::Counting;

/// Past this much live heap every allocation fails (the process aborts with
/// "memory allocation failed"): far above what the analyses need here, far
/// below what sizing by the declared counts takes (gigabytes).
const HARD_CAP: usize = 512 << 20;

/// A kernel declaring the largest counts ptxas accepts, using a handful of
/// registers: a thread-dependent `.uni` branch in a loop (so the uniformity
/// analysis, with its cause chain, runs over the ranges' registers).
const SRC: &str = r#".version 7.8
.target sm_90
.address_size 64

.visible .entry k(.param .u64 out)
{
    .reg .pred %p<4294967295>;
    .reg .b32 %r<4294967295>;
    .reg .b64 %rd<4294967295>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
LOOP:
    add.u32 %r2, %r2, %r1;
    setp.lt.u32 %p1, %r2, 100;
    @%p1 bra.uni LOOP;
    setp.eq.u32 %p4294967294, %r1, 0;
    @%p4294967294 st.global.u32 [%rd1], %r2;
    ret;
}
"#;

#[test]
fn analysis_cost_does_not_follow_declared_register_counts() {
    let parsed = ptxsim_syntax::parse(SRC);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    ptxsim_testkit::set_cap(HARD_CAP);
    let m = ptxsim_testkit::mark();
    let start = std::time::Instant::now();
    let li = LineIndex::new(SRC);
    let reports = analyse_module(&parsed.module);
    assert_eq!(reports.len(), 1);
    let r = &reports[0];
    let text = r.render_text(SRC, &li);
    let dot = r.render_dot(SRC, &li);
    let uni = uni_diagnostics(&parsed.module, true);
    let peak = m.peak();
    let elapsed = start.elapsed();
    // The analyses still see the registers the body uses: the `.uni` loop
    // branch is decided by `%p1`, which depends on `%tid.x` through `%r1`.
    let v = r.uni.verdicts.iter().find(|v| v.uni).expect("the .uni branch has a verdict");
    assert!(v.divergent, "the .uni branch on %tid.x is divergent");
    assert_eq!(v.decided_by.as_deref(), Some("%p1"));
    assert!(uni.iter().any(|d| d.code == "check/uni-divergent"), "{uni:?}");
    assert!(text.contains("LOOP") && dot.contains("digraph"));
    // A few hundred kilobytes at most; sizing by the declared counts (three
    // ranges of 2^32 - 1) takes gigabytes and minutes.
    assert!(peak < 8 << 20, "peak heap {peak} bytes");
    assert!(elapsed < std::time::Duration::from_secs(5), "took {elapsed:?}");
}
