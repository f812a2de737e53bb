//! `cvt.frnd2{.relu}{.satfinite}` from `.f32` to `.f16x2`/`.bf16x2` and to
//! `.f16`/`.bf16` (PTX ISA, `cvt`): `.rn` rounds to nearest even, `.rz`
//! toward zero, `.satfinite` makes a result beyond the largest finite value
//! that value with its sign, `.relu` clamps a negative result to +0, NaN
//! gives the canonical NaN 0x7fff; in the pair forms `a` goes to the upper
//! half. Kernel: `tests/isa/cvt_half_modes.ptx`; the expected bits are
//! worked out by hand from the inputs' binary expansions (its comments).
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

#[test]
fn half_conversions_round_saturate_and_clamp_as_the_manual_says() {
    let file = "cvt_half_modes.ptx";
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let want: [(&str, u32); 13] = [
        // 1 + 3*2^-12: nearest f16 is 1 + 2^-10 (0x3c01), toward zero 1.0.
        ("cvt.rn.f16x2 of 1+3*2^-12, its negation", 0x3c01_bc01),
        ("cvt.rz.f16x2 of 1+3*2^-12, its negation", 0x3c00_bc00),
        // 70000 is beyond f16's 65504: toward zero that is 0x7bff; +inf stays.
        ("cvt.rz.f16x2 of 70000, +inf", 0x7bff_7c00),
        ("cvt.rn.satfinite.f16x2 of 70000, -70000", 0x7bff_fbff),
        ("cvt.rn.relu.satfinite.f16x2 of -70000, +inf", 0x0000_7bff),
        ("cvt.rz.relu.f16x2 of -(1+3*2^-12), NaN", 0x0000_7fff),
        // 1 + 3*2^-9 in bf16 (7 fraction bits): 0x3f81 nearest, 0x3f80 toward
        // zero; the largest f32 rounds to +inf nearest, 0x7f7f toward zero.
        ("cvt.rz.bf16x2 of 1+3*2^-9, max f32", 0x3f80_7f7f),
        ("cvt.rn.satfinite.bf16x2 of 1+3*2^-9, max f32", 0x3f81_7f7f),
        ("cvt.rn.bf16x2 of 1+3*2^-9, max f32", 0x3f81_7f80),
        ("cvt.rn.satfinite.f16 of 70000", 0x7bff),
        ("cvt.rn.relu.f16 of -(1+3*2^-12)", 0),
        ("cvt.rz.relu.bf16 of 1+3*2^-9", 0x3f80),
        ("cvt.rn.satfinite.bf16 of -inf", 0xff7f),
    ];
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let module = dev.load_named(file, &text).unwrap();
        let pout = dev.alloc(52).unwrap();
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        dev.launch(&module, "cvt_half_modes", &cfg, &[KernelArg::Ptr(pout)]).unwrap();
        let out: Vec<u32> = dev.read(pout, 52).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for ((name, w), got) in want.iter().zip(&out) {
            assert_eq!(got, w, "{name} ({mode:?}): got {got:#010x}, want {w:#010x}");
        }
    }
}
