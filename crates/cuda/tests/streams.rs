//! Stream-ordered calls through the built library: `cuStreamQuery`,
//! `cuStreamWaitEvent`, `cuStreamGetCtx`, `cuStreamAddCallback` and
//! `cuLaunchHostFunc` (run before the call returns, with the stream's
//! persistent error as the callback's status, and free to call the driver),
//! cache configuration and the profiler switches, with their error codes.

mod common;

use libloading::Library;
use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_DEVICE: u32 = 101;
const INVALID_HANDLE: u32 = 400;
const LAUNCH_FAILED: u32 = 719;

fn f<T: Copy>(lib: &Library, name: &str) -> T {
    let sym = format!("{name}\0");
    // SAFETY: each call site declares the function's C signature.
    unsafe { *lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
}

/// A fresh copy with cuInit done and the primary context current.
fn setup(name: &str) -> (Library, H) {
    // SAFETY: our own library; its initialisers do nothing.
    let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
    let mut ctx = null_mut();
    unsafe {
        assert_eq!(f::<unsafe extern "C" fn(u32) -> u32>(&lib, "cuInit")(0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(*mut H, i32) -> u32>(&lib, "cuDevicePrimaryCtxRetain")(&mut ctx, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxSetCurrent")(ctx), SUCCESS);
    }
    (lib, ctx)
}

/// What a callback saw.
struct Seen {
    calls: u32,
    stream: usize,
    status: u32,
    /// What `cuCtxGetCurrent` returned inside the callback.
    inner: u32,
    get_current: Option<unsafe extern "C" fn(*mut H) -> u32>,
}

unsafe extern "C" fn stream_cb(stream: H, status: u32, user: *mut c_void) {
    let seen = &mut *(user as *mut Seen);
    seen.calls += 1;
    seen.stream = stream as usize;
    seen.status = status;
    if let Some(g) = seen.get_current {
        let mut c = null_mut();
        seen.inner = g(&mut c);
    }
}

unsafe extern "C" fn host_fn(user: *mut c_void) {
    *(user as *mut u32) += 1;
}

fn seen(lib: &Library) -> Seen {
    Seen { calls: 0, stream: 0, status: 99, inner: 99, get_current: Some(f(lib, "cuCtxGetCurrent")) }
}

#[test]
fn query_wait_and_context_of_streams() {
    let (lib, ctx) = setup("stream-query");
    let create = f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>(&lib, "cuStreamCreate");
    let destroy = f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuStreamDestroy_v2");
    let query = f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuStreamQuery");
    let wait = f::<unsafe extern "C" fn(H, H, c_uint) -> u32>(&lib, "cuStreamWaitEvent");
    let get_ctx = f::<unsafe extern "C" fn(H, *mut H) -> u32>(&lib, "cuStreamGetCtx");
    unsafe {
        let mut s = null_mut();
        assert_eq!(create(&mut s, 4), INVALID_VALUE, "flags other than CU_STREAM_DEFAULT and CU_STREAM_NON_BLOCKING");
        assert_eq!(create(&mut s, 0), SUCCESS);
        for h in [null_mut(), 1 as H, 2 as H, s] {
            assert_eq!(query(h), SUCCESS, "{h:?}");
        }
        let mut e = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>(&lib, "cuEventCreate")(&mut e, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H, H) -> u32>(&lib, "cuEventRecord")(e, null_mut()), SUCCESS);
        assert_eq!(wait(s, e, 0), SUCCESS);
        assert_eq!(wait(null_mut(), e, 0), SUCCESS);
        assert_eq!(wait(s, e, 2), INVALID_VALUE);
        assert_eq!(wait(s, 0x48000000_0000FFFF_u64 as H, 0), INVALID_HANDLE);
        // A created stream keeps its context when another is current.
        let mut other = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, c_uint, i32) -> u32>(&lib, "cuCtxCreate_v2")(&mut other, 0, 0), SUCCESS);
        let mut c = null_mut();
        assert_eq!(get_ctx(s, &mut c), SUCCESS);
        assert_eq!(c, ctx);
        assert_eq!(get_ctx(null_mut(), &mut c), SUCCESS);
        assert_eq!(c, other);
        // ... but cannot be used there.
        assert_eq!(query(s), INVALID_HANDLE);
        // An event of this other context: a stream of the first may wait
        // for it ("hEvent may be from a different context or device than
        // hStream", cuStreamWaitEvent), and it can be queried and waited
        // for from either context.
        let mut e2 = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>(&lib, "cuEventCreate")(&mut e2, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H, H) -> u32>(&lib, "cuEventRecord")(e2, null_mut()), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxSetCurrent")(ctx), SUCCESS);
        assert_eq!(wait(s, e2, 0), SUCCESS);
        assert_eq!(wait(null_mut(), e2, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuEventQuery")(e2), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuEventSynchronize")(e2), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxSetCurrent")(other), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxDestroy_v2")(other), SUCCESS);
        assert_eq!(get_ctx(s, null_mut()), INVALID_VALUE);
        assert_eq!(destroy(s), SUCCESS);
        assert_eq!(query(s), INVALID_HANDLE);
        assert_eq!(get_ctx(s, &mut c), INVALID_HANDLE);
        assert_eq!(wait(s, e, 0), INVALID_HANDLE);
    }
}

#[test]
fn callbacks_run_before_the_call_returns() {
    let (lib, _) = setup("stream-callbacks");
    let add = f::<unsafe extern "C" fn(H, Option<unsafe extern "C" fn(H, u32, *mut c_void)>, *mut c_void, c_uint) -> u32>(&lib, "cuStreamAddCallback");
    let host = f::<unsafe extern "C" fn(H, Option<unsafe extern "C" fn(*mut c_void)>, *mut c_void) -> u32>(&lib, "cuLaunchHostFunc");
    unsafe {
        let mut s = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>(&lib, "cuStreamCreate")(&mut s, 0), SUCCESS);
        let mut seen1 = seen(&lib);
        assert_eq!(add(s, Some(stream_cb), &mut seen1 as *mut Seen as *mut c_void, 0), SUCCESS);
        assert_eq!((seen1.calls, seen1.stream, seen1.status), (1, s as usize, SUCCESS));
        assert_eq!(seen1.inner, SUCCESS, "the callback may call the driver");
        assert_eq!(add(s, Some(stream_cb), &mut seen1 as *mut Seen as *mut c_void, 1), INVALID_VALUE);
        assert_eq!(add(s, None, null_mut(), 0), INVALID_VALUE);
        assert_eq!(add(0x44000000_0000FFFF_u64 as H, Some(stream_cb), &mut seen1 as *mut Seen as *mut c_void, 0), INVALID_HANDLE);
        assert_eq!(seen1.calls, 1);
        let mut n = 0u32;
        assert_eq!(host(s, Some(host_fn), &mut n as *mut u32 as *mut c_void), SUCCESS);
        assert_eq!(host(null_mut(), Some(host_fn), &mut n as *mut u32 as *mut c_void), SUCCESS);
        assert_eq!(n, 2);
        assert_eq!(host(s, None, null_mut()), INVALID_VALUE);
        // A kernel that traps: the callback gets the persistent error.
        let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry boom()\n{\n    trap;\n    ret;\n}\n\0";
        let mut m = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>(&lib, "cuModuleLoadData")(&mut m, ptx.as_ptr() as *const c_void), SUCCESS);
        let mut k = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, H, *const i8) -> u32>(&lib, "cuModuleGetFunction")(&mut k, m, c"boom".as_ptr()), SUCCESS);
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        assert_eq!(f::<Launch>(&lib, "cuLaunchKernel")(k, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut()), LAUNCH_FAILED);
        let mut seen2 = seen(&lib);
        assert_eq!(add(null_mut(), Some(stream_cb), &mut seen2 as *mut Seen as *mut c_void, 0), SUCCESS);
        assert_eq!((seen2.calls, seen2.status), (1, LAUNCH_FAILED));
    }
}

#[test]
fn cache_configuration_and_profiler() {
    let (lib, _) = setup("cache-config");
    unsafe {
        let set = f::<unsafe extern "C" fn(c_int) -> u32>(&lib, "cuCtxSetCacheConfig");
        for c in 0..=3 {
            assert_eq!(set(c), SUCCESS);
        }
        assert_eq!(set(4), INVALID_VALUE);
        assert_eq!(set(-1), INVALID_VALUE);
        let mut c = -1;
        assert_eq!(f::<unsafe extern "C" fn(*mut c_int) -> u32>(&lib, "cuCtxGetCacheConfig")(&mut c), SUCCESS);
        assert_eq!(c, 0);
        assert_eq!(f::<unsafe extern "C" fn(*mut c_int) -> u32>(&lib, "cuCtxGetCacheConfig")(null_mut()), INVALID_VALUE);
        // Context limits (Triton sets the printf FIFO size): stored and read back.
        let get_limit = f::<unsafe extern "C" fn(*mut usize, c_int) -> u32>(&lib, "cuCtxGetLimit");
        let set_limit = f::<unsafe extern "C" fn(c_int, usize) -> u32>(&lib, "cuCtxSetLimit");
        let mut v = 0usize;
        assert_eq!(get_limit(&mut v, 1), SUCCESS);
        assert_eq!(v, 1 << 20);
        assert_eq!(set_limit(1, 4 << 20), SUCCESS);
        assert_eq!(get_limit(&mut v, 1), SUCCESS);
        assert_eq!(v, 4 << 20);
        assert_eq!(get_limit(&mut v, 0), SUCCESS);
        assert_eq!(v, 1024);
        assert_eq!(get_limit(&mut v, 99), 215);
        assert_eq!(set_limit(-1, 1), 215);
        assert_eq!(get_limit(null_mut(), 1), INVALID_VALUE);
        let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n    ret;\n}\n\0";
        let mut m = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>(&lib, "cuModuleLoadData")(&mut m, ptx.as_ptr() as *const c_void), SUCCESS);
        let mut func = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, H, *const i8) -> u32>(&lib, "cuModuleGetFunction")(&mut func, m, c"k".as_ptr()), SUCCESS);
        let fset = f::<unsafe extern "C" fn(H, c_int) -> u32>(&lib, "cuFuncSetCacheConfig");
        assert_eq!(fset(func, 1), SUCCESS);
        assert_eq!(fset(func, 9), INVALID_VALUE);
        assert_eq!(fset(m, 1), INVALID_HANDLE);
        type LoadLib = unsafe extern "C" fn(*mut H, *const c_void, *mut c_int, *mut *mut c_void, c_uint, *mut c_int, *mut *mut c_void, c_uint) -> u32;
        let mut l = null_mut();
        assert_eq!(f::<LoadLib>(&lib, "cuLibraryLoadData")(&mut l, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0), SUCCESS);
        let mut kern = null_mut();
        assert_eq!(f::<unsafe extern "C" fn(*mut H, H, *const i8) -> u32>(&lib, "cuLibraryGetKernel")(&mut kern, l, c"k".as_ptr()), SUCCESS);
        let kset = f::<unsafe extern "C" fn(H, c_int, i32) -> u32>(&lib, "cuKernelSetCacheConfig");
        assert_eq!(kset(kern, 2, 0), SUCCESS);
        assert_eq!(kset(kern, 2, 1), INVALID_DEVICE);
        assert_eq!(kset(func, 2, 0), INVALID_HANDLE, "a module's CUfunction is not a CUkernel");
        assert_eq!(fset(kern, 3), SUCCESS, "a CUkernel is accepted as a CUfunction");
        assert_eq!(f::<unsafe extern "C" fn() -> u32>(&lib, "cuProfilerStart")(), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn() -> u32>(&lib, "cuProfilerStop")(), SUCCESS);
    }
}
