//! Cooperative launches and launch options through the built library's C
//! ABI: `cuLaunchCooperativeKernel` and `cuLaunchKernelEx`'s COOPERATIVE
//! attribute running a kernel whose CTAs meet at libcudadevrt's grid
//! barrier (linked with `CU_JIT_INPUT_LIBRARY`), the occupancy limit
//! (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), cluster launches (compute
//! capability 9.0), `cuLaunchKernel`'s `extra` parameter buffer, and the
//! attributes refused. Expected values are computed here by formula. The
//! compute capability is read from `PTXSIM_CC` at `cuInit`, so the tests
//! that set it run in one test function, one after the other.

mod common;

use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::ptr::{null, null_mut};

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_IMAGE: u32 = 200;
const LAUNCH_FAILED: u32 = 719;
const COOPERATIVE_LAUNCH_TOO_LARGE: u32 = 720;
const NOT_SUPPORTED: u32 = 801;
const INVALID_CLUSTER_SIZE: u32 = 912;

const CU_JIT_INPUT_PTX: c_int = 1;
const CU_JIT_INPUT_LIBRARY: c_int = 4;

/// `phases(a, b, n)`: a[i] = 3i+1 (CTA k after 3000k idle rounds); grid
/// sync; b[i] = a[(i+37) mod n] + a[n-1-i]. The grid handle comes from
/// `cudaCGGetIntrinsicHandle(cudaCGScopeGrid)`, as Numba's `this_grid()`.
const PHASES: &str = r#".version 7.8
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) cudaCGGetIntrinsicHandle
(
    .param .b32 cudaCGGetIntrinsicHandle_param_0
)
;
.extern .func (.param .b32 func_retval0) cudaCGSynchronize
(
    .param .b64 cudaCGSynchronize_param_0,
    .param .b32 cudaCGSynchronize_param_1
)
;
.visible .entry phases(.param .u64 pa, .param .u64 pb, .param .u32 pn)
{
    .reg .pred %p9;
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    {
    .param .b32 param0;
    st.param.b32 [param0+0], 1;
    .param .b64 retval0;
    call.uni (retval0), cudaCGGetIntrinsicHandle, (param0);
    ld.param.b64 %rd3, [retval0+0];
    }
    mul.lo.u32 %r15, %r2, 3000;
WORK:
    setp.eq.u32 %p9, %r15, 0;
    @%p9 bra WORKED;
    sub.u32 %r15, %r15, 1;
    bra WORK;
WORKED:
    mad.lo.u32 %r6, %r5, 3, 1;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r6;
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd3;
    .param .b32 param1;
    st.param.b32 [param1+0], 0;
    .param .b32 retval0;
    call.uni (retval0), cudaCGSynchronize, (param0, param1);
    ld.param.b32 %r7, [retval0+0];
    }
    add.u32 %r8, %r5, 37;
    rem.u32 %r8, %r8, %r1;
    mul.wide.u32 %rd6, %r8, 4;
    add.s64 %rd6, %rd1, %rd6;
    ld.global.u32 %r9, [%rd6];
    sub.u32 %r10, %r1, 1;
    sub.u32 %r10, %r10, %r5;
    mul.wide.u32 %rd7, %r10, 4;
    add.s64 %rd7, %rd1, %rd7;
    ld.global.u32 %r11, [%rd7];
    add.u32 %r12, %r9, %r11;
    add.u32 %r12, %r12, %r7;
    add.s64 %rd8, %rd2, %rd4;
    st.global.u32 [%rd8], %r12;
    ret;
}
"#;

/// `packed(p, n, q)`: p[i] = i * n + q's low word, and `%cluster_ctarank`
/// in p[128 + ctaid]; parameters at offsets 0, 8 and 16.
const PACKED: &str = r#".version 7.8
.target sm_90
.address_size 64
.visible .entry packed(.param .u64 p, .param .u32 n, .param .u64 q)
{
    .reg .pred %p1;
    .reg .b32 %r<10>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    ld.param.u64 %rd2, [q];
    cvt.u32.u64 %r2, %rd2;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mad.lo.u32 %r6, %r4, %r5, %r3;
    mad.lo.u32 %r7, %r6, %r1, %r2;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r7;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra DONE;
    mov.u32 %r8, %cluster_ctarank;
    add.u32 %r9, %r4, 128;
    mul.wide.u32 %rd5, %r9, 4;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r8;
DONE:
    ret;
}
"#;

#[repr(C)]
struct LaunchConfig {
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    stream: H,
    attrs: *const LaunchAttribute,
    num_attrs: c_uint,
}

/// `CUlaunchAttribute`: a 4-byte id, 4 bytes of padding, a 64-byte value.
#[repr(C)]
struct LaunchAttribute {
    id: u32,
    pad: [u8; 4],
    value: [u8; 64],
}

fn attribute(id: u32, words: [u32; 3]) -> LaunchAttribute {
    let mut value = [0u8; 64];
    for (i, w) in words.iter().enumerate() {
        value[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    LaunchAttribute { id, pad: [0; 4], value }
}

type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
type LaunchCoop = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void) -> u32;
type LaunchEx = unsafe extern "C" fn(*const LaunchConfig, H, *mut *mut c_void, *mut *mut c_void) -> u32;
type LinkAdd = unsafe extern "C" fn(H, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void) -> u32;

struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        // SAFETY: our own library; its initialisers do nothing.
        let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
        let cu = Cuda { lib };
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
        cu
    }

    fn f<T: Copy>(&self, name: &str) -> T {
        let sym = format!("{name}\0");
        // SAFETY: each call site declares the function's C signature.
        unsafe { *self.lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
    }

    fn alloc(&self, n: usize) -> u64 {
        let mut p = 0u64;
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut p, n) }, SUCCESS);
        p
    }

    fn read(&self, src: u64, n: usize) -> Vec<u32> {
        let mut v = vec![0u32; n];
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(v.as_mut_ptr() as *mut c_void, src, n * 4) };
        assert_eq!(r, SUCCESS);
        v
    }

    fn attr(&self, a: c_int) -> c_int {
        let mut v = -1;
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut c_int, c_int, i32) -> u32>("cuDeviceGetAttribute")(&mut v, a, 0) }, SUCCESS);
        v
    }

    fn link_add(&self, state: H, kind: c_int, data: &[u8], name: &str) -> u32 {
        let name = format!("{name}\0");
        unsafe { self.f::<LinkAdd>("cuLinkAddData_v2")(state, kind, data.as_ptr() as *mut c_void, data.len(), name.as_ptr() as *const c_char, 0, null_mut(), null_mut()) }
    }

    fn link_create(&self) -> H {
        let mut state = null_mut();
        let f = self.f::<unsafe extern "C" fn(c_uint, *mut c_int, *mut *mut c_void, *mut H) -> u32>("cuLinkCreate_v2");
        assert_eq!(unsafe { f(0, null_mut(), null_mut(), &mut state) }, SUCCESS);
        state
    }

    /// Loads `image` as a module; returns its kernel `name`.
    fn kernel(&self, image: *const c_void, name: &str) -> H {
        let mut m = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, image) }, SUCCESS);
        let mut k = null_mut();
        let name = format!("{name}\0");
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut k, m, name.as_ptr() as *const c_char) }, SUCCESS);
        k
    }

    /// `phases` linked with libcudadevrt (an `ar` archive named so).
    fn phases(&self) -> H {
        let state = self.link_create();
        let ptx = format!("{PHASES}\0");
        assert_eq!(self.link_add(state, CU_JIT_INPUT_PTX, ptx.as_bytes(), "phases.ptx"), SUCCESS);
        assert_eq!(self.link_add(state, CU_JIT_INPUT_LIBRARY, b"!<arch>\n/               0           0     0     0       4         `\n\0\0\0\0", "/usr/local/cuda/lib64/libcudadevrt.a"), SUCCESS);
        let (mut p, mut n) = (null_mut(), 0usize);
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H, *mut *mut c_void, *mut usize) -> u32>("cuLinkComplete")(state, &mut p, &mut n) }, SUCCESS);
        self.kernel(p, "phases")
    }

    fn launch_ex(&self, f: H, grid: [u32; 3], block: u32, attrs: &[LaunchAttribute], params: &mut [*mut c_void]) -> u32 {
        let cfg = LaunchConfig {
            grid,
            block: [block, 1, 1],
            shared: 0,
            stream: null_mut(),
            attrs: if attrs.is_empty() { null() } else { attrs.as_ptr() },
            num_attrs: attrs.len() as c_uint,
        };
        unsafe { self.f::<LaunchEx>("cuLaunchKernelEx")(&cfg, f, params.as_mut_ptr(), null_mut()) }
    }
}

fn expected_b(n: u32) -> Vec<u32> {
    let a: Vec<u32> = (0..n).map(|i| 3 * i + 1).collect();
    (0..n).map(|i| a[((i + 37) % n) as usize] + a[(n - 1 - i) as usize]).collect()
}

#[test]
fn cooperative_launches_meet_at_the_grid_barrier() {
    let cu = Cuda::new("coop-grid");
    assert_eq!(cu.attr(95), 1, "COOPERATIVE_LAUNCH");
    assert_eq!(cu.attr(96), 0, "COOPERATIVE_MULTI_DEVICE_LAUNCH");
    let k = cu.phases();
    let (ctas, block) = (8u32, 64u32);
    let n = ctas * block;
    let (a, b) = (cu.alloc(n as usize * 4), cu.alloc(n as usize * 4));
    let (mut pa, mut pb, mut pn) = (a, b, n);
    let mut params = [&mut pa as *mut u64 as *mut c_void, &mut pb as *mut u64 as *mut c_void, &mut pn as *mut u32 as *mut c_void];
    let coop = cu.f::<LaunchCoop>("cuLaunchCooperativeKernel");
    assert_eq!(unsafe { coop(k, ctas, 1, 1, block, 1, 1, 0, null_mut(), params.as_mut_ptr()) }, SUCCESS);
    assert_eq!(cu.read(b, n as usize), expected_b(n));
    // The same through cuLaunchKernelEx's COOPERATIVE attribute, into fresh arrays.
    let (a2, b2) = (cu.alloc(n as usize * 4), cu.alloc(n as usize * 4));
    // (Through the parameter pointers: the launch reads them there.)
    unsafe {
        *(params[0] as *mut u64) = a2;
        *(params[1] as *mut u64) = b2;
    }
    assert_eq!(cu.launch_ex(k, [ctas, 1, 1], block, &[attribute(2, [1, 0, 0]), attribute(8, [0; 3])], &mut params), SUCCESS);
    assert_eq!(cu.read(b2, n as usize), expected_b(n));
}

#[test]
fn a_cooperative_grid_beyond_occupancy_is_too_large() {
    let cu = Cuda::new("coop-too-large");
    let k = cu.phases();
    let coop = cu.f::<LaunchCoop>("cuLaunchCooperativeKernel");
    let a = cu.alloc(64 * 1024 * 4);
    let (mut pa, mut pb, mut pn) = (a, a, 0u32);
    let mut params = [&mut pa as *mut u64 as *mut c_void, &mut pb as *mut u64 as *mut c_void, &mut pn as *mut u32 as *mut c_void];
    // One multiprocessor of 2048 threads and 32 blocks: 1024-thread blocks
    // fit 2 at once, 64-thread blocks 32.
    assert_eq!(cu.attr(16), 1, "multiprocessors");
    for (block, fit) in [(1024u32, 2u32), (64, 32)] {
        let mut occ = -1;
        let f = cu.f::<unsafe extern "C" fn(*mut c_int, H, c_int, usize) -> u32>("cuOccupancyMaxActiveBlocksPerMultiprocessor");
        assert_eq!(unsafe { f(&mut occ, k, block as c_int, 0) }, SUCCESS);
        assert_eq!(occ as u32, fit, "occupancy of {block}-thread blocks");
        assert_eq!(unsafe { coop(k, fit + 1, 1, 1, block, 1, 1, 0, null_mut(), params.as_mut_ptr()) }, COOPERATIVE_LAUNCH_TOO_LARGE, "{block}");
        // (Through the parameter pointer: the launch reads it there.)
        unsafe { *(params[2] as *mut u32) = fit * block };
        assert_eq!(unsafe { coop(k, fit, 1, 1, block, 1, 1, 0, null_mut(), params.as_mut_ptr()) }, SUCCESS, "{block}");
    }
    // The refusals were not sticky. An ordinary launch of the kernel traps
    // at its grid sync: the grid handle is 0 outside a cooperative launch.
    let launch = cu.f::<Launch>("cuLaunchKernel");
    unsafe { *(params[2] as *mut u32) = 64 };
    assert_eq!(unsafe { launch(k, 1, 1, 1, 64, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }, LAUNCH_FAILED);
}

#[test]
fn extra_parameter_buffer_and_refused_attributes() {
    let cu = Cuda::new("coop-extra");
    let ptx = format!("{}\0", PACKED.replace("sm_90", "sm_80").replace("    mov.u32 %r8, %cluster_ctarank;\n", "    mov.u32 %r8, 0;\n"));
    let k = cu.kernel(ptx.as_ptr() as *const c_void, "packed");
    let p = cu.alloc(256 * 4);
    // The kernel's parameter layout: p at 0 (8 bytes), n at 8 (4), q at 16 (8, aligned).
    let mut buf = [0u8; 24];
    buf[0..8].copy_from_slice(&p.to_le_bytes());
    buf[8..12].copy_from_slice(&7u32.to_le_bytes());
    buf[16..24].copy_from_slice(&0x1_0000_0005u64.to_le_bytes());
    let mut size = buf.len();
    let mut extra = [1usize as *mut c_void, buf.as_mut_ptr() as *mut c_void, 2usize as *mut c_void, &mut size as *mut usize as *mut c_void, null_mut()];
    let launch = cu.f::<Launch>("cuLaunchKernel");
    assert_eq!(unsafe { launch(k, 2, 1, 1, 32, 1, 1, 0, null_mut(), null_mut(), extra.as_mut_ptr()) }, SUCCESS);
    let got = cu.read(p, 64);
    assert_eq!(got, (0..64u32).map(|i| i * 7 + 5).collect::<Vec<_>>());
    // A buffer smaller than the parameters, and params with extra, are invalid.
    // (Through the pointer in `extra`: the launch reads it there.)
    unsafe { *(extra[3] as *mut usize) = 20 };
    assert_eq!(unsafe { launch(k, 2, 1, 1, 32, 1, 1, 0, null_mut(), null_mut(), extra.as_mut_ptr()) }, INVALID_VALUE);
    unsafe { *(extra[3] as *mut usize) = 24 };
    let mut dummy = [null_mut::<c_void>(); 3];
    assert_eq!(unsafe { launch(k, 2, 1, 1, 32, 1, 1, 0, null_mut(), dummy.as_mut_ptr(), extra.as_mut_ptr()) }, INVALID_VALUE);
    // An unknown key.
    let mut bad = [7usize as *mut c_void, null_mut(), null_mut()];
    assert_eq!(unsafe { launch(k, 2, 1, 1, 32, 1, 1, 0, null_mut(), null_mut(), bad.as_mut_ptr()) }, INVALID_VALUE);
    // Attributes: a programmatic event and a preferred cluster shape are
    // not supported; the hints (access policy window, priority) are accepted.
    let mut params = [&mut buf[0] as *mut u8 as *mut c_void, &mut buf[8] as *mut u8 as *mut c_void, &mut buf[16] as *mut u8 as *mut c_void];
    assert_eq!(cu.launch_ex(k, [2, 1, 1], 32, &[attribute(7, [0; 3])], &mut params), NOT_SUPPORTED);
    assert_eq!(cu.launch_ex(k, [2, 1, 1], 32, &[attribute(11, [2, 1, 1])], &mut params), NOT_SUPPORTED);
    assert_eq!(cu.launch_ex(k, [2, 1, 1], 32, &[attribute(1, [0; 3]), attribute(8, [1, 0, 0])], &mut params), SUCCESS);
}

#[test]
fn libraries_other_than_libcudadevrt_are_refused() {
    let cu = Cuda::new("coop-link");
    let state = cu.link_create();
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_LIBRARY, b"!<arch>\n", "libfoo.a"), NOT_SUPPORTED);
    assert_eq!(cu.link_add(state, CU_JIT_INPUT_LIBRARY, b"not an archive", "libcudadevrt.a"), INVALID_IMAGE);
    // From a file.
    let dir = common::scratch("coop-link-file");
    let path = dir.join("libcudadevrt.a");
    std::fs::write(&path, b"!<arch>\n").unwrap();
    let cpath = format!("{}\0", path.display());
    let add_file = cu.f::<unsafe extern "C" fn(H, c_int, *const c_char, c_uint, *mut c_int, *mut *mut c_void) -> u32>("cuLinkAddFile_v2");
    assert_eq!(unsafe { add_file(state, CU_JIT_INPUT_LIBRARY, cpath.as_ptr() as *const c_char, 0, null_mut(), null_mut()) }, SUCCESS);
    // cuGetProcAddress finds the new entry points.
    let gpa = cu.f::<unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> u32>("cuGetProcAddress_v2");
    for name in [c"cuLaunchCooperativeKernel", c"cuOccupancyMaxActiveClusters"] {
        let (mut pfn, mut status) = (null_mut(), -1);
        assert_eq!(unsafe { gpa(name.as_ptr(), &mut pfn, 12000, 0, &mut status) }, SUCCESS, "{name:?}");
        assert!(!pfn.is_null() && status == 0, "{name:?}");
    }
}

/// Clusters by compute capability: refused below 9.0, run at 9.0. One
/// test, since `PTXSIM_CC` is read from the environment at `cuInit`.
#[test]
fn clusters_need_compute_capability_9() {
    let occupancy = |cu: &Cuda, k: H, cluster: [u32; 3]| {
        let attrs = [attribute(4, cluster)];
        let cfg = LaunchConfig { grid: [8, 1, 1], block: [64, 1, 1], shared: 0, stream: null_mut(), attrs: attrs.as_ptr(), num_attrs: 1 };
        let mut n = -1;
        let r = unsafe { cu.f::<unsafe extern "C" fn(*mut c_int, H, *const LaunchConfig) -> u32>("cuOccupancyMaxActiveClusters")(&mut n, k, &cfg) };
        (r, n)
    };
    std::env::set_var("PTXSIM_CC", "8.0");
    {
        let cu = Cuda::new("coop-cc80");
        assert_eq!(cu.attr(120), 0, "CLUSTER_LAUNCH below 9.0");
        let ptx = format!("{}\0", PACKED.replace("sm_90", "sm_80").replace("    mov.u32 %r8, %cluster_ctarank;\n", "    mov.u32 %r8, 0;\n"));
        let k = cu.kernel(ptx.as_ptr() as *const c_void, "packed");
        let p = cu.alloc(256 * 4);
        let (mut pp, mut n, mut q) = (p, 1u32, 0u64);
        let mut params = [&mut pp as *mut u64 as *mut c_void, &mut n as *mut u32 as *mut c_void, &mut q as *mut u64 as *mut c_void];
        assert_eq!(cu.launch_ex(k, [4, 1, 1], 32, &[attribute(4, [2, 1, 1])], &mut params), NOT_SUPPORTED);
        assert_eq!(occupancy(&cu, k, [2, 1, 1]).0, NOT_SUPPORTED);
    }
    std::env::set_var("PTXSIM_CC", "9.0");
    {
        let cu = Cuda::new("coop-cc90");
        assert_eq!(cu.attr(120), 1, "CLUSTER_LAUNCH at 9.0");
        let ptx = format!("{PACKED}\0");
        let k = cu.kernel(ptx.as_ptr() as *const c_void, "packed");
        let p = cu.alloc(256 * 4);
        let (mut pp, mut n, mut q) = (p, 1u32, 0u64);
        let mut params = [&mut pp as *mut u64 as *mut c_void, &mut n as *mut u32 as *mut c_void, &mut q as *mut u64 as *mut c_void];
        // Clusters of 2 along x: CTA k has rank k mod 2.
        assert_eq!(cu.launch_ex(k, [4, 1, 1], 32, &[attribute(4, [2, 1, 1])], &mut params), SUCCESS);
        assert_eq!(cu.read(p + 128 * 4, 4), vec![0, 1, 0, 1]);
        // More than 8 CTAs, or a shape that does not divide the grid.
        assert_eq!(cu.launch_ex(k, [16, 1, 1], 32, &[attribute(4, [16, 1, 1])], &mut params), INVALID_CLUSTER_SIZE);
        assert_eq!(cu.launch_ex(k, [6, 1, 1], 32, &[attribute(4, [4, 1, 1])], &mut params), INVALID_CLUSTER_SIZE);
        // 32 resident 64-thread CTAs make 16 clusters of 2, 4 of 8.
        assert_eq!(occupancy(&cu, k, [2, 1, 1]), (SUCCESS, 16));
        assert_eq!(occupancy(&cu, k, [8, 1, 1]), (SUCCESS, 4));
        assert_eq!(occupancy(&cu, k, [3, 3, 1]).0, INVALID_CLUSTER_SIZE);
        // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED (14), as
        // CUTLASS's cluster launch sets it: 0 or 1, read back as set; once
        // 1, clusters of up to 16 CTAs (sm_90's non-portable limit) launch,
        // 17 or more still do not. CLUSTER_SCHEDULING_POLICY_PREFERENCE
        // (15): a CUclusterSchedulingPolicy, 0 to 2.
        let set = cu.f::<unsafe extern "C" fn(H, c_int, c_int) -> u32>("cuFuncSetAttribute");
        let get = |a: c_int| {
            let mut v = -1;
            assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_int, c_int, H) -> u32>("cuFuncGetAttribute")(&mut v, a, k) }, SUCCESS);
            v
        };
        assert_eq!((get(14), get(15)), (0, 0));
        assert_eq!(unsafe { set(k, 14, 2) }, INVALID_VALUE);
        assert_eq!(unsafe { set(k, 15, 3) }, INVALID_VALUE);
        assert_eq!(unsafe { set(k, 14, 1) }, SUCCESS);
        assert_eq!(unsafe { set(k, 15, 1) }, SUCCESS);
        assert_eq!((get(14), get(15)), (1, 1));
        // 16 CTAs of 8 threads: p[0..128] by the threads, the ranks 0..15 in p[128..144].
        assert_eq!(cu.launch_ex(k, [16, 1, 1], 8, &[attribute(4, [16, 1, 1])], &mut params), SUCCESS);
        assert_eq!(cu.read(p + 128 * 4, 16), (0..16).collect::<Vec<u32>>());
        assert_eq!(cu.launch_ex(k, [32, 1, 1], 8, &[attribute(4, [32, 1, 1])], &mut params), INVALID_CLUSTER_SIZE);
        assert_eq!(occupancy(&cu, k, [16, 1, 1]), (SUCCESS, 2));
        assert_eq!(unsafe { set(k, 14, 0) }, SUCCESS);
        assert_eq!(cu.launch_ex(k, [16, 1, 1], 8, &[attribute(4, [16, 1, 1])], &mut params), INVALID_CLUSTER_SIZE);
    }
    std::env::remove_var("PTXSIM_CC");
}
