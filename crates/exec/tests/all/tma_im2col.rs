//! `cp.async.bulk.tensor` in im2col mode (PTX ISA 5.5.4 and 9.7.9.25.5.1,
//! sm_90): the pixels of a convolution's sliding window gathered from an
//! NHWC tensor into rows of shared memory, and `.im2col_no_offs` writing
//! such rows back. Expected values come from the definition of a
//! convolution's im2col matrix, not from the traversal: with padding 1 and
//! a 3 x 3 filter, row `k` of the matrix for filter tap (r, s) is the input
//! pixel (oh - 1 + r, ow - 1 + s) of output pixel k = (n, oh, ow), or zero
//! outside the image. The tensor map is the one CUTLASS builds for that
//! convolution: lower corners -pad, upper corners pad - (filter - 1).

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};
use ptxsim_sem::swizzle::Swizzle;
use ptxsim_sem::tma::{DataType, Interleave, L2Promotion, Mode, OobFill, TensorMap};

const N: usize = 2;
const H: usize = 5;
const W: usize = 6;
const C: usize = 8;
/// Pixels per copy (rows of the box) and channels per pixel.
const PIX: usize = 24;

fn map(addr: u64, lower: i32, upper: i32) -> TensorMap {
    TensorMap {
        mode: Mode::Im2col { lower: [lower, lower, 0], upper: [upper, upper, 0], channels: C as u32, pixels: PIX as u32 },
        dtype: DataType::U32,
        rank: 4,
        addr,
        dims: [C as u64, W as u64, H as u64, N as u64, 1],
        strides: [0, (C * 4) as u64, (W * C * 4) as u64, (H * W * C * 4) as u64, 0],
        elem_strides: [1, 1, 1, 1, 1],
        interleave: Interleave::None,
        swizzle: Swizzle::None,
        l2: L2Promotion::None,
        oob: OobFill::Zero,
    }
}

/// Thread 0 loads the box at coordinates (0, w, h, n) with offsets (s, r)
/// (W's first), waits on the mbarrier, and every thread copies the box out.
const LOAD: &str = r#".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 out, .param .u32 w, .param .u32 h, .param .u32 n, .param .u16 s, .param .u16 r)
{
    .reg .b32 %r<16>;
    .reg .b16 %h<4>;
    .reg .b64 %rd<8>;
    .reg .pred %p<3>;
    .shared .align 128 .b8 box[768];
    .shared .align 8 .b64 bar;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, box;
    mov.u32 %r3, bar;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra $wait;
    mbarrier.init.shared.b64 [%r3], 1;
    fence.proxy.async.shared::cta;
    mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r3], 768;
    ld.param.u32 %r4, [w];
    ld.param.u32 %r5, [h];
    ld.param.u32 %r6, [n];
    ld.param.u16 %h1, [s];
    ld.param.u16 %h2, [r];
    mov.u32 %r7, 0;
    mov.u64 %rd7, tmap;
    cvta.param.u64 %rd7, %rd7;
    cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r2], [%rd7, {%r7, %r4, %r5, %r6}], [%r3], {%h1, %h2};
$wait:
    bar.sync 0;
$spin:
    mbarrier.try_wait.parity.shared.b64 %p2, [%r3], 0;
    @!%p2 bra $spin;
    ld.param.u64 %rd2, [out];
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    shl.b32 %r8, %r1, 2;
    add.u32 %r9, %r2, %r8;
    ld.shared.u32 %r10, [%r9];
    st.global.u32 [%rd4], %r10;
    add.u32 %r9, %r9, 384;
    ld.shared.u32 %r10, [%r9];
    st.global.u32 [%rd4+384], %r10;
    ret;
}
"#;

/// The input: element (n, h, w, c) holds a value naming it (never 0).
fn input() -> Vec<u32> {
    (0..N * H * W * C).map(|i| 0x1000_0000 | i as u32).collect()
}

fn bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Loads the box for output pixel `k` (its first row) and tap (r, s).
fn load(k: usize, r: u16, s: u16) -> Result<Vec<u32>, (TrapKind, String)> {
    let mut dev = Device::new();
    let m = dev.load(LOAD).map_err(|e| (TrapKind::LoadError, e.to_string()))?;
    let g = dev.alloc((N * H * W * C * 4) as u64).expect("alloc");
    dev.write(g, &bytes(&input())).expect("write");
    let out = dev.alloc((PIX * C * 4) as u64).expect("alloc");
    let (n, oh, ow) = (k / (H * W), k / W % H, k % W);
    // The filter base of output pixel (oh, ow) with padding 1.
    let args = [
        KernelArg::Bytes(map(g, -1, 1 - 2).to_bytes().to_vec()),
        KernelArg::Ptr(out),
        KernelArg::U32((ow as i32 - 1) as u32),
        KernelArg::U32((oh as i32 - 1) as u32),
        KernelArg::U32(n as u32),
        KernelArg::U16(s),
        KernelArg::U16(r),
    ];
    dev.launch(&m, "k", &LaunchConfig::new(1u32, (PIX * C / 2) as u32), &args).map_err(|e| (e.kind, e.to_string()))?;
    let b = dev.read(out, (PIX * C * 4) as u64).expect("read");
    Ok(b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[test]
fn im2col_rows_are_the_convolution_matrix() {
    let inp = input();
    // Starts at the first pixel, inside an image, and near the end of
    // image 0 (so the box runs on into image 1).
    for (k, r, s) in [(0, 0, 0), (0, 1, 1), (7, 2, 1), (20, 0, 2), (25, 2, 2)] {
        let got = load(k, r, s).expect("runs");
        for row in 0..PIX {
            let kk = k + row;
            let (n, oh, ow) = (kk / (H * W), kk / W % H, kk % W);
            let (ih, iw) = (oh as i64 - 1 + r as i64, ow as i64 - 1 + s as i64);
            for c in 0..C {
                let inside = n < N && (0..H as i64).contains(&ih) && (0..W as i64).contains(&iw);
                let want = if inside { inp[((n * H + ih as usize) * W + iw as usize) * C + c] } else { 0 };
                assert_eq!(got[row * C + c], want, "pixel {k} tap ({r}, {s}): row {row} channel {c}");
            }
        }
    }
}

#[test]
fn im2col_rules_trap_naming_the_field() {
    // Offsets of a rank-4 map are 0 to 255 (PTX ISA 5.5.4.1).
    let e = load(0, 256, 0).unwrap_err();
    assert_eq!(e.0, TrapKind::Trap, "{}", e.1);
    assert!(e.1.contains("im2colOffsets[1]"), "{}", e.1);
}

/// `.im2col_no_offs`, shared to global: each row of the box goes to the
/// pixel its position names; rows outside the tensor are not written.
#[test]
fn im2col_no_offs_writes_rows_back_to_their_pixels() {
    let src = LOAD.replace(
        "    cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r2], [%rd7, {%r7, %r4, %r5, %r6}], [%r3], {%h1, %h2};\n",
        "    mov.u32 %r11, 0;\n$fill:\n    shl.b32 %r12, %r11, 2;\n    add.u32 %r13, %r2, %r12;\n    add.u32 %r14, %r11, 0x7000;\n    st.shared.u32 [%r13], %r14;\n    add.u32 %r11, %r11, 1;\n    setp.lt.u32 %p2, %r11, 192;\n    @%p2 bra $fill;\n    fence.proxy.async.shared::cta;\n    mov.u64 %rd7, tmap;\n    cvta.param.u64 %rd7, %rd7;\n    cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%rd7, {%r7, %r4, %r5, %r6}], [%r2];\n    cp.async.bulk.commit_group;\n    cp.async.bulk.wait_group 0;\n    mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r3], 0;\n",
    ).replace("mbarrier.arrive.expect_tx.shared.b64 %rd1, [%r3], 768;", "");
    let mut dev = Device::new();
    let m = dev.load(&src).unwrap_or_else(|e| panic!("{e}"));
    let g = dev.alloc((N * H * W * C * 4) as u64).expect("alloc");
    dev.write(g, &bytes(&vec![0; N * H * W * C])).expect("write");
    let out = dev.alloc((PIX * C * 4) as u64).expect("alloc");
    // Box corners -1 (positions -1..=3 along H, -1..=4 along W), from
    // (h, w) = (-1, -1) of image 0.
    let args = [
        KernelArg::Bytes(map(g, -1, -1).to_bytes().to_vec()),
        KernelArg::Ptr(out),
        KernelArg::U32(u32::MAX),
        KernelArg::U32(u32::MAX),
        KernelArg::U32(0),
        KernelArg::U16(0),
        KernelArg::U16(0),
    ];
    dev.launch(&m, "k", &LaunchConfig::new(1u32, (PIX * C / 2) as u32), &args).unwrap_or_else(|e| panic!("{e}"));
    let b = dev.read(g, (N * H * W * C * 4) as u64).expect("read");
    let got: Vec<u32> = b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // Row j of the box is position (h, w) = (-1 + j / 6, -1 + j % 6) of
    // the 5 x 6 box; it lands at that pixel when it lies in the image.
    let mut want = vec![0u32; N * H * W * C];
    for j in 0..PIX {
        let (h, w) = (-1 + (j / 6) as i64, -1 + (j % 6) as i64);
        if (0..H as i64).contains(&h) && (0..W as i64).contains(&w) {
            for c in 0..C {
                want[(h as usize * W + w as usize) * C + c] = 0x7000 + (j * C + c) as u32;
            }
        }
    }
    assert_eq!(got, want);
}
