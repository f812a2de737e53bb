//! A vector access to global memory is seen whole by another CTA: one CTA
//! stores `{i, i}` (and `{i, i, i, i}`) for i = 1..N with
//! `st.relaxed.gpu.v2/.v4`, while a CTA running at the same time on another
//! worker loads the vector until it reads N, counting the loads whose
//! elements differ. CUB's decoupled look-back (`DeviceScan`) packs a tile's
//! status and its prefix into one 8-byte (or, for 8-byte values, 16-byte)
//! vector and relies on exactly this: a reader that sees the new status and
//! the old prefix computes a wrong scan. The PTX memory model leaves the
//! order of a vector's element accesses unspecified; the emulator chooses
//! to make an aligned vector access of up to 16 bytes single-copy atomic,
//! as the hardware does, and this test holds it to that.
//!
//! The writer also publishes each value of a second word with
//! `st.release` after a plain store of the data it guards, and the reader
//! checks with `ld.acquire` that the data is there when the flag is.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

const N: u32 = 20_000;

fn kernel(ty: &str, n: u32) -> String {
    let bits: u32 = if ty == "u64" { 64 } else { 32 };
    let (reg, cvt) = if bits == 64 { ("%rd", "cvt.u64.u32 %rd10, %r1;") } else { ("%r", "mov.u32 %r10, %r1;") };
    let regs: Vec<String> = (0..n).map(|k| format!("{reg}{}", 10 + k)).collect();
    let copy: String = (1..n).map(|k| format!("    mov.b{bits} {reg}{}, {reg}10;\n", 10 + k)).collect();
    let loaded: Vec<String> = (0..n).map(|k| format!("{reg}{}", 20 + k)).collect();
    let torn: String = (1..n).map(|k| format!("    setp.ne.or.b{bits} %p2, {reg}20, {reg}{}, %p2;\n", 20 + k)).collect();
    let first_is_n = if bits == 64 { "cvt.u32.u64 %r2, %rd20;" } else { "mov.u32 %r2, %r20;" };
    format!(
        r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 cell, .param .u64 out)
{{
    .reg .b32 %r<40>;
    .reg .b64 %rd<40>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [cell];
    ld.param.u64 %rd2, [out];
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p0, %r3, 0;
    @%p0 bra DONE;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, 0;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra READ;
    mov.u32 %r1, 0;
WRITE:
    add.u32 %r1, %r1, 1;
    {cvt}
{copy}    st.relaxed.gpu.global.v{n}.{ty} [%rd1], {{{regs}}};
    st.global.u32 [%rd1+32], %r1;
    st.release.gpu.global.u32 [%rd1+64], %r1;
    setp.lt.u32 %p1, %r1, {N};
    @%p1 bra WRITE;
    bra DONE;
READ:
    ld.relaxed.gpu.global.v{n}.{ty} {{{loaded}}}, [%rd1];
    setp.ne.u32 %p2, %r3, 0;
{torn}    selp.u32 %r6, 1, 0, %p2;
    add.u32 %r5, %r5, %r6;
    ld.acquire.gpu.global.u32 %r7, [%rd1+64];
    ld.global.u32 %r8, [%rd1+32];
    setp.lt.u32 %p3, %r8, %r7;
    selp.u32 %r6, 1, 0, %p3;
    red.global.add.u32 [%rd2+4], %r6;
    {first_is_n}
    setp.ne.u32 %p1, %r2, {N};
    @%p1 bra READ;
    st.global.u32 [%rd2], %r5;
DONE:
    ret;
}}
"#,
        regs = regs.join(", "),
        loaded = loaded.join(", "),
    )
}

fn check(ty: &str, n: u32) {
    let mut dev = Device::new();
    let src = kernel(ty, n);
    let m = dev.load(&src).unwrap_or_else(|e| panic!("v{n}.{ty} loads: {e}\n{src}"));
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let cell = dev.alloc(128).expect("alloc");
        let out = dev.alloc(8).expect("alloc");
        let mut cfg = LaunchConfig::new(2u32, 32u32);
        cfg.scheduling = mode;
        cfg.threads = Some(2);
        cfg.fuel = 1 << 40;
        cfg.timeout = None;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(cell), KernelArg::Ptr(out)]).expect("runs");
        let o = dev.read(out, 8).expect("read");
        let torn = u32::from_le_bytes([o[0], o[1], o[2], o[3]]);
        let stale = u32::from_le_bytes([o[4], o[5], o[6], o[7]]);
        assert_eq!(torn, 0, "v{n}.{ty} ({mode:?}): {torn} loads saw a vector half old, half new");
        assert_eq!(stale, 0, "v{n}.{ty} ({mode:?}): {stale} acquire loads saw the flag before the data it guards");
    }
}

#[test]
fn v2_u32_is_seen_whole() {
    check("u32", 2);
}

#[test]
fn v4_u32_is_seen_whole() {
    check("u32", 4);
}

#[test]
fn v2_u64_is_seen_whole() {
    check("u64", 2);
}

/// A CTA spinning on a flag that a CTA on another worker sets is waiting,
/// not deadlocked, even while the writer runs for a long time without
/// storing anything: lane 0 of CTA 0 loops on the flag with its other
/// lanes parked, and CTA 1 counts to 400,000 before it stores the flag.
/// Stack mode's spin detection must not call CTA 0's repeating state a
/// deadlock while CTA 1 can still store (it once did, when the writer's
/// worker started late).
#[test]
fn a_flag_set_late_by_another_cta_is_waited_for() {
    let src = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 flag)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [flag];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p0, %r1, 0;
    @%p0 bra DONE;
    mov.u32 %r2, %ctaid.x;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra WRITE;
WAIT:
    ld.acquire.gpu.global.u32 %r3, [%rd1];
    setp.ne.u32 %p2, %r3, 7;
    @%p2 bra WAIT;
    st.global.u32 [%rd1+4], %r3;
    bra DONE;
WRITE:
    mov.u32 %r4, 0;
COUNT:
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p3, %r4, 400000;
    @%p3 bra COUNT;
    st.release.gpu.global.u32 [%rd1], 7;
DONE:
    ret;
}
"#;
    let mut dev = Device::new();
    let m = dev.load(src).expect("loads");
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let flag = dev.alloc(8).expect("alloc");
        let mut cfg = LaunchConfig::new(2u32, 32u32);
        cfg.scheduling = mode;
        cfg.threads = Some(2);
        cfg.fuel = 1 << 40;
        cfg.timeout = None;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(flag)]).unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let o = dev.read(flag, 8).expect("read");
        assert_eq!(o, [7, 0, 0, 0, 7, 0, 0, 0], "{mode:?}: the waiter copied the flag once it was set");
    }
}
