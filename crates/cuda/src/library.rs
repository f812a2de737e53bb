//! The JIT linker (`cuLink*`, PTX inputs), context-independent libraries
//! (`cuLibrary*`), kernels (`cuKernel*`), function attributes and
//! `cuLaunchKernelEx`: the path numba-cuda and cuda.core take to launch.
//!
//! Invariants:
//! - `cuLinkComplete`'s image is text: one PTX input unchanged, or several
//!   after a [`module::LINKED_IMAGE`] header, each after a
//!   [`module::LINKED_MODULE`] line; `cuModuleLoadData` and
//!   `cuLibraryLoadData` link such an image as nvlink does
//!   (`Device::load_linked`). The image stays valid until `cuLinkDestroy`.
//!   Only PTX inputs are accepted (`CU_JIT_INPUT_PTX`; a fatbin,
//!   `CU_JIT_INPUT_FATBINARY`, gives the PTX entry chosen for the device,
//!   as `cuModuleLoadData` does), and libcudadevrt
//!   (`CU_JIT_INPUT_LIBRARY`, an `ar` archive whose members are not read):
//!   its image is a linked one with a [`module::LINKED_DEVRT`] line, loaded
//!   with the engine's libcudadevrt builtins (`Device::load_linked_devrt`);
//!   cubins, objects and other libraries are
//!   CUDA_ERROR_NOT_SUPPORTED.
//! - A library belongs to no context (it survives context destruction and
//!   primary resets) until `cuLibraryUnload`. A `CUkernel` is a function
//!   handle with its own tag: it launches wherever a `CUfunction` does, and
//!   `cuKernelGetFunction` returns it.
//! - Attributes the engine has no real value for are the values that let
//!   every launch within the device limits go ahead. Registers per thread
//!   are the PTX registers the kernel's body uses, capped at 255 and at the
//!   `CU_JIT_MAX_REGISTERS` of the link (recorded as the image's last line,
//!   a PTX comment, [`module::MAX_REGISTERS`]); the occupancy calculator
//!   still assumes 32.

use crate::fatbin;
use crate::module::{self, c_str, kernel_handle, ptx_text, LINKED_IMAGE, LINKED_MODULE, MAX_REGISTERS};
use crate::report;
use crate::state::{self, entry, from_ptr, put, to_ptr, Link, State, TAG_FUNCTION, TAG_KERNEL, TAG_LIBRARY, TAG_LINK};
use crate::types::*;
use ptxsim_exec::{Device, Limits};
use std::os::raw::{c_char, c_int, c_uint, c_void};

/// `CUjitInputType`.
pub const CU_JIT_INPUT_PTX: c_int = 1;
pub const CU_JIT_INPUT_FATBINARY: c_int = 2;
pub const CU_JIT_INPUT_LIBRARY: c_int = 4;

/// Whether `name` (a path or an input name) is the CUDA device runtime
/// library, `libcudadevrt*.a` (`cudadevrt.lib` on Windows).
fn is_devrt(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.starts_with("libcudadevrt") || base.starts_with("cudadevrt")
}

/// The first bytes of an `ar` archive.
const AR_MAGIC: &[u8] = b"!<arch>\n";

/// Accepts the library input `bytes` named `name`: only libcudadevrt, an
/// `ar` archive, whose cooperative-groups functions the engine provides
/// (its members are not read).
fn add_library(h: Handle, name: Option<&str>, bytes: &[u8]) -> Result<(), CUresult> {
    let mut st = state::state();
    let link = st.links.get_mut(&from_ptr(h)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    if !name.is_some_and(is_devrt) {
        report::log("cuLinkAdd: the only library input (CU_JIT_INPUT_LIBRARY) that can be linked is libcudadevrt");
        return Err(CUDA_ERROR_NOT_SUPPORTED);
    }
    if !bytes.starts_with(AR_MAGIC) {
        report::log("cuLinkAdd: libcudadevrt input is not an ar archive");
        return Err(CUDA_ERROR_INVALID_IMAGE);
    }
    link.devrt = true;
    link.image = None;
    Ok(())
}
/// `CUjit_option`s read here.
pub const CU_JIT_MAX_REGISTERS: c_int = 0;
pub const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
pub const CU_JIT_ERROR_LOG_BUFFER: c_int = 5;
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// The error log buffer named by JIT options, if any: (address, size).
unsafe fn error_log(n: c_uint, options: *const c_int, values: *const *mut c_void) -> Result<Option<(usize, usize)>, CUresult> {
    if n == 0 {
        return Ok(None);
    }
    if options.is_null() || values.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let (mut buf, mut size) = (0usize, 0usize);
    for i in 0..n as usize {
        let v = *values.add(i) as usize;
        match *options.add(i) {
            CU_JIT_ERROR_LOG_BUFFER => buf = v,
            // The size is the option value itself, not a pointer to it.
            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => size = v,
            _ => {}
        }
    }
    Ok((buf != 0 && size != 0).then_some((buf, size)))
}

/// The `CU_JIT_MAX_REGISTERS` option's value (the number itself, not a
/// pointer to it), if given and not 0. `options`/`values` are checked by
/// [`error_log`] first.
unsafe fn max_registers_option(n: c_uint, options: *const c_int, values: *const *mut c_void) -> Option<u32> {
    if n == 0 || options.is_null() || values.is_null() {
        return None;
    }
    (0..n as usize).filter(|&i| *options.add(i) == CU_JIT_MAX_REGISTERS).map(|i| *values.add(i) as usize as u32).last().filter(|&v| v != 0)
}

/// Writes `msg` (truncated, NUL-terminated) into the caller's log buffer.
unsafe fn write_log(log: Option<(usize, usize)>, msg: &str) {
    if let Some((buf, size)) = log {
        let n = msg.len().min(size - 1);
        std::ptr::copy_nonoverlapping(msg.as_ptr(), buf as *mut u8, n);
        *(buf as *mut u8).add(n) = 0;
    }
}

unsafe fn link_create(name: &str, n: c_uint, options: *mut c_int, values: *mut *mut c_void, out: *mut Handle) -> CUresult {
    entry(name, true, || {
        if out.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let log = error_log(n, options, values)?;
        let max_registers = max_registers_option(n, options, values);
        let mut st = state::state();
        let h = st.handle(TAG_LINK);
        st.links.insert(h, Link { error_log: log, max_registers, ..Link::default() });
        put(out, to_ptr(h))
    })
}

/// JIT options other than the error log are accepted and ignored.
///
/// # Safety
/// `options` and `values` are null or hold `n` entries; `out` is null or
/// valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate_v2(n: c_uint, options: *mut c_int, values: *mut *mut c_void, out: *mut Handle) -> CUresult {
    link_create("cuLinkCreate_v2", n, options, values, out)
}

/// # Safety
/// As [`cuLinkCreate_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuLinkCreate(n: c_uint, options: *mut c_int, values: *mut *mut c_void, out: *mut Handle) -> CUresult {
    link_create("cuLinkCreate", n, options, values, out)
}

/// Adds PTX `text` named `name` (or `input<k>.ptx`) to link session `h`;
/// `text` gets the device's compute capability (for a fatbin's entry).
fn add_input(h: Handle, kind: c_int, name: Option<&str>, text: impl FnOnce((i32, i32)) -> Result<String, CUresult>) -> Result<(), CUresult> {
    let mut st = state::state();
    let cc = st.cc;
    let link = st.links.get_mut(&from_ptr(h)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    match kind {
        CU_JIT_INPUT_PTX | CU_JIT_INPUT_FATBINARY => {}
        0 | 3 | 5 => {
            report::log("cuLinkAdd: only PTX inputs (CU_JIT_INPUT_PTX), fatbins with PTX (CU_JIT_INPUT_FATBINARY) and libcudadevrt (CU_JIT_INPUT_LIBRARY) can be linked");
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    }
    let text = text(cc)?;
    let name = name.map(str::to_string).unwrap_or_else(|| format!("input{}.ptx", link.inputs.len()));
    link.inputs.push((name, text));
    link.image = None;
    Ok(())
}

/// The PTX of a fatbin link input of `bytes`: fatbins (bounded by the
/// input's size), or a wrapper pointing to one.
fn fatbin_input(bytes: &[u8], cc: (i32, i32)) -> Result<String, CUresult> {
    if bytes.len() >= fatbin::WRAPPER_BYTES && fatbin::image_kind(bytes) == fatbin::ImageKind::Wrapper {
        // SAFETY: the input is a wrapper, whose fatbin pointer the caller
        // vouches for as `cuModuleLoadData`'s callers do.
        let f = unsafe { fatbin::image_fatbin(bytes.as_ptr()) }.map_err(|e| module::invalid_image(&e))?;
        return module::fatbin_ptx(f, cc);
    }
    if fatbin::image_kind(bytes) == fatbin::ImageKind::Elf {
        return Err(module::no_binary(&format!(
            "a CU_JIT_INPUT_FATBINARY link input is an ELF cubin (machine code); ptxsim runs PTX: build the fatbin with nvcc -arch=sm_{0}{1} or -gencode arch=compute_{0}{1},code=compute_{0}{1}",
            cc.0, cc.1
        )));
    }
    module::fatbin_ptx(bytes, cc)
}

unsafe fn link_add_data(name: &str, h: Handle, kind: c_int, data: *mut c_void, size: usize, input: *const c_char) -> CUresult {
    entry(name, true, || {
        if data.is_null() || size == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let input = if input.is_null() { None } else { Some(c_str(input)?) };
        if kind == CU_JIT_INPUT_LIBRARY {
            return add_library(h, input, std::slice::from_raw_parts(data as *const u8, size));
        }
        add_input(h, kind, input, |cc| {
            let bytes = std::slice::from_raw_parts(data as *const u8, size);
            if kind == CU_JIT_INPUT_FATBINARY {
                return fatbin_input(bytes, cc);
            }
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(size);
            String::from_utf8(bytes[..end].to_vec()).map_err(|_| CUDA_ERROR_INVALID_PTX)
        })
    })
}

/// # Safety
/// `data` is null or valid for `size` bytes; `input` is null or
/// NUL-terminated. Options are ignored.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLinkAddData_v2(h: Handle, kind: c_int, data: *mut c_void, size: usize, input: *const c_char, _n: c_uint, _o: *mut c_int, _v: *mut *mut c_void) -> CUresult {
    link_add_data("cuLinkAddData_v2", h, kind, data, size, input)
}

/// # Safety
/// As [`cuLinkAddData_v2`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLinkAddData(h: Handle, kind: c_int, data: *mut c_void, size: usize, input: *const c_char, _n: c_uint, _o: *mut c_int, _v: *mut *mut c_void) -> CUresult {
    link_add_data("cuLinkAddData", h, kind, data, size, input)
}

unsafe fn link_add_file(name: &str, h: Handle, kind: c_int, path: *const c_char) -> CUresult {
    entry(name, true, || {
        let path = c_str(path)?;
        if kind == CU_JIT_INPUT_LIBRARY {
            // Only the archive's magic is read.
            let mut head = [0u8; 8];
            let n = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).map_err(|_| CUDA_ERROR_FILE_NOT_FOUND)?;
            return add_library(h, Some(path), &head[..n]);
        }
        add_input(h, kind, Some(path), |cc| {
            let bytes = std::fs::read(path).map_err(|_| CUDA_ERROR_FILE_NOT_FOUND)?;
            if kind == CU_JIT_INPUT_FATBINARY {
                return fatbin_input(&bytes, cc);
            }
            String::from_utf8(bytes).map_err(|_| CUDA_ERROR_INVALID_PTX)
        })
    })
}

/// # Safety
/// `path` is null or NUL-terminated. Options are ignored.
#[no_mangle]
pub unsafe extern "C" fn cuLinkAddFile_v2(h: Handle, kind: c_int, path: *const c_char, _n: c_uint, _o: *mut c_int, _v: *mut *mut c_void) -> CUresult {
    link_add_file("cuLinkAddFile_v2", h, kind, path)
}

/// # Safety
/// As [`cuLinkAddFile_v2`].
#[no_mangle]
pub unsafe extern "C" fn cuLinkAddFile(h: Handle, kind: c_int, path: *const c_char, _n: c_uint, _o: *mut c_int, _v: *mut *mut c_void) -> CUresult {
    link_add_file("cuLinkAddFile", h, kind, path)
}

/// The image of `inputs` (see the module comment), NUL-terminated; with
/// `devrt`, a linked image that says libcudadevrt is linked in; with
/// `max_registers`, a last line recording the link's register limit.
fn image_of(inputs: &[(String, String)], devrt: bool, max_registers: Option<u32>) -> Vec<u8> {
    let mut s = String::new();
    if let ([(_, text)], false) = (inputs, devrt) {
        s.push_str(text);
    } else {
        s.push_str(LINKED_IMAGE);
        if devrt {
            s.push_str(module::LINKED_DEVRT);
        }
        for (name, text) in inputs {
            s.push_str(LINKED_MODULE);
            s.push_str(&name.replace('\n', " "));
            s.push('\n');
            s.push_str(text);
            if !text.ends_with('\n') {
                s.push('\n');
            }
        }
    }
    if let Some(n) = max_registers {
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(&format!("{MAX_REGISTERS}{n}\n"));
    }
    let mut v = s.into_bytes();
    v.push(0);
    v
}

/// Links the inputs (checked by loading them into a scratch device, as
/// nvlink and the JIT would refuse them) and hands out the image.
///
/// # Safety
/// `out` and `size` are each null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuLinkComplete(h: Handle, out: *mut *mut c_void, size: *mut usize) -> CUresult {
    entry("cuLinkComplete", true, || {
        if out.is_null() || size.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut st = state::state();
        let link = st.links.get_mut(&from_ptr(h)).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if link.inputs.is_empty() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let image = image_of(&link.inputs, link.devrt, link.max_registers);
        let text = std::str::from_utf8(&image[..image.len() - 1]).map_err(|_| CUDA_ERROR_INVALID_PTX)?;
        let mut scratch = Device::with_limits(Limits::default());
        if let Err(code) = module::load_text(&mut scratch, text) {
            let msg = match module::split_linked(text) {
                Some(mods) => {
                    let refs: Vec<(&str, &str)> = mods.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
                    let r = if module::links_devrt(text) { scratch.load_linked_devrt(&refs) } else { scratch.load_linked(&refs) };
                    r.err().map(|e| e.to_string())
                }
                None => scratch.load_named("module.ptx", text).err().map(|e| e.to_string()),
            };
            write_log(link.error_log, &msg.unwrap_or_else(|| "link failed".to_string()));
            return Err(code);
        }
        let p = image.as_ptr() as *mut c_void;
        let n = image.len();
        link.image = Some(image);
        put(out, p)?;
        put(size, n)
    })
}

#[no_mangle]
pub extern "C" fn cuLinkDestroy(h: Handle) -> CUresult {
    entry("cuLinkDestroy", true, || state::state().links.remove(&from_ptr(h)).map(|_| ()).ok_or(CUDA_ERROR_INVALID_HANDLE))
}

/// Loads PTX text, a fatbin's PTX or a linked image as a library (JIT and
/// library options are accepted and ignored). No context is needed.
///
/// # Safety
/// `lib` is null or valid for a write; `code` is null, NUL-terminated or a
/// fatbin (as for `cuModuleLoadData`).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuLibraryLoadData(
    lib: *mut Handle,
    code: *const c_void,
    _jit_options: *mut c_int,
    _jit_values: *mut *mut c_void,
    _n_jit: c_uint,
    _lib_options: *mut c_int,
    _lib_values: *mut *mut c_void,
    _n_lib: c_uint,
) -> CUresult {
    entry("cuLibraryLoadData", true, || {
        if lib.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let text = ptx_text(code)?;
        let mut st = state::state();
        let (m, globals) = module::load_text(&mut state::device_write(), &text)?;
        let h = module::register(&mut st, TAG_LIBRARY, 0, m, globals, &text);
        module::adopt_managed(&st, h, &text)?;
        put(lib, to_ptr(h))
    })
}

/// # Safety
/// `kernel` is null or valid for a write; `name` is null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetKernel(kernel: *mut Handle, lib: Handle, name: *const c_char) -> CUresult {
    entry("cuLibraryGetKernel", true, || {
        if kernel.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let name = c_str(name)?;
        let mut st = state::state();
        let k = kernel_handle(&mut st, from_ptr(lib), TAG_LIBRARY, TAG_KERNEL, name)?;
        put(kernel, to_ptr(k))
    })
}

/// The variable's address in the current context (the same in all).
///
/// # Safety
/// `dptr` and `bytes` are each null or valid for a write; `name` is null or
/// NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn cuLibraryGetGlobal(dptr: *mut CUdeviceptr, bytes: *mut usize, lib: Handle, name: *const c_char) -> CUresult {
    entry("cuLibraryGetGlobal", true, || {
        let name = c_str(name)?;
        let st = state::state();
        st.current()?;
        module::global(&st, from_ptr(lib), TAG_LIBRARY, name, dptr, bytes)
    })
}

#[no_mangle]
pub extern "C" fn cuLibraryUnload(lib: Handle) -> CUresult {
    entry("cuLibraryUnload", true, || {
        let l = from_ptr(lib);
        if l >> 56 == TAG_LIBRARY && state::state().unload(l) {
            Ok(())
        } else {
            Err(CUDA_ERROR_INVALID_HANDLE)
        }
    })
}

/// The kernel handle `k` (tag `TAG_KERNEL`), checked.
fn kernel(st: &State, k: Handle) -> Result<u64, CUresult> {
    let k = from_ptr(k);
    if k >> 56 == TAG_KERNEL && st.functions.contains_key(&k) {
        Ok(k)
    } else {
        Err(CUDA_ERROR_INVALID_HANDLE)
    }
}

/// # Safety
/// `func` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuKernelGetFunction(func: *mut Handle, k: Handle) -> CUresult {
    entry("cuKernelGetFunction", true, || {
        if func.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        st.current()?;
        let k = kernel(&st, k)?;
        put(func, to_ptr(k))
    })
}

/// Registers per thread reported for a kernel whose body uses
/// `virtual_regs` PTX registers: at least 1, at most 255 (the sm_30+ limit) and `cap`.
pub fn registers(virtual_regs: u32, cap: Option<u32>) -> c_int {
    virtual_regs.clamp(1, 255).min(cap.unwrap_or(255)) as c_int
}

/// `CUfunction_attribute` `attr` of function or kernel `f`.
/// The static shared memory of kernel `name` of `program` (the module's
/// variables, its device functions' and its own; 0 if there is no such
/// kernel).
pub fn kernel_shared_bytes(program: &ptxsim_exec::program::Program, name: &str) -> u32 {
    program.functions.iter().find(|pf| pf.is_kernel && pf.defined && pf.name == name).map_or(0, |pf| pf.shared_bytes)
}

pub fn function_attribute(st: &State, f: u64, attr: c_int) -> Result<c_int, CUresult> {
    let func = st.functions.get(&f).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    let lm = st.modules.get(&func.module).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    let program = &lm.module.program;
    let pf = program.functions.iter().find(|pf| pf.is_kernel && pf.defined && pf.name == func.name).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    let clamp = |v: u64| v.min(i32::MAX as u64) as c_int;
    let static_shared = pf.shared_bytes as u64;
    Ok(match attr {
        // MAX_THREADS_PER_BLOCK: the kernel's .maxntid/.reqntid, else the device's.
        0 => pf.reqntid.or(pf.maxntid).map(|d| clamp(d.iter().map(|&x| x as u64).product())).unwrap_or(1024),
        // SHARED_SIZE_BYTES: the kernel's static shared memory.
        1 => clamp(static_shared),
        // CONST_SIZE_BYTES.
        2 => clamp(program.const_init.len() as u64),
        // LOCAL_SIZE_BYTES: the kernel's frame.
        3 => clamp(pf.frame_bytes as u64),
        // NUM_REGS: the PTX registers the kernel's body uses (predicates
        // aside), as ptxas would allocate them without reuse, within the
        // architecture's 255 per thread and the link's CU_JIT_MAX_REGISTERS.
        4 => registers(pf.num_regs, lm.max_registers),
        // PTX_VERSION: the virtual architecture the PTX was written for
        // (its `.target`; CUB picks its tuning policy by it), else the
        // compute capability. BINARY_VERSION: the compute capability (the
        // PTX is compiled for the device, as a JIT would).
        5 => lm.ptx_arch.unwrap_or(st.cc.0 * 10 + st.cc.1),
        6 => st.cc.0 * 10 + st.cc.1,
        // CACHE_MODE_CA.
        7 => 0,
        // MAX_DYNAMIC_SHARED_SIZE_BYTES: as set, else the 48 KiB default less the static part.
        8 => func.max_dynamic_shared.map(|v| v as c_int).unwrap_or(clamp((SHARED_PER_BLOCK as u64).saturating_sub(static_shared))),
        // PREFERRED_SHARED_MEMORY_CARVEOUT.
        9 => func.carveout,
        // CLUSTER_SIZE_MUST_BE_SET, REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH: no
        // kernel requires a cluster size here (`.reqnctapercluster` is not
        // recorded), so 0 as for a kernel compiled without one.
        10..=13 => 0,
        // NON_PORTABLE_CLUSTER_SIZE_ALLOWED: as set (clusters beyond 8
        // CTAs are refused until it is 1).
        14 => func.non_portable_cluster as c_int,
        // CLUSTER_SCHEDULING_POLICY_PREFERENCE: as set (a hint).
        15 => func.cluster_policy,
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    })
}

/// # Safety
/// `pi` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(pi: *mut c_int, attr: c_int, f: Handle) -> CUresult {
    entry("cuFuncGetAttribute", true, || {
        if pi.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let st = state::state();
        st.current()?;
        let f = from_ptr(f);
        if !matches!(f >> 56, TAG_FUNCTION | TAG_KERNEL) {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let v = function_attribute(&st, f, attr)?;
        put(pi, v)
    })
}

/// # Safety
/// `pi` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuKernelGetAttribute(pi: *mut c_int, attr: c_int, k: Handle, dev: CUdevice) -> CUresult {
    entry("cuKernelGetAttribute", true, || {
        if pi.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        let st = state::state();
        let k = kernel(&st, k)?;
        let v = function_attribute(&st, k, attr)?;
        put(pi, v)
    })
}

/// `CUlaunchAttribute`: an id and a 64-byte value union.
#[repr(C)]
pub struct LaunchAttribute {
    pub id: u32,
    pub pad: [u8; 4],
    pub value: [u8; 64],
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct LaunchConfig {
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared_bytes: c_uint,
    pub stream: Handle,
    pub attrs: *const LaunchAttribute,
    pub num_attrs: c_uint,
}

/// Reads one launch attribute into `opts`. Hints that change nothing here
/// are accepted (launches run one at a time, in order):
/// IGNORE, ACCESS_POLICY_WINDOW, SYNCHRONIZATION_POLICY,
/// CLUSTER_SCHEDULING_POLICY_PREFERENCE, PROGRAMMATIC_STREAM_SERIALIZATION,
/// PRIORITY, MEM_SYNC_DOMAIN_MAP, MEM_SYNC_DOMAIN,
/// PREFERRED_SHARED_MEMORY_CARVEOUT. COOPERATIVE (an int) and
/// CLUSTER_DIMENSION (three unsigned ints; checked at launch) take effect;
/// a preferred cluster shape other than 1×1×1, the attributes naming
/// events and the others are CUDA_ERROR_NOT_SUPPORTED; unknown ids are
/// CUDA_ERROR_INVALID_VALUE.
fn apply_attribute(a: &LaunchAttribute, opts: &mut module::LaunchOpts) -> Result<(), CUresult> {
    let word = |i: usize| u32::from_le_bytes([a.value[4 * i], a.value[4 * i + 1], a.value[4 * i + 2], a.value[4 * i + 3]]);
    let refuse = |what: &str| {
        report::log(&format!("cuLaunchKernelEx: {what} is not supported"));
        Err(CUDA_ERROR_NOT_SUPPORTED)
    };
    match a.id {
        0 | 1 | 3 | 5 | 6 | 8 | 9 | 10 | 14 => Ok(()),
        2 => {
            opts.cooperative = word(0) != 0;
            Ok(())
        }
        4 => {
            opts.cluster = Some([word(0), word(1), word(2)]);
            Ok(())
        }
        11 if (0..3).all(|i| word(i) <= 1) => Ok(()),
        11 => refuse("a preferred cluster dimension"),
        7 | 12 => refuse("a launch event attribute"),
        13 | 15..=18 => refuse(&format!("launch attribute {}", a.id)),
        _ => Err(CUDA_ERROR_INVALID_VALUE),
    }
}

/// The launch options of `c`'s attributes.
///
/// # Safety
/// `c.attrs` is null or valid for `c.num_attrs` entries.
unsafe fn launch_opts(c: &LaunchConfig) -> Result<module::LaunchOpts, CUresult> {
    let mut opts = module::LaunchOpts::default();
    if c.num_attrs > 0 {
        if c.attrs.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        for i in 0..c.num_attrs as usize {
            apply_attribute(&*c.attrs.add(i), &mut opts)?;
        }
    }
    Ok(opts)
}

/// # Safety
/// `config` is null or a valid `CUlaunchConfig` (its `attrs` valid for
/// `num_attrs` entries); `params` as for `cuLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn cuLaunchKernelEx(config: *const LaunchConfig, f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult {
    entry("cuLaunchKernelEx", true, || {
        if config.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let c = &*config;
        let opts = launch_opts(c)?;
        module::launch(f, c.grid, c.block, c.shared_bytes, c.stream, params, extra, opts)
    })
}

/// The most clusters of `config`'s cluster shape (its CLUSTER_DIMENSION
/// attribute; else the kernel's `.reqnctapercluster`, else 1×1×1) that are
/// resident at once: the device's resident CTAs of that block size and
/// shared memory (occupancy × multiprocessors), in whole clusters. Clusters
/// need compute capability 9.0 (else CUDA_ERROR_NOT_SUPPORTED) and at most
/// 8 CTAs, 16 where the function allows non-portable sizes (else
/// CUDA_ERROR_INVALID_CLUSTER_SIZE).
///
/// # Safety
/// `n` is null or valid for a write; `config` as for `cuLaunchKernelEx`.
#[no_mangle]
pub unsafe extern "C" fn cuOccupancyMaxActiveClusters(n: *mut c_int, f: Handle, config: *const LaunchConfig) -> CUresult {
    entry("cuOccupancyMaxActiveClusters", true, || {
        if n.is_null() || config.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let c = &*config;
        let opts = launch_opts(c)?;
        let st = state::state();
        st.current()?;
        let fid = from_ptr(f);
        let func = st.functions.get(&fid).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if st.cc.0 < 9 {
            report::log("cuOccupancyMaxActiveClusters: thread-block clusters need compute capability 9.0");
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let declared = st.modules.get(&func.module).and_then(|m| m.module.program.functions.iter().find(|k| k.name == func.name && k.is_kernel).and_then(|k| k.reqnctapercluster));
        let shape = opts.cluster.or(declared).unwrap_or([1, 1, 1]);
        let size = shape[0] as u64 * shape[1] as u64 * shape[2] as u64;
        if size == 0 || size > func.max_cluster_ctas() {
            return Err(CUDA_ERROR_INVALID_CLUSTER_SIZE);
        }
        let per_block = c.block[0] as u64 * c.block[1] as u64 * c.block[2] as u64;
        let b = c_int::try_from(per_block).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        let resident = crate::occupancy::active_blocks(&st, fid, b, c.shared_bytes as usize)? as u64 * crate::occupancy::MULTIPROCESSORS;
        put(n, (resident / size) as c_int)
    })
}
