//! The pass-through `ptxas` that `ptxsim exec` gives Triton.
//!
//! Triton compiles its PTX with `$TRITON_PTXAS_PATH` into a cubin, which the
//! driver library cannot run. `exec` puts a symlink named `ptxas` to the
//! `ptxsim` executable in its private directory and points
//! `TRITON_PTXAS_PATH` (and `TRITON_PTXAS_BLACKWELL_PATH`) at it; `main`
//! sees the name `ptxas` in `argv[0]` and calls [`run`], which:
//!
//! * for `--version` prints `Cuda compilation tools, release 12.8, V12.8.93`
//!   (Triton reads `release N.M` from it for the PTX ISA version and its
//!   cache key);
//! * otherwise copies the input `.ptx` (the one argument ending in `.ptx`,
//!   else the last argument that is not an option or an option's value) to
//!   the `-o` output, with a NUL appended, so `cuModuleLoadData` receives
//!   NUL-terminated PTX text. Other options are ignored.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `ptxas --version` prints.
pub const VERSION_TEXT: &str = "ptxas: NVIDIA (R) Ptx optimizing assembler (ptxsim pass-through)\n\
Copyright (c) 2005-2025 NVIDIA Corporation\n\
Cuda compilation tools, release 12.8, V12.8.93\n";

/// True when `argv0`'s file name is `ptxas`.
pub fn invoked_as_ptxas(argv0: &std::ffi::OsStr) -> bool {
    std::path::Path::new(argv0).file_name().is_some_and(|n| n == "ptxas")
}

/// Options of ptxas that take a separate value (`-o X`, `--gpu-name X`, ...).
const WITH_VALUE: &[&str] = &[
    "-o", "--output-file", "-arch", "--gpu-name", "-O", "--opt-level", "-maxrregcount", "--maxrregcount",
    "-m", "--machine", "-e", "--entry", "-ias", "--input-as-string", "-def-load-cache", "--def-load-cache",
    "-def-store-cache", "--def-store-cache",
];

/// The input and output files named by ptxas arguments (after argv[0]).
pub fn parse(args: &[OsString]) -> (Option<PathBuf>, Option<PathBuf>) {
    let mut input = None;
    let mut ptx_input = None;
    let mut output = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        if a == "-o" || a == "--output-file" {
            output = args.get(i + 1).map(PathBuf::from);
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("--output-file=").or_else(|| a.strip_prefix("-o=")) {
            output = Some(PathBuf::from(v));
        } else if WITH_VALUE.contains(&a.as_ref()) {
            i += 2;
            continue;
        } else if !a.starts_with('-') {
            if a.ends_with(".ptx") {
                ptx_input = Some(PathBuf::from(&args[i]));
            }
            input = Some(PathBuf::from(&args[i]));
        }
        i += 1;
    }
    (ptx_input.or(input), output)
}

pub fn run(args: &[OsString]) -> ExitCode {
    if args.iter().any(|a| a == "--version" || a == "-V") {
        print!("{VERSION_TEXT}");
        return ExitCode::SUCCESS;
    }
    let (input, output) = parse(args);
    let Some(input) = input else {
        eprintln!("ptxas (ptxsim pass-through): no input file");
        return ExitCode::from(1);
    };
    let output = output.unwrap_or_else(|| PathBuf::from("elf.o"));
    let mut text = match std::fs::read(&input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ptxas (ptxsim pass-through): cannot read {}: {e}", input.display());
            return ExitCode::from(1);
        }
    };
    if text.last() != Some(&0) {
        text.push(0);
    }
    if let Err(e) = std::fs::write(&output, &text) {
        eprintln!("ptxas (ptxsim pass-through): cannot write {}: {e}", output.display());
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<OsString> {
        s.iter().map(OsString::from).collect()
    }

    #[test]
    fn triton_command_line() {
        let (i, o) = parse(&v(&["-lineinfo", "-v", "--gpu-name=sm_80", "/t/x.ptx", "-o", "/t/x.ptx.o"]));
        assert_eq!(i.unwrap(), PathBuf::from("/t/x.ptx"));
        assert_eq!(o.unwrap(), PathBuf::from("/t/x.ptx.o"));
        let (i, o) = parse(&v(&["--gpu-name", "sm_90a", "-O3", "k.s", "--output-file=k.o"]));
        assert_eq!(i.unwrap(), PathBuf::from("k.s"));
        assert_eq!(o.unwrap(), PathBuf::from("k.o"));
    }

    #[test]
    fn name() {
        assert!(invoked_as_ptxas("/tmp/d/ptxas".as_ref()));
        assert!(!invoked_as_ptxas("/tmp/d/ptxsim".as_ref()));
    }
}
