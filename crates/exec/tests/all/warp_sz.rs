//! The predefined identifier `WARP_SZ` (PTX ISA, "Predefined Identifiers":
//! the number of threads in a warp, 32), as an operand on its own and
//! inside constant expressions. NVVM emits `mov.u32 %r1, WARP_SZ;` for
//! Numba's `cuda.warpsize`. ptxas (CUDA 13, sm_75) accepts this kernel.

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const KERNEL: &str = r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, WARP_SZ;
    mov.u32 %r2, %laneid;
    add.u32 %r3, %r2, WARP_SZ-1;
    and.b32 %r4, %r3, WARP_SZ*2-1;
    mul.wide.u32 %rd2, %r2, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r1, %r4};
    ret;
}"#;

#[test]
fn warp_sz_is_32_alone_and_in_expressions() {
    let mut dev = Device::new();
    let m = dev.load(KERNEL).expect("load");
    let out = dev.alloc(8 * 32).expect("alloc");
    dev.launch(&m, "k", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(out)]).expect("launch");
    let b = dev.read(out, 8 * 32).expect("read");
    let w: Vec<u32> = b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    for lane in 0..32u32 {
        // WARP_SZ = 32; (lane + 31) & 63.
        assert_eq!(w[2 * lane as usize], 32, "lane {lane}: WARP_SZ");
        assert_eq!(w[2 * lane as usize + 1], (lane + 31) & 63, "lane {lane}: (laneid + WARP_SZ-1) & (WARP_SZ*2-1)");
    }
}
