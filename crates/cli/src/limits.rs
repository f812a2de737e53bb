//! The launch-limit flags of `ptxsim run` (`--timeout`, `--max-memory`)
//! and the progress display of a long launch: CTAs done out of the total,
//! with a rate, drawn on stderr only when it is a terminal and the output
//! is not `--json`.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ptxsim_exec::{LaunchConfig, Progress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// `--timeout`: seconds (a decimal number), 0 for none.
pub fn parse_timeout(s: &str) -> Result<Option<Duration>, String> {
    let shown = || crate::common::cut(s);
    let v: f64 = s.trim().parse().map_err(|_| format!("--timeout takes seconds (for example 60 or 2.5; 0 for none), not `{}`", shown()))?;
    if !v.is_finite() || !(0.0..=1e9).contains(&v) {
        return Err(format!("--timeout takes seconds from 0 (none) to 10^9, not `{}`", shown()));
    }
    Ok(if v == 0.0 { None } else { Some(Duration::from_secs_f64(v)) })
}

/// `--max-memory`: bytes, with an optional K, M, G or T suffix (powers of
/// 1024; `KiB`, `MB` and the like are read the same way).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let err = || format!("--max-memory takes a size such as 4G, 512M or 1048576, not `{}`", crate::common::cut(s));
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: u64 = t[..digits].parse().map_err(|_| err())?;
    let shift = match t[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(err()),
    };
    n.checked_mul(1u64 << shift).ok_or_else(err)
}

/// The progress display while a launch runs; dropping it clears it.
pub struct Display {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Starts the display for `cfg`'s launch if stderr is a terminal and the
/// output is not JSON. It shows only once the launch has run half a second.
pub fn progress(cfg: &mut LaunchConfig, json: bool) -> Option<Display> {
    if json || !std::io::stderr().is_terminal() {
        return None;
    }
    let p = Progress::new();
    cfg.progress = Some(p.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("ptxsim-progress".into())
        .spawn(move || draw(&p, &s2))
        .ok()?;
    Some(Display { stop, thread: Some(thread) })
}

fn draw(p: &Progress, stop: &AtomicBool) {
    let tick = Duration::from_millis(100);
    for _ in 0..5 {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        // Woken at once when the launch ends (see `Drop`).
        std::thread::park_timeout(tick);
    }
    let bar = ProgressBar::with_draw_target(Some(p.total()), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {human_pos}/{human_len} CTAs, {rate}, eta {eta}")
        .map(|s| {
            s.progress_chars("=> ").with_key("rate", |st: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{} CTAs/s", indicatif::HumanCount(st.per_sec() as u64));
            })
        })
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    while !stop.load(Ordering::Relaxed) {
        bar.set_length(p.total());
        bar.set_position(p.done());
        std::thread::park_timeout(tick);
    }
    bar.finish_and_clear();
}

impl Drop for Display {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_timeouts() {
        assert_eq!(parse_bytes("4G"), Ok(4 << 30));
        assert_eq!(parse_bytes("512MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert!(parse_bytes("-1").is_err() && parse_bytes("4X").is_err() && parse_bytes("99999999999T").is_err());
        assert_eq!(parse_timeout("0"), Ok(None));
        assert_eq!(parse_timeout("2.5"), Ok(Some(Duration::from_millis(2500))));
        assert!(parse_timeout("-1").is_err() && parse_timeout("nan").is_err() && parse_timeout("x").is_err());
    }
}
