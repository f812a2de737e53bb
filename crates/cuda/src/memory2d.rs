//! Pitched memory and 2D copies and memsets: `cuMemAllocPitch`,
//! `cuMemcpy2D` (also `Unaligned` and `Async`) and `cuMemsetD2D8/16/32`
//! (also `Async`), which the CUDA runtime's `cudaMallocPitch`,
//! `cudaMemcpy2D*` and `cudaMemset2D*` call.
//!
//! A 2D copy is `Height` rows of `WidthInBytes` bytes, row `y` of a side
//! starting at `base + (Y + y) * Pitch + XInBytes`. Each side is host
//! memory (`CU_MEMORYTYPE_HOST`: a host pointer), device memory
//! (`CU_MEMORYTYPE_DEVICE`) or either (`CU_MEMORYTYPE_UNIFIED`: a tracked
//! device range, else host memory); CUDA arrays (`CU_MEMORYTYPE_ARRAY`)
//! are not modelled and refused with CUDA_ERROR_NOT_SUPPORTED. Rows move
//! as the 1D copies do (`memory.rs`): mapped host memory through the
//! host's bytes. The `Async` forms complete in the call, a legal stream
//! order.
//!
//! Invariants: every device row lies in a tracked range, checked before
//! any byte moves (rows are computed, not stored, and moved through one
//! buffer of at most a MiB: nothing the caller passes sizes an allocation); a pitch smaller than `XInBytes + WidthInBytes` on a side
//! with more than one row is CUDA_ERROR_INVALID_VALUE, as NVIDIA documents.

use crate::memory::{alloc, check, fill, on_host};
use crate::state::{self, entry, put, State};
use crate::types::*;
use std::os::raw::{c_uint, c_void};

/// `CUDA_MEMCPY2D` (`cuda.h`, the `_v2` layout).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy2D {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_memory_type: u32,
    pub src_host: *const c_void,
    pub src_device: CUdeviceptr,
    pub src_array: *mut c_void,
    pub src_pitch: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_memory_type: u32,
    pub dst_host: *mut c_void,
    pub dst_device: CUdeviceptr,
    pub dst_array: *mut c_void,
    pub dst_pitch: usize,
    pub width_in_bytes: usize,
    pub height: usize,
}

/// `CUmemorytype`.
const HOST: u32 = 1;
const DEVICE: u32 = 2;
const ARRAY: u32 = 3;
const UNIFIED: u32 = 4;

/// The pitch `cuMemAllocPitch` gives: rows padded to this many bytes (the
/// device's texture alignment, attribute 14).
const PITCH_ALIGN: u64 = 512;

/// One side of a row copy.
#[derive(Clone, Copy)]
enum Side {
    Host(u64),
    /// An engine address (not mapped host memory).
    Engine(u64),
}

/// One side of a 2D copy: its memory type, base address, `XInBytes`, `Y`
/// and pitch.
struct Plane {
    kind: u32,
    base: u64,
    x: usize,
    y0: usize,
    pitch: usize,
}

impl Plane {
    /// Checks the side's kind and pitch for rows of `width` bytes.
    fn check(&self, width: usize, height: usize) -> Result<(), CUresult> {
        match self.kind {
            HOST | DEVICE | UNIFIED => {}
            ARRAY => return Err(CUDA_ERROR_NOT_SUPPORTED),
            _ => return Err(CUDA_ERROR_INVALID_VALUE),
        }
        if self.base == 0 || (height > 1 && self.pitch < self.x.checked_add(width).ok_or(CUDA_ERROR_INVALID_VALUE)?) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(())
    }

    /// Where row `y` starts, and what kind of memory it is.
    fn row(&self, st: &State, y: usize, width: usize) -> Result<Side, CUresult> {
        let off = (self.y0 as u64 + y as u64).checked_mul(self.pitch as u64).and_then(|o| o.checked_add(self.x as u64)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let a = self.base.checked_add(off).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        Ok(match self.kind {
            HOST => Side::Host(a),
            DEVICE => {
                if on_host(st, a, width as u64)? {
                    Side::Host(a)
                } else {
                    Side::Engine(a)
                }
            }
            // Unified: a tracked range is the device's (or mapped host
            // memory), anything else host memory.
            _ => match st.range(a, width as u64) {
                Some(_) if !on_host(st, a, width as u64)? => Side::Engine(a),
                _ => Side::Host(a),
            },
        })
    }
}

/// Bytes moved at a time (a row longer than this goes in pieces).
const PIECE: usize = 1 << 20;

/// `cuMemcpy2D` and its forms. Every row is checked before any byte moves.
///
/// # Safety
/// `p` is null or a valid `CUDA_MEMCPY2D` whose host pointers are valid
/// for the rows it describes.
unsafe fn copy_2d(name: &str, p: *const Memcpy2D, stream: Option<Handle>) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        let c = p.as_ref().ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let (w, h) = (c.width_in_bytes, c.height);
        if w == 0 || h == 0 {
            return Ok(());
        }
        let src = Plane { kind: c.src_memory_type, base: if c.src_memory_type == HOST { c.src_host as u64 } else { c.src_device }, x: c.src_x_in_bytes, y0: c.src_y, pitch: c.src_pitch };
        let dst = Plane { kind: c.dst_memory_type, base: if c.dst_memory_type == HOST { c.dst_host as u64 } else { c.dst_device }, x: c.dst_x_in_bytes, y0: c.dst_y, pitch: c.dst_pitch };
        src.check(w, h)?;
        dst.check(w, h)?;
        for y in 0..h {
            src.row(&st, y, w)?;
            dst.row(&st, y, w)?;
        }
        let mut buf = vec![0u8; w.min(PIECE)];
        crate::hostmap::with_blocks(|| {
            for y in 0..h {
                let (s, d) = (src.row(&st, y, w)?, dst.row(&st, y, w)?);
                let mut done = 0;
                while done < w {
                    let n = (w - done).min(PIECE);
                    let piece = &mut buf[..n];
                    // SAFETY: a host side is valid for the row (the
                    // caller's promise, or checked mapped host memory);
                    // engine sides were checked against the tracked ranges.
                    match s {
                        Side::Host(a) => unsafe { std::ptr::copy((a as usize + done) as *const u8, piece.as_mut_ptr(), n) },
                        Side::Engine(a) => state::device_read().read_into(a + done as u64, piece).map_err(|_| CUDA_ERROR_INVALID_VALUE)?,
                    }
                    match d {
                        Side::Host(a) => unsafe { std::ptr::copy(piece.as_ptr(), (a as usize + done) as *mut u8, n) },
                        Side::Engine(a) => state::device_write().write(a + done as u64, piece).map_err(|_| CUDA_ERROR_INVALID_VALUE)?,
                    }
                    done += n;
                }
            }
            Ok(())
        })
    })
}

/// # Safety
/// As [`copy_2d`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(p: *const Memcpy2D) -> CUresult {
    copy_2d("cuMemcpy2D_v2", p, None)
}

/// # Safety
/// As [`copy_2d`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(p: *const Memcpy2D) -> CUresult {
    copy_2d("cuMemcpy2DUnaligned_v2", p, None)
}

/// # Safety
/// As [`copy_2d`].
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(p: *const Memcpy2D, stream: Handle) -> CUresult {
    copy_2d("cuMemcpy2DAsync_v2", p, Some(stream))
}

/// `cuMemAllocPitch`: `height` rows of `width` bytes, each row padded to a
/// multiple of [`PITCH_ALIGN`]; `element` (the largest access a kernel
/// makes to it) is 4, 8 or 16.
///
/// # Safety
/// `dptr` and `pitch` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocPitch_v2(dptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, element: c_uint) -> CUresult {
    entry("cuMemAllocPitch_v2", true, || {
        if dptr.is_null() || pitch.is_null() || width == 0 || height == 0 || !matches!(element, 4 | 8 | 16) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let p = (width as u64).div_ceil(PITCH_ALIGN) * PITCH_ALIGN;
        if p > i32::MAX as u64 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let size = p.checked_mul(height as u64).ok_or(CUDA_ERROR_OUT_OF_MEMORY)?;
        let mut st = state::state();
        let ctx = st.current()?;
        let base = alloc(&mut st, ctx, size)?;
        put(dptr, base)?;
        put(pitch, p as usize)
    })
}

/// `height` rows of `width` elements of `pattern` from `dst`, rows `pitch`
/// bytes apart.
fn memset_2d(name: &str, dst: CUdeviceptr, pitch: usize, pattern: &[u8], (width, height): (usize, usize), stream: Option<Handle>) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        let k = pattern.len() as u64;
        if !dst.is_multiple_of(k) || (height > 1 && !(pitch as u64).is_multiple_of(k)) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if width == 0 || height == 0 {
            return Ok(());
        }
        let len = (width as u64).checked_mul(k).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if height > 1 && (pitch as u64) < len {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let row = |y: u64| -> Result<(u64, bool), CUresult> {
            let a = (pitch as u64).checked_mul(y).and_then(|o| dst.checked_add(o)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
            Ok((a, on_host(&st, a, len)?))
        };
        // Every row is checked before any byte is written.
        for y in 0..height as u64 {
            row(y)?;
        }
        crate::hostmap::with_blocks(|| {
            for y in 0..height as u64 {
                let (a, host) = row(y)?;
                if host {
                    // SAFETY: `[a, a+len)` is live mapped host memory (checked).
                    let out = unsafe { std::slice::from_raw_parts_mut(a as usize as *mut u8, len as usize) };
                    out.chunks_exact_mut(pattern.len()).for_each(|c| c.copy_from_slice(pattern));
                } else {
                    fill(&mut state::device_write(), a, len, pattern)?;
                }
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D8_v2(dst: CUdeviceptr, pitch: usize, uc: u8, width: usize, height: usize) -> CUresult {
    memset_2d("cuMemsetD2D8_v2", dst, pitch, &[uc], (width, height), None)
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D16_v2(dst: CUdeviceptr, pitch: usize, us: u16, width: usize, height: usize) -> CUresult {
    memset_2d("cuMemsetD2D16_v2", dst, pitch, &us.to_le_bytes(), (width, height), None)
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D32_v2(dst: CUdeviceptr, pitch: usize, ui: u32, width: usize, height: usize) -> CUresult {
    memset_2d("cuMemsetD2D32_v2", dst, pitch, &ui.to_le_bytes(), (width, height), None)
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, uc: u8, width: usize, height: usize, stream: Handle) -> CUresult {
    memset_2d("cuMemsetD2D8Async", dst, pitch, &[uc], (width, height), Some(stream))
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D16Async(dst: CUdeviceptr, pitch: usize, us: u16, width: usize, height: usize, stream: Handle) -> CUresult {
    memset_2d("cuMemsetD2D16Async", dst, pitch, &us.to_le_bytes(), (width, height), Some(stream))
}

#[no_mangle]
pub extern "C" fn cuMemsetD2D32Async(dst: CUdeviceptr, pitch: usize, ui: u32, width: usize, height: usize, stream: Handle) -> CUresult {
    memset_2d("cuMemsetD2D32Async", dst, pitch, &ui.to_le_bytes(), (width, height), Some(stream))
}
