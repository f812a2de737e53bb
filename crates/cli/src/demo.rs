//! What `ptxsim` (and `cargo run --release`) does with no arguments: runs the
//! bundled example (`examples/control_flow.ptx`, compiled into the binary)
//! on the SIMT engine in both scheduling modes and prints the readable report.

use crate::run_cmd;
use std::process::ExitCode;

const EXAMPLE: &str = include_str!("../../../examples/control_flow.ptx");

pub fn run() -> ExitCode {
    println!("ptxsim: PTX on the CPU. Running the bundled example (examples/control_flow.ptx);");
    println!("`ptxsim --help` lists the commands.\n");
    for (name, mode) in [("stack", ptxsim_exec::Scheduling::Stack), ("its", ptxsim_exec::Scheduling::Its)] {
        println!("== --scheduling {name}");
        match run_cmd::run_source("examples/control_flow.ptx", EXAMPLE, "control_flow", 1, 64, &["u32[64]=zeros"], mode) {
            Ok(text) => print!("{text}"),
            Err(e) => {
                eprintln!("error[{}]: {}", e.kind, e.message);
                return ExitCode::from(crate::common::EXIT_INPUT);
            }
        }
        println!();
    }
    ExitCode::SUCCESS
}
