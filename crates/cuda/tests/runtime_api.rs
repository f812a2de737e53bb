//! The driver functions the CUDA runtime 13.x resolves beyond the classic
//! API, through the built library: the 13.0 forms taking a context
//! (`cuCtxGetDevice_v2`, `cuCtxSynchronize_v2`), primary-context state and
//! flags, stream queries (creation flags kept, priority 0, ids, never
//! capturing), the per-thread capture mode swap, kernel names, and the
//! module loading mode. Expected values follow the driver API's
//! documentation (`cuda.h`).

mod common;

use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ptr::null_mut;

type H = *mut c_void;
const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_CONTEXT: u32 = 201;
const INVALID_HANDLE: u32 = 400;

const PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry my_kernel(.param .u64 p)
{
    ret;
}
\0";

struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        // SAFETY: our own library.
        let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
        let cu = Cuda { lib };
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
        cu
    }
    fn f<T: Copy>(&self, name: &str) -> T {
        // SAFETY: each call site declares the function's C signature.
        unsafe { *self.lib.get::<T>(format!("{name}\0").as_bytes()).expect(name) }
    }
}

#[test]
fn contexts_and_primary_state() {
    let cu = Cuda::new("rtapi-ctx");
    let get_state = cu.f::<unsafe extern "C" fn(i32, *mut c_uint, *mut c_int) -> u32>("cuDevicePrimaryCtxGetState");
    let (mut flags, mut active) = (99u32, 99i32);
    assert_eq!(unsafe { get_state(0, &mut flags, &mut active) }, SUCCESS);
    assert_eq!((flags, active), (0, 0), "no primary context retained yet");
    let set_flags = cu.f::<unsafe extern "C" fn(i32, c_uint) -> u32>("cuDevicePrimaryCtxSetFlags_v2");
    assert_eq!(unsafe { set_flags(0, 4 | 8) }, SUCCESS, "blocking sync | map host");
    assert_eq!(unsafe { set_flags(0, 3) }, INVALID_VALUE, "two scheduling modes");
    let mut ctx = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
    assert_eq!(unsafe { get_state(0, &mut flags, &mut active) }, SUCCESS);
    assert_eq!((flags, active), (12, 1));
    let get_dev = cu.f::<unsafe extern "C" fn(*mut i32, H) -> u32>("cuCtxGetDevice_v2");
    let mut dev = -1;
    assert_eq!(unsafe { get_dev(&mut dev, ctx) }, SUCCESS, "a named context needs not be current");
    assert_eq!(dev, 0);
    assert_eq!(unsafe { get_dev(&mut dev, null_mut()) }, INVALID_CONTEXT, "no current context");
    assert_eq!(unsafe { get_dev(&mut dev, 0x4100_0000_0000_7777usize as H) }, INVALID_CONTEXT);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
    assert_eq!(unsafe { get_dev(&mut dev, null_mut()) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSynchronize_v2")(ctx) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSynchronize_v2")(null_mut()) }, SUCCESS);
    let mut f = 0u32;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_uint) -> u32>("cuCtxGetFlags")(&mut f) }, SUCCESS);
    assert_eq!(f, 12, "the primary context's flags");
    let mut v = 0u32;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H, *mut c_uint) -> u32>("cuCtxGetApiVersion")(ctx, &mut v) }, SUCCESS);
    assert_eq!(v, 3020);
    let (mut a, mut b) = (0u64, 0u64);
    let get_id = cu.f::<unsafe extern "C" fn(H, *mut u64) -> u32>("cuCtxGetId");
    assert_eq!(unsafe { get_id(ctx, &mut a) }, SUCCESS);
    assert_eq!(unsafe { get_id(null_mut(), &mut b) }, SUCCESS);
    assert_eq!(a, b, "the same context, the same id");
}

#[test]
fn streams_capture_and_names() {
    let cu = Cuda::new("rtapi-streams");
    let mut ctx = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
    let create = cu.f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>("cuStreamCreate");
    let (mut s0, mut s1) = (null_mut(), null_mut());
    assert_eq!(unsafe { create(&mut s0, 0) }, SUCCESS);
    assert_eq!(unsafe { create(&mut s1, 1) }, SUCCESS);
    let flags = cu.f::<unsafe extern "C" fn(H, *mut c_uint) -> u32>("cuStreamGetFlags");
    let mut fl = 9u32;
    assert_eq!(unsafe { flags(s0, &mut fl) }, SUCCESS);
    assert_eq!(fl, 0);
    assert_eq!(unsafe { flags(s1, &mut fl) }, SUCCESS);
    assert_eq!(fl, 1, "CU_STREAM_NON_BLOCKING kept");
    assert_eq!(unsafe { flags(0x4400_0000_0000_9999usize as H, &mut fl) }, INVALID_HANDLE);
    let mut pr = 5;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H, *mut c_int) -> u32>("cuStreamGetPriority")(s1, &mut pr) }, SUCCESS);
    assert_eq!(pr, 0);
    let id = cu.f::<unsafe extern "C" fn(H, *mut u64) -> u32>("cuStreamGetId");
    let (mut i0, mut i1) = (0u64, 0u64);
    assert_eq!(unsafe { id(s0, &mut i0) }, SUCCESS);
    assert_eq!(unsafe { id(s1, &mut i1) }, SUCCESS);
    assert_ne!(i0, i1);
    let mut st = 7;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H, *mut c_int) -> u32>("cuStreamIsCapturing")(s0, &mut st) }, SUCCESS);
    assert_eq!(st, 0, "CU_STREAM_CAPTURE_STATUS_NONE");
    let mut sc = null_mut();
    let mut green = 1usize as H;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H, *mut H, *mut H) -> u32>("cuStreamGetCtx_v2")(s1, &mut sc, &mut green) }, SUCCESS);
    assert_eq!((sc, green), (ctx, null_mut()));
    // The capture mode is swapped, per thread.
    let exch = cu.f::<unsafe extern "C" fn(*mut c_int) -> u32>("cuThreadExchangeStreamCaptureMode");
    let mut m = 2;
    assert_eq!(unsafe { exch(&mut m) }, SUCCESS);
    assert_eq!(m, 0, "the default, global");
    let mut m2 = 1;
    assert_eq!(unsafe { exch(&mut m2) }, SUCCESS);
    assert_eq!(m2, 2);
    let mut bad = 3;
    assert_eq!(unsafe { exch(&mut bad) }, INVALID_VALUE);
    // Kernel names.
    let mut module = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut module, PTX.as_ptr().cast()) }, SUCCESS);
    let mut func = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut func, module, c"my_kernel".as_ptr()) }, SUCCESS);
    let mut name: *const c_char = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut *const c_char, H) -> u32>("cuFuncGetName")(&mut name, func) }, SUCCESS);
    assert_eq!(unsafe { CStr::from_ptr(name) }.to_str().unwrap(), "my_kernel");
    let mut mode = 0;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_int) -> u32>("cuModuleGetLoadingMode")(&mut mode) }, SUCCESS);
    assert_eq!(mode, 1, "CU_MODULE_EAGER_LOADING");
    // cuModuleLoad reads a file.
    let dir = common::scratch("rtapi-module-file");
    let file = dir.join("k.ptx");
    std::fs::write(&file, PTX.trim_end_matches('\0')).unwrap();
    let load = cu.f::<unsafe extern "C" fn(*mut H, *const c_char) -> u32>("cuModuleLoad");
    let path = format!("{}\0", file.display());
    let mut m2 = null_mut();
    assert_eq!(unsafe { load(&mut m2, path.as_ptr().cast()) }, SUCCESS);
    let mut f2 = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f2, m2, c"my_kernel".as_ptr()) }, SUCCESS);
    let missing = format!("{}\0", dir.join("none.ptx").display());
    assert_eq!(unsafe { load(&mut m2, missing.as_ptr().cast()) }, 301, "CUDA_ERROR_FILE_NOT_FOUND");
}
