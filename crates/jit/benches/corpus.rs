//! Every launch of the test corpus (the nvcc, clang, llvmlite and seed
//! kernels of `tests/corpus` with the specifications
//! `jit/tests/corpus.rs` checks bit for bit), timed with the tier off,
//! `auto` (the default) and forced on, in stack mode on one worker: the
//! issue's "no launch of the test corpus slower than with `--jit off`".
//! Each mode gets its own module, warmed by three launches (after each
//! the bench waits for `auto`'s background compiles, which would share
//! the cores with the timed launches), then the best of five: the steady
//! state of a kernel launched repeatedly.
//! Prints every launch slower than off by more than the noise
//! threshold, and the distribution of the ratios.
//! `cargo bench -p ptxsim-jit --bench corpus`.
#![allow(clippy::print_stdout)]

#[path = "../../exec/tests/all/support/corpus_specs.rs"]
mod corpus_specs;

use corpus_specs::*;
use ptxsim_exec::{Device, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};
use std::time::Instant;

/// Ratios (mode / off) above this count as slower: repeated runs of the
/// same mode differ by up to this much on these microsecond launches.
const NOISE: f64 = 1.10;

/// Best of five launches of `spec` in `mode`, in seconds (after three to warm).
fn time(src: &str, spec: &Spec, mode: Mode) -> Option<f64> {
    let mut dev = Device::new();
    let mut m = dev.load(src).ok()?;
    let tier = attach(&mut m, mode);
    let (args, _) = upload(&mut dev, &spec.args);
    let mut cfg = LaunchConfig::new(spec.grid, spec.block);
    cfg.dynamic_shared_bytes = spec.dynamic_shared;
    cfg.scheduling = Scheduling::Stack;
    cfg.threads = Some(1);
    cfg.fuel = 20_000_000;
    // Warm up; after each launch, let a background compile that started
    // finish (it would compete with the timed launches for the cores).
    for _ in 0..3 {
        dev.launch(&m, spec.kernel, &cfg, &args).ok()?;
        if let Some(t) = &tier {
            t.wait_idle();
        }
    }
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        dev.launch(&m, spec.kernel, &cfg, &args).ok()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Some(best)
}

fn main() {
    let specs = specs();
    // `-- WORD`: only the launches whose file or kernel name contains WORD.
    let words: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let mut rows = Vec::new();
    for f in corpus_files() {
        let Ok(src) = std::fs::read_to_string(&f) else { continue };
        let Ok(m) = Device::new().load(&src) else { continue };
        let name = f.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        for k in m.kernels() {
            let Some(spec) = specs.iter().find(|s| s.kernel == k) else { continue };
            if !words.is_empty() && !words.iter().any(|w| name.contains(w.as_str()) || k.contains(w.as_str())) {
                continue;
            }
            let (Some(off), Some(auto), Some(on)) = (time(&src, spec, Mode::Off), time(&src, spec, Mode::Auto), time(&src, spec, Mode::On)) else { continue };
            rows.push((format!("{name}: {k}"), off, auto / off, on / off));
        }
    }
    println!("{} corpus launches, stack mode, one worker, best of 5; time relative to --jit off", rows.len());
    for (label, col) in [("auto", 2usize), ("on", 3)] {
        let mut r: Vec<f64> = rows.iter().map(|x| if col == 2 { x.2 } else { x.3 }).collect();
        if r.is_empty() {
            return;
        }
        r.sort_by(f64::total_cmp);
        let q = |p: f64| r[((r.len() - 1) as f64 * p) as usize];
        let slower = r.iter().filter(|&&x| x > NOISE).count();
        println!("--jit {label:<4}  min {:.2}x  median {:.2}x  p90 {:.2}x  max {:.2}x  ({slower} above {NOISE:.2}x)", q(0.0), q(0.5), q(0.9), q(1.0));
    }
    println!("{:<52} {:>10} {:>7} {:>7}", "launch slower than off by more than the noise", "off (us)", "auto", "on");
    for (name, off, a, o) in &rows {
        if *a > NOISE || *o > NOISE {
            println!("{name:<52} {:>10.1} {a:>6.2}x {o:>6.2}x", off * 1e6);
        }
    }
}
