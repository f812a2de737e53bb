//! Modules (PTX text loaded into the engine), kernel and variable lookup,
//! `cuLaunchKernel`, and streams.
//!
//! Invariants:
//! - A launch runs to completion inside `cuLaunchKernel` (a legal stream
//!   order), holding only the engine's read lock.
//! - Each kernel argument's size comes from the kernel's parameter layout
//!   (`Module::kernel_params`), never from the caller.
//! - A trap (out of bounds, misaligned, `trap`, a failed assertion, a
//!   timeout) becomes the context's sticky error, returned by the launch and
//!   by every later call on the context until it is destroyed or reset;
//!   problems found before the kernel runs (bad geometry, too much shared
//!   memory) are returned once and leave the context usable.
//! - What the kernel printed goes to stdout, the trap's located message to
//!   stderr (`report.rs`).

use crate::module_cache;
use crate::report;
use crate::state::{self, entry, from_ptr, put, to_ptr, Function, LoadedModule, Range, RangeKind, TAG_FUNCTION, TAG_MODULE, TAG_STREAM};
use crate::types::*;
use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, RunError, TrapKind};
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint, c_void};

/// The size of the engine allocation at `addr`: the largest `n` with
/// `[addr, addr+n)` readable (doubling, then bisection).
fn allocation_size(dev: &Device, addr: u64) -> u64 {
    let fits = |n: u64| dev.read(addr, n).is_ok();
    if !fits(1) {
        return 0;
    }
    let mut lo = 1u64;
    let mut hi = 2u64;
    while fits(hi) {
        lo = hi;
        hi = match hi.checked_mul(2) {
            Some(h) if h <= 1 << 40 => h,
            _ => return lo,
        };
    }
    // fits(lo), !fits(hi)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The PTX text of a module image: NUL-terminated text. Machine code (an
/// ELF cubin or a fatbin) cannot run here.
///
/// # Safety
/// `image` is null or NUL-terminated.
pub unsafe fn ptx_text(image: *const c_void) -> Result<String, CUresult> {
    if image.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // The first four bytes, read no further than a NUL (the magic numbers
    // hold none, and a short text may end before four bytes).
    let mut head = [0u8; 4];
    for (i, h) in head.iter_mut().enumerate() {
        *h = *(image as *const u8).add(i);
        if *h == 0 {
            break;
        }
    }
    let magic = u32::from_le_bytes(head);
    if &head == b"\x7fELF" || magic == 0x466243B1 || magic == 0xBA55ED50 {
        report::log("module image is machine code (ELF or fatbin): only PTX text can be loaded");
        return Err(CUDA_ERROR_INVALID_IMAGE);
    }
    let text = CStr::from_ptr(image as *const c_char);
    text.to_str().map(str::to_owned).map_err(|_| CUDA_ERROR_INVALID_PTX)
}

/// A module's `.global` variables: name → (address, size).
pub type Globals = HashMap<String, (u64, u64)>;

/// The first line of a linked image (`cuLinkComplete`'s output): the
/// modules follow, each after a [`LINKED_MODULE`] line with its name.
pub const LINKED_IMAGE: &str = "// ptxsim linked image\n";
pub const LINKED_MODULE: &str = "// ptxsim module: ";

/// Splits a linked image into its modules: (name, text).
pub fn split_linked(text: &str) -> Option<Vec<(String, String)>> {
    let body = text.strip_prefix(LINKED_IMAGE)?;
    let mut out: Vec<(String, String)> = Vec::new();
    for line in body.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix(LINKED_MODULE) {
            out.push((name.trim_end().to_string(), String::new()));
        } else if let Some(m) = out.last_mut() {
            m.1.push_str(line);
        }
    }
    Some(out)
}

/// Loads PTX text, or a linked image (its modules linked as nvlink does),
/// into the engine: the module and its `.global` variables (address, size).
/// A module without `.global` variables loaded before under the same
/// settings comes from the decoded-module cache (`module_cache.rs`).
pub fn load_text(dev: &mut Device, text: &str) -> Result<(ptxsim_exec::Module, Globals), CUresult> {
    let settings = module_cache::Settings { local_bytes_per_thread: dev.limits.local_bytes_per_thread };
    if let Some(module) = module_cache::lock().get(text, settings) {
        return Ok((module, Globals::new()));
    }
    let loaded = match split_linked(text) {
        Some(mods) => {
            let refs: Vec<(&str, &str)> = mods.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
            dev.load_linked(&refs)
        }
        None => dev.load_named("module.ptx", text),
    };
    let module = loaded.map_err(|e| {
        report::log(&format!("module load failed: {e}"));
        if e.kind == TrapKind::OutOfMemory {
            CUDA_ERROR_OUT_OF_MEMORY
        } else {
            CUDA_ERROR_INVALID_PTX
        }
    })?;
    module_cache::lock().insert(text, settings, &module);
    let globals = module.globals.iter().map(|(n, a)| (n.clone(), (*a, allocation_size(dev, *a)))).collect();
    Ok((module, globals))
}

/// Registers a loaded module under a fresh handle with `tag`, owned by
/// context `ctx` (0: by none, a library).
pub fn register(st: &mut state::State, tag: u64, ctx: u64, module: ptxsim_exec::Module, globals: HashMap<String, (u64, u64)>) -> u64 {
    let h = st.handle(tag);
    for (base, size) in globals.values() {
        st.ranges.insert(*base, Range { size: *size, kind: RangeKind::Global { module: h } });
    }
    st.modules.insert(h, LoadedModule { ctx, module, globals, functions: HashMap::new() });
    h
}

unsafe fn load(name: &str, pmod: *mut Handle, image: *const c_void) -> CUresult {
    entry(name, true, || {
        if pmod.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let text = ptx_text(image)?;
        let mut st = state::state();
        let ctx = st.current()?;
        let (module, globals) = load_text(&mut state::device_write(), &text)?;
        let h = register(&mut st, TAG_MODULE, ctx, module, globals);
        put(pmod, to_ptr(h))
    })
}

/// # Safety
/// `pmod` is null or valid for a write; `image` is null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(pmod: *mut Handle, image: *const c_void) -> CUresult {
    load("cuModuleLoadData", pmod, image)
}

/// JIT options are accepted and ignored.
///
/// # Safety
/// As [`cuModuleLoadData`].
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(pmod: *mut Handle, image: *const c_void, _n: c_uint, _options: *mut c_int, _values: *mut *mut c_void) -> CUresult {
    load("cuModuleLoadDataEx", pmod, image)
}

/// A C string argument, or INVALID_VALUE.
///
/// # Safety
/// `p` is null or NUL-terminated, and outlives the result.
pub unsafe fn c_str<'a>(p: *const c_char) -> Result<&'a str, CUresult> {
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    CStr::from_ptr(p).to_str().map_err(|_| CUDA_ERROR_NOT_FOUND)
}

/// # Safety
/// `pfunc` is null or valid for a write; `name` is null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(pfunc: *mut Handle, hmod: Handle, name: *const c_char) -> CUresult {
    entry("cuModuleGetFunction", true, || {
        if pfunc.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let name = c_str(name)?;
        let mut st = state::state();
        st.current()?;
        let f = kernel_handle(&mut st, from_ptr(hmod), TAG_MODULE, TAG_FUNCTION, name)?;
        put(pfunc, to_ptr(f))
    })
}

/// The handle (`tag`) of kernel `name` of module `m` (whose handle has tag
/// `mtag`), made on first request.
pub fn kernel_handle(st: &mut state::State, m: u64, mtag: u64, tag: u64, name: &str) -> Result<u64, CUresult> {
    if m >> 56 != mtag {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    let lm = st.modules.get(&m).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    if let Some(&f) = lm.functions.get(name) {
        return Ok(f);
    }
    let params = lm.module.kernel_params(name).ok_or(CUDA_ERROR_NOT_FOUND)?;
    let f = st.handle(tag);
    st.functions.insert(f, Function { module: m, name: name.to_string(), params, max_dynamic_shared: None, carveout: -1 });
    if let Some(lm) = st.modules.get_mut(&m) {
        lm.functions.insert(name.to_string(), f);
    }
    Ok(f)
}

/// `(address, size)` of `.global` variable `name` of module `m` (tag `mtag`),
/// written through the optional out-pointers.
///
/// # Safety
/// `dptr` and `bytes` are each null or valid for a write.
pub unsafe fn global(st: &state::State, m: u64, mtag: u64, name: &str, dptr: *mut CUdeviceptr, bytes: *mut usize) -> Result<(), CUresult> {
    if m >> 56 != mtag {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    let lm = st.modules.get(&m).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    let &(addr, size) = lm.globals.get(name).ok_or(CUDA_ERROR_NOT_FOUND)?;
    if !dptr.is_null() {
        put(dptr, addr)?;
    }
    if !bytes.is_null() {
        put(bytes, size as usize)?;
    }
    Ok(())
}

/// # Safety
/// `dptr` and `bytes` are each null or valid for a write; `name` is null or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(dptr: *mut CUdeviceptr, bytes: *mut usize, hmod: Handle, name: *const c_char) -> CUresult {
    entry("cuModuleGetGlobal_v2", true, || {
        let name = c_str(name)?;
        let st = state::state();
        st.current()?;
        global(&st, from_ptr(hmod), TAG_MODULE, name, dptr, bytes)
    })
}

/// The module's `.global` variables stay allocated in the engine (it has no
/// free yet) but no host copy can reach them any more.
#[no_mangle]
pub extern "C" fn cuModuleUnload(hmod: Handle) -> CUresult {
    entry("cuModuleUnload", true, || {
        let mut st = state::state();
        let m = from_ptr(hmod);
        if m >> 56 == TAG_MODULE && st.unload(m) {
            Ok(())
        } else {
            Err(CUDA_ERROR_INVALID_HANDLE)
        }
    })
}

/// The driver error for a failed launch, and whether it is sticky (the
/// kernel ran and trapped) rather than refused before running.
fn launch_error(e: &RunError) -> (CUresult, bool) {
    match e.kind {
        TrapKind::InvalidLaunch => (CUDA_ERROR_INVALID_VALUE, false),
        TrapKind::OutOfMemory if e.line.is_none() => (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, false),
        TrapKind::OutOfBounds | TrapKind::Misaligned => (CUDA_ERROR_ILLEGAL_ADDRESS, true),
        TrapKind::Trap if e.message.starts_with("assertion") => (CUDA_ERROR_ASSERT, true),
        TrapKind::Timeout => (CUDA_ERROR_LAUNCH_TIMEOUT, true),
        _ => (CUDA_ERROR_LAUNCH_FAILED, true),
    }
}

/// # Safety
/// `params` is null or holds one valid pointer per kernel parameter, each to
/// that parameter's bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: Handle,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared_bytes: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    entry("cuLaunchKernel", true, || launch(f, [gx, gy, gz], [bx, by, bz], shared_bytes, stream, params, extra))
}

/// Launches kernel `f` (a CUfunction or a CUkernel) and runs it to
/// completion.
///
/// # Safety
/// As [`cuLaunchKernel`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn launch(f: Handle, grid: [c_uint; 3], block: [c_uint; 3], shared_bytes: c_uint, stream: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) -> Result<(), CUresult> {
    {
        let (ctx, module, func, cc, forced, threads) = {
            let st = state::state();
            let ctx = st.current()?;
            st.check_stream(from_ptr(stream), ctx)?;
            let func = st.functions.get(&from_ptr(f)).ok_or(CUDA_ERROR_INVALID_HANDLE)?.clone();
            let lm = st.modules.get(&func.module).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            (ctx, lm.module.clone(), func, st.cc, st.scheduling, st.threads)
        };
        // Dynamic shared memory beyond the kernel's limit (48 KiB less its
        // static part unless raised with cuFuncSetAttribute), as a GPU refuses it.
        let limit = func.max_dynamic_shared.unwrap_or(SHARED_PER_BLOCK.saturating_sub(module.program.shared_static));
        if shared_bytes > limit {
            report::record_launch(&func.name, report::LaunchOutcome::Refused);
            report::log(&format!("launch refused: {shared_bytes} bytes of dynamic shared memory, the kernel's limit is {limit}"));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if !extra.is_null() {
            report::log("cuLaunchKernel: `extra` (packed parameters) is not supported yet");
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        if !func.params.is_empty() && params.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut args = Vec::with_capacity(func.params.len());
        for (i, &size) in func.params.iter().enumerate() {
            let p = *params.add(i);
            if p.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            args.push(KernelArg::Bytes(std::slice::from_raw_parts(p as *const u8, size as usize).to_vec()));
        }
        let mut cfg = LaunchConfig::new(Dim3::new(grid[0], grid[1], grid[2]), Dim3::new(block[0], block[1], block[2]));
        cfg.dynamic_shared_bytes = shared_bytes;
        cfg.scheduling = crate::device::scheduling_for(forced, cc);
        cfg.threads = threads;
        let result = state::device_read().launch(&module, &func.name, &cfg, &args);
        match result {
            Ok(stats) => {
                report::record_launch(&func.name, report::LaunchOutcome::Ran(stats.warp_instructions, stats.thread_instructions));
                report::kernel_stdout(&stats.stdout.bytes);
                Ok(())
            }
            Err(e) => {
                report::kernel_stdout(&e.stdout.bytes);
                let (code, sticky) = launch_error(&e);
                report::record_launch(&func.name, if sticky { report::LaunchOutcome::Trapped } else { report::LaunchOutcome::Refused });
                if sticky {
                    report::trap(&e.to_string());
                    let mut st = state::state();
                    if let Some(c) = st.contexts.get_mut(&ctx) {
                        c.sticky.get_or_insert(code);
                    }
                } else {
                    report::log(&format!("launch refused: {e}"));
                }
                Err(code)
            }
        }
    }
}

/// # Safety
/// `ph` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(ph: *mut Handle, _flags: c_uint) -> CUresult {
    entry("cuStreamCreate", true, || {
        if ph.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let ctx = st.current()?;
        let h = st.handle(TAG_STREAM);
        st.streams.insert(h, ctx);
        put(ph, to_ptr(h))
    })
}

fn stream_destroy(name: &str, h: Handle) -> CUresult {
    entry(name, true, || {
        let mut st = state::state();
        match st.streams.remove(&from_ptr(h)) {
            Some(_) => Ok(()),
            None => Err(CUDA_ERROR_INVALID_HANDLE),
        }
    })
}

#[no_mangle]
pub extern "C" fn cuStreamDestroy(h: Handle) -> CUresult {
    stream_destroy("cuStreamDestroy", h)
}

#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(h: Handle) -> CUresult {
    stream_destroy("cuStreamDestroy_v2", h)
}

/// Work on a stream is done when it is issued: only the sticky error is
/// left to report.
#[no_mangle]
pub extern "C" fn cuStreamSynchronize(h: Handle) -> CUresult {
    entry("cuStreamSynchronize", true, || {
        let st = state::state();
        let ctx = st.current()?;
        st.check_stream(from_ptr(h), ctx)
    })
}
