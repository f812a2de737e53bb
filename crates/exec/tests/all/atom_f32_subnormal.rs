//! `atom.add.f32` and subnormals (PTX ISA 9.7.13.5 atom): "Current
//! implementation of `atom.add.f32` on global memory flushes subnormal
//! inputs and results to sign-preserving zero; whereas `atom.add.f32` on
//! shared memory supports subnormal inputs and results and doesn't flush
//! them to zero." The expected words below follow that sentence: the
//! smallest subnormals 1 and 2 (bit patterns) add to 3 in shared memory and
//! to +0 in global memory, and a subnormal sum of normal-free operands is
//! kept in shared memory only.

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const KERNEL: &str = r#".version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 g)
{
    .reg .f32 %f<6>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 s[2];
    ld.param.u64 %rd1, [g];
    cvta.to.global.u64 %rd1, %rd1;
    mov.b32 %r1, 1;
    st.shared.b32 [s], %r1;
    st.shared.b32 [s+4], 0x80000005;
    mov.b32 %f1, 2;
    atom.shared.add.f32 %f2, [s], %f1;
    atom.global.add.f32 %f3, [%rd1], %f1;
    mov.b32 %f4, 0x80000001;
    atom.shared.add.f32 %f5, [s+4], %f4;
    mov.u64 %rd2, s;
    cvta.shared.u64 %rd3, %rd2;
    atom.add.f32 %f5, [%rd3], %f1;
    ld.shared.b32 %r2, [s];
    st.global.b32 [%rd1+4], %r2;
    ld.shared.b32 %r3, [s+4];
    st.global.b32 [%rd1+8], %r3;
    ret;
}
"#;

#[test]
fn global_flushes_subnormals_and_shared_keeps_them() {
    let mut dev = Device::new();
    let m = dev.load(KERNEL).expect("loads");
    let g = dev.alloc(12).expect("alloc");
    // Global word 0 starts as the subnormal 1.
    dev.write(g, &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).expect("write");
    dev.launch(&m, "k", &LaunchConfig::new(1u32, 1u32), &[KernelArg::Ptr(g)]).expect("runs");
    let w: Vec<u32> = dev.read(g, 12).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // Global: flush(1) + flush(2) = +0.
    assert_eq!(w[0], 0, "global atom.add.f32 of two subnormals");
    // Shared, directly then through a generic address: 1 + 2 + 2 = 5.
    assert_eq!(w[1], 5, "shared atom.add.f32 keeps subnormals");
    // Shared: -5 + -1 (subnormals) = -6.
    assert_eq!(w[2], 0x8000_0006, "shared atom.add.f32 of negative subnormals");
}
