//! The driver's state and the guard every exported function runs in.
//!
//! Owns: the registries (contexts, allocations, modules and libraries,
//! functions and kernels, streams, events, link sessions)
//! behind one mutex, the engine [`Device`] behind a read-write lock, the
//! per-thread context stack, handle encoding, and [`entry`] (panic
//! catching, the not-initialised check, the call log).
//!
//! Invariants:
//! - Lock order: [`STATE`] before [`DEVICE`]; a launch holds only a read lock
//!   of [`DEVICE`], so registry calls from other threads never wait for it.
//! - A handle is `(tag << 56) | serial`, serials never reused: a freed or
//!   foreign handle is simply absent from its registry.
//! - Every device byte range a host copy may touch is in [`State::ranges`]
//!   (live allocations, the `.global` variables of loaded modules, and
//!   host memory mapped at its own address: pinned, registered, managed); a
//!   freed allocation goes back to the engine (`Device::free`), a freed
//!   host block to the host ([`crate::hostmap`]).

use crate::types::*;
use ptxsim_exec::{Device, Limits, Module};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, Once, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Handle tags (the top byte of a handle). Bit 63 stays clear: Python
/// clients (cuda-bindings, cuda.core) read a handle as a signed `intptr_t`
/// and refuse a negative one.
pub const TAG_CTX: u64 = 0x41;
pub const TAG_MODULE: u64 = 0x42;
pub const TAG_FUNCTION: u64 = 0x43;
pub const TAG_STREAM: u64 = 0x44;
pub const TAG_LIBRARY: u64 = 0x45;
pub const TAG_KERNEL: u64 = 0x46;
pub const TAG_LINK: u64 = 0x47;
pub const TAG_EVENT: u64 = 0x48;

/// Set by `cuInit`.
pub static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Set in the child of a `fork` after `cuInit` (a `pthread_atfork` handler
/// that `cuInit` registers). As with NVIDIA's driver, a driver initialised
/// before the fork is unusable in the child: every call that needs
/// initialisation, and `cuInit` itself, fails with
/// CUDA_ERROR_NOT_INITIALIZED (how Numba detects "CUDA initialized before
/// forking"). The state copied into the child (contexts, device memory)
/// is never used there, so a lock held by another thread at the fork
/// cannot hang the child.
pub static FORKED: AtomicBool = AtomicBool::new(false);

/// The registries.
pub static STATE: LazyLock<Mutex<State>> = LazyLock::new(|| Mutex::new(State::default()));

/// The engine's device (one, ordinal 0), shared by all contexts so device
/// addresses are unique process-wide (unified addressing).
pub static DEVICE: LazyLock<RwLock<Device>> = LazyLock::new(|| RwLock::new(Device::with_limits(Limits::default())));

thread_local! {
    /// This thread's context stack; the top is the current context.
    pub static STACK: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A context.
#[derive(Debug, Default)]
pub struct Context {
    pub primary: bool,
    /// The first launch failure, returned by every later call on the context
    /// until it is destroyed or (primary) reset.
    pub sticky: Option<CUresult>,
}

/// What a device range is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeKind {
    /// A `cuMemAlloc` allocation of a context.
    Alloc { ctx: u64 },
    /// A `.global` variable of a loaded module.
    Global { module: u64 },
    /// Page-locked host memory of a context, allocated or registered
    /// (its details in [`State::host`]), mapped at its own address.
    /// `id` is its `CU_POINTER_ATTRIBUTE_BUFFER_ID` (host addresses may be
    /// reused, ids are not).
    Host { ctx: u64, id: u64 },
    /// A `cuMemAllocManaged` block of a context (host memory mapped at its
    /// own address) with its attach flags and buffer id.
    Managed { ctx: u64, flags: u32, id: u64 },
}

#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub size: u64,
    pub kind: RangeKind,
}

/// A loaded module.
#[derive(Debug)]
pub struct LoadedModule {
    pub ctx: u64,
    pub module: Module,
    /// The module's `.global` variables: name → (address, size).
    pub globals: HashMap<String, (u64, u64)>,
    /// Function handles handed out, by kernel name.
    pub functions: HashMap<String, u64>,
    /// The register cap the image was linked with (`CU_JIT_MAX_REGISTERS`),
    /// which `CU_FUNC_ATTRIBUTE_NUM_REGS` respects.
    pub max_registers: Option<u32>,
    /// The image's `.target` as `CU_FUNC_ATTRIBUTE_PTX_VERSION` gives it
    /// (`module::ptx_arch`).
    pub ptx_arch: Option<i32>,
    /// The device allocations standing for the module's `.const` variables
    /// (address, offset in the constant bank, size), copied into the bank
    /// before each launch (`module::sync_consts`).
    pub const_shadows: Vec<(u64, u64, u64)>,
}

/// A kernel handle.
#[derive(Debug, Clone)]
pub struct Function {
    pub module: u64,
    pub name: String,
    /// Parameter sizes in bytes, in order.
    pub params: Vec<u32>,
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` when set (default:
    /// 48 KiB less the static shared memory).
    pub max_dynamic_shared: Option<u32>,
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT` (a hint; -1 is
    /// the default).
    pub carveout: i32,
    /// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`: clusters of
    /// up to 16 CTAs rather than the portable 8.
    pub non_portable_cluster: bool,
    /// `CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE` (a hint:
    /// 0 default, 1 spread, 2 load balancing).
    pub cluster_policy: i32,
}

impl Function {
    /// The most CTAs a cluster of this function may have: 8 (the portable
    /// size of sm_90), 16 once non-portable sizes are allowed (the sm_90
    /// hardware limit).
    pub fn max_cluster_ctas(&self) -> u64 {
        if self.non_portable_cluster {
            16
        } else {
            8
        }
    }
}

/// A `cuLink*` session: the PTX inputs added so far, the image made by
/// `cuLinkComplete` (kept until `cuLinkDestroy`), and the caller's error
/// log buffer (`CU_JIT_ERROR_LOG_BUFFER`), if given.
#[derive(Debug, Default)]
pub struct Link {
    pub inputs: Vec<(String, String)>,
    /// libcudadevrt was added (`CU_JIT_INPUT_LIBRARY`).
    pub devrt: bool,
    pub image: Option<Vec<u8>>,
    pub error_log: Option<(usize, usize)>,
    /// `CU_JIT_MAX_REGISTERS` given to `cuLinkCreate`, recorded in the image.
    pub max_registers: Option<u32>,
}

/// An event: its context, creation flags and the host time of its last
/// record.
#[derive(Debug)]
pub struct Event {
    pub ctx: u64,
    pub flags: u32,
    pub recorded: Option<std::time::Instant>,
}

/// A page-locked host block: its size, context, whether this library
/// allocated it (`cuMemHostAlloc`) or only registered it, and the flags
/// it was allocated or registered with.
#[derive(Debug, Clone, Copy)]
pub struct HostBlock {
    pub size: usize,
    pub ctx: u64,
    pub owned: bool,
    pub flags: u32,
}

#[derive(Debug, Default)]
pub struct State {
    serial: u64,
    /// Compute capability reported (`PTXSIM_CC`, default 8.0).
    pub cc: (i32, i32),
    /// Scheduling forced by `PTXSIM_SCHEDULING=stack|its` (`None`: ITS
    /// from compute capability 7.0 on, else the reconvergence stack).
    pub scheduling: Option<ptxsim_exec::Scheduling>,
    /// Engine worker threads per launch (`PTXSIM_THREADS=N`; `None`: one
    /// per core).
    pub threads: Option<usize>,
    /// Wall-clock limit of each launch set by `PTXSIM_TIMEOUT=SECONDS`
    /// (`Some(None)`: 0, no limit; `None`: the engine's `DEFAULT_TIMEOUT`,
    /// 60 s).
    pub timeout: Option<Option<std::time::Duration>>,
    /// Warp-instruction budget of each launch set by `PTXSIM_FUEL=N`
    /// (`None`: the engine's `DEFAULT_FUEL`, 10^9).
    pub fuel: Option<u64>,
    pub contexts: HashMap<u64, Context>,
    /// The primary context's handle (created on first retain, kept after).
    pub primary: Option<u64>,
    pub primary_refs: u32,
    /// Device ranges a host copy may touch, by base address.
    pub ranges: BTreeMap<u64, Range>,
    /// Bytes of live `cuMemAlloc` and `cuMemAllocManaged` allocations.
    pub allocated: u64,
    pub modules: HashMap<u64, LoadedModule>,
    pub functions: HashMap<u64, Function>,
    /// Created streams and their contexts.
    pub streams: HashMap<u64, u64>,
    /// Link sessions (context-independent).
    pub links: HashMap<u64, Link>,
    pub events: HashMap<u64, Event>,
    /// Page-locked host blocks, by base address.
    pub host: BTreeMap<usize, HostBlock>,
}

impl State {
    /// A fresh handle with `tag`.
    pub fn handle(&mut self, tag: u64) -> u64 {
        self.serial += 1;
        (tag << 56) | self.serial
    }

    /// The current context of this thread, validated, without the sticky
    /// error check.
    pub fn current_any(&self) -> Result<u64, CUresult> {
        let top = STACK.with(|s| s.borrow().last().copied()).ok_or(CUDA_ERROR_INVALID_CONTEXT)?;
        if self.contexts.contains_key(&top) {
            Ok(top)
        } else {
            Err(CUDA_ERROR_CONTEXT_IS_DESTROYED)
        }
    }

    /// The current context, failing with its sticky error if it has one.
    pub fn current(&self) -> Result<u64, CUresult> {
        let c = self.current_any()?;
        match self.contexts[&c].sticky {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }

    /// Checks that `stream` may be used in context `ctx`: the null, legacy
    /// and per-thread streams always, a created one only in its context.
    pub fn check_stream(&self, stream: u64, ctx: u64) -> Result<(), CUresult> {
        match stream {
            0 | STREAM_LEGACY | STREAM_PER_THREAD => Ok(()),
            s if self.streams.get(&s) == Some(&ctx) => Ok(()),
            _ => Err(CUDA_ERROR_INVALID_HANDLE),
        }
    }

    /// The device range holding `[addr, addr+len)`: (base, range).
    pub fn range(&self, addr: u64, len: u64) -> Option<(u64, Range)> {
        let (&base, &r) = self.ranges.range(..=addr).next_back()?;
        let end = addr.checked_add(len)?;
        (end <= base + r.size).then_some((base, r))
    }

    /// Frees every allocation of `ctx` (back to the engine), and unloads its
    /// modules and destroys its streams.
    pub fn release_resources(&mut self, ctx: u64) {
        let mine: Vec<(u64, Range)> = self
            .ranges
            .iter()
            .filter(|(_, r)| matches!(r.kind, RangeKind::Alloc { ctx: c } | RangeKind::Managed { ctx: c, .. } if c == ctx))
            .map(|(b, r)| (*b, *r))
            .collect();
        for (base, r) in mine {
            self.ranges.remove(&base);
            self.allocated -= r.size;
            if let RangeKind::Managed { .. } = r.kind {
                crate::hostmap::release(base, r.size);
            } else {
                let _ = device_write().free(base);
            }
        }
        let mods: Vec<u64> = self.modules.iter().filter(|(_, m)| m.ctx == ctx).map(|(h, _)| *h).collect();
        for m in mods {
            self.unload(m);
        }
        self.streams.retain(|_, c| *c != ctx);
        self.events.retain(|_, e| e.ctx != ctx);
        crate::host::release_context(self, ctx);
        // The device heap (`malloc`) and its blocks go with the context; the
        // engine has one heap, kept while any loaded module still uses it.
        if !self.modules.values().any(|m| m.module.uses_heap()) {
            device_write().release_heap();
        }
    }

    /// Forgets module `m`, its functions and its variables' ranges.
    pub fn unload(&mut self, m: u64) -> bool {
        let Some(lm) = self.modules.remove(&m) else { return false };
        for f in lm.functions.values() {
            self.functions.remove(f);
        }
        for (base, _) in lm.globals.values() {
            self.ranges.remove(base);
            crate::hostmap::unadopt(*base);
        }
        true
    }
}

/// Locks the registries (a poisoned lock is still usable: every update
/// keeps the state consistent before anything can panic).
pub fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn device_read() -> RwLockReadGuard<'static, Device> {
    DEVICE.read().unwrap_or_else(|e| e.into_inner())
}

pub fn device_write() -> RwLockWriteGuard<'static, Device> {
    DEVICE.write().unwrap_or_else(|e| e.into_inner())
}

/// Encodes a handle for C.
pub fn to_ptr(h: u64) -> Handle {
    h as usize as Handle
}

/// Decodes a C handle.
pub fn from_ptr(p: Handle) -> u64 {
    p as usize as u64
}

/// Writes `v` through the out-pointer `p`, or fails with INVALID_VALUE when
/// it is null.
///
/// # Safety
/// `p` is null or valid for a write of `T` (the caller's contract).
pub unsafe fn put<T>(p: *mut T, v: T) -> Result<(), CUresult> {
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    p.write_unaligned(v);
    Ok(())
}

/// Fails with NOT_INITIALIZED before `cuInit`, and in the child of a fork
/// after it ([`FORKED`]).
pub fn initialized() -> Result<(), CUresult> {
    if INITIALIZED.load(Ordering::Acquire) && !FORKED.load(Ordering::Relaxed) {
        Ok(())
    } else {
        Err(CUDA_ERROR_NOT_INITIALIZED)
    }
}

static SILENT_PANICS: Once = Once::new();

thread_local! {
    /// Whether this thread is inside [`entry`] (its panics are not printed).
    static IN_ENTRY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Clears [`IN_ENTRY`] when the call ends, unwinding included.
struct InEntry(bool);

impl Drop for InEntry {
    fn drop(&mut self) {
        IN_ENTRY.with(|c| c.set(self.0));
    }
}

/// Runs the body of exported function `name`: checks `cuInit` was called
/// (unless `needs_init` is false), catches a panic (CUDA_ERROR_UNKNOWN) and
/// logs the call when `PTXSIM_LOG=1`.
pub fn entry(name: &str, needs_init: bool, f: impl FnOnce() -> Result<(), CUresult>) -> CUresult {
    // A panic inside a driver call is not printed (its result says it);
    // other panics (a Rust program linking the rlib) keep the previous hook.
    SILENT_PANICS.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_ENTRY.with(|c| c.get()) {
                previous(info);
            }
        }));
    });
    let _guard = InEntry(IN_ENTRY.with(|c| c.replace(true)));
    let r = catch_unwind(AssertUnwindSafe(|| {
        if needs_init {
            initialized()?;
        }
        f()
    }));
    let code = match r {
        Ok(Ok(())) => CUDA_SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => CUDA_ERROR_UNKNOWN,
    };
    if crate::report::logging() {
        let n = error_name(code).map(|c| c.to_string_lossy().into_owned()).unwrap_or_else(|| code.to_string());
        crate::report::log(&format!("{name} -> {n}"));
    }
    code
}
