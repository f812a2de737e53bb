//! Device memory: allocation and free, the memory info and address-range
//! queries, host↔device and device↔device copies (`cuMemcpy`/`cuMemcpyAsync`
//! in any direction, by unified addressing), and memsets (the `Async`
//! forms run at once, which is a legal stream order).
//!
//! Invariants: a copy's device side is a range of [`State::ranges`] (a
//! live allocation, a loaded module's `.global` variable, or mapped host
//! memory: pinned or managed), and `cuMemcpy`'s other sides are host
//! memory the process maps (checked with `mincore`); on mapped host memory copies and memsets act
//! on the host's bytes ([`crate::hostmap`] copies them in for each launch).
//! `cuMemFree` gives a device block back to the engine (`Device::free`),
//! whose addresses are never reused, so a kernel that keeps a freed pointer
//! traps out of bounds; a managed block's mapping goes back to the host.

use crate::state::{self, entry, put, Range, RangeKind, State};
use crate::types::*;
use ptxsim_exec::Device;
use std::os::raw::c_void;

/// Bytes written per chunk when filling device memory.
const CHUNK: u64 = 1 << 20;

/// Whether a checked device range is mapped host memory (its bytes are the
/// host's) rather than the engine's own.
pub(crate) fn on_host(st: &State, addr: u64, n: u64) -> Result<bool, CUresult> {
    let (base, r) = st.range(addr, n).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    Ok(match r.kind {
        RangeKind::Host { .. } | RangeKind::Managed { .. } => true,
        // A module's `.managed` variable is host memory too.
        RangeKind::Global { .. } => crate::hostmap::adopted(base),
        _ => false,
    })
}

/// Fills `[addr, addr+len)` with `pattern` repeated (`len` a multiple of
/// its length).
pub(crate) fn fill(dev: &mut Device, addr: u64, len: u64, pattern: &[u8]) -> Result<(), CUresult> {
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
pub(crate) fn alloc(st: &mut State, ctx: u64, size: u64) -> Result<u64, CUresult> {
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
        // Freeing 0 does nothing, as free(NULL) (what a GPU's driver
        // answers; cudart's cudaFree(0) ends in this call).
        if dptr == 0 {
            return Ok(());
        }
        match st.ranges.get(&dptr) {
            Some(Range { size, kind: RangeKind::Alloc { .. } }) => {
                let size = *size;
                st.ranges.remove(&dptr);
                st.allocated -= size;
                state::device_write().free(dptr).map_err(|_| CUDA_ERROR_INVALID_VALUE)
            }
            Some(Range { size, kind: RangeKind::Managed { .. } }) => {
                let size = *size;
                st.ranges.remove(&dptr);
                st.allocated -= size;
                crate::hostmap::release(dptr, size);
                Ok(())
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
pub(crate) fn check(st: &State, stream: Option<Handle>, ranges: &[(u64, u64)]) -> Result<(), CUresult> {
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
        if on_host(&st, dst, n as u64)? {
            crate::hostmap::with_blocks(|| std::ptr::copy(src as *const u8, dst as usize as *mut u8, n));
            return Ok(());
        }
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
        if on_host(&st, src, n as u64)? {
            crate::hostmap::with_blocks(|| std::ptr::copy(src as usize as *const u8, dst as *mut u8, n));
            return Ok(());
        }
        let out = std::slice::from_raw_parts_mut(dst as *mut u8, n);
        state::device_read().read_into(src, out).map_err(|_| CUDA_ERROR_INVALID_VALUE)
    })
}

/// Whether `[addr, addr+n)` is mapped in this process (every page of it:
/// `mincore` fails with ENOMEM on an unmapped one), so that it can be read
/// as host memory.
fn mapped_in_process(addr: u64, n: u64) -> bool {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    let (Some(end), start) = (addr.checked_add(n), addr / page * page) else { return false };
    if addr == 0 || end > (1 << 47) {
        return false;
    }
    let pages = (end - start).div_ceil(page) as usize;
    let mut vec = vec![0u8; pages.min(1 << 20)];
    if pages > vec.len() {
        return false;
    }
    // SAFETY: `vec` has a byte per page of the range; mincore only writes it.
    unsafe { libc::mincore(start as usize as *mut c_void, (end - start) as usize, vec.as_mut_ptr()) == 0 }
}

/// Whether a side of a unified copy (`cuMemcpy`) is host memory: mapped
/// host memory the library tracks, or (`unified`) an address of no tracked
/// range that the process maps (pageable memory, which a GPU with unified
/// addressing copies too); an address in neither is INVALID_VALUE.
fn host_side(st: &State, addr: u64, n: u64, unified: bool) -> Result<bool, CUresult> {
    match on_host(st, addr, n) {
        Err(e) if unified => {
            if mapped_in_process(addr, n) {
                Ok(true)
            } else {
                Err(e)
            }
        }
        r => r,
    }
}

fn dtod(name: &str, dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Option<Handle>) -> CUresult {
    copy(name, dst, src, n, stream, false)
}

/// A device-to-device copy, or with `unified` (`cuMemcpy`) a copy in any
/// direction by the pointers' values.
fn copy(name: &str, dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Option<Handle>, unified: bool) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        check(&st, stream, &[])?;
        if n == 0 {
            return Ok(());
        }
        let (src_host, dst_host) = (host_side(&st, src, n as u64, unified)?, host_side(&st, dst, n as u64, unified)?);
        if src_host || dst_host {
            // SAFETY (each arm): a mapped side is live host memory of the
            // checked range; the other side is the engine's.
            return crate::hostmap::with_blocks(|| unsafe {
                let (s, d) = (src as usize as *const u8, dst as usize as *mut u8);
                match (src_host, dst_host) {
                    (true, true) => {
                        std::ptr::copy(s, d, n);
                        Ok(())
                    }
                    (true, false) => state::device_write().write(dst, std::slice::from_raw_parts(s, n)).map_err(|_| CUDA_ERROR_INVALID_VALUE),
                    _ => state::device_read().read_into(src, std::slice::from_raw_parts_mut(d, n)).map_err(|_| CUDA_ERROR_INVALID_VALUE),
                }
            });
        }
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

/// Copies `n` bytes by unified addressing: between tracked ranges (device
/// memory, module variables, mapped host memory) and pageable host memory
/// (an address of no tracked range that the process maps, as `cudaMemcpy`
/// with `cudaMemcpyDefault` passes it); an address in neither is
/// CUDA_ERROR_INVALID_VALUE (a stale device pointer is not mapped in the
/// process: the engine's addresses are its own).
#[no_mangle]
pub extern "C" fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, n: usize) -> CUresult {
    copy("cuMemcpy", dst, src, n, None, true)
}

#[no_mangle]
pub extern "C" fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, n: usize, stream: Handle) -> CUresult {
    copy("cuMemcpyAsync", dst, src, n, Some(stream), true)
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
        if on_host(&st, dst, len)? {
            // SAFETY: `[dst, dst+len)` is live mapped host memory (checked).
            let out = unsafe { std::slice::from_raw_parts_mut(dst as usize as *mut u8, len as usize) };
            crate::hostmap::with_blocks(|| out.chunks_exact_mut(pattern.len()).for_each(|c| c.copy_from_slice(pattern)));
            return Ok(());
        }
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
