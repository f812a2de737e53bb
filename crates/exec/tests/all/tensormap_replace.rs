//! `tensormap.replace` and `tensormap.cp_fenceproxy` (PTX ISA 9.7.9.28-29,
//! sm_90a) as Triton's device-side tensor descriptors use them: 128 bytes
//! of shared memory zeroed, every field replaced (rank as rank - 1, the
//! element type by the manual's code table, strides in bytes), the map
//! copied to global memory with the proxy fence, then a tile load through
//! it. The box must hold what the same tile load through a map encoded on
//! the host holds: the tensor's values, computed here, swizzled.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};

/// The kernel; `fields` are the `tensormap.replace` lines (the map at
/// `%r2`, shared), run by thread 0.
fn kernel(fields: &str) -> String {
    format!(
        r#".version 8.3
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 gmap, .param .u64 tensor, .param .u64 out, .param .u32 cx, .param .u32 cy)
{{
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    .reg .pred %p<3>;
    .shared .align 128 .b8 smap[128];
    .shared .align 1024 .b8 box[1024];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [gmap];
    ld.param.u64 %rd2, [tensor];
    ld.param.u64 %rd9, [out];
    ld.param.u32 %r10, [cx];
    ld.param.u32 %r11, [cy];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, smap;
    mov.u32 %r0, 0;
    // Warp 0 zeroes the 128 bytes.
    setp.lt.u32 %p1, %r1, 32;
    mul.lo.u32 %r3, %r1, 4;
    add.u32 %r4, %r2, %r3;
    @%p1 st.shared.b32 [%r4], %r0;
    bar.sync 0;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra $copy;
    mov.u32 %r12, 64;
    mov.u32 %r13, 8;
    mov.u32 %r14, 72;
    mov.u32 %r15, 100;
    mov.u32 %r16, 1;
    mov.u64 %rd3, 160;
{fields}
$copy:
    bar.sync 0;
    @!%p1 bra $load;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r2], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
$load:
    bar.sync 0;
    mov.u32 %r5, box;
    mov.u32 %r6, bar;
    @%p2 bra $wait;
    mbarrier.init.shared.b64 [%r6], 1;
    mbarrier.arrive.expect_tx.shared.b64 %rd4, [%r6], 1024;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r5], [%rd1, {{%r10, %r11}}], [%r6];
$wait:
    bar.sync 0;
$spin:
    mbarrier.try_wait.parity.shared.b64 %p0, [%r6], 0;
    @!%p0 bra $spin;
    mul.lo.u32 %r7, %r1, 8;
    add.u32 %r8, %r5, %r7;
    ld.shared.u64 %rd5, [%r8];
    mul.wide.u32 %rd6, %r1, 8;
    add.u64 %rd7, %rd9, %rd6;
    st.global.u64 [%rd7], %rd5;
    ret;
}}
"#
    )
}

/// Every field of a 2-D f16 map of 72 x 100 elements (pitch 160 bytes), a
/// box of 64 x 8, 128-byte swizzle, zero fill.
const FIELDS: &str = "    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r2], %rd2;
    tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r2], 1;
    tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r2], 0, %r12;
    tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r2], 1, %r13;
    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 0, %r14;
    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 1, %r15;
    tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r2], 0, %rd3;
    tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r2], 0, %r16;
    tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r2], 1, %r16;
    tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r2], 6;
    tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r2], 0;
    tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r2], 3;
    tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r2], 0;";

fn run(fields: &str, (cx, cy): (i32, i32)) -> Result<Vec<u16>, (TrapKind, String)> {
    let mut dev = Device::new();
    let src = kernel(fields);
    let m = dev.load(&src).map_err(|e| (TrapKind::LoadError, e.to_string()))?;
    let gmap = dev.alloc(128).expect("alloc");
    let g = dev.alloc(100 * 160).expect("alloc");
    let vals: Vec<u8> = (0..100 * 80u32).flat_map(|i| (i as u16).to_le_bytes()).collect();
    dev.write(g, &vals).expect("write");
    let out = dev.alloc(1024).expect("alloc");
    let args = [KernelArg::Ptr(gmap), KernelArg::Ptr(g), KernelArg::Ptr(out), KernelArg::S32(cx), KernelArg::S32(cy)];
    dev.launch(&m, "k", &LaunchConfig::new(1u32, 128u32), &args).map_err(|e| (e.kind, e.to_string()))?;
    Ok(dev.read(out, 1024).expect("read").chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
}

#[test]
fn a_map_built_in_shared_memory_loads_the_tile() {
    let got = run(FIELDS, (32, 96)).expect("runs");
    for r in 0..8usize {
        for c in 0..64usize {
            // Element (row 96 + r, column 32 + c) holds row * 80 + column,
            // or 0 past column 71 / row 99; the 128-byte swizzle moves
            // 16-byte chunk k of row r to chunk k ^ (r % 8).
            let (gr, gc) = (96 + r, 32 + c);
            let want = if gr < 100 && gc < 72 { (gr * 80 + gc) as u16 } else { 0 };
            let at = r * 128 + (((2 * c / 16) ^ (r % 8)) * 16) + (2 * c) % 16;
            assert_eq!(got[at / 2], want, "box ({r}, {c})");
        }
    }
}

#[test]
fn replacing_one_field_changes_the_copy() {
    // No swizzle (mode 0), and the NaN fill (mode 1): a dense box whose
    // out-of-bounds elements are the f16 NaN 0x7fff.
    let fields = FIELDS.replace("swizzle_mode.shared::cta.b1024.b32 [%r2], 3", "swizzle_mode.shared::cta.b1024.b32 [%r2], 0").replace("fill_mode.shared::cta.b1024.b32 [%r2], 0", "fill_mode.shared::cta.b1024.b32 [%r2], 1");
    let got = run(&fields, (40, 0)).expect("runs");
    assert_eq!(got[0], 40);
    assert_eq!(got[31], 71);
    assert_eq!(got[32], 0x7fff);
    assert_eq!(got[64 * 3 + 5], 3 * 80 + 45);
}

#[test]
fn bad_fields_are_located_traps_naming_them() {
    // An element-type code past the manual's table is caught by the
    // checker (ptxas takes 0-12 on sm_90a); a bad ordinal as well. A map
    // left incomplete is caught when the copy reads it.
    let no_dim = FIELDS.replace("    tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 1, %r15;\n", "");
    let e = run(&no_dim, (0, 0)).unwrap_err();
    assert_eq!(e.0, TrapKind::Trap, "{}", e.1);
    assert!(e.1.contains("globalDim"), "{}", e.1);
}
