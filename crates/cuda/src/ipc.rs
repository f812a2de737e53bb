//! Inter-process sharing of device memory and events (`cuIpc*`): refused.
//! The engine's device memory lives in this process only, so no handle
//! can be opened in another; every function checks its arguments and
//! returns CUDA_ERROR_NOT_SUPPORTED (logged with `PTXSIM_LOG=1`), so a
//! program sees a clear refusal instead of a missing entry point.

use crate::report;
use crate::state::{entry, put};
use crate::types::*;
use std::os::raw::{c_uint, c_void};

/// `CUipcMemHandle` / `CUipcEventHandle`: 64 opaque bytes, passed by value
/// to the `Open` functions.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct IpcHandle {
    pub reserved: [u8; 64],
}

fn refuse(name: &str) -> Result<(), CUresult> {
    report::log(&format!("{name}: inter-process handles are not supported (device memory is private to this process)"));
    Err(CUDA_ERROR_NOT_SUPPORTED)
}

/// # Safety
/// `handle` is null or valid for a write of 64 bytes.
#[no_mangle]
pub unsafe extern "C" fn cuIpcGetMemHandle(handle: *mut IpcHandle, _dptr: CUdeviceptr) -> CUresult {
    entry("cuIpcGetMemHandle", true, || {
        if handle.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        refuse("cuIpcGetMemHandle")
    })
}

unsafe fn open_mem(name: &str, dptr: *mut CUdeviceptr) -> CUresult {
    entry(name, true, || {
        if dptr.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        put(dptr, 0)?;
        refuse(name)
    })
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenMemHandle(dptr: *mut CUdeviceptr, _handle: IpcHandle, _flags: c_uint) -> CUresult {
    open_mem("cuIpcOpenMemHandle", dptr)
}

/// # Safety
/// `dptr` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenMemHandle_v2(dptr: *mut CUdeviceptr, _handle: IpcHandle, _flags: c_uint) -> CUresult {
    open_mem("cuIpcOpenMemHandle_v2", dptr)
}

/// Nothing can have been opened, so every pointer is refused alike.
#[no_mangle]
pub extern "C" fn cuIpcCloseMemHandle(_dptr: CUdeviceptr) -> CUresult {
    entry("cuIpcCloseMemHandle", true, || refuse("cuIpcCloseMemHandle"))
}

/// # Safety
/// `handle` is null or valid for a write of 64 bytes.
#[no_mangle]
pub unsafe extern "C" fn cuIpcGetEventHandle(handle: *mut IpcHandle, _event: *mut c_void) -> CUresult {
    entry("cuIpcGetEventHandle", true, || {
        if handle.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        refuse("cuIpcGetEventHandle")
    })
}

/// # Safety
/// `event` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuIpcOpenEventHandle(event: *mut *mut c_void, _handle: IpcHandle) -> CUresult {
    entry("cuIpcOpenEventHandle", true, || {
        if event.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        put(event, std::ptr::null_mut())?;
        refuse("cuIpcOpenEventHandle")
    })
}
