//! The `ptxsim` command-line interface. The only crate that prints or exits.
//!
//! `main.rs` owns argument dispatch; each subcommand lives in its own module
//! (`check_cmd`, `cfg_cmd`, `run_cmd`, `sass_cmd`, `exec_cmd`, `demo`), and `common` holds file reading
//! and diagnostic output shared by them.

/// mimalloc: the checker and the engine allocate many small objects.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cfg_cmd;
mod check_cmd;
mod common;
mod demo;
mod exec_cmd;
mod limits;
mod npy;
mod ptxas_shim;
mod run_args;
mod run_cmd;
mod run_init;
mod run_out;
mod sass_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ptxsim", version, about = "Parse, check, analyse and run NVIDIA PTX on the CPU")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and verify PTX modules; report problems with file:line:col and a snippet.
    Check(check_cmd::Args),
    /// Print a module back as normalised PTX (parse, then print).
    Fmt(check_cmd::FmtArgs),
    /// Control-flow analysis: CFG, dominators, reconvergence points, uniformity.
    Cfg(cfg_cmd::Args),
    /// Run a kernel on the SIMT emulator.
    Run(run_cmd::Args),
    /// Print the sm_50 machine form (SSY/SYNC, BRA/BRX, CAL/RET) of a PTX module in nvdisasm's style.
    Sass(sass_cmd::Args),
    /// Run a program (after `--`) with the ptxsim driver library as its libcuda.so.1.
    Exec(exec_cmd::Args),
}

/// Restores the default SIGPIPE action, so that `ptxsim cfg x.ptx | head` ends
/// quietly when the reader goes away instead of panicking on a failed write.
#[cfg(unix)]
fn reset_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_DFL before any other thread
    // exists has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn reset_sigpipe() {}

fn main() -> ExitCode {
    reset_sigpipe();
    let mut argv = std::env::args_os();
    if argv.next().is_some_and(|a0| ptxas_shim::invoked_as_ptxas(&a0)) {
        return ptxas_shim::run(&argv.collect::<Vec<_>>());
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { common::EXIT_USAGE } else { 0 });
        }
    };
    match cli.command {
        None => demo::run(),
        Some(Command::Check(a)) => check_cmd::run(a),
        Some(Command::Fmt(a)) => check_cmd::fmt(a),
        Some(Command::Cfg(a)) => cfg_cmd::run(a),
        Some(Command::Run(a)) => run_cmd::run(a),
        Some(Command::Sass(a)) => sass_cmd::run(a),
        Some(Command::Exec(a)) => exec_cmd::run(a),
    }
}
