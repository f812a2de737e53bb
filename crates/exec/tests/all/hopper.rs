//! Hopper's data path through the engine (issue 23): `wgmma.mma_async`
//! with its operands behind shared-memory descriptors or A in registers,
//! and the tile-mode `cp.async.bulk.tensor` from a 128-byte tensor map
//! passed as a kernel parameter, completing on an mbarrier.
//!
//! Expected values come from the manual's formulas written out here (the
//! canonical layouts, the D fragment `row = 16w + g + 8((i/2)%2)`, `col =
//! 8(i/4) + 2t + i%2`, the 128-byte swizzle "chunk c of row r at c ^ r%8")
//! and exact integer-valued products, not from the engine.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};
use ptxsim_sem::swizzle::Swizzle;
use ptxsim_sem::tma::{DataType, Interleave, L2Promotion, Mode, OobFill, TensorMap};

fn h(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

fn av(m: usize, k: usize) -> f32 {
    ((m * 3 + k * 5) % 7) as f32 - 3.0
}

fn bv(k: usize, n: usize) -> f32 {
    ((k * 2 + n) % 5) as f32 - 2.0
}

/// The shared-memory image: A (64 x 16 f16) K-major with the 128-byte
/// swizzle at 0 (row m at (m%8)*128 + (m/8)*1024, 16-byte chunk c of the
/// row at chunk c ^ m%8), B (16 x 8 f16) MN-major without swizzle at 8192
/// (core matrices of 8 K-rows x 16 bytes, the second 8 K-rows 128 bytes on).
fn smem_image() -> Vec<u8> {
    let mut img = vec![0u8; 8192 + 256];
    for m in 0..64 {
        for k in 0..16 {
            let row = (m % 8) * 128 + (m / 8) * 1024;
            let (chunk, within) = ((2 * k) / 16, (2 * k) % 16);
            let at = row + ((chunk ^ (m % 8)) * 16) + within;
            img[at..at + 2].copy_from_slice(&h(av(m, k)).to_le_bytes());
        }
    }
    for k in 0..16 {
        for n in 0..8 {
            let at = 8192 + (k / 8) * 128 + (k % 8) * 16 + n * 2;
            img[at..at + 2].copy_from_slice(&h(bv(k, n)).to_le_bytes());
        }
    }
    img
}

/// One warpgroup copies the image into shared memory (16 bytes a thread,
/// 33 rounds), builds the descriptors, runs `mma` (the wgmma line, with A
/// as `%rd10` or `{%r20, %r21, %r22, %r23}`), and stores its four D values
/// at `out[4 * tid ..]`. `%p1` is scale-d; D starts as `tid + i`.
fn kernel(mma: &str, a_regs: &str) -> String {
    format!(
        r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 img, .param .u64 out)
{{
    .reg .b32 %r<40>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<20>;
    .reg .pred %p<3>;
    .shared .align 1024 .b8 smem[8448];
    ld.param.u64 %rd1, [img];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, smem;
    mov.u32 %r3, %r1;
$copy:
    setp.ge.u32 %p2, %r3, 528;
    @%p2 bra $copied;
    mul.wide.u32 %rd3, %r3, 16;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.v4.u32 {{%r4, %r5, %r6, %r7}}, [%rd4];
    cvt.u32.u64 %r8, %rd3;
    add.u32 %r9, %r2, %r8;
    st.shared.v4.u32 [%r9], {{%r4, %r5, %r6, %r7}};
    add.u32 %r3, %r3, 128;
    bra $copy;
$copied:
    bar.sync 0;
{a_regs}
    cvt.u64.u32 %rd5, %r2;
    shr.u64 %rd5, %rd5, 4;
    and.b64 %rd5, %rd5, 0x3fff;
    or.b64 %rd10, %rd5, 0x4000004000010000;
    add.u64 %rd6, %rd5, 512;
    or.b64 %rd11, %rd6, 0x0000001000080000;
    cvt.rn.f32.u32 %f1, %r1;
    add.f32 %f2, %f1, 0f3F800000;
    add.f32 %f3, %f1, 0f40000000;
    add.f32 %f4, %f1, 0f40400000;
    setp.eq.u32 %p1, 1, 1;
    wgmma.fence.sync.aligned;
    {mma}
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
    mul.wide.u32 %rd7, %r1, 16;
    add.u64 %rd8, %rd2, %rd7;
    st.global.v4.f32 [%rd8], {{%f1, %f2, %f3, %f4}};
    ret;
}}
"#
    )
}

fn run(src: &str) -> Result<Vec<f32>, (TrapKind, String)> {
    let mut dev = Device::new();
    let m = dev.load(src).map_err(|e| (TrapKind::LoadError, e.to_string()))?;
    let img = smem_image();
    let pimg = dev.alloc(img.len() as u64).expect("alloc");
    dev.write(pimg, &img).expect("write");
    let pout = dev.alloc(128 * 16).expect("alloc");
    dev.launch(&m, "k", &LaunchConfig::new(1u32, 128u32), &[KernelArg::Ptr(pimg), KernelArg::Ptr(pout)]).map_err(|e| (e.kind, e.to_string()))?;
    Ok(dev.read(pout, 128 * 16).expect("read").chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// D's (row, column) for element i of thread tid, as the manual draws it.
fn d_at(tid: usize, i: usize) -> (usize, usize) {
    let (w, l) = (tid / 32, tid % 32);
    (16 * w + l / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (l % 4) + i % 2)
}

fn check(got: &[f32], scale_d: bool) {
    for tid in 0..128 {
        for i in 0..4 {
            let (r, c) = d_at(tid, i);
            let acc = if scale_d { (tid + i) as f32 } else { 0.0 };
            let want = acc + (0..16).map(|k| av(r, k) * bv(k, c)).sum::<f32>();
            assert_eq!(got[4 * tid + i], want, "thread {tid} d{i} = D[{r}][{c}]");
        }
    }
}

const MMA_DESC: &str = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd10, %rd11, %p1, 1, 1, 0, 1;";

#[test]
fn wgmma_with_descriptors_is_the_exact_product() {
    check(&run(&kernel(MMA_DESC, "")).expect("runs"), true);
    // scale-d false: D = A * B.
    let src = kernel(MMA_DESC, "").replace("setp.eq.u32 %p1, 1, 1;", "setp.eq.u32 %p1, 1, 0;");
    check(&run(&src).expect("runs"), false);
}

#[test]
fn wgmma_with_a_in_registers_matches() {
    // A's fragment for thread (w, g, t): a0,a1 = (16w+g, 2t..2t+1),
    // a2,a3 = row + 8, a4..a7 the same 8 columns on; packed low half first.
    let mut loads = String::new();
    // Thread-computed fragments: read the elements back from the image in
    // shared memory through the manual's A layout.
    for j in 0..4 {
        // Element pair j: rows g (+8 for j odd), columns 2t + 8 (j / 2).
        loads.push_str(&format!(
            "    shr.u32 %r30, %r1, 5;
    shl.b32 %r30, %r30, 4;
    and.b32 %r31, %r1, 31;
    shr.u32 %r32, %r31, 2;
    add.u32 %r30, %r30, %r32;
    add.u32 %r30, %r30, {roff};
    and.b32 %r33, %r31, 3;
    shl.b32 %r33, %r33, 1;
    add.u32 %r33, %r33, {coff};
    and.b32 %r34, %r30, 7;
    shl.b32 %r34, %r34, 7;
    shr.u32 %r35, %r30, 3;
    shl.b32 %r35, %r35, 10;
    add.u32 %r34, %r34, %r35;
    shr.u32 %r36, %r33, 3;
    and.b32 %r37, %r30, 7;
    xor.b32 %r36, %r36, %r37;
    shl.b32 %r36, %r36, 4;
    add.u32 %r34, %r34, %r36;
    and.b32 %r38, %r33, 7;
    shl.b32 %r38, %r38, 1;
    add.u32 %r34, %r34, %r38;
    add.u32 %r34, %r34, %r2;
    ld.shared.b32 %r{dst}, [%r34];
",
            roff = 8 * (j % 2),
            coff = 8 * (j / 2),
            dst = 20 + j
        ));
    }
    let mma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r20, %r21, %r22, %r23}, %rd11, %p1, 1, 1, 1;";
    check(&run(&kernel(mma, &loads)).expect("runs"), true);
}

#[test]
fn wgmma_needs_the_whole_warp_and_uniform_descriptors() {
    let src = kernel(&format!("setp.lt.u32 %p2, %r1, 16;\n    @%p2 {MMA_DESC}"), "");
    let e = run(&src).unwrap_err();
    assert_eq!(e.0, TrapKind::NonUniform, "{}", e.1);
    let src = kernel(MMA_DESC, "").replace("or.b64 %rd10, %rd5, 0x4000004000010000;", "or.b64 %rd10, %rd5, 0x4000004000010000;\n    cvt.u64.u32 %rd12, %r1;\n    add.u64 %rd10, %rd10, %rd12;");
    let e = run(&src).unwrap_err();
    assert_eq!(e.0, TrapKind::NonUniform, "{}", e.1);
    assert!(e.1.contains("A descriptor"), "{}", e.1);
    // The manual's shapes and types: k8 is tf32's, not f16's.
    let src = kernel(&MMA_DESC.replace("m64n8k16", "m64n8k8"), "");
    let e = run(&src).unwrap_err();
    assert!(e.1.contains("m64n8k8"), "{}", e.1);
}

#[test]
fn reading_an_accumulator_before_its_wait_group_is_a_located_trap() {
    // PTX ISA 9.7.15.6: the accumulator registers may be read only after a
    // wgmma.wait_group that covers the wgmma-group of the mma_async.
    let ok = kernel(MMA_DESC, "");
    check(&run(&ok).expect("runs"), true);
    let cases = [
        (ok.replacen("    wgmma.wait_group.sync.aligned 0;\n", "", 1), "committed but not waited for"),
        (ok.replacen("    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;\n", "", 1), "not committed"),
        // wait_group 1 leaves the most recent group pending.
        (ok.replacen("wgmma.wait_group.sync.aligned 0;", "wgmma.wait_group.sync.aligned 1;", 1), "committed but not waited for"),
        // A wait before the commit does not cover the group.
        (ok.replacen("    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;\n", "    wgmma.wait_group.sync.aligned 0;\n    wgmma.commit_group.sync.aligned;\n", 1), "committed but not waited for"),
    ];
    for (src, state) in cases {
        assert_ne!(src, ok);
        let (kind, msg) = run(&src).unwrap_err();
        assert_eq!(kind, TrapKind::WgmmaRace, "{msg}");
        assert!(msg.contains("`%f1`") && msg.contains(state), "{msg}");
    }
    // A second wgmma accumulating into the same registers before the wait
    // is the pattern of a K loop, not a race.
    let twice = kernel(&format!("{MMA_DESC}\n    {MMA_DESC}"), "");
    assert!(run(&twice).is_ok());
}

/// A 2-D f16 tensor of 100 rows x 72 columns (pitch 160 bytes); a box of
/// 64 x 8 at (column 32, row 96), 128-byte swizzle, into shared memory
/// through an mbarrier; the raw shared bytes are copied out.
fn tma_kernel() -> &'static str {
    r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 cx, .param .u32 cy)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    .reg .pred %p<3>;
    .shared .align 1024 .b8 box[1024];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r10, [cx];
    ld.param.u32 %r11, [cy];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, box;
    mov.u32 %r3, bar;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $wait;
    mbarrier.init.shared.b64 [%r3], 1;
    mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r3], 1024;
    mov.u64 %rd9, tmap;
    cvta.param.u64 %rd9, %rd9;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd9, {%r10, %r11}], [%r3];
$wait:
    bar.sync 0;
$spin:
    mbarrier.try_wait.parity.shared.b64 %p2, [%r3], 0;
    @!%p2 bra $spin;
    mul.lo.u32 %r4, %r1, 8;
    add.u32 %r5, %r2, %r4;
    ld.shared.u64 %rd3, [%r5];
    mul.wide.u32 %rd4, %r1, 8;
    add.u64 %rd5, %rd1, %rd4;
    st.global.u64 [%rd5], %rd3;
    ret;
}
"#
}

fn tensor_map(addr: u64, swizzle: Swizzle, oob: OobFill) -> TensorMap {
    TensorMap {
        mode: Mode::Tiled { box_dim: [64, 8, 1, 1, 1] },
        dtype: DataType::F16,
        rank: 2,
        addr,
        dims: [72, 100, 1, 1, 1],
        strides: [0, 160, 0, 0, 0],
        elem_strides: [1, 1, 1, 1, 1],
        interleave: Interleave::None,
        swizzle,
        l2: L2Promotion::None,
        oob,
    }
}

fn run_tma(map: impl Fn(u64) -> Vec<u8>, (cx, cy): (i32, i32)) -> Result<Vec<u16>, (TrapKind, String)> {
    let mut dev = Device::new();
    let m = dev.load(tma_kernel()).map_err(|e| (TrapKind::LoadError, e.to_string()))?;
    let g = dev.alloc(100 * 160).expect("alloc");
    let vals: Vec<u8> = (0..100 * 80u32).flat_map(|i| (i as u16).to_le_bytes()).collect();
    dev.write(g, &vals).expect("write");
    let out = dev.alloc(1024).expect("alloc");
    let args = [KernelArg::Bytes(map(g)), KernelArg::Ptr(out), KernelArg::S32(cx), KernelArg::S32(cy)];
    dev.launch(&m, "k", &LaunchConfig::new(1u32, 128u32), &args).map_err(|e| (e.kind, e.to_string()))?;
    Ok(dev.read(out, 1024).expect("read").chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
}

#[test]
fn tma_tile_load_lands_swizzled_and_filled() {
    let got = run_tma(|g| tensor_map(g, Swizzle::B128, OobFill::Zero).to_bytes().to_vec(), (32, 96)).expect("runs");
    for r in 0..8usize {
        for c in 0..64usize {
            // Element (row 96 + r, column 32 + c): the value the host wrote
            // (row * 80 + column), or 0 past column 71 / row 99.
            let (gr, gc) = (96 + r, 32 + c);
            let want = if gr < 100 && gc < 72 { (gr * 80 + gc) as u16 } else { 0 };
            let at = r * 128 + (((2 * c / 16) ^ (r % 8)) * 16) + (2 * c) % 16;
            assert_eq!(got[at / 2], want, "box ({r}, {c})");
        }
    }
    // Without swizzle the box is dense; with the NaN fill, out-of-bounds
    // elements are the f16 NaN 0x7fff.
    let got = run_tma(|g| tensor_map(g, Swizzle::None, OobFill::Nan).to_bytes().to_vec(), (40, 0)).expect("runs");
    assert_eq!(got[0], 40);
    assert_eq!(got[31], 71);
    assert_eq!(got[32], 0x7fff);
    assert_eq!(got[64 * 3 + 5], 3 * 80 + 45);
}

#[test]
fn a_malformed_tensor_map_is_a_trap_naming_the_field() {
    let e = run_tma(|g| tensor_map(g, Swizzle::B128, OobFill::Zero).to_bytes().to_vec().into_iter().enumerate().map(|(i, b)| if i == 0 { b'Q' } else { b }).collect(), (0, 0)).unwrap_err();
    assert!(e.1.contains("magic"), "{}", e.1);
    let bad = TensorMap { strides: [0, 168, 0, 0, 0], ..tensor_map(0x1000, Swizzle::B128, OobFill::Zero) };
    let e = run_tma(|_| bad.to_bytes().to_vec(), (0, 0)).unwrap_err();
    assert!(e.1.contains("globalStrides[0]"), "{}", e.1);
}

/// nvcc 13.5's PTX (`-ptx -arch=sm_90a`, accepted by its ptxas) for
/// `tests/data/hopper_gemm.cu`: TMA loads of a 64 x 64 box of A and the
/// 8 x 64 box of B^T (128-byte swizzle, tensor maps as `__grid_constant__`
/// parameters reached through `cvta.param`), an mbarrier wait, and four
/// `wgmma.m64n8k16` over the K blocks with descriptors advanced 32 bytes
/// each, as CUTLASS builds them. D must be A * B exactly (small integers).
#[test]
fn nvcc_tma_and_wgmma_gemm_is_the_exact_product() {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/hopper_gemm_sm90a.ptx");
    let src = std::fs::read_to_string(p).expect("ptx");
    let (rows, k) = (100usize, 64usize);
    let a = |r: usize, c: usize| ((r * 7 + c * 3) % 9) as f32 - 4.0;
    let b = |c: usize, n: usize| ((c * 5 + n * 2) % 7) as f32 - 3.0;
    let mut dev = Device::new();
    let m = dev.load(&src).unwrap_or_else(|e| panic!("loads: {e}"));
    let ga = dev.alloc((rows * k * 2) as u64).expect("alloc");
    let gb = dev.alloc((8 * k * 2) as u64).expect("alloc");
    let gd = dev.alloc(64 * 8 * 4).expect("alloc");
    let abytes: Vec<u8> = (0..rows * k).flat_map(|i| h(a(i / k, i % k)).to_le_bytes()).collect();
    let bbytes: Vec<u8> = (0..8 * k).flat_map(|i| h(b(i % k, i / k)).to_le_bytes()).collect();
    dev.write(ga, &abytes).expect("write");
    dev.write(gb, &bbytes).expect("write");
    // What cuTensorMapEncodeTiled writes for a row-major f16 matrix
    // (dimension 0 the columns) with a 64 x box-rows box.
    let map = |addr: u64, nrows: u64, box_rows: u32| {
        TensorMap {
            mode: Mode::Tiled { box_dim: [64, box_rows, 1, 1, 1] },
            dims: [k as u64, nrows, 1, 1, 1],
            strides: [0, (k * 2) as u64, 0, 0, 0],
            ..tensor_map(addr, Swizzle::B128, OobFill::Zero)
        }
        .to_bytes()
        .to_vec()
    };
    for row0 in [0usize, 50] {
        let args = [KernelArg::Bytes(map(ga, rows as u64, 64)), KernelArg::Bytes(map(gb, 8, 8)), KernelArg::Ptr(gd), KernelArg::S32(row0 as i32)];
        dev.launch(&m, "hopper_gemm", &LaunchConfig::new(1u32, 128u32), &args).unwrap_or_else(|e| panic!("row0 {row0}: {e}"));
        let got: Vec<f32> = dev.read(gd, 64 * 8 * 4).expect("read").chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for r in 0..64 {
            for n in 0..8 {
                // Rows past the tensor's 100 are filled with zeros.
                let want: f32 = if row0 + r < rows { (0..k).map(|c| a(row0 + r, c) * b(c, n)).sum() } else { 0.0 };
                assert_eq!(got[r * 8 + n], want, "row0 {row0}: D[{r}][{n}]");
            }
        }
    }
}
