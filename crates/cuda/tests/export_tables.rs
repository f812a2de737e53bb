//! `cuGetExportTable` through the built library, as the CUDA runtime calls
//! it: each known UUID gives a table whose slot 0 is its size (except the
//! context-local storage table, which has none); context-local storage
//! keeps values per context and runs their destructors when the primary
//! context is reset; the integrity check answers the fixed values for
//! versions ending in 0 and 1 and a stable, input-dependent one otherwise;
//! an unknown slot returns CUDA_ERROR_NOT_SUPPORTED instead of crashing;
//! the runtime interface's primary-context slot gives the context
//! `cuDevicePrimaryCtxRetain` gives. Expected values come from the layout
//! the runtime reads (ZLUDA's description of the tables) and, for the
//! integrity check, RFC 1319's MD2 (unit tests in `export/integrity.rs`).

mod common;

use libloading::Library;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};

const SUCCESS: u32 = 0;
const INVALID_HANDLE: u32 = 400;
const NOT_SUPPORTED: u32 = 801;

type H = *mut c_void;

fn uuid(s: &str) -> [u8; 16] {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        let path = common::private_copy(name);
        // SAFETY: our own library.
        let lib = unsafe { Library::new(&path) }.expect("load libcuda");
        let c = Cuda { lib };
        assert_eq!(unsafe { c.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
        c
    }
    fn f<T: Copy>(&self, name: &str) -> T {
        // SAFETY: the caller names the right signature.
        unsafe { *self.lib.get::<T>(format!("{name}\0").as_bytes()).expect(name) }
    }
    fn table(&self, id: &str) -> *const usize {
        let mut t: *const c_void = null_mut();
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut *const c_void, *const [u8; 16]) -> u32>("cuGetExportTable")(&mut t, &uuid(id)) };
        assert_eq!(r, SUCCESS, "{id}");
        assert!(!t.is_null());
        t as *const usize
    }
    fn slot<T: Copy>(&self, id: &str, i: usize) -> T {
        let t = self.table(id);
        // SAFETY: the table has more than `i` slots; T is a fn pointer.
        unsafe { std::mem::transmute_copy(&*t.add(i)) }
    }
    fn primary(&self) -> H {
        let mut ctx = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
        ctx
    }
}

const RUNTIME: &str = "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9";
const CLS: &str = "c693336e-1121-df11-a8c3-68f355d89593";
const INTEGRITY: &str = "d4082055-bde6-704b-8d34-ba123c66e1f2";

#[test]
fn known_tables_carry_their_size() {
    let cu = Cuda::new("export-sizes");
    for (id, slots) in [
        (RUNTIME, 13),
        ("42d85a81-23f6-cb47-8298-f6e78a3aecdc", 4),
        ("a094798c-2e74-2e74-93f2-0800200c0a66", 7),
        ("21318c60-9714-3248-8ca6-41ff7324c8f2", 64),
        (INTEGRITY, 3),
        ("263e8860-7cd2-6143-92f6-bbd5006dfa7e", 4),
        ("0ca50b8c-1004-929a-89a7-d0df10e77286", 2),
    ] {
        let t = cu.table(id);
        assert_eq!(unsafe { *t }, slots * 8, "{id}");
        for i in 1..slots {
            assert_ne!(unsafe { *t.add(i) }, 0, "{id} slot {i} is a function");
        }
    }
    // The same table each time (the integrity check hashes its address).
    assert_eq!(cu.table(RUNTIME), cu.table(RUNTIME));
}

#[test]
fn unknown_slots_return_not_supported() {
    let cu = Cuda::new("export-unknown-slot");
    let f: unsafe extern "C" fn() -> u32 = cu.slot(RUNTIME, 3);
    assert_eq!(unsafe { f() }, NOT_SUPPORTED);
    let f: unsafe extern "C" fn() -> u32 = cu.slot("21318c60-9714-3248-8ca6-41ff7324c8f2", 40);
    assert_eq!(unsafe { f() }, NOT_SUPPORTED);
}

#[test]
fn runtime_interface_gives_the_primary_context() {
    let cu = Cuda::new("export-primary");
    let get: unsafe extern "C" fn(*mut H, i32) -> u32 = cu.slot(RUNTIME, 2);
    let mut a = null_mut();
    assert_eq!(unsafe { get(&mut a, 0) }, SUCCESS);
    let b = cu.primary();
    assert_eq!(a, b);
    assert_ne!(unsafe { get(&mut a, 1) }, SUCCESS, "device 1 does not exist");
    // A module from a non-image fails with an error, not a crash.
    let load: unsafe extern "C" fn(*mut H, *const c_void) -> u32 = cu.slot(RUNTIME, 1);
    let mut m = null_mut();
    let junk = [0u8; 64];
    assert_ne!(unsafe { load(&mut m, junk.as_ptr().cast()) }, SUCCESS);
    assert_ne!(unsafe { load(null_mut(), junk.as_ptr().cast()) }, SUCCESS);
}

static DESTROYED: AtomicUsize = AtomicUsize::new(0);
unsafe extern "C" fn dtor(_ctx: H, key: *mut c_void, value: *mut c_void) {
    DESTROYED.fetch_add(key as usize * 1000 + value as usize, Ordering::SeqCst);
}

#[test]
fn context_local_storage_keeps_values_until_reset() {
    type Put = unsafe extern "C" fn(H, *mut c_void, *mut c_void, Option<unsafe extern "C" fn(H, *mut c_void, *mut c_void)>) -> u32;
    type Del = unsafe extern "C" fn(H, *mut c_void) -> u32;
    type Get = unsafe extern "C" fn(*mut *mut c_void, H, *mut c_void) -> u32;
    let cu = Cuda::new("export-cls");
    let ctx = cu.primary();
    let put: Put = cu.slot(CLS, 0);
    let del: Del = cu.slot(CLS, 1);
    let get: Get = cu.slot(CLS, 2);
    let mut v = null_mut();
    assert_eq!(unsafe { get(&mut v, ctx, 7 as _) }, INVALID_HANDLE, "no value yet");
    assert_eq!(unsafe { put(ctx, 7 as _, 42 as _, Some(dtor)) }, SUCCESS);
    assert_eq!(unsafe { put(null_mut(), 8 as _, 43 as _, Some(dtor)) }, SUCCESS, "null: the current context");
    assert_eq!(unsafe { get(&mut v, null_mut(), 7 as _) }, SUCCESS);
    assert_eq!(v as usize, 42);
    assert_eq!(unsafe { get(&mut v, ctx, 8 as _) }, SUCCESS);
    assert_eq!(v as usize, 43);
    assert_eq!(unsafe { del(ctx, 8 as _) }, SUCCESS);
    assert_eq!(unsafe { get(&mut v, ctx, 8 as _) }, INVALID_HANDLE);
    // A reset runs the remaining destructor once, with its key and value.
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(i32) -> u32>("cuDevicePrimaryCtxReset_v2")(0) }, SUCCESS);
    assert_eq!(DESTROYED.load(Ordering::SeqCst), 7042);
    assert_eq!(unsafe { get(&mut v, ctx, 7 as _) }, INVALID_HANDLE);
}

#[test]
fn integrity_check_answers() {
    type Check = unsafe extern "C" fn(u32, u64, *mut [u64; 2]) -> u32;
    let cu = Cuda::new("export-integrity");
    let check: Check = cu.slot(INTEGRITY, 1);
    let mut out = [0u64; 2];
    assert_eq!(unsafe { check(13050, 1_700_000_000, &mut out) }, SUCCESS);
    assert_eq!(out, [0x3341181C03CB675C, 0x8ED383AA1F4CD1E8]);
    assert_eq!(unsafe { check(13051, 1_700_000_000, &mut out) }, SUCCESS);
    assert_eq!(out, [0x1841181C03CB675C, 0x8ED383AA1F4CD1E8]);
    let mut a = [0u64; 2];
    let mut b = [0u64; 2];
    let mut c = [0u64; 2];
    unsafe {
        check(13052, 1_700_000_000, &mut a);
        check(13052, 1_700_000_000, &mut b);
        check(13052, 1_700_000_001, &mut c);
    }
    assert_eq!(a, b, "same inputs, same answer");
    assert_ne!(a, c, "the time is hashed");
    assert_ne!(unsafe { check(13052, 0, null_mut()) }, SUCCESS);
}
