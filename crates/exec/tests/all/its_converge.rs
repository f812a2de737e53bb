//! Independent thread scheduling and whole-warp `.sync.aligned`
//! instructions: the manual's `.sync` makes a thread wait until all threads
//! of the warp execute the same instruction. Here lane 0 of warp 0 spins
//! inside an `if` (on a flag warp 1 sets) while lanes 1..31 are rotated in,
//! go round the loop and reach the next `movmatrix.sync.aligned` first; they
//! must wait there for lane 0 rather than run it without it (the shape of
//! CUTLASS's producer lane waiting on an mbarrier between two `wgmma`s).
//! The same for `elect.sync` with a full membermask (the manual: the
//! executing thread waits until all non-exited threads of membermask
//! execute it). Expected values: the transpose and lane 0 elected, by
//! formula.

use crate::support::words::run_words;
use ptxsim_exec::Scheduling;

/// Warp 0, two rounds: `movmatrix.trans` of M[r][c] = 8r + c + 64i (lane l
/// holds row l/4, columns 2(l%4) and 2(l%4)+1), the result to
/// out[32i + l]; then lane 0 writes `started` = i+1 and spins until
/// `flag` = i+1. Warp 1 waits for `started` = i+1, counts to 200, and sets
/// `flag` = i+1.
const KERNEL: &str = r#".version 7.8
.target sm_75
.address_size 64
.shared .align 4 .u32 started;
.shared .align 4 .u32 flag;
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .pred %p<4>;
    .reg .b32 %r<20>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shr.u32 %r3, %r1, 5;
    mov.u32 %r4, 0;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra WARP1;
    shr.u32 %r5, %r2, 2;
    and.b32 %r6, %r2, 3;
    shl.b32 %r6, %r6, 1;
    mad.lo.u32 %r7, %r5, 8, %r6;
ROUND:
    mad.lo.u32 %r8, %r4, 64, %r7;
    add.u32 %r9, %r8, 1;
    shl.b32 %r9, %r9, 16;
    or.b32 %r10, %r8, %r9;
    movmatrix.sync.aligned.m8n8.trans.b16 %r11, %r10;
    mad.lo.u32 %r12, %r4, 32, %r2;
    mul.wide.u32 %rd2, %r12, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r11;
    add.u32 %r4, %r4, 1;
    setp.ne.u32 %p2, %r2, 0;
    @%p2 bra NEXT;
    st.volatile.shared.u32 [started], %r4;
SPIN:
    ld.volatile.shared.u32 %r13, [flag];
    setp.ne.u32 %p3, %r13, %r4;
    @%p3 bra SPIN;
NEXT:
    setp.lt.u32 %p2, %r4, 2;
    @%p2 bra ROUND;
    bra END;
WARP1:
    add.u32 %r4, %r4, 1;
WAIT:
    ld.volatile.shared.u32 %r13, [started];
    setp.ne.u32 %p3, %r13, %r4;
    @%p3 bra WAIT;
    mov.u32 %r14, 0;
COUNT:
    add.u32 %r14, %r14, 1;
    setp.lt.u32 %p3, %r14, 200;
    @%p3 bra COUNT;
    st.volatile.shared.u32 [flag], %r4;
    setp.lt.u32 %p2, %r4, 2;
    @%p2 bra WARP1;
END:
    ret;
}
"#;

/// `KERNEL` with its `movmatrix` replaced by `elect.sync` over the whole
/// warp: each lane stores the leader's lane id, plus 100 where elected.
fn elect_kernel() -> String {
    KERNEL.replace(".version 7.8\n.target sm_75", ".version 8.0\n.target sm_90").replace(
        "    movmatrix.sync.aligned.m8n8.trans.b16 %r11, %r10;\n",
        "    elect.sync %r11|%p3, 0xffffffff;\n    selp.u32 %r16, 100, 0, %p3;\n    add.u32 %r11, %r11, %r16;\n",
    )
}

#[test]
fn lanes_wait_at_elect_sync_for_a_spinning_lane() {
    let src = elect_kernel();
    assert!(src.contains("elect.sync"));
    // Lane 0, the lowest of the membermask, leads every round.
    let want: Vec<u32> = (0..64u32).map(|i| if i % 32 == 0 { 100 } else { 0 }).collect();
    for mode in [Scheduling::Its, Scheduling::Stack] {
        assert_eq!(run_words(&src, 64, &[0], 1, mode), want, "{mode:?}");
    }
}

#[test]
fn lanes_wait_at_an_aligned_instruction_for_a_spinning_lane() {
    let mut want = Vec::new();
    for i in 0..2u32 {
        for l in 0..32u32 {
            // Lane l of the transpose holds M[2(l%4)][l/4] and M[2(l%4)+1][l/4].
            let m = |r: u32, c: u32| 8 * r + c + 64 * i;
            want.push(m(2 * (l % 4), l / 4) | m(2 * (l % 4) + 1, l / 4) << 16);
        }
    }
    for mode in [Scheduling::Its, Scheduling::Stack] {
        assert_eq!(run_words(KERNEL, 64, &[0], 1, mode), want, "{mode:?}");
    }
}
