//! Module variables the host reaches, as the CUDA runtime reaches them for
//! `cudaMemcpyToSymbol` and `__managed__`: a `.const` variable has an
//! address (`cuModuleGetGlobal`) whose bytes, written by a host copy, are
//! what the next launch reads with `ld.const` (its initialiser before any
//! write); a `.managed` variable's address is host memory the host reads
//! and writes directly, and a kernel's atomic updates are seen there after
//! the launch. Each load has its own variables. Expected values follow
//! from the PTX below.

mod common;

use libloading::Library;
use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

type H = *mut c_void;
const SUCCESS: u32 = 0;

const PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .const .align 4 .b32 coef[4] = {1, 2, 3, 4};
.visible .global .attribute(.managed) .align 4 .u32 counter = 5;
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    mov.u64 %rd3, coef;
    add.s64 %rd4, %rd3, %rd2;
    ld.const.u32 %r2, [%rd4];
    add.s64 %rd5, %rd1, %rd2;
    st.global.u32 [%rd5], %r2;
    atom.global.add.u32 %r3, [counter], 1;
    ret;
}
";

struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        // SAFETY: our own library.
        let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
        let cu = Cuda { lib };
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
        cu
    }
    fn f<T: Copy>(&self, name: &str) -> T {
        // SAFETY: each call site declares the function's C signature.
        unsafe { *self.lib.get::<T>(format!("{name}\0").as_bytes()).expect(name) }
    }
    fn load(&self) -> H {
        let text = format!("{PTX}\0");
        let mut m = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, text.as_ptr().cast()) }, SUCCESS);
        m
    }
    fn global(&self, m: H, name: &str) -> (u64, usize) {
        let (mut p, mut n) = (0u64, 0usize);
        let name = format!("{name}\0");
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut u64, *mut usize, H, *const c_char) -> u32>("cuModuleGetGlobal_v2")(&mut p, &mut n, m, name.as_ptr().cast()) };
        assert_eq!(r, SUCCESS, "{name}");
        (p, n)
    }
    fn alloc(&self, n: usize) -> u64 {
        let mut p = 0u64;
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut p, n) }, SUCCESS);
        p
    }
    fn htod(&self, dst: u64, src: &[u32]) {
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>("cuMemcpyHtoD_v2")(dst, src.as_ptr().cast(), src.len() * 4) }, SUCCESS);
    }
    fn dtoh(&self, src: u64, n: usize) -> Vec<u32> {
        let mut v = vec![0u32; n];
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(v.as_mut_ptr().cast(), src, n * 4) }, SUCCESS);
        v
    }
    fn run(&self, m: H, out: u64) {
        let mut f = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, c"k".as_ptr()) }, SUCCESS);
        let mut p = out;
        let mut params = [&mut p as *mut u64 as *mut c_void];
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        assert_eq!(unsafe { self.f::<Launch>("cuLaunchKernel")(f, 1, 1, 1, 4, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }, SUCCESS);
    }
}

/// One test, so one copy of the library in the process: two copies would
/// each place their first module variables at the same engine address, and
/// only one of them can map a `.managed` variable's page there.
#[test]
fn const_and_managed_variables() {
    let cu = Cuda::new("vars");
    const_variable_written_by_the_host_reaches_the_kernel(&cu);
    managed_variable_is_host_memory_at_its_address(&cu);
}

fn const_variable_written_by_the_host_reaches_the_kernel(cu: &Cuda) {
    let m = cu.load();
    let out = cu.alloc(16);
    cu.run(m, out);
    assert_eq!(cu.dtoh(out, 4), [1, 2, 3, 4], "the initialiser");
    let (coef, size) = cu.global(m, "coef");
    assert_eq!(size, 16);
    assert_eq!(cu.dtoh(coef, 4), [1, 2, 3, 4]);
    cu.htod(coef, &[10, 20, 30, 40]);
    cu.run(m, out);
    assert_eq!(cu.dtoh(out, 4), [10, 20, 30, 40], "the host's write");
    // A second load of the same text has its own constants.
    let m2 = cu.load();
    let (coef2, _) = cu.global(m2, "coef");
    assert_ne!(coef2, coef);
    cu.run(m2, out);
    assert_eq!(cu.dtoh(out, 4), [1, 2, 3, 4]);
}

fn managed_variable_is_host_memory_at_its_address(cu: &Cuda) {
    let m = cu.load();
    let (counter, size) = cu.global(m, "counter");
    assert_eq!(size, 4);
    let host = counter as usize as *mut u32;
    // SAFETY: the driver maps the variable's pages in this process.
    assert_eq!(unsafe { host.read_volatile() }, 5, "the initialiser, on the host");
    unsafe { host.write_volatile(100) };
    let out = cu.alloc(16);
    cu.run(m, out);
    assert_eq!(unsafe { host.read_volatile() }, 104, "four atomic adds after the host's write");
    // Host copies reach the same bytes.
    assert_eq!(cu.dtoh(counter, 1), [104]);
    cu.htod(counter, &[7]);
    assert_eq!(unsafe { host.read_volatile() }, 7);
    cu.run(m, out);
    assert_eq!(unsafe { host.read_volatile() }, 11);
    // Another load has its own variable.
    let m2 = cu.load();
    let (c2, _) = cu.global(m2, "counter");
    assert_ne!(c2, counter);
    assert_eq!(unsafe { (c2 as usize as *const u32).read_volatile() }, 5);
}
