//! The launch path of numba-cuda and cuda.core through the built library:
//! the PTX linker (`cuLink*`), libraries and kernels (`cuLibrary*`,
//! `cuKernel*`), function attributes, `cuLaunchKernelEx` with a `CUkernel`,
//! events, stream priorities and `cuPointerGetAttribute`, with their error
//! paths. Each test loads its own copy of the library (fresh driver state).

mod common;

use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::ptr::{null, null_mut};

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_DEVICE: u32 = 101;
const INVALID_PTX: u32 = 218;
const INVALID_HANDLE: u32 = 400;
const NOT_FOUND: u32 = 500;
const NOT_SUPPORTED: u32 = 801;

const CU_JIT_INPUT_CUBIN: c_int = 0;
const CU_JIT_INPUT_PTX: c_int = 1;
const CU_JIT_ERROR_LOG_BUFFER: c_int = 5;
const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

/// Defines `twice(x) = 2x` for the kernel module to call.
const LIB_PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, %r1;
    st.param.b32 [r], %r2;
    ret;
}
";

/// `k(p, n)`: `p[i] = twice(i) + flag` for `i < n`, calling the other
/// module's `twice`; a 64-byte shared array and 32 bytes of constants for
/// the attributes.
const KERNEL_PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .global .align 4 .u32 flag;
.visible .const .align 4 .u32 table[8];
.visible .entry k(.param .u64 p, .param .u32 n)
.maxntid 256, 1, 1
{
    .reg .pred %p1;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b8 sbuf[64];
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    {
    .param .b32 a;
    .param .b32 ret;
    st.param.b32 [a], %r2;
    call.uni (ret), twice, (a);
    ld.param.b32 %r5, [ret];
    }
    ld.global.u32 %r6, [flag];
    add.s32 %r5, %r5, %r6;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
DONE:
    ret;
}
";

/// `CUlaunchConfig`.
#[repr(C)]
struct LaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: H,
    attrs: *const LaunchAttribute,
    num_attrs: c_uint,
}

/// `CUlaunchAttribute`.
#[repr(C)]
struct LaunchAttribute {
    id: u32,
    pad: [u8; 4],
    value: [u8; 64],
}

struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        // SAFETY: our own library; its initialisers do nothing.
        let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
        Cuda { lib }
    }

    fn f<T: Copy>(&self, name: &str) -> T {
        let sym = format!("{name}\0");
        // SAFETY: each call site declares the function's C signature.
        unsafe { *self.lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
    }

    /// cuInit and the primary context made current.
    fn with_context(&self) -> H {
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
        ctx
    }

    fn alloc(&self, n: usize) -> u64 {
        let mut p = 0u64;
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut p, n) }, SUCCESS);
        p
    }

    fn dtoh_u32(&self, src: u64, n: usize) -> Vec<u32> {
        let mut v = vec![0u32; n];
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(v.as_mut_ptr() as *mut c_void, src, n * 4) };
        assert_eq!(r, SUCCESS);
        v
    }

    fn htod(&self, dst: u64, src: &[u8]) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>("cuMemcpyHtoD_v2")(dst, src.as_ptr() as *const c_void, src.len()) }
    }

    fn link_create(&self, log: Option<&mut [u8]>) -> H {
        let mut state = null_mut();
        let f = self.f::<unsafe extern "C" fn(c_uint, *mut c_int, *mut *mut c_void, *mut H) -> u32>("cuLinkCreate_v2");
        let r = match log {
            Some(buf) => {
                let mut opts = [CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
                let mut vals = [buf.as_mut_ptr() as *mut c_void, buf.len() as *mut c_void];
                unsafe { f(2, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state) }
            }
            None => unsafe { f(0, null_mut(), null_mut(), &mut state) },
        };
        assert_eq!(r, SUCCESS);
        state
    }

    fn link_add(&self, state: H, kind: c_int, text: &str, name: &str) -> u32 {
        type Add = unsafe extern "C" fn(H, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void) -> u32;
        let name = format!("{name}\0");
        // With its NUL, as Numba passes PTX.
        let data = format!("{text}\0");
        unsafe { self.f::<Add>("cuLinkAddData_v2")(state, kind, data.as_ptr() as *mut c_void, data.len(), name.as_ptr() as *const c_char, 0, null_mut(), null_mut()) }
    }

    fn link_complete(&self, state: H) -> (u32, *mut c_void, usize) {
        let (mut p, mut n) = (null_mut(), 0usize);
        let r = unsafe { self.f::<unsafe extern "C" fn(H, *mut *mut c_void, *mut usize) -> u32>("cuLinkComplete")(state, &mut p, &mut n) };
        (r, p, n)
    }

    fn library_load(&self, image: *const c_void) -> (u32, H) {
        type Load = unsafe extern "C" fn(*mut H, *const c_void, *mut c_int, *mut *mut c_void, c_uint, *mut c_int, *mut *mut c_void, c_uint) -> u32;
        let mut lib = null_mut();
        let r = unsafe { self.f::<Load>("cuLibraryLoadData")(&mut lib, image, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0) };
        (r, lib)
    }

    fn get_kernel(&self, lib: H, name: &str) -> (u32, H) {
        let name = format!("{name}\0");
        let mut k = null_mut();
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuLibraryGetKernel")(&mut k, lib, name.as_ptr() as *const c_char) };
        (r, k)
    }

    fn launch_ex(&self, f: H, grid: u32, block: u32, attrs: &[LaunchAttribute], params: &mut [*mut c_void]) -> u32 {
        let cfg = LaunchConfig {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            shared: 0,
            stream: null_mut(),
            attrs: if attrs.is_empty() { null() } else { attrs.as_ptr() },
            num_attrs: attrs.len() as c_uint,
        };
        unsafe { self.f::<unsafe extern "C" fn(*const LaunchConfig, H, *mut *mut c_void, *mut *mut c_void) -> u32>("cuLaunchKernelEx")(&cfg, f, params.as_mut_ptr(), null_mut()) }
    }

    fn kernel_attr(&self, k: H, attr: c_int, dev: i32) -> (u32, c_int) {
        let mut v = -1;
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_int, c_int, H, i32) -> u32>("cuKernelGetAttribute")(&mut v, attr, k, dev) };
        (r, v)
    }

    fn func_attr(&self, f: H, attr: c_int) -> (u32, c_int) {
        let mut v = -1;
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_int, c_int, H) -> u32>("cuFuncGetAttribute")(&mut v, attr, f) };
        (r, v)
    }

    /// Links both modules into an image; returns (link state, image).
    fn link_both(&self) -> (H, *mut c_void) {
        let state = self.link_create(None);
        assert_eq!(self.link_add(state, CU_JIT_INPUT_PTX, KERNEL_PTX, "kernel.ptx"), SUCCESS);
        assert_eq!(self.link_add(state, CU_JIT_INPUT_PTX, LIB_PTX, "lib.ptx"), SUCCESS);
        let (r, image, size) = self.link_complete(state);
        assert_eq!(r, SUCCESS);
        assert!(!image.is_null() && size > 0);
        (state, image)
    }
}

fn attribute(id: u32, word0: u32) -> LaunchAttribute {
    let mut value = [0u8; 64];
    value[..4].copy_from_slice(&word0.to_le_bytes());
    LaunchAttribute { id, pad: [0; 4], value }
}

#[test]
fn linked_library_kernel_runs_through_launch_kernel_ex() {
    let cu = Cuda::new("link-launch");
    cu.with_context();
    let (state, image) = cu.link_both();
    let (r, lib) = cu.library_load(image);
    assert_eq!(r, SUCCESS);
    // The image stays valid until cuLinkDestroy; the library does not need it after.
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuLinkDestroy")(state) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuLinkDestroy")(state) }, INVALID_HANDLE);
    let (r, k) = cu.get_kernel(lib, "k");
    assert_eq!(r, SUCCESS);
    // The library's variable, written before the launch.
    let (mut flag, mut size) = (0u64, 0usize);
    let get_global = cu.f::<unsafe extern "C" fn(*mut u64, *mut usize, H, *const c_char) -> u32>("cuLibraryGetGlobal");
    assert_eq!(unsafe { get_global(&mut flag, &mut size, lib, c"flag".as_ptr()) }, SUCCESS);
    assert_eq!(size, 4);
    assert_eq!(cu.htod(flag, &100u32.to_le_bytes()), SUCCESS);
    assert_eq!(unsafe { get_global(&mut flag, &mut size, lib, c"nothing".as_ptr()) }, NOT_FOUND);
    // Launched with the CUkernel itself, as Numba does: 3 blocks of 4, n = 10.
    let out = cu.alloc(12 * 4);
    assert_eq!(cu.htod(out, &[0xff; 48]), SUCCESS);
    let (mut p, mut n) = (out, 10u32);
    let mut params = [&mut p as *mut u64 as *mut c_void, &mut n as *mut u32 as *mut c_void];
    assert_eq!(cu.launch_ex(k, 3, 4, &[attribute(0, 0), attribute(8, 0)], &mut params), SUCCESS);
    let got = cu.dtoh_u32(out, 12);
    let want: Vec<u32> = (0..12).map(|i| if i < 10 { 2 * i + 100 } else { u32::MAX }).collect();
    assert_eq!(got, want);
    // cuKernelGetFunction's handle launches with cuLaunchKernel.
    let mut f = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H) -> u32>("cuKernelGetFunction")(&mut f, k) }, SUCCESS);
    // n = 12, through the parameter array.
    unsafe { *(params[1] as *mut u32) = 12 };
    type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
    assert_eq!(unsafe { cu.f::<Launch>("cuLaunchKernel")(f, 1, 1, 1, 12, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }, SUCCESS);
    assert_eq!(cu.dtoh_u32(out, 12), (0..12).map(|i| 2 * i + 100).collect::<Vec<u32>>());
    // A cooperative launch runs; a cluster is refused below compute
    // capability 9.0, an unknown attribute is invalid; none is sticky.
    assert_eq!(cu.launch_ex(k, 1, 4, &[attribute(2, 1)], &mut params), SUCCESS);
    assert_eq!(cu.launch_ex(k, 1, 4, &[attribute(4, 2)], &mut params), NOT_SUPPORTED);
    assert_eq!(cu.launch_ex(k, 1, 4, &[attribute(999, 0)], &mut params), INVALID_VALUE);
    assert_eq!(cu.launch_ex(k, 1, 4, &[attribute(2, 0)], &mut params), SUCCESS);
    let launch_ex = cu.f::<unsafe extern "C" fn(*const LaunchConfig, H, *mut *mut c_void, *mut *mut c_void) -> u32>("cuLaunchKernelEx");
    assert_eq!(unsafe { launch_ex(null(), k, params.as_mut_ptr(), null_mut()) }, INVALID_VALUE);
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [4, 1, 1], shared: 0, stream: null_mut(), attrs: null(), num_attrs: 1 };
    assert_eq!(unsafe { launch_ex(&cfg, k, params.as_mut_ptr(), null_mut()) }, INVALID_VALUE);
    // A stream of no context.
    let cfg = LaunchConfig { grid: [1, 1, 1], block: [4, 1, 1], shared: 0, stream: 0x44000000_0000FFFF_u64 as H, attrs: null(), num_attrs: 0 };
    assert_eq!(unsafe { launch_ex(&cfg, k, params.as_mut_ptr(), null_mut()) }, INVALID_HANDLE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn() -> u32>("cuCtxSynchronize")() }, SUCCESS);
    // Unloaded: the kernel handle and the library are gone.
    let unload = cu.f::<unsafe extern "C" fn(H) -> u32>("cuLibraryUnload");
    assert_eq!(unsafe { unload(lib) }, SUCCESS);
    assert_eq!(unsafe { unload(lib) }, INVALID_HANDLE);
    assert_eq!(cu.get_kernel(lib, "k").0, INVALID_HANDLE);
    assert_eq!(cu.launch_ex(k, 1, 4, &[], &mut params), INVALID_HANDLE);
}

#[test]
fn link_errors() {
    let cu = Cuda::new("link-errors");
    cu.with_context();
    let state = cu.link_create(None);
    // Nothing added yet.
    assert_eq!(cu.link_complete(state).0, INVALID_VALUE);
    // Only PTX inputs; unknown input types are invalid.
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_CUBIN, LIB_PTX, "x.cubin"), NOT_SUPPORTED);
    assert_eq!(cu.link_add(state, 99, LIB_PTX, "x"), INVALID_VALUE);
    type Add = unsafe extern "C" fn(H, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void) -> u32;
    let add = cu.f::<Add>("cuLinkAddData_v2");
    assert_eq!(unsafe { add(state, CU_JIT_INPUT_PTX, null_mut(), 10, null(), 0, null_mut(), null_mut()) }, INVALID_VALUE);
    assert_eq!(cu.link_add(0x47000000_00001234_u64 as H, CU_JIT_INPUT_PTX, LIB_PTX, "x"), INVALID_HANDLE);
    let (mut p, mut n) = (null_mut(), 0usize);
    let complete = cu.f::<unsafe extern "C" fn(H, *mut *mut c_void, *mut usize) -> u32>("cuLinkComplete");
    assert_eq!(unsafe { complete(state, null_mut(), &mut n) }, INVALID_VALUE);
    assert_eq!(unsafe { complete(null_mut(), &mut p, &mut n) }, INVALID_HANDLE);
    // The kernel module alone leaves `twice` undefined: refused, with the reason in the error log.
    let mut log = vec![0u8; 4096];
    let state = cu.link_create(Some(&mut log));
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, KERNEL_PTX, "kernel.ptx"), SUCCESS);
    assert_eq!(cu.link_complete(state).0, INVALID_PTX);
    let text = String::from_utf8_lossy(&log[..log.iter().position(|&b| b == 0).unwrap()]).to_string();
    assert!(text.contains("twice"), "error log: {text:?}");
    // PTX that does not parse.
    let state = cu.link_create(None);
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, ".version 7.0\n.target sm_80\nthis is not ptx\n", "bad.ptx"), SUCCESS);
    assert_eq!(cu.link_complete(state).0, INVALID_PTX);
    // One input: the image is that PTX, loadable as a module too.
    let state = cu.link_create(None);
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, LIB_PTX, "lib.ptx"), SUCCESS);
    let (r, image, _) = cu.link_complete(state);
    assert_eq!(r, SUCCESS);
    let mut m = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, image) }, SUCCESS);
    // A two-module image loads as a module as well.
    let (_, image) = cu.link_both();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, image) }, SUCCESS);
    let mut f = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, c"k".as_ptr()) }, SUCCESS);
}

#[test]
fn kernel_and_function_attributes() {
    let cu = Cuda::new("kernel-attributes");
    cu.with_context();
    let (_, image) = cu.link_both();
    let (r, lib) = cu.library_load(image);
    assert_eq!(r, SUCCESS);
    let (r, k) = cu.get_kernel(lib, "k");
    assert_eq!(r, SUCCESS);
    // MAX_THREADS_PER_BLOCK from .maxntid, SHARED_SIZE_BYTES, CONST_SIZE_BYTES, LOCAL_SIZE_BYTES, NUM_REGS.
    assert_eq!(cu.kernel_attr(k, 0, 0), (SUCCESS, 256));
    assert_eq!(cu.kernel_attr(k, 1, 0), (SUCCESS, 64));
    assert_eq!(cu.kernel_attr(k, 2, 0), (SUCCESS, 32));
    let (r, local) = cu.kernel_attr(k, 3, 0);
    assert_eq!(r, SUCCESS);
    assert!(local >= 0);
    let (r, regs) = cu.kernel_attr(k, 4, 0);
    assert_eq!(r, SUCCESS);
    // The PTX registers the kernel's body uses, predicates aside: %r1-%r6
    // and %rd1-%rd3 (of the 8 + 4 declared), 9.
    assert_eq!(regs, 9);
    for a in 0..=9 {
        assert_eq!(cu.func_attr(k, a), cu.kernel_attr(k, a, 0), "attribute {a}");
    }
    // PTX_VERSION is the virtual architecture the PTX was written for (its
    // `.target`, major * 10 + minor), BINARY_VERSION the device's (cc 8.0):
    // CUDA's CU_FUNC_ATTRIBUTE_PTX_VERSION / BINARY_VERSION.
    assert_eq!(cu.kernel_attr(k, 5, 0), (SUCCESS, 80));
    assert_eq!(cu.kernel_attr(k, 6, 0), (SUCCESS, 80));
    let sm75 = KERNEL_PTX.replace(".target sm_80", ".target sm_75");
    let state = cu.link_create(None);
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, &sm75, "kernel75.ptx"), SUCCESS);
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, LIB_PTX, "lib.ptx"), SUCCESS);
    let (r, image75, _) = cu.link_complete(state);
    assert_eq!(r, SUCCESS);
    let (r, lib75) = cu.library_load(image75);
    assert_eq!(r, SUCCESS);
    let (r, k75) = cu.get_kernel(lib75, "k");
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.kernel_attr(k75, 5, 0), (SUCCESS, 75));
    assert_eq!(cu.kernel_attr(k75, 6, 0), (SUCCESS, 80));
    assert_eq!(cu.kernel_attr(k, 1000, 0).0, INVALID_VALUE);
    assert_eq!(cu.kernel_attr(k, 0, 1).0, INVALID_DEVICE);
    let mut v = 0;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_int, c_int, H, i32) -> u32>("cuKernelGetAttribute")(null_mut(), 0, k, 0) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_int, c_int, H) -> u32>("cuFuncGetAttribute")(&mut v, 0, lib) }, INVALID_HANDLE);
    // A module's CUfunction is not a CUkernel; a library is not a module.
    let mut m = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, image) }, SUCCESS);
    let mut f = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, c"k".as_ptr()) }, SUCCESS);
    assert_eq!(cu.func_attr(f, 0), (SUCCESS, 256));
    assert_eq!(cu.kernel_attr(f, 0, 0).0, INVALID_HANDLE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, lib, c"k".as_ptr()) }, INVALID_HANDLE);
    assert_eq!(cu.get_kernel(m, "k").0, INVALID_HANDLE);
    assert_eq!(cu.get_kernel(lib, "twice").0, NOT_FOUND, "a device function is not a kernel");
}

#[test]
fn events_time_host_intervals() {
    let cu = Cuda::new("events");
    cu.with_context();
    let create = cu.f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>("cuEventCreate");
    let record = cu.f::<unsafe extern "C" fn(H, H) -> u32>("cuEventRecord");
    let elapsed = cu.f::<unsafe extern "C" fn(*mut f32, H, H) -> u32>("cuEventElapsedTime");
    let query = cu.f::<unsafe extern "C" fn(H) -> u32>("cuEventQuery");
    let sync = cu.f::<unsafe extern "C" fn(H) -> u32>("cuEventSynchronize");
    let destroy = cu.f::<unsafe extern "C" fn(H) -> u32>("cuEventDestroy_v2");
    let (mut a, mut b, mut nt) = (null_mut(), null_mut(), null_mut());
    unsafe {
        assert_eq!(create(&mut a, 0), SUCCESS);
        assert_eq!(create(&mut b, 1), SUCCESS);
        assert_eq!(create(&mut nt, 2), SUCCESS);
        let mut ms = -1.0f32;
        // Not recorded yet: complete, but no time.
        assert_eq!(query(a), SUCCESS);
        assert_eq!(elapsed(&mut ms, a, b), INVALID_HANDLE);
        assert_eq!(record(a, null_mut()), SUCCESS);
        std::thread::sleep(std::time::Duration::from_millis(30));
        // On the legacy stream handle.
        assert_eq!(record(b, 1 as H), SUCCESS);
        assert_eq!(sync(b), SUCCESS);
        assert_eq!(query(b), SUCCESS);
        assert_eq!(elapsed(&mut ms, a, b), SUCCESS);
        assert!((25.0..10_000.0).contains(&ms), "{ms} ms");
        assert_eq!(elapsed(&mut ms, b, a), SUCCESS);
        assert!(ms < 0.0);
        assert_eq!(elapsed(null_mut(), a, b), INVALID_VALUE);
        // Timing disabled.
        assert_eq!(record(nt, null_mut()), SUCCESS);
        assert_eq!(elapsed(&mut ms, a, nt), INVALID_HANDLE);
        // Flags: unknown bits, interprocess without DISABLE_TIMING.
        let mut e = null_mut();
        assert_eq!(create(&mut e, 8), INVALID_VALUE);
        assert_eq!(create(&mut e, 4), INVALID_VALUE);
        assert_eq!(create(&mut e, 6), SUCCESS);
        assert_eq!(create(null_mut(), 0), INVALID_VALUE);
        // A stream that does not exist.
        assert_eq!(record(a, 0x44000000_0000FFFF_u64 as H), INVALID_HANDLE);
        assert_eq!(destroy(a), SUCCESS);
        assert_eq!(destroy(a), INVALID_HANDLE);
        assert_eq!(query(a), INVALID_HANDLE);
        assert_eq!(record(a, null_mut()), INVALID_HANDLE);
        assert_eq!(cu.f::<unsafe extern "C" fn(H) -> u32>("cuEventDestroy")(b), SUCCESS);
    }
}

#[test]
fn stream_priorities() {
    let cu = Cuda::new("stream-priorities");
    cu.with_context();
    let (mut least, mut greatest) = (-9, -9);
    let range = cu.f::<unsafe extern "C" fn(*mut c_int, *mut c_int) -> u32>("cuCtxGetStreamPriorityRange");
    assert_eq!(unsafe { range(&mut least, &mut greatest) }, SUCCESS);
    // The device reports no priorities (attribute 78 = 0): the range is [0, 0].
    assert_eq!((least, greatest), (0, 0));
    assert_eq!(unsafe { range(null_mut(), &mut greatest) }, SUCCESS);
    let create = cu.f::<unsafe extern "C" fn(*mut H, c_uint, c_int) -> u32>("cuStreamCreateWithPriority");
    let mut s = null_mut();
    // Out-of-range priorities are clamped, not refused.
    assert_eq!(unsafe { create(&mut s, 1, -5) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamSynchronize")(s) }, SUCCESS);
    let mut e = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>("cuEventCreate")(&mut e, 0) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H, H) -> u32>("cuEventRecord")(e, s) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuStreamDestroy_v2")(s) }, SUCCESS);
    assert_eq!(unsafe { create(&mut s, 2, 0) }, INVALID_VALUE);
    assert_eq!(unsafe { create(null_mut(), 0, 0) }, INVALID_VALUE);
}

#[test]
fn pointer_attributes() {
    let cu = Cuda::new("pointer-attributes");
    let ctx = cu.with_context();
    let get = cu.f::<unsafe extern "C" fn(*mut c_void, c_int, u64) -> u32>("cuPointerGetAttribute");
    let p = cu.alloc(256);
    let q = p + 16;
    unsafe {
        let mut c: H = null_mut();
        assert_eq!(get(&mut c as *mut H as *mut c_void, 1, q), SUCCESS);
        assert_eq!(c, ctx);
        let mut t = 0u32;
        assert_eq!(get(&mut t as *mut u32 as *mut c_void, 2, q), SUCCESS);
        assert_eq!(t, 2, "CU_MEMORYTYPE_DEVICE");
        let mut d = 0u64;
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 3, q), SUCCESS);
        assert_eq!(d, q);
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 11, q), SUCCESS);
        assert_eq!(d, p);
        let mut n = 0usize;
        assert_eq!(get(&mut n as *mut usize as *mut c_void, 12, q), SUCCESS);
        assert_eq!(n, 256);
        let mut ord = -1i32;
        assert_eq!(get(&mut ord as *mut i32 as *mut c_void, 9, q), SUCCESS);
        assert_eq!(ord, 0);
        let (mut id1, mut id2) = (0u64, 0u64);
        let p2 = cu.alloc(64);
        assert_eq!(get(&mut id1 as *mut u64 as *mut c_void, 7, q), SUCCESS);
        assert_eq!(get(&mut id2 as *mut u64 as *mut c_void, 7, p2), SUCCESS);
        assert_ne!(id1, id2);
        // Device memory has no host address; unknown attributes; null data.
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 4, q), INVALID_VALUE);
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 1000, q), INVALID_VALUE);
        assert_eq!(get(null_mut(), 3, q), INVALID_VALUE);
        // Not device memory: a host address, past the end, freed.
        let host = [0u8; 4];
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 3, host.as_ptr() as u64), INVALID_VALUE);
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 3, p + 256), INVALID_VALUE);
        assert_eq!(cu.f::<unsafe extern "C" fn(u64) -> u32>("cuMemFree_v2")(p), SUCCESS);
        assert_eq!(get(&mut d as *mut u64 as *mut c_void, 3, q), INVALID_VALUE);
    }
}

#[test]
fn handles_are_positive_as_signed_pointers() {
    // cuda-bindings reads a handle as a signed intptr_t and refuses a negative one.
    let cu = Cuda::new("positive-handles");
    let ctx = cu.with_context();
    let (link, image) = cu.link_both();
    let (_, lib) = cu.library_load(image);
    let (_, k) = cu.get_kernel(lib, "k");
    let (mut s, mut e) = (null_mut(), null_mut());
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>("cuStreamCreate")(&mut s, 0) }, SUCCESS);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>("cuEventCreate")(&mut e, 0) }, SUCCESS);
    let mut m = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, image) }, SUCCESS);
    for h in [ctx, link, lib, k, s, e, m] {
        assert!(h as isize > 0, "{h:?}");
    }
}

#[test]
fn random_handles_of_the_new_kinds_are_errors_never_crashes() {
    let cu = Cuda::new("random-new-handles");
    cu.with_context();
    let (_link, image) = cu.link_both();
    let (_, lib) = cu.library_load(image);
    let (_, k) = cu.get_kernel(lib, "k");
    let p = cu.alloc(64);
    let mut ev = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, c_uint) -> u32>("cuEventCreate")(&mut ev, 0) }, SUCCESS);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let unload = cu.f::<unsafe extern "C" fn(H) -> u32>("cuLibraryUnload");
    let get_function = cu.f::<unsafe extern "C" fn(*mut H, H) -> u32>("cuKernelGetFunction");
    let link_destroy = cu.f::<unsafe extern "C" fn(H) -> u32>("cuLinkDestroy");
    let record = cu.f::<unsafe extern "C" fn(H, H) -> u32>("cuEventRecord");
    let query = cu.f::<unsafe extern "C" fn(H) -> u32>("cuEventQuery");
    let elapsed = cu.f::<unsafe extern "C" fn(*mut f32, H, H) -> u32>("cuEventElapsedTime");
    let ev_destroy = cu.f::<unsafe extern "C" fn(H) -> u32>("cuEventDestroy_v2");
    let pointer = cu.f::<unsafe extern "C" fn(*mut c_void, c_int, u64) -> u32>("cuPointerGetAttribute");
    let free_host = cu.f::<unsafe extern "C" fn(H) -> u32>("cuMemFreeHost");
    let unregister = cu.f::<unsafe extern "C" fn(H) -> u32>("cuMemHostUnregister");
    let (mut n, mut out) = (4u32, p);
    let mut params = [&mut out as *mut u64 as *mut c_void, &mut n as *mut u32 as *mut c_void];
    for i in 0..5_000 {
        // Small values, values shaped like this library's handles (serials
        // it has not handed out), and anything.
        let v = match i % 3 {
            0 => next() % 4096,
            1 => (16 + next() % 0xffff) | (0x41 + next() % 8) << 56,
            _ => next(),
        };
        let h = v as usize as H;
        let mut out_h = null_mut();
        let mut ms = 0f32;
        let mut d = 0u64;
        unsafe {
            assert_ne!(cu.get_kernel(h, "k").0, SUCCESS, "{v:#x}");
            assert_ne!(unload(h), SUCCESS, "{v:#x}");
            assert_ne!(get_function(&mut out_h, h), SUCCESS, "{v:#x}");
            assert_ne!(cu.kernel_attr(h, 0, 0).0, SUCCESS, "{v:#x}");
            assert_ne!(cu.func_attr(h, 0).0, SUCCESS, "{v:#x}");
            assert_ne!(cu.launch_ex(h, 1, 4, &[], &mut params), SUCCESS, "{v:#x}");
            assert_ne!(cu.link_add(h, CU_JIT_INPUT_PTX, LIB_PTX, "x"), SUCCESS, "{v:#x}");
            assert_ne!(cu.link_complete(h).0, SUCCESS, "{v:#x}");
            assert_ne!(link_destroy(h), SUCCESS, "{v:#x}");
            assert_ne!(record(h, null_mut()), SUCCESS, "{v:#x}");
            if v > 2 {
                assert_ne!(record(ev, h), SUCCESS, "{v:#x}");
            }
            assert_ne!(query(h), SUCCESS, "{v:#x}");
            assert_ne!(elapsed(&mut ms, h, ev), SUCCESS, "{v:#x}");
            assert_ne!(ev_destroy(h), SUCCESS, "{v:#x}");
            assert_ne!(free_host(h), SUCCESS, "{v:#x}");
            assert_ne!(unregister(h), SUCCESS, "{v:#x}");
            if v.wrapping_sub(p) >= 64 {
                assert_ne!(pointer(&mut d as *mut u64 as *mut c_void, 3, v), SUCCESS, "{v:#x}");
            }
        }
    }
    // Everything real still works.
    assert_eq!(cu.launch_ex(k, 1, 4, &[], &mut params), SUCCESS);
    assert_eq!(cu.dtoh_u32(p, 4), vec![0, 2, 4, 6]);
    assert_eq!(unsafe { query(ev) }, SUCCESS);
}

#[test]
fn launch_count_counts_launches_that_reach_the_engine() {
    let cu = Cuda::new("launch-count");
    let count = cu.f::<extern "C" fn() -> u64>("ptxsim_launch_count");
    // Readable before cuInit: nothing launched yet.
    assert_eq!(count(), 0);
    cu.with_context();
    let (_state, image) = cu.link_both();
    let (r, lib) = cu.library_load(image);
    assert_eq!(r, SUCCESS);
    let (_, k) = cu.get_kernel(lib, "k");
    let out = cu.alloc(4 * 4);
    let (mut p, mut n) = (out, 4u32);
    let mut params = [&mut p as *mut u64 as *mut c_void, &mut n as *mut u32 as *mut c_void];
    assert_eq!(cu.launch_ex(k, 1, 4, &[], &mut params), SUCCESS);
    assert_eq!(count(), 1);
    assert_eq!(cu.launch_ex(k, 2, 2, &[], &mut params), SUCCESS);
    assert_eq!(count(), 2);
    // Refused before the engine runs anything: 1 MiB of dynamic shared
    // memory (beyond the 48 KiB default limit), a block of 2048 threads.
    let mut f = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, H) -> u32>("cuKernelGetFunction")(&mut f, k) }, SUCCESS);
    type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
    let launch = cu.f::<Launch>("cuLaunchKernel");
    assert_eq!(unsafe { launch(f, 1, 1, 1, 4, 1, 1, 1 << 20, null_mut(), params.as_mut_ptr(), null_mut()) }, INVALID_VALUE);
    assert_ne!(unsafe { launch(f, 1, 1, 1, 2048, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }, SUCCESS);
    assert_eq!(count(), 2);
    assert_eq!(unsafe { launch(f, 1, 1, 1, 4, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }, SUCCESS);
    assert_eq!(count(), 3);
}

#[test]
fn registers_respect_the_links_max_registers_option() {
    let cu = Cuda::new("max-registers");
    cu.with_context();
    // CU_JIT_MAX_REGISTERS = 0: its value is the number itself.
    let f = cu.f::<unsafe extern "C" fn(c_uint, *mut c_int, *mut *mut c_void, *mut H) -> u32>("cuLinkCreate_v2");
    for (cap, want) in [(5usize, 5), (200, 9)] {
        let mut state = null_mut();
        let mut opts = [0 as c_int];
        let mut vals = [cap as *mut c_void];
        assert_eq!(unsafe { f(1, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state) }, SUCCESS);
        assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, KERNEL_PTX, "kernel.ptx"), SUCCESS);
        assert_eq!(cu.link_add(state, CU_JIT_INPUT_PTX, LIB_PTX, "lib.ptx"), SUCCESS);
        let (r, image, _) = cu.link_complete(state);
        assert_eq!(r, SUCCESS);
        let (r, lib) = cu.library_load(image);
        assert_eq!(r, SUCCESS);
        let (_, k) = cu.get_kernel(lib, "k");
        assert_eq!(cu.kernel_attr(k, 4, 0), (SUCCESS, want), "cap {cap}");
        // The capped image still runs.
        let out = cu.alloc(4 * 4);
        let (mut p, mut n) = (out, 4u32);
        let mut params = [&mut p as *mut u64 as *mut c_void, &mut n as *mut u32 as *mut c_void];
        assert_eq!(cu.launch_ex(k, 1, 4, &[], &mut params), SUCCESS);
    }
}
