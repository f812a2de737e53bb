//! `setp.CmpOp.BoolOp` with an integer constant as its `c` operand
//! (`1`, `0`, `!0`, `!1`), which ptxas 12.9 accepts as a constant
//! predicate, nonzero being true (PTX ISA 9.7.3.x setp: `p = BoolOp(a CmpOp
//! b, c)`): each result is checked against the boolean the manual's
//! formula gives, computed here.
use crate::support::words::{run_words, words_kernel};
use ptxsim_exec::Scheduling;

const BODY: &str = "
    .reg .pred %p<9>;
    setp.lt.and.u32 %p1, %r15, 3, 1;
    setp.lt.and.u32 %p2, %r15, 3, 0;
    setp.lt.or.u32 %p3, %r15, 3, 0;
    setp.lt.or.u32 %p4, %r15, 3, !0;
    setp.lt.xor.u32 %p5, %r15, 3, 1;
    setp.lt.and.u32 %p6|%p7, %r15, 3, !1;
    selp.u32 %r2, 1, 0, %p1;
    selp.u32 %r3, 2, 0, %p2;
    selp.u32 %r4, 4, 0, %p3;
    selp.u32 %r5, 8, 0, %p4;
    selp.u32 %r6, 16, 0, %p5;
    selp.u32 %r7, 32, 0, %p6;
    selp.u32 %r8, 64, 0, %p7;
    or.b32 %r9, %r2, %r3;
    or.b32 %r9, %r9, %r4;
    or.b32 %r9, %r9, %r5;
    or.b32 %r9, %r9, %r6;
    or.b32 %r9, %r9, %r7;
    or.b32 %r9, %r9, %r8;
    st.global.u32 [%rd5], %r9;
";

#[test]
fn an_integer_constant_c_is_a_constant_predicate() {
    let got = run_words(&words_kernel("7.8", "sm_70", 0, 1, BODY), 8, &[], 1, Scheduling::Stack);
    for (t, &g) in got.iter().enumerate() {
        let lt = t < 3;
        // p = BoolOp(t < 3, c); with `p|q`, q = BoolOp(!(t < 3), c).
        let bits = [lt, false, lt, true, lt ^ true, false, false];
        let want: u32 = bits.iter().enumerate().map(|(k, &b)| (b as u32) << k).sum();
        assert_eq!(g, want, "thread {t}");
    }
}
