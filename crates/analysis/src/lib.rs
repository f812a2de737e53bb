//! ptxsim-analysis: control-flow analysis of PTX functions.
//!
//! It owns the flattened instruction numbering shared by all later stages
//! ([`flat`]), control-flow graphs ([`cfg`]), dominator and post-dominator trees
//! ([`dom`], with a reference implementation in [`refdom`]), reconvergence
//! points ([`reconv`]), loops and irreducible regions ([`loops`]), a data-flow
//! framework with liveness ([`dataflow`]), instruction register effects
//! ([`insn`]), uniformity with cause chains ([`uniformity`]), the call graph
//! ([`callgraph`]) and the human/DOT reports ([`report`]).
//!
//! Invariants:
//! - An instruction index means the same thing in every stage: the position in
//!   [`flat::FlatFunction::instrs`].
//! - Analyses never fail on unresolved names: they treat them conservatively and
//!   leave the reporting to the checker.
//! - The library never prints and never panics on input.

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod callgraph;
pub mod cfg;
pub mod dataflow;
pub mod dom;
pub mod flat;
pub mod insn;
pub mod loops;
pub mod reconv;
pub mod refdom;
pub mod report;
pub mod uniformity;

pub use flat::FlatFunction;
pub use reconv::{FunctionAnalysis, Reconvergence};
pub use uniformity::{BranchVerdict, CauseStep, Uniformity};
