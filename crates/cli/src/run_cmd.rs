//! `ptxsim run`: run a kernel on the SIMT emulator.

use crate::common::EXIT_USAGE;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The PTX file.
    file: PathBuf,
}

pub fn run(a: Args) -> ExitCode {
    eprintln!("error: `ptxsim run` is not implemented yet ({})", a.file.display());
    ExitCode::from(EXIT_USAGE)
}
