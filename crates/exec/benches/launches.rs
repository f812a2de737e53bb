//! `cargo bench -p ptxsim-exec --bench launches`: what a small launch
//! costs, as programs that launch through the driver library (CuPy, Numba,
//! Triton) make thousands of them. Vector add on 1 to 256 CTAs of 256
//! threads, microseconds per launch (best of 5 rounds of 200 launches),
//! on one worker and on two, with the workers' threads and CTAs kept
//! between launches (the default) beside the baseline that starts threads
//! and builds CTAs for every launch (`ptxsim_exec::keep_workers(false)`),
//! the two interleaved round by round. Every launch's sum is checked.
#![allow(clippy::print_stdout)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig};
use std::time::Instant;

const VADD: &str = include_str!("kernels/vadd.ptx");

fn main() {
    let mut dev = Device::new();
    let m = dev.load(VADD).expect("load vadd");
    let n_max = 256 * 256u64;
    let a: Vec<u8> = (0..n_max as u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let b: Vec<u8> = (0..n_max as u32).flat_map(|i| (2.0 * i as f32).to_le_bytes()).collect();
    let (pa, pb, pc) = (dev.alloc(4 * n_max).expect("alloc"), dev.alloc(4 * n_max).expect("alloc"), dev.alloc(4 * n_max).expect("alloc"));
    dev.write(pa, &a).expect("write");
    dev.write(pb, &b).expect("write");
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("vector add, 256 threads per CTA, µs per launch (best of 5 x 200 launches); {cores} cores");
    println!("{:>6} {:>8} {:>14} {:>14} {:>8}", "CTAs", "workers", "start each", "kept (default)", "speedup");
    for grid in [1u32, 2, 8, 64, 256] {
        for workers in [1usize, 2] {
            let n = grid as u64 * 256;
            let args = [KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pc), KernelArg::U64(n)];
            let mut cfg = LaunchConfig::new(grid, 256);
            cfg.threads = Some(workers);
            let mut best = [f64::MAX; 2];
            for _round in 0..5 {
                for (k, keep) in [false, true].into_iter().enumerate() {
                    ptxsim_exec::keep_workers(keep);
                    let t = Instant::now();
                    for _ in 0..200 {
                        dev.launch(&m, "vec_add", &cfg, &args).expect("launch");
                    }
                    best[k] = best[k].min(t.elapsed().as_secs_f64() / 200.0 * 1e6);
                }
            }
            let out = dev.read(pc, 4 * n).expect("read");
            for (i, c) in out.chunks(4).enumerate() {
                assert_eq!(f32::from_le_bytes([c[0], c[1], c[2], c[3]]), 3.0 * i as f32, "c[{i}]");
            }
            println!("{grid:>6} {workers:>8} {:>14.1} {:>14.1} {:>7.2}x", best[0], best[1], best[0] / best[1]);
        }
    }
    ptxsim_exec::keep_workers(true);
}
