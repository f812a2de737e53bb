//! `cp.async` (PTX ISA 9.7.9.25): the copies land as the manual defines
//! them (`src-size` bytes then zeros up to `cp-size`, zeros with a true
//! `ignore-src`), and the engine's race check (`datapath/asynccopy.rs`):
//! touching a destination before the `wait_group`/`wait_all` that covers it
//! is an `async_copy_race` trap, touching it after is not. Expected bytes
//! are computed here from the manual's description.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Runs `kernel` (one CTA of 32 threads, `shared` bytes of static shared
/// memory declared by the kernel) with an input buffer `input` and an output
/// buffer of `out_len` bytes (0xee); returns the output or the error.
fn run(src: &str, input: &[u8], out_len: usize, sched: Scheduling) -> Result<Vec<u8>, RunError> {
    let mut dev = Device::new();
    let module = dev.load(&format!("{HEAD}{src}")).unwrap_or_else(|e| panic!("{e}"));
    let pin = dev.alloc(input.len().max(1) as u64).unwrap();
    dev.write(pin, input).unwrap();
    let pout = dev.alloc(out_len.max(1) as u64).unwrap();
    dev.write(pout, &vec![0xee; out_len]).unwrap();
    let mut cfg = LaunchConfig::new(1u32, 32u32);
    cfg.scheduling = sched;
    dev.launch(&module, "k", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)])?;
    Ok(dev.read(pout, out_len as u64).unwrap())
}

fn both(src: &str, input: &[u8], out_len: usize) -> Result<Vec<u8>, RunError> {
    let a = run(src, input, out_len, Scheduling::Stack);
    let b = run(src, input, out_len, Scheduling::Its);
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "the scheduling modes disagree"),
        (Err(x), Err(y)) => assert_eq!(x.kind, y.kind, "the scheduling modes disagree: {x} / {y}"),
        _ => panic!("the scheduling modes disagree: {a:?} / {b:?}"),
    }
    a
}

/// Each lane copies 16 bytes from `in + 16*lane` to shared `16*lane` with
/// `src-size = lane % 17`, then 8 bytes from `in + 512 + 8*lane` to shared
/// `512 + 8*lane` with `ignore-src` true on odd lanes; after
/// `cp.async.wait_all` it copies its 24 shared bytes to `out`.
const FILL: &str = r#"
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
    .shared .align 16 .b8 buf[768];
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    mov.u32 %r2, buf;
    shl.b32 %r3, %r1, 4;
    add.s32 %r4, %r2, %r3;
    rem.u32 %r5, %r1, 17;
    cp.async.ca.shared.global [%r4], [%rd4], 16, %r5;
    mul.wide.u32 %rd5, %r1, 8;
    add.s64 %rd6, %rd1, %rd5;
    add.s64 %rd6, %rd6, 512;
    shl.b32 %r6, %r1, 3;
    add.s32 %r7, %r2, %r6;
    add.s32 %r7, %r7, 512;
    and.b32 %r8, %r1, 1;
    setp.eq.u32 %p1, %r8, 1;
    cp.async.ca.shared.global [%r7], [%rd6], 8, %p1;
    cp.async.wait_all;
    ld.shared.v2.u64 {%rd7, %rd8}, [%r4];
    ld.shared.u64 %rd9, [%r7];
    mul.wide.u32 %rd10, %r1, 24;
    add.s64 %rd11, %rd2, %rd10;
    st.global.u64 [%rd11], %rd7;
    st.global.u64 [%rd11+8], %rd8;
    st.global.u64 [%rd11+16], %rd9;
    ret;
}
"#;

#[test]
fn cp_async_zero_fills_past_src_size_and_with_ignore_src() {
    let input: Vec<u8> = (0..768u32).map(|i| (i * 7 + 3) as u8 | 1).collect();
    let out = both(FILL, &input, 32 * 24).unwrap();
    for l in 0..32usize {
        let n = l % 17;
        for k in 0..16 {
            let want = if k < n { input[16 * l + k] } else { 0 };
            assert_eq!(out[24 * l + k], want, "lane {l} byte {k} of the 16-byte copy (src-size {n})");
        }
        for k in 0..8 {
            let want = if l % 2 == 1 { 0 } else { input[512 + 8 * l + k] };
            assert_eq!(out[24 * l + 16 + k], want, "lane {l} byte {k} of the 8-byte copy (ignore-src {})", l % 2 == 1);
        }
    }
}

/// A kernel that issues two 4-byte copies per lane, to shared `a` (then
/// commits) and to shared `b`, then runs `tail`, then reads `[%r4]`
/// (the first destination) or `[%r6]` (the second) as `read` says.
fn two_groups(between: &str, read: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
    .shared .align 16 .b8 a[128];
    .shared .align 16 .b8 b[128];
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r2, a;
    add.s32 %r4, %r2, %r3;
    mov.u32 %r5, b;
    add.s32 %r6, %r5, %r3;
    cp.async.ca.shared.global [%r4], [%rd4], 4;
    cp.async.commit_group;
    cp.async.ca.shared.global [%r6], [%rd4], 4;
    {between}
    ld.shared.u32 %r7, [{read}];
    st.global.u32 [%rd5], %r7;
    ret;
}}
"#
    )
}

fn race_kind(src: &str) -> Option<TrapKind> {
    let input: Vec<u8> = (0..256u32).map(|i| i as u8).collect();
    both(src, &input, 128).err().map(|e| {
        assert!(e.line.is_some(), "{e}");
        e.kind
    })
}

#[test]
fn reading_a_destination_before_its_wait_is_a_race() {
    // No wait at all: the first group is committed, not waited for.
    assert_eq!(race_kind(&two_groups("", "%r4")), Some(TrapKind::AsyncCopyRace));
    // The second copy is not even committed.
    assert_eq!(race_kind(&two_groups("", "%r6")), Some(TrapKind::AsyncCopyRace));
    // wait_group 0 completes the committed group only: `a` is readable,
    // the uncommitted copy to `b` is not.
    assert_eq!(race_kind(&two_groups("cp.async.wait_group 0;", "%r4")), None);
    assert_eq!(race_kind(&two_groups("cp.async.wait_group 0;", "%r6")), Some(TrapKind::AsyncCopyRace));
    // Two committed groups, wait_group 1: the older is complete, the newer is not.
    assert_eq!(race_kind(&two_groups("cp.async.commit_group; cp.async.wait_group 1;", "%r4")), None);
    assert_eq!(race_kind(&two_groups("cp.async.commit_group; cp.async.wait_group 1;", "%r6")), Some(TrapKind::AsyncCopyRace));
    // wait_all commits and waits for everything.
    assert_eq!(race_kind(&two_groups("cp.async.wait_all;", "%r6")), None);
    // A store to a pending destination is a race too.
    let st = two_groups("st.shared.u32 [%r6], %r1;", "%r4");
    assert_eq!(race_kind(&st), Some(TrapKind::AsyncCopyRace));
}

#[test]
fn waited_copies_deliver_the_source() {
    let src = two_groups("cp.async.wait_all;", "%r6");
    let input: Vec<u8> = (0..256u32).map(|i| (i * 3) as u8).collect();
    let out = both(&src, &input, 128).unwrap();
    assert_eq!(out, input[..128].to_vec());
}

#[test]
fn bad_copies_trap() {
    let input: Vec<u8> = vec![1; 256];
    // src-size larger than cp-size (undefined in the manual).
    let big = two_groups("cp.async.wait_all;", "%r4").replace("[%r4], [%rd4], 4;", "[%r4], [%rd4], 4, 8;");
    assert_eq!(both(&big, &input, 128).unwrap_err().kind, TrapKind::OutOfBounds);
    // A 16-byte copy to a 4-byte aligned destination.
    let mis = two_groups("cp.async.wait_all;", "%r4").replace("ca.shared.global [%r4], [%rd4], 4;", "cg.shared.global [%r4], [%rd4], 16, 4;");
    assert_eq!(both(&mis, &input, 128).unwrap_err().kind, TrapKind::Misaligned);
    // A source outside every allocation.
    let oob = two_groups("cp.async.wait_all;", "%r4").replace("[%r4], [%rd4], 4;", "[%r4], [%rd4+4096], 4;");
    assert_eq!(both(&oob, &input, 128).unwrap_err().kind, TrapKind::OutOfBounds);
    // With src-size 0 the source is not read, wherever it points.
    let none = two_groups("cp.async.wait_all;", "%r4").replace("[%r4], [%rd4], 4;", "[%r4], [%rd4+4096], 4, 0;");
    assert_eq!(both(&none, &input, 128).unwrap()[..4], [0, 0, 0, 0]);
}

/// The tensor-copy forms not modelled yet (the tile- and im2col-mode
/// tensor copies and reductions, `tensormap.replace` and `wgmma` run:
/// `hopper.rs`, `tma_reduce.rs`, `tma_im2col.rs`, `tensormap_replace.rs`):
/// sm_100's `.tile::gather4` and `.im2col::w` modes (on sm_100a: ptxas
/// 13.5 refuses them on sm_90a, "Feature '.tile::gather4 with destination
/// state space as .shared::cluster' not supported on .target 'sm_90a'", and
/// so does the checker). A launch that reaches one traps `unsupported`
/// naming it. (The global/shared bulk copies run: `bulk_copy.rs`.)
#[test]
fn unmodelled_tensor_forms_are_reported_by_name() {
    for (ins, name) in [
        ("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r2, %r2, %r2, %r2}], [%r3];", "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"),
        ("cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r2, %r2}], [%r3], {%h1, %h1};", "cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes"),
    ] {
        let src = format!(".version 8.6\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    .reg .b16 %h<2>;\n    {ins}\n    ret;\n}}\n");
        let mut dev = Device::new();
        let module = dev.load(&src).unwrap_or_else(|e| panic!("{e}"));
        let p = dev.alloc(4).unwrap();
        let e = dev.launch(&module, "k", &LaunchConfig::new(1u32, 32u32), &[KernelArg::Ptr(p), KernelArg::Ptr(p)]).unwrap_err();
        assert_eq!(e.kind, TrapKind::Unsupported, "{e}");
        assert!(e.message.contains(name), "{e}");
    }
}

/// `cp.async.bulk.prefetch.tensor` only hints that a box of the tensor be
/// brought into the L2 cache (PTX ISA 9.7.9.25.5.3): nothing the program
/// can see changes, so it runs as nothing, even on a tensor-map address
/// that holds no map, and the code after it runs. Both forms ptxas 13.5
/// accepts: tile with a cache policy, and im2col with its offsets. A
/// prefetch with the wrong number of coordinates is refused at load.
#[test]
fn a_tensor_prefetch_changes_nothing_the_program_sees() {
    let body = "    mov.u32 %r1, 3;\n    mov.u32 %r2, 5;\n    mov.u32 %r3, 7;\n    mov.b16 %h1, 1;\n    mov.u64 %rd3, 0;\n\
                cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [%rd1, {%r1, %r2, %r3}], {%h1};\n\
                cp.async.bulk.prefetch.tensor.1d.L2.global.tile.L2::cache_hint [%rd1, {%r1}], %rd3;\n\
                cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}];\n\
                st.global.u32 [%rd2], %r3;\n";
    let src = |body: &str| format!(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 pin, .param .u64 pout)\n{{\n    .reg .b16 %h<2>;\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [pin];\n    ld.param.u64 %rd2, [pout];\n{body}    ret;\n}}\n");
    let mut dev = Device::new();
    let module = dev.load(&src(body)).unwrap_or_else(|e| panic!("{e}"));
    let (pin, pout) = (dev.alloc(128).unwrap(), dev.alloc(4).unwrap());
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        dev.launch(&module, "k", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!(dev.read(pout, 4).unwrap(), 7u32.to_le_bytes(), "{mode:?}");
    }
    let bad = "    mov.u32 %r1, 3;\n    cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1}];\n";
    let e = Device::new().load(&src(bad)).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("coordinates"), "{e}");
}

/// The pattern `cuda::memcpy_async` with a `cuda::barrier` compiles to at
/// sm_80: each lane issues a copy to `a`, then (`before`) more code, then
/// `cp.async.mbarrier.arrive{.noinc}` on `bar`, an `mbarrier.arrive`, and
/// (`wait`) a wait loop; it then reads its copy back. `init` is the
/// mbarrier's expected count; `after` runs between the cp.async arrive and
/// the read (a second copy, for instance).
fn via_mbarrier(init: u32, arrive: &str, before: &str, wait: &str, read: &str) -> String {
    format!(
        r#"
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
    .shared .align 16 .b8 a[128];
    .shared .align 16 .b8 b[128];
    .shared .align 8 .b64 bar;
    .shared .align 8 .b64 other;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra INIT_DONE;
    mov.u32 %r8, bar;
    mbarrier.init.shared.b64 [%r8], {init};
    mov.u32 %r8, other;
    mbarrier.init.shared.b64 [%r8], 1;
INIT_DONE:
    bar.sync 0;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r2, a;
    add.s32 %r4, %r2, %r3;
    mov.u32 %r5, b;
    add.s32 %r6, %r5, %r3;
    mov.u32 %r9, bar;
    mov.u32 %r10, other;
    cp.async.ca.shared.global [%r4], [%rd4], 4;
    {before}
    {arrive} [%r9];
    mbarrier.arrive.shared.b64 %rd6, [%r9];
WAIT:
    {wait}
    ld.shared.u32 %r7, [{read}];
    st.global.u32 [%rd5], %r7;
    ret;
}}
"#
    )
}

const LOOP: &str = "mbarrier.test_wait.shared.b64 %p1, [%r9], %rd6;\n    @!%p1 bra WAIT;";

/// PTX ISA 9.7.9.25.3.4 (`cp.async.mbarrier.arrive`): the arrive-on
/// operation is triggered when all prior `cp.async` operations of the
/// executing thread complete, so once a thread observes the phase complete
/// (9.7.13.15.16, `test_wait`/`try_wait`) the copies are complete and their
/// destinations may be read, with no `cp.async.wait_group`. Before that
/// observation, or for a copy issued after the arrive, the read is a race.
#[test]
fn a_completed_mbarrier_phase_waits_for_the_copies_it_tracks() {
    let noinc = "cp.async.mbarrier.arrive.noinc.shared.b64";
    let inc = "cp.async.mbarrier.arrive.shared.b64";
    // `.noinc`: each thread arrives twice (its copies and its own arrive).
    assert_eq!(race_kind(&via_mbarrier(64, noinc, "", LOOP, "%r4")), None);
    // Without `.noinc` the copies' arrival is added to the pending count.
    assert_eq!(race_kind(&via_mbarrier(32, inc, "", LOOP, "%r4")), None);
    // test_wait.parity on the phase parity 0.
    let parity = "mbarrier.test_wait.parity.shared.b64 %p1, [%r9], 0;\n    @!%p1 bra WAIT;";
    assert_eq!(race_kind(&via_mbarrier(64, noinc, "", parity, "%r4")), None);
    // The data arrives: the copies' bytes are the source.
    let input: Vec<u8> = (0..256u32).map(|i| (i * 5 + 1) as u8).collect();
    assert_eq!(both(&via_mbarrier(64, noinc, "", LOOP, "%r4"), &input, 128).unwrap(), input[..128].to_vec());
    // No wait for the phase: a race.
    assert_eq!(race_kind(&via_mbarrier(64, noinc, "", "", "%r4")), Some(TrapKind::AsyncCopyRace));
    // A copy issued after the cp.async arrive is not tracked by that phase.
    let later = via_mbarrier(64, noinc, "", LOOP, "%r6").replace("    mbarrier.arrive.shared.b64 %rd6", "    cp.async.ca.shared.global [%r6], [%rd4], 4;\n    mbarrier.arrive.shared.b64 %rd6");
    assert_eq!(race_kind(&later), Some(TrapKind::AsyncCopyRace));
    // ...while a second copy issued before it is.
    let two = via_mbarrier(64, noinc, "cp.async.ca.shared.global [%r6], [%rd4], 4;", LOOP, "%r6");
    assert_eq!(race_kind(&two), None);
    // Observing another mbarrier's phase does not complete them.
    let wrong = "mbarrier.arrive.shared.b64 %rd7, [%r10];\n    mbarrier.test_wait.shared.b64 %p1, [%r10], %rd7;\n    @!%p1 bra WAIT;";
    assert_eq!(race_kind(&via_mbarrier(64, noinc, "", wrong, "%r4")), Some(TrapKind::AsyncCopyRace));
}
