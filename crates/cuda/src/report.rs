//! Everything the library writes to the process's standard streams, in one
//! place: the optional call log (`PTXSIM_LOG=1`, stderr), the located
//! message of a kernel trap (stderr, as a GPU's device-side assert prints
//! one), the first refusal of a module for want of PTX (stderr, once),
//! each unimplemented export-table slot called (stderr, once each),
//! what kernels print with `printf` (stdout), and the run summary of
//! `PTXSIM_SUMMARY=1` (stderr, from an `atexit` handler registered by
//! `cuInit`). Nothing else in the crate prints.

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

/// A line on stderr the first time any such line is asked for in the
/// process (always, as a GPU driver's refusal would leave a user
/// guessing), and in the call log every time.
pub fn notice_once(line: &str) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if logging() {
        log(line);
    } else if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        write(true, format!("[ptxsim-cuda] {line}\n").as_bytes());
    }
}

/// A line on stderr the first time this very line is asked for in the
/// process (always; a call log prints it every time): what the program
/// called that is not implemented, by name, so that a failure it causes is
/// never a silent one. Returns whether it printed.
pub fn notice_each(line: &str) -> bool {
    static SAID: std::sync::Mutex<Option<std::collections::HashSet<String>>> = std::sync::Mutex::new(None);
    if logging() {
        log(line);
        return true;
    }
    let first = SAID.lock().map(|mut g| g.get_or_insert_with(Default::default).insert(line.to_string())).unwrap_or(false);
    if first {
        write(true, format!("[ptxsim-cuda] {line}\n").as_bytes());
    }
    first
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

/// What `PTXSIM_SUMMARY=1` prints at process exit: the settings `cuInit`
/// read, launches per kernel name, the instructions they ran and traps.
#[derive(Debug, Default)]
struct Summary {
    /// `cc X.Y, scheduling M, threads N` as `cuInit` settled them.
    settings: String,
    launches: std::collections::BTreeMap<String, u64>,
    warp_instructions: u64,
    thread_instructions: u64,
    traps: u64,
    refused: u64,
}

static SUMMARY: std::sync::Mutex<Option<Summary>> = std::sync::Mutex::new(None);

/// Whether `PTXSIM_SUMMARY=1` is set (read once).
pub fn summary_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("PTXSIM_SUMMARY").is_ok_and(|v| v == "1"))
}

/// Called by `cuInit` (first time): records the settings and, with
/// `PTXSIM_SUMMARY=1`, registers the exit handler that prints the summary
/// (once per process).
pub fn init_summary(settings: String) {
    log(&format!("cuInit: {settings}"));
    if !summary_enabled() {
        return;
    }
    let Ok(mut g) = SUMMARY.lock() else { return };
    if g.is_none() {
        *g = Some(Summary { settings, ..Summary::default() });
        drop(g);
        extern "C" {
            fn atexit(cb: extern "C" fn()) -> std::os::raw::c_int;
        }
        // SAFETY: registering a plain `extern "C" fn()` with the C library.
        unsafe {
            atexit(print_summary);
        }
    }
}

/// The outcome of one launch, for the summary.
pub enum LaunchOutcome {
    /// Ran to completion: warp and thread instructions.
    Ran(u64, u64),
    /// Trapped (a sticky error).
    Trapped,
    /// Refused before running.
    Refused,
}

/// Launches that reached the engine (ran to completion or trapped) since
/// the library was loaded, whatever `PTXSIM_SUMMARY` says; read through
/// [`ptxsim_launch_count`].
static LAUNCHES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The number of kernel launches that reached the engine (ran or trapped;
/// refused launches are not counted) since the library was loaded. Not
/// part of the CUDA driver API: a test harness reads it through `dlsym`
/// (Python's `ctypes`) to tell whether a piece of code launched a kernel.
#[no_mangle]
pub extern "C" fn ptxsim_launch_count() -> u64 {
    LAUNCHES.load(std::sync::atomic::Ordering::Relaxed)
}

/// Counts a launch of `kernel`: always in [`ptxsim_launch_count`] when
/// it reached the engine, and per kernel name with `PTXSIM_SUMMARY=1`.
pub fn record_launch(kernel: &str, outcome: LaunchOutcome) {
    if !matches!(outcome, LaunchOutcome::Refused) {
        LAUNCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    if !summary_enabled() {
        return;
    }
    let Ok(mut g) = SUMMARY.lock() else { return };
    let Some(s) = g.as_mut() else { return };
    *s.launches.entry(kernel.to_string()).or_insert(0) += 1;
    match outcome {
        LaunchOutcome::Ran(w, t) => {
            s.warp_instructions += w;
            s.thread_instructions += t;
        }
        LaunchOutcome::Trapped => s.traps += 1,
        LaunchOutcome::Refused => s.refused += 1,
    }
}

/// The summary's text.
fn summary_text(s: &Summary) -> String {
    let total: u64 = s.launches.values().sum();
    let mut t = format!("[ptxsim-cuda] summary: {}\n", s.settings);
    t.push_str(&format!("[ptxsim-cuda]   kernels launched: {total}\n"));
    for (name, n) in &s.launches {
        t.push_str(&format!("[ptxsim-cuda]     {name}: {n}\n"));
    }
    t.push_str(&format!(
        "[ptxsim-cuda]   warp instructions: {}, thread instructions: {}\n[ptxsim-cuda]   traps: {}, launches refused: {}\n",
        s.warp_instructions, s.thread_instructions, s.traps, s.refused
    ));
    t
}

/// The exit handler: prints the summary to stderr. Never blocks (a lock
/// held by a thread stopped at exit skips the summary) and never unwinds.
extern "C" fn print_summary() {
    let _ = std::panic::catch_unwind(|| {
        let text = match SUMMARY.try_lock() {
            Ok(g) => g.as_ref().map(summary_text),
            Err(_) => None,
        };
        if let Some(t) = text {
            write(true, t.as_bytes());
        }
    });
}

#[cfg(test)]
mod tests {
    //! The summary's text; each notice once.
    use super::*;

    #[test]
    fn notice_each_prints_each_line_once() {
        if logging() {
            return; // the call log prints every line every time
        }
        assert!(notice_each("report test: line A"));
        assert!(notice_each("report test: line B"));
        assert!(!notice_each("report test: line A"));
        assert!(!notice_each("report test: line B"));
    }

    #[test]
    fn summary_lists_kernels_with_counts_and_totals() {
        let mut s = Summary { settings: "cc 8.0, scheduling its, threads auto".into(), ..Summary::default() };
        s.launches.insert("vadd".into(), 3);
        s.launches.insert("k2".into(), 1);
        s.warp_instructions = 40;
        s.thread_instructions = 1280;
        s.traps = 1;
        let t = summary_text(&s);
        assert!(t.starts_with("[ptxsim-cuda] summary: cc 8.0, scheduling its, threads auto\n"), "{t}");
        assert!(t.contains("kernels launched: 4\n"), "{t}");
        assert!(t.contains("    k2: 1\n[ptxsim-cuda]     vadd: 3\n"), "{t}");
        assert!(t.contains("warp instructions: 40, thread instructions: 1280\n"), "{t}");
        assert!(t.contains("traps: 1, launches refused: 0\n"), "{t}");
    }
}
