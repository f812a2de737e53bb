//! Page-locked host memory: `cuMemHostAlloc`/`cuMemAllocHost` and
//! `cuMemFreeHost`, `cuMemHostRegister`/`cuMemHostUnregister`.
//!
//! Every host buffer is as good as pinned here (copies are plain memory
//! copies), so these calls only allocate and track: a block belongs to the
//! current context and is freed with it. Mapping host memory into the
//! device's address space (`DEVICEMAP`) needs the engine to reach host
//! memory, which it cannot yet: CUDA_ERROR_NOT_SUPPORTED.

use crate::report;
use crate::state::{self, entry, put, HostBlock, State};
use crate::types::*;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::os::raw::{c_uint, c_void};

/// `CU_MEMHOSTALLOC_*` / `CU_MEMHOSTREGISTER_*` flags.
pub const PORTABLE: c_uint = 1;
pub const DEVICEMAP: c_uint = 2;
pub const WRITECOMBINED: c_uint = 4;
pub const REGISTER_IOMEMORY: c_uint = 4;
pub const REGISTER_READ_ONLY: c_uint = 8;

/// Alignment of allocated blocks (a page).
const ALIGN: usize = 4096;

fn layout(size: usize) -> Option<Layout> {
    Layout::from_size_align(size, ALIGN).ok()
}

/// Frees block `base` if this library allocated it.
fn release(base: usize, b: &HostBlock) {
    if b.owned {
        if let Some(l) = layout(b.size) {
            // SAFETY: allocated in `host_alloc` with this layout, freed once
            // (the block has just left the registry).
            unsafe { dealloc(base as *mut u8, l) };
        }
    }
}

/// Frees and forgets the host blocks of context `ctx`.
pub fn release_context(st: &mut State, ctx: u64) {
    let mine: Vec<usize> = st.host.iter().filter(|(_, b)| b.ctx == ctx).map(|(a, _)| *a).collect();
    for a in mine {
        if let Some(b) = st.host.remove(&a) {
            release(a, &b);
        }
    }
}

/// Whether `[addr, addr+size)` overlaps a tracked block.
fn overlaps(st: &State, addr: usize, size: usize) -> bool {
    let end = addr.saturating_add(size);
    st.host.range(..end).next_back().is_some_and(|(&a, b)| a + b.size > addr)
}

unsafe fn host_alloc(name: &str, pp: *mut *mut c_void, size: usize, flags: c_uint) -> CUresult {
    entry(name, true, || {
        if pp.is_null() || size == 0 || flags & !(PORTABLE | DEVICEMAP | WRITECOMBINED) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if flags & DEVICEMAP != 0 {
            report::log("cuMemHostAlloc: DEVICEMAP (host memory a kernel reads) is not supported yet");
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let l = layout(size).ok_or(CUDA_ERROR_OUT_OF_MEMORY)?;
        let p = alloc_zeroed(l);
        if p.is_null() {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        st.host.insert(p as usize, HostBlock { size, ctx, owned: true });
        put(pp, p as *mut c_void)
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

/// Frees a block of `cuMemHostAlloc`/`cuMemAllocHost`; anything else is
/// CUDA_ERROR_INVALID_VALUE.
#[no_mangle]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    entry("cuMemFreeHost", true, || {
        let mut st = state::state();
        st.current()?;
        match st.host.get(&(p as usize)) {
            Some(b) if b.owned => {
                let b = st.host.remove(&(p as usize)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
                release(p as usize, &b);
                Ok(())
            }
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

/// Registers `[p, p+size)` as page-locked (nothing to do but track it).
///
/// # Safety
/// `p` is the caller's memory of at least `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostRegister_v2(p: *mut c_void, size: usize, flags: c_uint) -> CUresult {
    entry("cuMemHostRegister_v2", true, || {
        if p.is_null() || size == 0 || flags & !(PORTABLE | DEVICEMAP | REGISTER_IOMEMORY | REGISTER_READ_ONLY) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if flags & (DEVICEMAP | REGISTER_IOMEMORY) != 0 {
            report::log("cuMemHostRegister: DEVICEMAP and IOMEMORY are not supported yet");
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        if overlaps(&st, p as usize, size) {
            return Err(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
        st.host.insert(p as usize, HostBlock { size, ctx, owned: false });
        Ok(())
    })
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
                st.host.remove(&(p as usize));
                Ok(())
            }
            _ => Err(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED),
        }
    })
}
