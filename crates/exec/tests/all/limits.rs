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

/// A kernel that stores its `%ctaid.x` through the pointer argument when
/// `%ctaid.x` is at least `from` (`from` = 0: every CTA stores).
fn store_from(from: u32) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p;\n.reg .u32 %c;\n.reg .u64 %o;\n\
         mov.u32 %c, %ctaid.x;\nsetp.lt.u32 %p, %c, {from};\n@%p bra DONE;\nld.param.u64 %o, [out];\nst.global.u32 [%o], %c;\nDONE:\nret;\n}}\n"
    )
}

#[test]
fn fuel_stops_a_huge_grid_early() {
    let mut dev = Device::new();
    let m = dev.load(&store_from(0)).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    for threads in [1, 2, 8] {
        let t0 = Instant::now();
        let mut cfg = LaunchConfig::new(i32::MAX as u32, 32);
        cfg.fuel = 1000;
        cfg.threads = Some(threads);
        let e = launch(&dev, &m, &cfg, out).expect_err("runs out");
        assert_eq!(e.kind, TrapKind::FuelExhausted, "{e}");
        assert!(e.message.contains("1000") && e.message.contains("--fuel"), "{e}");
        assert!(t0.elapsed() < Duration::from_millis(900), "{threads} workers took {:?}", t0.elapsed());
    }
}

#[test]
fn a_trap_stops_a_huge_grid_early_and_the_lowest_cta_is_reported() {
    let mut dev = Device::new();
    let m = dev.load(&store_from(0)).expect("loads");
    // Every CTA stores through a null pointer: CTA 0's error is reported.
    for threads in [1, 2, 8] {
        let t0 = Instant::now();
        let mut cfg = LaunchConfig::new(i32::MAX as u32, 32);
        cfg.threads = Some(threads);
        let e = launch(&dev, &m, &cfg, 0).expect_err("null store");
        assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
        assert_eq!(e.cta, Some([0, 0, 0]), "{e}");
        assert!(t0.elapsed() < Duration::from_millis(900), "{threads} workers took {:?}", t0.elapsed());
    }
    // Only CTAs from 37 on store: CTA 37's error, whatever the workers.
    let m = dev.load(&store_from(37)).expect("loads");
    for threads in [1, 2, 8] {
        for _ in 0..5 {
            let t0 = Instant::now();
            let mut cfg = LaunchConfig::new(i32::MAX as u32, 64);
            cfg.threads = Some(threads);
            let e = launch(&dev, &m, &cfg, 0).expect_err("null store");
            assert_eq!((e.kind, e.cta), (TrapKind::OutOfBounds, Some([37, 0, 0])), "{e}");
            assert!(t0.elapsed() < Duration::from_millis(900), "{threads} workers took {:?}", t0.elapsed());
        }
    }
}

#[test]
fn timeout_stops_a_runaway_kernel() {
    let spin = format!("{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .u32 %i;\nmov.u32 %i, 0;\nL:\nadd.u32 %i, %i, 1;\nbra L;\n}}\n");
    let mut dev = Device::new();
    let m = dev.load(&spin).expect("loads");
    for (grid, threads) in [(1, 1), (64, 2), (i32::MAX as u32, 8)] {
        let t0 = Instant::now();
        let mut cfg = LaunchConfig::new(grid, 32);
        cfg.fuel = u64::MAX;
        cfg.threads = Some(threads);
        cfg.timeout = Some(Duration::from_millis(300));
        let e = launch(&dev, &m, &cfg, 0).expect_err("times out");
        assert_eq!(e.kind, TrapKind::Timeout, "{e}");
        assert!(e.message.contains("300 ms") && e.message.contains("--timeout"), "{e}");
        assert!(e.line.is_some() && e.cta.is_some(), "located: {e:?}");
        let t = t0.elapsed();
        assert!(t >= Duration::from_millis(300) && t < Duration::from_millis(1500), "grid {grid}: {t:?}");
    }
}

#[test]
fn the_default_timeout_is_a_minute() {
    assert_eq!(LaunchConfig::new(1, 1).timeout, Some(Duration::from_secs(60)));
}

#[test]
fn progress_counts_every_cta() {
    let mut dev = Device::new();
    let m = dev.load(&store_from(0)).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    let p = ptxsim_exec::Progress::new();
    let mut cfg = LaunchConfig::new(ptxsim_exec::Dim3::new(50, 3, 2), 32);
    cfg.progress = Some(p.clone());
    cfg.threads = Some(2);
    launch(&dev, &m, &cfg, out).expect("runs");
    assert_eq!((p.done(), p.total()), (300, 300));
}

/// A warp that spins on a flag only the other warp sets after the barrier:
/// the barrier can never complete, and the error says so rather than
/// `fuel_exhausted`.
#[test]
fn a_spin_beside_a_barrier_wait_is_reported_as_the_barrier() {
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p;\n.reg .u32 %t, %v;\n.reg .u64 %o;\n.shared .u32 flag;\n\
         mov.u32 %t, %tid.x;\nsetp.lt.u32 %p, %t, 32;\n@%p bra SPIN;\nbar.sync 0;\nmov.u32 %v, 1;\nst.shared.u32 [flag], %v;\nret;\n\
         SPIN:\nld.volatile.shared.u32 %v, [flag];\nsetp.eq.u32 %p, %v, 0;\n@%p bra SPIN;\nbar.sync 0;\nret;\n}}\n"
    );
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let t0 = Instant::now();
    let mut cfg = LaunchConfig::new(1, 64);
    cfg.fuel = 200_000;
    let e = launch(&dev, &m, &cfg, 0).expect_err("never completes");
    assert_eq!(e.kind, TrapKind::BarrierDeadlock, "{e}");
    assert!(e.message.contains("barrier 0") && e.message.contains("warp 1"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(5));
}

/// CTA 0 waits forever for a flag that CTA 1 would set after its `trap`:
/// once CTA 1 failed, CTA 0 runs on only for a grace, and the launch
/// reports CTA 1's trap at once instead of running to the fuel or time
/// limit.
#[test]
fn a_cluster_waiting_on_a_failed_one_stops_after_a_grace() {
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p;\n.reg .u32 %c, %v;\n.reg .u64 %o;\n\
         ld.param.u64 %o, [out];\nmov.u32 %c, %ctaid.x;\nsetp.eq.u32 %p, %c, 0;\n@%p bra WAIT;\ntrap;\nmov.u32 %v, 1;\nst.volatile.global.u32 [%o], %v;\nret;\n\
         WAIT:\nld.volatile.global.u32 %v, [%o];\nsetp.eq.u32 %p, %v, 0;\n@%p bra WAIT;\nret;\n}}\n"
    );
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    for threads in [2, 8] {
        let t0 = Instant::now();
        let mut cfg = LaunchConfig::new(2, 32);
        cfg.threads = Some(threads);
        cfg.fuel = u64::MAX;
        let e = launch(&dev, &m, &cfg, out).expect_err("traps");
        assert_eq!((e.kind, e.cta), (TrapKind::Trap, Some([1, 0, 0])), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(3), "{threads} workers: {:?}", t0.elapsed());
    }
}

/// A launch error names kernels the way diagnostics do: each name cut to
/// 64 bytes and at most eight of them, so its size does not follow the
/// input (a 5 MB kernel name, a module of 100 kernels).
#[test]
fn launch_errors_quote_bounded_names() {
    let mut src = String::from(".version 7.8\n.target sm_70\n.address_size 64\n");
    for i in 0..100 {
        src += &format!(".visible .entry kernel_number_{i}()\n{{\nret;\n}}\n");
    }
    let long = "x".repeat(5 << 20);
    src += &format!(".visible .entry {long}()\n{{\nret;\n}}\n");
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let asked = "y".repeat(5 << 20);
    let e = dev.launch(&m, &asked, &LaunchConfig::new(1, 1), &[]).expect_err("no such kernel");
    assert_eq!(e.kind, TrapKind::InvalidLaunch);
    assert!(e.message.len() < 1024, "{} bytes", e.message.len());
    assert!(e.message.contains("(5242880 bytes)") && e.message.contains("and 93 more"), "{}", e.message);
    // A found kernel with a long name: its errors are bounded too.
    let e = dev.launch(&m, &long, &LaunchConfig::new(1, 1), &[KernelArg::U32(1)]).expect_err("takes no parameters");
    assert!(e.message.len() < 512 && e.message.contains("(5242880 bytes)"), "{}", e.message);
}
