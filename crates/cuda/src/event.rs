//! Events (host timestamps) and stream priorities.
//!
//! Invariants:
//! - Work is complete when its call returns, so a recorded event has
//!   completed: `cuEventQuery` and `cuEventSynchronize` succeed, and
//!   `cuEventElapsedTime` is the host time between two records.
//! - The device reports no stream priorities (attribute 78 is 0), so the
//!   priority range is [0, 0] and every requested priority is clamped to 0.

use crate::state::{self, entry, from_ptr, put, to_ptr, Event, State, TAG_EVENT, TAG_STREAM};
use crate::types::*;
use std::os::raw::{c_int, c_uint};
use std::time::Instant;

/// `CUevent_flags`.
pub const CU_EVENT_BLOCKING_SYNC: u32 = 1;
pub const CU_EVENT_DISABLE_TIMING: u32 = 2;
pub const CU_EVENT_INTERPROCESS: u32 = 4;

/// # Safety
/// `least` and `greatest` are each null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> CUresult {
    entry("cuCtxGetStreamPriorityRange", true, || {
        state::state().current()?;
        if !least.is_null() {
            put(least, 0)?;
        }
        if !greatest.is_null() {
            put(greatest, 0)?;
        }
        Ok(())
    })
}

/// `flags`: CU_STREAM_DEFAULT (0) or CU_STREAM_NON_BLOCKING (1).
///
/// # Safety
/// `ph` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(ph: *mut Handle, flags: c_uint, _priority: c_int) -> CUresult {
    entry("cuStreamCreateWithPriority", true, || {
        if ph.is_null() || flags > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let h = st.handle(TAG_STREAM);
        st.streams.insert(h, ctx);
        crate::runtime_api::stream_created(h, flags);
        put(ph, to_ptr(h))
    })
}

/// # Safety
/// `ph` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    entry("cuEventCreate", true, || {
        let known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
        if ph.is_null() || flags & !known != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // An interprocess event must disable timing.
        if flags & CU_EVENT_INTERPROCESS != 0 && flags & CU_EVENT_DISABLE_TIMING == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let h = st.handle(TAG_EVENT);
        st.events.insert(h, Event { ctx, flags, recorded: None });
        put(ph, to_ptr(h))
    })
}

/// The event `e`, which must belong to the current context.
/// An event of any context (querying or waiting for one needs no context
/// of its own: the documentation sets no such rule, as it does for
/// `cuEventRecord`'s stream).
fn any_event(st: &mut State, e: Handle) -> Result<&mut Event, CUresult> {
    st.current()?;
    st.events.get_mut(&from_ptr(e)).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

fn event(st: &mut State, e: Handle) -> Result<&mut Event, CUresult> {
    let ctx = st.current()?;
    match st.events.get_mut(&from_ptr(e)) {
        Some(ev) if ev.ctx == ctx => Ok(ev),
        _ => Err(CUDA_ERROR_INVALID_HANDLE),
    }
}

#[no_mangle]
pub extern "C" fn cuEventRecord(e: Handle, stream: Handle) -> CUresult {
    entry("cuEventRecord", true, || {
        let mut st = state::state();
        let ctx = st.current()?;
        st.check_stream(from_ptr(stream), ctx)?;
        event(&mut st, e)?.recorded = Some(Instant::now());
        Ok(())
    })
}

/// A recorded event has completed (see the module comment); so has one
/// never recorded.
#[no_mangle]
pub extern "C" fn cuEventQuery(e: Handle) -> CUresult {
    entry("cuEventQuery", true, || any_event(&mut state::state(), e).map(|_| ()))
}

#[no_mangle]
pub extern "C" fn cuEventSynchronize(e: Handle) -> CUresult {
    entry("cuEventSynchronize", true, || any_event(&mut state::state(), e).map(|_| ()))
}

fn event_destroy(name: &str, e: Handle) -> CUresult {
    entry(name, true, || {
        let mut st = state::state();
        st.events.remove(&from_ptr(e)).map(|_| ()).ok_or(CUDA_ERROR_INVALID_HANDLE)
    })
}

#[no_mangle]
pub extern "C" fn cuEventDestroy(e: Handle) -> CUresult {
    event_destroy("cuEventDestroy", e)
}

#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(e: Handle) -> CUresult {
    event_destroy("cuEventDestroy_v2", e)
}

unsafe fn elapsed(name: &str, ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    entry(name, true, || {
        if ms.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let a = event(&mut st, start)?;
        let (fa, ta) = (a.flags, a.recorded);
        let b = event(&mut st, end)?;
        let (fb, tb) = (b.flags, b.recorded);
        if (fa | fb) & CU_EVENT_DISABLE_TIMING != 0 {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        // Either never recorded: INVALID_HANDLE, as the driver API says.
        let (Some(ta), Some(tb)) = (ta, tb) else { return Err(CUDA_ERROR_INVALID_HANDLE) };
        let d = if tb >= ta { (tb - ta).as_secs_f64() } else { -(ta - tb).as_secs_f64() };
        put(ms, (d * 1000.0) as f32)
    })
}

/// # Safety
/// `ms` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    elapsed("cuEventElapsedTime", ms, start, end)
}

/// # Safety
/// `ms` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime_v2(ms: *mut f32, start: Handle, end: Handle) -> CUresult {
    elapsed("cuEventElapsedTime_v2", ms, start, end)
}
