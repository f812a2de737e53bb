//! Divergent branches whose both sides compiled code runs itself in stack
//! mode (`Plan::sides`): an if/else and an if-then whose side leaves
//! compiled code at an instruction the tier does not compile (the
//! interpreter rebuilds the stack that divergence pushed); and sides that
//! leave at a nested divergence and at a load that traps in one lane. Each kernel is
//! checked against values computed here from the PTX's meaning, against
//! the interpreter (buffers, warp and thread instructions, divergent
//! branches) in both scheduling modes and both code generators, and for
//! every fuel budget that ends inside it (the same fuel-exhaustion trap);
//! and the compiled code must have run both sides, not handed the branch
//! back.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach_as, Mode, Quality};

/// Lanes with an even `%tid.x` take the branch to `EVEN` (the taken side
/// runs first); the odd lanes run the fall-through side. After the join,
/// lanes 0-4 run a side holding `activemask` (not compiled: the code
/// leaves inside the side), which reads the side's lanes. Every side is
/// long enough that the first block is an entry.
const KERNEL: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 pout)
{
 .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
 mov.u32 %r1, %tid.x;
 mul.lo.u32 %r2, %r1, 3;
 add.u32 %r3, %r1, 11;
 xor.b32 %r3, %r3, 5;
 mul.lo.u32 %r3, %r3, %r3;
 and.b32 %r3, %r3, 1023;
 add.u32 %r3, %r3, %r2;
 shl.b32 %r4, %r1, 2;
 and.b32 %r5, %r1, 1;
 setp.eq.u32 %p1, %r5, 0;
 @%p1 bra EVEN;
 add.u32 %r2, %r2, 100;
 xor.b32 %r2, %r2, 85;
 add.u32 %r4, %r4, %r2;
 mul.lo.u32 %r6, %r2, 5;
 add.u32 %r3, %r3, %r6;
 bra.uni JOIN;
EVEN:
 mul.lo.u32 %r2, %r2, 7;
 sub.u32 %r4, %r4, 1;
 mov.u32 %r6, 9;
 add.u32 %r3, %r3, %r6;
JOIN:
 add.u32 %r7, %r2, %r3;
 add.u32 %r7, %r7, %r4;
 setp.lt.u32 %p2, %r1, 5;
 @!%p2 bra SKIP;
 add.u32 %r7, %r7, 1;
 activemask.b32 %r8;
 add.u32 %r7, %r7, %r8;
SKIP:
 ld.param.u64 %rd1, [pout];
 mul.wide.u32 %rd2, %r1, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r7;
 ret;
}
";

/// What [`KERNEL`] stores for thread `t` of a 32-thread block, from the
/// PTX's meaning (stack mode: the lanes of the last side are lanes 0-4).
fn expected(t: u32) -> u32 {
    let mut r2 = t.wrapping_mul(3);
    let mut r3 = ((t + 11) ^ 5).wrapping_mul((t + 11) ^ 5) & 1023;
    r3 = r3.wrapping_add(r2);
    let mut r4 = t << 2;
    if t & 1 == 0 {
        r2 = r2.wrapping_mul(7);
        r4 = r4.wrapping_sub(1);
        r3 = r3.wrapping_add(9);
    } else {
        r2 = (r2 + 100) ^ 85;
        r4 = r4.wrapping_add(r2);
        r3 = r3.wrapping_add(r2.wrapping_mul(5));
    }
    let mut r7 = r2.wrapping_add(r3).wrapping_add(r4);
    if t < 5 {
        r7 = r7.wrapping_add(1).wrapping_add(0x1f);
    }
    r7
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Done { out: Vec<u32>, stats: (u64, u64, u64) },
    Trap(String),
}

/// Runs kernel `k` of `src` on one 32-thread block, with the output
/// buffer and then `extra` as arguments; with the tier on, also the warp
/// instructions its compiled code executed.
fn launch(src: &str, extra: &[KernelArg], (sched, jit, q): (Scheduling, Mode, Quality), fuel: u64) -> (Outcome, u64) {
    let mut dev = Device::new();
    let mut m = dev.load(src).unwrap();
    let tier = attach_as(&mut m, jit, q);
    let out = dev.alloc(4 * 32).unwrap();
    let mut cfg = LaunchConfig::new(Dim3::new(1, 1, 1), Dim3::new(32, 1, 1));
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    let args: Vec<KernelArg> = std::iter::once(KernelArg::Ptr(out)).chain(extra.iter().cloned()).collect();
    let o = match dev.launch(&m, "k", &cfg, &args) {
        Ok(s) => Outcome::Done {
            out: dev.read(out, 4 * 32).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(),
            stats: (s.warp_instructions, s.thread_instructions, s.divergent_branches),
        },
        Err(e) => Outcome::Trap(format!("{:?} {:?} line {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.warp, e.lane)),
    };
    let executed = tier.map_or(0, |t| t.report().iter().filter_map(|r| r.1.and_then(|c| c.ok())).map(|c| c.runs().1).sum());
    (o, executed)
}

/// Runs [`KERNEL`] (see [`launch`]).
fn run(sched: Scheduling, jit: Mode, q: Quality, fuel: u64) -> (Outcome, u64) {
    launch(KERNEL, &[], (sched, jit, q), fuel)
}

#[test]
fn both_sides_run_compiled_and_match_the_interpreter() {
    let want: Vec<u32> = (0..32).map(expected).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        for q in [Quality::Full, Quality::Quick] {
            let (off, _) = run(sched, Mode::Off, q, 1 << 20);
            let (on, executed) = run(sched, Mode::On, q, 1 << 20);
            let Outcome::Done { out, stats } = &off else { panic!("{sched:?}: the interpreter trapped: {off:?}") };
            if sched == Scheduling::Stack {
                assert_eq!(out, &want, "stack mode, interpreted");
                // Two divergent branches, each counted once.
                assert_eq!(stats.2, 2, "divergent branches");
                // The compiled code ran the 10 instructions before the
                // first branch, the branch, the taken side (4), the other
                // side (5 and its `bra.uni`), the join's 3 up to the
                // second branch, that branch, and the side's first
                // instruction, and left at `activemask`: no branch was
                // handed back (the rest, with its loads and stores, is
                // no entry).
                assert_eq!(executed, 10 + 1 + 4 + 6 + 3 + 1 + 1, "{q:?}: warp instructions the compiled code executed");
            }
            assert_eq!(on, off, "{sched:?} {q:?}: tier on against off");
        }
    }
}

#[test]
fn every_fuel_budget_ends_alike() {
    let (Outcome::Done { stats: (total, ..), .. }, _) = run(Scheduling::Stack, Mode::Off, Quality::Full, 1 << 20) else {
        panic!("the kernel runs")
    };
    for fuel in 1..=total {
        for q in [Quality::Full, Quality::Quick] {
            let (off, _) = run(Scheduling::Stack, Mode::Off, q, fuel);
            let (on, _) = run(Scheduling::Stack, Mode::On, q, fuel);
            assert_eq!(on, off, "fuel {fuel} {q:?}");
        }
    }
}

/// Lanes with `%tid.x % 4 != 0` take the branch to `OTHER` (run first),
/// where a load reads their own word of the output, or, in lane `bad`,
/// an address far out of bounds (a trap inside a side). The other lanes
/// diverge again inside their side (`%tid.x < 16`), and the code leaves
/// at `activemask` inside that inner side (two sides deep).
const NESTED: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 pout, .param .u32 bad)
{
 .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<6>;
 mov.u32 %r1, %tid.x;
 mul.lo.u32 %r2, %r1, 5;
 add.u32 %r2, %r2, 3;
 xor.b32 %r7, %r1, 9;
 and.b32 %r7, %r7, 0;
 add.u32 %r2, %r2, %r7;
 mov.u32 %r8, 4;
 add.u32 %r8, %r8, %r7;
 and.b32 %r5, %r1, 3;
 setp.ne.u32 %p1, %r5, 0;
 @%p1 bra OTHER;
 setp.lt.u32 %p2, %r1, 16;
 @%p2 bra LOW;
 add.u32 %r2, %r2, 7;
 activemask.b32 %r10;
 add.u32 %r2, %r2, %r10;
LOW:
 add.u32 %r2, %r2, 1;
 bra.uni JOIN;
OTHER:
 ld.param.u64 %rd1, [pout];
 ld.param.u32 %r9, [bad];
 mul.wide.u32 %rd2, %r1, 4;
 add.s64 %rd3, %rd1, %rd2;
 setp.eq.u32 %p3, %r1, %r9;
 selp.b64 %rd4, 1099511627776, 0, %p3;
 add.s64 %rd5, %rd3, %rd4;
 ld.global.u32 %r6, [%rd5];
 add.u32 %r2, %r2, %r6;
 add.u32 %r2, %r2, %r8;
JOIN:
 ld.param.u64 %rd1, [pout];
 mul.wide.u32 %rd2, %r1, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r2;
 ret;
}
";

/// Runs [`NESTED`] on one 32-thread block with lane `bad` loading out of
/// bounds (none when `bad` is 32 or more).
fn run_nested(sched: Scheduling, jit: Mode, q: Quality, bad: u32, fuel: u64) -> Outcome {
    launch(NESTED, &[KernelArg::U32(bad)], (sched, jit, q), fuel).0
}

#[test]
fn sides_leave_at_a_nested_divergence_and_at_a_trap_alike() {
    // Thread t stores 5t + 3, then: t % 4 != 0 adds its own (zero) word
    // and 4; otherwise t < 16 adds 1, the others 8 and the active mask
    // of the inner side (lanes 16, 20, 24, 28).
    let want: Vec<u32> = (0..32u32).map(|t| 5 * t + 3 + if t % 4 != 0 { 4 } else if t < 16 { 1 } else { 8 + 0x1111_0000 }).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        for q in [Quality::Full, Quality::Quick] {
            let off = run_nested(sched, Mode::Off, q, 99, 1 << 20);
            let on = run_nested(sched, Mode::On, q, 99, 1 << 20);
            let Outcome::Done { out, .. } = &off else { panic!("{sched:?}: {off:?}") };
            assert_eq!(out, &want, "{sched:?} interpreted");
            assert_eq!(on, off, "{sched:?} {q:?}");
            // Lane 13 (taken side) loads out of bounds: the same trap, in
            // the same lane and line, whichever runs the side.
            let off = run_nested(sched, Mode::Off, q, 13, 1 << 20);
            let on = run_nested(sched, Mode::On, q, 13, 1 << 20);
            let Outcome::Trap(t) = &off else { panic!("{sched:?}: lane 13 must trap: {off:?}") };
            assert!(t.contains("lane Some(13)"), "{t}");
            assert_eq!(on, off, "{sched:?} {q:?}: the trap");
            let Outcome::Done { stats: (total, ..), .. } = run_nested(sched, Mode::Off, q, 99, 1 << 20) else { unreachable!() };
            for fuel in 1..=total {
                assert_eq!(run_nested(sched, Mode::On, q, 99, fuel), run_nested(sched, Mode::Off, q, 99, fuel), "{sched:?} {q:?} fuel {fuel}");
            }
        }
    }
}
