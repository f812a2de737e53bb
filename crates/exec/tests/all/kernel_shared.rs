//! A kernel's static shared memory is what it uses, as ptxas allocates it:
//! the module-scope `.shared` variables it names or a function it may call
//! names (nvcc writes every kernel's `__shared__` arrays at module scope),
//! those functions' own, and its own; not the sum over the module's
//! kernels. The launch limit applies to that plus the dynamic bytes.

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const TWO_KERNELS: &str = r#".version 7.0
.target sm_80
.address_size 64
.shared .align 4 .b8 big[200000];
.shared .align 8 .b8 mid[1000];
.shared .align 16 .b8 small[100];
.func helper()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 5;
    st.shared.u32 [mid], %r1;
    ret;
}
.visible .entry k1(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    mov.u32 %r1, 7;
    st.shared.u32 [big+4], %r1;
    ld.shared.u32 %r2, [big+4];
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r2;
    ret;
}
.visible .entry k2(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    call helper, ();
    ld.shared.u32 %r1, [mid];
    mov.u32 %r2, small;
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r1;
    ret;
}"#;

#[test]
fn each_kernel_counts_the_shared_variables_it_reaches() {
    let mut dev = Device::new();
    let m = dev.load(TWO_KERNELS).expect("load");
    let bytes = |k: &str| m.program.functions.iter().find(|f| f.name == k).map(|f| f.shared_bytes).expect("kernel");
    assert_eq!(bytes("k1"), 200_000, "k1 names only `big`");
    // k2: `mid` through `helper` (8-aligned at 0, 1000 bytes), then
    // `small` 16-aligned: 1008 + 100.
    assert_eq!(bytes("k2"), 1108, "k2 names `small` and calls `helper`, which names `mid`");
    let out = dev.alloc(4).expect("alloc");
    // 200,000 + 40,000 > the 228 KiB limit (233,472); 1,108 + 40,000 is not.
    let mut cfg = LaunchConfig::new(1, 32);
    cfg.dynamic_shared_bytes = 40_000;
    dev.launch(&m, "k2", &cfg, &[KernelArg::Ptr(out)]).expect("k2 fits with 40,000 dynamic bytes");
    assert_eq!(dev.read(out, 4).expect("read"), 5u32.to_le_bytes());
    let e = dev.launch(&m, "k1", &cfg, &[KernelArg::Ptr(out)]).expect_err("k1 does not");
    assert!(e.message.contains("exceed the limit"), "{e:?}");
    cfg.dynamic_shared_bytes = 0;
    dev.launch(&m, "k1", &cfg, &[KernelArg::Ptr(out)]).expect("k1 alone");
    assert_eq!(dev.read(out, 4).expect("read"), 7u32.to_le_bytes());
}
