//! ptxsim-analysis: control-flow analysis of PTX functions.
//!
//! It owns the flattened instruction numbering shared by all later stages
//! ([`flat`]), control-flow graphs ([`cfg`]), dominator and post-dominator trees
//! ([`dom`]) and reconvergence points ([`reconv`]).
//!
//! Invariants:
//! - An instruction index means the same thing in every stage: the position in
//!   [`flat::FlatFunction::instrs`].
//! - Analyses never fail on unresolved names: they treat them conservatively and
//!   leave the reporting to the checker.
//! - The library never prints.

#![forbid(unsafe_code)]

pub mod cfg;
pub mod dom;
pub mod flat;
pub mod reconv;

pub use flat::FlatFunction;
pub use reconv::{FunctionAnalysis, Reconvergence};
