//! Driver functions the CUDA runtime 13.x resolves (through
//! `cuGetProcAddress`) beyond what Numba and Triton use: the context
//! arguments of the 13.0 forms (`cuCtxGetDevice_v2`, `cuCtxSynchronize_v2`,
//! `cuStreamGetCtx_v2`), primary-context state and flags, stream queries
//! (flags, priority, id, device, capture status: never capturing),
//! `cuEventRecordWithFlags`, `cuLaunchHostFunc_v2`, kernel names,
//! `cuLibraryGetManaged` and the module loading mode.
//!
//! Owns: the primary context's flags ([`PRIMARY_FLAGS`]), the creation
//! flags of streams ([`STREAM_FLAGS`], written by `cuStreamCreate*`), each
//! thread's stream-capture mode, and the interned kernel names handed out
//! as C strings (one allocation per distinct name, kept for the process).

use crate::state::{self, entry, from_ptr, put, TAG_FUNCTION, TAG_KERNEL, TAG_LIBRARY};
use crate::types::*;
use std::cell::Cell;
use std::collections::HashMap;
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// `cuDevicePrimaryCtxSetFlags`' flags (scheduling, map-host, local-memory
/// resize), reported by `cuDevicePrimaryCtxGetState` and `cuCtxGetFlags`.
pub static PRIMARY_FLAGS: AtomicU32 = AtomicU32::new(0);

/// Creation flags of live streams (`CU_STREAM_NON_BLOCKING` = 1).
pub static STREAM_FLAGS: Mutex<Option<HashMap<u64, u32>>> = Mutex::new(None);

/// Records stream `h`'s creation flags.
pub fn stream_created(h: u64, flags: u32) {
    STREAM_FLAGS.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(h, flags);
}

/// The context `ctx` names: the current one when null, else itself if live.
fn context(st: &state::State, ctx: Handle) -> Result<u64, CUresult> {
    match from_ptr(ctx) {
        0 => st.current_any(),
        h if st.contexts.contains_key(&h) => Ok(h),
        _ => Err(CUDA_ERROR_INVALID_CONTEXT),
    }
}

/// # Safety
/// `dev` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice_v2(dev: *mut CUdevice, ctx: Handle) -> CUresult {
    entry("cuCtxGetDevice_v2", true, || {
        if dev.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        context(&state::state(), ctx)?;
        put(dev, 0)
    })
}

/// Launches complete inside their calls: only the context's sticky error
/// is left to report.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize_v2(ctx: Handle) -> CUresult {
    entry("cuCtxSynchronize_v2", true, || {
        let st = state::state();
        let h = context(&st, ctx)?;
        match st.contexts.get(&h).and_then(|c| c.sticky) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })
}

/// # Safety
/// `pctx` is null or valid for a write; `green` is null or valid for a
/// write (no green contexts exist: it gets NULL).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx_v2(stream: Handle, pctx: *mut Handle, green: *mut Handle) -> CUresult {
    let r = crate::stream::cuStreamGetCtx(stream, pctx);
    if r == CUDA_SUCCESS && !green.is_null() {
        *green = std::ptr::null_mut();
    }
    r
}

/// # Safety
/// `flags` and `active` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut c_uint, active: *mut c_int) -> CUresult {
    entry("cuDevicePrimaryCtxGetState", true, || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        if flags.is_null() || active.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        put(flags, PRIMARY_FLAGS.load(Ordering::Relaxed))?;
        put(active, (st.primary.is_some() && st.primary_refs > 0) as c_int)
    })
}

/// Flags: scheduling (0, 1 spin, 2 yield, 4 blocking sync), 8 map host,
/// 0x10 keep local memory, 0x20/0x40 coredump and user coredump
/// (accepted; nothing here depends on them).
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: c_uint) -> CUresult {
    entry("cuDevicePrimaryCtxSetFlags_v2", true, || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        if flags & !0x7f != 0 || !matches!(flags & 7, 0 | 1 | 2 | 4) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        PRIMARY_FLAGS.store(flags, Ordering::Relaxed);
        Ok(())
    })
}

/// # Safety
/// `flags` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetFlags(flags: *mut c_uint) -> CUresult {
    entry("cuCtxGetFlags", true, || {
        if flags.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        let h = st.current_any()?;
        let primary = st.contexts.get(&h).is_some_and(|c| c.primary);
        put(flags, if primary { PRIMARY_FLAGS.load(Ordering::Relaxed) } else { 0 })
    })
}

/// Every context has the API version of `cuCtxCreate_v2`'s era, 3020.
///
/// # Safety
/// `version` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetApiVersion(ctx: Handle, version: *mut c_uint) -> CUresult {
    entry("cuCtxGetApiVersion", true, || {
        if version.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        context(&state::state(), ctx)?;
        put(version, 3020)
    })
}

/// The id is the handle's serial (never reused).
///
/// # Safety
/// `id` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetId(ctx: Handle, id: *mut u64) -> CUresult {
    entry("cuCtxGetId", true, || {
        if id.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let h = context(&state::state(), ctx)?;
        put(id, h & ((1 << 56) - 1))
    })
}

/// The context of `stream` (checked): 0, 1 and 2 are the current context's
/// default streams.
fn stream_ctx(stream: Handle) -> Result<u64, CUresult> {
    let st = state::state();
    match from_ptr(stream) {
        0 | STREAM_LEGACY | STREAM_PER_THREAD => st.current_any(),
        s => st.streams.get(&s).copied().ok_or(CUDA_ERROR_INVALID_HANDLE),
    }
}

/// # Safety
/// `flags` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetFlags(stream: Handle, flags: *mut c_uint) -> CUresult {
    entry("cuStreamGetFlags", true, || {
        if flags.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        stream_ctx(stream)?;
        let f = STREAM_FLAGS.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|m| m.get(&from_ptr(stream)).copied()).unwrap_or(0);
        put(flags, f)
    })
}

/// Every stream has priority 0, the only one `cuCtxGetStreamPriorityRange`
/// offers (priorities are clamped into it at creation, as CUDA does).
///
/// # Safety
/// `priority` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetPriority(stream: Handle, priority: *mut c_int) -> CUresult {
    entry("cuStreamGetPriority", true, || {
        if priority.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        stream_ctx(stream)?;
        put(priority, 0)
    })
}

/// A created stream's id is its handle's serial; the default streams are
/// 0 (NULL), 1 (legacy) and 2 (per-thread).
///
/// # Safety
/// `id` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetId(stream: Handle, id: *mut u64) -> CUresult {
    entry("cuStreamGetId", true, || {
        if id.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        stream_ctx(stream)?;
        put(id, from_ptr(stream) & ((1 << 56) - 1))
    })
}

/// # Safety
/// `dev` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetDevice(stream: Handle, dev: *mut CUdevice) -> CUresult {
    entry("cuStreamGetDevice", true, || {
        if dev.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        stream_ctx(stream)?;
        put(dev, 0)
    })
}

/// No stream is ever capturing (graphs are not implemented): status
/// `CU_STREAM_CAPTURE_STATUS_NONE`.
///
/// # Safety
/// `status` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(stream: Handle, status: *mut c_int) -> CUresult {
    entry("cuStreamIsCapturing", true, || {
        if status.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        stream_ctx(stream)?;
        put(status, 0)
    })
}

/// Not capturing: status NONE; the other outputs are left alone, as the
/// documentation allows when the stream is not capturing.
///
/// # Safety
/// `status` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    stream: Handle,
    status: *mut c_int,
    _id: *mut u64,
    _graph: *mut Handle,
    _deps: *mut *const Handle,
    _edges: *mut *const c_void,
    _n: *mut usize,
) -> CUresult {
    entry("cuStreamGetCaptureInfo_v3", true, || {
        if status.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        stream_ctx(stream)?;
        put(status, 0)
    })
}

thread_local! {
    /// This thread's `CUstreamCaptureMode` (0 global, 1 thread local, 2 relaxed).
    static CAPTURE_MODE: Cell<c_int> = const { Cell::new(0) };
}

/// Swaps this thread's capture mode with `*mode`.
///
/// # Safety
/// `mode` is null or valid for a read and a write.
#[no_mangle]
pub unsafe extern "C" fn cuThreadExchangeStreamCaptureMode(mode: *mut c_int) -> CUresult {
    entry("cuThreadExchangeStreamCaptureMode", true, || {
        if mode.is_null() || !(0..=2).contains(&*mode) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        *mode = CAPTURE_MODE.with(|m| m.replace(*mode));
        Ok(())
    })
}

/// Flags 0 (default) or 1 (`CU_EVENT_RECORD_EXTERNAL`, a hint for graphs).
#[no_mangle]
pub extern "C" fn cuEventRecordWithFlags(e: Handle, stream: Handle, flags: c_uint) -> CUresult {
    if flags > 1 {
        return entry("cuEventRecordWithFlags", true, || Err(CUDA_ERROR_INVALID_VALUE));
    }
    crate::event::cuEventRecord(e, stream)
}

/// `syncMode` (whether the host function may call CUDA) changes nothing:
/// the function runs inside this call.
///
/// # Safety
/// As `cuLaunchHostFunc`.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc_v2(stream: Handle, f: crate::stream::HostFn, user: *mut c_void, _sync_mode: c_uint) -> CUresult {
    crate::stream::cuLaunchHostFunc(stream, f, user)
}

/// A C string for `name`, kept for the process (one per distinct name).
fn interned(name: &str) -> *const c_char {
    static NAMES: Mutex<Option<HashMap<String, CString>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let map = names.get_or_insert_with(HashMap::new);
    // A kernel name never holds a NUL (PTX identifiers cannot).
    map.entry(name.to_string()).or_insert_with(|| CString::new(name.replace('\0', "")).unwrap_or_default()).as_ptr()
}

unsafe fn get_name(fname: &str, tag: u64, name: *mut *const c_char, f: Handle) -> CUresult {
    entry(fname, true, || {
        if name.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let h = from_ptr(f);
        let st = state::state();
        let func = st.functions.get(&h).filter(|_| h >> 56 == tag || h >> 56 == TAG_KERNEL).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        put(name, interned(&func.name))
    })
}

/// # Safety
/// `name` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, f: Handle) -> CUresult {
    get_name("cuFuncGetName", TAG_FUNCTION, name, f)
}

/// # Safety
/// `name` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuKernelGetName(name: *mut *const c_char, k: Handle) -> CUresult {
    get_name("cuKernelGetName", TAG_KERNEL, name, k)
}

/// A `.managed` variable of a library: its address (the host's address of
/// the variable, which the host may dereference) and size.
///
/// # Safety
/// `dptr` and `bytes` are each null or valid for a write; `name` is null
/// or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetManaged(dptr: *mut CUdeviceptr, bytes: *mut usize, lib: Handle, name: *const c_char) -> CUresult {
    entry("cuLibraryGetManaged", true, || {
        // Libraries belong to no context: no current one is needed (the
        // runtime asks while registering, before making one current).
        let name = crate::module::c_str(name)?;
        let st = state::state();
        crate::module::global(&st, from_ptr(lib), TAG_LIBRARY, name, dptr, bytes)
    })
}

/// `cuModuleLoad(module, fname)`: the file's bytes (PTX text, a fatbin, or
/// an image that `cuModuleLoadData` refuses with its reason) loaded as
/// `cuModuleLoadData` would; a file that cannot be read is
/// CUDA_ERROR_FILE_NOT_FOUND.
///
/// # Safety
/// `pmod` is null or valid for a write; `fname` is null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoad(pmod: *mut Handle, fname: *const c_char) -> CUresult {
    let mut bytes = Vec::new();
    let r = entry("cuModuleLoad", true, || {
        if pmod.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let path = crate::module::c_str(fname).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        bytes = std::fs::read(path).map_err(|e| {
            crate::report::log(&format!("cuModuleLoad: cannot read {path}: {e}"));
            CUDA_ERROR_FILE_NOT_FOUND
        })?;
        // Text must end in a NUL, as cuModuleLoadData reads it; a fatbin's
        // header bounds it, and a trailing NUL changes nothing.
        bytes.push(0);
        Ok(())
    });
    if r != CUDA_SUCCESS {
        return r;
    }
    crate::module::cuModuleLoadData(pmod, bytes.as_ptr().cast())
}

/// Modules load eagerly: `CU_MODULE_EAGER_LOADING` (1).
///
/// # Safety
/// `mode` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut c_int) -> CUresult {
    entry("cuModuleGetLoadingMode", true, || put(mode, 1))
}

/// No persisting L2 lines exist (attribute 108 is 0): nothing to reset.
#[no_mangle]
pub extern "C" fn cuCtxResetPersistingL2Cache() -> CUresult {
    entry("cuCtxResetPersistingL2Cache", true, || state::state().current().map(|_| ()))
}
