//! Device memory: allocation and free, the memory info and address-range
//! queries, host↔device and device↔device copies, and memsets (the `Async`
//! forms run at once, which is a legal stream order).
//!
//! Invariants: a host copy touches only a range of [`State::ranges`] (a
//! live allocation or a loaded module's `.global` variable); `cuMemFree`
//! gives the block back to the engine (`Device::free`), whose addresses are
//! never reused, so a kernel that keeps a freed pointer traps out of bounds.

use crate::state::{self, entry, put, Range, RangeKind, State};
use crate::types::*;
use ptxsim_exec::Device;
use std::os::raw::c_void;

/// Bytes written per chunk when filling device memory.
const CHUNK: u64 = 1 << 20;

/// Fills `[addr, addr+len)` with `pattern` repeated (`len` a multiple of
/// its length).
fn fill(dev: &mut Device, addr: u64, len: u64, pattern: &[u8]) -> Result<(), CUresult> {
    let per = (CHUNK / pattern.len() as u64).max(1) * pattern.len() as u64;
    let buf: Vec<u8> = pattern.iter().copied().cycle().take(per.min(len) as usize).collect();
    let mut done = 0;
    while done < len {
        let n = (len - done).min(buf.len() as u64);
        dev.write(addr + done, &buf[..n as usize]).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        done += n;
    }
    Ok(())
}

/// Allocates `size` bytes for context `ctx`.
fn alloc(st: &mut State, ctx: u64, size: u64) -> Result<u64, CUresult> {
    let base = state::device_write().alloc(size).map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
    st.ranges.insert(base, Range { size, kind: RangeKind::Alloc { ctx } });
    st.allocated += size;
    Ok(base)
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult {
    entry("cuMemAlloc_v2", true, || {
        if dptr.is_null() || bytesize == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let base = alloc(&mut st, ctx, bytesize as u64)?;
        put(dptr, base)
    })
}

#[no_mangle]
pub extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    entry("cuMemFree_v2", true, || {
        let mut st = state::state();
        st.current()?;
        match st.ranges.get(&dptr) {
            Some(Range { size, kind: RangeKind::Alloc { .. } }) => {
                let size = *size;
                st.ranges.remove(&dptr);
                st.allocated -= size;
                state::device_write().free(dptr).map_err(|_| CUDA_ERROR_INVALID_VALUE)
            }
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

/// # Safety
/// `free` and `total` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    entry("cuMemGetInfo_v2", true, || {
        if free.is_null() || total.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        st.current()?;
        let cap = state::device_read().limits.global_cap();
        let globals: u64 = st.ranges.values().filter(|r| matches!(r.kind, RangeKind::Global { .. })).map(|r| r.size).sum();
        put(free, cap.saturating_sub(st.allocated + globals) as usize)?;
        put(total, cap as usize)
    })
}

/// # Safety
/// `pbase` and `psize` are each null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(pbase: *mut CUdeviceptr, psize: *mut usize, dptr: CUdeviceptr) -> CUresult {
    entry("cuMemGetAddressRange_v2", true, || {
        let st = state::state();
        st.current()?;
        let (base, r) = st.range(dptr, 1).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if !pbase.is_null() {
            put(pbase, base)?;
        }
        if !psize.is_null() {
            put(psize, r.size as usize)?;
        }
        Ok(())
    })
}

/// Checks the context (and `stream`, when given) and that `[addr, addr+n)`
/// is one device range.
fn check(st: &State, stream: Option<Handle>, ranges: &[(u64, u64)]) -> Result<(), CUresult> {
    let ctx = st.current()?;
    if let Some(s) = stream {
        st.check_stream(state::from_ptr(s), ctx)?;
    }
    for &(a, n) in ranges {
        st.range(a, n).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    }
    Ok(())
}

unsafe fn htod(name: &str, dst: CUdeviceptr, src: *const c_void, n: usize, stream: Option<Handle>) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        if n == 0 {
            return Ok(());
        }
        if src.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        check(&st, None, &[(dst, n as u64)])?;
        let bytes = std::slice::from_raw_parts(src as *const u8, n);
        state::device_write().write(dst, bytes).map_err(|_| CUDA_ERROR_INVALID_VALUE)
    })
}

unsafe fn dtoh(name: &str, dst: *mut c_void, src: CUdeviceptr, n: usize, stream: Option<Handle>) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        if n == 0 {
            return Ok(());
        }
        if dst.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        check(&st, None, &[(src, n as u64)])?;
        let bytes = state::device_read().read(src, n as u64).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, n);
        Ok(())
    })
}

fn dtod(name: &str, dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Option<Handle>) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        if n == 0 {
            return Ok(());
        }
        check(&st, None, &[(src, n as u64), (dst, n as u64)])?;
        let mut dev = state::device_write();
        let n = n as u64;
        if src < dst + n && dst < src + n {
            // Overlapping ranges: through one buffer of the whole source.
            let all = dev.read(src, n).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            return dev.write(dst, &all).map_err(|_| CUDA_ERROR_INVALID_VALUE);
        }
        let mut done = 0u64;
        while done < n {
            let k = (n - done).min(CHUNK);
            let bytes = dev.read(src + done, k).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            dev.write(dst + done, &bytes).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
            done += k;
        }
        Ok(())
    })
}

/// # Safety
/// `src` is null or valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, n: usize) -> CUresult {
    htod("cuMemcpyHtoD_v2", dst, src, n, None)
}

/// # Safety
/// `src` is null or valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, n: usize, stream: Handle) -> CUresult {
    htod("cuMemcpyHtoDAsync_v2", dst, src, n, Some(stream))
}

/// # Safety
/// `dst` is null or valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult {
    dtoh("cuMemcpyDtoH_v2", dst, src, n, None)
}

/// # Safety
/// `dst` is null or valid for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, n: usize, stream: Handle) -> CUresult {
    dtoh("cuMemcpyDtoHAsync_v2", dst, src, n, Some(stream))
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    dtod("cuMemcpyDtoD_v2", dst, src, n, None)
}

#[no_mangle]
pub extern "C" fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Handle) -> CUresult {
    dtod("cuMemcpyDtoDAsync_v2", dst, src, n, Some(stream))
}

/// `count` elements of `pattern` (1, 2 or 4 bytes) from `dst`, which must
/// be aligned to the element size.
fn memset(name: &str, dst: CUdeviceptr, pattern: &[u8], count: usize, stream: Option<Handle>) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        if !dst.is_multiple_of(pattern.len() as u64) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if count == 0 {
            return Ok(());
        }
        let len = (count as u64).checked_mul(pattern.len() as u64).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        check(&st, None, &[(dst, len)])?;
        fill(&mut state::device_write(), dst, len, pattern)
    })
}

#[no_mangle]
pub extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, uc: u8, n: usize) -> CUresult {
    memset("cuMemsetD8_v2", dst, &[uc], n, None)
}

#[no_mangle]
pub extern "C" fn cuMemsetD16_v2(dst: CUdeviceptr, us: u16, n: usize) -> CUresult {
    memset("cuMemsetD16_v2", dst, &us.to_le_bytes(), n, None)
}

#[no_mangle]
pub extern "C" fn cuMemsetD32_v2(dst: CUdeviceptr, ui: u32, n: usize) -> CUresult {
    memset("cuMemsetD32_v2", dst, &ui.to_le_bytes(), n, None)
}

#[no_mangle]
pub extern "C" fn cuMemsetD8Async(dst: CUdeviceptr, uc: u8, n: usize, stream: Handle) -> CUresult {
    memset("cuMemsetD8Async", dst, &[uc], n, Some(stream))
}

#[no_mangle]
pub extern "C" fn cuMemsetD16Async(dst: CUdeviceptr, us: u16, n: usize, stream: Handle) -> CUresult {
    memset("cuMemsetD16Async", dst, &us.to_le_bytes(), n, Some(stream))
}

#[no_mangle]
pub extern "C" fn cuMemsetD32Async(dst: CUdeviceptr, ui: u32, n: usize, stream: Handle) -> CUresult {
    memset("cuMemsetD32Async", dst, &ui.to_le_bytes(), n, Some(stream))
}
