//! Tensor maps: `cuTensorMapEncodeTiled`, `cuTensorMapEncodeIm2col` and
//! `cuTensorMapReplaceAddress`.
//!
//! A `CUtensorMap` is 128 bytes, 64-byte aligned, and opaque on a GPU; this
//! library writes the layout of `ptxsim_sem::tma` (magic `PXTM`, then the
//! parameters as given), which the engine's `cp.async.bulk.tensor` and
//! `tensormap.replace` read back. Every documented rule of the parameters
//! is checked (`TensorMap::validate`): a broken one is
//! CUDA_ERROR_INVALID_VALUE, with the field and the rule in the call log
//! (`PTXSIM_LOG=1`) and, the first time, on stderr, since a GPU driver's
//! bare INVALID_VALUE leaves a user guessing. Nothing is written on
//! failure.
//!
//! Invariants: the tensor map and every array are checked for null before
//! they are read; arrays are read for `tensorRank` entries (`tensorRank - 1`
//! for the strides, `tensorRank - 2` for the im2col corners) only after
//! the rank is known to be 1 to 5.

use crate::report;
use crate::state::entry;
use crate::types::*;
use ptxsim_sem::swizzle::Swizzle;
use ptxsim_sem::tma::{DataType, Interleave, L2Promotion, MapError, Mode, OobFill, TensorMap, SIZE};
use std::os::raw::{c_int, c_uint, c_void};

/// Reads `n` entries of a C array (zeros beyond it, up to 5).
///
/// # Safety
/// `p` is null or valid for `n` reads.
unsafe fn arr<T: Copy + Default>(p: *const T, n: usize, what: &str) -> Result<[T; 5], MapError> {
    let mut out = [T::default(); 5];
    if n == 0 {
        return Ok(out);
    }
    if p.is_null() {
        return Err(MapError { field: what.into(), msg: "is NULL".into() });
    }
    for (i, o) in out.iter_mut().enumerate().take(n.min(5)) {
        *o = p.add(i).read_unaligned();
    }
    Ok(out)
}

/// The enumerations, by code.
fn enums(interleave: c_uint, swizzle: c_uint, l2: c_uint, oob: c_uint) -> Result<(Interleave, Swizzle, L2Promotion, OobFill), MapError> {
    let bad = |field: &str, v: c_uint, what: &str| MapError { field: field.into(), msg: format!("{v} is not a {what}") };
    let i = [Interleave::None, Interleave::B16, Interleave::B32].get(interleave as usize).copied().ok_or_else(|| bad("interleave", interleave, "CUtensorMapInterleave"))?;
    let s = match swizzle {
        0 => Swizzle::None,
        1 => Swizzle::B32,
        2 => Swizzle::B64,
        3 => Swizzle::B128,
        4..=6 => return Err(MapError { field: "swizzle".into(), msg: format!("{swizzle}: the 128B_ATOM modes need an sm_100 device; this one is sm_90") }),
        _ => return Err(bad("swizzle", swizzle, "CUtensorMapSwizzle")),
    };
    let l = [L2Promotion::None, L2Promotion::B64, L2Promotion::B128, L2Promotion::B256].get(l2 as usize).copied().ok_or_else(|| bad("l2Promotion", l2, "CUtensorMapL2promotion"))?;
    let o = [OobFill::Zero, OobFill::Nan].get(oob as usize).copied().ok_or_else(|| bad("oobFill", oob, "CUtensorMapFloatOOBfill"))?;
    Ok((i, s, l, o))
}

/// The rank, checked before any array is read.
fn rank(r: c_uint, im2col: bool) -> Result<usize, MapError> {
    let ok = if im2col { (3..=5).contains(&r) } else { (1..=5).contains(&r) };
    if ok {
        Ok(r as usize)
    } else {
        Err(MapError { field: "tensorRank".into(), msg: format!("{r}: must be {}", if im2col { "3 to 5 for im2col" } else { "1 to 5" }) })
    }
}

/// Validates `m` and writes it through `out` (64-byte aligned, not null).
///
/// # Safety
/// `out` is null or valid for a 128-byte write.
unsafe fn store(name: &str, out: *mut c_void, m: Result<TensorMap, MapError>) -> Result<(), CUresult> {
    if out.is_null() {
        report::log(&format!("{name}: tensorMap is NULL"));
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    if out as usize % 64 != 0 {
        report::notice_once(&format!("{name}: tensorMap {out:p} is not 64-byte aligned"));
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    match m.and_then(|m| m.validate().map(|()| m)) {
        Ok(m) => {
            let b = m.to_bytes();
            std::ptr::copy_nonoverlapping(b.as_ptr(), out as *mut u8, SIZE);
            Ok(())
        }
        Err(e) => {
            report::notice_once(&format!("{name}: {e}"));
            Err(CUDA_ERROR_INVALID_VALUE)
        }
    }
}

/// Creates a tiled tensor map (parameters as `cuda.h` documents them).
///
/// # Safety
/// `tensorMap` is null or valid for a 128-byte write; `globalDim`,
/// `boxDim`, `elementStrides` are null or hold `tensorRank` entries,
/// `globalStrides` `tensorRank - 1`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeTiled(
    tensorMap: *mut c_void,
    tensorDataType: c_uint,
    tensorRank: c_uint,
    globalAddress: *mut c_void,
    globalDim: *const u64,
    globalStrides: *const u64,
    boxDim: *const u32,
    elementStrides: *const u32,
    interleave: c_uint,
    swizzle: c_uint,
    l2Promotion: c_uint,
    oobFill: c_uint,
) -> CUresult {
    entry("cuTensorMapEncodeTiled", true, || {
        let m = (|| {
            let r = rank(tensorRank, false)?;
            let dtype = data_type(tensorDataType)?;
            let (interleave, swizzle, l2, oob) = enums(interleave, swizzle, l2Promotion, oobFill)?;
            let dims = arr(globalDim, r, "globalDim")?;
            let s = arr(globalStrides, r - 1, "globalStrides")?;
            let box_dim = arr(boxDim, r, "boxDim")?;
            let elem_strides = arr(elementStrides, r, "elementStrides")?;
            Ok(TensorMap {
                mode: Mode::Tiled { box_dim },
                dtype,
                rank: r as u32,
                addr: globalAddress as usize as u64,
                dims,
                strides: [0, s[0], s[1], s[2], s[3]],
                elem_strides,
                interleave,
                swizzle,
                l2,
                oob,
            })
        })();
        store("cuTensorMapEncodeTiled", tensorMap, m)
    })
}

/// The element type of a `CUtensorMapDataType` code.
fn data_type(code: c_uint) -> Result<DataType, MapError> {
    DataType::from_code(code).ok_or(MapError { field: "tensorDataType".into(), msg: format!("{code} is not a CUtensorMapDataType") })
}

/// Creates an im2col tensor map (parameters as `cuda.h` documents them).
///
/// # Safety
/// As [`cuTensorMapEncodeTiled`]; the corners hold `tensorRank - 2` entries.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuTensorMapEncodeIm2col(
    tensorMap: *mut c_void,
    tensorDataType: c_uint,
    tensorRank: c_uint,
    globalAddress: *mut c_void,
    globalDim: *const u64,
    globalStrides: *const u64,
    pixelBoxLowerCorner: *const c_int,
    pixelBoxUpperCorner: *const c_int,
    channelsPerPixel: c_uint,
    pixelsPerColumn: c_uint,
    elementStrides: *const u32,
    interleave: c_uint,
    swizzle: c_uint,
    l2Promotion: c_uint,
    oobFill: c_uint,
) -> CUresult {
    entry("cuTensorMapEncodeIm2col", true, || {
        let m = (|| {
            let r = rank(tensorRank, true)?;
            let dtype = data_type(tensorDataType)?;
            let (interleave, swizzle, l2, oob) = enums(interleave, swizzle, l2Promotion, oobFill)?;
            let dims = arr(globalDim, r, "globalDim")?;
            let s = arr(globalStrides, r - 1, "globalStrides")?;
            let lo = arr(pixelBoxLowerCorner, r - 2, "pixelBoxLowerCorner")?;
            let up = arr(pixelBoxUpperCorner, r - 2, "pixelBoxUpperCorner")?;
            let elem_strides = arr(elementStrides, r, "elementStrides")?;
            Ok(TensorMap {
                mode: Mode::Im2col { lower: [lo[0], lo[1], lo[2]], upper: [up[0], up[1], up[2]], channels: channelsPerPixel, pixels: pixelsPerColumn },
                dtype,
                rank: r as u32,
                addr: globalAddress as usize as u64,
                dims,
                strides: [0, s[0], s[1], s[2], s[3]],
                elem_strides,
                interleave,
                swizzle,
                l2,
                oob,
            })
        })();
        store("cuTensorMapEncodeIm2col", tensorMap, m)
    })
}

/// Replaces the global address of a tensor map this library wrote.
///
/// # Safety
/// `tensorMap` is null or valid for 128 bytes of reads and writes.
#[no_mangle]
pub unsafe extern "C" fn cuTensorMapReplaceAddress(tensorMap: *mut c_void, globalAddress: *mut c_void) -> CUresult {
    entry("cuTensorMapReplaceAddress", true, || {
        if tensorMap.is_null() || tensorMap as usize % 64 != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut b = [0u8; SIZE];
        std::ptr::copy_nonoverlapping(tensorMap as *const u8, b.as_mut_ptr(), SIZE);
        let m = TensorMap::from_bytes(&b).map(|m| TensorMap { addr: globalAddress as usize as u64, ..m });
        store("cuTensorMapReplaceAddress", tensorMap, m)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C, align(64))]
    struct Map([u8; 128]);

    fn init() {
        assert_eq!(crate::device::cuInit(0), CUDA_SUCCESS);
    }

    /// Triton's 2-D f16 descriptor: 256 x 512 row-major, box 64 x 128,
    /// 128-byte swizzle.
    unsafe fn tiled(m: &mut Map, addr: u64, dims: &[u64], strides: &[u64], bx: &[u32], swz: c_uint, oob: c_uint) -> CUresult {
        let es = [1u32; 5];
        cuTensorMapEncodeTiled(m.0.as_mut_ptr() as *mut c_void, 6, dims.len() as c_uint, addr as usize as *mut c_void, dims.as_ptr(), strides.as_ptr(), bx.as_ptr(), es.as_ptr(), 0, swz, 2, oob)
    }

    #[test]
    fn tiled_writes_what_the_decoder_reads() {
        init();
        let mut m = Map([0xee; 128]);
        let r = unsafe { tiled(&mut m, 0x7000_0000, &[512, 256], &[1024], &[64, 128], 3, 0) };
        assert_eq!(r, CUDA_SUCCESS);
        let t = TensorMap::from_bytes(&m.0).unwrap();
        assert_eq!(t.mode, Mode::Tiled { box_dim: [64, 128, 0, 0, 0] });
        assert_eq!((t.dtype, t.rank, t.addr), (DataType::F16, 2, 0x7000_0000));
        assert_eq!(&t.dims[..2], &[512, 256]);
        assert_eq!(t.strides[1], 1024);
        assert_eq!((t.swizzle, t.l2, t.oob), (Swizzle::B128, L2Promotion::B128, OobFill::Zero));
        // Replacing the address keeps the rest.
        assert_eq!(unsafe { cuTensorMapReplaceAddress(m.0.as_mut_ptr() as *mut c_void, 0x7100_0000usize as *mut c_void) }, CUDA_SUCCESS);
        assert_eq!(TensorMap::from_bytes(&m.0).unwrap(), TensorMap { addr: 0x7100_0000, ..t });
        // A misaligned address is refused and leaves the map unchanged.
        let before = m.0;
        assert_eq!(unsafe { cuTensorMapReplaceAddress(m.0.as_mut_ptr() as *mut c_void, 0x7100_0008usize as *mut c_void) }, CUDA_ERROR_INVALID_VALUE);
        assert_eq!(m.0, before);
    }

    #[test]
    fn broken_rules_are_invalid_value_and_write_nothing() {
        init();
        let mut m = Map([0xee; 128]);
        unsafe {
            // Box 128 x f16 = 256 bytes over the 128-byte swizzle span.
            assert_eq!(tiled(&mut m, 0x7000_0000, &[512, 256], &[1024], &[128, 128], 3, 0), CUDA_ERROR_INVALID_VALUE);
            // Stride not a multiple of 16; address not 16-byte aligned.
            assert_eq!(tiled(&mut m, 0x7000_0000, &[512, 256], &[1000], &[64, 128], 3, 0), CUDA_ERROR_INVALID_VALUE);
            assert_eq!(tiled(&mut m, 0x7000_0004, &[512, 256], &[1024], &[64, 128], 3, 0), CUDA_ERROR_INVALID_VALUE);
            // Unknown swizzle and fill codes; an sm_100 swizzle.
            assert_eq!(tiled(&mut m, 0x7000_0000, &[512, 256], &[1024], &[64, 128], 9, 0), CUDA_ERROR_INVALID_VALUE);
            assert_eq!(tiled(&mut m, 0x7000_0000, &[512, 256], &[1024], &[64, 128], 4, 0), CUDA_ERROR_INVALID_VALUE);
            assert_eq!(tiled(&mut m, 0x7000_0000, &[512, 256], &[1024], &[64, 128], 3, 2), CUDA_ERROR_INVALID_VALUE);
            // Rank 0 and 6; null arrays; a misaligned or null map.
            assert_eq!(tiled(&mut m, 0x7000_0000, &[], &[], &[], 0, 0), CUDA_ERROR_INVALID_VALUE);
            let es = [1u32; 6];
            let d = [16u64; 6];
            let b = [8u32; 6];
            assert_eq!(cuTensorMapEncodeTiled(m.0.as_mut_ptr() as *mut c_void, 6, 6, std::ptr::null_mut(), d.as_ptr(), d.as_ptr(), b.as_ptr(), es.as_ptr(), 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
            assert_eq!(cuTensorMapEncodeTiled(m.0.as_mut_ptr() as *mut c_void, 6, 2, std::ptr::null_mut(), std::ptr::null(), d.as_ptr(), b.as_ptr(), es.as_ptr(), 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
            assert_eq!(cuTensorMapEncodeTiled(m.0.as_mut_ptr().add(8) as *mut c_void, 6, 2, std::ptr::null_mut(), d.as_ptr(), d.as_ptr(), b.as_ptr(), es.as_ptr(), 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
            assert_eq!(cuTensorMapEncodeTiled(std::ptr::null_mut(), 6, 2, std::ptr::null_mut(), d.as_ptr(), d.as_ptr(), b.as_ptr(), es.as_ptr(), 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
        }
        assert_eq!(m.0, [0xee; 128]);
        // The same 2-D map with valid values succeeds (so the refusals above
        // were the rule each broke).
        assert_eq!(unsafe { tiled(&mut m, 0x7000_0000, &[512, 256], &[1024], &[64, 128], 3, 1) }, CUDA_SUCCESS);
    }

    #[test]
    fn im2col_is_encoded_and_checked() {
        init();
        let mut m = Map([0; 128]);
        let dims = [64u64, 32, 32, 4];
        let strides = [128u64, 4096, 131072];
        let (lo, up) = ([-1i32, -1], [1i32, 1]);
        let es = [1u32; 4];
        let call = |m: &mut Map, rank: c_uint, ch: c_uint| unsafe {
            cuTensorMapEncodeIm2col(m.0.as_mut_ptr() as *mut c_void, 6, rank, 0x7000_0000usize as *mut c_void, dims.as_ptr(), strides.as_ptr(), lo.as_ptr(), up.as_ptr(), ch, 32, es.as_ptr(), 0, 3, 0, 0)
        };
        assert_eq!(call(&mut m, 4, 64), CUDA_SUCCESS);
        let t = TensorMap::from_bytes(&m.0).unwrap();
        assert_eq!(t.mode, Mode::Im2col { lower: [-1, -1, 0], upper: [1, 1, 0], channels: 64, pixels: 32 });
        assert_eq!(call(&mut m, 2, 64), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(call(&mut m, 4, 0), CUDA_ERROR_INVALID_VALUE);
        // 128 channels of f16 = 256 bytes over the 128-byte swizzle span.
        assert_eq!(call(&mut m, 4, 128), CUDA_ERROR_INVALID_VALUE);
    }
}
