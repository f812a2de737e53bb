//! `mbarrier` operations on `.shared::cluster` addresses (PTX ISA
//! 9.7.13.15: "the mbarrier object ... in the shared memory of a CTA of the
//! cluster"): an arrive, an `arrive.expect_tx`, an `arrive_drop`, an
//! `expect_tx` and a `complete_tx` whose address `mapa` made for another
//! CTA act on that CTA's mbarrier, which its own threads then wait on, as
//! CUTLASS's cluster barrier does. Expected values follow the manual's
//! counting rules. The kernels are accepted by ptxas 12.9 for sm_90.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn run(body: &str, words: usize, mode: Scheduling) -> Vec<u32> {
    let src = format!(
        "{HEAD}.visible .entry k(.param .u64 out)\n{{\n    .shared .align 8 .b64 bar;\n    .shared .align 4 .b32 data[32];\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n    .reg .pred %p<8>;\n    ld.param.u64 %rd1, [out];\n    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, %cluster_ctarank;\n    setp.eq.u32 %p1, %r1, 0;\n    setp.eq.u32 %p2, %r2, 1;\n    mov.u32 %r3, bar;\n    mapa.shared::cluster.u32 %r4, %r3, 0;\n    mul.wide.u32 %rd2, %r1, 4;\n    add.s64 %rd3, %rd1, %rd2;\n{body}\n    ret;\n}}\n"
    );
    let mut dev = Device::new();
    let m = dev.load(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let out = dev.alloc(4 * words as u64).unwrap();
    let mut cfg = LaunchConfig::new(2u32, 32u32);
    cfg.cluster = Some(Dim3::new(2, 1, 1));
    cfg.scheduling = mode;
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("{mode:?}: {e}\n{src}"));
    dev.read(out, 4 * words as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

const SYNC: &str = "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n";

/// Rank 0's mbarrier expects 64 arrivals: its 32 threads and rank 1's 32,
/// which arrive remotely (`mbarrier.arrive.release.cluster.shared::cluster`)
/// after writing rank 0's `data`. Rank 0's threads wait for the phase and
/// read what rank 1 wrote.
#[test]
fn remote_arrivals_complete_the_phase() {
    let body = format!(
        "    @%p1 mbarrier.init.shared::cta.b64 [bar], 64;\n{SYNC}    mov.u32 %r5, data;\n    shl.b32 %r6, %r1, 2;\n    add.u32 %r7, %r5, %r6;\n    mapa.shared::cluster.u32 %r8, %r7, 0;\n    add.u32 %r9, %r1, 1000;\n    @%p2 st.shared::cluster.u32 [%r8], %r9;\n    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n    @%p2 bra DONE;\nWAIT:\n    mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], 0;\n    @!%p3 bra WAIT;\n    ld.shared.u32 %r10, [%r7];\n    st.global.u32 [%rd3], %r10;\nDONE:\n{SYNC}"
    );
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = run(&body, 32, mode);
        assert_eq!(out, (0..32).map(|t| 1000 + t).collect::<Vec<u32>>(), "{mode:?}");
    }
}

/// Transactions and `arrive_drop` from another CTA, on rank 0's mbarrier
/// (expected count 2), each step ordered by cluster barriers and observed
/// by rank 0's thread 0 with `test_wait.parity`: rank 1's thread 0 makes an
/// `arrive.expect_tx` of 8 bytes and rank 0 arrives (both arrivals, 8 bytes
/// outstanding); rank 1 adds `expect_tx` 4 and `complete_tx` 8 (4
/// outstanding); then `complete_tx` 4 (phase 0 complete); in phase 1 rank 1
/// makes an `arrive_drop` and rank 0 arrives (phase 1 complete).
#[test]
fn remote_transactions_and_drops_count() {
    let body = format!(
        "    @%p1 mbarrier.init.shared::cta.b64 [bar], 2;\n{SYNC}\
    and.pred %p4, %p1, %p2;\n\
    setp.eq.u32 %p5, %r2, 0;\n\
    and.pred %p5, %p5, %p1;\n\
    @%p4 mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r4], 8;\n\
    @%p5 mbarrier.arrive.shared::cta.b64 %rd4, [bar];\n{SYNC}\
    @%p5 mbarrier.test_wait.parity.shared::cta.b64 %p6, [bar], 0;\n\
    selp.u32 %r10, 1, 0, %p6;\n\
    @%p5 st.global.u32 [%rd1], %r10;\n{SYNC}\
    @%p4 mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r4], 4;\n\
    @%p4 mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%r4], 8;\n{SYNC}\
    @%p5 mbarrier.test_wait.parity.shared::cta.b64 %p6, [bar], 0;\n\
    selp.u32 %r10, 1, 0, %p6;\n\
    @%p5 st.global.u32 [%rd1+4], %r10;\n{SYNC}\
    @%p4 mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%r4], 4;\n{SYNC}\
    @%p5 mbarrier.test_wait.parity.shared::cta.b64 %p6, [bar], 0;\n\
    selp.u32 %r10, 1, 0, %p6;\n\
    @%p5 st.global.u32 [%rd1+8], %r10;\n\
    @%p4 mbarrier.arrive_drop.shared::cluster.b64 _, [%r4];\n{SYNC}\
    @%p5 mbarrier.arrive.shared::cta.b64 %rd4, [bar];\n\
    @%p5 mbarrier.test_wait.parity.shared::cta.b64 %p6, [bar], 1;\n\
    selp.u32 %r10, 1, 0, %p6;\n\
    @%p5 st.global.u32 [%rd1+12], %r10;\n{SYNC}"
    );
    for mode in [Scheduling::Stack, Scheduling::Its] {
        // Both arrivals made but 8 bytes outstanding: not complete. Then
        // expect 4 more and complete 8: 4 outstanding, not complete. Then
        // complete 4: complete. In phase 1 (expected 2), rank 1 drops
        // (pending 1, expected 1 from now on) and rank 0 arrives: complete.
        assert_eq!(run(&body, 4, mode), vec![0, 0, 1, 1], "{mode:?}");
    }
}
