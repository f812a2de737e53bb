//! `cvt.rzi.u64.f64` and `cvt.rzi.u64.f32` over the whole `.u64` range (PTX
//! ISA 9.7.9.21 cvt: float-to-integer conversions saturate to the
//! destination's range): values between 1.8e19 and 2^64 convert to
//! themselves, 2^64 and above to 2^64 - 1, negative ones to 0. The
//! expected values are Rust's saturating `as u64` of the same doubles.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

const SRC: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<8>;
    .reg .f64 %fd<2>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.f64 %fd1, [%rd4];
    cvt.rzi.u64.f64 %rd5, %fd1;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd6, %rd2, %rd3;
    st.global.u64 [%rd6], %rd5;
    cvt.rn.f32.f64 %f1, %fd1;
    cvt.rzi.u64.f32 %rd5, %f1;
    st.global.u64 [%rd6+8], %rd5;
    ret;
}
"#;

#[test]
fn float_to_u64_saturates_at_2_to_the_64() {
    let xs: [f64; 8] = [1.8e19, 1.84e19, 18_446_744_073_709_549_568.0, 18_446_744_073_709_551_616.0, 1e30, 9.3e18, -5.0, 1.7999999999999998e19];
    let mut dev = Device::new();
    let m = dev.load(SRC).unwrap();
    let pin = dev.alloc(8 * xs.len() as u64).unwrap();
    dev.write(pin, &xs.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let pout = dev.alloc(16 * xs.len() as u64).unwrap();
    dev.launch(&m, "k", &LaunchConfig::new(1, xs.len() as u32), &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap();
    let out = dev.read(pout, 16 * xs.len() as u64).unwrap();
    for (i, x) in xs.iter().enumerate() {
        let w = |k: usize| u64::from_le_bytes(out[8 * k..8 * k + 8].try_into().unwrap());
        assert_eq!(w(2 * i), *x as u64, "cvt.rzi.u64.f64 of {x:e}");
        assert_eq!(w(2 * i + 1), (*x as f32) as u64, "cvt.rzi.u64.f32 of {:e}", *x as f32);
    }
}
