//! The real-GPU recordings of `crates/exec/tests/all/gpu_recorded.rs`
//! (an H100's buffers for the corpus, Numba and Triton launches, and its
//! results for the single-instruction probes: NaN bits, special f32, f64
//! and half values, integer and warp operations), replayed here with the
//! compiling tier forced on for every module they load, in both
//! scheduling modes: the tier must leave what the GPU left too.

#[path = "../../exec/tests/all/support/corpus_specs.rs"]
pub mod corpus_specs;
mod support {
    pub use super::corpus_specs;
}
#[path = "../../exec/tests/all/gpu_recorded.rs"]
mod gpu_recorded;

/// Every module the recordings load gets the tier, compiled now.
fn tier_hook(m: &mut ptxsim_exec::Module) {
    ptxsim_jit::attach(m, ptxsim_jit::Mode::On);
}
