//! The SIMD video instructions with operand selectors and destination
//! masks (`tests/isa/video.ptx`), against values worked out by hand from
//! the PTX ISA manual's pseudo-code (9.7.16.2): elements taken from `b:a`
//! by the selectors and extended by each operand's type, `.sat` clamping to
//! the destination element's range, then merged into `c` under the mask or
//! added to `c` (`.add`). Inputs a = 0x80fd0703 (bytes 03 07 fd 80,
//! halfwords 0x0703 0x80fd), b = 0x7f050701 (bytes 01 07 05 7f).
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

#[test]
fn video_instructions_follow_the_manual() {
    let file = "video.ptx";
    let text = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(file)).unwrap();
    let want: [(u32, &str); 9] = [
        // h0: 0x0703 + 0x0701; h1 kept from c
        (0x80fd_0e04, "vadd2.s32.s32.s32.sat d.h0, a.h10, b.h32"),
        // c + |3-1| + |7-7| + |0xfd-5| + |0x80-0x7f| = c + 0xfb
        (0x80fd_07fe, "vabsdiff4.u32.u32.u32.add"),
        // a.h00 = (0x0703, 0x0703), b.h22 = (0x0701, 0x0701): c + 2 * 0x0701
        (0x80fd_1505, "vmin2.s32.u32.u32.add d.h10, a.h00, b.h22"),
        // signed a (3, 7, -3, -128) < unsigned b (1, 7, 5, 127)
        (0x0101_0000, "vset4.s32.u32.lt"),
        // bytes 0 and 2: 3 + 1, 0xfd + 5 clamped to 0xff; bytes 1 and 3 from c
        (0x80ff_0704, "vadd4.u32.u32.u32.sat d.b20"),
        // h0: 2; h1: -32515 - 32517 clamped to -32768
        (0x8000_0002, "vsub2.s32.s32.s32.sat"),
        // (x + y + 1) >> 1 per byte: 2, 7, 0x81, 0x80
        (0x8081_0702, "vavrg4.u32.u32.u32"),
        // a.b7654 takes b's bytes, b.b3210 a's: signed max (1,3) (7,7) (5,-3) (127,-128)
        (0x7f05_0703, "vmax4.s32.s32.s32 a.b7654, b.b3210"),
        // c = 100 plus one per unequal halfword (both)
        (102, "vset2.u32.u32.ne.add"),
    ];
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let module = dev.load_named(file, &text).unwrap();
        let pin = dev.alloc(8).unwrap();
        dev.write(pin, &[0x80fd_0703u32.to_le_bytes(), 0x7f05_0701u32.to_le_bytes()].concat()).unwrap();
        let pout = dev.alloc(36).unwrap();
        dev.write(pout, &[0xa5; 36]).unwrap();
        let mut cfg = LaunchConfig::new(1u32, 1u32);
        cfg.scheduling = mode;
        dev.launch(&module, "video", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).unwrap();
        let out: Vec<u32> = dev.read(pout, 36).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for ((w, what), g) in want.iter().zip(&out) {
            assert_eq!(g, w, "{what} ({mode:?}): got {g:#010x}, want {w:#010x}");
        }
    }
}
