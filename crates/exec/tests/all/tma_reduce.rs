//! `cp.reduce.async.bulk.tensor` (PTX ISA 9.7.9.25.5.2, sm_90): a box of
//! shared memory reduced element-wise into the tensor in global memory
//! through a tensor map, in tile mode, completing through the bulk async
//! group. The element type is the tensor map's. Expected values are the
//! reductions computed here from the definitions of `atom` (PTX ISA
//! 9.7.13.4: `inc`: old >= b ? 0 : old + 1; `dec`: old == 0 || old > b ?
//! b : old - 1), over the in-bounds part of the box only: elements of the
//! box past the tensor's edge are not written.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};
use ptxsim_sem::swizzle::Swizzle;
use ptxsim_sem::tma::{DataType, Interleave, L2Promotion, Mode, OobFill, TensorMap};

/// The tensor: COLS x ROWS elements; the box: BOX_C x BOX_R at (X, Y),
/// reaching past the right and bottom edges.
const COLS: usize = 20;
const ROWS: usize = 6;
const BOX_C: usize = 16;
const BOX_R: usize = 4;
const X: usize = 8;
const Y: usize = 4;

fn kernel(op: &str, bytes: u32) -> String {
    let (reg, st) = if bytes == 8 { ("%rd6", "st.shared.u64") } else { ("%r6", "st.shared.u32") };
    let val = if bytes == 8 { "ld.global.u64 %rd6, [%rd4];" } else { "ld.global.u32 %r6, [%rd4];" };
    format!(
        r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 src)
{{
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    .reg .pred %p<3>;
    .shared .align 128 .b8 box[{box_bytes}];
    ld.param.u64 %rd1, [src];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, box;
    // Thread t puts element t of the box (from src) into shared memory.
    mul.wide.u32 %rd3, %r1, {bytes};
    add.u64 %rd4, %rd1, %rd3;
    {val}
    mul.lo.u32 %r4, %r1, {bytes};
    add.u32 %r5, %r2, %r4;
    {st} [%r5], {reg};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $done;
    mov.u32 %r7, {X};
    mov.u32 %r8, {Y};
    mov.u64 %rd9, tmap;
    cvta.param.u64 %rd9, %rd9;
    cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group [%rd9, {{%r7, %r8}}], [%r2];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
$done:
    ret;
}}
"#,
        box_bytes = BOX_C * BOX_R * bytes as usize,
    )
}

fn map(addr: u64, dtype: DataType, bytes: u64) -> TensorMap {
    TensorMap {
        mode: Mode::Tiled { box_dim: [BOX_C as u32, BOX_R as u32, 1, 1, 1] },
        dtype,
        rank: 2,
        addr,
        dims: [COLS as u64, ROWS as u64, 1, 1, 1],
        strides: [0, COLS as u64 * bytes, 0, 0, 0],
        elem_strides: [1, 1, 1, 1, 1],
        interleave: Interleave::None,
        swizzle: Swizzle::None,
        l2: L2Promotion::None,
        oob: OobFill::Zero,
    }
}

fn le(v: &[u64], bytes: usize) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()[..bytes].to_vec()).collect()
}

fn words(b: &[u8], bytes: usize) -> Vec<u64> {
    b.chunks_exact(bytes).map(|c| c.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64)).collect()
}

/// Runs the reduction `op` with a tensor map of `dtype` over `init` (the
/// tensor) and `boxv` (the box); returns the tensor afterwards.
fn run(op: &str, dtype: DataType, bytes: usize, init: &[u64], boxv: &[u64]) -> Result<Vec<u64>, (TrapKind, String)> {
    let mut dev = Device::new();
    let m = dev.load(&kernel(op, bytes as u32)).map_err(|e| (TrapKind::LoadError, e.to_string()))?;
    let g = dev.alloc((COLS * ROWS * bytes) as u64).expect("alloc");
    dev.write(g, &le(init, bytes)).expect("write");
    let src = dev.alloc((BOX_C * BOX_R * bytes) as u64).expect("alloc");
    dev.write(src, &le(boxv, bytes)).expect("write");
    let args = [KernelArg::Bytes(map(g, dtype, bytes as u64).to_bytes().to_vec()), KernelArg::Ptr(src)];
    dev.launch(&m, "k", &LaunchConfig::new(1u32, (BOX_C * BOX_R) as u32), &args).map_err(|e| (e.kind, e.to_string()))?;
    Ok(words(&dev.read(g, (COLS * ROWS * bytes) as u64).expect("read"), bytes))
}

/// Checks `got` against `f(old, box value)` on the box's in-bounds part and
/// `init` elsewhere.
fn check(what: &str, init: &[u64], boxv: &[u64], got: &[u64], f: impl Fn(u64, u64) -> u64) {
    for r in 0..ROWS {
        for c in 0..COLS {
            let i = r * COLS + c;
            let in_box = (X..X + BOX_C).contains(&c) && (Y..Y + BOX_R).contains(&r);
            let want = if in_box { f(init[i], boxv[(r - Y) * BOX_C + (c - X)]) } else { init[i] };
            assert_eq!(got[i], want, "{what}: element (row {r}, column {c})");
        }
    }
}

fn init(seed: u64, mask: u64) -> Vec<u64> {
    (0..(COLS * ROWS) as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed).rotate_left(17) & mask).collect()
}

fn boxv(seed: u64, mask: u64) -> Vec<u64> {
    (0..(BOX_C * BOX_R) as u64).map(|i| (i.wrapping_mul(0xD6E8_FEB8_6659_FD93) ^ seed).rotate_left(29) & mask).collect()
}

#[test]
fn integer_reductions_follow_the_atom_definitions() {
    const M32: u64 = 0xffff_ffff;
    let s32 = |x: u64| x as u32 as i32;
    let (a, b) = (init(1, M32), boxv(2, M32));
    check("add.u32", &a, &b, &run("add", DataType::U32, 4, &a, &b).expect("runs"), |o, v| (o + v) & M32);
    check("min.s32", &a, &b, &run("min", DataType::I32, 4, &a, &b).expect("runs"), |o, v| if s32(o) < s32(v) { o } else { v });
    check("max.u32", &a, &b, &run("max", DataType::U32, 4, &a, &b).expect("runs"), |o, v| o.max(v));
    check("xor.s32", &a, &b, &run("xor", DataType::I32, 4, &a, &b).expect("runs"), |o, v| o ^ v);
    // inc/dec with small values, so both branches of each definition occur.
    let (a, b) = (init(3, 7), boxv(4, 7));
    check("inc.u32", &a, &b, &run("inc", DataType::U32, 4, &a, &b).expect("runs"), |o, v| if o >= v { 0 } else { o + 1 });
    check("dec.u32", &a, &b, &run("dec", DataType::U32, 4, &a, &b).expect("runs"), |o, v| if o == 0 || o > v { v } else { o - 1 });
    let (a, b) = (init(5, u64::MAX), boxv(6, u64::MAX));
    check("add.u64", &a, &b, &run("add", DataType::U64, 8, &a, &b).expect("runs"), |o, v| o.wrapping_add(v));
    check("min.s64", &a, &b, &run("min", DataType::I64, 8, &a, &b).expect("runs"), |o, v| (o as i64).min(v as i64) as u64);
    check("or.u64", &a, &b, &run("or", DataType::U64, 8, &a, &b).expect("runs"), |o, v| o | v);
}

#[test]
fn f32_add_is_the_rounded_sum() {
    let a: Vec<u64> = (0..COLS * ROWS).map(|i| (i as f32 * 0.75 - 20.0).to_bits() as u64).collect();
    let b: Vec<u64> = (0..BOX_C * BOX_R).map(|i| (1.0f32 / (i as f32 + 3.0)).to_bits() as u64).collect();
    let got = run("add", DataType::F32, 4, &a, &b).expect("runs");
    check("add.f32", &a, &b, &got, |o, v| (f32::from_bits(o as u32) + f32::from_bits(v as u32)).to_bits() as u64);
}

#[test]
fn a_reduction_the_manual_does_not_allow_for_the_type_is_a_located_trap() {
    let (a, b) = (init(1, 0xffff_ffff), boxv(2, 0xffff_ffff));
    // inc/dec exist on u32 only.
    let e = run("inc", DataType::I32, 4, &a, &b).unwrap_err();
    assert_eq!(e.0, TrapKind::Trap, "{}", e.1);
    assert!(e.1.contains("cannot reduce") && e.1.contains("I32"), "{}", e.1);
    // add on s64 is not in the table.
    let (a, b) = (init(1, u64::MAX), boxv(2, u64::MAX));
    let e = run("add", DataType::I64, 8, &a, &b).unwrap_err();
    assert!(e.1.contains("cannot reduce"), "{}", e.1);
}
