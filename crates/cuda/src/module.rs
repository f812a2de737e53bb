//! Modules (PTX text, or the PTX of a fatbin, loaded into the engine),
//! kernel and variable lookup, `cuLaunchKernel`, and streams.
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

use crate::fatbin;
use crate::module_cache;
use crate::report;
use crate::state::{self, entry, from_ptr, put, to_ptr, Function, LoadedModule, Range, RangeKind, TAG_FUNCTION, TAG_MODULE, TAG_STREAM};
use crate::types::*;
use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, RunError, TrapKind};
use std::collections::HashMap;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_uint, c_void};

/// The size of the engine allocation at `addr` (from `addr` to its end):
/// one lookup (a probe by failed reads would cost a message over every
/// allocation each time, which grows with every module loaded).
fn allocation_size(dev: &Device, addr: u64) -> u64 {
    dev.bytes_from(addr)
}

/// The PTX text of a module image: NUL-terminated PTX text, or a fatbin
/// (bare, or behind its wrapper) whose PTX entry for the device's compute
/// capability is taken (`fatbin.rs`). Machine code alone (a bare ELF
/// cubin, a fatbin without usable PTX) is CUDA_ERROR_NO_BINARY_FOR_GPU,
/// explained on stderr; a malformed fatbin is CUDA_ERROR_INVALID_IMAGE.
///
/// Takes the state lock briefly (for the compute capability): call it
/// without holding the lock, or call [`ptx_text_for`].
///
/// # Safety
/// `image` is null, NUL-terminated text, or a fatbin (or its wrapper)
/// whose header's sizes are readable.
pub unsafe fn ptx_text(image: *const c_void) -> Result<String, CUresult> {
    if image.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let cc = state::state().cc;
    ptx_text_for(image, cc)
}

/// [`ptx_text`] for a device of compute capability `cc`.
///
/// # Safety
/// As [`ptx_text`].
pub unsafe fn ptx_text_for(image: *const c_void, cc: (i32, i32)) -> Result<String, CUresult> {
    if image.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // The first four bytes, read no further than a NUL (the magic numbers
    // hold none, and a short text may end before four bytes).
    let mut head = [0u8; 4];
    let mut n = 0;
    while n < 4 {
        head[n] = *(image as *const u8).add(n);
        if head[n] == 0 {
            break;
        }
        n += 1;
    }
    match fatbin::image_kind(&head[..n]) {
        fatbin::ImageKind::Elf => Err(no_binary(&format!(
            "the module image is an ELF cubin (machine code); ptxsim runs PTX: load PTX text, or a fatbin built with nvcc -arch=sm_{0}{1} or -gencode arch=compute_{0}{1},code=compute_{0}{1}",
            cc.0,
            cc.1
        ))),
        fatbin::ImageKind::Wrapper | fatbin::ImageKind::Fatbin => {
            // A separately compiled program's linked binary: its objects' PTX.
            if let Some(linked) = crate::export::runtime::prelinked_image(image, cc) {
                return linked;
            }
            let bytes = fatbin::image_fatbin(image as *const u8).map_err(|e| invalid_image(&e))?;
            fatbin_ptx(bytes, cc)
        }
        fatbin::ImageKind::Other => {
            let text = CStr::from_ptr(image as *const c_char);
            text.to_str().map(str::to_owned).map_err(|_| CUDA_ERROR_INVALID_PTX)
        }
    }
}

/// The PTX text of the entry of fatbin `bytes` (one fatbin or several back
/// to back) chosen for a device of compute capability `cc`.
pub fn fatbin_ptx(bytes: &[u8], cc: (i32, i32)) -> Result<String, CUresult> {
    let entries = fatbin::parse_all(bytes).map_err(|e| invalid_image(&e))?;
    let entry = fatbin::select_ptx(&entries, cc).map_err(|no| no_binary(&no.message()))?;
    report::log(&format!("fatbin: {} entries, running {} (PTX ISA {}.{})", entries.len(), entry.name(), entry.version.0, entry.version.1));
    entry.ptx().map_err(|e| match e {
        fatbin::FatbinError::UnknownCompression { .. } => {
            report::log(&format!("fatbin: {e}"));
            CUDA_ERROR_NOT_SUPPORTED
        }
        e => invalid_image(&e),
    })
}

/// CUDA_ERROR_INVALID_IMAGE for a malformed fatbin, logged.
pub fn invalid_image(e: &fatbin::FatbinError) -> CUresult {
    report::log(&format!("module image refused: {e}"));
    CUDA_ERROR_INVALID_IMAGE
}

/// CUDA_ERROR_NO_BINARY_FOR_GPU, with `why` (which names the nvcc flags
/// that embed PTX) on stderr the first time in the process and in the
/// call log every time.
pub fn no_binary(why: &str) -> CUresult {
    report::notice_once(&format!("no kernel image for this device: {why}"));
    CUDA_ERROR_NO_BINARY_FOR_GPU
}

/// A module's `.global` variables: name → (address, size).
pub type Globals = HashMap<String, (u64, u64)>;

/// The first line of a linked image (`cuLinkComplete`'s output): the
/// modules follow, each after a [`LINKED_MODULE`] line with its name.
pub const LINKED_IMAGE: &str = "// ptxsim linked image\n";
pub const LINKED_MODULE: &str = "// ptxsim module: ";
/// The line after [`LINKED_IMAGE`] of an image linked with libcudadevrt.
pub const LINKED_DEVRT: &str = "// ptxsim library: libcudadevrt\n";

/// Whether a linked image was linked with libcudadevrt.
pub fn links_devrt(text: &str) -> bool {
    text.strip_prefix(LINKED_IMAGE).is_some_and(|b| b.starts_with(LINKED_DEVRT))
}

/// The last line of an image linked with `CU_JIT_MAX_REGISTERS` (a PTX
/// comment, so the image loads as before): the cap, in decimal.
pub const MAX_REGISTERS: &str = "// ptxsim maxrregcount: ";

/// The register cap recorded in an image's last line, if any.
/// The virtual architecture of the image's first `.target` directive as
/// `CU_FUNC_ATTRIBUTE_PTX_VERSION` gives it (major * 10 + minor: `sm_120`
/// and `sm_120a` are 120, `sm_80` 80), if it has one.
pub fn ptx_arch(text: &str) -> Option<i32> {
    let line = text.lines().map(str::trim_start).find(|l| l.starts_with(".target"))?;
    let arch = line[".target".len()..].split(|c: char| c == ',' || c.is_whitespace()).find(|w| !w.is_empty())?;
    let digits: String = arch.strip_prefix("sm_")?.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

pub fn max_registers(text: &str) -> Option<u32> {
    let last = text.trim_end().rsplit('\n').next()?;
    last.strip_prefix(MAX_REGISTERS)?.trim().parse().ok()
}

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
    let cached = module_cache::lock().get(text, settings);
    if let Some(module) = cached {
        dev.reload(&module).map_err(|e| load_error(&e))?;
        let mut globals = Globals::new();
        const_shadows(dev, &module, &mut globals)?;
        return Ok((module, globals));
    }
    let loaded = match split_linked(text) {
        Some(mods) => {
            let refs: Vec<(&str, &str)> = mods.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
            if links_devrt(text) {
                dev.load_linked_devrt(&refs)
            } else {
                dev.load_linked(&refs)
            }
        }
        None => dev.load_named("module.ptx", text),
    };
    let mut module = loaded.map_err(|e| load_error(&e))?;
    // The compiling tier goes with the module into the cache, so a reload
    // finds the code compiled for it.
    ptxsim_jit::attach(&mut module, jit_mode());
    module_cache::lock().insert(text, settings, &module);
    let mut globals: Globals = module.globals.iter().map(|(n, a)| (n.clone(), (*a, allocation_size(dev, *a)))).collect();
    const_shadows(dev, &module, &mut globals)?;
    Ok((module, globals))
}

/// `PTXSIM_JIT=on|off|auto`: the compiling tier of every module loaded
/// (default auto: a function is compiled once it is hot). A value that
/// does not parse is ignored (auto), and logged with `PTXSIM_LOG=1`.
fn jit_mode() -> ptxsim_jit::Mode {
    static MODE: std::sync::OnceLock<ptxsim_jit::Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| {
        ptxsim_jit::Mode::from_env().unwrap_or_else(|e| {
            report::log(&format!("ignoring {e}"));
            ptxsim_jit::Mode::Auto
        })
    })
}

/// Gives each module-scope `.const` variable a device allocation holding
/// its bytes (added to `globals`), so the host can find it with
/// `cuModuleGetGlobal` and write it with the copy functions, as it writes
/// a `__constant__` variable on a GPU; [`sync_consts`] copies the
/// allocations into the module's constant bank before each launch.
fn const_shadows(dev: &mut Device, module: &ptxsim_exec::Module, globals: &mut Globals) -> Result<(), CUresult> {
    for (name, off, size) in module.const_vars() {
        let addr = dev.alloc((*size).max(1)).map_err(|e| load_error(&e))?;
        let bytes = &module.const_bank()[*off as usize..(*off + *size) as usize];
        dev.write(addr, bytes).map_err(|e| load_error(&e))?;
        globals.insert(name.clone(), (addr, *size));
    }
    Ok(())
}

/// Copies the `.const` variables' device allocations (which host copies
/// may have changed) into module `m`'s constant bank.
pub fn sync_consts(st: &mut state::State, m: u64) {
    let Some(lm) = st.modules.get_mut(&m) else { return };
    if lm.const_shadows.is_empty() {
        return;
    }
    let dev = state::device_read();
    for &(addr, off, size) in &lm.const_shadows {
        if let Ok(bytes) = dev.read(addr, size) {
            lm.module.write_const(off, &bytes);
        }
    }
}

thread_local! {
    /// The message of this thread's last failed module load, for the JIT
    /// error log of `cuModuleLoadDataEx`.
    static LOAD_ERROR: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The driver's status for a failed load, logged.
fn load_error(e: &ptxsim_exec::RunError) -> CUresult {
    report::log(&format!("module load failed: {e}"));
    LOAD_ERROR.with(|m| *m.borrow_mut() = e.to_string());
    // The device heap is reserved when a module that calls `malloc`
    // loads; CUDA fails such a load with SHARED_OBJECT_INIT_FAILED.
    if e.kind == TrapKind::OutOfMemory && e.message.contains("cannot reserve the device heap") {
        CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
    } else if e.kind == TrapKind::OutOfMemory {
        CUDA_ERROR_OUT_OF_MEMORY
    } else {
        CUDA_ERROR_INVALID_PTX
    }
}

/// The names of the `.managed` variables declared in PTX `text`
/// (`.global .attribute(.managed) ... name;`).
pub fn managed_names(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains(".global") && l.contains(".managed"))
        .filter_map(|l| {
            let decl = l.split(';').next()?.split('=').next()?.trim_end();
            let last = decl.rsplit(char::is_whitespace).next()?;
            let name = last.split('[').next()?.trim();
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// Makes module `h`'s `.managed` variables (named in its PTX `text`) host
/// memory at their device addresses, as CUDA's managed memory is: the host
/// reads and writes them through the address `cuModuleGetGlobal` gives.
pub fn adopt_managed(st: &state::State, h: u64, text: &str) -> Result<(), CUresult> {
    let Some(lm) = st.modules.get(&h) else { return Ok(()) };
    for name in managed_names(text) {
        if let Some(&(addr, size)) = lm.globals.get(&name) {
            crate::hostmap::adopt(addr, size)?;
        }
    }
    Ok(())
}

/// Registers a loaded module under a fresh handle with `tag`, owned by
/// context `ctx` (0: by none, a library).
/// `text` is the image the module came from (its register cap and `.target`).
pub fn register(st: &mut state::State, tag: u64, ctx: u64, module: ptxsim_exec::Module, globals: HashMap<String, (u64, u64)>, text: &str) -> u64 {
    let max_registers = max_registers(text);
    let ptx_arch = ptx_arch(text);
    let h = st.handle(tag);
    for (base, size) in globals.values() {
        st.ranges.insert(*base, Range { size: *size, kind: RangeKind::Global { module: h } });
    }
    let const_shadows = module.const_vars().iter().filter_map(|(n, off, size)| globals.get(n).map(|&(a, _)| (a, *off, *size))).collect();
    st.modules.insert(h, LoadedModule { ctx, module, globals, functions: HashMap::new(), max_registers, ptx_arch, const_shadows });
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
        let h = register(&mut st, TAG_MODULE, ctx, module, globals, &text);
        adopt_managed(&st, h, &text)?;
        put(pmod, to_ptr(h))
    })
}

/// # Safety
/// `pmod` is null or valid for a write; `image` is null, NUL-terminated or
/// a fatbin (see [`ptx_text`]).
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(pmod: *mut Handle, image: *const c_void) -> CUresult {
    load("cuModuleLoadData", pmod, image)
}

/// `cuModuleLoadData` with JIT options: the error log and its size are
/// filled (see below); the others are accepted and ignored.
///
/// # Safety
/// As [`cuModuleLoadData`]; `options` and `values` are null or valid for
/// `n` entries, and an error log option's buffer for its size.
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(pmod: *mut Handle, image: *const c_void, n: c_uint, options: *mut c_int, values: *mut *mut c_void) -> CUresult {
    LOAD_ERROR.with(|m| m.borrow_mut().clear());
    let r = load("cuModuleLoadDataEx", pmod, image);
    // The JIT logs the options name: the error log gets the load's message
    // (NUL-terminated, cut to the buffer), and each log's size option is
    // set to the bytes filled ("OUT: Amount of log buffer filled with
    // messages"); the info log stays empty.
    if n > 0 && !options.is_null() && !values.is_null() {
        let msg = if r == CUDA_SUCCESS { String::new() } else { LOAD_ERROR.with(|m| m.borrow().clone()) };
        let (mut buf, mut size_at) = (None, None);
        let mut info_size_at = None;
        for i in 0..n as usize {
            match *options.add(i) {
                crate::library::CU_JIT_ERROR_LOG_BUFFER => buf = Some(*values.add(i) as usize),
                crate::library::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => size_at = Some(i),
                crate::library::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES => info_size_at = Some(i),
                _ => {}
            }
        }
        if let (Some(b), Some(i)) = (buf.filter(|&b| b != 0), size_at) {
            let size = *values.add(i) as usize;
            if size > 0 {
                let k = msg.len().min(size - 1);
                std::ptr::copy_nonoverlapping(msg.as_ptr(), b as *mut u8, k);
                *(b as *mut u8).add(k) = 0;
                *values.add(i) = k as *mut c_void;
            }
        }
        if let Some(i) = info_size_at {
            *values.add(i) = std::ptr::null_mut();
        }
    }
    r
}

/// A fatbin (bare or behind its wrapper), or anything `cuModuleLoadData`
/// takes.
///
/// # Safety
/// As [`cuModuleLoadData`].
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadFatBinary(pmod: *mut Handle, image: *const c_void) -> CUresult {
    load("cuModuleLoadFatBinary", pmod, image)
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
    st.functions.insert(f, Function { module: m, name: name.to_string(), params, max_dynamic_shared: None, carveout: -1, non_portable_cluster: false, cluster_policy: 0 });
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
        TrapKind::OutOfBounds => (CUDA_ERROR_ILLEGAL_ADDRESS, true),
        // A GPU reports a misaligned access as its own error.
        TrapKind::Misaligned => (CUDA_ERROR_MISALIGNED_ADDRESS, true),
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
    entry("cuLaunchKernel", true, || launch(f, [gx, gy, gz], [bx, by, bz], shared_bytes, stream, params, extra, LaunchOpts::default()))
}

/// A cooperative launch: every CTA of the grid resident at once (at most
/// what the occupancy calculator allows on the device's multiprocessors,
/// else CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), joined by the grid-wide
/// barrier of cooperative groups.
///
/// # Safety
/// As [`cuLaunchKernel`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLaunchCooperativeKernel(
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
) -> CUresult {
    entry("cuLaunchCooperativeKernel", true, || {
        launch(f, [gx, gy, gz], [bx, by, bz], shared_bytes, stream, params, std::ptr::null_mut(), LaunchOpts { cooperative: true, cluster: None })
    })
}

/// How a launch runs besides its geometry (`cuLaunchCooperativeKernel`,
/// `cuLaunchKernelEx`'s attributes).
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchOpts {
    /// Every CTA resident at once, joined by the grid barrier.
    pub cooperative: bool,
    /// Thread-block clusters of this shape (checked against the device).
    pub cluster: Option<[c_uint; 3]>,
}

/// `cuLaunchKernel`'s `extra` keys.
pub const CU_LAUNCH_PARAM_END: usize = 0;
pub const CU_LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
pub const CU_LAUNCH_PARAM_BUFFER_SIZE: usize = 2;
/// The most (key, value) pairs read from `extra` before its END.
const EXTRA_MAX_PAIRS: usize = 64;

/// The kernel arguments packed in `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER,
/// CU_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_END): one buffer holding
/// each parameter at its offset in the kernel's parameter layout.
unsafe fn extra_args(extra: *mut *mut c_void, layout: &[(u32, u32)], total: u32) -> Result<Vec<KernelArg>, CUresult> {
    let (mut buf, mut size): (*const u8, Option<usize>) = (std::ptr::null(), None);
    let mut i = 0;
    loop {
        if i >= 2 * EXTRA_MAX_PAIRS {
            report::log("cuLaunchKernel: `extra` has no CU_LAUNCH_PARAM_END");
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let key = *extra.add(i) as usize;
        if key == CU_LAUNCH_PARAM_END {
            break;
        }
        let value = *extra.add(i + 1);
        match key {
            CU_LAUNCH_PARAM_BUFFER_POINTER => buf = value as *const u8,
            CU_LAUNCH_PARAM_BUFFER_SIZE => {
                if value.is_null() {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                size = Some(*(value as *const usize));
            }
            _ => {
                report::log(&format!("cuLaunchKernel: unknown `extra` key {key:#x}"));
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
        i += 2;
    }
    if layout.is_empty() {
        return Ok(Vec::new());
    }
    let Some(size) = size else {
        report::log("cuLaunchKernel: `extra` gives no CU_LAUNCH_PARAM_BUFFER_SIZE");
        return Err(CUDA_ERROR_INVALID_VALUE);
    };
    if buf.is_null() || size < total as usize {
        report::log(&format!("cuLaunchKernel: the `extra` parameter buffer holds {size} bytes, the kernel's parameters take {total}"));
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let bytes = std::slice::from_raw_parts(buf, total as usize);
    Ok(layout.iter().map(|&(off, n)| KernelArg::Bytes(bytes[off as usize..(off + n) as usize].to_vec())).collect())
}

/// Launches kernel `f` (a CUfunction or a CUkernel) and runs it to
/// completion.
///
/// # Safety
/// As [`cuLaunchKernel`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn launch(
    f: Handle,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared_bytes: c_uint,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    opts: LaunchOpts,
) -> Result<(), CUresult> {
    {
        let (ctx, module, func, cc, forced, threads, resident, limits) = {
            let mut st = state::state();
            let ctx = st.current()?;
            st.check_stream(from_ptr(stream), ctx)?;
            let func = st.functions.get(&from_ptr(f)).ok_or(CUDA_ERROR_INVALID_HANDLE)?.clone();
            sync_consts(&mut st, func.module);
            let lm = st.modules.get(&func.module).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            // CTAs resident at once on the device (its one multiprocessor):
            // the most a cooperative launch may have.
            let resident = if opts.cooperative {
                let per_block = block[0] as u64 * block[1] as u64 * block[2] as u64;
                let b = c_int::try_from(per_block).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
                crate::occupancy::active_blocks(&st, from_ptr(f), b, shared_bytes as usize)? as u64 * crate::occupancy::MULTIPROCESSORS
            } else {
                0
            };
            let limits = (st.fuel, st.timeout);
            (ctx, lm.module.clone(), func, st.cc, st.scheduling, st.threads, resident, limits)
        };
        if opts.cooperative {
            let ctas = grid[0] as u64 * grid[1] as u64 * grid[2] as u64;
            if ctas > resident {
                report::record_launch(&func.name, report::LaunchOutcome::Refused);
                report::log(&format!("cooperative launch refused: {ctas} CTAs, and {resident} of this block size and shared memory fit on the device at once"));
                return Err(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
            }
        }
        if let Some(c) = opts.cluster {
            if cc.0 < 9 {
                report::log(&format!("launch refused: thread-block clusters need compute capability 9.0, the device has {}.{}", cc.0, cc.1));
                return Err(CUDA_ERROR_NOT_SUPPORTED);
            }
            let n = c[0] as u64 * c[1] as u64 * c[2] as u64;
            let max = func.max_cluster_ctas();
            if n == 0 || n > max || (0..3).any(|i| grid[i] % c[i].max(1) != 0) {
                report::log(&format!("launch refused: cluster {},{},{} (at most {max} CTAs, dividing the grid {},{},{})", c[0], c[1], c[2], grid[0], grid[1], grid[2]));
                return Err(CUDA_ERROR_INVALID_CLUSTER_SIZE);
            }
        }
        // Dynamic shared memory beyond the kernel's limit (48 KiB less its
        // static part unless raised with cuFuncSetAttribute), as a GPU refuses it.
        let limit = func.max_dynamic_shared.unwrap_or(SHARED_PER_BLOCK.saturating_sub(crate::library::kernel_shared_bytes(&module.program, &func.name)));
        if shared_bytes > limit {
            report::record_launch(&func.name, report::LaunchOutcome::Refused);
            report::log(&format!("launch refused: {shared_bytes} bytes of dynamic shared memory, the kernel's limit is {limit}"));
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let args = if !extra.is_null() {
            // Arguments as `params` or as `extra`, not both.
            if !params.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            let kf = module.program.functions.iter().find(|k| k.name == func.name && k.is_kernel && k.defined).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
            extra_args(extra, &kf.kparams, kf.kparam_bytes)?
        } else {
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
            args
        };
        let mut cfg = LaunchConfig::new(Dim3::new(grid[0], grid[1], grid[2]), Dim3::new(block[0], block[1], block[2]));
        cfg.dynamic_shared_bytes = shared_bytes;
        cfg.scheduling = crate::device::scheduling_for(forced, cc);
        cfg.threads = threads;
        if let Some(fuel) = limits.0 {
            cfg.fuel = fuel;
        }
        if let Some(timeout) = limits.1 {
            cfg.timeout = timeout;
        }
        cfg.cluster = opts.cluster.map(|c| Dim3::new(c[0], c[1], c[2]));
        // A cooperative launch's grid workspace: zeroed device memory for
        // the launch's length.
        let workspace = if opts.cooperative {
            let ws = state::device_write().alloc(ptxsim_exec::GRID_WORKSPACE_BYTES).map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
            cfg.cooperative = true;
            cfg.grid_workspace = ws;
            Some(ws)
        } else {
            None
        };
        let result = crate::hostmap::around_launch(|| state::device_read().launch(&module, &func.name, &cfg, &args));
        if let Some(ws) = workspace {
            let _ = state::device_write().free(ws);
        }
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

/// `flags`: CU_STREAM_DEFAULT (0) or CU_STREAM_NON_BLOCKING (1), as for
/// `cuStreamCreateWithPriority`.
///
/// # Safety
/// `ph` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(ph: *mut Handle, flags: c_uint) -> CUresult {
    entry("cuStreamCreate", true, || {
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

#[cfg(test)]
mod ptx_arch_tests {
    //! `.target` as CU_FUNC_ATTRIBUTE_PTX_VERSION gives it.
    use super::ptx_arch;

    #[test]
    fn first_target_directive_major_minor() {
        assert_eq!(ptx_arch(".version 9.2\n.target sm_120\n.address_size 64\n"), Some(120));
        assert_eq!(ptx_arch("//\n.version 8.0\n  .target sm_90a, debug\n"), Some(90));
        assert_eq!(ptx_arch(".target sm_80\n.target sm_75\n"), Some(80));
        assert_eq!(ptx_arch(".version 8.0\n.address_size 64\n"), None);
        assert_eq!(ptx_arch(".target compute_80\n"), None);
    }
}
