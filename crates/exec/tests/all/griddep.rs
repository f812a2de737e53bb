//! `griddepcontrol` (PTX ISA, parallel synchronization; 7.8, sm_90), which
//! nvcc emits for programmatic dependent launch
//! (`cudaGridDependencySynchronize`, `cudaTriggerProgrammaticLaunchCompletion`).
//! The manual: `.wait` waits until all prerequisite grids in flight have
//! completed and their memory operations are visible; `.launch_dependents`
//! lets dependent grids be scheduled early. Launches here run one after
//! another, each to completion, so the second launch must see all the
//! first one's stores after its `.wait`, and both instructions must let
//! every thread go on.

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const SRC: &str = r#".version 7.8
.target sm_90
.address_size 64
.visible .entry produce(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mul.lo.u32 %r2, %r1, 3;
    st.global.u32 [%rd3], %r2;
    griddepcontrol.launch_dependents;
    ret;
}
.visible .entry consume(.param .u64 p, .param .u64 q)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd4, [q];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd4, %rd4;
    mov.u32 %r1, %tid.x;
    griddepcontrol.wait;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    add.u32 %r3, %r2, 1;
    add.s64 %rd5, %rd4, %rd2;
    st.global.u32 [%rd5], %r3;
    ret;
}
"#;

#[test]
fn griddepcontrol_lets_threads_go_on_and_wait_sees_the_earlier_grid() {
    let mut dev = Device::new();
    let m = dev.load(SRC).expect("loads");
    let (p, q) = (dev.alloc(256).expect("alloc"), dev.alloc(256).expect("alloc"));
    let cfg = LaunchConfig::new(1u32, 64u32);
    dev.launch(&m, "produce", &cfg, &[KernelArg::Ptr(p)]).expect("produce runs");
    dev.launch(&m, "consume", &cfg, &[KernelArg::Ptr(p), KernelArg::Ptr(q)]).expect("consume runs");
    let got: Vec<u32> = dev.read(q, 256).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(got, (0..64u32).map(|t| 3 * t + 1).collect::<Vec<_>>());
}
