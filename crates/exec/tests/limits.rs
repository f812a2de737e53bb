//! The launch's limits under hostile and careless use: exact fuel whatever
//! the number of workers, early stop after a failure, the wall-clock
//! timeout, the memory cap, and the errors they report. Each test bounds
//! the time (or memory) the launch may take.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};
use std::time::{Duration, Instant};

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

/// A kernel whose warps each run a loop of `ctaid.x % 5 + 1` iterations:
/// the total work differs per CTA, so a worker that takes more fuel than its
/// CTAs need would starve the others.
fn uneven() -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p;\n.reg .u32 %c, %n, %i;\n.reg .u64 %o;\n\
         mov.u32 %c, %ctaid.x;\nrem.u32 %n, %c, 5;\nadd.u32 %n, %n, 1;\nmov.u32 %i, 0;\n\
         L:\nadd.u32 %i, %i, 1;\nsetp.lt.u32 %p, %i, %n;\n@%p bra L;\n\
         ld.param.u64 %o, [out];\nst.global.u32 [%o], %i;\nret;\n}}\n"
    )
}

fn launch(dev: &Device, m: &ptxsim_exec::Module, cfg: &LaunchConfig, out: u64) -> Result<u64, RunError> {
    dev.launch(m, "k", cfg, &[KernelArg::Ptr(out)]).map(|s| s.warp_instructions)
}

/// Warp instructions of [`uneven`] for `grid` CTAs of one warp, counted by
/// hand from the kernel text: 4 before the loop, 3 per iteration, 3 after.
fn uneven_need(grid: u32) -> u64 {
    (0..grid as u64).map(|c| 4 + 3 * (c % 5 + 1) + 3).sum()
}

#[test]
fn fuel_is_exact_with_1_2_and_8_workers() {
    let mut dev = Device::new();
    let m = dev.load(&uneven()).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    let grid = 100;
    let need = uneven_need(grid);
    // The unbounded launch executes exactly what the text says.
    let mut cfg = LaunchConfig::new(grid, 32);
    cfg.threads = Some(1);
    assert_eq!(launch(&dev, &m, &cfg, out).expect("runs"), need);
    let t0 = Instant::now();
    for mode in [Scheduling::Stack, Scheduling::Its] {
        for budget in [1, need / 3, need - 1, need, need + 1, need + 1000] {
            for threads in [1, 2, 8] {
                for _ in 0..3 {
                    let mut cfg = LaunchConfig::new(grid, 32);
                    cfg.fuel = budget;
                    cfg.threads = Some(threads);
                    cfg.scheduling = mode;
                    let r = launch(&dev, &m, &cfg, out);
                    if budget >= need {
                        assert_eq!(r.as_ref().ok(), Some(&need), "budget {budget}, {threads} workers, {mode:?}: {r:?}");
                    } else {
                        let e = r.expect_err("must run out");
                        assert_eq!(e.kind, TrapKind::FuelExhausted, "budget {budget}, {threads} workers: {e}");
                        assert!(e.message.contains(&format!("--fuel {budget}")), "{e}");
                    }
                }
            }
        }
    }
    assert!(t0.elapsed() < Duration::from_secs(30), "took {:?}", t0.elapsed());
}

/// The case: 100 CTAs, 400 warp instructions in all, `--fuel 10000`
/// with two workers never runs out.
#[test]
fn small_kernel_with_ample_fuel_never_runs_out_on_two_workers() {
    let src = format!("{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .u32 %a;\nmov.u32 %a, 1;\nadd.u32 %a, %a, 1;\nadd.u32 %a, %a, 1;\nret;\n}}\n");
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    for _ in 0..20 {
        let mut cfg = LaunchConfig::new(100, 32);
        cfg.fuel = 10_000;
        cfg.threads = Some(2);
        assert_eq!(launch(&dev, &m, &cfg, out).expect("ample fuel"), 400);
    }
}
