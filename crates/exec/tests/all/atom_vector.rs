//! Vector atomics (PTX ISA 9.7.13.5 atom, 9.7.13.6 red; PTX 8.1, sm_90),
//! the form nvcc 13 emits for `atomicAdd(float2*, float2)` and
//! `atomicAdd(float4*, float4)`: `atom.global.add.v4.f32 {d0..d3}, [a],
//! {b0..b3}`. The manual: each element is an atomic operation of its own
//! on adjacent scalars in memory (the vector as a whole is not one atomic
//! access), `d` receives the old values, and vector atomics exist for
//! global memory only (generic addresses must point there).
//!
//! Expected values come from that text: with every thread adding an
//! integer-valued float (exact in f32), the final sums are the plain sums,
//! and the old values one thread sees for one element are the running
//! sums before its own addition, so over all threads they are the prefix
//! sums in some order.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling, TrapKind};

/// 64 threads: `atom.global.add.v4.f32` of (1, 2, 3, 4) on `acc[0..4]`,
/// old values to `out[4 * tid..]`; `red.global.add.v2.f32` of (tid, 1) on
/// `acc[4..6]`; `atom.global.add.noftz.v2.f16x2` of ({1, 2}, {3, 4}) on
/// `acc[6..8]` through a generic address.
const KERNEL: &str = r#".version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 acc, .param .u64 out)
{
    .reg .f32 %f<12>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [acc];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 16;
    add.s64 %rd6, %rd4, %rd5;
    mov.f32 %f1, 0f3F800000;
    mov.f32 %f2, 0f40000000;
    mov.f32 %f3, 0f40400000;
    mov.f32 %f4, 0f40800000;
    atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd3], {%f1, %f2, %f3, %f4};
    st.global.v4.f32 [%rd6], {%f5, %f6, %f7, %f8};
    cvt.rn.f32.u32 %f9, %r1;
    red.global.add.v2.f32 [%rd3+16], {%f9, %f1};
    mov.b32 %r2, 0x40003C00;
    mov.b32 %r3, 0x44004200;
    atom.add.noftz.v2.f16x2 {%r4, %r5}, [%rd1+24], {%r2, %r3};
    ret;
}
"#;

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn vector_atomics_add_each_element() {
    let threads = 64u32;
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(KERNEL).expect("loads");
        let acc = dev.alloc(32).expect("alloc");
        let out = dev.alloc(16 * threads as u64).expect("alloc");
        dev.write(acc, &[0u8; 32]).expect("write");
        let mut cfg = LaunchConfig::new(1u32, threads);
        cfg.scheduling = mode;
        dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(acc), KernelArg::Ptr(out)]).expect("runs");
        let a = dev.read(acc, 32).expect("read");
        let sums = f32s(&a[..24]);
        let n = threads as f32;
        assert_eq!(sums, vec![n, 2.0 * n, 3.0 * n, 4.0 * n, (0..threads).sum::<u32>() as f32, n], "{mode:?}");
        // f16x2 halves: 1.0 + 2.0 (0x3C00, 0x4000) and 3.0 + 4.0 (0x4200,
        // 0x4400), each added 64 times: 64, 128, 192, 256 in f16.
        let h: Vec<u16> = a[24..32].chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        let f16 = |v: f32| half_bits(v);
        assert_eq!(h, vec![f16(64.0), f16(128.0), f16(192.0), f16(256.0)], "{mode:?}");
        // Old values: for element k (adding k + 1), the 64 threads saw
        // 0, k + 1, 2(k + 1), ... in some order.
        let old = f32s(&dev.read(out, 16 * threads as u64).expect("read"));
        for k in 0..4 {
            let mut seen: Vec<u32> = (0..threads as usize).map(|t| old[4 * t + k] as u32).collect();
            seen.sort_unstable();
            let want: Vec<u32> = (0..threads).map(|i| i * (k as u32 + 1)).collect();
            assert_eq!(seen, want, "element {k} ({mode:?})");
        }
    }
}

/// The f16 bits of a small integer-valued `v` (exact in f16).
fn half_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    ((exp as u16) << 10) | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn vector_atomics_need_whole_vector_alignment_and_global_memory() {
    let run = |body: &str| {
        let src = format!(
            ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .f32 %f<9>;\n    .reg .b64 %rd<4>;\n    .shared .align 16 .b8 s[64];\n    ld.param.u64 %rd1, [p];\n{body}\n    ret;\n}}\n"
        );
        let mut dev = Device::new();
        let m = dev.load(&src).expect("loads");
        let p = dev.alloc(64).expect("alloc");
        dev.launch(&m, "k", &LaunchConfig::new(1u32, 32u32), &[KernelArg::Ptr(p)]).map(|_| ()).map_err(|e| (e.kind, e.to_string()))
    };
    // Aligned to 8 (one f32 pair) but not to the 16 bytes of a .v4.
    let e = run("    atom.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+8], {%f5, %f6, %f7, %f8};").expect_err("misaligned");
    assert_eq!(e.0, TrapKind::Misaligned, "{}", e.1);
    // A generic address of shared memory.
    let e = run("    mov.u64 %rd2, s;\n    cvta.shared.u64 %rd3, %rd2;\n    atom.add.v2.f32 {%f1, %f2}, [%rd3], {%f5, %f6};").expect_err("shared");
    assert_eq!(e.0, TrapKind::OutOfBounds, "{}", e.1);
    assert!(e.1.contains("not in global memory"), "{}", e.1);
    // The 8-byte-aligned .v2 is fine.
    run("    atom.global.add.v2.f32 {%f1, %f2}, [%rd1+8], {%f5, %f6};").expect("aligned v2");
}
