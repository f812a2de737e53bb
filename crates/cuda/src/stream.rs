//! Stream-ordered calls that have nothing left to wait for, because every
//! operation completes inside its own call: `cuStreamQuery`,
//! `cuStreamWaitEvent`, `cuStreamGetCtx`, host callbacks
//! (`cuStreamAddCallback`, `cuLaunchHostFunc`, run at once, after the
//! registry lock is released), cache configuration (accepted, no effect),
//! context limits (`cuCtxGetLimit/SetLimit`: the malloc heap size is the
//! engine's device heap, the others are stored with no effect)
//! and the profiler switches (no profiler: nothing to do).

use crate::state::{self, entry, from_ptr, put, to_ptr, TAG_FUNCTION, TAG_KERNEL};
use crate::types::*;
use std::os::raw::{c_int, c_uint, c_void};

/// `CUstreamCallback`.
pub type StreamCallback = Option<unsafe extern "C" fn(Handle, CUresult, *mut c_void)>;
/// `CUhostFn`.
pub type HostFn = Option<unsafe extern "C" fn(*mut c_void)>;

/// Checks `stream` against the current context (which may carry a sticky
/// error).
fn check_stream(stream: Handle) -> Result<u64, CUresult> {
    let st = state::state();
    let ctx = st.current()?;
    st.check_stream(from_ptr(stream), ctx)?;
    Ok(ctx)
}

/// Complete: every operation finished in its own call.
#[no_mangle]
pub extern "C" fn cuStreamQuery(stream: Handle) -> CUresult {
    entry("cuStreamQuery", true, || check_stream(stream).map(|_| ()))
}

/// `flags`: CU_EVENT_WAIT_DEFAULT (0) or CU_EVENT_WAIT_EXTERNAL (1).
#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(stream: Handle, event: Handle, flags: c_uint) -> CUresult {
    entry("cuStreamWaitEvent", true, || {
        if flags > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        let ctx = st.current()?;
        st.check_stream(from_ptr(stream), ctx)?;
        // "hEvent may be from a different context or device than hStream."
        match st.events.get(&from_ptr(event)) {
            Some(_) => Ok(()),
            None => Err(CUDA_ERROR_INVALID_HANDLE),
        }
    })
}

/// The context of a created stream; the current one for the null, legacy
/// and per-thread streams.
///
/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCtx(stream: Handle, pctx: *mut Handle) -> CUresult {
    entry("cuStreamGetCtx", true, || {
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        let ctx = match from_ptr(stream) {
            0 | STREAM_LEGACY | STREAM_PER_THREAD => st.current_any()?,
            s => *st.streams.get(&s).ok_or(CUDA_ERROR_INVALID_HANDLE)?,
        };
        put(pctx, to_ptr(ctx))
    })
}

/// Runs `callback(stream, status, user)` now; `status` is the context's
/// sticky error, if any. `flags` must be 0.
///
/// # Safety
/// `callback` is null or a valid function.
#[no_mangle]
pub unsafe extern "C" fn cuStreamAddCallback(stream: Handle, callback: StreamCallback, user: *mut c_void, flags: c_uint) -> CUresult {
    entry("cuStreamAddCallback", true, || {
        let Some(cb) = callback else { return Err(CUDA_ERROR_INVALID_VALUE) };
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let status = {
            let st = state::state();
            let ctx = st.current_any()?;
            st.check_stream(from_ptr(stream), ctx)?;
            st.contexts.get(&ctx).and_then(|c| c.sticky).unwrap_or(CUDA_SUCCESS)
        };
        cb(stream, status, user);
        Ok(())
    })
}

/// Runs `f(user)` now, unless the context has a sticky error.
///
/// # Safety
/// `f` is null or a valid function.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchHostFunc(stream: Handle, f: HostFn, user: *mut c_void) -> CUresult {
    entry("cuLaunchHostFunc", true, || {
        let Some(f) = f else { return Err(CUDA_ERROR_INVALID_VALUE) };
        check_stream(stream)?;
        f(user);
        Ok(())
    })
}

/// `CUfunc_cache` values 0-3 are accepted; caches are not modelled.
fn check_cache_config(config: c_int) -> Result<(), CUresult> {
    if (0..=3).contains(&config) {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_VALUE)
    }
}

#[no_mangle]
pub extern "C" fn cuCtxSetCacheConfig(config: c_int) -> CUresult {
    entry("cuCtxSetCacheConfig", true, || {
        state::state().current()?;
        check_cache_config(config)
    })
}

/// `CUlimit` values 0-6 (stack size, printf FIFO, malloc heap, device
/// runtime sync depth and pending launches, L2 fetch granularity,
/// persisting L2 size) with an A100's defaults. One set per process, not
/// per context; the values are stored and read back, nothing else uses
/// them (a kernel's `printf` is unbounded here), except the malloc heap
/// size ([`MALLOC_HEAP`]), which is the engine's device heap and not kept
/// here.
static LIMITS: std::sync::Mutex<[usize; 7]> = std::sync::Mutex::new([1024, 1 << 20, 8 << 20, 2, 2048, 32, 0]);

/// The stored value of `limit`; UNSUPPORTED_LIMIT for other values.
///
/// # Safety
/// `value` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetLimit(value: *mut usize, limit: c_int) -> CUresult {
    entry("cuCtxGetLimit", true, || {
        state::state().current()?;
        let i = usize::try_from(limit).ok().filter(|&i| i < 7).ok_or(CUDA_ERROR_UNSUPPORTED_LIMIT)?;
        let v = if i == MALLOC_HEAP {
            usize::try_from(state::device_read().heap_size()).unwrap_or(usize::MAX)
        } else {
            LIMITS.lock().unwrap_or_else(|e| e.into_inner())[i]
        };
        put(value, v)
    })
}

/// `CU_LIMIT_MALLOC_HEAP_SIZE`.
const MALLOC_HEAP: usize = 2;

/// Stores `value` for `limit` (0-6; else UNSUPPORTED_LIMIT). The malloc
/// heap size changes the engine's device heap: INVALID_VALUE once a kernel
/// that calls `malloc`/`free` has been launched (as CUDA documents),
/// OUT_OF_MEMORY when a heap already reserved cannot grow to it.
#[no_mangle]
pub extern "C" fn cuCtxSetLimit(limit: c_int, value: usize) -> CUresult {
    entry("cuCtxSetLimit", true, || {
        state::state().current()?;
        let i = usize::try_from(limit).ok().filter(|&i| i < 7).ok_or(CUDA_ERROR_UNSUPPORTED_LIMIT)?;
        if i == MALLOC_HEAP {
            return state::device_write().set_heap_size(value as u64).map_err(|e| match e.kind {
                ptxsim_exec::TrapKind::OutOfMemory => CUDA_ERROR_OUT_OF_MEMORY,
                _ => CUDA_ERROR_INVALID_VALUE,
            });
        }
        LIMITS.lock().unwrap_or_else(|e| e.into_inner())[i] = value;
        Ok(())
    })
}

/// Always CU_FUNC_CACHE_PREFER_NONE (0).
///
/// # Safety
/// `config` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCacheConfig(config: *mut c_int) -> CUresult {
    entry("cuCtxGetCacheConfig", true, || {
        state::state().current()?;
        put(config, 0)
    })
}

#[no_mangle]
pub extern "C" fn cuFuncSetCacheConfig(f: Handle, config: c_int) -> CUresult {
    entry("cuFuncSetCacheConfig", true, || {
        let st = state::state();
        st.current()?;
        let f = from_ptr(f);
        if !matches!(f >> 56, TAG_FUNCTION | TAG_KERNEL) || !st.functions.contains_key(&f) {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        check_cache_config(config)
    })
}

#[no_mangle]
pub extern "C" fn cuKernelSetCacheConfig(k: Handle, config: c_int, dev: CUdevice) -> CUresult {
    entry("cuKernelSetCacheConfig", true, || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        let k = from_ptr(k);
        if k >> 56 != TAG_KERNEL || !state::state().functions.contains_key(&k) {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        check_cache_config(config)
    })
}

#[no_mangle]
pub extern "C" fn cuProfilerStart() -> CUresult {
    entry("cuProfilerStart", true, || state::state().current_any().map(|_| ()))
}

#[no_mangle]
pub extern "C" fn cuProfilerStop() -> CUresult {
    entry("cuProfilerStop", true, || state::state().current_any().map(|_| ()))
}
