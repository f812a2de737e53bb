//! The decoded-module cache (`module_cache.rs`): a second load of the same
//! text reuses the decoded program; a different text, or different
//! settings, decode anew; `.global` variables stay per load; the cache is
//! bounded and evicts the least recently used entry. The first tests use
//! the library's Rust API in process; the last ones the built library
//! through its C functions, with a private copy each (fresh driver state).

mod common;

use cuda::module::load_text;
use cuda::module_cache::{Cache, Settings, MAX_ENTRIES};
use libloading::Library;
use ptxsim_exec::{Device, Limits};
use std::ffi::{c_char, c_void};
use std::ptr::null_mut;
use std::sync::Arc;

type H = *mut c_void;
const SUCCESS: u32 = 0;

/// `k(p)`: `p[tid] = tid * 3 + C` for one warp, with `C` substituted.
fn kernel(c: u32) -> String {
    format!(
        "
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mad.lo.s32 %r2, %r1, 3, {c};
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}}
"
    )
}

/// `inc()`: adds 1 to the module's `.global` counter `g` (one thread).
const WITH_GLOBAL: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 g;
.visible .entry inc()
{
    .reg .b32 %r<3>;
    ld.global.u32 %r1, [g];
    add.s32 %r2, %r1, 1;
    st.global.u32 [g], %r2;
    ret;
}
";

/// A kernel whose frame holds a 1 KiB `.local` array.
const BIG_FRAME: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry big(.param .u64 p)
{
    .local .align 4 .b8 buf[1024];
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    mov.u64 %rd1, buf;
    mov.u32 %r1, 7;
    st.local.u32 [%rd1], %r1;
    ld.local.u32 %r1, [%rd1];
    ld.param.u64 %rd2, [p];
    st.global.u32 [%rd2], %r1;
    ret;
}
";

fn settings() -> Settings {
    Settings { local_bytes_per_thread: Limits::default().local_bytes_per_thread }
}

fn decode(text: &str) -> ptxsim_exec::Module {
    Device::new().load(text).expect("load")
}

#[test]
fn second_load_of_the_same_text_reuses_the_decoded_program() {
    // A text of its own (the process's cache is shared by the tests).
    let text = kernel(101);
    let mut dev = Device::new();
    let (a, ga) = load_text(&mut dev, &text).expect("first load");
    let (b, gb) = load_text(&mut dev, &text).expect("second load");
    assert!(ga.is_empty() && gb.is_empty());
    assert!(Arc::ptr_eq(&a.program, &b.program), "the second load decoded the text again");
    // A copy of the text (another allocation, same bytes) hits as well.
    let copy = text.clone();
    let (c, _) = load_text(&mut dev, &copy).expect("third load");
    assert!(Arc::ptr_eq(&a.program, &c.program));
    // One byte different: its own program, computing its own constant.
    let other = kernel(102);
    let (d, _) = load_text(&mut dev, &other).expect("other load");
    assert!(!Arc::ptr_eq(&a.program, &d.program));
    let out = dev.alloc(4 * 32).expect("alloc");
    let cfg = ptxsim_exec::LaunchConfig::new(1u32, 32u32);
    for (m, k) in [(&b, 101u32), (&d, 102)] {
        dev.launch(m, "k", &cfg, &[ptxsim_exec::KernelArg::Ptr(out)]).expect("launch");
        let got: Vec<u32> = dev.read(out, 128).expect("read").chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let want: Vec<u32> = (0..32).map(|t| t * 3 + k).collect();
        assert_eq!(got, want);
    }
}

#[test]
fn a_module_with_global_variables_is_never_shared() {
    let mut dev = Device::new();
    let (a, ga) = load_text(&mut dev, WITH_GLOBAL).expect("first load");
    let (b, gb) = load_text(&mut dev, WITH_GLOBAL).expect("second load");
    assert!(!Arc::ptr_eq(&a.program, &b.program));
    let (ia, ib) = (ga["g"], gb["g"]);
    assert_ne!(ia.0, ib.0, "two loads share one `.global` variable");
    assert_eq!((ia.1, ib.1), (4, 4));
    let mut cache = Cache::default();
    assert!(!cache.insert(WITH_GLOBAL, settings(), &a));
    assert!(cache.get(WITH_GLOBAL, settings()).is_none());
}

#[test]
fn settings_are_part_of_the_key() {
    let mut cache = Cache::default();
    let m = decode(BIG_FRAME);
    assert!(cache.insert(BIG_FRAME, settings(), &m));
    assert!(cache.get(BIG_FRAME, settings()).is_some());
    assert!(cache.get(BIG_FRAME, Settings { local_bytes_per_thread: 512 }).is_none());
    // Through the loader: cached under the default limit, the same text is
    // still refused where a thread has only 512 bytes of local memory.
    let mut dev = Device::new();
    load_text(&mut dev, BIG_FRAME).expect("load under the default limit");
    let mut small = Device::with_limits(Limits { local_bytes_per_thread: 512, ..Limits::default() });
    assert!(load_text(&mut small, BIG_FRAME).is_err(), "a cached module bypassed the local memory limit");
}

#[test]
fn bounded_least_recently_used_first() {
    let mut cache = Cache::default();
    let texts: Vec<String> = (0..=MAX_ENTRIES as u32).map(|i| kernel(1000 + i)).collect();
    let mods: Vec<_> = texts.iter().map(|t| decode(t)).collect();
    for i in 0..MAX_ENTRIES {
        assert!(cache.insert(&texts[i], settings(), &mods[i]));
    }
    assert_eq!(cache.stats().0, MAX_ENTRIES);
    // Touch the oldest, so the second oldest is the least recently used.
    assert!(cache.get(&texts[0], settings()).is_some());
    assert!(cache.insert(&texts[MAX_ENTRIES], settings(), &mods[MAX_ENTRIES]));
    assert_eq!(cache.stats().0, MAX_ENTRIES);
    assert!(cache.get(&texts[0], settings()).is_some());
    assert!(cache.get(&texts[1], settings()).is_none(), "the least recently used entry was kept");
    assert!(cache.get(&texts[2], settings()).is_some());
    assert!(cache.get(&texts[MAX_ENTRIES], settings()).is_some());
    let (_, bytes, hits, misses) = cache.stats();
    assert!(bytes >= texts.iter().take(MAX_ENTRIES).map(|t| t.len()).sum::<usize>() - texts[1].len());
    assert_eq!((hits, misses), (4, 1));
}

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

    fn load(&self, ptx: &str) -> H {
        let text = format!("{ptx}\0");
        let mut m = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>("cuModuleLoadData")(&mut m, text.as_ptr() as *const c_void) }, SUCCESS);
        m
    }

    fn function(&self, m: H, name: &str) -> H {
        let name = format!("{name}\0");
        let mut f = null_mut();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>("cuModuleGetFunction")(&mut f, m, name.as_ptr() as *const c_char) }, SUCCESS);
        f
    }

    fn launch(&self, f: H, block: u32, params: &mut [*mut c_void]) {
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        let p = if params.is_empty() { null_mut() } else { params.as_mut_ptr() };
        assert_eq!(unsafe { self.f::<Launch>("cuLaunchKernel")(f, 1, 1, 1, block, 1, 1, 0, null_mut(), p, null_mut()) }, SUCCESS);
    }

    fn global(&self, m: H) -> (u64, usize) {
        let (mut p, mut n) = (0u64, 0usize);
        let name = b"g\0";
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut u64, *mut usize, H, *const c_char) -> u32>("cuModuleGetGlobal_v2")(&mut p, &mut n, m, name.as_ptr() as *const c_char) };
        assert_eq!(r, SUCCESS);
        (p, n)
    }

    fn read_u32(&self, src: u64, n: usize) -> Vec<u32> {
        let mut v = vec![0u32; n];
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(v.as_mut_ptr() as *mut c_void, src, n * 4) };
        assert_eq!(r, SUCCESS);
        v
    }

    fn unload(&self, m: H) {
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuModuleUnload")(m) }, SUCCESS);
    }
}

#[test]
fn driver_loads_of_one_text_keep_their_own_globals() {
    let cu = Cuda::new("cache-globals");
    let (a, b) = (cu.load(WITH_GLOBAL), cu.load(WITH_GLOBAL));
    let (ga, gb) = (cu.global(a), cu.global(b));
    assert_ne!(ga.0, gb.0);
    assert_eq!((ga.1, gb.1), (4, 4));
    // Three increments through the first module, one through the second.
    let fa = cu.function(a, "inc");
    for _ in 0..3 {
        cu.launch(fa, 1, &mut []);
    }
    cu.launch(cu.function(b, "inc"), 1, &mut []);
    assert_eq!(cu.read_u32(ga.0, 1), [3]);
    assert_eq!(cu.read_u32(gb.0, 1), [1]);
}

#[test]
fn driver_cached_module_survives_the_unload_of_its_twin() {
    let cu = Cuda::new("cache-unload");
    let text = kernel(7);
    let (a, b) = (cu.load(&text), cu.load(&text));
    assert_ne!(a, b, "two loads must be two module handles");
    cu.unload(a);
    let mut out = 0u64;
    assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut out, 128) }, SUCCESS);
    let mut arg = out;
    cu.launch(cu.function(b, "k"), 32, &mut [&mut arg as *mut u64 as *mut c_void]);
    assert_eq!(cu.read_u32(out, 32), (0..32).map(|t| t * 3 + 7).collect::<Vec<u32>>());
    // A third load after the unload, from the cache, runs as well.
    let c = cu.load(&text);
    let mut arg = out;
    cu.launch(cu.function(c, "k"), 32, &mut [&mut arg as *mut u64 as *mut c_void]);
    assert_eq!(cu.read_u32(out, 32), (0..32).map(|t| t * 3 + 7).collect::<Vec<u32>>());
}
