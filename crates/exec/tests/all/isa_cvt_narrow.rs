//! `cvt` between integer types without `.sat`, into registers wider than
//! the destination type. PTX ISA 9.4.1 ("Operand Size Exceeding
//! Instruction-Type Size") and the notes of `cvt`: the source is chopped to
//! its type's width and extended by its type, cut to the destination type,
//! and the result is sign-extended to the register's width for a signed
//! destination type, zero-extended otherwise. Kernel:
//! `tests/isa/cvt_narrow_signed.ptx`; the expected words follow from those
//! rules, written out by hand.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

#[test]
fn narrow_signed_results_are_sign_extended_in_their_registers() {
    let file = "cvt_narrow_signed.ptx";
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let want: [(&str, u32); 10] = [
        ("cvt.s8.s32 of 0x1ff", 0xffff_ffff),
        ("cvt.s8.s32 of 0x180", 0xffff_ff80),
        ("cvt.s16.s32 of 0x18000", 0xffff_8000),
        ("cvt.u8.s32 of -1", 0x0000_00ff),
        ("cvt.s8.u32 of 0x180", 0xffff_ff80),
        ("cvt.s8.s64 of 0x17f", 0x0000_007f),
        ("cvt.s8.s32 into a 16-bit register", 0x0000_ffff),
        ("cvt.s8.s16 into a 16-bit register", 0x0000_ff80),
        ("cvt.s16.u16 of 0x8001", 0xffff_8001),
        ("cvt.u16.s8 of 0x80", 0x0000_ff80),
    ];
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let module = dev.load_named(file, &text).unwrap();
        let pout = dev.alloc(40).unwrap();
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        dev.launch(&module, "cvt_narrow", &cfg, &[KernelArg::Ptr(pout)]).unwrap();
        let out: Vec<u32> = dev.read(pout, 40).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for ((name, w), got) in want.iter().zip(&out) {
            assert_eq!(got, w, "{name} ({mode:?}): got {got:#010x}, want {w:#010x}");
        }
    }
}
