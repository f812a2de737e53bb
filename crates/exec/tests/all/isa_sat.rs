//! `.sat` on floating-point results: the PTX ISA clamps to [0.0, 1.0] and
//! turns NaN into +0.0; the sign of a -0.0 result is not kept either (an
//! H100 gives +0.0 for `cvt.sat`, `add.sat`, `mul.sat`, `fma.sat`,
//! `sub.sat` and `cvt.rni.sat` of -0.0, as CUDA's `__saturatef` documents:
//! "clamp to [+0.0, 1.0]"). Kernel: `tests/isa/sat_zero.ptx`.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

#[test]
fn sat_of_negative_zero_is_positive_zero() {
    let file = "sat_zero.ptx";
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let module = dev.load_named(file, &text).unwrap();
        let input: Vec<u8> = [(-0.0f32).to_bits(), (-1e-30f32).to_bits(), f32::NAN.to_bits()].iter().flat_map(|w| w.to_le_bytes()).collect();
        let pin = dev.alloc(12).unwrap();
        dev.write(pin, &input).unwrap();
        let pout = dev.alloc(36).unwrap();
        dev.write(pout, &[0xa5; 36]).unwrap();
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        dev.launch(&module, "sat_zero", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap();
        let out: Vec<u32> = dev.read(pout, 36).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let names = ["cvt.sat.f32.f32", "add.sat.f32", "mul.sat.f32", "fma.rn.sat.f32", "sub.sat.f32", "cvt.rni.sat (-1e-30)", "cvt.sat (NaN)", "cvt.sat.f64.f64 (high word)", "add.sat.f16"];
        for (name, w) in names.iter().zip(&out) {
            assert_eq!(*w, 0, "{name} of -0.0 ({mode:?}): got {w:#010x}, want +0.0");
        }
    }
}
