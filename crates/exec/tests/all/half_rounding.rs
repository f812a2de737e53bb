//! Half-precision results rounded once (PTX ISA 9.7.4.4 fma: "computes
//! the product of a and b to infinite precision and then adds c to this
//! product, again in infinite precision. The resulting value is then
//! rounded"; 9.7.9.21 cvt: `.rn` rounds to nearest even). Each input lies
//! next to a tie of the half format, where a rounding through f32 or f64
//! first lands on the tie and then rounds the wrong way; the expected bits
//! come from the exact values worked out in the comments of the kernel
//! (a differential probe with exact rational arithmetic found them).
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

const SRC: &str = r#"
.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pout)
{
 .reg .u64 %rd<4>; .reg .b16 %h<8>; .reg .b32 %r<8>; .reg .f32 %f<4>; .reg .f64 %fd<4>;
 ld.param.u64 %rd1, [pout];
 // [0] fma.rn.bf16 0x3f81*0x4040 + 0x807f : exact = 3.0234375 - 127*2^-133 (just below a bf16 tie) -> expect 0x4041
 mov.b16 %h1, 0x3f81; mov.b16 %h2, 0x4040; mov.b16 %h3, 0x807f;
 fma.rn.bf16 %h4, %h1, %h2, %h3; cvt.u32.u16 %r1, %h4; st.global.u32 [%rd1+0], %r1;
 // [1] fma.rn.relu.bf16 same operands -> expect 0x4041
 fma.rn.relu.bf16 %h4, %h1, %h2, %h3; cvt.u32.u16 %r1, %h4; st.global.u32 [%rd1+4], %r1;
 // [2] fma.rn.bf16x2, both lanes same operands -> expect 0x40414041
 mov.b32 %r2, 0x3f813f81; mov.b32 %r3, 0x40404040; mov.b32 %r4, 0x807f807f;
 fma.rn.bf16x2 %r5, %r2, %r3, %r4; st.global.u32 [%rd1+8], %r5;
 // [3] fma.rn.f16 0x3700*0xc2e4 + 0x0001 : exact = -1.50732421875 + 2^-24 (just above a f16 tie) -> expect 0xbe07
 mov.b16 %h1, 0x3700; mov.b16 %h2, 0xc2e4; mov.b16 %h3, 0x0001;
 fma.rn.f16 %h4, %h1, %h2, %h3; cvt.u32.u16 %r1, %h4; st.global.u32 [%rd1+12], %r1;
 // [4] fma.rn.f16x2 same operands in both lanes -> expect 0xbe07be07
 mov.b32 %r2, 0x37003700; mov.b32 %r3, 0xc2e4c2e4; mov.b32 %r4, 0x00010001;
 fma.rn.f16x2 %r5, %r2, %r3, %r4; st.global.u32 [%rd1+16], %r5;
 // [5] cvt.rn.f16.f64 0x401ffdffffc00000 (= 7.99609375 - 2^-20*ulp, just below a f16 tie) -> expect 0x47ff
 mov.b64 %fd1, 0x401ffdffffc00000;
 cvt.rn.f16.f64 %h4, %fd1; cvt.u32.u16 %r1, %h4; st.global.u32 [%rd1+20], %r1;
 // [6] cvt.rn.f16.f64 0x4042d20000400000 (just above a f16 tie) -> expect 0x50b5
 mov.b64 %fd1, 0x4042d20000400000;
 cvt.rn.f16.f64 %h4, %fd1; cvt.u32.u16 %r1, %h4; st.global.u32 [%rd1+24], %r1;
 ret;
}

"#;

#[test]
fn half_fma_and_f64_to_f16_round_once() {
    // [0] 3.0234375 (a bf16 tie between 0x4041 and 0x4042) minus 127 * 2^-133:
    // below the tie. [3] -(1.5 + 7.5 * 2^-10), a tie between 0xbe07 and
    // 0xbe08, plus 2^-24: toward zero. [5] 8 - 2^-9 (a tie between 0x47ff and
    // 0x4800) minus 2^-33: down. [6] 37.625 + 2^-6 (a tie between 0x50b4 and
    // 0x50b5) plus 2^-36: up.
    let want: [u32; 7] = [0x4041, 0x4041, 0x4041_4041, 0xbe07, 0xbe07_be07, 0x47ff, 0x50b5];
    for sched in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(SRC).unwrap();
        let out = dev.alloc(4 * want.len() as u64).unwrap();
        let mut cfg = LaunchConfig::new(1, 1);
        cfg.scheduling = sched;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).unwrap();
        let got: Vec<u32> = dev.read(out, 4 * want.len() as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "case [{k}] ({sched:?}): got {g:#x}, want {w:#x}");
        }
    }
}
