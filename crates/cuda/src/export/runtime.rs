//! The runtime interface table (`6bd5fb6c-5bf4-e74a-8987-d93912fd9df9`):
//! what the CUDA runtime calls to turn the fatbins that
//! `__cudaRegisterFatBinary` registered into modules, and to reach a
//! device's primary context.
//!
//! Slots (from ZLUDA's description, checked against nvcc 13.5's cudart):
//! 0 the size; 1 `get_module_from_cubin(CUmodule*, fatbin wrapper*)`;
//! 2 `primary_context(CUcontext*, CUdevice)`; 6
//! `get_module_from_cubin_ext1(CUmodule*, wrapper*, ?, ?, u32)`; 7 a
//! notification with one integer argument (nothing to do); 8
//! `get_module_from_cubin_ext2(fatbin header*, CUmodule*, ?, ?, u32)`; 12
//! `load_compilers()` (the real driver loads its PTX compiler here; this
//! one needs none). The others are [`unknown_slot`](super::unknown_slot)s.
//!
//! A fatbin becomes a module through [`crate::module::cuModuleLoadData`],
//! which takes the fatbin wrapper, a bare fatbin or PTX alike, so a
//! registered fatbin loads exactly as one handed to the driver API. A
//! separately compiled program (`-rdc=true`) registers nvlink's machine
//! code with the list of its objects' fatbins: their PTX is linked instead.

use super::{size_of_slots, Table};
use crate::report;
use crate::state::{self, entry, put, to_ptr, Context, TAG_CTX};
use crate::types::*;
use std::os::raw::{c_uint, c_void};

pub const NAME: &str = "runtime interface";
const N: usize = 13;

pub struct Runtime;
impl super::Named for Runtime {
    const NAME: &'static str = NAME;
}

pub static TABLE: Table<N> = Table([
    size_of_slots(N),
    get_module_from_cubin as *const c_void,
    primary_context as *const c_void,
    crate::unknown!(Runtime, 3),
    crate::unknown!(Runtime, 4),
    crate::unknown!(Runtime, 5),
    get_module_from_cubin_ext1 as *const c_void,
    notify7 as *const c_void,
    get_module_from_cubin_ext2 as *const c_void,
    crate::unknown!(Runtime, 9),
    crate::unknown!(Runtime, 10),
    crate::unknown!(Runtime, 11),
    load_compilers as *const c_void,
]);

/// Loads a registered fatbin (its wrapper, magic 0x466243B1, or the fatbin
/// itself, magic 0xBA55ED50) as a module of the current context (a
/// separately compiled program's linked binary: see [`prelinked_image`]).
unsafe fn load(name: &str, module: *mut Handle, image: *const c_void) -> CUresult {
    if module.is_null() || image.is_null() {
        report::log(&format!("{name}: null argument -> CUDA_ERROR_INVALID_VALUE"));
        return CUDA_ERROR_INVALID_VALUE;
    }
    let r = crate::module::cuModuleLoadData(module, image);
    if report::logging() {
        report::log(&format!("{name} -> {}", crate::types::error_name(r).map(|c| c.to_string_lossy().into_owned()).unwrap_or_else(|| r.to_string())));
    }
    r
}

/// Most objects one linked binary may list (a bound on a list read from
/// the program's memory).
const MAX_PRELINKED: usize = 1 << 16;

/// The linked image of a separately compiled program (`nvcc -rdc=true`):
/// its registered wrapper has version 2 and, after the fatbin pointer, a
/// NULL-terminated array of the fatbins of the objects nvlink linked (the
/// `__cudaPrelinkedFatbins` of nvcc's `crt/link.stub`). nvlink's output is
/// machine code only, so when the linked fatbin has no PTX that runs here,
/// the objects' PTX entries are linked instead, as the driver's JIT linker
/// would (with libcudadevrt's cooperative-groups functions when a module
/// names them). `None`: not such a binary, or its own PTX runs, so the
/// ordinary load applies. Every image load asks (`module::ptx_text_for`):
/// cudart 13 registers fatbins with `cuLibraryLoadData`.
///
/// # Safety
/// `image` is a registered fatbin wrapper or fatbin (non-null).
pub unsafe fn prelinked_image(image: *const c_void, cc: (i32, i32)) -> Option<Result<String, CUresult>> {
    let w = std::slice::from_raw_parts(image as *const u8, 4);
    if crate::fatbin::image_kind(w) != crate::fatbin::ImageKind::Wrapper {
        return None;
    }
    let w = std::slice::from_raw_parts(image as *const u8, 24);
    let version = u32::from_le_bytes(w[4..8].try_into().ok()?);
    let list = u64::from_le_bytes(w[16..24].try_into().ok()?);
    if version != 2 || list == 0 {
        return None;
    }
    let linked = crate::fatbin::image_fatbin(image as *const u8).ok()?;
    let entries = crate::fatbin::parse_all(linked).ok()?;
    if crate::fatbin::select_ptx(&entries, cc).is_ok() {
        return None;
    }
    let mut texts = Vec::new();
    let mut p = list as usize as *const u64;
    loop {
        let f = *p;
        if f == 0 {
            break;
        }
        if texts.len() == MAX_PRELINKED {
            return Some(Err(CUDA_ERROR_INVALID_IMAGE));
        }
        let bytes = match crate::fatbin::fatbin_at(f as usize as *const u8) {
            Ok(b) => b,
            Err(e) => {
                report::log(&format!("separately compiled program: object {} is not a fatbin: {e}", texts.len()));
                return Some(Err(CUDA_ERROR_INVALID_IMAGE));
            }
        };
        match crate::module::fatbin_ptx(bytes, cc) {
            Ok(t) => texts.push(t),
            Err(e) => return Some(Err(e)),
        }
        p = p.add(1);
    }
    if texts.is_empty() {
        return None;
    }
    report::log(&format!("separately compiled program: linking the PTX of its {} objects", texts.len()));
    let mut image = String::from(crate::module::LINKED_IMAGE);
    if texts.iter().any(|t| t.contains("cudaCG")) {
        image.push_str(crate::module::LINKED_DEVRT);
    }
    for (i, t) in texts.iter().enumerate() {
        image.push_str(&format!("{}object{i}\n", crate::module::LINKED_MODULE));
        image.push_str(t.trim_end_matches('\0'));
        if !image.ends_with('\n') {
            image.push('\n');
        }
    }
    Some(Ok(image))
}

unsafe extern "C" fn get_module_from_cubin(module: *mut Handle, wrapper: *const c_void) -> CUresult {
    load("runtime interface[1] get_module_from_cubin", module, wrapper)
}

/// The extra arguments are logged and otherwise not used: no nvcc 13.5
/// program seen passes anything but nulls and 0.
unsafe extern "C" fn get_module_from_cubin_ext1(module: *mut Handle, wrapper: *const c_void, a3: *mut c_void, a4: *mut c_void, a5: c_uint) -> CUresult {
    report::log(&format!("runtime interface[6] get_module_from_cubin_ext1: extra arguments {a3:?} {a4:?} {a5}"));
    load("runtime interface[6] get_module_from_cubin_ext1", module, wrapper)
}

unsafe extern "C" fn get_module_from_cubin_ext2(fatbin: *const c_void, module: *mut Handle, a3: *mut c_void, a4: *mut c_void, a5: c_uint) -> CUresult {
    report::log(&format!("runtime interface[8] get_module_from_cubin_ext2: extra arguments {a3:?} {a4:?} {a5}"));
    load("runtime interface[8] get_module_from_cubin_ext2", module, fatbin)
}

/// The device's primary context, created (not retained: the runtime
/// retains it itself with `cuDevicePrimaryCtxRetain`) when it does not
/// exist yet.
unsafe extern "C" fn primary_context(pctx: *mut Handle, dev: CUdevice) -> CUresult {
    entry("runtime interface[2] primary_context", true, || {
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
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
        put(pctx, to_ptr(h))
    })
}

unsafe extern "C" fn notify7(arg: usize) {
    report::log(&format!("runtime interface[7] notification {arg:#x} (nothing to do)"));
}

unsafe extern "C" fn load_compilers() -> CUresult {
    report::log("runtime interface[12] load_compilers -> CUDA_SUCCESS (PTX runs as it is)");
    CUDA_SUCCESS
}
