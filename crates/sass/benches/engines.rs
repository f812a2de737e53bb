//! The sass engine (lowered sm_50 machine form on the CRS stack) against the
//! PTX engine (stack scheduling) on the same corpus kernels and inputs, one
//! worker each: median wall time of repeated launches and warp instructions
//! executed. `cargo bench -p ptxsim-sass --bench engines`.

#[path = "../../exec/tests/all/support/corpus_specs.rs"]
mod specs;

use ptxsim_exec::{Device, LaunchConfig};
use ptxsim_sass::engine::MachineConfig;
use specs::*;
use std::time::Instant;

const KERNELS: &[&str] = &["collatz_kernel", "mandelbrot", "histogram_shared", "scan_hillis_steele", "matmul_naive", "odd_even_sort", "switch_loop", "dfa_kernel"];

fn main() {
    let specs = specs();
    let files = corpus_files();
    println!("{:<22} {:>12} {:>12} {:>10} {:>10} {:>7}", "kernel", "ptx µs", "sass µs", "ptx winstr", "sass winstr", "speed");
    for &k in KERNELS {
        let Some(spec) = specs.iter().find(|s| s.kernel == k) else { continue };
        let Some(src) = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).find(|s| Device::new().load(s).is_ok_and(|m| m.kernels().contains(&k))) else { continue };
        let mut dev = Device::new();
        let (m, low) = ptxsim_sass::load_and_lower(&mut dev, "k.ptx", &src).unwrap();
        let (args, _) = upload(&mut dev, &spec.args);
        let mut cfg = LaunchConfig::new(spec.grid, spec.block);
        cfg.dynamic_shared_bytes = spec.dynamic_shared;
        cfg.threads = Some(1);
        let time = |f: &mut dyn FnMut() -> u64| {
            let mut t = Vec::new();
            let mut w = 0;
            for _ in 0..15 {
                let s = Instant::now();
                w = f();
                t.push(s.elapsed().as_secs_f64() * 1e6);
            }
            t.sort_by(|a, b| a.partial_cmp(b).unwrap());
            (t[t.len() / 2], w)
        };
        let (tp, wp) = time(&mut || dev.launch(&m, k, &cfg, &args).map(|s| s.warp_instructions).unwrap_or(0));
        if let Err(e) = ptxsim_sass::engine::launch(&dev, &m, &low.prog, k, &cfg, &args, &MachineConfig::default()) {
            println!("{k:<22} not run on the machine form: {e}");
            continue;
        }
        let (ts, ws) = time(&mut || ptxsim_sass::engine::launch(&dev, &m, &low.prog, k, &cfg, &args, &MachineConfig::default()).map(|(s, _)| s.warp_instructions).unwrap_or(0));
        println!("{k:<22} {tp:>12.0} {ts:>12.0} {wp:>10} {ws:>10} {:>6.2}x", tp / ts);
    }
}
