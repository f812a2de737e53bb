//! Loops the tier runs lane by lane in stack mode (`region.rs`): kernels
//! of each qualifying shape, run with the tier forced on and off in both
//! scheduling modes (and with the quick code generator in stack mode),
//! give the same buffers, statistics (warp and thread
//! instructions, divergent branches) and, for a sweep of fuel budgets
//! that end inside the loops, the same fuel-exhaustion trap. Each kernel
//! must have a lane-by-lane loop, or the test says so.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach_as, Mode, Quality};

const HEAD: &str = ".version 7.0\n.target sm_70\n.address_size 64\n";

/// Two exits to one label and an unguarded back edge; a guarded float
/// add, a 64-bit register, a predicate written and read in the loop.
const TWO_EXITS: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>; .reg .f32 %f<4>;
 ld.param.u64 %rd1, [pout];
 ld.param.u32 %r9, [n];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd1, %rd1, %rd2;
 mov.u32 %r2, 0;
 mov.u32 %r4, 0;
 mov.u64 %rd3, 1;
 cvt.rn.f32.u32 %f1, %r1;
 mov.f32 %f2, 0f3F800000;
 setp.lt.u32 %p3, %r1, 7;
L:
 add.u32 %r2, %r2, 1;
 add.s64 %rd3, %rd3, %rd3;
 @%p3 add.f32 %f2, %f2, %f1;
 and.b32 %r3, %r2, 3;
 setp.eq.u32 %p1, %r3, 0;
 @%p1 xor.b32 %r4, %r4, %r2;
 setp.ge.u32 %p2, %r2, %r1;
 @%p2 bra DONE;
 mul.lo.u32 %r5, %r2, %r2;
 setp.gt.u32 %p1, %r5, %r9;
 @%p1 bra DONE;
 bra L;
DONE:
 add.u32 %r2, %r2, %r4;
 st.global.u32 [%rd1], %r2;
 st.global.f32 [%rd1+4], %f2;
 st.global.u64 [%rd1+8], %rd3;
 ret;
}
";

/// The loop inside a divergent `if` whose reconvergence point is the
/// loop's exit (the group that runs the loop stops there); the back
/// edge is guarded and falls through to the exit.
const IN_IF: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>; .reg .f32 %f<6>;
 ld.param.u64 %rd1, [pout];
 ld.param.u32 %r9, [n];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd1, %rd1, %rd2;
 mov.u32 %r2, 0;
 cvt.rn.f32.u32 %f1, %r1;
 mul.f32 %f1, %f1, 0f3DCCCCCD;
 mov.f32 %f2, 0f00000000;
 setp.lt.u32 %p0, %r1, 20;
 @%p0 bra DONE;
L:
 fma.rn.f32 %f3, %f2, %f2, %f1;
 sub.f32 %f2, %f3, %f1;
 add.f32 %f2, %f2, 0f3F000000;
 setp.gtu.f32 %p1, %f2, 0f41200000;
 @%p1 bra DONE;
 add.u32 %r2, %r2, 1;
 setp.lt.u32 %p2, %r2, %r9;
 @%p2 bra L;
DONE:
 st.global.u32 [%rd1], %r2;
 st.global.f32 [%rd1+4], %f2;
 ret;
}
";

/// One block, the shape nvcc gives a counted loop: a data-dependent trip
/// count, the exit the back edge's fall-through.
const DO_WHILE: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<6>;
 ld.param.u64 %rd1, [pout];
 ld.param.u32 %r9, [n];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd1, %rd1, %rd2;
 mov.u32 %r2, 0;
 mov.u32 %r3, 17;
 rem.u32 %r8, %r1, 13;
L:
 mad.lo.s32 %r3, %r3, 1103515245, 12345;
 shr.u32 %r4, %r3, 16;
 add.u32 %r2, %r2, 1;
 setp.le.u32 %p1, %r2, %r8;
 @%p1 bra L;
 st.global.u32 [%rd1], %r2;
 st.global.u32 [%rd1+4], %r3;
 st.global.u32 [%rd1+8], %r4;
 ret;
}
";

#[derive(Debug, PartialEq)]
enum Outcome {
    Done(Vec<u8>, (u64, u64, u64)),
    Trap(String),
}

fn run(src: &str, sched: Scheduling, (mode, q): (Mode, Quality), fuel: u64) -> (Outcome, usize) {
    let threads = 64u32;
    let mut dev = Device::new();
    let mut m = dev.load(&format!("{HEAD}{src}")).unwrap();
    let t = attach_as(&mut m, mode, q);
    let loops = t.map_or(0, |t| t.report().iter().filter_map(|r| r.1.as_ref().and_then(|c| c.as_ref().ok()).map(|c| c.lane_loops)).sum());
    let bytes = 16 * threads as u64 * 2;
    let o = dev.alloc(bytes).unwrap();
    let mut cfg = LaunchConfig::new(Dim3::new(2, 1, 1), Dim3::new(threads, 1, 1));
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    let r = match dev.launch(&m, "k", &cfg, &[KernelArg::U64(o), KernelArg::U32(300)]) {
        Ok(s) => Outcome::Done(dev.read(o, bytes).unwrap(), (s.warp_instructions, s.thread_instructions, s.divergent_branches)),
        Err(e) => Outcome::Trap(format!("{:?} {} line {:?} cta {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.cta, e.warp, e.lane)),
    };
    (r, loops)
}

fn same_on_and_off(name: &str, src: &str) {
    for (sched, q) in [(Scheduling::Stack, Quality::Full), (Scheduling::Its, Quality::Full), (Scheduling::Stack, Quality::Quick)] {
        let (off, _) = run(src, sched, (Mode::Off, q), u64::MAX / 4);
        let (on, loops) = run(src, sched, (Mode::On, q), u64::MAX / 4);
        assert!(loops >= 1, "{name}: no lane-by-lane loop");
        let Outcome::Done(_, (w, _, d)) = off else { panic!("{name} {sched:?}: {off:?}") };
        assert!(d > 0, "{name}: the loop does not diverge");
        assert_eq!(off, on, "{name} {sched:?} {q:?}");
        // Budgets that end before, inside and after the loops.
        let step = (w / 97).max(1);
        let mut fuel = 1;
        while fuel <= w + 1 {
            let (a, _) = run(src, sched, (Mode::Off, q), fuel);
            let (b, _) = run(src, sched, (Mode::On, q), fuel);
            assert_eq!(a, b, "{name} {sched:?} {q:?} fuel {fuel}");
            fuel += step;
        }
    }
}

#[test]
fn two_exits_and_an_unguarded_back_edge() {
    same_on_and_off("two exits", TWO_EXITS);
}

#[test]
fn a_loop_inside_a_divergent_if() {
    same_on_and_off("in an if", IN_IF);
}

#[test]
fn a_one_block_counted_loop() {
    same_on_and_off("do-while", DO_WHILE);
}

/// More registers than two chunks side by side keep (ten 64-bit ones and
/// a 32-bit one: 21 vectors, over `PAIR_VECTORS`): the loop runs one
/// chunk at a time.
const MANY_REGS: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<16>;
 ld.param.u64 %rd1, [pout];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd1, %rd1, %rd2;
 cvt.u64.u32 %rd3, %r1;
 add.s64 %rd3, %rd3, 9;
 mov.u64 %rd4, 3; mov.u64 %rd5, 5; mov.u64 %rd6, 7; mov.u64 %rd7, 11;
 mov.u64 %rd8, 13; mov.u64 %rd9, 17;
 mov.u64 %rd10, 19; mov.u64 %rd11, 23; mov.u64 %rd12, 29;
 mov.u32 %r2, 0;
L:
 add.s64 %rd4, %rd4, %rd3;
 xor.b64 %rd5, %rd5, %rd4;
 mul.lo.s64 %rd6, %rd6, %rd5;
 add.s64 %rd7, %rd7, %rd6;
 sub.s64 %rd8, %rd8, %rd7;
 and.b64 %rd9, %rd9, %rd8;
 add.s64 %rd9, %rd9, %rd4;
 add.s64 %rd10, %rd10, %rd9;
 xor.b64 %rd11, %rd11, %rd10;
 sub.s64 %rd12, %rd12, %rd11;
 add.u32 %r2, %r2, 1;
 setp.lt.u64 %p1, %rd4, 400;
 @%p1 bra L;
 xor.b64 %rd9, %rd9, %rd6;
 add.s64 %rd9, %rd9, %rd8;
 xor.b64 %rd9, %rd9, %rd12;
 st.global.u64 [%rd1], %rd9;
 st.global.u32 [%rd1+8], %r2;
 ret;
}
";

#[test]
fn a_loop_with_many_64_bit_registers() {
    same_on_and_off("many registers", MANY_REGS);
}

/// A predicate written twice in one iteration (the exit reads the first
/// write; a `selp` the second), as the engine fuzzer writes loops.
const PRED_TWICE: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %pp; .reg .b32 %r<10>; .reg .b64 %rd<6>;
 ld.param.u64 %rd1, [pout];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd1, %rd1, %rd2;
 mul.lo.u32 %r2, %r1, 9;
 add.u32 %r2, %r2, 57;
 mul.lo.u32 %r5, %r1, 2;
 add.u32 %r5, %r5, 57;
 and.b32 %r3, %r2, 7;
L:
 setp.eq.u32 %pp, %r3, 0;
 @%pp bra DONE;
 sub.u32 %r3, %r3, 1;
 setp.lt.u32 %pp, %r5, 7;
 selp.u32 %r2, %r5, 7, %pp;
 bra L;
DONE:
 st.global.u32 [%rd1], %r2;
 st.global.u32 [%rd1+4], %r3;
 ret;
}
";

#[test]
fn a_predicate_written_twice_in_an_iteration() {
    same_on_and_off("predicate twice", PRED_TWICE);
}

/// An inner lane-by-lane loop nested in an outer loop that has an early
/// `exit` (the engine fuzzer's shape): the inner loop is entered afresh
/// on every outer iteration, by a part of the warp.
const NESTED: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %pp; .reg .b32 %r<16>; .reg .b64 %rd<6>;
 ld.param.u64 %rd1, [pout];
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd1, %rd1, %rd2;
 mul.lo.u32 %r2, %r1, 9;
 add.u32 %r2, %r2, 57;
 mul.lo.u32 %r3, %r1, 12;
 add.u32 %r3, %r3, 77;
 mul.lo.u32 %r4, %r1, 11;
 add.u32 %r4, %r4, 77;
 mul.lo.u32 %r5, %r1, 2;
 add.u32 %r5, %r5, 57;
 and.b32 %r10, %r4, 7;
L1:
 setp.eq.u32 %pp, %r10, 0;
 @%pp bra DONE1;
 sub.u32 %r10, %r10, 1;
 and.b32 %r11, %r2, 7;
L2:
 setp.eq.u32 %pp, %r11, 0;
 @%pp bra DONE2;
 sub.u32 %r11, %r11, 1;
 setp.lt.u32 %pp, %r5, 7;
 selp.u32 %r2, %r5, 7, %pp;
 bra L2;
DONE2:
 mul.lo.u32 %r6, %r3, 14;
 and.b32 %r12, %r3, 15;
 setp.eq.u32 %pp, %r12, 14;
 @%pp exit;
 bra L1;
DONE1:
 add.u32 %r7, %r6, %r2;
 add.u32 %r7, %r7, %r10;
 add.u32 %r7, %r7, %r11;
 st.global.u32 [%rd1], %r7;
 ret;
}
";

#[test]
fn an_inner_loop_of_an_outer_loop_with_an_exit() {
    same_on_and_off("nested", NESTED);
}

/// Lane t runs `n * t + 1` iterations and keeps its last iteration's count
/// in `%r4`, which every iteration writes before reading: dead at the
/// loop's head, live at its exit. When a compiled run stops inside the
/// loop (its turn's fuel slice spent, or the loop's iteration cap) with
/// some lanes gone to the exit and others still iterating, those that left
/// must keep their `%r4` (a run once copied back only the registers live
/// at the head, and such lanes stored the value from before the loop).
const SPLIT_LIVE: &str = "
.visible .entry k(.param .u64 pout, .param .u32 n)
{
 .reg .pred %p1; .reg .b32 %r<8>; .reg .b64 %rd<4>;
 ld.param.u64 %rd1, [pout];
 ld.param.u32 %r6, [n];
 mov.u32 %r1, %tid.x;
 mad.lo.u32 %r5, %r1, %r6, 1;
 mov.u32 %r3, 0;
 mov.u32 %r4, 99;
L:
 add.u32 %r3, %r3, 1;
 mov.u32 %r4, %r3;
 setp.lt.u32 %p1, %r3, %r5;
 @%p1 bra L;
 mul.wide.u32 %rd2, %r1, 16;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r4;
 ret;
}
";

#[test]
fn lanes_that_left_a_split_loop_keep_registers_dead_at_its_head() {
    // Each thread's word: its trip count, 300 * tid + 1 (the `n` that
    // `run` passes is 300), from the PTX alone (both CTAs store the same
    // words at the same place).
    let check = |what: &str, out: &Outcome| {
        let Outcome::Done(b, _) = out else { panic!("{what}: {out:?}") };
        for t in 0..64usize {
            let i = t * 16;
            let got = u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
            assert_eq!(got, 300 * t as u32 + 1, "{what}: thread {t}");
        }
    };
    for (sched, q) in [(Scheduling::Stack, Quality::Full), (Scheduling::Its, Quality::Full), (Scheduling::Stack, Quality::Quick)] {
        let (off, _) = run(SPLIT_LIVE, sched, (Mode::Off, q), u64::MAX / 4);
        let (on, loops) = run(SPLIT_LIVE, sched, (Mode::On, q), u64::MAX / 4);
        assert!(loops >= 1, "no lane-by-lane loop");
        check(&format!("{sched:?} {q:?} off"), &off);
        check(&format!("{sched:?} {q:?} on"), &on);
        // Budgets above what the launch needs, whose turns' slices end
        // inside the loop at many points.
        let Outcome::Done(_, (w, _, _)) = off else { unreachable!() };
        for k in [1, 2, 3, 5, 8] {
            let fuel = w + w * k / 7 + k;
            let (b, _) = run(SPLIT_LIVE, sched, (Mode::On, q), fuel);
            check(&format!("{sched:?} {q:?} on, fuel {fuel}"), &b);
        }
    }
}
