//! Tests of the tensor map: its encoding, each documented rule (by the
//! field it names), and the tile-mode traversal against addresses written
//! out by hand from the driver API's definitions.

use super::*;

/// A 2-D f16 row-major matrix of 100 rows x 72 columns (row pitch 160
/// bytes), box 64 x 8, 128-byte swizzle: what Triton and CUTLASS build.
fn matrix() -> TensorMap {
    TensorMap {
        mode: Mode::Tiled { box_dim: [64, 8, 1, 1, 1] },
        dtype: DataType::F16,
        rank: 2,
        addr: 0x10_0000,
        dims: [72, 100, 1, 1, 1],
        strides: [0, 160, 0, 0, 0],
        elem_strides: [1, 1, 1, 1, 1],
        interleave: Interleave::None,
        swizzle: Swizzle::B128,
        l2: L2Promotion::B128,
        oob: OobFill::Zero,
    }
}

#[test]
fn encoding_round_trips_and_has_the_documented_bytes() {
    let m = matrix();
    let b = m.to_bytes();
    assert_eq!(&b[0..4], b"PXTM");
    assert_eq!(b[6], 6); // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
    assert_eq!(b[9], 3); // CU_TENSOR_MAP_SWIZZLE_128B
    assert_eq!(b[10], 2); // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
    assert_eq!(u64::from_le_bytes(b[16..24].try_into().unwrap()), 0x10_0000);
    assert_eq!(u64::from_le_bytes(b[64..72].try_into().unwrap()), 160);
    assert_eq!(u16::from_le_bytes([b[96], b[97]]), 64);
    assert_eq!(TensorMap::from_bytes(&b), Ok(m));
    let im = TensorMap {
        mode: Mode::Im2col { lower: [-1, -2, 0], upper: [1, 2, 0], channels: 64, pixels: 128 },
        rank: 4,
        dims: [64, 32, 32, 8, 1],
        strides: [0, 128, 4096, 131072, 0],
        ..m
    };
    assert_eq!(TensorMap::from_bytes(&im.to_bytes()), Ok(im));
    for c in 0..16 {
        assert_eq!(DataType::from_code(c).map(DataType::code), Some(c));
    }
    assert_eq!(DataType::from_code(16), None);
}

fn field_of(m: TensorMap) -> String {
    m.validate().unwrap_err().field
}

#[test]
fn each_broken_rule_names_its_field() {
    let m = matrix();
    assert_eq!(m.validate(), Ok(()));
    assert_eq!(field_of(TensorMap { rank: 0, ..m }), "tensorRank");
    assert_eq!(field_of(TensorMap { rank: 6, ..m }), "tensorRank");
    assert_eq!(field_of(TensorMap { interleave: Interleave::B16, ..m }), "tensorRank");
    assert_eq!(field_of(TensorMap { addr: 0x10_0008, ..m }), "globalAddress");
    assert_eq!(field_of(TensorMap { dims: [72, 0, 1, 1, 1], ..m }), "globalDim[1]");
    assert_eq!(field_of(TensorMap { dims: [(1 << 31) + 1, 100, 1, 1, 1], ..m }), "globalDim[0]");
    assert_eq!(field_of(TensorMap { strides: [0, 168, 0, 0, 0], ..m }), "globalStrides[0]");
    assert_eq!(field_of(TensorMap { strides: [0, 1 << 40, 0, 0, 0], ..m }), "globalStrides[0]");
    assert_eq!(field_of(TensorMap { mode: Mode::Tiled { box_dim: [64, 257, 1, 1, 1] }, ..m }), "boxDim[1]");
    // 4 f16 = 8 bytes: not a multiple of 16.
    assert_eq!(field_of(TensorMap { mode: Mode::Tiled { box_dim: [4, 8, 1, 1, 1] }, ..m }), "boxDim[0]");
    assert_eq!(field_of(TensorMap { elem_strides: [1, 9, 1, 1, 1], ..m }), "elementStrides[1]");
    // 128 f16 = 256 bytes > the 128-byte span.
    assert_eq!(field_of(TensorMap { mode: Mode::Tiled { box_dim: [128, 8, 1, 1, 1] }, ..m }), "swizzle");
    assert_eq!(field_of(TensorMap { swizzle: Swizzle::B64, ..m }), "swizzle");
    assert_eq!(field_of(TensorMap { dtype: DataType::U16, oob: OobFill::Nan, ..m }), "oobFill");
    let r3 = TensorMap { rank: 3, dims: [72, 100, 2, 1, 1], strides: [0, 160, 16000, 0, 0], ..m };
    assert_eq!(r3.validate(), Ok(()));
    assert_eq!(field_of(TensorMap { interleave: Interleave::B32, ..r3 }), "swizzle");
    assert_eq!(TensorMap { interleave: Interleave::B32, swizzle: Swizzle::B32, strides: [0, 160, 16000, 0, 0], ..r3 }.validate(), Ok(()));
    let im = TensorMap { mode: Mode::Im2col { lower: [-200, 0, 0], upper: [0, 0, 0], channels: 64, pixels: 128 }, rank: 4, dims: [64, 32, 32, 8, 1], strides: [0, 128, 4096, 131072, 0], ..m };
    assert_eq!(field_of(im), "pixelBoxLowerCorner[0]");
    let im = TensorMap { mode: Mode::Im2col { lower: [0; 3], upper: [0; 3], channels: 64, pixels: 2000 }, ..im };
    assert_eq!(field_of(im), "pixelsPerColumn");
    assert_eq!(field_of(TensorMap { rank: 2, ..im }), "tensorRank");
}

#[test]
fn bad_bytes_name_their_field() {
    let b = matrix().to_bytes();
    let mut x = b;
    x[0] = b'Q';
    assert_eq!(TensorMap::from_bytes(&x).unwrap_err().field, "magic");
    let mut x = b;
    x[6] = 16;
    assert_eq!(TensorMap::from_bytes(&x).unwrap_err().field, "tensorDataType");
    let mut x = b;
    x[9] = 4;
    let e = TensorMap::from_bytes(&x).unwrap_err();
    assert_eq!(e.field, "swizzle");
    assert!(e.to_string().contains("sm_100"), "{e}");
    let mut x = b;
    x[5] = 2;
    assert_eq!(TensorMap::from_bytes(&x).unwrap_err().field, "mode");
    let mut x = b;
    x[7] = 0;
    assert_eq!(TensorMap::from_bytes(&x).unwrap_err().field, "tensorRank");
    assert_eq!(TensorMap::from_bytes(&[0u8; SIZE]).unwrap_err().field, "magic");
}

#[test]
fn tile_traversal_addresses_and_bounds() {
    let m = matrix();
    assert_eq!(m.box_counts().unwrap(), [64, 8, 1, 1, 1]);
    assert_eq!(m.box_bytes().unwrap(), 64 * 8 * 2);
    // Box at column 32, row 96: columns 32..95 of rows 96..103; columns
    // 72.. and rows 100.. are out of bounds.
    let mut got = vec![];
    m.tile_elems(&[32, 96], |off, g| got.push((off, g))).unwrap();
    assert_eq!(got.len(), 512);
    assert_eq!(got[0], (0, Some(0x10_0000 + 96 * 160 + 32 * 2)));
    assert_eq!(got[39], (78, Some(0x10_0000 + 96 * 160 + 71 * 2)));
    assert_eq!(got[40], (80, None));
    assert_eq!(got[64 * 3 + 1], (2 * (64 * 3 + 1), Some(0x10_0000 + 99 * 160 + 33 * 2)));
    assert_eq!(got[64 * 4], (512, None));
    // Negative coordinates are out of bounds too.
    let mut first = None;
    m.tile_elems(&[-8, 0], |off, g| {
        if first.is_none() && g.is_some() {
            first = Some((off, g));
        }
    })
    .unwrap();
    assert_eq!(first, Some((16, Some(0x10_0000))));
    assert!(m.tile_elems(&[0], |_, _| {}).is_err());
}

#[test]
fn element_strides_skip_and_count_up() {
    // A 3-D f32 tensor 8 x 10 x 6, box 4 x 5 x 3 with element strides
    // 1 (ignored in dim 0), 2, 2: ceil(5/2) = 3, ceil(3/2) = 2 elements.
    let m = TensorMap {
        mode: Mode::Tiled { box_dim: [4, 5, 3, 1, 1] },
        dtype: DataType::F32,
        rank: 3,
        addr: 0,
        dims: [8, 10, 6, 1, 1],
        strides: [0, 32, 320, 0, 0],
        elem_strides: [3, 2, 2, 1, 1],
        interleave: Interleave::None,
        swizzle: Swizzle::None,
        l2: L2Promotion::None,
        oob: OobFill::Nan,
    };
    assert_eq!(m.validate(), Ok(()));
    assert_eq!(m.box_counts().unwrap(), [4, 3, 2, 1, 1]);
    assert_eq!(m.box_bytes().unwrap(), 4 * 3 * 2 * 4);
    let mut got = vec![];
    m.tile_elems(&[1, 1, 0], |off, g| got.push((off, g))).unwrap();
    assert_eq!(got.len(), 24);
    // Element (j0, j1, j2) = (1, 2, 1): tensor (2, 1 + 4, 0 + 2).
    let lin = 1 + 4 * (2 + 3 * 1);
    assert_eq!(got[lin], (4 * lin as u64, Some(2 * 4 + 5 * 32 + 2 * 320)));
    assert_eq!(DataType::F32.fill_bits(m.oob), 0x7fff_ffff);
    assert_eq!(DataType::BF16.fill_bits(OobFill::Zero), 0);
}

#[test]
fn swizzled_destination() {
    // Row r (128 bytes) of a 128-byte-swizzled box at 0x400: its chunk c
    // lands at chunk c ^ (r % 8).
    let m = matrix();
    assert_eq!(m.smem_addr(0x400, 3 * 128 + 2 * 16 + 4), 0x400 + 3 * 128 + (2 ^ 3) * 16 + 4);
    assert_eq!(TensorMap { swizzle: Swizzle::None, ..m }.smem_addr(0x400, 3 * 128 + 36), 0x400 + 3 * 128 + 36);
}

/// A load and a store through fake memories: the box lands swizzled and
/// filled, and the store writes back only the in-bounds elements.
#[test]
fn copies_through_the_engine_accessors() {
    // Global: 100 x 72 f16 matrix at 0x10_0000 whose element (r, c) is
    // r * 72 + c (the pitch is 160 bytes, 80 elements).
    let m = matrix();
    let gval = |a: u64| {
        let off = a - 0x10_0000;
        let (r, c) = (off / 160, off % 160 / 2);
        r * 72 + c
    };
    let mut shared = std::collections::HashMap::new();
    let mut read = |a: u64, size: u32| -> Result<u64, String> {
        assert_eq!(size, 2);
        Ok(gval(a))
    };
    let mut write = |a: u64, size: u32, v: u64| -> Result<(), String> {
        assert_eq!(size, 2);
        assert!(shared.insert(a, v).is_none(), "{a:#x} written twice");
        Ok(())
    };
    let n = m.copy_to_shared(&[32, 96], None, 0x400, &mut read, &mut write).unwrap();
    assert_eq!(n, 1024);
    assert_eq!(shared.len(), 512);
    // Box row 2 (tensor row 98), box column 9 (tensor column 41): dense
    // offset 2 * 128 + 18 = chunk 1 of row 2, swizzled to chunk 1 ^ 2 = 3.
    assert_eq!(shared[&(0x400 + 2 * 128 + 3 * 16 + 2)], 98 * 72 + 41);
    // Box column 40 is tensor column 72, out of bounds: zero.
    assert_eq!(shared[&(0x400 + (5 ^ 0) * 16)], 0);
    // Rows 100.. are out of bounds too; with the NaN fill they read NaN.
    let mut shared2 = std::collections::HashMap::new();
    let mn = TensorMap { oob: OobFill::Nan, ..m };
    mn.copy_to_shared(&[0, 96], None, 0, &mut |a, _| Ok::<_, String>(gval(a)), &mut |a, _, v| {
        shared2.insert(a, v);
        Ok(())
    })
    .unwrap();
    assert_eq!(shared2[&(Swizzle::B128.apply(4 * 128))], 0x7fff);
    // The store back: only the 40 x 4 in-bounds elements are written.
    let mut global = std::collections::HashMap::new();
    let n = m
        .copy_from_shared(&[32, 96], None, 0x400, &mut |a, _| Ok::<_, String>(shared[&a]), &mut |a, _, v| {
            global.insert(a, v);
            Ok(())
        })
        .unwrap();
    assert_eq!(n, 1024);
    assert_eq!(global.len(), 40 * 4);
    assert!(global.iter().all(|(&a, &v)| gval(a) == v));
    // A memory error stops the copy and comes back as is.
    let e = m.copy_to_shared(&[0, 0], None, 0, &mut |_, _| Err("bad read".to_string()), &mut |_, _, _| Ok(()));
    assert_eq!(e, Err(CopyError::Mem("bad read".to_string())));
    let e = m.copy_to_shared::<String>(&[0], None, 0, &mut |_, _| Ok(0), &mut |_, _, _| Ok(()));
    assert!(matches!(e, Err(CopyError::Map(_))));
}

/// An NHWC f32 tensor of `n` images of 4 x 4 pixels and 32 channels, dense
/// (the input of the im2col examples of Triton's Gluon tutorial
/// `conv-im2col`, whose expected values were checked on Hopper GPUs), as an
/// im2col map loading 16 pixels of 32 channels.
fn nhwc(n: u64, lower: [i32; 2], upper: [i32; 2]) -> TensorMap {
    TensorMap {
        mode: Mode::Im2col { lower: [lower[1], lower[0], 0], upper: [upper[1], upper[0], 0], channels: 32, pixels: 16 },
        dtype: DataType::F32,
        rank: 4,
        addr: 0x20_0000,
        dims: [32, 4, 4, n, 1],
        strides: [0, 32 * 4, 4 * 32 * 4, 4 * 4 * 32 * 4, 0],
        elem_strides: [1, 1, 1, 1, 1],
        interleave: Interleave::None,
        swizzle: Swizzle::None,
        l2: L2Promotion::None,
        oob: OobFill::Zero,
    }
}

/// The pixel each row of an im2col box reads, as `1 + n*16 + h*4 + w` (the
/// tutorial's values: pixel (n, h, w) of the input holds that number in
/// every channel), or 0 for the fill; and the channel order inside a row.
fn pixels_read(m: &TensorMap, coords: [i32; 4], offsets: [u16; 2]) -> Vec<u32> {
    let mut rows = vec![];
    m.im2col_elems(&coords, &offsets, |off, g| {
        let (row, ch) = (off / (32 * 4), off / 4 % 32);
        match g {
            Some(a) => {
                let e = (a - 0x20_0000) / 4;
                assert_eq!(e % 32, ch, "channel {ch} of row {row} reads channel {}", e % 32);
                if ch == 0 {
                    rows.push(1 + (e / 32) as u32);
                }
            }
            None if ch == 0 => rows.push(0),
            None => {}
        }
    })
    .unwrap();
    rows
}

#[test]
fn im2col_pixels_follow_the_bounding_box() {
    // Tutorial example 1: corners 0, coordinates 0: the 16 pixels in order.
    let m = nhwc(1, [0, 0], [0, 0]);
    assert_eq!(m.box_bytes().unwrap(), 16 * 32 * 4);
    assert_eq!(pixels_read(&m, [0, 0, 0, 0], [0, 0]), (1..=16).collect::<Vec<_>>());
    // Example 2: corners -1 (box H, W in [-1, 2]) from (-1, -1): the
    // padding row and column read as the fill.
    let m = nhwc(1, [-1, -1], [-1, -1]);
    assert_eq!(pixels_read(&m, [0, -1, -1, 0], [0, 0]), [0, 0, 0, 0, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11]);
    // Example 3: the same with offsets (1, 1) reads the tensor itself.
    assert_eq!(pixels_read(&m, [0, -1, -1, 0], [1, 1]), (1..=16).collect::<Vec<_>>());
    // Example 4: two images, from (n 0, h 1, w 3): the rest of image 0,
    // then image 1 from its first pixel.
    let m = nhwc(2, [0, 0], [0, 0]);
    assert_eq!(pixels_read(&m, [0, 3, 1, 0], [0, 0]), (8..=23).collect::<Vec<_>>());
}

#[test]
fn im2col_traversal_stride_and_channels() {
    // Traversal stride 2 along W and H (PTX ISA 5.5.4.2: it strides the
    // positions, not the pixel count): box [0, 3] visits w, h in {0, 2},
    // then the next image.
    let mut m = nhwc(2, [0, 0], [0, 0]);
    m.elem_strides = [1, 2, 2, 1, 1];
    let mut got = pixels_read(&m, [0, 0, 0, 0], [0, 0]);
    got.truncate(8);
    assert_eq!(got, [1, 3, 9, 11, 17, 19, 25, 27]);
    // Channels from the coordinate, past the tensor's last one the fill.
    let m = nhwc(1, [0, 0], [0, 0]);
    let mut seen = vec![];
    m.im2col_elems(&[24, 0, 0, 0], &[0, 0], |off, g| {
        if off < 32 * 4 {
            seen.push(g.map(|a| (a - 0x20_0000) / 4));
        }
    })
    .unwrap();
    assert_eq!(seen[..8], (24..32).map(Some).collect::<Vec<_>>()[..]);
    assert!(seen[8..].iter().all(Option::is_none));
}

#[test]
fn im2col_rules_name_their_field() {
    let m = nhwc(1, [0, 0], [0, 0]);
    let field = |coords: &[i32], offs: &[u16]| m.im2col_elems(coords, offs, |_, _| {}).unwrap_err().field;
    // The filter base must lie inside the bounding box (PTX ISA 5.5.4.1).
    assert_eq!(field(&[0, 4, 0, 0], &[0, 0]), "pixelBoxLowerCorner[0]");
    assert_eq!(field(&[0, 0, -1, 0], &[0, 0]), "pixelBoxLowerCorner[1]");
    // Offsets of a rank-4 map are 0 to 2^8 - 1, one per spatial dimension.
    assert_eq!(field(&[0, 0, 0, 0], &[256, 0]), "im2colOffsets[0]");
    assert_eq!(field(&[0, 0, 0, 0], &[0]), "im2colOffsets");
    assert_eq!(field(&[0, 0, 0], &[0, 0]), "tensorRank");
    // A tiled map cannot serve an im2col copy, nor the reverse.
    assert_eq!(matrix().im2col_elems(&[0, 0], &[], |_, _| {}).unwrap_err().field, "mode");
    assert_eq!(m.tile_elems(&[0, 0, 0, 0], |_, _| {}).unwrap_err().field, "mode");
    // Through the copy: the box lands row by row, 16 x 32 elements.
    let mut n = 0;
    let bytes = m.copy_to_shared(&[0, 0, 0, 0], Some(&[0, 0]), 0, &mut |_, _| Ok::<_, String>(7), &mut |_, _, _| {
        n += 1;
        Ok(())
    });
    assert_eq!((bytes, n), (Ok(16 * 32 * 4), 16 * 32));
}
