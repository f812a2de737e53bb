//! Constant expressions (PTX ISA 4.5.5, 4.5.6) in instruction operands, in an
//! address offset and in `.global` initialisers reach the kernel with the
//! values the manual's rules give. ptxas 13.5 (`-arch=sm_90a`) accepts this
//! module and gives the initialisers the same bytes.

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const KERNEL: &str = r#".version 7.0
.target sm_70
.address_size 64
.visible .global .u64 g[4] = {1 + 2 * 3 == 7 ? 10 : 20, -5 % 2, (1 ? -1 : 0U) >> 1, (.u64)-1 >> 60};
.visible .global .f64 gf = 1.5 * 2.0;
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<16>;
    .reg .f64 %fd<2>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, 5 % 3;
    add.u32 %r2, %r1, (1 < 2) + (2 >= 1) * 2;
    mov.u32 %r3, 1 + 2 * 3 == 7 ? 10 : 20;
    cvt.u64.u32 %rd2, %r1;
    cvt.u64.u32 %rd3, %r2;
    cvt.u64.u32 %rd4, %r3;
    mov.u64 %rd5, -5 % 2;
    mov.u64 %rd6, -1U >> 1;
    mov.u64 %rd7, g;
    ld.global.u64 %rd8, [%rd7];
    ld.global.u64 %rd9, [%rd7 + (1 < 2) * 8];
    ld.global.u64 %rd10, [%rd7 + 16];
    ld.global.u64 %rd11, [%rd7 + 3 * 8 % 32];
    mov.u64 %rd12, gf;
    ld.global.u64 %rd13, [%rd12];
    mov.f64 %fd1, 1.5 * 2.0 - 0.5;
    mov.b64 %rd14, %fd1;
    st.global.v2.u64 [%rd1], {%rd2, %rd3};
    st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
    st.global.v2.u64 [%rd1+32], {%rd6, %rd8};
    st.global.v2.u64 [%rd1+48], {%rd9, %rd10};
    st.global.v2.u64 [%rd1+64], {%rd11, %rd13};
    st.global.u64 [%rd1+80], %rd14;
    ret;
}"#;

#[test]
fn constant_expressions_in_operands_and_initialisers() {
    let mut dev = Device::new();
    let m = dev.load(KERNEL).expect("load");
    let out = dev.alloc(8 * 11).expect("alloc");
    dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out)]).expect("launch");
    let b = dev.read(out, 8 * 11).expect("read");
    let w: Vec<u64> = b.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    let want: [(u64, &str); 11] = [
        (2, "5 % 3"),
        (5, "2 + (1 < 2) + (2 >= 1) * 2"),
        (10, "1 + 2 * 3 == 7 ? 10 : 20"),
        // `%` reads its operands as unsigned: 0xFFFF_FFFF_FFFF_FFFB % 2.
        (1, "-5 % 2"),
        // Right shift of an unsigned value is logical.
        (i64::MAX as u64, "-1U >> 1"),
        (10, "g[0] = 1 + 2 * 3 == 7 ? 10 : 20"),
        (1, "g[(1 < 2)] = -5 % 2"),
        // ?: keeps the chosen operand's type (ptxas 13.5), so the shift is arithmetic.
        (u64::MAX, "g[2] = (1 ? -1 : 0U) >> 1"),
        (15, "g[3] = (.u64)-1 >> 60"),
        (3.0f64.to_bits(), "gf = 1.5 * 2.0"),
        (2.5f64.to_bits(), "1.5 * 2.0 - 0.5"),
    ];
    for (k, (v, what)) in want.iter().enumerate() {
        assert_eq!(w[k], *v, "word {k}: {what}");
    }
}
