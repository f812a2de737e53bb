//! What `ptxsim` (and `cargo run --release`) does with no arguments: runs the
//! bundled example (`examples/control_flow.ptx`, compiled into the binary)
//! on the SIMT engine in both scheduling modes and prints the readable report.

use crate::run_cmd;
use std::process::ExitCode;

const EXAMPLE: &str = include_str!("../../../examples/control_flow.ptx");

pub fn run() -> ExitCode {
    println!("ptxsim: PTX on the CPU. Running the bundled example (examples/control_flow.ptx);");
    println!("`ptxsim --help` lists the commands.\n");
    // The example's header comment says what the kernel does.
    for line in EXAMPLE.lines().take_while(|l| l.starts_with("//")) {
        let text = line.strip_prefix("// ").or_else(|| line.strip_prefix("//")).unwrap_or(line);
        println!("  {text}");
    }
    println!();
    let mut results = Vec::new();
    for (name, mode) in [("stack", ptxsim_exec::Scheduling::Stack), ("its", ptxsim_exec::Scheduling::Its)] {
        println!("== --scheduling {name}");
        match run_cmd::run_source("examples/control_flow.ptx", EXAMPLE, "control_flow", 1, 64, &["u32[64]=zeros"], mode) {
            Ok((text, bufs)) => {
                print!("{text}");
                results.push(bufs);
            }
            Err(e) => {
                eprintln!("error[{}]: {}", e.kind, e.message);
                return ExitCode::from(crate::common::EXIT_INPUT);
            }
        }
        println!();
    }
    if results.windows(2).all(|w| w[0] == w[1]) {
        println!("Both reconvergence models give the same results; they differ in how the");
        println!("warp's threads were grouped (SIMT efficiency) and where they diverged.");
        ExitCode::SUCCESS
    } else {
        eprintln!("error: the two scheduling modes gave different results for a race-free kernel");
        ExitCode::from(crate::common::EXIT_INPUT)
    }
}
