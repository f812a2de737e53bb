//! Kernel tests of the SIMT engine through the Rust API: control-flow
//! constructs uniform and divergent in both scheduling modes, traps for the
//! undefined cases, grammar fuzzing (no panic; same results in both modes),
//! and a smoke run of every corpus kernel (runs, or fails with a clean error).
//! Expected values come from Rust transcriptions of the kernels' C
//! semantics, written independently of the engine.

use crate::support::fuzz_gen::{kernel, Gen};
use ptxsim_exec::{Device, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};

const MODES: [Scheduling; 2] = [Scheduling::Stack, Scheduling::Its];

/// Runs `kernel` with one u32 output buffer of `n` words (arg 0) plus scalars.
fn run(src: &str, kernel: &str, grid: u32, block: u32, n: usize, scalars: &[u32], mode: Scheduling) -> Result<Vec<u32>, RunError> {
    let mut dev = Device::new();
    let m = dev.load(src)?;
    let p = dev.alloc(n as u64 * 4)?;
    let mut args = vec![KernelArg::Ptr(p)];
    args.extend(scalars.iter().map(|v| KernelArg::U32(*v)));
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.scheduling = mode;
    cfg.fuel = 5_000_000;
    dev.launch(&m, kernel, &cfg, &args)?;
    let b = dev.read(p, n as u64 * 4)?;
    Ok(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

#[test]
fn nested_divergent_loops_with_break_and_continue() {
    // for i in 0..t%7+3 { if i%3==1 continue; if i*t > 40 break; a += i; for j in 0..(t&3) { if j==2 break; a += 10 } }
    let body = r#"
    mov.u32 %a, 0;
    rem.u32 %c, %t, 7;
    add.u32 %c, %c, 3;
    mov.u32 %i, 0;
OUTER:
    setp.ge.u32 %p, %i, %c;
@%p bra END;
    rem.u32 %b, %i, 3;
    setp.eq.u32 %p, %b, 1;
@%p bra NEXT;
    mul.lo.u32 %b, %i, %t;
    setp.gt.u32 %p, %b, 40;
@%p bra END;
    add.u32 %a, %a, %i;
    and.b32 %b, %t, 3;
    mov.u32 %j, 0;
INNER:
    setp.ge.u32 %q, %j, %b;
@%q bra NEXT;
    setp.eq.u32 %q, %j, 2;
@%q bra NEXT;
    add.u32 %a, %a, 10;
    add.u32 %j, %j, 1;
    bra INNER;
NEXT:
    add.u32 %i, %i, 1;
    bra OUTER;
END:
"#;
    let src = kernel(body, "");
    let expect: Vec<u32> = (0..64u32)
        .map(|t| {
            let mut a = 0;
            for i in 0..t % 7 + 3 {
                if i % 3 == 1 {
                    continue;
                }
                if i * t > 40 {
                    break;
                }
                a += i;
                for j in 0..(t & 3) {
                    if j == 2 {
                        break;
                    }
                    a += 10;
                }
            }
            a
        })
        .collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 64, 64, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn early_ret_in_divergent_function_and_recursion() {
    let funcs = r#"
.func (.reg .u32 r) f(.reg .u32 x)
{
    .reg .pred %p;
    setp.lt.u32 %p, x, 5;
@%p mov.u32 r, 100;
@%p ret;
    mul.lo.u32 r, x, 2;
    ret;
}
.func (.reg .u32 r) fib(.reg .u32 n)
{
    .reg .pred %p;
    .reg .u32 %u, %v, %m;
    setp.lt.u32 %p, n, 2;
@%p mov.u32 r, n;
@%p ret;
    sub.u32 %m, n, 1;
    call (%u), fib, (%m);
    sub.u32 %m, n, 2;
    call (%v), fib, (%m);
    add.u32 r, %u, %v;
    ret;
}"#;
    let body = "call (%a), f, (%t);\nrem.u32 %b, %t, 12;\ncall (%c), fib, (%b);\nmul.lo.u32 %c, %c, 1000;\nadd.u32 %a, %a, %c;";
    let src = kernel(body, funcs);
    fn fib(n: u32) -> u32 {
        if n < 2 {
            n
        } else {
            fib(n - 1) + fib(n - 2)
        }
    }
    let expect: Vec<u32> = (0..40u32).map(|t| (if t < 5 { 100 } else { 2 * t }) + 1000 * fib(t % 12)).collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 40, 40, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn per_lane_brx_idx_and_indirect_calls() {
    let funcs = ".func (.reg .u32 r) g0(.reg .u32 x) { add.u32 r, x, 1; ret; }\n.func (.reg .u32 r) g1(.reg .u32 x) { mul.lo.u32 r, x, 3; ret; }\n.func (.reg .u32 r) g2(.reg .u32 x) { sub.u32 r, 0, x; ret; }\n.global .u64 tab[3] = { g0, g1, g2 };";
    let body = r#"
    rem.u32 %b, %t, 4;
    ts: .branchtargets L0, L1, L2, L3;
    brx.idx %b, ts;
L0: mov.u32 %a, 10;
    bra J;
L1: mov.u32 %a, 20;
    bra J;
L2: mov.u32 %a, 30;
    bra J;
L3: mov.u32 %a, 40;
J:
    rem.u32 %c, %t, 3;
    mul.wide.u32 %x, %c, 8;
    mov.u64 %o, tab;
    add.u64 %x, %x, %o;
    ld.global.u64 %x, [%x];
    ld.param.u64 %o, [out];
    call (%c), %x, (%t), tab;
    add.u32 %a, %a, %c;
    mul.wide.u32 %x, %t, 4;
    add.u64 %o, %o, %x;
"#;
    let src = kernel(body, funcs);
    let expect: Vec<u32> = (0..48u32)
        .map(|t| {
            let a = [10, 20, 30, 40][(t % 4) as usize];
            let c = match t % 3 {
                0 => t + 1,
                1 => t * 3,
                _ => 0u32.wrapping_sub(t),
            };
            a + c
        })
        .collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 48, 48, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn divergent_exit_then_barrier_and_bar_red() {
    // Odd threads exit; even threads meet at bar.sync (released despite the
    // exited threads) and count themselves with bar.red.popc.
    let body = r#"
    and.b32 %b, %t, 1;
    setp.eq.u32 %p, %b, 1;
@%p st.global.u32 [%o], 7;
@%p exit;
    bar.sync 0;
    setp.ne.u32 %q, %t, 1000;
    bar.red.popc.u32 %a, 1, %q;
"#;
    let src = kernel(body, "");
    let expect: Vec<u32> = (0..96u32).map(|t| if t % 2 == 1 { 7 } else { 48 }).collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 96, 96, &[], mode).unwrap(), expect, "{mode:?}");
    }
}

#[test]
fn nanosleep_advances_the_virtual_clock() {
    let body = "mov.u64 %x, %clock64;\nnanosleep.u32 5000;\nmov.u64 %o, %clock64;\nsub.u64 %x, %o, %x;\nld.param.u64 %o, [out];\nmul.wide.u32 %o, %t, 4;\nld.param.u64 %x, [out];\nadd.u64 %o, %o, %x;\nmov.u64 %x, %clock64;\ncvt.u32.u64 %a, %x;\nsetp.ge.u32 %p, %a, 5000;\nselp.u32 %a, 1, 0, %p;";
    let src = kernel(body, "");
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 32, 32, &[], mode).unwrap(), vec![1; 32], "{mode:?}");
    }
}

/// Runs `nanosleep.u32 t` between two reads of `clock_reg` and returns each
/// lane's (t, elapsed) for the given per-lane request `t = base + lane * step`.
fn sleep_elapsed(clock_reg: &str, base: u32, step: u32, mode: Scheduling) -> Vec<(u64, u64)> {
    let body = format!(
        "mad.lo.u32 %b, %t, {step}, {base};\nmov.u64 %x, {clock_reg};\nnanosleep.u32 %b;\nmov.u64 %y, {clock_reg};\nsub.u64 %y, %y, %x;\ncvt.u32.u64 %a, %y;"
    );
    let src = kernel(&body, "").replace(".reg .u64 %o, %x;", ".reg .u64 %o, %x, %y;");
    let out = run(&src, "k", 1, 32, 32, &[], mode).unwrap();
    out.iter().enumerate().map(|(l, e)| ((base + l as u32 * step) as u64, *e as u64)).collect()
}

#[test]
fn nanosleep_stays_within_twice_each_lanes_request_and_the_warp_wakes_together() {
    // PTX ISA 9.7.13 nanosleep: the duration lies in [0, 2t]; the
    // implementation may shorten individual threads' sleeps so that the
    // warp's sleeping threads wake together. Between the two clock reads
    // there are the sleep and two instructions (the nanosleep and the read),
    // each advancing the virtual clock by at most a few ns.
    const OVERHEAD: u64 = 4;
    for mode in MODES {
        for reg in ["%clock64", "%globaltimer"] {
            // Lanes disagree: t = 1000, 1100, ..., 4100.
            let r = sleep_elapsed(reg, 1000, 100, mode);
            let first = r[0].1;
            for (l, (t, e)) in r.iter().enumerate() {
                assert!(*e <= 2 * t + OVERHEAD, "{mode:?} {reg} lane {l}: slept {e} ns for t = {t}");
                assert_eq!(*e, first, "{mode:?} {reg}: lane {l} woke apart from lane 0");
            }
            // Lanes agree: the sleep is at least t (the engine takes t itself).
            let r = sleep_elapsed(reg, 5000, 0, mode);
            for (l, (t, e)) in r.iter().enumerate() {
                assert!(*e >= *t && *e <= 2 * t + OVERHEAD, "{mode:?} {reg} lane {l}: slept {e} ns for t = {t}");
            }
        }
    }
}

#[test]
fn nanosleep_is_capped_at_one_millisecond() {
    // PTX ISA 9.7.13 nanosleep: "The maximum sleep duration is 1 millisecond."
    for mode in MODES {
        let r = sleep_elapsed("%clock64", 50_000_000, 0, mode);
        for (l, (_, e)) in r.iter().enumerate() {
            assert!(*e <= 1_000_000 + 4, "{mode:?} lane {l}: slept {e} ns, past the 1 ms cap");
        }
    }
}

#[test]
fn clock_reads_the_low_32_bits_of_the_virtual_clock() {
    // %clock is a 32-bit cycle counter and %clock64 its 64-bit form; on the
    // virtual clock both advance by the sleep.
    let body = "mov.u32 %b, %clock;\nnanosleep.u32 3000;\nmov.u32 %c, %clock;\nsub.u32 %a, %c, %b;";
    let src = kernel(body, "");
    for mode in MODES {
        for (l, e) in run(&src, "k", 1, 32, 32, &[], mode).unwrap().iter().enumerate() {
            assert!((3000..=6004).contains(e), "{mode:?} lane {l}: %clock advanced {e} across nanosleep 3000");
        }
    }
}

#[test]
fn clock_hi_and_globaltimer_halves_split_the_64_bit_counters() {
    // PTX ISA 10.15-10.18: %clock_hi is the upper 32 bits of %clock64, and
    // %globaltimer_lo / %globaltimer_hi the lower and upper 32 bits of
    // %globaltimer. 4,400 sleeps of the 1 ms maximum take the counters past
    // 2^32 ns, so the upper halves are not zero. Each half is read between
    // two reads of the 64-bit counter, and must lie between their halves.
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p;\n.reg .u32 %i, %h, %l, %g, %m;\n.reg .u64 %o, %c0, %c1, %t0, %t1;\n\
         ld.param.u64 %o, [out];\nmov.u32 %i, 0;\nL:\nnanosleep.u32 1000000;\nadd.u32 %i, %i, 1;\nsetp.lt.u32 %p, %i, 4400;\n@%p bra L;\n\
         mov.u64 %c0, %clock64;\nmov.u32 %h, %clock_hi;\nmov.u64 %c1, %clock64;\n\
         mov.u64 %t0, %globaltimer;\nmov.u32 %g, %globaltimer_hi;\nmov.u32 %l, %globaltimer_lo;\nmov.u64 %t1, %globaltimer;\n\
         st.global.v2.u64 [%o], {{%c0, %c1}};\nst.global.v2.u64 [%o+16], {{%t0, %t1}};\nst.global.v2.u32 [%o+32], {{%h, %g}};\nst.global.u32 [%o+40], %l;\nret;\n}}\n"
    );
    for mode in MODES {
        let mut dev = Device::new();
        let m = dev.load(&src).expect("loads");
        let p = dev.alloc(48).expect("alloc");
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        cfg.fuel = 5_000_000;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(p)]).expect("runs");
        let b = dev.read(p, 48).expect("read");
        let u64_at = |k: usize| u64::from_le_bytes(b[k..k + 8].try_into().unwrap());
        let u32_at = |k: usize| u32::from_le_bytes(b[k..k + 4].try_into().unwrap()) as u64;
        let (c0, c1, t0, t1) = (u64_at(0), u64_at(8), u64_at(16), u64_at(24));
        let (h, g, l) = (u32_at(32), u32_at(36), u32_at(40));
        assert!(c0 >> 32 >= 1, "{mode:?}: %clock64 {c0} has not passed 2^32 after 4.4 s of sleep");
        assert!((c0 >> 32..=c1 >> 32).contains(&h), "{mode:?}: %clock_hi {h} not the upper half of %clock64 ({c0}..{c1})");
        assert!((t0 >> 32..=t1 >> 32).contains(&g), "{mode:?}: %globaltimer_hi {g} not the upper half of %globaltimer ({t0}..{t1})");
        let full = (g << 32) | l;
        assert!((t0..=t1).contains(&full), "{mode:?}: %globaltimer_hi:%globaltimer_lo {full:#x} not between {t0:#x} and {t1:#x}");
    }
}

#[test]
fn aggr_smem_size_is_all_the_shared_memory_of_the_cta() {
    // PTX ISA 10.33: %aggr_smem_size, the CTA's shared memory, reserved and
    // the program's (static 100 bytes + dynamic 28 here; the emulator
    // reserves none), as %total_smem_size counts the program's.
    let src = ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n.reg .u32 %a, %b;\n.reg .u64 %o;\n.shared .align 4 .b8 s[100];\n\
        ld.param.u64 %o, [out];\nmov.u32 %a, %aggr_smem_size;\nmov.u32 %b, %total_smem_size;\nst.global.v2.u32 [%o], {%a, %b};\nret;\n}\n";
    let mut dev = Device::new();
    let m = dev.load(src).expect("loads");
    let p = dev.alloc(8).expect("alloc");
    let mut cfg = LaunchConfig::new(1u32, 32u32);
    cfg.dynamic_shared_bytes = 28;
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(p)]).expect("runs");
    let b = dev.read(p, 8).expect("read");
    let (a, t) = (u32::from_le_bytes(b[0..4].try_into().unwrap()), u32::from_le_bytes(b[4..8].try_into().unwrap()));
    assert!(a >= 128, "%aggr_smem_size {a} is below the 128 bytes the CTA uses");
    assert_eq!(a, t, "with no reserved shared memory %aggr_smem_size equals %total_smem_size");
}

const SPIN: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p;
    .reg .u32 %r<4>;
    .reg .u64 %o;
    ld.param.u64 %o, [out];
L:
    atom.global.cas.b32 %r1, [%o], 0, 1;
    setp.ne.u32 %p, %r1, 0;
@%p bra L;
    ld.global.u32 %r2, [%o+4];
    add.u32 %r2, %r2, 1;
    st.global.u32 [%o+4], %r2;
    atom.global.exch.b32 %r3, [%o], 0;
    ret;
}
"#;

#[test]
fn spin_lock_completes_under_its_and_deadlocks_under_stack() {
    let r = run(SPIN, "spin", 1, 64, 2, &[], Scheduling::Its).unwrap();
    assert_eq!(r, vec![0, 64]);
    let e = run(SPIN, "spin", 1, 32, 2, &[], Scheduling::Stack).unwrap_err();
    assert_eq!(e.kind, TrapKind::StackDeadlock, "{e}");
}

fn trap(src: &str, n: usize) -> RunError {
    run(src, "k", 1, 32, n, &[], Scheduling::Stack).unwrap_err()
}

#[test]
fn traps_are_located_errors() {
    let e = trap(&kernel("mov.u32 %b, 5;\nts: .branchtargets A, B;\nbrx.idx %b, ts;\nA: mov.u32 %a, 1;\nB: mov.u32 %a, 2;", ""), 32);
    assert_eq!(e.kind, TrapKind::BrxIndexOutOfRange);
    assert!(e.message.contains("ts") && e.message.contains('5'), "{}", e.message);
    assert_eq!(e.line, Some(16)); // the brx.idx line of the generated kernel

    let e = trap(&kernel("setp.lt.u32 %p, %t, 3;\n@%p bra.uni X;\nX: mov.u32 %a, 0;", ""), 32);
    assert_eq!(e.kind, TrapKind::NonUniform);

    let e = trap(&kernel("ld.global.u32 %a, [%o+4096];", ""), 32);
    assert_eq!(e.kind, TrapKind::OutOfBounds);
    assert_eq!(e.lane, Some(0));

    // The kernel stores one u32 per thread: with a 3-word buffer, lane 3 is
    // the first past the end, even though lanes 2 and 3 share an 8-byte word.
    let e = trap(&kernel("mov.u32 %a, %t;", ""), 3);
    assert_eq!((e.kind, e.lane), (TrapKind::OutOfBounds, Some(3)));

    let e = trap(&kernel("ld.global.u32 %a, [%o+2];", ""), 32);
    assert_eq!(e.kind, TrapKind::Misaligned);

    let e = trap(&kernel("div.u32 %a, 1, %t;", ""), 32);
    assert_eq!((e.kind, e.lane), (TrapKind::DivideByZero, Some(0)));

    let e = trap(&kernel("setp.eq.u32 %p, %t, 9;\n@%p trap;", ""), 32);
    assert_eq!((e.kind, e.lane), (TrapKind::Trap, Some(9)));

    // A barrier id computed at run time past the CTA's 16 barriers (PTX
    // ISA 9.7.13.1: ids 0 to 15) is undefined: out of bounds, located, not
    // "unsupported".
    for form in ["bar.sync %b;", "bar.arrive %b, 32;", "barrier.sync %b;", "bar.red.popc.u32 %a, %b, %p;"] {
        let e = trap(&kernel(&format!("mov.u32 %b, 16;\nsetp.eq.u32 %p, %t, 0;\n{form}"), ""), 32);
        assert_eq!((e.kind, e.lane), (TrapKind::OutOfBounds, Some(0)), "{form}: {e}");
        assert!(e.message.contains("barrier id 16"), "{e}");
        assert_eq!(e.line, Some(16), "{form}: {e}");
    }

    let e = trap(&kernel("mov.u64 %x, 12345;\nft: .calltargets g;\ncall (%a), %x, (%t), ft;", ".func (.reg .u32 r) g(.reg .u32 x) { mov.u32 r, x; ret; }"), 32);
    assert_eq!(e.kind, TrapKind::BadCallTarget);

    // A real function, with the right signature, that is not in the
    // `.calltargets` list: lanes 4 and up call `h`, lanes 0-3 call `g`.
    let e = trap(
        &kernel(
            "setp.lt.u32 %p, %t, 4;\nmov.u64 %x, h;\n@%p mov.u64 %x, g;\nft: .calltargets g;\ncall (%a), %x, (%t), ft;",
            ".func (.reg .u32 r) g(.reg .u32 x) { mov.u32 r, x; ret; }\n.func (.reg .u32 r) h(.reg .u32 x) { add.u32 r, x, 1; ret; }",
        ),
        32,
    );
    assert_eq!((e.kind, e.lane), (TrapKind::BadCallTarget, Some(4)), "{e}");

    let e = trap(
        &kernel(
            "mov.u64 %x, h;\npr: .callprototype (.reg .u32 _) _ (.reg .u32 _);\ncall (%a), %x, (%t), pr;",
            ".func (.reg .u64 r) h(.reg .u32 x) { cvt.u64.u32 r, x; ret; }",
        ),
        32,
    );
    assert_eq!(e.kind, TrapKind::PrototypeMismatch);

    let e = trap(&kernel("call (%a), deep, (%t);", ".func (.reg .u32 r) deep(.reg .u32 x) { call (r), deep, (x); ret; }"), 32);
    assert_eq!(e.kind, TrapKind::CallDepth);

    let e = trap(&kernel("L: bra L;", ""), 32);
    assert_eq!(e.kind, TrapKind::FuelExhausted);

    let e = trap(&kernel("setp.lt.u32 %p, %t, 16;\n@%p bar.sync 0;", ""), 32);
    assert_eq!(e.kind, TrapKind::BarrierDeadlock);

    let e = trap(&kernel("mov.u32 %a, 0;\ntex.1d.v4.f32.s32 {%a, %b, %c, %i}, [tx, {%t}];", ".global .texref tx;"), 32);
    assert!(matches!(e.kind, TrapKind::Unsupported | TrapKind::LoadError), "{e}");

    let mut dev = Device::new();
    let m = dev.load(&kernel("", "")).unwrap();
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 2048), &[KernelArg::Ptr(0)]).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch);
    let e = dev.load("garbage").unwrap_err();
    assert_eq!(e.kind, TrapKind::LoadError);
}

#[test]
fn fuzz_random_kernels_same_result_in_both_modes() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut ran = 0;
    for case in 0..150 {
        let src = g.program();
        let a = run(&src, "k", 2, 48, 96, &[], Scheduling::Stack);
        let b = run(&src, "k", 2, 48, 96, &[], Scheduling::Its);
        match (a, b) {
            (Ok(x), Ok(y)) => {
                assert_eq!(x, y, "case {case}:\n{src}");
                ran += 1;
            }
            (Err(x), Err(y)) => {
                assert_eq!(x.kind, y.kind, "case {case}: {x} vs {y}\n{src}");
                assert_ne!(x.kind, TrapKind::Unsupported, "case {case}: the generator only writes instructions the engine runs: {x}\n{src}");
            }
            (x, y) => panic!("case {case}: modes disagree: {x:?} vs {y:?}\n{src}"),
        }
    }
    assert!(ran > 100, "only {ran} random kernels ran");
}

#[test]
fn fuzz_small_fuel_never_panics() {
    let mut g = Gen(12345);
    for _ in 0..60 {
        let src = g.program();
        let mut dev = Device::new();
        let m = dev.load(&src).unwrap();
        let p = dev.alloc(400).unwrap();
        for mode in MODES {
            let mut cfg = LaunchConfig::new(1, 96);
            cfg.fuel = 37;
            cfg.scheduling = mode;
            match dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(p)]) {
                Ok(_) => {}
                Err(e) => assert!(matches!(e.kind, TrapKind::FuelExhausted | TrapKind::OutOfBounds), "{e}"),
            }
        }
    }
}

/// Every corpus kernel, with zero buffers for pointer parameters and small
/// scalars, either runs or fails with a located, typed error (never a
/// panic): out of bounds or out of fuel (what zero inputs can cause), or
/// `unsupported` at one of the listed instructions. At least as many run
/// to completion as when last measured.
#[test]
fn corpus_kernels_run_or_fail_cleanly() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus");
    let mut files = Vec::new();
    for dir in ["nvcc", "clang", "llvmlite", "seeds"] {
        if let Ok(rd) = std::fs::read_dir(format!("{root}/{dir}")) {
            for e in rd.flatten() {
                if e.path().extension().and_then(|x| x.to_str()) == Some("ptx") {
                    files.push(e.path());
                }
            }
        }
    }
    files.sort();
    let (mut ok, mut total) = (0, 0);
    let mut hit = std::collections::HashSet::new();
    for f in files {
        let Ok(src) = std::fs::read_to_string(&f) else { continue };
        let mut dev = Device::new();
        let m = match dev.load(&src) {
            Ok(m) => m,
            Err(e) => {
                assert_eq!(e.kind, TrapKind::LoadError);
                continue;
            }
        };
        for k in m.kernels() {
            let params = m.kernel_params(k).unwrap_or_default();
            let mut args = Vec::new();
            for sz in params {
                args.push(match sz {
                    8 => KernelArg::Ptr(dev.alloc(1 << 16).unwrap()),
                    4 => KernelArg::U32(16),
                    2 => KernelArg::U16(16),
                    1 => KernelArg::U8(1),
                    n => KernelArg::Bytes(vec![0; n as usize]),
                });
            }
            let mut cfg = LaunchConfig::new(2, 64);
            cfg.fuel = 2_000_000;
            total += 1;
            match dev.launch(&m, k, &cfg, &args) {
                Ok(_) => ok += 1,
                Err(e) => match e.kind {
                    // Zero inputs can make a kernel index past its buffers
                    // or recurse beyond the fuel given here.
                    TrapKind::OutOfBounds | TrapKind::FuelExhausted => assert!(e.line.is_some(), "{}: {k}: unlocated: {e}", f.display()),
                    TrapKind::Unsupported => match NOT_SUPPORTED_YET.iter().find(|n| e.message.contains(&format!("`{n}`"))) {
                        Some(n) => {
                            hit.insert(*n);
                        }
                        None => panic!("{}: {k}: unsupported and not in NOT_SUPPORTED_YET: {e}", f.display()),
                    },
                    _ => panic!("{}: {k}: {e}", f.display()),
                },
            }
        }
    }
    eprintln!("corpus: {ok}/{total} kernels ran to completion with zero inputs");
    // Measured 184 of 191 (2026-11-25, printf runs); fewer means a kernel
    // stopped running.
    assert!(ok >= 184, "only {ok} of {total} corpus kernels ran to completion");
    for n in NOT_SUPPORTED_YET {
        assert!(hit.contains(n), "`{n}` is listed as not supported yet but no corpus kernel stops at it: remove it from the list");
    }
}

/// What the corpus uses that the engine does not run yet, by name as the
/// `unsupported` trap gives it (instructions as written; external
/// functions). A corpus kernel may stop only at one of these.
const NOT_SUPPORTED_YET: &[&str] = &[];

/// Runs a kernel with one u32 buffer of `n` words on a `grid` of CTAs of
/// `block` threads in clusters of `cluster` CTAs (x only).
fn run_cluster(src: &str, grid: u32, block: u32, cluster: u32, n: usize, mode: Scheduling) -> Result<Vec<u32>, RunError> {
    let mut dev = Device::new();
    let m = dev.load(src)?;
    let p = dev.alloc(n as u64 * 4)?;
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.cluster = Some(cluster.into());
    cfg.scheduling = mode;
    cfg.fuel = 5_000_000;
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(p)])?;
    let b = dev.read(p, n as u64 * 4)?;
    Ok(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Every thread stores `ctaid + 1` in its slot of the first half, crosses the
/// cluster barrier, then copies the slot of the same thread in its partner
/// CTA (`ctaid ^ 1`, the other CTA of its 2-CTA cluster) into the second
/// half, and records its cluster coordinates in the third.
const CLUSTER_EXCHANGE: &str = r#"
.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .u32 %t, %c, %n, %g, %v, %r<6>;
    .reg .u64 %o, %a, %b;
    ld.param.u64 %o, [out];
    cvta.to.global.u64 %o, %o;
    mov.u32 %t, %tid.x;
    mov.u32 %c, %ctaid.x;
    mov.u32 %n, %ntid.x;
    mad.lo.u32 %g, %c, %n, %t;
    mul.wide.u32 %a, %g, 4;
    add.u64 %a, %o, %a;
    add.u32 %v, %c, 1;
    st.global.u32 [%a], %v;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    xor.b32 %r1, %c, 1;
    mad.lo.u32 %r1, %r1, %n, %t;
    mul.wide.u32 %b, %r1, 4;
    add.u64 %b, %o, %b;
    ld.global.u32 %v, [%b];
    st.global.u32 [%a+1024], %v;
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, %clusterid.x;
    mov.u32 %r3, %cluster_nctarank;
    mov.u32 %r4, %nclusterid.x;
    mad.lo.u32 %r1, %r2, 10, %r1;
    mad.lo.u32 %r1, %r3, 100, %r1;
    mad.lo.u32 %r1, %r4, 1000, %r1;
    st.global.u32 [%a+2048], %r1;
    ret;
}
"#;

#[test]
fn cluster_barrier_orders_writes_between_the_ctas_of_a_cluster() {
    // PTX ISA 9.7.13.2 barrier.cluster: wait blocks until every non-exited
    // thread of the cluster has arrived, and arrive.release / wait.acquire
    // (the defaults) order the stores before the barrier with the loads
    // after it. 4 CTAs of 64 threads in clusters of 2.
    for mode in MODES {
        let out = run_cluster(CLUSTER_EXCHANGE, 4, 64, 2, 768, mode).unwrap();
        for c in 0..4u32 {
            for t in 0..64u32 {
                let g = (c * 64 + t) as usize;
                assert_eq!(out[g], c + 1, "{mode:?} own slot");
                assert_eq!(out[256 + g], (c ^ 1) + 1, "{mode:?} cta {c} thread {t}: partner's store not seen after the barrier");
                // rank = c % 2, cluster id = c / 2, 2 CTAs per cluster, 2 clusters.
                assert_eq!(out[512 + g], (c % 2) + 10 * (c / 2) + 100 * 2 + 1000 * 2, "{mode:?} cta {c}: cluster registers");
            }
        }
    }
}

#[test]
fn exited_threads_release_the_cluster_barrier() {
    // PTX ISA 9.7.12.7 exit / 9.7.13.2: the barrier waits for the
    // non-exited threads only. In CTA 1 of each cluster, the upper half of
    // the threads exits first; the others must still get past the barrier.
    let src = CLUSTER_EXCHANGE.replace(
        "    barrier.cluster.arrive;",
        "    and.b32 %r5, %c, 1;\n    setp.ne.u32 %p, %r5, 0;\n    setp.ge.and.u32 %p, %t, 32, %p;\n@%p exit;\n    barrier.cluster.arrive;",
    )
    .replace(".reg .u32 %t,", ".reg .pred %p;\n    .reg .u32 %t,");
    for mode in MODES {
        let out = run_cluster(&src, 2, 64, 2, 768, mode).unwrap();
        for t in 0..64usize {
            assert_eq!(out[256 + t], 2, "{mode:?} cta 0 thread {t}");
            assert_eq!(out[256 + 64 + t], if t < 32 { 1 } else { 0 }, "{mode:?} cta 1 thread {t}");
        }
    }
}

#[test]
fn cluster_launch_must_divide_the_grid() {
    let e = run_cluster(CLUSTER_EXCHANGE, 3, 64, 2, 768, Scheduling::Stack).unwrap_err();
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
}

#[test]
fn memory_limits_are_clean_errors() {
    use ptxsim_exec::Limits;
    // A device allocation past the device's limit.
    let mut dev = Device::with_limits(Limits { max_device_bytes: 1 << 20, ..Limits::default() });
    assert!(dev.alloc(1 << 19).is_ok());
    let e = dev.alloc(1 << 20).unwrap_err();
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    assert!(e.message.contains("1048576"), "{e}");

    // Local memory: each call of `deep` takes a 4 KB `.local` frame; with
    // 64 KB per thread the recursion to depth 100 cannot fit, and the error
    // names the function and the limit instead of running past it.
    let deep = ".func (.reg .u32 r) deep(.reg .u32 x)\n{\n.local .align 4 .b8 buf[4096];\n.reg .pred %p;\n.reg .u32 %y;\nst.local.u32 [buf], x;\nsetp.eq.u32 %p, x, 0;\n@%p bra DONE;\nsub.u32 %y, x, 1;\ncall (r), deep, (%y);\nDONE:\nld.local.u32 r, [buf];\nret;\n}";
    let src = kernel("mov.u32 %b, 100;\ncall (%a), deep, (%b);", deep);
    let mut dev = Device::with_limits(Limits { local_bytes_per_thread: 64 * 1024, ..Limits::default() });
    let m = dev.load(&src).unwrap();
    let p = dev.alloc(32 * 4).unwrap();
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(p)]).unwrap_err();
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    assert!(e.message.contains("65536") && e.message.contains("`deep`"), "{e}");
    assert!(e.line.is_some(), "the error is located: {e}");

    // The same recursion fits in the default 512 KB. Each frame reloads its
    // own `buf` after the inner call returns, so the outermost call returns
    // its own argument, 100: the 101 frames' local buffers do not overlap.
    let mut dev = Device::new();
    let m = dev.load(&src).unwrap();
    let p = dev.alloc(32 * 4).unwrap();
    dev.launch(&m, "k", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(p)]).unwrap();
    let b = dev.read(p, 32 * 4).unwrap();
    assert!(b.chunks_exact(4).all(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) == 100), "{b:?}");
}

#[test]
fn exit_in_one_arm_does_not_move_the_join_past_a_barrier() {
    // Threads with t % 4 == 0 take ELSE, where those below 16 exit; the rest
    // of ELSE and all of THEN meet at JOIN and then at bar.sync, which the
    // exited threads release (PTX ISA 9.7.12.7 exit). The branch's immediate
    // post-dominator is the virtual exit (the exit path skips JOIN), so a
    // SIMT stack that reconverged there would let THEN's threads reach the
    // barrier alone and wait forever for ELSE's, which sit below them on the
    // stack: a deadlock ptxas's SSY at JOIN does not have.
    let body = "and.b32 %b, %t, 3;\nsetp.eq.u32 %p, %b, 0;\n@%p bra ELSE;\nadd.u32 %a, %t, 100;\nbra JOIN;\nELSE:\nsetp.lt.u32 %q, %t, 16;\n@%q exit;\nmov.u32 %a, 7;\nJOIN:\nbar.sync 0;\nadd.u32 %a, %a, 1;";
    let src = kernel(body, "");
    let expect: Vec<u32> = (0..64u32).map(|t| if t % 4 != 0 { t + 101 } else if t < 16 { 0 } else { 8 }).collect();
    for mode in MODES {
        assert_eq!(run(&src, "k", 1, 64, 64, &[], mode).unwrap(), expect, "{mode:?}");
    }
}
