//! Shared by the CLI limit tests: run the `ptxsim` binary and measure its
//! peak resident memory and wall time (as `tests/big.rs` bounds the parser's
//! heap, these bound a whole process, allocator and buffers included).
//!
//! Linux counts the resident size of the forking process at the moment of
//! the fork into the child's `ru_maxrss`, and a test process holding large
//! inputs would inflate the figure. So the measurement runs in a small
//! helper: the test binary re-runs itself with only [`measure_helper`]
//! selected, and that fresh process (a few MB) starts ptxsim, waits for it
//! with `wait4` and writes the child's peak RSS next to its output files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident set of the ptxsim process, in bytes (`ru_maxrss`).
    pub peak_rss: u64,
    pub wall: Duration,
}

pub const MB: u64 = 1 << 20;

const ENV_DIR: &str = "PTXSIM_MEASURE_DIR";

/// Runs `ptxsim ARGS`, killing it after `limit` (the test then fails on the
/// time bound); returns its output, peak RSS and wall time.
pub fn ptxsim_measured(args: &[&str], limit: Duration) -> Run {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let k = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ptxsim-measure-{}-{k}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("measure dir");
    std::fs::write(dir.join("args"), args.join("\0")).expect("args file");
    std::fs::write(dir.join("limit"), limit.as_millis().to_string()).expect("limit file");
    let me = std::env::current_exe().expect("test binary");
    let st = Command::new(me)
        .args(["common::measure_helper", "--exact", "--quiet", "--test-threads", "1"])
        .env(ENV_DIR, &dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the measuring helper runs");
    assert!(st.success(), "the measuring helper failed for ptxsim {args:?}");
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap_or_default();
    let result = String::from_utf8_lossy(&read("result")).into_owned();
    let mut f = result.split_whitespace().map(|x| x.parse::<i64>().unwrap_or(-1));
    let (code, rss, wall_us) = (f.next().unwrap_or(-1), f.next().unwrap_or(-1), f.next().unwrap_or(-1));
    let run = Run {
        code: (code >= 0).then_some(code as i32),
        stdout: String::from_utf8_lossy(&read("stdout")).into_owned(),
        stderr: String::from_utf8_lossy(&read("stderr")).into_owned(),
        peak_rss: rss.max(0) as u64,
        wall: Duration::from_micros(wall_us.max(0) as u64),
    };
    let _ = std::fs::remove_dir_all(&dir);
    run
}

/// The helper's side (a no-op in a normal test run).
#[test]
fn measure_helper() {
    let Some(dir) = std::env::var_os(ENV_DIR).map(PathBuf::from) else { return };
    let args_text = std::fs::read_to_string(dir.join("args")).expect("args");
    let args: Vec<&str> = if args_text.is_empty() { Vec::new() } else { args_text.split('\0').collect() };
    let limit = Duration::from_millis(std::fs::read_to_string(dir.join("limit")).ok().and_then(|s| s.parse().ok()).unwrap_or(60_000));
    let out = std::fs::File::create(dir.join("stdout")).expect("stdout file");
    let err = std::fs::File::create(dir.join("stderr")).expect("stderr file");
    let t0 = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(&args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("the ptxsim binary runs");
    let pid = child.id() as libc::pid_t;
    // Poll without reaping until the child exits or the limit passes (then
    // kill it: it is not reaped yet, so the pid is still ours), then reap it
    // with wait4 for its rusage.
    loop {
        // SAFETY: siginfo is plain data; WNOWAIT leaves the child unreaped.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) };
        // SAFETY: reading the pid field filled by waitid.
        if r != 0 || unsafe { info.si_pid() } == pid {
            break;
        }
        if t0.elapsed() > limit {
            // SAFETY: our own child, not reaped yet.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall = t0.elapsed();
    std::mem::forget(child);
    assert_eq!(r, pid, "wait4");
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) as i64 } else { -1 };
    std::fs::write(dir.join("result"), format!("{code} {} {}", ru.ru_maxrss as i64 * 1024, wall.as_micros())).expect("result file");
}

/// A fresh temporary directory for one test.
pub fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxsim-limits-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Writes `text` to `dir/name`; returns the path as a string.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Runs `ptxsim` with `args` (at most two minutes), measured.
pub fn run(args: &[&str]) -> Run {
    ptxsim_measured(args, Duration::from_secs(120))
}

/// The one JSON object `--json` printed.
pub fn json(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", &r.stdout[..r.stdout.len().min(500)]))
}
