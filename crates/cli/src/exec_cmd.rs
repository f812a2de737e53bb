//! `ptxsim exec [OPTIONS] -- CMD ARGS...`: runs a program with the driver
//! library (`crates/cuda`, `libcuda.so.1`) in place of NVIDIA's, the way
//! `compute-sanitizer CMD` wraps one.
//!
//! Steps: find the library ([`find_library`]: `$PTXSIM_LIBCUDA`, else
//! `libcuda.so.1`/`libcuda.so` next to the `ptxsim` executable (in a cargo
//! target directory, `deps/libcuda.so` when it is newer) or in
//! `../lib/ptxsim/` from it); make a private directory (mode 0700) holding
//! symlinks `libcuda.so.1` and `libcuda.so` to it; run CMD with that
//! directory first in `LD_LIBRARY_PATH`, `TRITON_LIBCUDA_PATH` set to it,
//! `TRITON_PTXAS_PATH` and `TRITON_PTXAS_BLACKWELL_PATH` set to a symlink
//! `ptxas` there to this executable (a pass-through that copies the PTX to
//! the "cubin", see `ptxas_shim`), CuPy's `CUPY_COMPILE_WITH_PTX=1` and
//! `CUPY_ACCELERATORS=` unless set ([`CUPY_DEFAULTS`]),
//! and the options passed as the environment variables the library reads
//! at `cuInit` (`PTXSIM_CC`, `PTXSIM_SCHEDULING`, `PTXSIM_THREADS`,
//! `PTXSIM_TIMEOUT`, `PTXSIM_FUEL`, `PTXSIM_SUMMARY`); remove the directory; exit with CMD's status
//! (128 + the signal number when a signal ended it). A missing library or
//! a command that cannot be started is exit 2 with a message saying why.
//!
//! While CMD runs, SIGINT and SIGQUIT (which a terminal sends to the whole
//! process group) are caught by a handler that does nothing, so `ptxsim`
//! outlives CMD and removes its directory; CMD gets them as usual (caught
//! signals are reset to their default action by `exec`).

use crate::common::EXIT_USAGE;
use clap::ValueEnum;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Environment variables set for CMD unless already set: CuPy's
/// `CUPY_COMPILE_WITH_PTX=1` (cupy/cuda/compiler.py then asks NVRTC for PTX,
/// `-arch=compute_XY`, instead of a cubin) and `CUPY_ACCELERATORS=` (no
/// prebuilt CUB: its fatbin holds PTX for the newest architecture only).
pub const CUPY_DEFAULTS: [(&str, &str); 2] = [("CUPY_COMPILE_WITH_PTX", "1"), ("CUPY_ACCELERATORS", "")];

/// Engine scheduling forced on every launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Sched {
    /// A per-warp reconvergence stack (pre-Volta).
    Stack,
    /// Independent thread scheduling (sm_70+).
    Its,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Compute capability the device reports (X.Y; the library's default is 8.0).
    #[arg(long, value_parser = parse_cc)]
    cc: Option<String>,
    /// Scheduling of every launch (default: its from 7.0 on, else stack).
    #[arg(long, value_enum)]
    scheduling: Option<Sched>,
    /// Engine worker threads per launch (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Wall-clock limit of each launch in seconds, 0 for none (the library's default is 60).
    #[arg(long, value_parser = parse_timeout_arg)]
    timeout: Option<String>,
    /// Warp-instruction budget of each launch (the library's default is 10^9).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    fuel: Option<u64>,
    /// Print a summary (kernels launched, instructions run, traps) to stderr when CMD exits.
    #[arg(long)]
    summary: bool,
    /// The command to run and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "CMD")]
    cmd: Vec<OsString>,
}

/// Accepts `X.Y` with X in 1..=20 and Y in 0..=9 (what the library reads).
fn parse_cc(s: &str) -> Result<String, String> {
    let ok = s.split_once('.').is_some_and(|(a, b)| {
        a.parse::<u32>().is_ok_and(|a| (1..=20).contains(&a)) && b.len() == 1 && b.parse::<u32>().is_ok()
    });
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!("`{s}` is not a compute capability X.Y (e.g. 8.0, 7.5)"))
    }
}

/// Accepts what `--timeout` of `ptxsim run` accepts (seconds, 0 for none).
fn parse_timeout_arg(s: &str) -> Result<String, String> {
    crate::limits::parse_timeout(s).map(|_| s.trim().to_string())
}

/// What to do when no library is found.
const HOW_TO_BUILD: &str = "build it once with `cargo build --release -p ptxsim-cuda`, then either copy \
target/release/libcuda.so next to the ptxsim executable (or into ../lib/ptxsim/ beside it), \
or set PTXSIM_LIBCUDA=/path/to/target/release/libcuda.so";

/// The library to use: `env` (the value of `PTXSIM_LIBCUDA`) if given,
/// which must be an existing file; else the first of `libcuda.so.1`,
/// `libcuda.so` in `exe`'s directory, then in `../lib/ptxsim/` from it.
/// The error says what was looked for and what to do.
pub fn find_library(env: Option<&Path>, exe: &Path) -> Result<PathBuf, String> {
    if let Some(p) = env {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("PTXSIM_LIBCUDA={} is not a file; {HOW_TO_BUILD}", p.display()))
        };
    }
    let dir = exe.parent().unwrap_or(Path::new("."));
    // In a cargo target directory `cargo test` refreshes only
    // `deps/libcuda.so`: take it when it is newer than the copy beside the
    // executable (which `cargo build` refreshes), so a stale one is not used.
    let deps = dir.join("deps").join("libcuda.so");
    let beside = dir.join("libcuda.so");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let Some(d) = modified(&deps) {
        if modified(&beside).is_none_or(|b| d > b) && !dir.join("libcuda.so.1").is_file() {
            return Ok(deps);
        }
    }
    let dirs = [dir.to_path_buf(), dir.join("..").join("lib").join("ptxsim")];
    let mut looked = Vec::new();
    for d in &dirs {
        for name in ["libcuda.so.1", "libcuda.so"] {
            let p = d.join(name);
            if p.is_file() {
                return Ok(p);
            }
            looked.push(p.display().to_string());
        }
    }
    Err(format!("the ptxsim driver library was not found (looked for {}); {HOW_TO_BUILD}", looked.join(", ")))
}

/// A private directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        let mut last = None;
        for i in 0..16u32 {
            let p = base.join(format!("ptxsim-exec-{}-{nanos:x}-{i}", std::process::id()));
            match std::fs::DirBuilder::new().mode(0o700).create(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no temporary directory")))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `dir` first, then the entries of `old` (an unset or empty
/// `LD_LIBRARY_PATH` adds nothing: an empty entry would mean the current
/// directory).
fn prepend_path(dir: &Path, old: Option<OsString>) -> OsString {
    let mut v = dir.as_os_str().to_os_string();
    if let Some(o) = old.filter(|o| !o.is_empty()) {
        v.push(":");
        v.push(o);
    }
    v
}

extern "C" fn ignore_signal(_: libc::c_int) {}

/// Catches SIGINT and SIGQUIT with a handler that does nothing.
fn outlive_terminal_signals() {
    // SAFETY: installing a handler that touches nothing; no memory is shared.
    unsafe {
        let h = ignore_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, h);
        libc::signal(libc::SIGQUIT, h);
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("ptxsim exec: error: {msg}");
    ExitCode::from(EXIT_USAGE)
}

pub fn run(a: Args) -> ExitCode {
    let exe = std::env::current_exe().unwrap_or_default();
    let env = std::env::var_os("PTXSIM_LIBCUDA").filter(|v| !v.is_empty()).map(PathBuf::from);
    let lib = match find_library(env.as_deref(), &exe) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let lib = std::fs::canonicalize(&lib).unwrap_or(lib);
    let dir = match TempDir::new() {
        Ok(d) => d,
        Err(e) => return fail(&format!("cannot create a temporary directory in {}: {e}", std::env::temp_dir().display())),
    };
    for name in ["libcuda.so.1", "libcuda.so"] {
        if let Err(e) = std::os::unix::fs::symlink(&lib, dir.0.join(name)) {
            return fail(&format!("cannot link {} into {}: {e}", lib.display(), dir.0.display()));
        }
    }
    // Triton's ptxas: this executable under the name `ptxas` (see `ptxas_shim`).
    let ptxas = dir.0.join("ptxas");
    if let Err(e) = std::os::unix::fs::symlink(&exe, &ptxas) {
        return fail(&format!("cannot link {} into {}: {e}", exe.display(), dir.0.display()));
    }
    let (prog, rest) = match a.cmd.split_first() {
        Some(x) => x,
        None => return fail("no command given (usage: ptxsim exec [OPTIONS] -- CMD ARGS...)"),
    };
    let mut cmd = Command::new(prog);
    cmd.args(rest)
        .env("LD_LIBRARY_PATH", prepend_path(&dir.0, std::env::var_os("LD_LIBRARY_PATH")))
        .env("TRITON_LIBCUDA_PATH", &dir.0)
        .env("TRITON_PTXAS_PATH", &ptxas)
        .env("TRITON_PTXAS_BLACKWELL_PATH", &ptxas);
    // CuPy: PTX from NVRTC rather than a cubin, and its own reduction
    // kernels rather than its prebuilt CUB (PTX for compute_120 only, whose
    // failed launches CuPy does not check): unless the caller chose.
    for (k, v) in CUPY_DEFAULTS {
        if std::env::var_os(k).is_none() {
            cmd.env(k, v);
        }
    }
    if let Some(cc) = &a.cc {
        cmd.env("PTXSIM_CC", cc);
    }
    if let Some(s) = a.scheduling {
        cmd.env("PTXSIM_SCHEDULING", if s == Sched::Its { "its" } else { "stack" });
    }
    if let Some(n) = a.threads {
        cmd.env("PTXSIM_THREADS", n.to_string());
    }
    if let Some(t) = &a.timeout {
        cmd.env("PTXSIM_TIMEOUT", t);
    }
    if let Some(n) = a.fuel {
        cmd.env("PTXSIM_FUEL", n.to_string());
    }
    if a.summary {
        cmd.env("PTXSIM_SUMMARY", "1");
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return fail(&format!("cannot run `{}`: {e}", prog.to_string_lossy())),
    };
    outlive_terminal_signals();
    let status = child.wait();
    drop(dir);
    match status {
        Ok(s) => ExitCode::from(exit_code(s)),
        Err(e) => fail(&format!("waiting for `{}` failed: {e}", prog.to_string_lossy())),
    }
}

/// CMD's exit code, or 128 + the signal number that ended it.
fn exit_code(s: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (s.code(), s.signal()) {
        (Some(c), _) => (c & 0xff) as u8,
        (None, Some(sig)) => (128 + sig).clamp(0, 255) as u8,
        (None, None) => 1,
    }
}

#[cfg(test)]
mod tests {
    //! Library lookup, path building and exit codes.
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptxsim-exec-unit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn library_found_next_to_exe_then_in_lib_ptxsim() {
        let d = scratch("lookup");
        let bin = d.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let exe = bin.join("ptxsim");
        let err = find_library(None, &exe).unwrap_err();
        assert!(err.contains("cargo build --release -p ptxsim-cuda") && err.contains("PTXSIM_LIBCUDA"), "{err}");
        std::fs::create_dir_all(d.join("lib/ptxsim")).unwrap();
        std::fs::write(d.join("lib/ptxsim/libcuda.so"), b"x").unwrap();
        assert_eq!(find_library(None, &exe).unwrap(), bin.join("../lib/ptxsim/libcuda.so"));
        std::fs::write(bin.join("libcuda.so"), b"x").unwrap();
        assert_eq!(find_library(None, &exe).unwrap(), bin.join("libcuda.so"));
        std::fs::write(bin.join("libcuda.so.1"), b"x").unwrap();
        assert_eq!(find_library(None, &exe).unwrap(), bin.join("libcuda.so.1"));
        // PTXSIM_LIBCUDA wins, and must exist.
        let other = d.join("other.so");
        assert!(find_library(Some(&other), &exe).unwrap_err().contains("is not a file"));
        std::fs::write(&other, b"x").unwrap();
        assert_eq!(find_library(Some(&other), &exe).unwrap(), other);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn ld_library_path_is_prepended() {
        assert_eq!(prepend_path(Path::new("/t"), None), "/t");
        assert_eq!(prepend_path(Path::new("/t"), Some("".into())), "/t");
        assert_eq!(prepend_path(Path::new("/t"), Some("/a:/b".into())), "/t:/a:/b");
    }

    #[test]
    fn cc_values() {
        assert!(parse_cc("7.5").is_ok());
        assert!(parse_cc("10.0").is_ok());
        assert!(parse_cc("7").is_err());
        assert!(parse_cc("7.55").is_err());
        assert!(parse_cc("x.0").is_err());
    }

    /// In a cargo target directory, the newer of `deps/libcuda.so` (what
    /// `cargo test` refreshes) and `libcuda.so` (what `cargo build` does).
    #[test]
    fn a_newer_deps_library_wins_over_a_stale_one() {
        let d = std::env::temp_dir().join(format!("ptxsim-exec-deps-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("deps")).unwrap();
        let exe = d.join("ptxsim");
        let (beside, deps) = (d.join("libcuda.so"), d.join("deps/libcuda.so"));
        std::fs::write(&beside, b"old").unwrap();
        std::fs::write(&deps, b"new").unwrap();
        let t = std::time::SystemTime::now();
        let set = |p: &Path, at: std::time::SystemTime| std::fs::File::options().write(true).open(p).unwrap().set_modified(at).unwrap();
        set(&beside, t - std::time::Duration::from_secs(60));
        set(&deps, t);
        assert_eq!(find_library(None, &exe).unwrap(), deps);
        set(&beside, t + std::time::Duration::from_secs(60));
        assert_eq!(find_library(None, &exe).unwrap(), beside);
        let _ = std::fs::remove_dir_all(&d);
    }

}
