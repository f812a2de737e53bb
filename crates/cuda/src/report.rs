//! Everything the library writes to the process's standard streams, in one
//! place: the optional call log (`PTXSIM_LOG=1`, stderr), the located
//! message of a kernel trap (stderr, as a GPU's device-side assert prints
//! one), and what kernels print with `printf` (stdout). Nothing else in the
//! crate prints.

#![allow(clippy::print_stderr, clippy::print_stdout)]

use std::io::Write;
use std::sync::OnceLock;

/// Whether `PTXSIM_LOG=1` is set (read once).
pub fn logging() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXSIM_LOG").is_ok_and(|v| v == "1"))
}

/// The one writer: `err` picks stderr, else stdout. Write errors are
/// ignored (a closed stream must not fail a driver call).
fn write(err: bool, bytes: &[u8]) {
    if err {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(bytes);
        let _ = e.flush();
    } else {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(bytes);
        let _ = o.flush();
    }
}

/// A line of the call log, when `PTXSIM_LOG=1`.
pub fn log(line: &str) {
    if logging() {
        write(true, format!("[ptxsim-cuda] {line}\n").as_bytes());
    }
}

/// A kernel trap's located message (always).
pub fn trap(message: &str) {
    write(true, format!("[ptxsim-cuda] kernel trap: {message}\n").as_bytes());
}

/// What a kernel printed.
pub fn kernel_stdout(bytes: &[u8]) {
    if !bytes.is_empty() {
        write(false, bytes);
    }
}
