//! `mbarrier` (PTX ISA 9.7.13.15) and `cp.async.mbarrier.arrive`: the phase
//! semantics of the manual (a phase completes when its pending arrivals
//! reach zero; the parity flips; the pending count starts again from the
//! expected count, which `arrive_drop` lowers), waits across warps, and
//! the undefined uses the engine traps. Expected values follow from the
//! manual's counting rules, computed here.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};

fn run(target: &str, body: &str, threads: u32, out_words: usize, sched: Scheduling) -> Result<Vec<u32>, RunError> {
    let src = format!(
        ".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 pout)\n{{\n    .shared .align 8 .b64 bar;\n    .shared .align 8 .b64 bar2;\n    .shared .align 4 .b32 data[32];\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<16>;\n    .reg .pred %p<8>;\n    ld.param.u64 %rd1, [pout];\n    mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd2, %r1, 4;\n    add.s64 %rd3, %rd1, %rd2;\n{body}\n    ret;\n}}\n"
    );
    let mut dev = Device::new();
    let module = dev.load(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let pout = dev.alloc((out_words * 4) as u64).unwrap();
    dev.write(pout, &vec![0xee; out_words * 4]).unwrap();
    let mut cfg = LaunchConfig::new(1u32, threads);
    cfg.scheduling = sched;
    dev.launch(&module, "k", &cfg, &[KernelArg::Ptr(pout)])?;
    Ok(dev.read(pout, (out_words * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

fn both(target: &str, body: &str, threads: u32, out_words: usize) -> Result<Vec<u32>, RunError> {
    let a = run(target, body, threads, out_words, Scheduling::Stack);
    let b = run(target, body, threads, out_words, Scheduling::Its);
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "scheduling modes disagree"),
        (Err(x), Err(y)) => assert_eq!(x.kind, y.kind, "{x} / {y}"),
        _ => panic!("scheduling modes disagree: {a:?} / {b:?}"),
    }
    a
}

/// 128 threads arrive on a barrier expecting 128; each waits for the
/// phase, then records the pending count its arrival left and the parity
/// tests after completion.
#[test]
fn every_arrival_counts_and_the_phase_completes_once() {
    let body = "    setp.eq.u32 %p1, %r1, 0;\n    @%p1 mbarrier.init.shared.b64 [bar], 128;\n    bar.sync 0;\n    mbarrier.arrive.shared.b64 %rd4, [bar];\n    mbarrier.pending_count.b64 %r2, %rd4;\nWAIT:\n    mbarrier.test_wait.shared.b64 %p2, [bar], %rd4;\n    @!%p2 bra WAIT;\n    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;\n    mbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;\n    selp.u32 %r3, 1, 0, %p3;\n    selp.u32 %r4, 2, 0, %p4;\n    or.b32 %r5, %r3, %r4;\n    shl.b32 %r5, %r5, 16;\n    or.b32 %r6, %r2, %r5;\n    st.global.u32 [%rd3], %r6;";
    let out = both("sm_80", body, 128, 128).unwrap();
    let mut pend: Vec<u32> = out.iter().map(|w| w & 0xffff).collect();
    pend.sort_unstable();
    // Arrivals leave 127, 126, ..., 0 pending, one each.
    assert_eq!(pend, (0..128).collect::<Vec<u32>>());
    // After the completion of phase 0 the current phase has parity 1: the
    // phase of parity 0 is complete, that of parity 1 is not.
    assert!(out.iter().all(|w| w >> 16 == 1), "{out:x?}");
}

/// Warp 0 fills shared data and arrives (32 arrivals expected); warps 1..3
/// wait on the phase before reading it.
#[test]
fn waiting_warps_see_what_the_arriving_warp_wrote() {
    let body = "    setp.eq.u32 %p1, %r1, 0;\n    @%p1 mbarrier.init.shared.b64 [bar], 32;\n    bar.sync 0;\n    mov.u32 %r7, data;\n    and.b32 %r8, %r1, 31;\n    shl.b32 %r9, %r8, 2;\n    add.s32 %r10, %r7, %r9;\n    setp.lt.u32 %p5, %r1, 32;\n    @!%p5 bra CONSUMER;\n    mul.lo.u32 %r11, %r1, 7;\n    add.u32 %r11, %r11, 1000;\n    st.shared.u32 [%r10], %r11;\n    mbarrier.arrive.shared.b64 %rd4, [bar];\nCONSUMER:\n    mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;\n    @!%p2 bra CONSUMER;\n    ld.shared.u32 %r12, [%r10];\n    st.global.u32 [%rd3], %r12;";
    let out = both("sm_80", body, 128, 128).unwrap();
    for (t, w) in out.iter().enumerate() {
        assert_eq!(*w, (t as u32 % 32) * 7 + 1000, "thread {t}");
    }
}

/// arrive_drop lowers the expected count of the following phases;
/// arrive.noComplete counts several arrivals without completing.
#[test]
fn arrive_drop_and_no_complete() {
    // Two expected; lane 0 drops out, lane 1 arrives: phase 0 completes.
    // Phase 1 expects one: lane 1 arrives alone and completes it.
    let body = "    setp.eq.u32 %p1, %r1, 0;\n    setp.eq.u32 %p2, %r1, 1;\n    @%p1 mbarrier.init.shared.b64 [bar], 2;\n    @%p1 mbarrier.arrive_drop.shared.b64 %rd4, [bar];\n    @%p2 mbarrier.arrive.shared.b64 %rd4, [bar];\n    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;\n    @%p2 mbarrier.arrive.shared.b64 %rd5, [bar];\n    mbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;\n    @%p1 mbarrier.init.shared.b64 [bar2], 3;\n    @%p1 mbarrier.arrive.noComplete.shared.b64 %rd6, [bar2], 2;\n    @%p1 mbarrier.pending_count.b64 %r2, %rd6;\n    mbarrier.test_wait.parity.shared.b64 %p5, [bar2], 0;\n    @%p1 mbarrier.arrive.shared.b64 %rd7, [bar2];\n    mbarrier.test_wait.parity.shared.b64 %p6, [bar2], 0;\n    selp.u32 %r3, 1, 0, %p3;\n    selp.u32 %r4, 2, 0, %p4;\n    selp.u32 %r5, 4, 0, %p5;\n    selp.u32 %r6, 8, 0, %p6;\n    or.b32 %r3, %r3, %r4;\n    or.b32 %r3, %r3, %r5;\n    or.b32 %r3, %r3, %r6;\n    shl.b32 %r2, %r2, 8;\n    @%p1 or.b32 %r3, %r3, %r2;\n    st.global.u32 [%rd3], %r3;";
    let out = both("sm_80", body, 32, 32).unwrap();
    // Phase 0 of bar complete after the drop and the arrival (bit 0);
    // phase 1 complete after lane 1's second arrival (bit 1); bar2's
    // phase 0 not complete after the .noComplete arrival of 2 of 3 (bit 2
    // clear), complete after the third (bit 3); the state left 1 pending.
    assert_eq!(out[0], 0b1011 | 1 << 8);
    assert!(out[1..].iter().all(|w| *w == 0b1011), "{out:x?}");
}

#[test]
fn cp_async_mbarrier_arrive() {
    // Without .noinc the pending count is raised first: no net change, the
    // phase stays open. With .noinc the arrive completes the phase (one expected).
    let body = "    setp.eq.u32 %p1, %r1, 0;\n    @%p1 mbarrier.init.shared.b64 [bar], 1;\n    @%p1 cp.async.mbarrier.arrive.shared.b64 [bar];\n    mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;\n    @%p1 cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;\n    selp.u32 %r3, 1, 0, %p2;\n    selp.u32 %r4, 2, 0, %p3;\n    or.b32 %r3, %r3, %r4;\n    st.global.u32 [%rd3], %r3;";
    let out = both("sm_80", body, 32, 32).unwrap();
    assert!(out.iter().all(|w| *w == 2), "{out:x?}");
}

#[test]
fn undefined_uses_trap() {
    let kind = |body: &str| both("sm_80", body, 32, 32).unwrap_err().kind;
    // Not initialised.
    assert_eq!(kind("    mbarrier.arrive.shared.b64 %rd4, [bar];"), TrapKind::OutOfBounds);
    // A count of zero, known only when it runs (a constant 0 is refused by
    // ptxas 13.5 and the checker: "value '0' out of range, expected to be
    // in range [1..1048575]").
    assert_eq!(kind("    mov.u32 %r2, 0;\n    mbarrier.init.shared.b64 [bar], %r2;"), TrapKind::OutOfBounds);
    // Used after inval.
    assert_eq!(kind("    mbarrier.init.shared.b64 [bar], 32;\n    mbarrier.inval.shared.b64 [bar];\n    mbarrier.arrive.shared.b64 %rd4, [bar];"), TrapKind::OutOfBounds);
    // Two expected; the second lane's .noComplete arrival would complete the phase.
    assert_eq!(kind("    mbarrier.init.shared.b64 [bar], 2;\n    mbarrier.arrive.noComplete.shared.b64 %rd4, [bar], 1;"), TrapKind::OutOfBounds);
    // Misaligned object.
    assert_eq!(kind("    mov.u32 %r2, bar;\n    add.u32 %r2, %r2, 4;\n    mbarrier.init.shared.b64 [%r2], 1;"), TrapKind::Misaligned);
}
