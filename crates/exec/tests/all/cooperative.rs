//! Cooperative launches (`LaunchConfig::cooperative`): every CTA of the
//! grid resident at once, joined by a grid-wide barrier, reached through
//! libcudadevrt's cooperative-groups functions (`cudaCGGetIntrinsicHandle`,
//! `cudaCGSynchronize`, `cudaCGGetSize`, `cudaCGGetRank`, as numba-cuda and
//! older nvcc call them) or through nvcc's inline grid sync, which counts
//! on the barrier word of the grid workspace whose address `%envreg1`
//! (high word) and `%envreg2` (low word) hold (CUDA's cooperative_groups
//! and CCCL read them so). Expected values are computed here by formula.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling, TrapKind, GRID_WORKSPACE_BYTES, MAX_COOPERATIVE_CTAS};

const DECLS: &str = r#".version 7.8
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) cudaCGGetIntrinsicHandle
(
    .param .b32 cudaCGGetIntrinsicHandle_param_0
)
;
.extern .func (.param .b32 func_retval0) cudaCGSynchronize
(
    .param .b64 cudaCGSynchronize_param_0,
    .param .b32 cudaCGSynchronize_param_1
)
;
.extern .func (.param .b32 func_retval0) cudaCGGetSize
(
    .param .b64 cudaCGGetSize_param_0,
    .param .b64 cudaCGGetSize_param_1,
    .param .b64 cudaCGGetSize_param_2
)
;
.extern .func (.param .b32 func_retval0) cudaCGGetRank
(
    .param .b64 cudaCGGetRank_param_0,
    .param .b64 cudaCGGetRank_param_1,
    .param .b64 cudaCGGetRank_param_2
)
;
"#;

/// Three phases over `a` (n words, one per thread, n = the grid's
/// threads): a[i] = 3i+1; grid sync; b[i] = a[(i+37) mod n] + a[n-1-i];
/// grid sync; a[i] = b[(i+101) mod n] * 2. Each phase reads words other
/// CTAs wrote in the phase before.
const PHASES: &str = r#"
.visible .entry phases(.param .u64 pa, .param .u64 pb, .param .u32 pn)
{
    .reg .pred %p9;
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], 1;
    .param .b64 retval0;
    call.uni (retval0), cudaCGGetIntrinsicHandle, (param0);
    ld.param.b64 %rd3, [retval0+0];
    }
    // CTA k first spins 3000k rounds, longer than a turn of the
    // scheduler, so CTAs write phase 1 at different times.
    mul.lo.u32 %r15, %r2, 3000;
WORK:
    setp.eq.u32 %p9, %r15, 0;
    @%p9 bra WORKED;
    sub.u32 %r15, %r15, 1;
    bra WORK;
WORKED:
    mad.lo.u32 %r6, %r5, 3, 1;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r6;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd3;
    .param .b32 param1;
    st.param.b32 [param1+0], 0;
    .param .b32 retval0;
    call.uni (retval0), cudaCGSynchronize, (param0, param1);
    ld.param.b32 %r7, [retval0+0];
    }
    add.u32 %r8, %r5, 37;
    rem.u32 %r8, %r8, %r1;
    mul.wide.u32 %rd6, %r8, 4;
    add.s64 %rd6, %rd1, %rd6;
    ld.global.u32 %r9, [%rd6];
    sub.u32 %r10, %r1, 1;
    sub.u32 %r10, %r10, %r5;
    mul.wide.u32 %rd7, %r10, 4;
    add.s64 %rd7, %rd1, %rd7;
    ld.global.u32 %r11, [%rd7];
    add.u32 %r12, %r9, %r11;
    add.u32 %r12, %r12, %r7;
    add.s64 %rd8, %rd2, %rd4;
    st.global.u32 [%rd8], %r12;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd3;
    .param .b32 param1;
    st.param.b32 [param1+0], 0;
    .param .b32 retval0;
    call.uni (retval0), cudaCGSynchronize, (param0, param1);
    ld.param.b32 %r7, [retval0+0];
    }
    add.u32 %r13, %r5, 101;
    rem.u32 %r13, %r13, %r1;
    mul.wide.u32 %rd9, %r13, 4;
    add.s64 %rd9, %rd2, %rd9;
    ld.global.u32 %r14, [%rd9];
    shl.b32 %r14, %r14, 1;
    st.global.u32 [%rd5], %r14;
    ret;
}
"#;

fn expected(n: u32) -> (Vec<u32>, Vec<u32>) {
    let a1: Vec<u32> = (0..n).map(|i| 3 * i + 1).collect();
    let b: Vec<u32> = (0..n).map(|i| a1[((i + 37) % n) as usize] + a1[(n - 1 - i) as usize]).collect();
    let a2: Vec<u32> = (0..n).map(|i| b[((i + 101) % n) as usize] * 2).collect();
    (a2, b)
}

fn words(dev: &Device, p: u64, n: u32) -> Vec<u32> {
    dev.read(p, n as u64 * 4).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn load(dev: &mut Device, body: &str) -> ptxsim_exec::Module {
    let src = format!("{DECLS}{body}");
    dev.load_linked_devrt(&[("coop.ptx", &src)]).expect("loads with libcudadevrt")
}

#[test]
fn grid_sync_joins_every_cta_in_both_scheduling_modes() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        for (ctas, block) in [(8u32, 64u32), (13, 96), (1, 32)] {
            let n = ctas * block;
            let mut dev = Device::new();
            let m = load(&mut dev, PHASES);
            let (a, b) = (dev.alloc(n as u64 * 4).unwrap(), dev.alloc(n as u64 * 4).unwrap());
            let mut cfg = LaunchConfig::new(ctas, block);
            cfg.scheduling = mode;
            dev.launch_cooperative(&m, "phases", &cfg, &[KernelArg::Ptr(a), KernelArg::Ptr(b), KernelArg::U32(n)]).expect("runs");
            let (ea, eb) = expected(n);
            assert_eq!(words(&dev, b, n), eb, "{mode:?} {ctas}x{block}: phase 2");
            assert_eq!(words(&dev, a, n), ea, "{mode:?} {ctas}x{block}: phase 3");
        }
    }
}

#[test]
fn grid_sync_outside_a_cooperative_launch_traps_with_handle_zero() {
    let mut dev = Device::new();
    let m = load(&mut dev, PHASES);
    let n = 64;
    let (a, b) = (dev.alloc(256).unwrap(), dev.alloc(256).unwrap());
    let e = dev.launch(&m, "phases", &LaunchConfig::new(2u32, 32u32), &[KernelArg::Ptr(a), KernelArg::Ptr(b), KernelArg::U32(n)]).expect_err("traps");
    assert_eq!(e.kind, TrapKind::Trap, "{e}");
    assert!(e.message.contains("grid handle 0"), "{e}");
    assert!(e.line.is_some() && e.function.as_deref() == Some("phases"), "{e}");
}

/// The handle, size and rank of the grid group, and the envregs, in each
/// thread of a 2-D grid of 2-D blocks.
const QUERY: &str = r#"
.visible .entry query(.param .u64 out)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    .local .align 4 .b8 buf[8];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ctaid.y;
    mov.u32 %r3, %nctaid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %tid.x;
    mov.u32 %r6, %tid.y;
    mov.u32 %r7, %ntid.x;
    mad.lo.u32 %r8, %r6, %r7, %r5;
    mov.u32 %r9, %ntid.y;
    mul.lo.u32 %r10, %r7, %r9;
    mad.lo.u32 %r11, %r4, %r10, %r8;
    mul.wide.u32 %rd2, %r11, 32;
    add.s64 %rd2, %rd1, %rd2;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], 1;
    .param .b64 retval0;
    call.uni (retval0), cudaCGGetIntrinsicHandle, (param0);
    ld.param.b64 %rd3, [retval0+0];
    }
    st.global.u64 [%rd2], %rd3;
    mov.u32 %r12, %envreg1;
    mov.u32 %r13, %envreg2;
    st.global.u32 [%rd2+8], %r12;
    st.global.u32 [%rd2+12], %r13;
    setp.eq.u64 %p1, %rd3, 0;
    @%p1 bra DONE;
    mov.u64 %rd4, buf;
    cvta.local.u64 %rd4, %rd4;
    add.s64 %rd5, %rd4, 4;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd4;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd5;
    .param .b64 param2;
    st.param.b64 [param2+0], %rd3;
    .param .b32 retval0;
    call.uni (retval0), cudaCGGetSize, (param0, param1, param2);
    ld.param.b32 %r14, [retval0+0];
    }
    ld.local.u32 %r15, [buf];
    ld.local.u32 %r16, [buf+4];
    st.global.u32 [%rd2+16], %r15;
    st.global.u32 [%rd2+20], %r16;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd4;
    .param .b64 param1;
    st.param.b64 [param1+0], %rd5;
    .param .b64 param2;
    st.param.b64 [param2+0], %rd3;
    .param .b32 retval0;
    call.uni (retval0), cudaCGGetRank, (param0, param1, param2);
    ld.param.b32 %r17, [retval0+0];
    }
    ld.local.u32 %r15, [buf];
    ld.local.u32 %r16, [buf+4];
    st.global.u32 [%rd2+24], %r15;
    add.u32 %r16, %r16, %r14;
    add.u32 %r16, %r16, %r17;
    st.global.u32 [%rd2+28], %r16;
DONE:
    ret;
}
"#;

#[test]
fn handle_size_rank_and_envregs() {
    let (grid, block) = (Dim3::new(3, 2, 1), Dim3::new(4, 2, 1));
    let n = 3 * 2 * 4 * 2u32;
    let query = QUERY.replace(".reg .b64 %rd<20>;", ".reg .b64 %rd<20>;\n    .reg .pred %p<2>;");
    // Cooperative: the workspace this launch was given.
    let mut dev = Device::new();
    let m = load(&mut dev, &query);
    let out = dev.alloc(n as u64 * 32).unwrap();
    let ws = dev.alloc(GRID_WORKSPACE_BYTES).unwrap();
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.cooperative = true;
    cfg.grid_workspace = ws;
    dev.launch(&m, "query", &cfg, &[KernelArg::Ptr(out)]).expect("runs");
    let got = dev.read(out, n as u64 * 32).unwrap();
    let w = |i: usize, k: usize| u32::from_le_bytes(got[i * 32 + k..i * 32 + k + 4].try_into().unwrap());
    for by in 0..2usize {
        for bx in 0..3usize {
            for ty in 0..2usize {
                for tx in 0..4usize {
                    // Rank as CUDA's grid_group::thread_rank defines it:
                    // the block's linear index times the block size, plus
                    // the thread's linear index in the block.
                    let rank = (by * 3 + bx) * 8 + ty * 4 + tx;
                    let h = u64::from(w(rank, 0)) | u64::from(w(rank, 4)) << 32;
                    assert_eq!(h, ws, "handle of thread {rank}");
                    assert_eq!((w(rank, 8), w(rank, 12)), ((ws >> 32) as u32, ws as u32), "envreg1:envreg2");
                    assert_eq!((w(rank, 16), w(rank, 20)), (n, 1), "size, number of grids");
                    assert_eq!(w(rank, 24), rank as u32, "rank");
                    assert_eq!(w(rank, 28), 0, "grid rank and cudaSuccess");
                }
            }
        }
    }
    // Not cooperative: handle 0 and envregs 0.
    let mut dev = Device::new();
    let m = load(&mut dev, &query);
    let out = dev.alloc(n as u64 * 32).unwrap();
    dev.launch(&m, "query", &LaunchConfig::new(grid, block), &[KernelArg::Ptr(out)]).expect("runs");
    let got = dev.read(out, n as u64 * 32).unwrap();
    assert!(got.iter().all(|&b| b == 0), "handle and envregs are 0 outside a cooperative launch");
}

#[test]
fn a_cta_that_exits_before_the_grid_barrier_deadlocks() {
    // CTA 1 returns at once; the others wait at the grid barrier forever.
    let body = PHASES.replace(
        "    mad.lo.u32 %r5, %r2, %r3, %r4;\n",
        "    mad.lo.u32 %r5, %r2, %r3, %r4;\n    setp.eq.u32 %p1, %r2, 1;\n    @%p1 ret;\n",
    )
    .replace(".reg .b64 %rd<20>;", ".reg .b64 %rd<20>;\n    .reg .pred %p<2>;");
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = load(&mut dev, &body);
        let (a, b) = (dev.alloc(1024).unwrap(), dev.alloc(1024).unwrap());
        let mut cfg = LaunchConfig::new(4u32, 64u32);
        cfg.scheduling = mode;
        let e = dev.launch_cooperative(&m, "phases", &cfg, &[KernelArg::Ptr(a), KernelArg::Ptr(b), KernelArg::U32(256)]).expect_err("deadlocks");
        assert_eq!(e.kind, TrapKind::BarrierDeadlock, "{mode:?}: {e}");
        assert!(e.message.contains("grid-wide barrier") && e.message.contains("(1,0,0)"), "{mode:?}: {e}");
        assert!(e.line.is_some(), "{mode:?}: located: {e}");
    }
}

#[test]
fn a_cooperative_grid_larger_than_the_limit_is_refused() {
    let mut dev = Device::new();
    let m = load(&mut dev, PHASES);
    let a = dev.alloc(4).unwrap();
    let g = MAX_COOPERATIVE_CTAS as u32 + 1;
    let e = dev.launch_cooperative(&m, "phases", &LaunchConfig::new(g, 1u32), &[KernelArg::Ptr(a), KernelArg::Ptr(a), KernelArg::U32(g)]).expect_err("refused");
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
    assert!(e.message.contains("cooperative"), "{e}");
    // A cooperative launch without a workspace is refused too.
    let mut cfg = LaunchConfig::new(2u32, 1u32);
    cfg.cooperative = true;
    let e = dev.launch(&m, "phases", &cfg, &[KernelArg::Ptr(a), KernelArg::Ptr(a), KernelArg::U32(2)]).expect_err("refused");
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
}

#[test]
fn without_libcudadevrt_the_cg_functions_are_not_builtins() {
    // Linked without libcudadevrt, `cudaCGSynchronize` is a declared
    // function with no body, as nvlink would leave it undefined.
    let mut dev = Device::new();
    let src = format!("{DECLS}{PHASES}");
    let r = dev.load_linked(&[("coop.ptx", &src)]).and_then(|m| {
        let a = dev.alloc(256)?;
        dev.launch_cooperative(&m, "phases", &LaunchConfig::new(2u32, 32u32), &[KernelArg::Ptr(a), KernelArg::Ptr(a), KernelArg::U32(64)])
    });
    let e = r.expect_err("not runnable without libcudadevrt");
    assert!(e.message.contains("cudaCG"), "{e}");
}

/// nvcc's inline grid sync (CUDA 11+ cooperative_groups): bar.sync; thread
/// 0 of each CTA adds 1 (CTA 0 adds 0x80000000 - (nblocks - 1)) to the
/// barrier word at workspace+4 and spins until its top bit flips; bar.sync.
const INLINE: &str = r#".version 7.8
.target sm_80
.address_size 64
.func gsync()
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .reg .pred %p<4>;
    bar.sync 0;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra SKIP;
    mov.u32 %r2, %envreg1;
    mov.u32 %r3, %envreg2;
    mov.b64 %rd1, {%r3, %r2};
    add.s64 %rd1, %rd1, 4;
    mov.u32 %r4, %nctaid.x;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, 1;
    setp.ne.u32 %p2, %r5, 0;
    @%p2 bra ADD;
    sub.u32 %r7, %r4, 1;
    mov.u32 %r8, 0x80000000;
    sub.u32 %r6, %r8, %r7;
ADD:
    membar.gl;
    atom.add.release.gpu.global.u32 %r9, [%rd1], %r6;
SPIN:
    ld.acquire.gpu.global.u32 %r10, [%rd1];
    xor.b32 %r11, %r9, %r10;
    and.b32 %r11, %r11, 0x80000000;
    setp.eq.u32 %p3, %r11, 0;
    @%p3 bra SPIN;
SKIP:
    bar.sync 0;
    ret;
}
.visible .entry phases(.param .u64 pa, .param .u64 pb, .param .u32 pn)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    mad.lo.u32 %r6, %r5, 3, 1;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r6;
    call.uni gsync, ();
    add.u32 %r8, %r5, 37;
    rem.u32 %r8, %r8, %r1;
    mul.wide.u32 %rd6, %r8, 4;
    add.s64 %rd6, %rd1, %rd6;
    ld.global.u32 %r9, [%rd6];
    sub.u32 %r10, %r1, 1;
    sub.u32 %r10, %r10, %r5;
    mul.wide.u32 %rd7, %r10, 4;
    add.s64 %rd7, %rd1, %rd7;
    ld.global.u32 %r11, [%rd7];
    add.u32 %r12, %r9, %r11;
    add.s64 %rd8, %rd2, %rd4;
    st.global.u32 [%rd8], %r12;
    call.uni gsync, ();
    add.u32 %r13, %r5, 101;
    rem.u32 %r13, %r13, %r1;
    mul.wide.u32 %rd9, %r13, 4;
    add.s64 %rd9, %rd2, %rd9;
    ld.global.u32 %r14, [%rd9];
    shl.b32 %r14, %r14, 1;
    st.global.u32 [%rd5], %r14;
    ret;
}
"#;

#[test]
fn nvcc_inline_grid_sync_on_the_envreg_workspace() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let (ctas, block) = (6u32, 64u32);
        let n = ctas * block;
        let mut dev = Device::new();
        let m = dev.load(INLINE).expect("loads");
        let (a, b) = (dev.alloc(n as u64 * 4).unwrap(), dev.alloc(n as u64 * 4).unwrap());
        let mut cfg = LaunchConfig::new(ctas, block);
        cfg.scheduling = mode;
        dev.launch_cooperative(&m, "phases", &cfg, &[KernelArg::Ptr(a), KernelArg::Ptr(b), KernelArg::U32(n)]).expect("runs");
        let (ea, eb) = expected(n);
        assert_eq!(words(&dev, b, n), eb, "{mode:?}: phase 2");
        assert_eq!(words(&dev, a, n), ea, "{mode:?}: phase 3");
    }
}
