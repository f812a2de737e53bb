//! ptxsim-sass: the sm_50 (Maxwell, "SPA 5.0") machine form.
//!
//! It owns the machine model of control flow ([`isa`]: SSY, SYNC, PBK/BRK,
//! PCNT/CONT, PRET, CAL/JCAL, RET, EXIT, PEXIT, BRA, BRX, JMP, JMX with guard
//! predicates, the 32 CC tests, `.U` and `.LMT`), the condition-code flags
//! ([`cc`]), the code layout in 32-byte bundles ([`layout`]).
//!
//! Data flow is never re-implemented here: the machine form carries the
//! engine's decoded PTX instructions and runs them through its data path.
//!
//! Invariants:
//! - Target arithmetic is done in unbounded precision and checked against the
//!   seed's window; nothing a machine program does makes this crate panic.
//! - The library never prints.

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cc;
pub mod isa;
pub mod layout;
pub mod engine;
pub mod lower;
pub mod parse;
pub mod text;

pub use cc::{CcMasks, CcTest, Flags};
pub use isa::{MFunction, MInstr, MOp, MProgram};
pub use layout::HwError;

/// Why [`load_and_lower`] has no machine program.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The PTX module does not load: parse, check, decode or its globals
    /// (the engine's error, with its kind).
    #[error("{}", .0.message)]
    Load(ptxsim_exec::RunError),
    /// The module loads, but has no sm_50 machine form.
    #[error(transparent)]
    Lower(#[from] lower::LowerError),
}

/// Loads a PTX module into `dev` (parse, check, decode, allocate globals) and
/// lowers it to the machine form. The text is parsed once, for both.
pub fn load_and_lower(dev: &mut ptxsim_exec::Device, name: &str, src: &str) -> Result<(ptxsim_exec::Module, lower::Lowered), LoadError> {
    let parsed = ptxsim_syntax::parse(src);
    let module = dev.load_parsed(name, src, &parsed).map_err(LoadError::Load)?;
    let lowered = lower::lower(src, &parsed.module, &module.program)?;
    Ok((module, lowered))
}
