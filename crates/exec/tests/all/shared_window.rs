//! A `.shared` / `.shared::cta` address is an offset into the executing
//! CTA's own shared memory (PTX ISA 5.1.6: the `.shared::cta` window holds
//! this CTA's variables only). Nothing past this CTA's shared memory is
//! addressable through it, whatever the address's high bits: only a
//! `.shared::cluster` address (or a generic one from `mapa`/`cvta`) may name
//! another CTA of the cluster. Each access past the window traps
//! `out_of_bounds` at its line; the same offsets inside the window read and
//! write the CTA's own bytes.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, TrapKind};

/// A kernel (`.target` `target`) with 16 bytes of shared memory: `buf[0]`
/// is set to 7, then `op` runs with `%r1` = the kernel's argument and its
/// `%r2` is stored to `out`.
fn kernel(target: &str, op: &str) -> String {
    format!(
        ".version 8.0\n.target {target}\n.address_size 64\n\
.visible .entry k(.param .u64 out, .param .u32 a)\n{{\n\
\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<3>;\n\t.shared .align 4 .b8 buf[16];\n\
\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [a];\n\
\tmov.u32 %r3, 7;\n\tst.shared.u32 [buf], %r3;\n\tmov.u32 %r2, 0;\n\
\t{op}\n\
\tst.global.u32 [%rd1], %r2;\n\tret;\n}}\n"
    )
}

fn launch(src: &str, a: u32, cluster: Option<u32>) -> Result<u32, ptxsim_exec::RunError> {
    let mut dev = Device::new();
    let m = dev.load_named("k.ptx", src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let out = dev.alloc(4).unwrap();
    let n = cluster.unwrap_or(1);
    let mut cfg = LaunchConfig::new(n, 1u32);
    cfg.cluster = cluster.map(|c| Dim3::new(c, 1, 1));
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out), KernelArg::U32(a)])?;
    let b = dev.read(out, 4).unwrap();
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The address of the report, 0x01000000, and others past the
/// window, through every `.shared::cta` spelling and access kind.
#[test]
fn cta_addresses_past_the_window_trap() {
    let ops = [
        ("sm_70", "ld.shared.u32 %r2, [%r1];"),
        ("sm_70", "st.shared.u32 [%r1], %r3;"),
        ("sm_70", "atom.shared.add.u32 %r2, [%r1], 1;"),
        ("sm_70", "ld.shared.v2.u32 {%r2, %r3}, [%r1];"),
        ("sm_90", "ld.shared::cta.u32 %r2, [%r1];"),
        ("sm_90", "st.shared::cta.u32 [%r1], %r3;"),
        ("sm_90", "red.shared::cta.add.u32 [%r1], 1;"),
    ];
    for (target, op) in ops {
        let src = kernel(target, op);
        for a in [0x0100_0000u32, 0x0200_0000, 0x0100_0008, 16, 0xffff_fff0] {
            for cluster in [None, Some(2)] {
                if target == "sm_70" && cluster.is_some() {
                    continue;
                }
                let e = launch(&src, a, cluster).expect_err(&format!("`{op}` at {a:#x} (cluster {cluster:?}) must trap"));
                assert_eq!(e.kind, TrapKind::OutOfBounds, "`{op}` at {a:#x}: {e}");
                assert_eq!(e.line, Some(14), "`{op}` at {a:#x}: {e}");
            }
        }
    }
}

/// Inside the window the same instructions reach this CTA's own bytes.
#[test]
fn cta_addresses_inside_the_window_work() {
    assert_eq!(launch(&kernel("sm_70", "ld.shared.u32 %r2, [%r1];"), 0, None).unwrap(), 7);
    assert_eq!(launch(&kernel("sm_90", "ld.shared::cta.u32 %r2, [%r1];"), 0, Some(2)).unwrap(), 7);
    assert_eq!(launch(&kernel("sm_70", "atom.shared.add.u32 %r2, [%r1], 1;"), 0, None).unwrap(), 7);
    // `.shared::cluster` of this CTA's own rank-0 offset is the same byte.
    assert_eq!(launch(&kernel("sm_90", "ld.shared::cluster.u32 %r2, [%r1];"), 0, Some(2)).unwrap(), 7);
}
