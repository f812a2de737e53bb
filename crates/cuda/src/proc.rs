//! `cuGetProcAddress` and `cuGetProcAddress_v2`: the driver's versioned
//! entry-point lookup (how `cuda-python`, and so Numba, find every function).
//!
//! The versions of each API name come from [`crate::proc_table`], generated
//! from CUDA's `cudaTypedefs.h` by `scripts/gen_proc_table.py`. A request
//! `(name, cudaVersion, flags)` picks the newest version ≤ `cudaVersion`,
//! whose exported symbol (`cuMemAlloc` at 3020 → `cuMemAlloc_v2`) is looked
//! up in [`IMPLEMENTED`], the one list of this library's exported functions.
//! With `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` the `_ptds`/`_ptsz`
//! form is the same implementation (every operation completes in its call,
//! so the per-thread and legacy default streams order work alike).
//!
//! Results: a name absent from the table or not implemented here is
//! CUDA_ERROR_NOT_FOUND with status SYMBOL_NOT_FOUND; a name whose oldest
//! version is newer than the request is CUDA_ERROR_NOT_FOUND with status
//! VERSION_NOT_SUFFICIENT; `*pfn` is NULL on every failure.

use crate::proc_table::PROC_TABLE;
use crate::state::{entry, put};
use crate::types::*;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};

/// `CUdriverProcAddressQueryResult`.
pub const CU_GET_PROC_ADDRESS_SUCCESS: c_int = 0;
pub const CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND: c_int = 1;
pub const CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: c_int = 2;

/// `CUdriverProcAddress_flags`.
pub const CU_GET_PROC_ADDRESS_DEFAULT: u64 = 0;
pub const CU_GET_PROC_ADDRESS_LEGACY_STREAM: u64 = 1;
pub const CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: u64 = 2;

/// `(exported name, address)` of each listed function; the name is the
/// Rust item's own name, which `#[no_mangle]` makes the symbol's.
macro_rules! implemented {
    ($($path:path => $name:ident),* $(,)?) => {
        /// Every function this library exports, by exported symbol name.
        pub fn implemented() -> &'static [(&'static str, usize)] {
            use std::sync::LazyLock;
            static LIST: LazyLock<Vec<(&'static str, usize)>> = LazyLock::new(|| {
                vec![$((stringify!($name), $path as *const () as usize)),*]
            });
            &LIST
        }
    };
}

// The list: `module::function => function`.
implemented! {
    crate::device::cuInit => cuInit,
    crate::device::cuDriverGetVersion => cuDriverGetVersion,
    crate::device::cuDeviceGetCount => cuDeviceGetCount,
    crate::device::cuDeviceGet => cuDeviceGet,
    crate::device::cuDeviceGetName => cuDeviceGetName,
    crate::device::cuDeviceGetAttribute => cuDeviceGetAttribute,
    crate::device::cuDeviceTotalMem_v2 => cuDeviceTotalMem_v2,
    crate::device::cuDeviceComputeCapability => cuDeviceComputeCapability,
    crate::device::cuDeviceGetUuid => cuDeviceGetUuid,
    crate::device::cuDeviceGetUuid_v2 => cuDeviceGetUuid_v2,
    crate::device::cuGetErrorName => cuGetErrorName,
    crate::device::cuGetErrorString => cuGetErrorString,
    crate::context::cuDevicePrimaryCtxRetain => cuDevicePrimaryCtxRetain,
    crate::context::cuDevicePrimaryCtxRelease => cuDevicePrimaryCtxRelease,
    crate::context::cuDevicePrimaryCtxRelease_v2 => cuDevicePrimaryCtxRelease_v2,
    crate::context::cuDevicePrimaryCtxReset => cuDevicePrimaryCtxReset,
    crate::context::cuDevicePrimaryCtxReset_v2 => cuDevicePrimaryCtxReset_v2,
    crate::context::cuCtxCreate => cuCtxCreate,
    crate::context::cuCtxCreate_v2 => cuCtxCreate_v2,
    crate::context::cuCtxDestroy => cuCtxDestroy,
    crate::context::cuCtxDestroy_v2 => cuCtxDestroy_v2,
    crate::context::cuCtxPushCurrent => cuCtxPushCurrent,
    crate::context::cuCtxPushCurrent_v2 => cuCtxPushCurrent_v2,
    crate::context::cuCtxPopCurrent => cuCtxPopCurrent,
    crate::context::cuCtxPopCurrent_v2 => cuCtxPopCurrent_v2,
    crate::context::cuCtxSetCurrent => cuCtxSetCurrent,
    crate::context::cuCtxGetCurrent => cuCtxGetCurrent,
    crate::context::cuCtxGetDevice => cuCtxGetDevice,
    crate::context::cuCtxSynchronize => cuCtxSynchronize,
    crate::memory::cuMemAlloc_v2 => cuMemAlloc_v2,
    crate::memory::cuMemFree_v2 => cuMemFree_v2,
    crate::memory::cuMemGetInfo_v2 => cuMemGetInfo_v2,
    crate::memory::cuMemGetAddressRange_v2 => cuMemGetAddressRange_v2,
    crate::memory::cuMemcpyHtoD_v2 => cuMemcpyHtoD_v2,
    crate::memory::cuMemcpyHtoDAsync_v2 => cuMemcpyHtoDAsync_v2,
    crate::memory::cuMemcpyDtoH_v2 => cuMemcpyDtoH_v2,
    crate::memory::cuMemcpyDtoHAsync_v2 => cuMemcpyDtoHAsync_v2,
    crate::memory::cuMemcpyDtoD_v2 => cuMemcpyDtoD_v2,
    crate::memory::cuMemcpyDtoDAsync_v2 => cuMemcpyDtoDAsync_v2,
    crate::memory::cuMemsetD8_v2 => cuMemsetD8_v2,
    crate::memory::cuMemsetD16_v2 => cuMemsetD16_v2,
    crate::memory::cuMemsetD32_v2 => cuMemsetD32_v2,
    crate::memory::cuMemsetD8Async => cuMemsetD8Async,
    crate::memory::cuMemsetD16Async => cuMemsetD16Async,
    crate::memory::cuMemsetD32Async => cuMemsetD32Async,
    crate::memory2d::cuMemAllocPitch_v2 => cuMemAllocPitch_v2,
    crate::memory2d::cuMemcpy2D_v2 => cuMemcpy2D_v2,
    crate::memory2d::cuMemcpy2DUnaligned_v2 => cuMemcpy2DUnaligned_v2,
    crate::memory2d::cuMemcpy2DAsync_v2 => cuMemcpy2DAsync_v2,
    crate::memory2d::cuMemsetD2D8_v2 => cuMemsetD2D8_v2,
    crate::memory2d::cuMemsetD2D16_v2 => cuMemsetD2D16_v2,
    crate::memory2d::cuMemsetD2D32_v2 => cuMemsetD2D32_v2,
    crate::memory2d::cuMemsetD2D8Async => cuMemsetD2D8Async,
    crate::memory2d::cuMemsetD2D16Async => cuMemsetD2D16Async,
    crate::memory2d::cuMemsetD2D32Async => cuMemsetD2D32Async,
    crate::module::cuModuleLoadData => cuModuleLoadData,
    crate::module::cuModuleLoadDataEx => cuModuleLoadDataEx,
    crate::module::cuModuleLoadFatBinary => cuModuleLoadFatBinary,
    crate::module::cuModuleGetFunction => cuModuleGetFunction,
    crate::module::cuModuleGetGlobal_v2 => cuModuleGetGlobal_v2,
    crate::module::cuModuleUnload => cuModuleUnload,
    crate::module::cuLaunchKernel => cuLaunchKernel,
    crate::module::cuLaunchCooperativeKernel => cuLaunchCooperativeKernel,
    crate::module::cuStreamCreate => cuStreamCreate,
    crate::module::cuStreamDestroy => cuStreamDestroy,
    crate::module::cuStreamDestroy_v2 => cuStreamDestroy_v2,
    crate::module::cuStreamSynchronize => cuStreamSynchronize,
    crate::library::cuLinkCreate => cuLinkCreate,
    crate::library::cuLinkCreate_v2 => cuLinkCreate_v2,
    crate::library::cuLinkAddData => cuLinkAddData,
    crate::library::cuLinkAddData_v2 => cuLinkAddData_v2,
    crate::library::cuLinkAddFile => cuLinkAddFile,
    crate::library::cuLinkAddFile_v2 => cuLinkAddFile_v2,
    crate::library::cuLinkComplete => cuLinkComplete,
    crate::library::cuLinkDestroy => cuLinkDestroy,
    crate::library::cuLibraryLoadData => cuLibraryLoadData,
    crate::library::cuLibraryGetKernel => cuLibraryGetKernel,
    crate::library::cuLibraryGetGlobal => cuLibraryGetGlobal,
    crate::library::cuLibraryUnload => cuLibraryUnload,
    crate::library::cuKernelGetFunction => cuKernelGetFunction,
    crate::library::cuKernelGetAttribute => cuKernelGetAttribute,
    crate::library::cuFuncGetAttribute => cuFuncGetAttribute,
    crate::library::cuLaunchKernelEx => cuLaunchKernelEx,
    crate::event::cuCtxGetStreamPriorityRange => cuCtxGetStreamPriorityRange,
    crate::event::cuStreamCreateWithPriority => cuStreamCreateWithPriority,
    crate::event::cuEventCreate => cuEventCreate,
    crate::event::cuEventRecord => cuEventRecord,
    crate::event::cuEventQuery => cuEventQuery,
    crate::event::cuEventSynchronize => cuEventSynchronize,
    crate::event::cuEventDestroy => cuEventDestroy,
    crate::event::cuEventDestroy_v2 => cuEventDestroy_v2,
    crate::event::cuEventElapsedTime => cuEventElapsedTime,
    crate::event::cuEventElapsedTime_v2 => cuEventElapsedTime_v2,
    crate::pointer::cuPointerGetAttribute => cuPointerGetAttribute,
    crate::pointer::cuPointerGetAttributes => cuPointerGetAttributes,
    crate::tensormap::cuTensorMapEncodeTiled => cuTensorMapEncodeTiled,
    crate::tensormap::cuTensorMapEncodeIm2col => cuTensorMapEncodeIm2col,
    crate::tensormap::cuTensorMapReplaceAddress => cuTensorMapReplaceAddress,
    crate::host::cuMemHostRegister => cuMemHostRegister,
    crate::host::cuMemHostGetDevicePointer_v2 => cuMemHostGetDevicePointer_v2,
    crate::host::cuMemHostGetFlags => cuMemHostGetFlags,
    crate::managed::cuMemAllocManaged => cuMemAllocManaged,
    crate::managed::cuMemAdvise => cuMemAdvise,
    crate::managed::cuMemAdvise_v2 => cuMemAdvise_v2,
    crate::managed::cuMemPrefetchAsync => cuMemPrefetchAsync,
    crate::managed::cuMemPrefetchAsync_v2 => cuMemPrefetchAsync_v2,
    crate::memory::cuMemcpy => cuMemcpy,
    crate::memory::cuMemcpyAsync => cuMemcpyAsync,
    crate::host::cuMemHostAlloc => cuMemHostAlloc,
    crate::host::cuMemAllocHost_v2 => cuMemAllocHost_v2,
    crate::host::cuMemFreeHost => cuMemFreeHost,
    crate::host::cuMemHostRegister_v2 => cuMemHostRegister_v2,
    crate::host::cuMemHostUnregister => cuMemHostUnregister,
    crate::stream::cuStreamQuery => cuStreamQuery,
    crate::stream::cuStreamWaitEvent => cuStreamWaitEvent,
    crate::stream::cuStreamGetCtx => cuStreamGetCtx,
    crate::stream::cuStreamAddCallback => cuStreamAddCallback,
    crate::stream::cuLaunchHostFunc => cuLaunchHostFunc,
    crate::stream::cuCtxSetCacheConfig => cuCtxSetCacheConfig,
    crate::stream::cuCtxGetCacheConfig => cuCtxGetCacheConfig,
    crate::stream::cuCtxGetLimit => cuCtxGetLimit,
    crate::stream::cuCtxSetLimit => cuCtxSetLimit,
    crate::stream::cuFuncSetCacheConfig => cuFuncSetCacheConfig,
    crate::stream::cuKernelSetCacheConfig => cuKernelSetCacheConfig,
    crate::stream::cuProfilerStart => cuProfilerStart,
    crate::stream::cuProfilerStop => cuProfilerStop,
    crate::occupancy::cuFuncSetAttribute => cuFuncSetAttribute,
    crate::occupancy::cuKernelSetAttribute => cuKernelSetAttribute,
    crate::occupancy::cuOccupancyMaxActiveBlocksPerMultiprocessor => cuOccupancyMaxActiveBlocksPerMultiprocessor,
    crate::library::cuOccupancyMaxActiveClusters => cuOccupancyMaxActiveClusters,
    crate::occupancy::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags => cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
    crate::occupancy::cuOccupancyMaxPotentialBlockSize => cuOccupancyMaxPotentialBlockSize,
    crate::occupancy::cuOccupancyMaxPotentialBlockSizeWithFlags => cuOccupancyMaxPotentialBlockSizeWithFlags,
    crate::proc::cuGetProcAddress => cuGetProcAddress,
    crate::proc::cuGetProcAddress_v2 => cuGetProcAddress_v2,
    crate::export::cuGetExportTable => cuGetExportTable,
    crate::runtime_api::cuCtxGetDevice_v2 => cuCtxGetDevice_v2,
    crate::runtime_api::cuCtxSynchronize_v2 => cuCtxSynchronize_v2,
    crate::runtime_api::cuStreamGetCtx_v2 => cuStreamGetCtx_v2,
    crate::runtime_api::cuDevicePrimaryCtxGetState => cuDevicePrimaryCtxGetState,
    crate::runtime_api::cuDevicePrimaryCtxSetFlags_v2 => cuDevicePrimaryCtxSetFlags_v2,
    crate::runtime_api::cuCtxGetFlags => cuCtxGetFlags,
    crate::runtime_api::cuCtxGetApiVersion => cuCtxGetApiVersion,
    crate::runtime_api::cuCtxGetId => cuCtxGetId,
    crate::runtime_api::cuStreamGetFlags => cuStreamGetFlags,
    crate::runtime_api::cuStreamGetPriority => cuStreamGetPriority,
    crate::runtime_api::cuStreamGetId => cuStreamGetId,
    crate::runtime_api::cuStreamGetDevice => cuStreamGetDevice,
    crate::runtime_api::cuStreamIsCapturing => cuStreamIsCapturing,
    crate::runtime_api::cuStreamGetCaptureInfo_v3 => cuStreamGetCaptureInfo_v3,
    crate::runtime_api::cuThreadExchangeStreamCaptureMode => cuThreadExchangeStreamCaptureMode,
    crate::runtime_api::cuEventRecordWithFlags => cuEventRecordWithFlags,
    crate::runtime_api::cuLaunchHostFunc_v2 => cuLaunchHostFunc_v2,
    crate::runtime_api::cuFuncGetName => cuFuncGetName,
    crate::runtime_api::cuKernelGetName => cuKernelGetName,
    crate::runtime_api::cuLibraryGetManaged => cuLibraryGetManaged,
    crate::runtime_api::cuModuleGetLoadingMode => cuModuleGetLoadingMode,
    crate::runtime_api::cuModuleLoad => cuModuleLoad,
    crate::runtime_api::cuCtxResetPersistingL2Cache => cuCtxResetPersistingL2Cache,
    crate::ipc::cuIpcGetMemHandle => cuIpcGetMemHandle,
    crate::ipc::cuIpcOpenMemHandle => cuIpcOpenMemHandle,
    crate::ipc::cuIpcOpenMemHandle_v2 => cuIpcOpenMemHandle_v2,
    crate::ipc::cuIpcCloseMemHandle => cuIpcCloseMemHandle,
    crate::ipc::cuIpcGetEventHandle => cuIpcGetEventHandle,
    crate::ipc::cuIpcOpenEventHandle => cuIpcOpenEventHandle,
}

/// The address of this library's function exported as `name`.
fn address_of(name: &str) -> Option<usize> {
    implemented().iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
}

/// Resolves `(symbol, version, flags)`: the function's address, or the
/// error code and query status.
pub fn lookup(symbol: &str, version: c_int, flags: u64) -> Result<usize, (CUresult, c_int)> {
    if !matches!(flags, CU_GET_PROC_ADDRESS_DEFAULT | CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
        return Err((CUDA_ERROR_INVALID_VALUE, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND));
    }
    let not_found = (CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    let i = PROC_TABLE.binary_search_by(|(n, _)| (*n).cmp(symbol)).map_err(|_| not_found)?;
    let versions = PROC_TABLE[i].1;
    // The per-thread form at a version is the same implementation as the
    // plain one (see the module comment), so `flags` picks nothing else.
    let &(_, exported, _) = versions.iter().rev().find(|(v, _, _)| *v <= version).ok_or((CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT))?;
    address_of(exported).ok_or(not_found)
}

unsafe fn get_proc(name: &str, symbol: *const c_char, pfn: *mut *mut c_void, version: c_int, flags: u64, status: *mut c_int) -> CUresult {
    entry(name, false, || {
        if pfn.is_null() || symbol.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let found = match CStr::from_ptr(symbol).to_str() {
            Ok(s) => {
                let r = lookup(s, version, flags);
                if r.is_err() {
                    crate::report::log(&format!("{name}: {s} (version {version}, flags {flags}) is not available"));
                }
                r
            }
            Err(_) => Err((CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)),
        };
        let (addr, st, r) = match found {
            Ok(a) => (a, CU_GET_PROC_ADDRESS_SUCCESS, Ok(())),
            Err((code, st)) => (0, st, Err(code)),
        };
        put(pfn, addr as *mut c_void)?;
        if !status.is_null() {
            put(status, st)?;
        }
        r
    })
}

/// The CUDA 11.3 form, without the query status.
///
/// # Safety
/// `symbol` is null or NUL-terminated; `pfn` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, cuda_version: c_int, flags: u64) -> CUresult {
    get_proc("cuGetProcAddress", symbol, pfn, cuda_version, flags, std::ptr::null_mut())
}

/// # Safety
/// `symbol` is null or NUL-terminated; `pfn` and `status` are each null or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress_v2(symbol: *const c_char, pfn: *mut *mut c_void, cuda_version: c_int, flags: u64, status: *mut c_int) -> CUresult {
    get_proc("cuGetProcAddress_v2", symbol, pfn, cuda_version, flags, status)
}

#[cfg(test)]
mod tests {
    //! The generated table is sorted (binary search) and every implemented
    //! name is reachable through it.
    use super::*;

    #[test]
    fn table_is_sorted_and_every_implemented_name_is_reachable() {
        assert!(PROC_TABLE.windows(2).all(|w| w[0].0 < w[1].0));
        for (name, _) in implemented() {
            let reachable = PROC_TABLE.iter().any(|(_, vs)| vs.iter().any(|(_, e, _)| e == name));
            assert!(reachable, "{name} is exported but no (name, version) of the table reaches it");
        }
    }
}
