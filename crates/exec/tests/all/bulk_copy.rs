//! The non-tensor bulk copies of sm_90 (PTX ISA 9.7.9.25.4 `cp.async.bulk`).
//!
//! `tests/corpus/nvcc/bulk_copy_sm90.ptx` is nvcc 13.5's output for
//! `cuda::memcpy_async` of a 1 KB tile into shared memory with a
//! `cuda::barrier` (`tests/corpus/src/bulk_copy.cu`): one thread issues
//! `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes` and then
//! `mbarrier.expect_tx` for the same bytes, every thread arrives and waits.
//! The expected output is the CUDA source's: each block reads its tile in
//! reverse and doubles it. The compute_75 build of the same source (a plain
//! copy loop) must give the same bytes, and so must the compute_80 build
//! (`bulk_copy_sm80.ptx`): `cp.async` copies that the barrier's phase
//! completes through `cp.async.mbarrier.arrive`, with no
//! `cp.async.wait_group` (PTX ISA 9.7.9.25.3.4), which the race check must
//! not report.
//!
//! The hand-written kernels cover the shared-to-global form with
//! `.bulk_group`, `commit_group`, `wait_group.read` and `prefetch.L2`, and
//! what the manual leaves undefined: a size that is not a multiple of 16,
//! an address not aligned to 16 bytes.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling, TrapKind};

fn corpus(name: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/nvcc").join(name);
    std::fs::read_to_string(p).expect("corpus file")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn memcpy_async_through_a_bulk_copy_gives_the_sources_result() {
    let input: Vec<f32> = (0..512).map(|i| i as f32 * 0.5 - 7.0).collect();
    let want: Vec<f32> = (0..512).map(|i| input[(i / 256) * 256 + 255 - i % 256] * 2.0).collect();
    for file in ["bulk_copy_sm90.ptx", "bulk_copy_sm80.ptx", "bulk_copy.ptx"] {
        let src = corpus(file);
        for mode in [Scheduling::Stack, Scheduling::Its] {
            let mut dev = Device::new();
            let m = dev.load(&src).expect("loads");
            let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
            let (pin, pout) = (dev.alloc(2048).expect("alloc"), dev.alloc(2048).expect("alloc"));
            dev.write(pin, &bytes).expect("write");
            let mut cfg = LaunchConfig::new(2u32, 256u32);
            cfg.scheduling = mode;
            dev.launch(&m, "bulk_reverse", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap_or_else(|e| panic!("{file} {mode:?}: {e}"));
            assert_eq!(f32s(&dev.read(pout, 2048).expect("read")), want, "{file} {mode:?}");
        }
    }
}

/// A kernel whose 64 threads fill a shared tile with `%r2` as `fill`
/// computes it from the tid `%r1`, then thread 0 runs `body` (with `%rd1`
/// the global `out`, `%r9` the tile's shared address).
fn tile_kernel(fill: &str, body: &str) -> String {
    format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<12>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    .shared .align 16 .b32 tile[64];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
{fill}
    mov.u32 %r9, tile;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r9, %r3;
    st.shared.b32 [%r4], %r2;
    bar.sync 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $done;
{body}
$done:
    ret;
}}
"#
    )
}

/// [`tile_kernel`] with the tile holding `tid * 3`.
fn kernel(body: &str) -> String {
    tile_kernel("    mul.lo.u32 %r2, %r1, 3;", body)
}

/// Runs kernel `k` of `src` on `ctas` CTAs of 64 threads with `out`
/// holding `init`; returns `out` after the launch, or the trap.
fn launch(src: &str, ctas: u32, init: &[u32]) -> Result<Vec<u32>, (TrapKind, String)> {
    let mut dev = Device::new();
    let m = dev.load(src).unwrap_or_else(|e| panic!("loads: {e}"));
    let bytes = 4 * init.len() as u64;
    let out = dev.alloc(bytes).expect("alloc");
    dev.write(out, &init.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).expect("write");
    dev.launch(&m, "k", &LaunchConfig::new(ctas, 64u32), &[KernelArg::Ptr(out)]).map_err(|e| (e.kind, e.to_string()))?;
    Ok(dev.read(out, bytes).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// [`launch`] on one CTA with a 128-word `out` filled with ones.
fn run(src: &str) -> Result<Vec<u32>, (TrapKind, String)> {
    launch(src, 1, &[u32::MAX; 128])
}

#[test]
fn shared_to_global_bulk_group_copies_the_tile() {
    let got = run(&kernel(
        "    cp.async.bulk.prefetch.L2.global [%rd1], 256;
    cp.async.bulk.global.shared::cta.bulk_group [%rd1+16], [%r9], 256;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    cp.async.bulk.wait_group 0;",
    ))
    .expect("runs");
    // Words 4..68 hold the tile; the rest keep the 0xff fill.
    for (w, v) in got.iter().enumerate() {
        let want = if (4..68).contains(&w) { 3 * (w as u32 - 4) } else { u32::MAX };
        assert_eq!(*v, want, "word {w}");
    }
}

#[test]
fn bulk_copy_sizes_and_alignment_are_checked() {
    // A constant size must be a multiple of 16 (the checker refuses the
    // module); a register may hold any value, which traps when it runs.
    let e = run(&kernel("    mov.u32 %r10, 24;\n    cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r9], %r10;")).expect_err("size 24");
    assert_eq!(e.0, TrapKind::Misaligned, "{}", e.1);
    assert!(e.1.contains("multiple of 16"), "{}", e.1);
    let e = run(&kernel("    cp.async.bulk.global.shared::cta.bulk_group [%rd1+8], [%r9], 32;")).expect_err("misaligned");
    assert_eq!(e.0, TrapKind::Misaligned, "{}", e.1);
}

/// Clusters of two CTAs: rank 0 fills a 64-word tile with `1000 * cluster +
/// tid` and copies it into rank 1's tile with
/// `cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`,
/// completing on rank 1's mbarrier (addresses from `mapa`); rank 1's thread
/// 0 expects the 256 bytes, every thread of rank 1 waits for the phase and
/// stores its word of the tile. The cluster barrier orders rank 1's
/// `mbarrier.init` before rank 0's copy.
const CLUSTER_COPY: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
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
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.eq.u32 %p2, %r2, 0;
    @!%p2 bra $receive;
    mul.lo.u32 %r6, %r3, 1000;
    add.u32 %r6, %r6, %r1;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r4, %r7;
    st.shared.u32 [%r8], %r6;
    bar.sync 0;
    @!%p1 bra $done;
    mapa.shared::cluster.u32 %r9, %r4, 1;
    mapa.shared::cluster.u32 %r10, %r5, 1;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r9], [%r4], 256, [%r10];
    bra $done;
$receive:
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r5], 256;
$wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
    @!%p3 bra $wait;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r4, %r7;
    ld.shared.u32 %r11, [%r8];
    mul.lo.u32 %r12, %r3, 64;
    add.u32 %r12, %r12, %r1;
    mul.wide.u32 %rd3, %r12, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r11;
$done:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

#[test]
fn bulk_copy_into_another_ctas_shared_memory() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(CLUSTER_COPY).expect("loads");
        let out = dev.alloc(3 * 256).expect("alloc");
        let mut cfg = LaunchConfig::new(6u32, 64u32);
        cfg.cluster = Some(Dim3::new(2, 1, 1));
        cfg.scheduling = mode;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let got: Vec<u32> = dev.read(out, 3 * 256).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let want: Vec<u32> = (0..3u32).flat_map(|c| (0..64u32).map(move |t| 1000 * c + t)).collect();
        assert_eq!(got, want, "{mode:?}");
    }
}

/// Clusters of four CTAs: rank 0's thread 0 multicasts 64 words of `in`
/// (`.multicast::cluster`, ctaMask 0b1011) into the tile of ranks 0, 1 and
/// 3, each completing on that CTA's own mbarrier at the same offset; those
/// three ranks expect the 256 bytes, wait, and store the tile; rank 2
/// receives nothing and stores nothing.
const MULTICAST: &str = r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .b16 %h<2>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 16 .b32 tile[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd5, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd5, %rd5;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %clusterid.x;
    mov.u32 %r4, tile;
    mov.u32 %r5, bar;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.eq.u32 %p2, %r2, 2;
    @%p2 bra $done;
    setp.ne.u32 %p3, %r2, 0;
    @%p3 bra $receive;
    @!%p1 bra $receive;
    mul.wide.u32 %rd2, %r3, 256;
    add.s64 %rd3, %rd1, %rd2;
    mov.b16 %h1, 0xb;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r4], [%rd3], 256, [%r5], %h1;
$receive:
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r5], 256;
$wait:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;
    @!%p3 bra $wait;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r4, %r7;
    ld.shared.u32 %r11, [%r8];
    mov.u32 %r12, %ctaid.x;
    mul.lo.u32 %r12, %r12, 64;
    add.u32 %r12, %r12, %r1;
    mul.wide.u32 %rd6, %r12, 4;
    add.s64 %rd7, %rd5, %rd6;
    st.global.u32 [%rd7], %r11;
$done:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

#[test]
fn multicast_bulk_copy_reaches_the_ctas_of_its_mask() {
    let input: Vec<u32> = (0..128u32).map(|i| i * 7 + 3).collect();
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(MULTICAST).expect("loads");
        let pin = dev.alloc(512).expect("alloc");
        dev.write(pin, &input.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).expect("write");
        let out = dev.alloc(8 * 256).expect("alloc");
        dev.write(out, &[0xffu8; 8 * 256]).expect("write");
        let mut cfg = LaunchConfig::new(8u32, 64u32);
        cfg.cluster = Some(Dim3::new(4, 1, 1));
        cfg.scheduling = mode;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let got: Vec<u32> = dev.read(out, 8 * 256).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for cta in 0..8usize {
            let (c, r) = (cta / 4, cta % 4);
            for t in 0..64 {
                let want = if r == 2 { u32::MAX } else { input[c * 64 + t] };
                assert_eq!(got[cta * 64 + t], want, "{mode:?}: CTA {cta} (cluster {c}, rank {r}) word {t}");
            }
        }
    }
}

/// `cp.reduce.async.bulk` (PTX ISA 9.7.9.25.4.2): thread 0 of each of two
/// CTAs reduces the 64-word shared tile (`tid * 3 + 1` as `.u32`, or as
/// `.f32`) into the same global words, so each global word ends as its
/// initial value combined with both CTAs' words, element by element; and,
/// into a cluster CTA's shared memory, rank 0 adds its tile into rank 1's
/// (which holds `tid`), completing on rank 1's mbarrier.
fn reduce_global(form: &str, tile: &str, init: &[u32]) -> Vec<u32> {
    let ops = if form.contains("cache_hint") { " [%rd1], [%r9], 256, %rd3" } else { " [%rd1], [%r9], 256" };
    let fill = format!("    mul.lo.u32 %r2, %r1, 3;\n    add.u32 %r2, %r2, 1;\n{tile}");
    let body = format!("    {form}{ops};\n    cp.async.bulk.commit_group;\n    cp.async.bulk.wait_group 0;");
    launch(&tile_kernel(&fill, &body), 2, init).unwrap_or_else(|e| panic!("{form}: {}", e.1))
}

#[test]
fn bulk_reduction_into_global_memory() {
    let init: Vec<u32> = (0..64u32).map(|i| (i * 37) % 101).collect();
    let x = |t: u32| t * 3 + 1;
    let add = reduce_global("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32", "", &init);
    assert_eq!(add, (0..64u32).map(|t| init[t as usize] + 2 * x(t)).collect::<Vec<_>>());
    let max = reduce_global("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u32", "", &init);
    assert_eq!(max, (0..64u32).map(|t| init[t as usize].max(x(t))).collect::<Vec<_>>());
    let xor = reduce_global("cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32", "", &init);
    assert_eq!(xor, init, "xor with the same word twice");
    // inc: old >= src ? 0 : old + 1, twice.
    let inc = reduce_global("cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32", "", &init);
    let step = |o: u32, s: u32| if o >= s { 0 } else { o + 1 };
    assert_eq!(inc, (0..64u32).map(|t| step(step(init[t as usize], x(t)), x(t))).collect::<Vec<_>>());
    // f32 add of integers (exact), the tile converted first.
    let finit: Vec<u32> = (0..64u32).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let fadd = reduce_global("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.add.f32", "    cvt.rn.f32.u32 %f1, %r2;\n    mov.b32 %r2, %f1;\n    createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;", &finit);
    let want: Vec<u32> = (0..64u32).map(|t| (t as f32 * 0.5 + 2.0 * x(t) as f32).to_bits()).collect();
    assert_eq!(fadd, want);
}

#[test]
fn bulk_reduction_into_another_ctas_shared_memory() {
    // Every thread first stores its tid in its CTA's tile; rank 0 then adds
    // its tile (1000 * cluster + tid) into rank 1's.
    let src = CLUSTER_COPY
        .replace(
            "    barrier.cluster.arrive;\n    barrier.cluster.wait;\n    setp.eq.u32 %p2",
            "    shl.b32 %r13, %r1, 2;\n    add.u32 %r14, %r4, %r13;\n    st.shared.u32 [%r14], %r1;\n    barrier.cluster.arrive;\n    barrier.cluster.wait;\n    setp.eq.u32 %p2",
        )
        .replace(
            "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r9], [%r4], 256, [%r10];",
            "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r9], [%r4], 256, [%r10];",
        );
    assert!(src.contains("cp.reduce") && src.contains("%r14"));
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(&src).expect("loads");
        let out = dev.alloc(3 * 256).expect("alloc");
        let mut cfg = LaunchConfig::new(6u32, 64u32);
        cfg.cluster = Some(Dim3::new(2, 1, 1));
        cfg.scheduling = mode;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let got: Vec<u32> = dev.read(out, 3 * 256).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let want: Vec<u32> = (0..3u32).flat_map(|c| (0..64u32).map(move |t| 1000 * c + 2 * t)).collect();
        assert_eq!(got, want, "{mode:?}");
    }
}
