//! Pointer attributes: `cuPointerGetAttribute` and `cuPointerGetAttributes`.
//!
//! Answered for the ranges of [`crate::state::State::ranges`]: device
//! allocations and module variables (memory type DEVICE, no host
//! pointer), pinned host memory, allocated or registered (HOST), and
//! managed memory (DEVICE, managed). Mapped host memory has one address for
//! the host and kernels, so its DEVICE_POINTER and HOST_POINTER are the
//! pointer itself. Sizes written: CONTEXT, DEVICE_POINTER, HOST_POINTER,
//! BUFFER_ID, RANGE_START_ADDR and RANGE_SIZE 64 bits; MEMORY_TYPE,
//! DEVICE_ORDINAL and the booleans (SYNC_MEMOPS, IS_MANAGED,
//! IS_LEGACY_CUDA_IPC_CAPABLE, MAPPED) 32 bits: `cuda.h` calls them "a
//! boolean" without a C type, and its users read an `unsigned int`/`int`
//! (cuda-python's getter holds a C `int`).
//!
//! Invariants: an address outside every range is CUDA_ERROR_INVALID_VALUE
//! for `cuPointerGetAttribute` and zeros for `cuPointerGetAttributes` (as
//! documented); attributes of the enum this library does not answer are
//! CUDA_ERROR_NOT_SUPPORTED, numbers outside it CUDA_ERROR_INVALID_VALUE.

use crate::report;
use crate::state::{self, entry, put, to_ptr, RangeKind, State};
use crate::types::*;
use std::os::raw::{c_int, c_uint, c_void};

/// `CUpointer_attribute`s answered.
pub const CU_POINTER_ATTRIBUTE_CONTEXT: c_int = 1;
pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: c_int = 2;
pub const CU_POINTER_ATTRIBUTE_DEVICE_POINTER: c_int = 3;
pub const CU_POINTER_ATTRIBUTE_HOST_POINTER: c_int = 4;
pub const CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: c_int = 6;
pub const CU_POINTER_ATTRIBUTE_BUFFER_ID: c_int = 7;
pub const CU_POINTER_ATTRIBUTE_IS_MANAGED: c_int = 8;
pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: c_int = 9;
pub const CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: c_int = 10;
pub const CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: c_int = 11;
pub const CU_POINTER_ATTRIBUTE_RANGE_SIZE: c_int = 12;
pub const CU_POINTER_ATTRIBUTE_MAPPED: c_int = 13;
/// `CUmemorytype`.
pub const CU_MEMORYTYPE_HOST: c_uint = 1;
pub const CU_MEMORYTYPE_DEVICE: c_uint = 2;

/// An attribute's value, by the width written.
#[derive(Clone, Copy, Debug)]
enum Val {
    U32(u32),
    U64(u64),
}

impl Val {
    /// Writes the value through `data`.
    ///
    /// # Safety
    /// `data` is null or valid for a write of the value's width.
    unsafe fn write(self, data: *mut c_void) -> Result<(), CUresult> {
        match self {
            Val::U32(v) => put(data as *mut u32, v),
            Val::U64(v) => put(data as *mut u64, v),
        }
    }
}

/// The zero value of attribute `attr` (its width), or the error for an
/// attribute not answered.
fn zero(attr: c_int) -> Result<Val, CUresult> {
    match attr {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE
        | CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
        | CU_POINTER_ATTRIBUTE_IS_MANAGED
        | CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
        | CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE
        | CU_POINTER_ATTRIBUTE_MAPPED => Ok(Val::U32(0)),
        CU_POINTER_ATTRIBUTE_CONTEXT
        | CU_POINTER_ATTRIBUTE_DEVICE_POINTER
        | CU_POINTER_ATTRIBUTE_HOST_POINTER
        | CU_POINTER_ATTRIBUTE_BUFFER_ID
        | CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
        | CU_POINTER_ATTRIBUTE_RANGE_SIZE => Ok(Val::U64(0)),
        // P2P tokens, handle types, RDMA, access flags, memory pools,
        // mappings, block ids, decompression.
        5 | 14..=21 => {
            report::log(&format!("cuPointerGetAttribute: attribute {attr} is not supported"));
            Err(CUDA_ERROR_NOT_SUPPORTED)
        }
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

/// Attribute `attr` of `ptr`: CUDA_ERROR_INVALID_VALUE when no range holds
/// `ptr` or the attribute has no value for it (the host pointer of device
/// memory).
fn value(st: &State, current: u64, attr: c_int, ptr: CUdeviceptr) -> Result<Val, CUresult> {
    zero(attr)?;
    let (base, r) = st.range(ptr, 1).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let mapped = matches!(r.kind, RangeKind::Host { .. } | RangeKind::Managed { .. });
    Ok(match attr {
        CU_POINTER_ATTRIBUTE_CONTEXT => {
            let ctx = match r.kind {
                RangeKind::Alloc { ctx } | RangeKind::Host { ctx, .. } | RangeKind::Managed { ctx, .. } => ctx,
                RangeKind::Global { module } => st.modules.get(&module).map(|m| m.ctx).filter(|&c| c != 0).unwrap_or(current),
            };
            Val::U64(to_ptr(ctx) as usize as u64)
        }
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE => Val::U32(if matches!(r.kind, RangeKind::Host { .. }) { CU_MEMORYTYPE_HOST } else { CU_MEMORYTYPE_DEVICE }),
        CU_POINTER_ATTRIBUTE_DEVICE_POINTER => Val::U64(ptr),
        CU_POINTER_ATTRIBUTE_HOST_POINTER if mapped => Val::U64(ptr),
        CU_POINTER_ATTRIBUTE_HOST_POINTER => return Err(CUDA_ERROR_INVALID_VALUE),
        // Every synchronous memory operation completes in its call.
        CU_POINTER_ATTRIBUTE_SYNC_MEMOPS => Val::U32(1),
        CU_POINTER_ATTRIBUTE_BUFFER_ID => Val::U64(match r.kind {
            RangeKind::Host { id, .. } | RangeKind::Managed { id, .. } => id,
            // Device addresses are never reused.
            _ => base,
        }),
        CU_POINTER_ATTRIBUTE_IS_MANAGED => Val::U32(matches!(r.kind, RangeKind::Managed { .. }) as u32),
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => Val::U32(0),
        CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE => Val::U32(0),
        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR => Val::U64(base),
        CU_POINTER_ATTRIBUTE_RANGE_SIZE => Val::U64(r.size),
        CU_POINTER_ATTRIBUTE_MAPPED => Val::U32(1),
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    })
}

/// Writes attribute `attr` of pointer `ptr` to `data` (widths in the
/// module comment).
///
/// # Safety
/// `data` is null or valid for a write of the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttribute(data: *mut c_void, attr: c_int, ptr: CUdeviceptr) -> CUresult {
    entry("cuPointerGetAttribute", true, || {
        if data.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        let current = st.current()?;
        value(&st, current, attr, ptr)?.write(data)
    })
}

/// Writes `n` attributes of `ptr`, the i-th through `data[i]`; for an
/// address outside every range (or an attribute with no value for it) the
/// zero of the attribute's width, with CUDA_SUCCESS.
///
/// # Safety
/// `attrs` and `data` are null or hold `n` entries; each `data[i]` is null
/// or valid for a write of its attribute's type.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttributes(n: c_uint, attrs: *const c_int, data: *mut *mut c_void, ptr: CUdeviceptr) -> CUresult {
    entry("cuPointerGetAttributes", true, || {
        if n == 0 {
            return Ok(());
        }
        if attrs.is_null() || data.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        let current = st.current()?;
        let attrs = std::slice::from_raw_parts(attrs, n as usize);
        let data = std::slice::from_raw_parts(data, n as usize);
        // Every attribute is checked before anything is written.
        let zeros = attrs.iter().map(|&a| zero(a)).collect::<Result<Vec<_>, _>>()?;
        for ((&a, &d), z) in attrs.iter().zip(data).zip(zeros) {
            let v = match value(&st, current, a, ptr) {
                Ok(v) => v,
                Err(CUDA_ERROR_INVALID_VALUE) => z,
                Err(e) => return Err(e),
            };
            v.write(d)?;
        }
        Ok(())
    })
}
