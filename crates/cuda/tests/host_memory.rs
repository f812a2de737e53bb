//! Page-locked host memory through the built library: `cuMemHostAlloc`,
//! `cuMemAllocHost_v2`, `cuMemFreeHost`, `cuMemHostRegister_v2`,
//! `cuMemHostUnregister`, as copies use them, with their error codes
//! (the driver API's: double frees and foreign pointers, overlapping
//! registrations, unregistering what was not registered).

mod common;

use libloading::Library;
use std::ffi::c_void;
use std::ptr::null_mut;

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_CONTEXT: u32 = 201;
const NOT_SUPPORTED: u32 = 801;
const ALREADY_REGISTERED: u32 = 712;
const NOT_REGISTERED: u32 = 713;

fn f<T: Copy>(lib: &Library, name: &str) -> T {
    let sym = format!("{name}\0");
    // SAFETY: each call site declares the function's C signature.
    unsafe { *lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
}

fn setup(name: &str) -> Library {
    // SAFETY: our own library; its initialisers do nothing.
    let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
    unsafe {
        assert_eq!(f::<unsafe extern "C" fn(u32) -> u32>(&lib, "cuInit")(0), SUCCESS);
        let mut h: H = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut u64, usize) -> u32>(&lib, "cuMemAlloc_v2")(&mut 0, 16), INVALID_CONTEXT);
        assert_eq!(f::<unsafe extern "C" fn(*mut H, usize, u32) -> u32>(&lib, "cuMemHostAlloc")(&mut h, 64, 0), INVALID_CONTEXT);
        let mut ctx = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, i32) -> u32>(&lib, "cuDevicePrimaryCtxRetain")(&mut ctx, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxSetCurrent")(ctx), SUCCESS);
    }
    lib
}

#[test]
fn allocated_pinned_memory_round_trips_through_the_device() {
    let lib = setup("host-alloc");
    let host_alloc = f::<unsafe extern "C" fn(*mut H, usize, u32) -> u32>(&lib, "cuMemHostAlloc");
    let alloc_host = f::<unsafe extern "C" fn(*mut H, usize) -> u32>(&lib, "cuMemAllocHost_v2");
    let free_host = f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuMemFreeHost");
    let htod = f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>(&lib, "cuMemcpyHtoD_v2");
    let dtoh = f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>(&lib, "cuMemcpyDtoH_v2");
    unsafe {
        let (mut a, mut b) = (null_mut(), null_mut());
        assert_eq!(host_alloc(&mut a, 1000, 1 | 4), SUCCESS);
        assert_eq!(alloc_host(&mut b, 1000), SUCCESS);
        assert!(!a.is_null() && !b.is_null() && a != b);
        // Zeroed, writable host memory.
        let sa = std::slice::from_raw_parts_mut(a as *mut u8, 1000);
        assert!(sa.iter().all(|&x| x == 0));
        for (i, x) in sa.iter_mut().enumerate() {
            *x = i as u8;
        }
        let mut d = 0u64;
        assert_eq!(f::<unsafe extern "C" fn(*mut u64, usize) -> u32>(&lib, "cuMemAlloc_v2")(&mut d, 1000), SUCCESS);
        assert_eq!(htod(d, a, 1000), SUCCESS);
        assert_eq!(dtoh(b, d, 1000), SUCCESS);
        assert_eq!(std::slice::from_raw_parts(b as *const u8, 1000), &*sa);
        assert_eq!(free_host(a), SUCCESS);
        assert_eq!(free_host(a), INVALID_VALUE, "double free");
        // Not the base of a block; a host buffer of the caller's.
        assert_eq!(free_host((b as *mut u8).add(8) as H), INVALID_VALUE);
        let mut mine = [0u8; 16];
        assert_eq!(free_host(mine.as_mut_ptr() as H), INVALID_VALUE);
        assert_eq!(free_host(b), SUCCESS);
        // Errors: null out-pointer, zero size, unknown flags.
        assert_eq!(host_alloc(null_mut(), 64, 0), INVALID_VALUE);
        assert_eq!(host_alloc(&mut a, 0, 0), INVALID_VALUE);
        assert_eq!(host_alloc(&mut a, 64, 8), INVALID_VALUE);
        // DEVICEMAP (mapped for kernels; tests/mapped_memory.rs launches on it).
        assert_eq!(host_alloc(&mut a, 64, 2), SUCCESS);
        assert_eq!(free_host(a), SUCCESS);
    }
}

#[test]
fn registered_ranges() {
    let lib = setup("host-register");
    let register = f::<unsafe extern "C" fn(H, usize, u32) -> u32>(&lib, "cuMemHostRegister_v2");
    let unregister = f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuMemHostUnregister");
    let mut buf = vec![0u8; 8192];
    let p = buf.as_mut_ptr() as H;
    unsafe {
        assert_eq!(register(p, 4096, 0), SUCCESS);
        // Any overlap with a registered range.
        assert_eq!(register(p, 4096, 0), ALREADY_REGISTERED);
        assert_eq!(register((p as *mut u8).add(4095) as H, 10, 0), ALREADY_REGISTERED);
        assert_eq!(register((p as *mut u8).add(4096) as H, 4096, 1), SUCCESS);
        assert_eq!(unregister((p as *mut u8).add(8) as H), NOT_REGISTERED);
        assert_eq!(unregister(p), SUCCESS);
        assert_eq!(unregister(p), NOT_REGISTERED);
        assert_eq!(unregister((p as *mut u8).add(4096) as H), SUCCESS);
        assert_eq!(register(null_mut(), 16, 0), INVALID_VALUE);
        assert_eq!(register(p, 0, 0), INVALID_VALUE);
        // DEVICEMAP is accepted; IOMEMORY (a third party's device memory) is not supported.
        assert_eq!(register(p, 16, 2), SUCCESS);
        assert_eq!(unregister(p), SUCCESS);
        assert_eq!(register(p, 16, 4), NOT_SUPPORTED);
        assert_eq!(register(p, 16, 64), INVALID_VALUE);
        // A registered range is not host memory the library may free.
        assert_eq!(register(p, 16, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuMemFreeHost")(p), INVALID_VALUE);
        assert_eq!(unregister(p), SUCCESS);
    }
    drop(buf);
}
