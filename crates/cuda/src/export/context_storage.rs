//! Context-local storage (`c693336e-1121-df11-a8c3-68f355d89593`): values
//! the runtime attaches to a context under a key of its choosing (its
//! per-context state), each with an optional destructor callback.
//!
//! Slots (this table has no size slot): 0 `put(ctx, key, value, dtor)`,
//! 1 `delete(ctx, key)`, 2 `get(&value, ctx, key)` (CUDA_ERROR_INVALID_HANDLE
//! for a key never put: the runtime then creates its state). A null
//! context means the current one.
//!
//! Owns: the values, by (context, key). Invariant: when a context is
//! destroyed, or the primary context is reset or released for the last
//! time, [`context_gone`] removes its values and calls each destructor
//! `dtor(ctx, key, value)` with no driver lock held (the runtime's
//! destructor may call the driver).

use super::Table;
use crate::state::{self, entry, from_ptr, put, to_ptr};
use crate::types::*;
use std::collections::HashMap;
use std::os::raw::c_void;
use std::sync::{Mutex, MutexGuard};

pub const NAME: &str = "context-local storage";

type Dtor = Option<unsafe extern "C" fn(Handle, *mut c_void, *mut c_void)>;

/// (context, key) → (value, destructor).
static VALUES: Mutex<Option<HashMap<(u64, usize), (usize, Dtor)>>> = Mutex::new(None);

fn values() -> MutexGuard<'static, Option<HashMap<(u64, usize), (usize, Dtor)>>> {
    VALUES.lock().unwrap_or_else(|e| e.into_inner())
}

pub static TABLE: Table<3> = Table([put_value as *const c_void, delete_value as *const c_void, get_value as *const c_void]);

/// The context `ctx` names: itself when it is live, the current one when null.
fn context(ctx: Handle) -> Result<u64, CUresult> {
    let st = state::state();
    let h = from_ptr(ctx);
    if h == 0 {
        return st.current_any();
    }
    if st.contexts.contains_key(&h) {
        Ok(h)
    } else {
        Err(CUDA_ERROR_INVALID_CONTEXT)
    }
}

unsafe extern "C" fn put_value(ctx: Handle, key: *mut c_void, value: *mut c_void, dtor: Dtor) -> CUresult {
    entry("context-local storage[0] put", true, || {
        let c = context(ctx)?;
        values().get_or_insert_with(HashMap::new).insert((c, key as usize), (value as usize, dtor));
        Ok(())
    })
}

unsafe extern "C" fn delete_value(ctx: Handle, key: *mut c_void) -> CUresult {
    entry("context-local storage[1] delete", true, || {
        let c = context(ctx)?;
        values().get_or_insert_with(HashMap::new).remove(&(c, key as usize));
        Ok(())
    })
}

unsafe extern "C" fn get_value(value: *mut *mut c_void, ctx: Handle, key: *mut c_void) -> CUresult {
    entry("context-local storage[2] get", true, || {
        if value.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let c = context(ctx)?;
        let v = values().get_or_insert_with(HashMap::new).get(&(c, key as usize)).map(|(v, _)| *v);
        match v {
            Some(v) => put(value, v as *mut c_void),
            None => Err(CUDA_ERROR_INVALID_HANDLE),
        }
    })
}

/// Removes context `ctx`'s values and runs their destructors. Call with no
/// driver lock held.
pub fn context_gone(ctx: u64) {
    let gone: Vec<((u64, usize), (usize, Dtor))> = {
        let mut v = values();
        let Some(map) = v.as_mut() else { return };
        let keys: Vec<(u64, usize)> = map.keys().filter(|(c, _)| *c == ctx).copied().collect();
        keys.into_iter().filter_map(|k| map.remove(&k).map(|e| (k, e))).collect()
    };
    for ((c, key), (value, dtor)) in gone {
        crate::report::log(&format!("context-local storage: destructor of key {key:#x} of a context being reset or destroyed"));
        if let Some(f) = dtor {
            // SAFETY: the runtime registered `f` for exactly this call.
            unsafe { f(to_ptr(c), key as *mut c_void, value as *mut c_void) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static SEEN: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "C" fn dtor(_c: Handle, key: *mut c_void, value: *mut c_void) {
        SEEN.store(key as usize + value as usize, Ordering::SeqCst);
    }

    #[test]
    fn gone_runs_destructors_once() {
        values().get_or_insert_with(HashMap::new).insert((0x41 << 56 | 999_999, 5), (7, Some(dtor)));
        context_gone(0x41 << 56 | 999_999);
        assert_eq!(SEEN.load(Ordering::SeqCst), 12);
        SEEN.store(0, Ordering::SeqCst);
        context_gone(0x41 << 56 | 999_999);
        assert_eq!(SEEN.load(Ordering::SeqCst), 0);
    }
}
