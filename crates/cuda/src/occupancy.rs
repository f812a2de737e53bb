//! Settable function attributes (`cuFuncSetAttribute`,
//! `cuKernelSetAttribute`) and the occupancy calculator
//! (`cuOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags)`,
//! `cuOccupancyMaxPotentialBlockSize(WithFlags)`).
//!
//! Occupancy is computed from the limits the device reports (device.rs):
//! one multiprocessor, 2048 threads and 32 blocks per multiprocessor,
//! 65,536 registers (32 per thread, as `CU_FUNC_ATTRIBUTE_NUM_REGS` says),
//! 228 KiB of shared memory; a block larger than the kernel's maximum, or
//! needing more shared memory than its limit, gets 0 blocks.

use crate::library::function_attribute;
use crate::state::{self, entry, from_ptr, put, State, TAG_FUNCTION, TAG_KERNEL};
use crate::types::*;
use std::os::raw::{c_int, c_uint};

const THREADS_PER_SM: u32 = 2048;
const BLOCKS_PER_SM: u32 = 32;
const REGS_PER_SM: u32 = 65536;
const REGS_PER_THREAD: u32 = 32;
const SHARED_PER_SM: u32 = 228 * 1024;
const WARP: u32 = 32;
/// The device's multiprocessors (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
pub const MULTIPROCESSORS: u64 = 1;

/// `f` as a function or kernel handle of the registry.
fn function(st: &State, f: Handle, kernel_only: bool) -> Result<u64, CUresult> {
    let h = from_ptr(f);
    let ok_tag = if kernel_only { h >> 56 == TAG_KERNEL } else { matches!(h >> 56, TAG_FUNCTION | TAG_KERNEL) };
    if ok_tag && st.functions.contains_key(&h) {
        Ok(h)
    } else {
        Err(CUDA_ERROR_INVALID_HANDLE)
    }
}

/// Sets attribute 8 (MAX_DYNAMIC_SHARED_SIZE_BYTES: at most the opt-in
/// limit less the static part), 9 (PREFERRED_SHARED_MEMORY_CARVEOUT:
/// -1..=100, a hint), 14 (NON_PORTABLE_CLUSTER_SIZE_ALLOWED: 0 or 1;
/// clusters of up to 16 CTAs once 1) or 15
/// (CLUSTER_SCHEDULING_POLICY_PREFERENCE: a CUclusterSchedulingPolicy,
/// 0..=2, a hint); the others are read-only here.
fn set_attribute(st: &mut State, f: u64, attr: c_int, value: c_int) -> Result<(), CUresult> {
    let static_shared = {
        let func = &st.functions[&f];
        crate::library::kernel_shared_bytes(&st.modules.get(&func.module).ok_or(CUDA_ERROR_INVALID_HANDLE)?.module.program, &func.name)
    };
    let func = st.functions.get_mut(&f).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    match attr {
        8 if value >= 0 && (value as u32) <= SHARED_PER_BLOCK_OPTIN.saturating_sub(static_shared) => func.max_dynamic_shared = Some(value as u32),
        9 if (-1..=100).contains(&value) => func.carveout = value,
        14 if (0..=1).contains(&value) => func.non_portable_cluster = value == 1,
        15 if (0..=2).contains(&value) => func.cluster_policy = value,
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(f: Handle, attr: c_int, value: c_int) -> CUresult {
    entry("cuFuncSetAttribute", true, || {
        let mut st = state::state();
        st.current()?;
        let f = function(&st, f, false)?;
        set_attribute(&mut st, f, attr, value)
    })
}

#[no_mangle]
pub extern "C" fn cuKernelSetAttribute(attr: c_int, value: c_int, k: Handle, dev: CUdevice) -> CUresult {
    entry("cuKernelSetAttribute", true, || {
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        let mut st = state::state();
        let k = function(&st, k, true)?;
        set_attribute(&mut st, k, attr, value)
    })
}

/// Blocks of `block` threads with `dynamic` bytes of dynamic shared memory
/// that fit on one multiprocessor at once.
pub(crate) fn active_blocks(st: &State, f: u64, block: c_int, dynamic: usize) -> Result<c_int, CUresult> {
    if block <= 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let max_threads = function_attribute(st, f, 0)?;
    let static_shared = function_attribute(st, f, 1)? as u64;
    let dynamic_limit = function_attribute(st, f, 8)? as u64;
    if block > max_threads || dynamic as u64 > dynamic_limit {
        return Ok(0);
    }
    let threads = (block as u32).div_ceil(WARP) * WARP;
    let mut n = BLOCKS_PER_SM.min(THREADS_PER_SM / threads).min(REGS_PER_SM / (threads * REGS_PER_THREAD));
    if let Some(by_shared) = (SHARED_PER_SM as u64).checked_div(static_shared + dynamic as u64) {
        n = n.min(by_shared as u32);
    }
    Ok(n as c_int)
}

unsafe fn max_active(name: &str, n: *mut c_int, f: Handle, block: c_int, dynamic: usize, flags: c_uint) -> CUresult {
    entry(name, true, || {
        if n.is_null() || flags > 1 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        st.current()?;
        let f = function(&st, f, false)?;
        let v = active_blocks(&st, f, block, dynamic)?;
        put(n, v)
    })
}

/// # Safety
/// `n` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(n: *mut c_int, f: Handle, block: c_int, dynamic: usize) -> CUresult {
    max_active("cuOccupancyMaxActiveBlocksPerMultiprocessor", n, f, block, dynamic, 0)
}

/// `flags`: CU_OCCUPANCY_DEFAULT (0) or DISABLE_CACHING_OVERRIDE (1).
///
/// # Safety
/// `n` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n: *mut c_int, f: Handle, block: c_int, dynamic: usize, flags: c_uint) -> CUresult {
    max_active("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", n, f, block, dynamic, flags)
}

/// `CUoccupancyB2DSize`: dynamic shared memory for a block size.
pub type BlockToDynamic = Option<unsafe extern "C" fn(c_int) -> usize>;

#[allow(clippy::too_many_arguments)]
unsafe fn potential(name: &str, min_grid: *mut c_int, block: *mut c_int, f: Handle, to_dynamic: BlockToDynamic, dynamic: usize, limit: c_int, flags: c_uint) -> CUresult {
    entry(name, true, || {
        if min_grid.is_null() || block.is_null() || flags > 1 || limit < 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // The callback runs without the registry lock.
        let (f, max_threads) = {
            let st = state::state();
            st.current()?;
            let f = function(&st, f, false)?;
            (f, function_attribute(&st, f, 0)?)
        };
        let top = if limit > 0 { limit.min(max_threads) } else { max_threads };
        // The largest block size with the most resident threads.
        let (mut best_threads, mut best_block, mut best_blocks) = (0, 0, 0);
        let mut b = top - top % WARP as c_int;
        if b == 0 {
            b = top;
        }
        while b > 0 {
            let dyn_bytes = match to_dynamic {
                Some(cb) => cb(b),
                None => dynamic,
            };
            let n = active_blocks(&state::state(), f, b, dyn_bytes)?;
            if n * b > best_threads {
                (best_threads, best_block, best_blocks) = (n * b, b, n);
            }
            b -= WARP as c_int;
        }
        put(block, best_block)?;
        // One multiprocessor.
        put(min_grid, best_blocks)
    })
}

/// # Safety
/// `min_grid` and `block` are null or valid for a write; `to_dynamic` is
/// null or a valid function.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(min_grid: *mut c_int, block: *mut c_int, f: Handle, to_dynamic: BlockToDynamic, dynamic: usize, limit: c_int) -> CUresult {
    potential("cuOccupancyMaxPotentialBlockSize", min_grid, block, f, to_dynamic, dynamic, limit, 0)
}

/// # Safety
/// As [`cuOccupancyMaxPotentialBlockSize`].
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut c_int,
    block: *mut c_int,
    f: Handle,
    to_dynamic: BlockToDynamic,
    dynamic: usize,
    limit: c_int,
    flags: c_uint,
) -> CUresult {
    potential("cuOccupancyMaxPotentialBlockSizeWithFlags", min_grid, block, f, to_dynamic, dynamic, limit, flags)
}
