//! Managed (unified) memory: `cuMemAllocManaged` (freed by `cuMemFree`),
//! `cuMemAdvise(_v2)` and `cuMemPrefetchAsync(_v2)`.
//!
//! A managed block is host memory mapped into the engine at its own
//! address ([`crate::hostmap`]), so the host and kernels use one pointer;
//! its bytes are the host's between launches. The device reports no
//! concurrent managed access (attribute 89 is 0), as GPUs before Pascal
//! and on Windows do: the host must not touch a block while a kernel runs
//! (here launches complete inside their call, so it cannot), a prefetch to
//! the device is CUDA_ERROR_INVALID_DEVICE and one to the CPU does nothing
//! (the bytes are there). Advice is accepted and has no effect. Managed
//! bytes count as allocated device memory (`cuMemGetInfo`).

use crate::hostmap;
use crate::state::{self, entry, from_ptr, put, Range, RangeKind, State};
use crate::types::*;
use std::os::raw::{c_int, c_uint};

/// `CUmemAttach_flags`.
pub const CU_MEM_ATTACH_GLOBAL: c_uint = 1;
pub const CU_MEM_ATTACH_HOST: c_uint = 2;
/// `CU_DEVICE_CPU`.
pub const CU_DEVICE_CPU: CUdevice = -1;
/// `CUmemLocationType`.
pub const CU_MEM_LOCATION_TYPE_DEVICE: c_int = 1;
pub const CU_MEM_LOCATION_TYPE_HOST: c_int = 2;
pub const CU_MEM_LOCATION_TYPE_HOST_NUMA: c_int = 3;
pub const CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: c_int = 4;

/// `CUmemLocation`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemLocation {
    pub kind: c_int,
    pub id: c_int,
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytesize: usize, flags: c_uint) -> CUresult {
    entry("cuMemAllocManaged", true, || {
        if dptr.is_null() || bytesize == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let p = hostmap::map_new(bytesize)?;
        let id = st.handle(0);
        st.ranges.insert(p, Range { size: bytesize as u64, kind: RangeKind::Managed { ctx, flags, id } });
        st.allocated += bytesize as u64;
        put(dptr, p)
    })
}

/// Checks that `[ptr, ptr+count)` lies in one managed block.
fn managed_range(st: &State, ptr: CUdeviceptr, count: usize) -> Result<(), CUresult> {
    st.current()?;
    match st.range(ptr, (count as u64).max(1)) {
        Some((_, Range { kind: RangeKind::Managed { .. }, .. })) if count > 0 => Ok(()),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

/// `CU_MEM_ADVISE_SET_READ_MOSTLY` (1) to `CU_MEM_ADVISE_UNSET_ACCESSED_BY` (6).
fn check_advice(advice: c_int) -> Result<(), CUresult> {
    if (1..=6).contains(&advice) {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_VALUE)
    }
}

/// Accepted for a managed range and device 0 or the CPU; no effect.
#[no_mangle]
pub extern "C" fn cuMemAdvise(ptr: CUdeviceptr, count: usize, advice: c_int, device: CUdevice) -> CUresult {
    entry("cuMemAdvise", true, || {
        check_advice(advice)?;
        managed_range(&state::state(), ptr, count)?;
        match device {
            0 | CU_DEVICE_CPU => Ok(()),
            _ => Err(CUDA_ERROR_INVALID_DEVICE),
        }
    })
}

/// The location form of [`cuMemAdvise`]: device 0 or the host.
#[no_mangle]
pub extern "C" fn cuMemAdvise_v2(ptr: CUdeviceptr, count: usize, advice: c_int, location: CUmemLocation) -> CUresult {
    entry("cuMemAdvise_v2", true, || {
        check_advice(advice)?;
        managed_range(&state::state(), ptr, count)?;
        match (location.kind, location.id) {
            (CU_MEM_LOCATION_TYPE_DEVICE, 0) | (CU_MEM_LOCATION_TYPE_HOST | CU_MEM_LOCATION_TYPE_HOST_NUMA | CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, _) => Ok(()),
            (CU_MEM_LOCATION_TYPE_DEVICE, _) => Err(CUDA_ERROR_INVALID_DEVICE),
            _ => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

/// A prefetch of a managed range: to the CPU, nothing to do; to the
/// device, CUDA_ERROR_INVALID_DEVICE (no concurrent managed access).
fn prefetch(name: &str, ptr: CUdeviceptr, count: usize, to_host: Option<bool>, stream: Handle) -> CUresult {
    entry(name, true, || {
        let st = state::state();
        let ctx = st.current()?;
        st.check_stream(from_ptr(stream), ctx)?;
        managed_range(&st, ptr, count)?;
        match to_host {
            Some(true) => Ok(()),
            Some(false) => Err(CUDA_ERROR_INVALID_DEVICE),
            None => Err(CUDA_ERROR_INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync(ptr: CUdeviceptr, count: usize, device: CUdevice, stream: Handle) -> CUresult {
    let to_host = match device {
        CU_DEVICE_CPU => Some(true),
        _ => Some(false),
    };
    prefetch("cuMemPrefetchAsync", ptr, count, to_host, stream)
}

#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync_v2(ptr: CUdeviceptr, count: usize, location: CUmemLocation, flags: c_uint, stream: Handle) -> CUresult {
    let to_host = match location.kind {
        _ if flags != 0 => None,
        CU_MEM_LOCATION_TYPE_HOST | CU_MEM_LOCATION_TYPE_HOST_NUMA | CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT => Some(true),
        CU_MEM_LOCATION_TYPE_DEVICE => Some(false),
        _ => None,
    };
    prefetch("cuMemPrefetchAsync_v2", ptr, count, to_host, stream)
}
