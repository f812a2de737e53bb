//! Host memory that kernels dereference, through the built library as a C
//! client calls it: mapped pinned blocks (`cuMemHostAlloc` with DEVICEMAP,
//! `cuMemAllocHost`), managed blocks (`cuMemAllocManaged`) and registered
//! ranges (`cuMemHostRegister`) read and written by a kernel and by the
//! host at the same address, the host seeing the kernel's result after
//! `cuCtxSynchronize`; copies and memsets on such blocks; pointer
//! attributes (the numbering and widths of `cuda.h`); the error paths; and
//! alloc/free cycles that must not grow the process's resident memory.
//! Expected values are computed here from the kernel's formula.
//!
//! The tests take one lock, so the resident-memory test measures nothing
//! but its own cycles.

mod common;

use libloading::Library;
use std::ffi::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::Mutex;

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const INVALID_DEVICE: u32 = 101;
const INVALID_CONTEXT: u32 = 201;
const NOT_SUPPORTED: u32 = 801;
const ALREADY_REGISTERED: u32 = 712;
const NOT_REGISTERED: u32 = 713;

const DEVICEMAP: u32 = 2;
const ATTACH_GLOBAL: u32 = 1;
const ATTACH_HOST: u32 = 2;

static SERIAL: Mutex<()> = Mutex::new(());

/// `a[i] = 2 * a[i] + 1` for `i < n` (u32), and `dst[i] = src[i] + 7`.
const PTX: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry twice_plus_one(.param .u64 p, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r6, [%rd4];
    mad.lo.s32 %r7, %r6, 2, 1;
    st.global.u32 [%rd4], %r7;
DONE:
    ret;
}
.visible .entry plus_seven(.param .u64 src, .param .u64 dst, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd5, [dst];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd6, %rd5, %rd3;
    ld.global.u32 %r6, [%rd4];
    add.s32 %r7, %r6, 7;
    st.global.u32 [%rd6], %r7;
DONE:
    ret;
}
";

/// A private instance of the library with the primary context current.
struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        // SAFETY: loading our own library; its initialisers do nothing.
        let lib = unsafe { Library::new(common::private_copy(name)) }.expect("load libcuda copy");
        let cu = Cuda { lib };
        unsafe {
            assert_eq!(cu.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0), SUCCESS);
            let mut p = 0u64;
            assert_eq!(cu.f::<unsafe extern "C" fn(*mut u64, usize, u32) -> u32>("cuMemAllocManaged")(&mut p, 64, ATTACH_GLOBAL), INVALID_CONTEXT);
            let mut ctx = null_mut();
            assert_eq!(cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0), SUCCESS);
            assert_eq!(cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx), SUCCESS);
        }
        cu
    }

    /// The exported function `name` with type `T`.
    fn f<T: Copy>(&self, name: &str) -> T {
        let sym = format!("{name}\0");
        // SAFETY: the test declares each function with its C signature.
        unsafe { *self.lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
    }

    fn host_alloc(&self, size: usize, flags: u32) -> (u32, H) {
        let mut p = null_mut();
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut H, usize, u32) -> u32>("cuMemHostAlloc")(&mut p, size, flags) };
        (r, p)
    }

    fn free_host(&self, p: H) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuMemFreeHost")(p) }
    }

    fn managed(&self, size: usize, flags: u32) -> (u32, u64) {
        let mut p = 0u64;
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize, u32) -> u32>("cuMemAllocManaged")(&mut p, size, flags) };
        (r, p)
    }

    fn alloc(&self, n: usize) -> (u32, u64) {
        let mut p = 0u64;
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut p, n) };
        (r, p)
    }

    fn free(&self, p: u64) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(u64) -> u32>("cuMemFree_v2")(p) }
    }

    fn register(&self, p: H, size: usize, flags: u32) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(H, usize, u32) -> u32>("cuMemHostRegister_v2")(p, size, flags) }
    }

    fn unregister(&self, p: H) -> u32 {
        unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuMemHostUnregister")(p) }
    }

    fn device_pointer(&self, p: H, flags: u32) -> (u32, u64) {
        let mut d = 0u64;
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut u64, H, u32) -> u32>("cuMemHostGetDevicePointer_v2")(&mut d, p, flags) };
        (r, d)
    }

    fn attr<T: Default>(&self, attr: i32, ptr: u64) -> (u32, T) {
        let mut v = T::default();
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_void, i32, u64) -> u32>("cuPointerGetAttribute")(&mut v as *mut T as *mut c_void, attr, ptr) };
        (r, v)
    }

    fn device_attr(&self, attr: i32) -> i32 {
        let mut v = -1;
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut i32, i32, i32) -> u32>("cuDeviceGetAttribute")(&mut v, attr, 0) }, SUCCESS);
        v
    }

    fn function(&self, name: &str) -> H {
        let text = format!("{PTX}\0");
        let mut m = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, text.as_ptr() as *const c_void) }, SUCCESS);
        let name = format!("{name}\0");
        let mut f = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, name.as_ptr() as *const c_char) }, SUCCESS);
        f
    }

    /// `twice_plus_one(p, n)` over enough blocks of 128 threads, then a synchronize.
    fn twice_plus_one(&self, p: u64, n: u32) {
        let f = self.function("twice_plus_one");
        let (mut pp, mut nn) = (p, n);
        let mut params = [&mut pp as *mut u64 as *mut c_void, &mut nn as *mut u32 as *mut c_void];
        self.launch(f, n.div_ceil(128), &mut params);
    }

    fn plus_seven(&self, src: u64, dst: u64, n: u32) {
        let f = self.function("plus_seven");
        let (mut s, mut d, mut nn) = (src, dst, n);
        let mut params = [&mut s as *mut u64 as *mut c_void, &mut d as *mut u64 as *mut c_void, &mut nn as *mut u32 as *mut c_void];
        self.launch(f, n.div_ceil(128), &mut params);
    }

    fn launch(&self, f: H, grid: u32, params: &mut [*mut c_void]) {
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        assert_eq!(unsafe { self.f::<Launch>("cuLaunchKernel")(f, grid, 1, 1, 128, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) }, SUCCESS);
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn() -> u32>("cuCtxSynchronize")() }, SUCCESS);
    }
}

/// The `n` u32 words at host address `p`.
fn words<'a>(p: u64, n: usize) -> &'a mut [u32] {
    // SAFETY: each caller passes a live block of at least `n` words.
    unsafe { std::slice::from_raw_parts_mut(p as usize as *mut u32, n) }
}

#[test]
fn a_kernel_reads_and_writes_mapped_pinned_memory() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("mapped-pinned");
    assert_eq!(cu.device_attr(19), 1, "CAN_MAP_HOST_MEMORY");
    assert_eq!(cu.device_attr(41), 1, "UNIFIED_ADDRESSING");
    assert_eq!(cu.device_attr(91), 1, "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM");
    let n = 1000usize;
    for flags in [DEVICEMAP, DEVICEMAP | 1 | 4, 0] {
        let (r, h) = cu.host_alloc(n * 4, flags);
        assert_eq!(r, SUCCESS);
        assert_eq!(h as usize % 4096, 0, "page aligned");
        let (r, d) = cu.device_pointer(h, 0);
        assert_eq!((r, d), (SUCCESS, h as u64), "the device pointer is the host pointer");
        // An interior pointer maps to itself too.
        assert_eq!(cu.device_pointer(unsafe { (h as *mut u8).add(40) } as H, 0), (SUCCESS, h as u64 + 40));
        let a = words(d, n);
        assert!(a.iter().all(|&x| x == 0), "zeroed");
        for (i, x) in a.iter_mut().enumerate() {
            *x = i as u32 * 3;
        }
        cu.twice_plus_one(d, n as u32);
        assert!(a.iter().enumerate().all(|(i, &x)| x == 2 * (i as u32 * 3) + 1), "flags {flags}: the host sees the kernel's writes");
        // The host writes again; the next launch sees them.
        a[5] = 100;
        cu.twice_plus_one(d, n as u32);
        assert_eq!(a[5], 201);
        assert_eq!(a[6], 2 * (2 * 18 + 1) + 1);
        let mut got = 0u32;
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u32, H) -> u32>("cuMemHostGetFlags")(&mut got, (h as *mut u8).add(8) as H) }, SUCCESS);
        assert_eq!(got, flags);
        assert_eq!(cu.free_host(h), SUCCESS);
        assert_eq!(cu.free_host(h), INVALID_VALUE, "double free");
        assert_eq!(cu.device_pointer(h, 0).0, INVALID_VALUE, "freed");
    }
}

#[test]
fn copies_and_memsets_act_on_the_host_bytes_of_mapped_blocks() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("mapped-copies");
    let n = 256usize;
    let (r, h) = cu.host_alloc(n * 4, DEVICEMAP);
    assert_eq!(r, SUCCESS);
    let (r, m) = cu.managed(n * 4, ATTACH_GLOBAL);
    assert_eq!(r, SUCCESS);
    let (r, d) = cu.alloc(n * 4);
    assert_eq!(r, SUCCESS);
    let src: Vec<u32> = (0..n as u32).map(|i| i * i).collect();
    let htod = cu.f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>("cuMemcpyHtoD_v2");
    let dtoh = cu.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2");
    let memcpy = cu.f::<unsafe extern "C" fn(u64, u64, usize) -> u32>("cuMemcpy");
    let memcpy_async = cu.f::<unsafe extern "C" fn(u64, u64, usize, H) -> u32>("cuMemcpyAsync");
    let memset32 = cu.f::<unsafe extern "C" fn(u64, u32, usize) -> u32>("cuMemsetD32_v2");
    unsafe {
        // HtoD into a mapped block is visible through the host pointer.
        assert_eq!(htod(h as u64, src.as_ptr() as *const c_void, n * 4), SUCCESS);
        assert_eq!(words(h as u64, n), &src[..]);
        // Any direction by unified addressing: mapped → device → managed.
        assert_eq!(memcpy(d, h as u64, n * 4), SUCCESS);
        assert_eq!(memcpy_async(m, d, n * 4, null_mut()), SUCCESS);
        assert_eq!(words(m, n), &src[..]);
        // A kernel reads the managed block and writes the mapped one.
        cu.plus_seven(m, h as u64, n as u32);
        let want: Vec<u32> = src.iter().map(|x| x + 7).collect();
        assert_eq!(words(h as u64, n), &want[..]);
        // DtoH from a managed block, memset on it, mapped → mapped (overlapping, memmove).
        let mut out = vec![0u32; n];
        assert_eq!(dtoh(out.as_mut_ptr() as *mut c_void, m, n * 4), SUCCESS);
        assert_eq!(out, src);
        assert_eq!(memset32(m + 8, 0xdead_beef, 4), SUCCESS);
        assert_eq!(&words(m, 8)[..], &[src[0], src[1], 0xdead_beef, 0xdead_beef, 0xdead_beef, 0xdead_beef, src[6], src[7]]);
        assert_eq!(memcpy(h as u64 + 4, h as u64, 16), SUCCESS);
        assert_eq!(&words(h as u64, 6)[..], &[want[0], want[0], want[1], want[2], want[3], want[5]]);
        // Out of the block's range.
        assert_eq!(htod(h as u64 + 4, src.as_ptr() as *const c_void, n * 4), INVALID_VALUE);
        // Pageable host memory by unified addressing (cuMemcpy: "infers the
        // type of the transfer ... from the pointer values"), both ways.
        let mut mine = [0u32; 4];
        assert_eq!(memcpy(mine.as_mut_ptr() as u64, d, 16), SUCCESS);
        assert_eq!(mine, [src[0], src[1], src[2], src[3]]);
        let back = [11u32, 22, 33, 44];
        assert_eq!(memcpy_async(d + 16, back.as_ptr() as u64, 16, null_mut()), SUCCESS);
        assert_eq!(memcpy(mine.as_mut_ptr() as u64, d + 16, 16), SUCCESS);
        assert_eq!(mine, back);
        // A freed device pointer is no host memory either.
        let (r, gone) = cu.alloc(64);
        assert_eq!(r, SUCCESS);
        assert_eq!(cu.free(gone), SUCCESS);
        assert_eq!(memcpy(mine.as_mut_ptr() as u64, gone, 16), INVALID_VALUE);
        assert_eq!(memcpy(gone, mine.as_ptr() as u64, 16), INVALID_VALUE);
    }
    assert_eq!(cu.free(m), SUCCESS);
    assert_eq!(cu.free(d), SUCCESS);
    assert_eq!(cu.free_host(h), SUCCESS);
}

#[test]
fn a_kernel_reads_and_writes_managed_memory() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("managed");
    assert_eq!(cu.device_attr(83), 1, "MANAGED_MEMORY");
    assert_eq!(cu.device_attr(88), 0, "PAGEABLE_MEMORY_ACCESS");
    assert_eq!(cu.device_attr(89), 0, "CONCURRENT_MANAGED_ACCESS");
    let n = 300usize;
    for flags in [ATTACH_GLOBAL, ATTACH_HOST] {
        let (r, m) = cu.managed(n * 4, flags);
        assert_eq!(r, SUCCESS);
        let a = words(m, n);
        for (i, x) in a.iter_mut().enumerate() {
            *x = (i as u32) << 4;
        }
        cu.twice_plus_one(m, n as u32);
        assert!(a.iter().enumerate().all(|(i, &x)| x == ((i as u32) << 5) + 1), "the host sees the kernel's writes");
        // Advice is accepted; a prefetch to the CPU does nothing, to the
        // device it is refused as the device has no concurrent managed access.
        let advise = cu.f::<unsafe extern "C" fn(u64, usize, i32, i32) -> u32>("cuMemAdvise");
        let prefetch = cu.f::<unsafe extern "C" fn(u64, usize, i32, H) -> u32>("cuMemPrefetchAsync");
        unsafe {
            assert_eq!(advise(m, n * 4, 1, 0), SUCCESS);
            assert_eq!(advise(m, n * 4, 3, -1), SUCCESS);
            assert_eq!(advise(m, n * 4, 7, 0), INVALID_VALUE, "unknown advice");
            assert_eq!(advise(m, n * 4 + 1, 1, 0), INVALID_VALUE, "past the block");
            assert_eq!(prefetch(m, n * 4, -1, null_mut()), SUCCESS);
            assert_eq!(prefetch(m, n * 4, 0, null_mut()), INVALID_DEVICE);
        }
        assert_eq!(cu.free_host(m as usize as H), INVALID_VALUE, "managed memory is freed with cuMemFree");
        assert_eq!(cu.free(m), SUCCESS);
        assert_eq!(cu.free(m), INVALID_VALUE, "double free");
    }
    // Errors: flags other than exactly GLOBAL or HOST, zero size, null.
    for flags in [0, 3, 4] {
        assert_eq!(cu.managed(64, flags).0, INVALID_VALUE, "flags {flags}");
    }
    assert_eq!(cu.managed(0, ATTACH_GLOBAL).0, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u64, usize, u32) -> u32>("cuMemAllocManaged")(null_mut(), 64, ATTACH_GLOBAL) }, INVALID_VALUE);
    // A device allocation is not managed memory to advise.
    let (_, d) = cu.alloc(64);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u64, usize, i32, i32) -> u32>("cuMemAdvise")(d, 64, 1, 0) }, INVALID_VALUE);
}

#[test]
fn a_kernel_reads_and_writes_registered_memory() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("registered");
    let n = 500usize;
    let mut buf: Vec<u32> = (0..n as u32 + 8).collect();
    let p = buf.as_mut_ptr() as H;
    assert_eq!(cu.register(p, n * 4, DEVICEMAP), SUCCESS);
    assert_eq!(cu.device_pointer(p, 0), (SUCCESS, p as u64));
    cu.twice_plus_one(p as u64, n as u32);
    assert!(buf[..n].iter().enumerate().all(|(i, &x)| x == 2 * i as u32 + 1));
    assert_eq!(&buf[n..], &(n as u32..n as u32 + 8).collect::<Vec<_>>()[..], "bytes past the range untouched");
    assert_eq!(cu.unregister(p), SUCCESS);
    assert_eq!(cu.unregister(p), NOT_REGISTERED, "unregistered twice");
    // A range at a 4-byte (not 8-byte) offset, three words long.
    let q = unsafe { (p as *mut u32).add(1) } as H;
    assert_eq!(cu.register(q, 12, 0), SUCCESS);
    let before = buf.clone();
    cu.twice_plus_one(q as u64, 3);
    assert_eq!(buf[0], before[0]);
    assert_eq!(&buf[1..4], &[2 * before[1] + 1, 2 * before[2] + 1, 2 * before[3] + 1]);
    assert_eq!(buf[4], before[4]);
    assert_eq!(cu.register(p, 8, 0), ALREADY_REGISTERED, "overlaps the registered range");
    let mut flags = 0u32;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u32, H) -> u32>("cuMemHostGetFlags")(&mut flags, q) }, INVALID_VALUE, "not allocated by cuMemHostAlloc");
    assert_eq!(cu.unregister(q), SUCCESS);
    // Read-only: the kernel reads it; its writes are not copied back.
    let mut ro: Vec<u32> = vec![5; 64];
    let (r, d) = cu.alloc(64 * 4);
    assert_eq!(r, SUCCESS);
    assert_eq!(cu.register(ro.as_mut_ptr() as H, 256, 8), SUCCESS);
    cu.plus_seven(ro.as_ptr() as u64, d, 64);
    let mut out = vec![0u32; 64];
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(out.as_mut_ptr() as *mut c_void, d, 256) }, SUCCESS);
    assert!(out.iter().all(|&x| x == 12));
    cu.twice_plus_one(ro.as_ptr() as u64, 64);
    assert!(ro.iter().all(|&x| x == 5), "a read-only registration is never written");
    assert_eq!(cu.unregister(ro.as_mut_ptr() as H), SUCCESS);
    // Errors: never registered, null, IOMEMORY.
    let mut other = [0u8; 64];
    assert_eq!(cu.unregister(other.as_mut_ptr() as H), NOT_REGISTERED);
    assert_eq!(cu.unregister(null_mut()), INVALID_VALUE);
    assert_eq!(cu.register(null_mut(), 16, 0), INVALID_VALUE);
    assert_eq!(cu.register(other.as_mut_ptr() as H, 16, 4), NOT_SUPPORTED);
    drop(buf);
}

#[test]
fn pointer_attributes() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("pointer-attrs");
    // cuda.h: CONTEXT=1, MEMORY_TYPE=2, DEVICE_POINTER=3, HOST_POINTER=4,
    // SYNC_MEMOPS=6, BUFFER_ID=7, IS_MANAGED=8, DEVICE_ORDINAL=9,
    // RANGE_START_ADDR=11, RANGE_SIZE=12, MAPPED=13; CU_MEMORYTYPE_HOST=1, DEVICE=2.
    let (_, h) = cu.host_alloc(1000, DEVICEMAP);
    let (_, m) = cu.managed(1000, ATTACH_GLOBAL);
    let (_, d) = cu.alloc(1000);
    let mut reg = vec![0u64; 16];
    assert_eq!(cu.register(reg.as_mut_ptr() as H, 128, 0), SUCCESS);
    let r = reg.as_ptr() as u64;
    let mut ctx: H = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxGetCurrent")(&mut ctx) }, SUCCESS);
    let h = h as u64;
    // (pointer, base, size, memory type, managed, has a host pointer)
    for (p, base, size, ty, managed, host) in [(h + 10, h, 1000, 1u32, 0u32, true), (m + 999, m, 1000, 2, 1, true), (d + 1, d, 1000, 2, 0, false), (r + 64, r, 128, 1, 0, true)] {
        assert_eq!(cu.attr::<usize>(1, p), (SUCCESS, ctx as usize));
        assert_eq!(cu.attr::<u32>(2, p), (SUCCESS, ty), "memory type of {p:#x}");
        assert_eq!(cu.attr::<u64>(3, p), (SUCCESS, p));
        assert_eq!(cu.attr::<u64>(4, p), if host { (SUCCESS, p) } else { (INVALID_VALUE, 0) });
        assert_eq!(cu.attr::<u32>(8, p), (SUCCESS, managed));
        assert_eq!(cu.attr::<i32>(9, p), (SUCCESS, 0));
        assert_eq!(cu.attr::<u64>(11, p), (SUCCESS, base));
        assert_eq!(cu.attr::<usize>(12, p), (SUCCESS, size));
        assert_eq!(cu.attr::<u32>(13, p), (SUCCESS, 1));
        assert_eq!(cu.attr::<u32>(6, p), (SUCCESS, 1));
    }
    // IS_MANAGED writes 4 bytes, no more.
    let mut wide = [0xffu8; 8];
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_void, i32, u64) -> u32>("cuPointerGetAttribute")(wide.as_mut_ptr() as *mut c_void, 8, m) }, SUCCESS);
    assert_eq!(wide, [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
    // Buffer ids differ between live buffers.
    let ids: Vec<u64> = [h, m, d, r].iter().map(|&p| cu.attr::<u64>(7, p).1).collect();
    assert!(ids.iter().enumerate().all(|(i, a)| ids[i + 1..].iter().all(|b| a != b)), "{ids:?}");
    // Outside every range; unknown and unanswered attributes; null data.
    assert_eq!(cu.attr::<u32>(2, d + 1000).0, INVALID_VALUE);
    assert_eq!(cu.attr::<u64>(99, d).0, INVALID_VALUE);
    assert_eq!(cu.attr::<u64>(17, d).0, NOT_SUPPORTED);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut c_void, i32, u64) -> u32>("cuPointerGetAttribute")(null_mut(), 2, d) }, INVALID_VALUE);
    // cuPointerGetAttributes: several at once; zeros for an unknown pointer.
    let get = cu.f::<unsafe extern "C" fn(u32, *const i32, *mut *mut c_void, u64) -> u32>("cuPointerGetAttributes");
    let (mut ty, mut is_managed, mut start, mut sz) = (7u32, 7u32, 7u64, 7usize);
    let attrs = [2, 8, 11, 12];
    let mut data = [&mut ty as *mut u32 as *mut c_void, &mut is_managed as *mut u32 as *mut c_void, &mut start as *mut u64 as *mut c_void, &mut sz as *mut usize as *mut c_void];
    assert_eq!(unsafe { get(4, attrs.as_ptr(), data.as_mut_ptr(), m + 4) }, SUCCESS);
    assert_eq!((ty, is_managed, start, sz), (2, 1, m, 1000));
    assert_eq!(unsafe { get(4, attrs.as_ptr(), data.as_mut_ptr(), 0x10) }, SUCCESS);
    assert_eq!((ty, is_managed, start, sz), (0, 0, 0, 0));
    assert_eq!(unsafe { get(1, [99].as_ptr(), data.as_mut_ptr(), m) }, INVALID_VALUE);
    assert_eq!(unsafe { get(1, null_mut(), data.as_mut_ptr(), m) }, INVALID_VALUE);
    assert_eq!(cu.unregister(reg.as_mut_ptr() as H), SUCCESS);
    // After the free, the attributes are gone.
    assert_eq!(cu.free(m), SUCCESS);
    assert_eq!(cu.attr::<u32>(8, m).0, INVALID_VALUE);
}

#[test]
fn frees_of_foreign_and_freed_pointers_are_errors() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("mapped-errors");
    let (_, h) = cu.host_alloc(64, DEVICEMAP);
    let (_, m) = cu.managed(64, ATTACH_GLOBAL);
    let mut mine = [0u8; 64];
    assert_eq!(cu.free(h as u64), INVALID_VALUE, "pinned memory is freed with cuMemFreeHost");
    assert_eq!(cu.free(m + 8), INVALID_VALUE, "interior pointer");
    assert_eq!(cu.free(mine.as_mut_ptr() as u64), INVALID_VALUE, "foreign");
    assert_eq!(cu.free_host(mine.as_mut_ptr() as H), INVALID_VALUE, "foreign");
    assert_eq!(cu.free_host(null_mut()), SUCCESS, "NULL is freed as free(NULL), as a GPU's driver does");
    assert_eq!(cu.device_pointer(mine.as_mut_ptr() as H, 0).0, INVALID_VALUE, "not pinned");
    assert_eq!(cu.device_pointer(h, 1).0, INVALID_VALUE, "flags must be 0");
    assert_eq!(cu.device_pointer(m as usize as H, 0).0, INVALID_VALUE, "managed, not pinned");
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u64, H, u32) -> u32>("cuMemHostGetDevicePointer_v2")(null_mut(), h, 0) }, INVALID_VALUE);
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u32, H) -> u32>("cuMemHostGetFlags")(null_mut(), h) }, INVALID_VALUE);
    assert_eq!(cu.free_host(h), SUCCESS);
    assert_eq!(cu.free(m), SUCCESS);
    // A freed block's memory can come back for a new block.
    let (r, h2) = cu.host_alloc(64, DEVICEMAP);
    assert_eq!(r, SUCCESS);
    cu.twice_plus_one(h2 as u64, 16);
    assert!(words(h2 as u64, 16).iter().all(|&x| x == 1));
    assert_eq!(cu.free_host(h2), SUCCESS);
}

/// Resident set size of this process in bytes (`/proc/self/statm`).
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: u64 = s.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("statm resident field");
    pages * 4096
}

#[test]
fn alloc_free_cycles_do_not_grow_resident_memory() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("mapped-rss");
    const SIZE: usize = 64 << 10;
    const CYCLES: usize = 10_000;
    let memset = cu.f::<unsafe extern "C" fn(u64, u8, usize) -> u32>("cuMemsetD8_v2");
    let managed_cycle = |i: usize| {
        let (r, m) = cu.managed(SIZE, ATTACH_GLOBAL);
        assert_eq!(r, SUCCESS);
        // Touch every page so a leaked block would be resident.
        let b = unsafe { std::slice::from_raw_parts_mut(m as usize as *mut u8, SIZE) };
        for k in (0..SIZE).step_by(4096) {
            b[k] = i as u8 | 1;
        }
        assert_eq!(cu.free(m), SUCCESS);
    };
    let device_cycle = |i: usize| {
        let (r, d) = cu.alloc(SIZE);
        assert_eq!(r, SUCCESS);
        assert_eq!(unsafe { memset(d, i as u8 | 1, SIZE) }, SUCCESS);
        assert_eq!(cu.free(d), SUCCESS);
    };
    for (name, cycle) in [("cuMemAllocManaged", &managed_cycle as &dyn Fn(usize)), ("cuMemAlloc", &device_cycle)] {
        for i in 0..100 {
            cycle(i);
        }
        let before = rss();
        for i in 0..CYCLES {
            cycle(i);
        }
        let grew = rss().saturating_sub(before);
        // A leak of even one page per cycle would be 40 MB.
        assert!(grew < 16 << 20, "{name}: {CYCLES} cycles of {SIZE} bytes grew the resident set by {grew} bytes");
    }
}

/// A host thread writes a mapped block while another thread's launch runs
/// (a producer filling pinned staging buffers beside a launching thread).
/// The launch must give back only what its kernel wrote: the block it
/// never touched keeps the host's new bytes, and the block it updated has
/// the kernel's results (formerly every byte that differed from the
/// engine's copy went back, undoing the host's writes).
#[test]
fn host_writes_during_a_launch_are_not_undone() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cu = Cuda::new("host-writes-during-launch");
    let n = 1usize << 20;
    let (r, a) = cu.host_alloc(n * 4, DEVICEMAP);
    assert_eq!(r, SUCCESS);
    let (r, b) = cu.host_alloc(4096 * 4, DEVICEMAP);
    assert_eq!(r, SUCCESS);
    let (a, b) = (a as u64, b as u64);
    for (i, x) in words(a, n).iter_mut().enumerate() {
        *x = i as u32;
    }
    let mut ctx = null_mut();
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H) -> u32>("cuCtxGetCurrent")(&mut ctx) }, SUCCESS);
    let ctx = ctx as usize;
    let done = std::sync::atomic::AtomicBool::new(false);
    let mut overlapped = 0;
    for _round in 0..3 {
        done.store(false, std::sync::atomic::Ordering::SeqCst);
        words(b, 4096).fill(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx as H) }, SUCCESS);
                cu.twice_plus_one(a, n as u32);
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            });
            std::thread::sleep(std::time::Duration::from_millis(5));
            words(b, 4096).fill(77);
            if !done.load(std::sync::atomic::Ordering::SeqCst) {
                overlapped += 1;
            }
        });
        assert!(words(b, 4096).iter().all(|&x| x == 77), "the host's writes to a block the kernel never touched were undone");
    }
    // Each of the three launches maps x to 2x + 1.
    assert!(words(a, n).iter().enumerate().all(|(i, &x)| x == (i as u32).wrapping_mul(8).wrapping_add(7)), "the kernel's results reach the host");
    // (The host's write fell inside a launch at least once on any machine
    // that takes over 5 ms for a million-thread launch; if none did, the
    // test checked only the sequential case.)
    eprintln!("host writes during a launch: {overlapped} of 3");
    assert_eq!(cu.free_host(a as H), SUCCESS);
    assert_eq!(cu.free_host(b as H), SUCCESS);
}
