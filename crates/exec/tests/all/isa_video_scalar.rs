//! The scalar video instructions (`tests/isa/video_scalar.ptx`), decoded
//! through their rows' grammar, against values worked out by hand from the
//! PTX ISA manual's pseudo-code (9.7.16.1: partSelectSignExtend,
//! optSaturate, optSecondaryOp, optMerge, and vmad's listing). Inputs
//! a = 0x80fd0703 (bytes 03 07 fd 80, halfwords 0x0703 0x80fd),
//! b = 0x7f050701 (bytes 01 07 05 7f, halfwords 0x0701 0x7f05), c = 100.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

#[test]
fn scalar_video_instructions_follow_the_manual() {
    let file = "video_scalar.ptx";
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(file)).unwrap();
    let want: [(u32, &str); 15] = [
        // 253 (unsigned byte 2) + 32517 (signed halfword 1)
        (0x8002, "vadd.s32.u32.s32.sat d, a.b2, b.h1"),
        // -32515 - 32517 = -65032, within s32
        (0xffff_01f8, "vsub.s32.s32.s32.sat d, a.h1, b.h1"),
        // |-128 - 127| = 255, fits the unsigned byte, merged into c's byte 1
        (0x0000_ff64, "vabsdiff.u32.s32.s32.sat d.b1, a.b3, b.b3, c"),
        // min(a, b) = a (negative as s32), + 100
        (0x80fd_0767, "vmin.s32.s32.s32.add"),
        // max(max(0x0703, 7), 100)
        (0x0703, "vmax.u32.u32.u32.max d, a.h0, b.b1, c"),
        // 7 << min(0x0701, 32) = 7 * 2^32, saturated to U32_MAX
        (0xffff_ffff, "vshl.u32.u32.u32.clamp.sat d, a.b1, b.h0"),
        // 7 << (7 & 31)
        (0x380, "vshl.u32.u32.u32.wrap d, a.b1, b.b1"),
        // a (signed) >> 1, arithmetic
        (0xc07e_8381, "vshr.s32.s32.u32.wrap d, a, b.b0"),
        // (-32515 * 127 + 100) >> 7 = -4129305 >> 7 = -32261
        (0xffff_81fb, "vmad.s32.s32.u32.shr7 d, a.h1, b.b3, c"),
        // -(3 * 7) + 100
        (79, "vmad.u32.u32.u32 d, -a.b0, b.b1, c"),
        // 3 * 1 + 100 + 1
        (104, "vmad.u32.u32.u32.po d, a.b0, b.b0, c"),
        // -3 (signed byte 0xfd) < 5
        (1, "vset.s32.u32.lt d, a.b2, b.b2"),
        // 253 >= 5: 1 merged into c's byte 3
        (0x0100_0064, "vset.u32.u32.ge d.b3, a.b2, b.b2, c"),
        // (a != b) + 100
        (101, "vset.u32.u32.ne.add"),
        // 3 + 5, an immediate b
        (8, "vadd.u32.u32.u32 d, a.b0, 5"),
    ];
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let module = dev.load_named(file, &text).unwrap();
        let pin = dev.alloc(12).unwrap();
        dev.write(pin, &[0x80fd_0703u32.to_le_bytes(), 0x7f05_0701u32.to_le_bytes(), 100u32.to_le_bytes()].concat()).unwrap();
        let pout = dev.alloc(60).unwrap();
        dev.write(pout, &[0xa5; 60]).unwrap();
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        dev.launch(&module, "video_scalar", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap();
        let out: Vec<u32> = dev.read(pout, 60).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for ((w, what), g) in want.iter().zip(&out) {
            assert_eq!(g, w, "{what} ({mode:?}): got {g:#010x}, want {w:#010x}");
        }
    }
}
