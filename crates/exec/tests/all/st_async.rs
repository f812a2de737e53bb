//! `st.async` (PTX ISA 9.7.9.12, sm_90): a store into the shared memory of
//! a CTA of the cluster that completes transactions of an mbarrier in that
//! CTA (`.mbarrier::complete_tx::bytes`), as CCCL's `cuda::ptx::st_async`
//! example uses it: every CTA of a cluster of two sends a tile to the
//! other; the receiver's thread 0 expects the tile's bytes on its own
//! mbarrier (`mbarrier.arrive.expect_tx`), every thread waits for the phase
//! and stores its word. The expected words are computed here from what each
//! sender wrote; the phase can only complete once all the stores' bytes
//! arrived, so a missing completion deadlocks and a missing store shows.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling, TrapKind};

/// The kernel: each thread of rank `r` of cluster `c` sends `1000 * c + 100
/// * r + tid` (by `send`, with `%r9` the peer's tile address of its word,
/// `%r10` the peer's mbarrier, `%r6` the value) to rank `r ^ 1`.
fn kernel(send: &str) -> String {
    format!(
        r#".version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    .reg .pred %p<4>;
    .shared .align 16 .b32 tile[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %clusterid.x;
    mov.u32 %r4, tile;
    mov.u32 %r5, bar;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r5], 256;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mul.lo.u32 %r6, %r3, 1000;
    mul.lo.u32 %r7, %r2, 100;
    add.u32 %r6, %r6, %r7;
    add.u32 %r6, %r6, %r1;
    xor.b32 %r11, %r2, 1;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r4, %r7;
    mapa.shared::cluster.u32 %r9, %r8, %r11;
    mapa.shared::cluster.u32 %r10, %r5, %r11;
{send}
$wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
    @!%p3 bra $wait;
    ld.shared.u32 %r12, [%r8];
    mad.lo.u32 %r13, %r3, 2, %r2;
    mad.lo.u32 %r13, %r13, 64, %r1;
    mul.wide.u32 %rd3, %r13, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r12;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}}
"#
    )
}

/// Runs `src` on `clusters` clusters of two CTAs of 64 threads in `mode`.
fn run(src: &str, clusters: u32, mode: Scheduling) -> Result<Vec<u32>, (TrapKind, String)> {
    let mut dev = Device::new();
    let m = dev.load(src).unwrap_or_else(|e| panic!("loads: {e}"));
    let n = clusters as u64 * 2 * 64 * 4;
    let out = dev.alloc(n).expect("alloc");
    let mut cfg = LaunchConfig::new(clusters * 2, 64u32);
    cfg.cluster = Some(Dim3::new(2, 1, 1));
    cfg.scheduling = mode;
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).map_err(|e| (e.kind, e.to_string()))?;
    Ok(dev.read(out, n).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// What rank `q` of cluster `c` receives in word `t`: its peer's value.
fn want(clusters: u32) -> Vec<u32> {
    (0..clusters).flat_map(|c| (0..2u32).flat_map(move |q| (0..64u32).map(move |t| 1000 * c + 100 * (q ^ 1) + t))).collect()
}

#[test]
fn each_cta_of_a_cluster_receives_the_others_words_and_its_phase_completes() {
    let src = kernel("    st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r9], %r6, [%r10];");
    for mode in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(run(&src, 3, mode).unwrap_or_else(|e| panic!("{mode:?}: {e:?}")), want(3), "{mode:?}");
    }
}

#[test]
fn a_vector_store_completes_all_its_bytes() {
    // Even threads send their own word and their odd neighbour's value
    // (`.v2.b32`, 8 bytes), odd threads nothing: still 256 bytes in all.
    let src = kernel(
        "    and.b32 %r14, %r1, 1;
    setp.ne.u32 %p2, %r14, 0;
    @%p2 bra $wait;
    add.u32 %r15, %r6, 1;
    st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r9], {%r6, %r15}, [%r10];",
    );
    for mode in [Scheduling::Stack, Scheduling::Its] {
        assert_eq!(run(&src, 2, mode).unwrap_or_else(|e| panic!("{mode:?}: {e:?}")), want(2), "{mode:?}");
    }
}

#[test]
fn an_mbarrier_in_another_cta_than_the_destination_traps() {
    // The store goes to the peer, the completion to this CTA's own barrier.
    let src = kernel("    st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r9], %r6, [%r5];");
    let e = run(&src, 1, Scheduling::Stack).expect_err("the manual requires the same CTA");
    assert_eq!(e.0, TrapKind::OutOfBounds, "{}", e.1);
    assert!(e.1.contains("same CTA"), "{}", e.1);
}

/// `red.async` (PTX ISA 9.7.13.7): every thread of each rank adds its
/// `tid + 1` into word `tid % 4` of the peer's tile (zeroed first) and
/// `.max`es `100 * rank + tid` into word 4, completing 4 bytes each time
/// on the peer's mbarrier, which expects `64 * 2 * 4` bytes.
#[test]
fn red_async_reduces_into_the_peer_and_completes_its_bytes() {
    let src = r#".version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    .reg .pred %p<4>;
    .shared .align 16 .b32 tile[8];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r4, tile;
    mov.u32 %r5, bar;
    setp.lt.u32 %p1, %r1, 8;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r4, %r7;
    @%p1 st.shared.u32 [%r8], 0;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r5], 512;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    xor.b32 %r11, %r2, 1;
    and.b32 %r6, %r1, 3;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r4, %r6;
    mapa.shared::cluster.u32 %r9, %r6, %r11;
    mapa.shared::cluster.u32 %r10, %r5, %r11;
    add.u32 %r12, %r1, 1;
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r9], %r12, [%r10];
    add.u32 %r13, %r4, 16;
    mapa.shared::cluster.u32 %r13, %r13, %r11;
    mad.lo.u32 %r14, %r2, 100, %r1;
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32 [%r13], %r14, [%r10];
$wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
    @!%p3 bra $wait;
    setp.lt.u32 %p2, %r1, 8;
    @!%p2 bra $done;
    ld.shared.u32 %r12, [%r8];
    mad.lo.u32 %r13, %r2, 8, %r1;
    mul.wide.u32 %rd3, %r13, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r12;
$done:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;
    // Word w < 4 of each rank: the sum of tid + 1 over the peer's threads
    // with tid % 4 == w; word 4: the peer's largest 100 * rank + tid.
    let mut want = Vec::new();
    for q in 0..2u32 {
        for w in 0..8u32 {
            want.push(match w {
                0..4 => (0..64u32).filter(|t| t % 4 == w).map(|t| t + 1).sum(),
                4 => 100 * (q ^ 1) + 63,
                _ => 0,
            });
        }
    }
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let got = run(src, 1, mode).unwrap_or_else(|e| panic!("{mode:?}: {e:?}"));
        assert_eq!(got[..16], want, "{mode:?}");
    }
}
