//! Shared by the CLI limit tests: run the `ptxsim` binary and measure its
//! peak resident memory and wall time (as `tests/big.rs` bounds the parser's
//! heap, these bound a whole process, allocator and buffers included).
//!
//! Linux counts the resident size of the forking process at the moment of
//! the fork into the child's `ru_maxrss`, so measured runs are serialised by
//! one lock and the tests drop their large inputs before running ptxsim:
//! the figure is then ptxsim's own peak (plus the few MB the test process
//! holds, which `Run::parent_rss` reports).

#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident set of the process, in bytes (`ru_maxrss`).
    pub peak_rss: u64,
    pub wall: Duration,
    /// Resident size of the test process when it forked, in bytes.
    pub parent_rss: u64,
}

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The test process's resident size now, in bytes (0 where unknown).
fn own_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<u64>().ok()))
        .map_or(0, |kb| kb * 1024)
}

/// Runs `ptxsim ARGS`, killing it after `limit` (the test then fails on the
/// time bound); returns its output, peak RSS and wall time.
pub fn ptxsim_measured(args: &[&str], limit: Duration) -> Run {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let parent_rss = own_rss();
    let t0 = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the ptxsim binary runs");
    let pid = child.id() as libc::pid_t;
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let ho = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let he = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let killer = std::thread::spawn(move || {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
            // SAFETY: signal 0 only probes whether the process exists.
            if unsafe { libc::kill(pid, 0) } != 0 {
                return;
            }
        }
        // SAFETY: the pid is our own child's, not yet reaped (wait4 below
        // reaps it), so it cannot name another process.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    });
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid, "wait4");
    let wall = t0.elapsed();
    std::mem::forget(child);
    let _ = killer.join();
    let stdout = String::from_utf8_lossy(&ho.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&he.join().expect("stderr reader")).into_owned();
    let code = if libc::WIFEXITED(status) { Some(libc::WEXITSTATUS(status)) } else { None };
    Run { code, stdout, stderr, peak_rss: ru.ru_maxrss as u64 * 1024, wall, parent_rss }
}

/// A fresh temporary directory for one test.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxsim-limits-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

pub const MB: u64 = 1 << 20;
