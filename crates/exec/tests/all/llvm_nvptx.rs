//! Forms that LLVM's NVPTX backend emits (found by compiling LLVM 21's
//! `llvm/test/CodeGen/NVPTX` tests and comparing ptxsim with ptxas 12.9),
//! run on the engine with the values the PTX ISA manual gives them:
//!
//! - the fourth element of the `.v4 .u32` special registers (`%tid.w`,
//!   `%ntid.w`, `%ctaid.w`, `%nctaid.w`) is unused and reads zero (PTX ISA
//!   10, `%tid`: "the fourth element is unused and always returns zero");
//! - a call of a function declared by `.alias b, a;` runs `a`'s body (PTX
//!   ISA 11.6.1), in both engines' modes.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

fn words(dev: &Device, p: u64, n: usize) -> Vec<u32> {
    let b = dev.read(p, 4 * n as u64).expect("read");
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

const W: &str = r#".version 7.0
.target sm_50
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.w;
    mov.u32 %r2, %ntid.w;
    mov.u32 %r3, %ctaid.w;
    mov.u32 %r4, %nctaid.w;
    mov.u32 %r5, %tid.x;
    add.u32 %r1, %r1, %r2;
    add.u32 %r1, %r1, %r3;
    add.u32 %r1, %r1, %r4;
    add.u32 %r1, %r1, %r5;
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}"#;

#[test]
fn fourth_elements_of_special_registers_read_zero() {
    let mut dev = Device::new();
    let m = dev.load(W).expect("load");
    let out = dev.alloc(4 * 64).expect("alloc");
    let mut cfg = LaunchConfig::new(3, 64);
    cfg.threads = Some(1);
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
    // tid.w + ntid.w + ctaid.w + nctaid.w + tid.x = tid.x.
    assert_eq!(words(&dev, out, 64), (0..64).collect::<Vec<u32>>());
}

const ALIAS: &str = r#".version 6.4
.target sm_50
.address_size 64
.visible .func (.param .b32 func_retval0) twice(.param .b32 x);
.visible .func (.param .b32 func_retval0) double_it(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    shl.b32 %r2, %r1, 1;
    st.param.b32 [func_retval0], %r2;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    add.u32 %r1, %r1, 5;
    {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 retval0;
    call.uni (retval0), twice, (a0);
    ld.param.b32 %r2, [retval0];
    }
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.alias twice, double_it;"#;

#[test]
fn a_call_through_an_alias_runs_the_aliasee() {
    for scheduling in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(ALIAS).expect("load");
        let out = dev.alloc(4 * 32).expect("alloc");
        let mut cfg = LaunchConfig::new(1, 32);
        cfg.scheduling = scheduling;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("launch");
        assert_eq!(words(&dev, out, 32), (0..32).map(|t| 2 * (t + 5)).collect::<Vec<u32>>(), "{scheduling:?}");
    }
}
