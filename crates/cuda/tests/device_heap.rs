//! The device heap of `malloc`/`free` through the C ABI:
//! `cuCtxGetLimit`/`cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)` with CUDA's
//! documented rules (8 MiB by default; a change after a kernel that uses
//! `malloc` was launched is CUDA_ERROR_INVALID_VALUE; the heap goes with
//! the context), a heap that cannot be reserved failing the module load
//! with CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, the size in effect for the
//! kernels' `malloc`, and a bad `free` failing the launch.

mod common;

use libloading::Library;
use std::ffi::{c_char, c_int, c_void};
use std::ptr::null_mut;

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const SHARED_OBJECT_INIT_FAILED: u32 = 303;
const LAUNCH_FAILED: u32 = 719;
const MALLOC_HEAP_SIZE: c_int = 2;

fn f<T: Copy>(lib: &Library, name: &str) -> T {
    let sym = format!("{name}\0");
    // SAFETY: each call site declares the function's C signature.
    unsafe { *lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
}

/// Each thread mallocs `n` bytes and stores the pointer at `out[tid]`;
/// `release` frees `p + off` on thread 0.
const PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry grab(.param .u64 out, .param .u64 n)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [n];
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    .param .b64 retval0;
    call.uni (retval0), malloc, (param0);
    ld.param.b64 %rd3, [retval0];
    }
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 8;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u64 [%rd5], %rd3;
    ret;
}
.visible .entry release(.param .u64 p)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    call.uni free, (param0);
    }
    ret;
}
\0";

struct Cu {
    lib: Library,
}

impl Cu {
    fn get(&self, limit: c_int) -> (u32, usize) {
        let mut v = 0usize;
        let r = unsafe { f::<unsafe extern "C" fn(*mut usize, c_int) -> u32>(&self.lib, "cuCtxGetLimit")(&mut v, limit) };
        (r, v)
    }

    fn set(&self, limit: c_int, v: usize) -> u32 {
        unsafe { f::<unsafe extern "C" fn(c_int, usize) -> u32>(&self.lib, "cuCtxSetLimit")(limit, v) }
    }

    fn primary(&self) {
        let mut ctx = null_mut();
        unsafe {
            assert_eq!(f::<unsafe extern "C" fn(*mut H, i32) -> u32>(&self.lib, "cuDevicePrimaryCtxRetain")(&mut ctx, 0), SUCCESS);
            assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&self.lib, "cuCtxSetCurrent")(ctx), SUCCESS);
        }
    }

    fn load(&self) -> (u32, H) {
        let mut m = null_mut();
        let r = unsafe { f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>(&self.lib, "cuModuleLoadData")(&mut m, PTX.as_ptr() as *const c_void) };
        (r, m)
    }

    fn function(&self, m: H, name: &std::ffi::CStr) -> H {
        let mut func = null_mut();
        let r = unsafe { f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>(&self.lib, "cuModuleGetFunction")(&mut func, m, name.as_ptr()) };
        assert_eq!(r, SUCCESS);
        func
    }

    fn launch(&self, func: H, block: u32, params: &mut [*mut c_void]) -> u32 {
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        unsafe { f::<Launch>(&self.lib, "cuLaunchKernel")(func, 1, 1, 1, block, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }
    }

    fn alloc(&self, n: usize) -> u64 {
        let mut p = 0u64;
        assert_eq!(unsafe { f::<unsafe extern "C" fn(*mut u64, usize) -> u32>(&self.lib, "cuMemAlloc_v2")(&mut p, n) }, SUCCESS);
        p
    }

    fn read_u64s(&self, src: u64, n: usize) -> Vec<u64> {
        let mut b = vec![0u8; 8 * n];
        let r = unsafe { f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>(&self.lib, "cuMemcpyDtoH_v2")(b.as_mut_ptr() as *mut c_void, src, b.len()) };
        assert_eq!(r, SUCCESS);
        b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
    }

    /// `grab` on 64 threads asking `n` bytes each: how many got a block.
    fn grab(&self, m: H, n: u64) -> usize {
        let out = self.alloc(8 * 64);
        let (mut o, mut nn) = (out, n);
        let mut params = [&mut o as *mut u64 as *mut c_void, &mut nn as *mut u64 as *mut c_void];
        assert_eq!(self.launch(self.function(m, c"grab"), 64, &mut params), SUCCESS);
        let p = self.read_u64s(out, 64);
        assert!(p.iter().all(|&a| a % 16 == 0), "{p:x?}");
        p.iter().filter(|&&a| a != 0).count()
    }
}

#[test]
fn malloc_heap_size_limit_follows_cuda_rules() {
    let lib = unsafe { Library::new(common::private_copy("device_heap")) }.expect("load libcuda copy");
    let cu = Cu { lib };
    assert_eq!(unsafe { f::<unsafe extern "C" fn(u32) -> u32>(&cu.lib, "cuInit")(0) }, SUCCESS);
    cu.primary();
    assert_eq!(cu.get(MALLOC_HEAP_SIZE), (SUCCESS, 8 << 20), "CUDA's default heap");

    // Too large to reserve: the load of a module calling malloc fails.
    assert_eq!(cu.set(MALLOC_HEAP_SIZE, 1 << 40), SUCCESS);
    assert_eq!(cu.load().0, SHARED_OBJECT_INIT_FAILED);
    assert_eq!(cu.set(MALLOC_HEAP_SIZE, 1 << 20), SUCCESS);
    let (r, m) = cu.load();
    assert_eq!(r, SUCCESS);
    // Loaded but not launched yet: the size may still change.
    assert_eq!(cu.set(MALLOC_HEAP_SIZE, 4096), SUCCESS);
    assert_eq!(cu.get(MALLOC_HEAP_SIZE), (SUCCESS, 4096));
    // 4096 bytes hold 16 blocks of 256.
    assert_eq!(cu.grab(m, 256), 16);
    // A kernel using malloc ran: the size is fixed for the context.
    assert_eq!(cu.set(MALLOC_HEAP_SIZE, 8192), INVALID_VALUE);
    assert_eq!(cu.get(MALLOC_HEAP_SIZE), (SUCCESS, 4096));
    // The other limits are unaffected.
    assert_eq!(cu.set(1, 2 << 20), SUCCESS);
    assert_eq!(cu.get(1), (SUCCESS, 2 << 20));

    // A free of a pointer malloc never returned fails the launch (sticky).
    let out = cu.alloc(8 * 64);
    let mut o = out;
    let mut nn = 64u64;
    let mut params = [&mut o as *mut u64 as *mut c_void, &mut nn as *mut u64 as *mut c_void];
    assert_eq!(cu.launch(cu.function(m, c"grab"), 1, &mut params), SUCCESS);
    let mut bad = cu.read_u64s(out, 1)[0] + 16;
    let mut params = [&mut bad as *mut u64 as *mut c_void];
    assert_eq!(cu.launch(cu.function(m, c"release"), 1, &mut params), LAUNCH_FAILED);

    // Resetting the primary context takes the heap with it: the size may
    // change again, and a module loaded afterwards gets the new heap.
    let reset = f::<unsafe extern "C" fn(i32) -> u32>(&cu.lib, "cuDevicePrimaryCtxReset");
    assert_eq!(unsafe { reset(0) }, SUCCESS);
    cu.primary();
    assert_eq!(cu.set(MALLOC_HEAP_SIZE, 8192), SUCCESS);
    let (r, m) = cu.load();
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.grab(m, 256), 32);
}
