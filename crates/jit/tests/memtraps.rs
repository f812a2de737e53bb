//! Loads and stores that go wrong in compiled code trap as interpreted:
//! one lane of a warp running a compiled loop of global (or generic) loads
//! and stores is made out of bounds, misaligned, out of bounds only after a
//! few iterations, or pointed into the shared window (and one lane of a
//! loop of shared loads and stores misaligned or past the CTA's shared
//! memory, and one lane of a loop of `ld.const` misaligned or past the
//! constant bank); with the tier forced
//! on and off, in both scheduling modes, the launch gives the same error
//! (kind, message, line, CTA, warp, lane), the same buffer afterwards (the
//! lanes a trapping store wrote before its bad lane included) and, at
//! smaller fuel budgets, the same result again. The loads and stores are
//! compiled (the compiled code hands the bad instruction back before any
//! lane has taken effect, and the interpreter traps).

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};

/// A kernel whose lane `bad` adds `delta` to its address; the loop body
/// (`LD`, `ST` and the access type `TY`) is filled in per case. Each
/// iteration moves every lane's address by `step` bytes.
const KERNEL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry t(.param .u64 buf, .param .u32 bad, .param .u64 delta, .param .u32 iters, .param .u64 step)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<10>;
    .shared .align 8 .b8 sh[1024];
    ld.param.u64 %rd1, [buf];
    ld.param.u32 %r1, [bad];
    ld.param.u64 %rd2, [delta];
    ld.param.u32 %r9, [iters];
    ld.param.u64 %rd6, [step];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd3, %r2, SIZE;
    add.s64 %rd4, %rd1, %rd3;
    setp.eq.u32 %p1, %r2, %r1;
    selp.b64 %rd5, %rd2, 0, %p1;
    add.s64 %rd4, %rd4, %rd5;
    mov.u64 %rd7, sh;
    cvta.shared.u64 %rd7, %rd7;
    add.s64 %rd7, %rd7, %rd3;
    SHARED
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
$L_loop:
    LD
    add.u32 %r3, %r3, %r5;
    add.u32 %r3, %r3, %r4;
    ST
    add.s64 %rd4, %rd4, %rd6;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, %r9;
    @%p2 bra $L_loop;
    ret;
}
"#;

struct Case {
    name: &'static str,
    ld: &'static str,
    st: &'static str,
    size: u64,
    /// Lane `bad` uses the shared window's address.
    shared: bool,
    bad: u32,
    delta: u64,
    iters: u32,
    step: u64,
    /// Whether the launch traps.
    traps: bool,
}

fn source(c: &Case) -> String {
    KERNEL
        .replace("LD", c.ld)
        .replace("ST", c.st)
        .replace("SIZE", &c.size.to_string())
        .replace("SHARED", if c.shared { "selp.b64 %rd4, %rd7, %rd4, %p1;" } else { "" })
}

/// The error (or the statistics) and the buffer after the launch.
fn run(src: &str, c: &Case, sched: Scheduling, mode: Mode, fuel: u64) -> (Result<(u64, u64), String>, Vec<u8>) {
    let mut dev = Device::new();
    let mut m = dev.load(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    if let Some(t) = attach(&mut m, mode) {
        for (name, r) in t.report() {
            let Some(Ok(code)) = r else { panic!("{name} not compiled: {r:?}") };
            // Only `ret` is left to the interpreter: the loads and stores compile.
            assert!(code.skipped.iter().all(|(_, why)| why == "Ret"), "{}: {:?}", c.name, code.skipped);
        }
    }
    let n = (c.size * 32 * (c.iters as u64 + 1)) as usize;
    let init: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
    let buf = dev.alloc(n as u64).unwrap();
    dev.write(buf, &init).unwrap();
    let mut cfg = LaunchConfig::new(Dim3::new(2, 1, 1), Dim3::new(32, 1, 1));
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    let args = [KernelArg::U64(buf), KernelArg::U32(c.bad), KernelArg::U64(c.delta), KernelArg::U32(c.iters), KernelArg::U64(c.step)];
    let r = dev
        .launch(&m, "t", &cfg, &args)
        .map(|s| (s.warp_instructions, s.thread_instructions))
        .map_err(|e| format!("{:?} {:?} line {:?} cta {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.cta, e.warp, e.lane));
    (r, dev.read(buf, n as u64).unwrap())
}

fn cases() -> Vec<Case> {
    let (ld32, st32) = ("ld.global.u32 %r5, [%rd4];", "st.global.u32 [%rd4], %r3;");
    vec![
        Case { name: "load out of bounds in lane 5", ld: ld32, st: st32, size: 4, shared: false, bad: 5, delta: 1 << 24, iters: 6, step: 128, traps: true },
        Case { name: "misaligned load in lane 7", ld: ld32, st: st32, size: 4, shared: false, bad: 7, delta: 2, iters: 6, step: 128, traps: true },
        Case {
            name: "store out of bounds in lane 31 (lanes 0-30 store first)",
            ld: "mov.u32 %r5, 1;",
            st: st32,
            size: 4,
            shared: false,
            bad: 31,
            delta: 1 << 24,
            iters: 6,
            step: 128,
            traps: true,
        },
        Case { name: "out of bounds after three iterations in lane 31", ld: ld32, st: st32, size: 4, shared: false, bad: 31, delta: 128 * 4, iters: 6, step: 128, traps: true },
        Case {
            name: "misaligned 8-byte store in lane 0",
            ld: "ld.global.u32 %r5, [%rd4];",
            st: "st.global.u64 [%rd4], %rd3;",
            size: 8,
            shared: false,
            bad: 0,
            delta: 4,
            iters: 6,
            step: 256,
            traps: true,
        },
        Case {
            name: "generic accesses of lane 3 in the shared window",
            ld: "ld.u32 %r5, [%rd4];",
            st: "st.u32 [%rd4], %r3;",
            size: 4,
            shared: true,
            bad: 3,
            delta: 0,
            iters: 6,
            step: 0,
            traps: false,
        },
        Case {
            name: "generic load out of the global window (the local window) in lane 9",
            ld: "ld.u32 %r5, [%rd4];",
            st: st32,
            size: 4,
            shared: false,
            bad: 9,
            delta: 0x0000_7d00_0000_0000,
            iters: 6,
            step: 128,
            traps: true,
        },
    ]
}

#[test]
fn bad_accesses_trap_the_same_with_tier_on_and_off() {
    for c in cases() {
        let src = source(&c);
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let (a, ba) = run(&src, &c, sched, Mode::Off, 1_000_000);
            assert_eq!(a.is_err(), c.traps, "{}: {a:?}", c.name);
            let (b, bb) = run(&src, &c, sched, Mode::On, 1_000_000);
            assert_eq!(a, b, "{} {sched:?}", c.name);
            assert!(ba == bb, "{} {sched:?}: buffers differ", c.name);
            for fuel in [1, 9, 20, 33, 60, 100] {
                let (a, ba) = run(&src, &c, sched, Mode::Off, fuel);
                let (b, bb) = run(&src, &c, sched, Mode::On, fuel);
                assert_eq!(a, b, "{} {sched:?} fuel {fuel}", c.name);
                assert!(ba == bb, "{} {sched:?} fuel {fuel}: buffers differ", c.name);
            }
        }
    }
}

/// The expected traps by name: the kind and the lane the interpreter
/// reports (the manual's rules: a natural-alignment violation is
/// misaligned, an address outside every allocation is out of bounds).
#[test]
fn the_traps_are_the_expected_kinds_and_lanes() {
    let cs = cases();
    let expect = [("OutOfBounds", 5), ("Misaligned", 7), ("OutOfBounds", 31), ("OutOfBounds", 31), ("Misaligned", 0)];
    for (c, (kind, lane)) in cs.iter().zip(expect) {
        let (r, _) = run(&source(c), c, Scheduling::Stack, Mode::On, 1_000_000);
        let e = r.expect_err(c.name);
        assert!(e.starts_with(kind), "{}: {e}", c.name);
        assert!(e.ends_with(&format!("lane Some({lane})")), "{}: {e}", c.name);
    }
}

/// Loads while `cp.async` copies are pending: the compiled loads are
/// handed back (the interpreter checks them against the copies), so a
/// generic read of a pending copy's shared destination traps as
/// interpreted, and the global loads beside it give the same values.
const ASYNC: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry a(.param .u64 buf, .param .u32 iters, .param .u32 racy)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<10>;
    .shared .align 8 .b8 sh[256];
    ld.param.u64 %rd1, [buf];
    ld.param.u32 %r9, [iters];
    ld.param.u32 %r8, [racy];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd1, %rd3;
    mov.u64 %rd7, sh;
    add.s64 %rd7, %rd7, %rd3;
    cp.async.ca.shared.global [%rd7], [%rd4], 4;
    cvta.shared.u64 %rd8, %rd7;
    setp.ne.u32 %p1, %r8, 0;
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
$L_loop:
    ld.global.u32 %r5, [%rd4];
    add.u32 %r3, %r3, %r5;
    @%p1 ld.u32 %r6, [%rd8];
    add.u32 %r3, %r3, %r4;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, %r9;
    @%p2 bra $L_loop;
    cp.async.wait_all;
    st.global.u32 [%rd4+128], %r3;
    ret;
}
"#;

#[test]
fn loads_with_async_copies_pending_run_as_interpreted() {
    for racy in [0u32, 1] {
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let mut outs = Vec::new();
            for mode in [Mode::Off, Mode::On] {
                let mut dev = Device::new();
                let mut m = dev.load(ASYNC).unwrap_or_else(|e| panic!("{e}"));
                if let Some(t) = attach(&mut m, mode) {
                    let rep = t.report();
                    let Some(Ok(code)) = &rep[0].1 else { panic!("not compiled: {:?}", rep[0].1) };
                    assert!(code.skipped.iter().all(|(_, why)| !why.starts_with("ld") && !why.starts_with("st")), "{:?}", code.skipped);
                }
                let init: Vec<u8> = (0..256u32).flat_map(|i| (i * 3 + 1).to_le_bytes()).collect();
                let buf = dev.alloc(1024).unwrap();
                dev.write(buf, &init).unwrap();
                let mut cfg = LaunchConfig::new(Dim3::new(1, 1, 1), Dim3::new(32, 1, 1));
                cfg.scheduling = sched;
                cfg.threads = Some(1);
                let r = dev
                    .launch(&m, "a", &cfg, &[KernelArg::U64(buf), KernelArg::U32(5), KernelArg::U32(racy)])
                    .map(|s| (s.warp_instructions, s.thread_instructions))
                    .map_err(|e| format!("{:?} {:?} line {:?} lane {:?}", e.kind, e.message, e.line, e.lane));
                outs.push((r, dev.read(buf, 1024).unwrap()));
            }
            assert_eq!(outs[0].0.is_err(), racy == 1, "{:?}", outs[0].0);
            assert_eq!(outs[0], outs[1], "racy {racy} {sched:?}");
        }
    }
}

/// Shared memory: lane `bad` moves its 32-bit shared offset by `delta`
/// before a compiled loop of shared loads and stores.
const SHARED_KERNEL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry s(.param .u64 buf, .param .u32 bad, .param .u32 delta)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    .shared .align 8 .b8 sh[256];
    ld.param.u64 %rd1, [buf];
    ld.param.u32 %r1, [bad];
    ld.param.u32 %r2, [delta];
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, sh;
    mad.lo.u32 %r5, %r3, 4, %r4;
    setp.eq.u32 %p1, %r3, %r1;
    selp.b32 %r6, %r2, 0, %p1;
    add.u32 %r5, %r5, %r6;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
$L_loop:
    st.shared.u32 [%r5], %r7;
    ld.shared.u32 %r9, [%r5];
    add.u32 %r8, %r8, %r9;
    add.u32 %r7, %r7, 3;
    setp.lt.u32 %p2, %r7, 30;
    @%p2 bra $L_loop;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r8;
    ret;
}
"#;

/// Bad shared addresses in one lane of compiled shared loads and stores
/// trap as interpreted (a misaligned offset, one past the CTA's shared
/// memory), and good ones give the same sums, in both scheduling modes and
/// at every fuel budget tried.
#[test]
fn bad_shared_accesses_trap_the_same_with_tier_on_and_off() {
    let run = |sched, mode, bad, delta, fuel| run_one_warp(SHARED_KERNEL, "s", (sched, mode), (bad, delta), fuel);
    for (bad, delta, want) in [(40, 0, None), (9, 2, Some(("Misaligned", 9))), (30, 256, Some(("OutOfBounds", 30)))] {
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let (a, ba) = run(sched, Mode::Off, bad, delta, 1_000_000);
            match want {
                None => {
                    // Every lane sums 0, 3, ..., 27 (what it stored).
                    assert_eq!(a.as_ref().map(|_| ()), Ok(()), "{sched:?}");
                    assert_eq!(ba, 135u32.to_le_bytes().repeat(32), "{sched:?}");
                }
                Some((kind, lane)) => {
                    let e = a.as_ref().expect_err("a trap");
                    assert!(e.starts_with(kind) && e.ends_with(&format!("lane Some({lane})")), "{sched:?}: {e}");
                }
            }
            for fuel in [1_000_000, 5, 17, 40, 77] {
                let off = run(sched, Mode::Off, bad, delta, fuel);
                assert_eq!(off, run(sched, Mode::On, bad, delta, fuel), "{sched:?} lane {bad} delta {delta} fuel {fuel}");
            }
        }
    }
}

/// The constant bank: lane `bad` moves its address by `delta` before a
/// compiled loop of `ld.const`.
const CONST_KERNEL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.const .align 4 .b32 tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
.visible .entry c(.param .u64 buf, .param .u32 bad, .param .u32 delta)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [buf];
    ld.param.u32 %r1, [bad];
    ld.param.u32 %r2, [delta];
    mov.u32 %r3, %tid.x;
    and.b32 %r4, %r3, 7;
    mov.u64 %rd2, tab;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd2, %rd2, %rd3;
    setp.eq.u32 %p1, %r3, %r1;
    selp.b32 %r5, %r2, 0, %p1;
    cvt.u64.u32 %rd4, %r5;
    add.s64 %rd2, %rd2, %rd4;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
$L_loop:
    ld.const.u32 %r9, [%rd2];
    add.u32 %r8, %r8, %r9;
    add.u32 %r7, %r7, 1;
    setp.lt.u32 %p2, %r7, 10;
    @%p2 bra $L_loop;
    mul.wide.u32 %rd5, %r3, 4;
    add.s64 %rd1, %rd1, %rd5;
    st.global.u32 [%rd1], %r8;
    ret;
}
"#;

/// Bad constant-bank addresses in one lane of a compiled loop of
/// `ld.const` trap as interpreted (misaligned, past the bank), and good
/// ones give each lane ten times its table entry, in both scheduling
/// modes and at every fuel budget tried.
#[test]
fn bad_constant_loads_trap_the_same_with_tier_on_and_off() {
    let run = |sched, mode, bad, delta, fuel| run_one_warp(CONST_KERNEL, "c", (sched, mode), (bad, delta), fuel);
    let tab = [3u32, 1, 4, 1, 5, 9, 2, 6];
    for (bad, delta, want) in [(40, 0, None), (6, 2, Some(("Misaligned", 6))), (17, 1 << 20, Some(("OutOfBounds", 17)))] {
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let (a, ba) = run(sched, Mode::Off, bad, delta, 1_000_000);
            match want {
                None => {
                    assert_eq!(a.as_ref().map(|_| ()), Ok(()), "{sched:?}");
                    let sums: Vec<u8> = (0..32).flat_map(|l| (10 * tab[l % 8]).to_le_bytes()).collect();
                    assert_eq!(ba, sums, "{sched:?}");
                }
                Some((kind, lane)) => {
                    let e = a.as_ref().expect_err("a trap");
                    assert!(e.starts_with(kind) && e.ends_with(&format!("lane Some({lane})")), "{sched:?}: {e}");
                }
            }
            for fuel in [1_000_000, 5, 19, 44] {
                let off = run(sched, Mode::Off, bad, delta, fuel);
                assert_eq!(off, run(sched, Mode::On, bad, delta, fuel), "{sched:?} lane {bad} delta {delta} fuel {fuel}");
            }
        }
    }
}

/// One warp of kernel `name` of `src` (parameters: a 128-byte buffer,
/// `bad`, `delta`): its warp instructions or error, and the buffer after.
fn run_one_warp(src: &str, name: &str, (sched, mode): (Scheduling, Mode), (bad, delta): (u32, u32), fuel: u64) -> (Result<u64, String>, Vec<u8>) {
    let mut dev = Device::new();
    let mut m = dev.load(src).unwrap();
    attach(&mut m, mode);
    let buf = dev.alloc(128).unwrap();
    let mut cfg = LaunchConfig::new(Dim3::new(1, 1, 1), Dim3::new(32, 1, 1));
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    let r = dev
        .launch(&m, name, &cfg, &[KernelArg::U64(buf), KernelArg::U32(bad), KernelArg::U32(delta)])
        .map(|s| s.warp_instructions)
        .map_err(|e| format!("{:?} {:?} line {:?} lane {:?}", e.kind, e.message, e.line, e.lane));
    (r, dev.read(buf, 128).unwrap())
}
