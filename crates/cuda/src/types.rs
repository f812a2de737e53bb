//! The C-facing types of the driver API: `CUresult` codes with their names
//! and descriptions (`cuGetErrorName`/`cuGetErrorString`), handle and
//! pointer types, and the device attribute numbers this library answers.
//! Values follow the driver API's `cuda.h`; only the ones used here appear.

use std::ffi::CStr;
use std::os::raw::c_void;

/// `CUresult`: 0 is success, everything else an error code.
pub type CUresult = u32;
/// `CUdevice`: an ordinal.
pub type CUdevice = i32;
/// `CUdeviceptr`: a 64-bit device address.
pub type CUdeviceptr = u64;
/// Opaque handles (`CUcontext`, `CUmodule`, `CUfunction`, `CUstream`): this
/// library hands out tagged integers cast to pointers and never dereferences
/// one; each is looked up in a registry (`state.rs`).
pub type Handle = *mut c_void;

pub const CUDA_SUCCESS: CUresult = 0;
pub const CUDA_ERROR_INVALID_VALUE: CUresult = 1;
pub const CUDA_ERROR_OUT_OF_MEMORY: CUresult = 2;
pub const CUDA_ERROR_NOT_INITIALIZED: CUresult = 3;
pub const CUDA_ERROR_NO_DEVICE: CUresult = 100;
pub const CUDA_ERROR_INVALID_DEVICE: CUresult = 101;
pub const CUDA_ERROR_INVALID_IMAGE: CUresult = 200;
pub const CUDA_ERROR_NO_BINARY_FOR_GPU: CUresult = 209;
pub const CUDA_ERROR_INVALID_CONTEXT: CUresult = 201;
pub const CUDA_ERROR_FILE_NOT_FOUND: CUresult = 301;
pub const CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: CUresult = 303;
pub const CUDA_ERROR_INVALID_PTX: CUresult = 218;
pub const CUDA_ERROR_UNSUPPORTED_LIMIT: CUresult = 215;
pub const CUDA_ERROR_INVALID_HANDLE: CUresult = 400;
pub const CUDA_ERROR_NOT_FOUND: CUresult = 500;
pub const CUDA_ERROR_NOT_READY: CUresult = 600;
pub const CUDA_ERROR_ILLEGAL_ADDRESS: CUresult = 700;
pub const CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: CUresult = 701;
pub const CUDA_ERROR_LAUNCH_TIMEOUT: CUresult = 702;
pub const CUDA_ERROR_CONTEXT_IS_DESTROYED: CUresult = 709;
pub const CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: CUresult = 712;
pub const CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: CUresult = 713;
pub const CUDA_ERROR_ASSERT: CUresult = 710;
pub const CUDA_ERROR_MISALIGNED_ADDRESS: CUresult = 716;
pub const CUDA_ERROR_LAUNCH_FAILED: CUresult = 719;
pub const CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: CUresult = 720;
pub const CUDA_ERROR_INVALID_CLUSTER_SIZE: CUresult = 912;
pub const CUDA_ERROR_NOT_PERMITTED: CUresult = 800;
pub const CUDA_ERROR_NOT_SUPPORTED: CUresult = 801;
pub const CUDA_ERROR_UNKNOWN: CUresult = 999;

/// Every code this library can return: (code, name, description).
const ERRORS: &[(CUresult, &CStr, &CStr)] = &[
    (CUDA_SUCCESS, c"CUDA_SUCCESS", c"no error"),
    (CUDA_ERROR_INVALID_VALUE, c"CUDA_ERROR_INVALID_VALUE", c"invalid argument"),
    (CUDA_ERROR_OUT_OF_MEMORY, c"CUDA_ERROR_OUT_OF_MEMORY", c"out of memory"),
    (CUDA_ERROR_NOT_INITIALIZED, c"CUDA_ERROR_NOT_INITIALIZED", c"initialization error"),
    (CUDA_ERROR_NO_DEVICE, c"CUDA_ERROR_NO_DEVICE", c"no CUDA-capable device is detected"),
    (CUDA_ERROR_INVALID_DEVICE, c"CUDA_ERROR_INVALID_DEVICE", c"invalid device ordinal"),
    (CUDA_ERROR_INVALID_IMAGE, c"CUDA_ERROR_INVALID_IMAGE", c"device kernel image is invalid"),
    (
        CUDA_ERROR_NO_BINARY_FOR_GPU,
        c"CUDA_ERROR_NO_BINARY_FOR_GPU",
        c"no kernel image is available for execution on the device (ptxsim runs PTX only: build with nvcc -arch=sm_XY, which embeds compute_XY PTX, or -gencode arch=compute_XY,code=compute_XY)",
    ),
    (CUDA_ERROR_INVALID_CONTEXT, c"CUDA_ERROR_INVALID_CONTEXT", c"invalid device context"),
    (CUDA_ERROR_FILE_NOT_FOUND, c"CUDA_ERROR_FILE_NOT_FOUND", c"file not found"),
    (CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, c"CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", c"shared object initialization failed"),
    (CUDA_ERROR_INVALID_PTX, c"CUDA_ERROR_INVALID_PTX", c"a PTX JIT compilation failed"),
    (CUDA_ERROR_INVALID_HANDLE, c"CUDA_ERROR_INVALID_HANDLE", c"invalid resource handle"),
    (CUDA_ERROR_NOT_FOUND, c"CUDA_ERROR_NOT_FOUND", c"named symbol not found"),
    (CUDA_ERROR_NOT_READY, c"CUDA_ERROR_NOT_READY", c"device not ready"),
    (CUDA_ERROR_ILLEGAL_ADDRESS, c"CUDA_ERROR_ILLEGAL_ADDRESS", c"an illegal memory access was encountered"),
    (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, c"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", c"too many resources requested for launch"),
    (CUDA_ERROR_LAUNCH_TIMEOUT, c"CUDA_ERROR_LAUNCH_TIMEOUT", c"the launch timed out and was terminated"),
    (CUDA_ERROR_CONTEXT_IS_DESTROYED, c"CUDA_ERROR_CONTEXT_IS_DESTROYED", c"context is destroyed"),
    (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, c"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", c"part or all of the requested memory range is already mapped"),
    (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, c"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", c"pointer does not correspond to a registered memory region"),
    (CUDA_ERROR_ASSERT, c"CUDA_ERROR_ASSERT", c"device-side assert triggered"),
    (CUDA_ERROR_MISALIGNED_ADDRESS, c"CUDA_ERROR_MISALIGNED_ADDRESS", c"misaligned address"),
    (CUDA_ERROR_LAUNCH_FAILED, c"CUDA_ERROR_LAUNCH_FAILED", c"unspecified launch failure"),
    (CUDA_ERROR_NOT_PERMITTED, c"CUDA_ERROR_NOT_PERMITTED", c"operation not permitted"),
    (CUDA_ERROR_NOT_SUPPORTED, c"CUDA_ERROR_NOT_SUPPORTED", c"operation not supported"),
    (CUDA_ERROR_UNSUPPORTED_LIMIT, c"CUDA_ERROR_UNSUPPORTED_LIMIT", c"limit is not supported on this architecture"),
    (CUDA_ERROR_UNKNOWN, c"CUDA_ERROR_UNKNOWN", c"unknown error"),
];

/// The name of `code` (`CUDA_ERROR_...`), if it is one this library knows.
pub fn error_name(code: CUresult) -> Option<&'static CStr> {
    ERRORS.iter().find(|e| e.0 == code).map(|e| e.1)
}

/// The description of `code`, if it is one this library knows.
pub fn error_string(code: CUresult) -> Option<&'static CStr> {
    ERRORS.iter().find(|e| e.0 == code).map(|e| e.2)
}

/// `CU_STREAM_LEGACY` and `CU_STREAM_PER_THREAD`: valid without creation.
pub const STREAM_LEGACY: u64 = 1;
pub const STREAM_PER_THREAD: u64 = 2;

/// Shared memory a block may use without opting in (static plus dynamic),
/// and the most it may use after `cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)`
/// (device attributes 8 and 97).
pub const SHARED_PER_BLOCK: u32 = 48 * 1024;
pub const SHARED_PER_BLOCK_OPTIN: u32 = 227 * 1024;

/// The driver version reported (CUDA 13.5): the CUDA runtime refuses to
/// start (cudaErrorInsufficientDriver) under a driver older than itself,
/// so this must be at least the newest runtime supported (nvcc 13.5's).
pub const DRIVER_VERSION: i32 = 13050;
