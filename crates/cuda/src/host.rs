//! Page-locked host memory: `cuMemHostAlloc`/`cuMemAllocHost` and
//! `cuMemFreeHost`, `cuMemHostRegister`/`cuMemHostUnregister`,
//! `cuMemHostGetDevicePointer`, `cuMemHostGetFlags`.
//!
//! The device has unified addressing and can map host memory (attributes 41
//! and 19), so every block, allocated or registered, is mapped into the
//! engine at its own address ([`crate::hostmap`]): a kernel dereferences
//! the host pointer, and `cuMemHostGetDevicePointer` returns it unchanged
//! whatever the flags (`DEVICEMAP`, `PORTABLE`, `WRITECOMBINED` are
//! accepted; one device, so every block is portable). A block belongs to
//! the current context and is released with it. `IOMEMORY` registration
//! (device memory of a third party) is CUDA_ERROR_NOT_SUPPORTED.

use crate::hostmap;
use crate::report;
use crate::state::{self, entry, put, HostBlock, Range, RangeKind, State};
use crate::types::*;
use ptxsim_exec::PlaceError;
use std::os::raw::{c_uint, c_void};

/// `CU_MEMHOSTALLOC_*` / `CU_MEMHOSTREGISTER_*` flags.
pub const PORTABLE: c_uint = 1;
pub const DEVICEMAP: c_uint = 2;
pub const WRITECOMBINED: c_uint = 4;
pub const REGISTER_IOMEMORY: c_uint = 4;
pub const REGISTER_READ_ONLY: c_uint = 8;

/// Forgets block `base` and gives its memory back (an allocated block) or
/// unmaps it from the engine (a registered one).
fn release(st: &mut State, base: usize) {
    if let Some(b) = st.host.remove(&base) {
        st.ranges.remove(&(base as u64));
        if b.owned {
            hostmap::release(base as u64, b.size as u64);
        } else {
            hostmap::unregister(base as u64);
        }
    }
}

/// Frees and forgets the host blocks of context `ctx`.
pub fn release_context(st: &mut State, ctx: u64) {
    let mine: Vec<usize> = st.host.iter().filter(|(_, b)| b.ctx == ctx).map(|(a, _)| *a).collect();
    for a in mine {
        release(st, a);
    }
}

/// Whether `[addr, addr+size)` overlaps a tracked block.
fn overlaps(st: &State, addr: usize, size: usize) -> bool {
    let end = addr.saturating_add(size);
    st.host.range(..end).next_back().is_some_and(|(&a, b)| a + b.size > addr)
}

/// The block holding address `p`: (base, block).
fn containing(st: &State, p: usize) -> Option<(usize, HostBlock)> {
    st.host.range(..=p).next_back().filter(|(&a, b)| p < a + b.size).map(|(&a, b)| (a, *b))
}

unsafe fn host_alloc(name: &str, pp: *mut *mut c_void, size: usize, flags: c_uint) -> CUresult {
    entry(name, true, || {
        if pp.is_null() || size == 0 || flags & !(PORTABLE | DEVICEMAP | WRITECOMBINED) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let p = hostmap::map_new(size)?;
        let id = st.handle(0);
        st.host.insert(p as usize, HostBlock { size, ctx, owned: true, flags });
        st.ranges.insert(p, Range { size: size as u64, kind: RangeKind::Host { ctx, id } });
        put(pp, p as usize as *mut c_void)
    })
}

/// # Safety
/// `pp` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(pp: *mut *mut c_void, size: usize, flags: c_uint) -> CUresult {
    host_alloc("cuMemHostAlloc", pp, size, flags)
}

/// # Safety
/// `pp` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, size: usize) -> CUresult {
    host_alloc("cuMemAllocHost_v2", pp, size, 0)
}

/// Frees a block of `cuMemHostAlloc`/`cuMemAllocHost`; anything else
/// (a registered range, an interior or foreign pointer, a block freed
/// already) is CUDA_ERROR_INVALID_VALUE.
#[no_mangle]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    entry("cuMemFreeHost", true, || {
        let mut st = state::state();
        st.current()?;
        // NULL is freed as free(NULL) frees it: nothing, and success.
        if p.is_null() {
            return Ok(());
        }
        match st.host.get(&(p as usize)) {
            Some(b) if b.owned => {
                release(&mut st, p as usize);
                Ok(())
            }
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

unsafe fn register(name: &str, p: *mut c_void, size: usize, flags: c_uint) -> CUresult {
    entry(name, true, || {
        if p.is_null() || size == 0 || flags & !(PORTABLE | DEVICEMAP | REGISTER_IOMEMORY | REGISTER_READ_ONLY) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if flags & REGISTER_IOMEMORY != 0 {
            report::log("cuMemHostRegister: IOMEMORY (a third party's device memory) is not supported");
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        if overlaps(&st, p as usize, size) {
            return Err(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
        match hostmap::register(p as u64, size as u64, flags & REGISTER_READ_ONLY != 0) {
            Ok(()) => {}
            Err(PlaceError::OutOfMemory { .. }) => return Err(CUDA_ERROR_OUT_OF_MEMORY),
            Err(e) => {
                // The range shares an 8-byte word with another registered
                // range, or its addresses are ones the engine uses itself.
                report::log(&format!("{name}: cannot map {size} bytes at {p:p} into the device's address space: {e}"));
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
        }
        let id = st.handle(0);
        st.host.insert(p as usize, HostBlock { size, ctx, owned: false, flags });
        st.ranges.insert(p as u64, Range { size: size as u64, kind: RangeKind::Host { ctx, id } });
        Ok(())
    })
}

/// Registers the caller's `[p, p+size)` as page-locked and maps it for
/// kernels at its own address.
///
/// # Safety
/// `p` is the caller's memory of at least `size` bytes, kept until
/// `cuMemHostUnregister`.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: c_uint) -> CUresult {
    register("cuMemHostRegister_v2", p, size, flags)
}

/// The first version of [`cuMemHostRegister_v2`] (the same signature).
///
/// # Safety
/// As [`cuMemHostRegister_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister(p: *mut c_void, size: usize, flags: c_uint) -> CUresult {
    register("cuMemHostRegister", p, size, flags)
}

/// Unregisters a range registered by `cuMemHostRegister` (by its base).
#[no_mangle]
pub extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    entry("cuMemHostUnregister", true, || {
        if p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        st.current()?;
        match st.host.get(&(p as usize)) {
            Some(b) if !b.owned => {
                release(&mut st, p as usize);
                Ok(())
            }
            _ => Err(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
        }
    })
}

/// The device pointer of host address `p` inside an allocated or
/// registered block: `p` itself (the block is mapped at its own address).
/// `flags` must be 0; an address outside every block is
/// CUDA_ERROR_INVALID_VALUE.
///
/// # Safety
/// `pdptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(pdptr: *mut CUdeviceptr, p: *mut c_void, flags: c_uint) -> CUresult {
    entry("cuMemHostGetDevicePointer_v2", true, || {
        if pdptr.is_null() || p.is_null() || flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        st.current()?;
        containing(&st, p as usize).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        put(pdptr, p as u64)
    })
}

/// The flags block `p` (any address inside it) was allocated with by
/// `cuMemHostAlloc` (0 for `cuMemAllocHost`); a registered range or any
/// other address is CUDA_ERROR_INVALID_VALUE.
///
/// # Safety
/// `pflags` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetFlags(pflags: *mut c_uint, p: *mut c_void) -> CUresult {
    entry("cuMemHostGetFlags", true, || {
        if pflags.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        st.current()?;
        match containing(&st, p as usize) {
            Some((_, b)) if b.owned => put(pflags, b.flags),
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}
