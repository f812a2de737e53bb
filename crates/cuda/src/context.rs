//! Contexts: the reference-counted primary context, created contexts, and
//! the per-thread context stack (push, pop, set = replace the top).
//!
//! Invariants: the primary context's handle never changes once created; a
//! release to zero references or a reset frees its resources (allocations
//! back to the engine, modules, streams) and a reset clears its sticky error.
//! A destroyed context's handle is gone from the registry, so a stack that
//! still holds it reports CUDA_ERROR_CONTEXT_IS_DESTROYED.

use crate::state::{self, entry, from_ptr, put, to_ptr, Context, STACK, TAG_CTX};
use crate::types::*;
use std::os::raw::c_uint;

fn check_device(dev: CUdevice) -> Result<(), CUresult> {
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    entry("cuDevicePrimaryCtxRetain", true, || {
        check_device(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let h = match st.primary {
            Some(h) => h,
            None => {
                let h = st.handle(TAG_CTX);
                st.contexts.insert(h, Context { primary: true, sticky: None });
                st.primary = Some(h);
                h
            }
        };
        st.primary_refs += 1;
        put(pctx, to_ptr(h))
    })
}

fn primary_release(name: &str, dev: CUdevice) -> CUresult {
    entry(name, true, || {
        check_device(dev)?;
        let mut st = state::state();
        let Some(h) = st.primary else { return Err(CUDA_ERROR_INVALID_CONTEXT) };
        if st.primary_refs == 0 {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        st.primary_refs -= 1;
        if st.primary_refs == 0 {
            st.release_resources(h);
            drop(st);
            crate::export::context_storage::context_gone(h);
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease(dev: CUdevice) -> CUresult {
    primary_release("cuDevicePrimaryCtxRelease", dev)
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    primary_release("cuDevicePrimaryCtxRelease_v2", dev)
}

fn primary_reset(name: &str, dev: CUdevice) -> CUresult {
    entry(name, true, || {
        check_device(dev)?;
        let mut st = state::state();
        if let Some(h) = st.primary {
            st.release_resources(h);
            if let Some(c) = st.contexts.get_mut(&h) {
                c.sticky = None;
            }
            drop(st);
            crate::export::context_storage::context_gone(h);
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset(dev: CUdevice) -> CUresult {
    primary_reset("cuDevicePrimaryCtxReset", dev)
}

#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) -> CUresult {
    primary_reset("cuDevicePrimaryCtxReset_v2", dev)
}

unsafe fn ctx_create(name: &str, pctx: *mut Handle, _flags: c_uint, dev: CUdevice) -> CUresult {
    entry(name, true, || {
        check_device(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let h = st.handle(TAG_CTX);
        st.contexts.insert(h, Context::default());
        STACK.with(|s| s.borrow_mut().push(h));
        put(pctx, to_ptr(h))
    })
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    ctx_create("cuCtxCreate", pctx, flags, dev)
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxCreate_v2(pctx: *mut Handle, flags: c_uint, dev: CUdevice) -> CUresult {
    ctx_create("cuCtxCreate_v2", pctx, flags, dev)
}

fn ctx_destroy(name: &str, ctx: Handle) -> CUresult {
    entry(name, true, || {
        let h = from_ptr(ctx);
        if h == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        match st.contexts.get(&h) {
            None => return Err(CUDA_ERROR_INVALID_CONTEXT),
            // The primary context is released, never destroyed.
            Some(c) if c.primary => return Err(CUDA_ERROR_INVALID_CONTEXT),
            Some(_) => {}
        }
        // Destructors of its context-local storage run while it still exists.
        drop(st);
        crate::export::context_storage::context_gone(h);
        let mut st = state::state();
        st.release_resources(h);
        st.contexts.remove(&h);
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            if s.last() == Some(&h) {
                s.pop();
            }
        });
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuCtxDestroy(ctx: Handle) -> CUresult {
    ctx_destroy("cuCtxDestroy", ctx)
}

#[no_mangle]
pub extern "C" fn cuCtxDestroy_v2(ctx: Handle) -> CUresult {
    ctx_destroy("cuCtxDestroy_v2", ctx)
}

fn ctx_push(name: &str, ctx: Handle) -> CUresult {
    entry(name, true, || {
        let h = from_ptr(ctx);
        if h == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if !state::state().contexts.contains_key(&h) {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        STACK.with(|s| s.borrow_mut().push(h));
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cuCtxPushCurrent(ctx: Handle) -> CUresult {
    ctx_push("cuCtxPushCurrent", ctx)
}

#[no_mangle]
pub extern "C" fn cuCtxPushCurrent_v2(ctx: Handle) -> CUresult {
    ctx_push("cuCtxPushCurrent_v2", ctx)
}

unsafe fn ctx_pop(name: &str, pctx: *mut Handle) -> CUresult {
    entry(name, true, || {
        let top = STACK.with(|s| s.borrow_mut().pop()).ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if !pctx.is_null() {
            put(pctx, to_ptr(top))?;
        }
        Ok(())
    })
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent(pctx: *mut Handle) -> CUresult {
    ctx_pop("cuCtxPopCurrent", pctx)
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxPopCurrent_v2(pctx: *mut Handle) -> CUresult {
    ctx_pop("cuCtxPopCurrent_v2", pctx)
}

/// Replaces the top of this thread's stack with `ctx` (pushes onto an
/// empty stack); a null `ctx` removes the top.
#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(ctx: Handle) -> CUresult {
    entry("cuCtxSetCurrent", true, || {
        let h = from_ptr(ctx);
        if h != 0 && !state::state().contexts.contains_key(&h) {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            s.pop();
            if h != 0 {
                s.push(h);
            }
        });
        Ok(())
    })
}

/// # Safety
/// `pctx` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut Handle) -> CUresult {
    entry("cuCtxGetCurrent", true, || {
        let top = STACK.with(|s| s.borrow().last().copied()).unwrap_or(0);
        put(pctx, to_ptr(top))
    })
}

/// # Safety
/// `dev` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(dev: *mut CUdevice) -> CUresult {
    entry("cuCtxGetDevice", true, || {
        if dev.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        state::state().current_any()?;
        put(dev, 0)
    })
}

/// Launches complete inside `cuLaunchKernel`: only the sticky error is left
/// to report.
#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    entry("cuCtxSynchronize", true, || state::state().current().map(|_| ()))
}
