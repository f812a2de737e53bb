//! The Numba and Triton corpus launches of `crates/exec/tests/all`
//! (`corpus_numba.rs`, `corpus_triton.rs`: real framework kernels, each
//! checked against an independent reference, in both scheduling modes),
//! run here with the compiling tier forced on for every module they load:
//! the tier must give the references' results too.

#[path = "../../exec/tests/all/corpus_launch.rs"]
mod corpus_launch;
#[path = "../../exec/tests/all/corpus_numba.rs"]
mod corpus_numba;
#[path = "../../exec/tests/all/corpus_triton.rs"]
mod corpus_triton;

/// Every module the corpus tests load gets the tier, compiled now.
fn tier_hook(m: &mut ptxsim_exec::Module) {
    ptxsim_jit::attach(m, ptxsim_jit::Mode::On);
}
