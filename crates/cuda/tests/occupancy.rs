//! Settable function attributes and the occupancy calculator through the
//! built library: the dynamic shared memory limit (48 KiB less the static
//! part until `cuFuncSetAttribute` raises it, up to the 227 KiB opt-in
//! limit) is enforced at launch as a GPU does, and occupancy follows the
//! limits the device reports (2048 threads, 32 blocks, 65,536 registers at
//! 32 per thread, 228 KiB of shared memory per multiprocessor; one
//! multiprocessor).

mod common;

use libloading::Library;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_DEVICE: u32 = 101;
const INVALID_HANDLE: u32 = 400;

/// Two modules: the engine gives every kernel of a module the module's
/// static shared memory (module and function scope together).
const PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry plain()
{
    ret;
}
\0";

const PTX_BIG: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry big()
.maxntid 256, 1, 1
{
    .shared .align 4 .b8 s[16384];
    ret;
}
\0";

fn f<T: Copy>(lib: &Library, name: &str) -> T {
    let sym = format!("{name}\0");
    // SAFETY: each call site declares the function's C signature.
    unsafe { *lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
}

/// A fresh copy with a context, the module loaded: (library, plain, big).
fn setup(name: &str) -> (Library, H, H) {
    // SAFETY: our own library; its initialisers do nothing.
    let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
    let (mut ctx, mut m, mut m2, mut plain, mut big) = (null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
    unsafe {
        assert_eq!(f::<unsafe extern "C" fn(u32) -> u32>(&lib, "cuInit")(0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(*mut H, i32) -> u32>(&lib, "cuDevicePrimaryCtxRetain")(&mut ctx, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxSetCurrent")(ctx), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>(&lib, "cuModuleLoadData")(&mut m, PTX.as_ptr() as *const c_void), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>(&lib, "cuModuleLoadData")(&mut m2, PTX_BIG.as_ptr() as *const c_void), SUCCESS);
        let get = f::<unsafe extern "C" fn(*mut H, H, *const i8) -> u32>(&lib, "cuModuleGetFunction");
        assert_eq!(get(&mut plain, m, c"plain".as_ptr()), SUCCESS);
        assert_eq!(get(&mut big, m2, c"big".as_ptr()), SUCCESS);
    }
    (lib, plain, big)
}

fn attr(lib: &Library, func: H, a: c_int) -> (u32, c_int) {
    let mut v = -7;
    let r = unsafe { f::<unsafe extern "C" fn(*mut c_int, c_int, H) -> u32>(lib, "cuFuncGetAttribute")(&mut v, a, func) };
    (r, v)
}

fn launch(lib: &Library, func: H, block: u32, shared: u32) -> u32 {
    type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
    unsafe { f::<Launch>(lib, "cuLaunchKernel")(func, 1, 1, 1, block, 1, 1, shared, null_mut(), null_mut(), null_mut()) }
}

fn active(lib: &Library, func: H, block: c_int, dynamic: usize) -> (u32, c_int) {
    let mut n = -7;
    let r = unsafe { f::<unsafe extern "C" fn(*mut c_int, H, c_int, usize) -> u32>(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor")(&mut n, func, block, dynamic) };
    (r, n)
}

type ToDynamic = Option<unsafe extern "C" fn(c_int) -> usize>;

fn potential(lib: &Library, func: H, to_dynamic: ToDynamic, dynamic: usize, limit: c_int) -> (u32, c_int, c_int) {
    let (mut grid, mut block) = (-7, -7);
    let r = unsafe { f::<unsafe extern "C" fn(*mut c_int, *mut c_int, H, ToDynamic, usize, c_int) -> u32>(lib, "cuOccupancyMaxPotentialBlockSize")(&mut grid, &mut block, func, to_dynamic, dynamic, limit) };
    (r, grid, block)
}

unsafe extern "C" fn hundred_bytes_per_thread(block: c_int) -> usize {
    block as usize * 100
}

#[test]
fn dynamic_shared_memory_limit_is_enforced_and_settable() {
    let (lib, plain, big) = setup("dynamic-shared");
    let set = f::<unsafe extern "C" fn(H, c_int, c_int) -> u32>(&lib, "cuFuncSetAttribute");
    let sync = f::<unsafe extern "C" fn() -> u32>(&lib, "cuCtxSynchronize");
    assert_eq!(attr(&lib, plain, 8), (SUCCESS, 48 * 1024));
    assert_eq!(attr(&lib, big, 8), (SUCCESS, 32 * 1024));
    assert_eq!(attr(&lib, plain, 9), (SUCCESS, -1));
    assert_eq!(launch(&lib, plain, 32, 48 * 1024), SUCCESS);
    assert_eq!(launch(&lib, plain, 32, 48 * 1024 + 1), INVALID_VALUE);
    assert_eq!(launch(&lib, big, 32, 32 * 1024 + 4), INVALID_VALUE);
    assert_eq!(unsafe { sync() }, SUCCESS, "a refused launch is not sticky");
    unsafe {
        assert_eq!(set(plain, 8, 100_000), SUCCESS);
        assert_eq!(attr(&lib, plain, 8), (SUCCESS, 100_000));
        assert_eq!(launch(&lib, plain, 32, 100_000), SUCCESS);
        assert_eq!(launch(&lib, plain, 32, 100_001), INVALID_VALUE);
        // Up to the opt-in limit less the static part.
        assert_eq!(set(plain, 8, 227 * 1024), SUCCESS);
        assert_eq!(set(plain, 8, 227 * 1024 + 1), INVALID_VALUE);
        assert_eq!(set(big, 8, 211 * 1024), SUCCESS);
        assert_eq!(set(big, 8, 211 * 1024 + 1), INVALID_VALUE);
        assert_eq!(set(plain, 8, -1), INVALID_VALUE);
        // The carveout hint; read-only attributes.
        assert_eq!(set(plain, 9, 50), SUCCESS);
        assert_eq!(attr(&lib, plain, 9), (SUCCESS, 50));
        assert_eq!(set(plain, 9, 101), INVALID_VALUE);
        assert_eq!(set(plain, 0, 512), INVALID_VALUE);
        assert_eq!(set(plain, 4, 16), INVALID_VALUE);
        assert_eq!(set(0x43000000_0000FFFF_u64 as H, 8, 0), INVALID_HANDLE);
        // cuKernelSetAttribute takes a CUkernel of a library.
        type LoadLib = unsafe extern "C" fn(*mut H, *const c_void, *mut c_int, *mut *mut c_void, c_uint, *mut c_int, *mut *mut c_void, c_uint) -> u32;
        let mut l = null_mut();
        assert_eq!(f::<LoadLib>(&lib, "cuLibraryLoadData")(&mut l, PTX.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), SUCCESS);
        let mut k = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, H, *const i8) -> u32>(&lib, "cuLibraryGetKernel")(&mut k, l, c"plain".as_ptr()), SUCCESS);
        let kset = f::<unsafe extern "C" fn(c_int, c_int, H, i32) -> u32>(&lib, "cuKernelSetAttribute");
        assert_eq!(kset(8, 64 * 1024, k, 0), SUCCESS);
        assert_eq!(attr(&lib, k, 8), (SUCCESS, 64 * 1024));
        assert_eq!(kset(8, 1024, k, 1), INVALID_DEVICE);
        assert_eq!(kset(8, 1024, plain, 0), INVALID_HANDLE, "a module's CUfunction is not a CUkernel");
    }
}

#[test]
fn occupancy_follows_the_device_limits() {
    let (lib, plain, big) = setup("occupancy");
    // Threads (2048 per SM) and registers (32 x 1024 = half the file) bound 1024-thread blocks to 2.
    assert_eq!(active(&lib, plain, 1024, 0), (SUCCESS, 2));
    // 32 blocks per SM at most; a 33-thread block occupies two warps.
    assert_eq!(active(&lib, plain, 32, 0), (SUCCESS, 32));
    assert_eq!(active(&lib, plain, 33, 0), (SUCCESS, 32));
    assert_eq!(active(&lib, plain, 96, 0), (SUCCESS, 21));
    // Shared memory: 228 KiB / (16 KiB static + 32 KiB dynamic) = 4.
    assert_eq!(active(&lib, big, 64, 32 * 1024), (SUCCESS, 4));
    assert_eq!(active(&lib, big, 256, 0), (SUCCESS, 8));
    // Over the kernel's limits: no block fits.
    assert_eq!(active(&lib, big, 512, 0), (SUCCESS, 0));
    assert_eq!(active(&lib, plain, 2048, 0), (SUCCESS, 0));
    assert_eq!(active(&lib, plain, 64, 48 * 1024 + 1), (SUCCESS, 0));
    assert_eq!(active(&lib, plain, 0, 0).0, INVALID_VALUE);
    let with_flags = f::<unsafe extern "C" fn(*mut c_int, H, c_int, usize, c_uint) -> u32>(&lib, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    let mut n = 0;
    assert_eq!(unsafe { with_flags(&mut n, plain, 256, 0, 1) }, SUCCESS);
    assert_eq!(n, 8);
    assert_eq!(unsafe { with_flags(&mut n, plain, 256, 0, 2) }, INVALID_VALUE);
    assert_eq!(unsafe { with_flags(null_mut(), plain, 256, 0, 0) }, INVALID_VALUE);
    // The largest block size with the most resident threads, and the grid that fills the device.
    assert_eq!(potential(&lib, plain, None, 0, 0), (SUCCESS, 2, 1024));
    assert_eq!(potential(&lib, plain, None, 0, 100), (SUCCESS, 32, 64));
    assert_eq!(potential(&lib, big, None, 0, 0), (SUCCESS, 8, 256));
    // 100 bytes of dynamic shared memory per thread: 256 threads, 8 blocks.
    assert_eq!(potential(&lib, plain, Some(hundred_bytes_per_thread), 0, 0), (SUCCESS, 8, 256));
    assert_eq!(potential(&lib, plain, None, 0, -1).0, INVALID_VALUE);
    assert_eq!(potential(&lib, 0x43000000_0000FFFF_u64 as H, None, 0, 0).0, INVALID_HANDLE);
}
