//! `cuGetProcAddress(_v2)` through the built library, as `cuda-python`
//! calls it: the newest version not above the request picks the exported
//! symbol (`cuMemAlloc` at 3020 is `cuMemAlloc_v2`), the per-thread-stream
//! flag resolves to the same functions, and unknown names, names this
//! library does not implement and too-old requests are CUDA_ERROR_NOT_FOUND
//! with the query status the driver API documents. Also: every function in
//! the library's list (`proc::implemented`) is really exported, and every
//! exported function is in the list (less the library's own `ptxsim_*`
//! functions, which are no driver API). `cuGetExportTable` refuses an
//! unknown UUID with CUDA_ERROR_NOT_SUPPORTED and a NULL table (the tables
//! themselves: tests/export_tables.rs).

mod common;

use libloading::Library;
use std::ffi::{c_char, c_int, c_void};
use std::ptr::null_mut;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const NOT_FOUND: u32 = 500;
const STATUS_SUCCESS: c_int = 0;
const STATUS_SYMBOL_NOT_FOUND: c_int = 1;
const STATUS_VERSION_NOT_SUFFICIENT: c_int = 2;
const PER_THREAD: u64 = 2;

type GetProcV2 = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> u32;
type GetProc = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64) -> u32;

fn load(name: &str) -> Library {
    // SAFETY: our own library; its initialisers do nothing.
    unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy")
}

/// dlsym of `name` in `lib`.
fn sym(lib: &Library, name: &str) -> usize {
    let s = format!("{name}\0");
    // SAFETY: only the address is taken.
    unsafe { *lib.get::<*mut c_void>(s.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) as usize }
}

/// cuGetProcAddress_v2(name, version, flags): (result, pointer, status).
fn get(lib: &Library, name: &str, version: c_int, flags: u64) -> (u32, usize, c_int) {
    let f: GetProcV2 = unsafe { *lib.get(b"cuGetProcAddress_v2\0").unwrap() };
    let s = format!("{name}\0");
    let mut p: *mut c_void = 0x1234 as *mut c_void;
    let mut st: c_int = -1;
    let r = unsafe { f(s.as_ptr() as *const c_char, &mut p, version, flags, &mut st) };
    (r, p as usize, st)
}

#[test]
fn every_listed_function_is_exported_and_every_export_is_listed() {
    let lib = load("proc-exported");
    let listed: Vec<&str> = cuda::proc::implemented().iter().map(|(n, _)| *n).collect();
    for n in &listed {
        assert_ne!(sym(&lib, n), 0, "{n}");
    }
    // Every public `extern "C" fn` in the sources is in the list (a private
    // one, such as report.rs's exit handler, is not exported).
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut exported = Vec::new();
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(src)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    for path in files {
        let text = std::fs::read_to_string(path).unwrap();
        for line in text.lines() {
            let public = line.starts_with("pub extern \"C\" fn ") || line.starts_with("pub unsafe extern \"C\" fn ");
            if let Some(rest) = line.split("extern \"C\" fn ").nth(1).filter(|_| public) {
                let name = rest.split('(').next().unwrap().trim().to_string();
                if name.starts_with("ptxsim_") {
                    assert!(!listed.contains(&name.as_str()), "{name} is no driver API function");
                    assert_ne!(sym(&lib, &name), 0, "{name}");
                    continue;
                }
                exported.push(name);
            }
        }
    }
    assert!(exported.len() >= 50);
    for n in &exported {
        assert!(listed.contains(&n.as_str()), "{n} is exported but missing from proc::implemented");
    }
    assert_eq!(exported.len(), listed.len(), "duplicates in proc::implemented");
}

#[test]
fn the_newest_version_not_above_the_request_picks_the_symbol() {
    let lib = load("proc-versions");
    // No cuInit needed.
    let (r, p, st) = get(&lib, "cuMemAlloc", 3020, 0);
    assert_eq!((r, st), (SUCCESS, STATUS_SUCCESS));
    assert_eq!(p, sym(&lib, "cuMemAlloc_v2"));
    assert_eq!(get(&lib, "cuMemAlloc", 12090, 0).1, sym(&lib, "cuMemAlloc_v2"));
    // At 2000 cuMemAlloc is the 32-bit form, which this library lacks.
    let (r, p, st) = get(&lib, "cuMemAlloc", 2000, 0);
    assert_eq!((r, p, st), (NOT_FOUND, 0, STATUS_SYMBOL_NOT_FOUND));
    // cuStreamDestroy: 2000 plain, 4000 `_v2`.
    assert_eq!(get(&lib, "cuStreamDestroy", 3020, 0).1, sym(&lib, "cuStreamDestroy"));
    assert_eq!(get(&lib, "cuStreamDestroy", 4000, 0).1, sym(&lib, "cuStreamDestroy_v2"));
    assert_eq!(get(&lib, "cuGetProcAddress", 12000, 0).1, sym(&lib, "cuGetProcAddress_v2"));
    assert_eq!(get(&lib, "cuGetProcAddress", 11080, 0).1, sym(&lib, "cuGetProcAddress"));
    // The legacy-stream flag and the per-thread one: same functions.
    assert_eq!(get(&lib, "cuLaunchKernel", 12000, 1).1, sym(&lib, "cuLaunchKernel"));
    assert_eq!(get(&lib, "cuLaunchKernel", 12000, PER_THREAD).1, sym(&lib, "cuLaunchKernel"));
    assert_eq!(get(&lib, "cuMemcpyHtoD", 12000, PER_THREAD).1, sym(&lib, "cuMemcpyHtoD_v2"));
    // The pointer is callable.
    let (_, p, _) = get(&lib, "cuDriverGetVersion", 12000, 0);
    let f: unsafe extern "C" fn(*mut c_int) -> u32 = unsafe { std::mem::transmute(p) };
    let mut v = 0;
    assert_eq!(unsafe { f(&mut v) }, SUCCESS);
    assert!(v >= 12000);
}

#[test]
fn unknown_unimplemented_and_too_new_names_are_not_found() {
    let lib = load("proc-not-found");
    assert_eq!(get(&lib, "cuNoSuchFunction", 12000, 0), (NOT_FOUND, 0, STATUS_SYMBOL_NOT_FOUND));
    assert_eq!(get(&lib, "", 12000, 0), (NOT_FOUND, 0, STATUS_SYMBOL_NOT_FOUND));
    // Suffixed names are not API names.
    assert_eq!(get(&lib, "cuMemAlloc_v2", 12000, 0), (NOT_FOUND, 0, STATUS_SYMBOL_NOT_FOUND));
    // A real API name this library does not implement.
    assert_eq!(get(&lib, "cuGraphCreate", 12000, 0), (NOT_FOUND, 0, STATUS_SYMBOL_NOT_FOUND));
    // Names that exist only in versions newer than the request.
    assert_eq!(get(&lib, "cuLaunchKernel", 3020, 0), (NOT_FOUND, 0, STATUS_VERSION_NOT_SUFFICIENT));
    assert_eq!(get(&lib, "cuGetProcAddress", 11020, 0), (NOT_FOUND, 0, STATUS_VERSION_NOT_SUFFICIENT));
    assert_eq!(get(&lib, "cuGraphCreate", 9000, 0), (NOT_FOUND, 0, STATUS_VERSION_NOT_SUFFICIENT));
}

#[test]
fn bad_arguments_are_invalid_value_and_the_old_form_has_no_status() {
    let lib = load("proc-args");
    assert_eq!(get(&lib, "cuInit", 12000, 4).0, INVALID_VALUE);
    let f: GetProcV2 = unsafe { *lib.get(b"cuGetProcAddress_v2\0").unwrap() };
    let mut st = -1;
    assert_eq!(unsafe { f(c"cuInit".as_ptr(), null_mut(), 12000, 0, &mut st) }, INVALID_VALUE);
    let mut p = null_mut();
    assert_eq!(unsafe { f(std::ptr::null(), &mut p, 12000, 0, &mut st) }, INVALID_VALUE);
    // A null status is allowed.
    assert_eq!(unsafe { f(c"cuInit".as_ptr(), &mut p, 12000, 0, null_mut()) }, SUCCESS);
    assert_eq!(p as usize, sym(&lib, "cuInit"));
    let old: GetProc = unsafe { *lib.get(b"cuGetProcAddress\0").unwrap() };
    let mut p = null_mut();
    assert_eq!(unsafe { old(c"cuCtxSynchronize".as_ptr(), &mut p, 11030, 0) }, SUCCESS);
    assert_eq!(p as usize, sym(&lib, "cuCtxSynchronize"));
    assert_eq!(unsafe { old(c"cuNoSuchFunction".as_ptr(), &mut p, 11030, 0) }, NOT_FOUND);
    assert!(p.is_null());
}

#[test]
fn export_tables_are_not_supported_for_unknown_uuids() {
    const NOT_SUPPORTED: u32 = 801;
    let lib = load("proc-export-table");
    type GetExportTable = unsafe extern "C" fn(*mut *const c_void, *const [u8; 16]) -> u32;
    let f: GetExportTable = unsafe { *lib.get(b"cuGetExportTable\0").unwrap() };
    // Reachable through cuGetProcAddress, as the table says (since CUDA 3.0).
    assert_eq!(get(&lib, "cuGetExportTable", 12000, 0).1, sym(&lib, "cuGetExportTable"));
    // Two UUIDs: all zeros and the runtime interface's with its last byte
    // changed; neither has a table.
    for id in [[0u8; 16], [0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xfa]] {
        let mut t: *const c_void = 0x1234 as *const c_void;
        assert_eq!(unsafe { f(&mut t, &id) }, NOT_SUPPORTED);
        assert!(t.is_null(), "the table pointer is cleared");
    }
    let mut t: *const c_void = std::ptr::null();
    assert_eq!(unsafe { f(null_mut(), &[0u8; 16]) }, INVALID_VALUE);
    assert_eq!(unsafe { f(&mut t, std::ptr::null()) }, INVALID_VALUE);
}

#[test]
fn ipc_functions_are_present_and_refused_with_not_supported() {
    const NOT_SUPPORTED: u32 = 801;
    const NOT_INITIALIZED: u32 = 3;
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Handle([u8; 64]);
    let lib = load("proc-ipc");
    // Found through cuGetProcAddress, as cuda-python looks them up.
    for n in ["cuIpcGetMemHandle", "cuIpcOpenMemHandle", "cuIpcCloseMemHandle", "cuIpcGetEventHandle", "cuIpcOpenEventHandle"] {
        let (r, p, _) = get(&lib, n, 12000, 0);
        assert_eq!(r, SUCCESS, "{n}");
        assert_ne!(p, 0, "{n}");
    }
    assert_eq!(get(&lib, "cuIpcOpenMemHandle", 12000, 0).1, sym(&lib, "cuIpcOpenMemHandle_v2"));
    let get_mem: unsafe extern "C" fn(*mut Handle, u64) -> u32 = unsafe { *lib.get(b"cuIpcGetMemHandle\0").unwrap() };
    let open_mem: unsafe extern "C" fn(*mut u64, Handle, u32) -> u32 = unsafe { *lib.get(b"cuIpcOpenMemHandle_v2\0").unwrap() };
    let close_mem: unsafe extern "C" fn(u64) -> u32 = unsafe { *lib.get(b"cuIpcCloseMemHandle\0").unwrap() };
    let get_ev: unsafe extern "C" fn(*mut Handle, *mut c_void) -> u32 = unsafe { *lib.get(b"cuIpcGetEventHandle\0").unwrap() };
    let open_ev: unsafe extern "C" fn(*mut *mut c_void, Handle) -> u32 = unsafe { *lib.get(b"cuIpcOpenEventHandle\0").unwrap() };
    let mut h = Handle([7; 64]);
    assert_eq!(unsafe { get_mem(&mut h, 0x1000) }, NOT_INITIALIZED);
    let init: unsafe extern "C" fn(u32) -> u32 = unsafe { *lib.get(b"cuInit\0").unwrap() };
    assert_eq!(unsafe { init(0) }, SUCCESS);
    assert_eq!(unsafe { get_mem(&mut h, 0x1000) }, NOT_SUPPORTED);
    assert_eq!(unsafe { get_mem(null_mut(), 0x1000) }, INVALID_VALUE);
    let mut d = 0x55u64;
    assert_eq!(unsafe { open_mem(&mut d, h, 1) }, NOT_SUPPORTED);
    assert_eq!(d, 0, "no pointer is handed out");
    assert_eq!(unsafe { open_mem(null_mut(), h, 1) }, INVALID_VALUE);
    assert_eq!(unsafe { close_mem(0x1000) }, NOT_SUPPORTED);
    assert_eq!(unsafe { get_ev(&mut h, null_mut()) }, NOT_SUPPORTED);
    let mut e: *mut c_void = 0x99 as *mut c_void;
    assert_eq!(unsafe { open_ev(&mut e, h) }, NOT_SUPPORTED);
    assert!(e.is_null());
}
