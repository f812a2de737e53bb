//! Error paths of the driver library, called through `libloading` as a C
//! client would: calls before `cuInit`, null pointers, double and foreign
//! frees, bad and stale handles, zero sizes, out-of-range copies, unloaded
//! modules, a trapping kernel's sticky error, and alloc/free cycles that
//! must not grow the device's memory use. Each test loads its own copy of
//! the library, so each starts from a fresh driver state.

mod common;

use libloading::Library;
use std::ffi::{c_char, c_void, CStr};
use std::ptr::{null, null_mut};

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const NOT_INITIALIZED: u32 = 3;
const INVALID_DEVICE: u32 = 101;
const INVALID_CONTEXT: u32 = 201;
const INVALID_PTX: u32 = 218;
const INVALID_HANDLE: u32 = 400;
const NOT_FOUND: u32 = 500;
const ILLEGAL_ADDRESS: u32 = 700;
const LAUNCH_FAILED: u32 = 719;

/// A private instance of the library.
struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        let path = common::private_copy(name);
        // SAFETY: loading our own library; its initialisers do nothing.
        let lib = unsafe { Library::new(&path) }.expect("load libcuda copy");
        Cuda { lib }
    }

    /// The exported function `name` with type `T`.
    fn f<T: Copy>(&self, name: &str) -> T {
        let sym = format!("{name}\0");
        // SAFETY: the test declares each function with its C signature.
        unsafe { *self.lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
    }

    fn init(&self) {
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
    }

    /// cuInit, then the primary context retained and made current.
    fn with_context(&self) -> H {
        self.init();
        let mut ctx = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
        ctx
    }

    fn alloc(&self, n: usize) -> (u32, u64) {
        let mut p = 0u64;
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut p, n) };
        (r, p)
    }

    fn free(&self, p: u64) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(u64) -> u32>("cuMemFree_v2")(p) }
    }

    fn htod(&self, dst: u64, src: &[u8]) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>("cuMemcpyHtoD_v2")(dst, src.as_ptr() as *const c_void, src.len()) }
    }

    fn dtoh(&self, dst: &mut [u8], src: u64) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(dst.as_mut_ptr() as *mut c_void, src, dst.len()) }
    }

    fn mem_info(&self) -> (usize, usize) {
        let (mut free, mut total) = (0usize, 0usize);
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut usize, *mut usize) -> u32>("cuMemGetInfo_v2")(&mut free, &mut total) }, SUCCESS);
        (free, total)
    }

    fn load(&self, ptx: &str) -> (u32, H) {
        let text = format!("{ptx}\0");
        let mut m = null_mut();
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, text.as_ptr() as *const c_void) };
        (r, m)
    }

    fn function(&self, m: H, name: &str) -> (u32, H) {
        let name = format!("{name}\0");
        let mut f = null_mut();
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, name.as_ptr() as *const c_char) };
        (r, f)
    }

    fn launch(&self, f: H, grid: u32, block: u32, params: &mut [*mut c_void]) -> u32 {
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        let p = if params.is_empty() { null_mut() } else { params.as_mut_ptr() };
        unsafe { self.f::<Launch>("cuLaunchKernel")(f, grid, 1, 1, block, 1, 1, 0, null_mut(), p, null_mut()) }
    }

    fn sync(&self) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn() -> u32>("cuCtxSynchronize")() }
    }
}

/// Stores `v` at `p[tid]` for every thread (out of bounds when the buffer
/// is smaller than the grid), and a kernel that executes `trap`.
const STORE_PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 counter[4];
.visible .entry store(.param .u64 p, .param .u32 v)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [v];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
.visible .entry boom()
{
    trap;
    ret;
}
";

#[test]
fn calls_before_cuinit_are_not_initialized() {
    let cu = Cuda::new("before-init");
    let mut n = 0i32;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32) -> u32>("cuDeviceGetCount")(&mut n) }, NOT_INITIALIZED);
    assert_eq!(cu.alloc(16).0, NOT_INITIALIZED);
    let mut ctx = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxGetCurrent")(&mut ctx) }, NOT_INITIALIZED);
    assert_eq!(cu.sync(), NOT_INITIALIZED);
    assert_eq!(cu.load(STORE_PTX).0, NOT_INITIALIZED);
    // The version and the error names need no cuInit.
    let mut v = 0i32;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32) -> u32>("cuDriverGetVersion")(&mut v) }, SUCCESS);
    assert!(v >= 12000);
    let mut s: *const c_char = null();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32, *mut *const c_char) -> u32>("cuGetErrorName")(NOT_INITIALIZED, &mut s) }, SUCCESS);
    assert_eq!(unsafe { CStr::from_ptr(s) }.to_str().unwrap(), "CUDA_ERROR_NOT_INITIALIZED");
    // cuInit rejects flags, then works.
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(1) }, INVALID_VALUE);
    cu.init();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32) -> u32>("cuDeviceGetCount")(&mut n) }, SUCCESS);
    assert_eq!(n, 1);
}

#[test]
fn null_pointers_are_invalid_value() {
    let cu = Cuda::new("null-pointers");
    cu.init();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32) -> u32>("cuDeviceGetCount")(null_mut()) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32, i32) -> u32>("cuDeviceGet")(null_mut(), 0) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_char, i32, i32) -> u32>("cuDeviceGetName")(null_mut(), 16, 0) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32, i32, i32) -> u32>("cuDeviceGetAttribute")(null_mut(), 10, 0) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(null_mut(), 0) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32, *mut *const c_char) -> u32>("cuGetErrorString")(0, null_mut()) }, INVALID_VALUE);
    cu.with_context();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(null_mut(), 16) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut usize, *mut usize) -> u32>("cuMemGetInfo_v2")(null_mut(), null_mut()) }, INVALID_VALUE);
    let (r, p) = cu.alloc(16);
    assert_eq!(r, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>("cuMemcpyHtoD_v2")(p, null(), 16) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(null_mut(), p, 16) }, INVALID_VALUE);
    let mut m = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, null()) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(null_mut(), STORE_PTX.as_ptr() as *const c_void) }, INVALID_VALUE);
    let (r, m) = cu.load(STORE_PTX);
    assert_eq!(r, SUCCESS);
    let mut f = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, null()) }, INVALID_VALUE);
    // A kernel with parameters launched with no parameter array.
    let (r, f) = cu.function(m, "store");
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.launch(f, 1, 1, &mut []), INVALID_VALUE);
    // ... or with a null entry in it.
    let mut v = 7u32;
    assert_eq!(cu.launch(f, 1, 1, &mut [null_mut(), &mut v as *mut u32 as *mut c_void]), INVALID_VALUE);
    assert_eq!(cu.sync(), SUCCESS, "refused launches leave no sticky error");
}

#[test]
fn device_queries() {
    let cu = Cuda::new("device-queries");
    cu.init();
    let attr = |a: i32| {
        let mut v = -1;
        let r = unsafe { cu.f::<unsafe extern "C" fn(*mut i32, i32, i32) -> u32>("cuDeviceGetAttribute")(&mut v, a, 0) };
        (r, v)
    };
    assert_eq!(attr(75), (SUCCESS, 8));
    assert_eq!(attr(76), (SUCCESS, 0));
    assert_eq!(attr(10), (SUCCESS, 32));
    assert_eq!(attr(1), (SUCCESS, 1024));
    assert_eq!(attr(16), (SUCCESS, 1));
    assert_eq!(attr(9999).0, INVALID_VALUE);
    let mut v = 0;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32, i32, i32) -> u32>("cuDeviceGetAttribute")(&mut v, 10, 1) }, INVALID_DEVICE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32, i32) -> u32>("cuDeviceGet")(&mut v, 1) }, INVALID_DEVICE);
    let mut name = [0 as c_char; 4];
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_char, i32, i32) -> u32>("cuDeviceGetName")(name.as_mut_ptr(), 4, 0) }, SUCCESS);
    assert_eq!(unsafe { CStr::from_ptr(name.as_ptr()) }.to_str().unwrap(), "ptx", "a short buffer gets a truncated, terminated name");
    let mut total = 0usize;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut usize, i32) -> u32>("cuDeviceTotalMem_v2")(&mut total, 0) }, SUCCESS);
    assert_eq!(total as u64, 4 << 30);
    let mut s: *const c_char = null();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32, *mut *const c_char) -> u32>("cuGetErrorName")(123456, &mut s) }, INVALID_VALUE);
    assert!(s.is_null());
}

#[test]
fn calls_without_a_context_are_invalid_context() {
    let cu = Cuda::new("no-context");
    cu.init();
    assert_eq!(cu.alloc(16).0, INVALID_CONTEXT);
    assert_eq!(cu.sync(), INVALID_CONTEXT);
    assert_eq!(cu.load(STORE_PTX).0, INVALID_CONTEXT);
    let mut ctx = 1usize as H;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxGetCurrent")(&mut ctx) }, SUCCESS);
    assert!(ctx.is_null());
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxPopCurrent_v2")(&mut ctx) }, INVALID_CONTEXT);
}

#[test]
fn context_stack_push_pop_set_create_destroy() {
    let cu = Cuda::new("context-stack");
    let primary = cu.with_context();
    let get = || {
        let mut c = null_mut();
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxGetCurrent")(&mut c) }, SUCCESS);
        c
    };
    let push = |c: H| unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxPushCurrent_v2")(c) };
    let pop = || {
        let mut c = null_mut();
        let r = unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxPopCurrent_v2")(&mut c) };
        (r, c)
    };
    assert_eq!(get(), primary);
    // Retaining again gives the same handle.
    let mut again = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut again, 0) }, SUCCESS);
    assert_eq!(again, primary);
    assert_eq!(pop(), (SUCCESS, primary));
    assert!(get().is_null());
    assert_eq!(push(primary), SUCCESS);
    let mut created = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, u32, i32) -> u32>("cuCtxCreate_v2")(&mut created, 0, 0) }, SUCCESS);
    assert_ne!(created, primary);
    assert_eq!(get(), created, "cuCtxCreate pushes the new context");
    // Set replaces the top, leaving the primary below.
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(primary) }, SUCCESS);
    assert_eq!(pop(), (SUCCESS, primary));
    assert_eq!(pop(), (SUCCESS, primary));
    assert_eq!(pop().0, INVALID_CONTEXT);
    // A destroyed context is no longer a handle.
    assert_eq!(push(created), SUCCESS);
    let (r, p) = cu.alloc(64);
    assert_eq!(r, SUCCESS);
    let destroy = |c: H| unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxDestroy_v2")(c) };
    assert_eq!(destroy(created), SUCCESS);
    assert!(get().is_null(), "destroying the current context pops it");
    assert_eq!(destroy(created), INVALID_CONTEXT);
    assert_eq!(push(created), INVALID_CONTEXT);
    assert_eq!(push(0xdead_beef_usize as H), INVALID_CONTEXT);
    assert_eq!(destroy(null_mut()), INVALID_VALUE);
    assert_eq!(destroy(primary), INVALID_CONTEXT, "the primary context is released, not destroyed");
    // Its allocation went with it.
    assert_eq!(push(primary), SUCCESS);
    assert_eq!(cu.free(p), INVALID_VALUE);
    let mut dev = -1;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut i32) -> u32>("cuCtxGetDevice")(&mut dev) }, SUCCESS);
    assert_eq!(dev, 0);
    // The context stack is per thread.
    let other = std::thread::scope(|s| s.spawn(|| get() as usize).join().unwrap());
    assert_eq!(other, 0);
}

#[test]
fn memory_errors_double_free_foreign_pointers_zero_size_out_of_range() {
    let cu = Cuda::new("memory-errors");
    cu.with_context();
    assert_eq!(cu.alloc(0).0, INVALID_VALUE, "size 0");
    let (r, p) = cu.alloc(16);
    assert_eq!(r, SUCCESS);
    assert_ne!(p, 0);
    // Copies inside the allocation work; past its end they are refused.
    let data: Vec<u8> = (1..=16).collect();
    assert_eq!(cu.htod(p, &data), SUCCESS);
    let mut back = [0u8; 16];
    assert_eq!(cu.dtoh(&mut back, p), SUCCESS);
    assert_eq!(&back[..], &data[..]);
    assert_eq!(cu.htod(p, &[0u8; 17]), INVALID_VALUE);
    assert_eq!(cu.htod(p + 8, &[0u8; 9]), INVALID_VALUE);
    assert_eq!(cu.dtoh(&mut [0u8; 17], p), INVALID_VALUE);
    assert_eq!(cu.dtoh(&mut [0u8; 1], p + 16), INVALID_VALUE);
    assert_eq!(cu.htod(0x1234, &[0u8; 4]), INVALID_VALUE, "foreign pointer");
    assert_eq!(cu.htod(u64::MAX - 2, &[0u8; 4]), INVALID_VALUE, "wrapping range");
    let dtod = |d: u64, s: u64, n: usize| unsafe { cu.f::<unsafe extern "C" fn(u64, u64, usize) -> u32>("cuMemcpyDtoD_v2")(d, s, n) };
    let (r, q) = cu.alloc(8);
    assert_eq!(r, SUCCESS);
    assert_eq!(dtod(q, p + 4, 8), SUCCESS);
    assert_eq!(dtod(q, p, 9), INVALID_VALUE);
    let mut b8 = [0u8; 8];
    assert_eq!(cu.dtoh(&mut b8, q), SUCCESS);
    assert_eq!(b8, [5, 6, 7, 8, 9, 10, 11, 12]);
    // Overlapping device-to-device copy.
    assert_eq!(dtod(p + 1, p, 8), SUCCESS);
    assert_eq!(cu.dtoh(&mut back, p), SUCCESS);
    assert_eq!(&back[..10], &[1, 1, 2, 3, 4, 5, 6, 7, 8, 10]);
    // Memsets: bounds and alignment.
    let d32 = |d: u64, v: u32, n: usize| unsafe { cu.f::<unsafe extern "C" fn(u64, u32, usize) -> u32>("cuMemsetD32_v2")(d, v, n) };
    let d16 = |d: u64, v: u16, n: usize| unsafe { cu.f::<unsafe extern "C" fn(u64, u16, usize) -> u32>("cuMemsetD16_v2")(d, v, n) };
    assert_eq!(d32(p, 0x0403_0201, 4), SUCCESS);
    assert_eq!(d32(p, 0, 5), INVALID_VALUE);
    assert_eq!(d32(p + 2, 0, 1), INVALID_VALUE, "misaligned");
    assert_eq!(d16(p + 14, 0xaabb, 1), SUCCESS);
    assert_eq!(cu.dtoh(&mut back, p), SUCCESS);
    assert_eq!(&back[..], &[1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 0xbb, 0xaa]);
    // Address range of an interior pointer.
    let (mut base, mut size) = (0u64, 0usize);
    let range = |a: u64, b: &mut u64, s: &mut usize| unsafe { cu.f::<unsafe extern "C" fn(*mut u64, *mut usize, u64) -> u32>("cuMemGetAddressRange_v2")(b, s, a) };
    assert_eq!(range(p + 5, &mut base, &mut size), SUCCESS);
    assert_eq!((base, size), (p, 16));
    assert_eq!(range(p + 16, &mut base, &mut size), INVALID_VALUE);
    // Frees: interior, foreign, null, double.
    assert_eq!(cu.free(p + 4), INVALID_VALUE);
    assert_eq!(cu.free(0xdead_0000), INVALID_VALUE);
    // Freeing 0 is a no-op that succeeds, as on a GPU (cuMemFree(0) and
    // cuMemFreeHost(NULL) are CUDA_SUCCESS on an RTX 4090 with driver
    // 590.48, probed natively in lupinemachines/lupine#858; cudart's
    // cudaFree(0), the usual way to create the context, calls cuMemFree(0)).
    assert_eq!(cu.free(0), SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_void) -> u32>("cuMemFreeHost")(null_mut()) }, SUCCESS);
    assert_eq!(cu.free(p), SUCCESS);
    assert_eq!(cu.free(p), INVALID_VALUE, "double free");
    assert_eq!(cu.htod(p, &[0u8; 4]), INVALID_VALUE, "use after free");
    assert_eq!(cu.free(q), SUCCESS);
    // A reused block comes back zeroed.
    let (r, p2) = cu.alloc(16);
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.dtoh(&mut back, p2), SUCCESS);
    assert_eq!(back, [0u8; 16]);
}

#[test]
fn ten_thousand_alloc_free_cycles_do_not_grow_memory_use() {
    let cu = Cuda::new("alloc-free-cycles");
    cu.with_context();
    let (free_start, total) = cu.mem_info();
    assert_eq!(free_start, total);
    // One allocation stays live throughout, so the cycles must reuse freed
    // blocks (the engine cannot be swapped for a fresh one).
    let (r, keep) = cu.alloc(64);
    assert_eq!(r, SUCCESS);
    let free0 = cu.mem_info().0;
    assert_eq!(free0, free_start - 64);
    // 10,000 MiB in all: more than twice the 4 GiB device, so leaking blocks
    // would run out of memory long before the end.
    for i in 0..10_000 {
        let (r, p) = cu.alloc(1 << 20);
        assert_eq!(r, SUCCESS, "allocation {i}");
        if i == 0 {
            assert_eq!(cu.mem_info().0, free0 - (1 << 20));
        }
        assert_eq!(cu.free(p), SUCCESS, "free {i}");
    }
    assert_eq!(cu.mem_info().0, free0);
    // The device is still usable for a large allocation.
    let (r, p) = cu.alloc(1 << 30);
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.free(p), SUCCESS);
    assert_eq!(cu.mem_info().0, free0);
    assert_eq!(cu.free(keep), SUCCESS);
    assert_eq!(cu.mem_info().0, free_start);
}

#[test]
fn bad_and_stale_handles() {
    let cu = Cuda::new("bad-handles");
    cu.with_context();
    let fake = 0x1234_5678usize as H;
    assert_eq!(cu.function(fake, "store").0, INVALID_HANDLE);
    assert_eq!(cu.function(null_mut(), "store").0, INVALID_HANDLE);
    assert_eq!(cu.launch(fake, 1, 1, &mut []), INVALID_HANDLE);
    let stream_destroy = |s: H| unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamDestroy_v2")(s) };
    let stream_sync = |s: H| unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamSynchronize")(s) };
    assert_eq!(stream_destroy(fake), INVALID_HANDLE);
    assert_eq!(stream_sync(fake), INVALID_HANDLE);
    for s in [0usize, 1, 2] {
        assert_eq!(stream_sync(s as H), SUCCESS, "stream {s}");
    }
    let mut s = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, u32) -> u32>("cuStreamCreate")(&mut s, 0) }, SUCCESS);
    assert_eq!(stream_sync(s), SUCCESS);
    let (r, p) = cu.alloc(8);
    assert_eq!(r, SUCCESS);
    let async_h = |st: H| unsafe { cu.f::<unsafe extern "C" fn(u64, *const c_void, usize, H) -> u32>("cuMemcpyHtoDAsync_v2")(p, [0u8; 8].as_ptr() as *const c_void, 8, st) };
    assert_eq!(async_h(s), SUCCESS);
    assert_eq!(async_h(fake), INVALID_HANDLE);
    assert_eq!(stream_destroy(s), SUCCESS);
    assert_eq!(stream_destroy(s), INVALID_HANDLE);
    assert_eq!(async_h(s), INVALID_HANDLE, "destroyed stream");
    // Modules: an unloaded module's handles are gone.
    let (r, m) = cu.load(STORE_PTX);
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.function(m, "nope").0, NOT_FOUND);
    assert_eq!(cu.function(m, "store").0, SUCCESS);
    let (r, f) = cu.function(m, "store");
    assert_eq!(r, SUCCESS);
    let (mut gp, mut gs) = (0u64, 0usize);
    let get_global = |m: H, name: &str, gp: &mut u64, gs: &mut usize| {
        let name = format!("{name}\0");
        unsafe { cu.f::<unsafe extern "C" fn(*mut u64, *mut usize, H, *const c_char) -> u32>("cuModuleGetGlobal_v2")(gp, gs, m, name.as_ptr() as *const c_char) }
    };
    assert_eq!(get_global(m, "counter", &mut gp, &mut gs), SUCCESS);
    assert_eq!(gs, 16);
    assert_eq!(cu.htod(gp, &[1u8; 16]), SUCCESS);
    assert_eq!(cu.htod(gp, &[1u8; 17]), INVALID_VALUE);
    assert_eq!(get_global(m, "missing", &mut gp, &mut gs), NOT_FOUND);
    let unload = |m: H| unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuModuleUnload")(m) };
    assert_eq!(unload(m), SUCCESS);
    assert_eq!(unload(m), INVALID_HANDLE);
    assert_eq!(cu.function(m, "store").0, INVALID_HANDLE);
    let mut v = 1u32;
    let mut pp = p;
    assert_eq!(cu.launch(f, 1, 1, &mut [&mut pp as *mut u64 as *mut c_void, &mut v as *mut u32 as *mut c_void]), INVALID_HANDLE);
    assert_eq!(cu.htod(gp, &[1u8; 4]), INVALID_VALUE, "an unloaded module's variable");
    assert_eq!(get_global(m, "counter", &mut gp, &mut gs), INVALID_HANDLE);
    assert_eq!(cu.sync(), SUCCESS);
}

#[test]
fn invalid_ptx_is_invalid_ptx() {
    let cu = Cuda::new("invalid-ptx");
    cu.with_context();
    assert_eq!(cu.load("this is not ptx").0, INVALID_PTX);
    assert_eq!(cu.load(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.op; ret; }").0, INVALID_PTX);
    assert_eq!(cu.sync(), SUCCESS, "a failed load leaves the context usable");
    // cuModuleLoadDataEx fills the JIT error log and sets its size option
    // to the bytes filled ("OUT: Amount of log buffer filled with
    // messages"); the info log's size becomes 0.
    let text = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { bogus.op; ret; }\0";
    let mut log = vec![0xffu8; 4096];
    let mut options: [i32; 3] = [5, 6, 4];
    let mut values: [*mut c_void; 3] = [log.as_mut_ptr() as *mut c_void, 4096usize as *mut c_void, 512usize as *mut c_void];
    let mut m = null_mut();
    let r = unsafe {
        cu.f::<unsafe extern "C" fn(*mut H, *const c_void, u32, *mut i32, *mut *mut c_void) -> u32>("cuModuleLoadDataEx")(&mut m, text.as_ptr() as *const c_void, 3, options.as_mut_ptr(), values.as_mut_ptr())
    };
    assert_eq!(r, INVALID_PTX);
    let filled = values[1] as usize;
    assert!(filled > 0 && filled < 4096 && log[filled] == 0, "{filled} bytes and a NUL");
    let msg = String::from_utf8_lossy(&log[..filled]);
    assert!(msg.contains("bogus"), "the log names the instruction: {msg}");
    assert_eq!(values[2] as usize, 0, "no info log");
    // A success leaves an empty error log.
    let mut values: [*mut c_void; 3] = [log.as_mut_ptr() as *mut c_void, 4096usize as *mut c_void, 512usize as *mut c_void];
    let ok = concat!(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }", "\0");
    let r = unsafe {
        cu.f::<unsafe extern "C" fn(*mut H, *const c_void, u32, *mut i32, *mut *mut c_void) -> u32>("cuModuleLoadDataEx")(&mut m, ok.as_ptr() as *const c_void, 3, options.as_mut_ptr(), values.as_mut_ptr())
    };
    assert_eq!((r, values[1] as usize, log[0]), (SUCCESS, 0, 0));
}

#[test]
fn launch_writes_memory_and_a_trap_is_sticky() {
    let cu = Cuda::new("trap-sticky");
    let primary = cu.with_context();
    let (r, m) = cu.load(STORE_PTX);
    assert_eq!(r, SUCCESS);
    let (r, f) = cu.function(m, "store");
    assert_eq!(r, SUCCESS);
    let (r, p) = cu.alloc(64 * 4);
    assert_eq!(r, SUCCESS);
    let mut pp = p;
    let mut v = 0xabcd_u32;
    let mut args = [&mut pp as *mut u64 as *mut c_void, &mut v as *mut u32 as *mut c_void];
    assert_eq!(cu.launch(f, 1, 64, &mut args), SUCCESS);
    let mut back = vec![0u8; 256];
    assert_eq!(cu.dtoh(&mut back, p), SUCCESS);
    assert!(back.chunks(4).all(|w| w == 0xabcd_u32.to_le_bytes()));
    // Bad geometry is refused, not sticky.
    assert_eq!(cu.launch(f, 0, 64, &mut args), INVALID_VALUE);
    assert_eq!(cu.sync(), SUCCESS);
    // 65 threads store into 64 words: the last is out of bounds.
    assert_eq!(cu.launch(f, 1, 65, &mut args), ILLEGAL_ADDRESS);
    assert_eq!(cu.sync(), ILLEGAL_ADDRESS, "sticky");
    assert_eq!(cu.alloc(16).0, ILLEGAL_ADDRESS);
    assert_eq!(cu.dtoh(&mut back, p), ILLEGAL_ADDRESS);
    assert_eq!(cu.launch(f, 1, 1, &mut args), ILLEGAL_ADDRESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamSynchronize")(null_mut()) }, ILLEGAL_ADDRESS);
    // Resetting the primary context clears it (and frees its resources).
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(i32) -> u32>("cuDevicePrimaryCtxReset_v2")(0) }, SUCCESS);
    assert_eq!(cu.sync(), SUCCESS);
    assert_eq!(cu.function(m, "store").0, INVALID_HANDLE, "reset unloads modules");
    // `trap` gives a launch failure, sticky in a created context only.
    let mut created = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, u32, i32) -> u32>("cuCtxCreate_v2")(&mut created, 0, 0) }, SUCCESS);
    let (r, m) = cu.load(STORE_PTX);
    assert_eq!(r, SUCCESS);
    let (r, boom) = cu.function(m, "boom");
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.launch(boom, 2, 32, &mut []), LAUNCH_FAILED);
    assert_eq!(cu.sync(), LAUNCH_FAILED);
    let mut c = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxPopCurrent_v2")(&mut c) }, SUCCESS);
    assert_eq!(c, created);
    assert_eq!(cu.sync(), SUCCESS, "the primary context below is not affected");
    let _ = primary;
}

#[test]
fn threads_share_the_primary_context_and_launch_concurrently() {
    let cu = Cuda::new("threads");
    let primary = cu.with_context();
    let (r, m) = cu.load(STORE_PTX);
    assert_eq!(r, SUCCESS);
    let (r, f) = cu.function(m, "store");
    assert_eq!(r, SUCCESS);
    let (primary, f) = (primary as usize, f as usize);
    let bufs: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4u32)
            .map(|t| {
                let cu = &cu;
                s.spawn(move || {
                    // A new thread has an empty stack until it pushes.
                    assert_eq!(cu.alloc(4).0, INVALID_CONTEXT);
                    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxPushCurrent_v2")(primary as H) }, SUCCESS);
                    let (r, p) = cu.alloc(128 * 4);
                    assert_eq!(r, SUCCESS);
                    let (mut pp, mut v) = (p, 100 + t);
                    for _ in 0..5 {
                        let mut args = [&mut pp as *mut u64 as *mut c_void, &mut v as *mut u32 as *mut c_void];
                        assert_eq!(cu.launch(f as H, 1, 128, &mut args), SUCCESS);
                    }
                    p
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, p) in bufs.iter().enumerate() {
        let mut back = vec![0u8; 512];
        assert_eq!(cu.dtoh(&mut back, *p), SUCCESS);
        assert!(back.chunks(4).all(|w| w == (100 + t as u32).to_le_bytes()), "thread {t}");
    }
    // The primary context: released to zero references, its memory goes.
    let release = || unsafe { cu.f::<unsafe extern "C" fn(i32) -> u32>("cuDevicePrimaryCtxRelease_v2")(0) };
    assert_eq!(release(), SUCCESS);
    assert_eq!(cu.free(bufs[0]), INVALID_VALUE);
    assert_eq!(release(), INVALID_CONTEXT, "released more often than retained");
}

#[test]
fn random_handles_and_device_pointers_are_errors_never_crashes() {
    let cu = Cuda::new("random-handles");
    cu.with_context();
    let (r, p) = cu.alloc(64);
    assert_eq!(r, SUCCESS);
    let (r, _m) = cu.load(STORE_PTX);
    assert_eq!(r, SUCCESS);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let push = cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxPushCurrent_v2");
    let destroy = cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxDestroy_v2");
    let unload = cu.f::<unsafe extern "C" fn(H) -> u32>("cuModuleUnload");
    let sdestroy = cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamDestroy_v2");
    let ssync = cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamSynchronize");
    let dtod = cu.f::<unsafe extern "C" fn(u64, u64, usize) -> u32>("cuMemcpyDtoD_v2");
    let memset = cu.f::<unsafe extern "C" fn(u64, u8, usize) -> u32>("cuMemsetD8_v2");
    for i in 0..20_000 {
        // Small values, values shaped like this library's handles (with
        // serials it has not handed out: this test makes fewer than 16
        // objects), and anything.
        let v = match i % 3 {
            0 => next() % 4096,
            1 => (16 + next() % 0xffff) | (0x41 + next() % 4) << 56,
            _ => next(),
        };
        let h = v as usize as H;
        if v > 2 {
            assert_ne!(unsafe { ssync(h) }, SUCCESS, "{v:#x}");
        }
        assert_ne!(unsafe { push(h) }, SUCCESS, "{v:#x}");
        assert_ne!(unsafe { destroy(h) }, SUCCESS, "{v:#x}");
        assert_ne!(unsafe { unload(h) }, SUCCESS, "{v:#x}");
        assert_ne!(unsafe { sdestroy(h) }, SUCCESS, "{v:#x}");
        assert_ne!(cu.function(h, "store").0, SUCCESS, "{v:#x}");
        assert_ne!(cu.launch(h, 1, 1, &mut []), SUCCESS, "{v:#x}");
        if v.wrapping_sub(p) >= 64 {
            assert_ne!(cu.free(v), SUCCESS, "{v:#x}");
            assert_ne!(unsafe { dtod(p, v, 1 + (next() % 64) as usize) }, SUCCESS, "{v:#x}");
            assert_ne!(unsafe { memset(v, 0, 1 + (next() % 64) as usize) }, SUCCESS, "{v:#x}");
        }
    }
    assert_eq!(cu.sync(), SUCCESS);
    assert_eq!(cu.free(p), SUCCESS);
}

/// Every code this library returns has a name and a description (a
/// program's error printer passes `cuGetErrorString`'s result to `printf`
/// unchecked): the names are `cuda.h`'s; an unknown code gives
/// INVALID_VALUE and a NULL string, as the documentation says.
#[test]
fn returned_codes_have_names() {
    let cu = Cuda::new("error-names");
    let name = |code: u32| -> Option<String> {
        let mut s: *const c_char = null();
        let r = unsafe { cu.f::<unsafe extern "C" fn(u32, *mut *const c_char) -> u32>("cuGetErrorName")(code, &mut s) };
        let mut d: *const c_char = null();
        let rd = unsafe { cu.f::<unsafe extern "C" fn(u32, *mut *const c_char) -> u32>("cuGetErrorString")(code, &mut d) };
        assert_eq!(r, rd, "code {code}: name and string agree");
        if r == SUCCESS {
            assert!(!d.is_null() && !unsafe { CStr::from_ptr(d) }.to_bytes().is_empty(), "code {code}: a description");
            Some(unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_string())
        } else {
            assert_eq!((r, s.is_null(), d.is_null()), (INVALID_VALUE, true, true), "code {code}");
            None
        }
    };
    // Codes the library returns (cooperative launches, clusters) and some
    // it does not, with cuda.h's names.
    for (code, want) in [(720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"), (912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"), (700, "CUDA_ERROR_ILLEGAL_ADDRESS"), (222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"), (909, "CUDA_ERROR_TIMEOUT"), (46, "CUDA_ERROR_DEVICE_UNAVAILABLE")] {
        assert_eq!(name(code).as_deref(), Some(want), "code {code}");
    }
    assert_eq!(name(12345), None);
}
