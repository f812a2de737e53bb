//! `setp.CmpOp.BoolOp` with an integer constant as its `c` operand
//! (`1`, `0`, `!0`, `!1`), which ptxas 12.9 accepts as a constant
//! predicate, nonzero being true (PTX ISA 9.7.3.x setp: `p = BoolOp(a CmpOp
//! b, c)`): each result is checked against the boolean the manual's
//! formula gives, computed here.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const SRC: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<9>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.and.u32 %p1, %r1, 3, 1;
    setp.lt.and.u32 %p2, %r1, 3, 0;
    setp.lt.or.u32 %p3, %r1, 3, 0;
    setp.lt.or.u32 %p4, %r1, 3, !0;
    setp.lt.xor.u32 %p5, %r1, 3, 1;
    setp.lt.and.u32 %p6|%p7, %r1, 3, !1;
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
    mul.wide.u32 %rd0, %r1, 4;
    add.s64 %rd1, %rd1, %rd0;
    st.global.u32 [%rd1], %r9;
    ret;
}
"#;

#[test]
fn an_integer_constant_c_is_a_constant_predicate() {
    let mut dev = Device::new();
    let m = dev.load(SRC).unwrap();
    let out = dev.alloc(4 * 8).unwrap();
    dev.launch(&m, "k", &LaunchConfig::new(1, 8), &[KernelArg::Ptr(out)]).unwrap();
    let got: Vec<u32> = dev.read(out, 32).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    for (t, &g) in got.iter().enumerate() {
        let lt = t < 3;
        // p = BoolOp(t < 3, c); with `p|q`, q = BoolOp(!(t < 3), c).
        let bits = [lt, false, lt, true, lt ^ true, false, false];
        let want: u32 = bits.iter().enumerate().map(|(k, &b)| (b as u32) << k).sum();
        assert_eq!(g, want, "thread {t}");
    }
}
