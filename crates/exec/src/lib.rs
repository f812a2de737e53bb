//! ptxsim-exec: the SIMT engine.
//!
//! It owns the host API ([`Device`], [`Module`], [`LaunchConfig`],
//! [`KernelArg`], [`RunError`]), the decoder from the checked AST to a flat
//! register-machine [`program::Program`] (`decode/`), what atomics
//! compute (`atomics`, on top of the pure lane-wise semantics of
//! `ptxsim-sem`, the reference its lane kernels are tested against),
//! memory (`memory`), warp state
//! (`warp`), the data path (`datapath`: one data-flow instruction for a
//! warp under a mask, public so another executor loop can call it), the
//! PTX dispatch loop (`exec`), the two scheduling modes
//! (`simt_stack`: a reconvergence stack per warp; `its`: independent thread
//! scheduling), CTA/cluster scheduling (`sched`) with the barrier bookkeeping
//! (`barrier`, public so another executor loop shares it) and the
//! parallel launch (`launch`).
//!
//! Invariants:
//! - No input (module, launch, kernel behaviour) makes the engine panic;
//!   every problem is a [`RunError`] with a [`TrapKind`].
//! - Every run is bounded by fuel (warp instructions, exact whatever the
//!   number of workers), a wall-clock timeout and memory limits.
//! - The library never prints.
//! - No `unsafe` code, except the one call into the hardware-FMA copies of
//!   the float lane kernels after the CPU reported FMA
//!   (`datapath/flanes.rs`, `run!`).

#![deny(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod barrier;
mod atomics;
pub mod datapath;
mod decode;
mod error;
mod exec;
mod fuel;
pub mod heap;
mod its;
mod lanemem;
mod lanes;
mod launch;
mod policy;
mod prefix;
pub mod printf;
pub mod memory;
pub mod program;
mod sched;
mod simt_stack;
mod span;
mod sreg;
pub mod unsupported;
mod warp;

pub use decode::decodes_opcode;
pub use error::{RunError, TrapKind};
pub use launch::MAX_WORKERS;
pub use memory::PlaceError;
pub use printf::{Printed, Stdout, DEFAULT_STDOUT_BYTES};
use std::sync::Arc;

/// Default fuel: 10^9 warp instructions per launch.
pub const DEFAULT_FUEL: u64 = 1_000_000_000;
/// Default wall-clock limit of a launch: a runaway kernel stops within a
/// minute.
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// Default call-depth limit.
pub const DEFAULT_MAX_CALL_DEPTH: u32 = 1024;

/// Three-dimensional sizes (grid, block, cluster).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}

/// How divergent warps are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scheduling {
    /// A per-warp reconvergence stack (pre-Volta).
    #[default]
    Stack,
    /// Independent thread scheduling with per-thread pcs (sm_70+).
    Its,
}

/// A launch configuration.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    /// Thread-block cluster dimensions (`None`: no explicit cluster).
    pub cluster: Option<Dim3>,
    pub dynamic_shared_bytes: u32,
    pub scheduling: Scheduling,
    /// Warp instructions the whole launch may execute. Exact: the launch
    /// fails with `fuel_exhausted` only when it executed this many and needs
    /// more, whatever the number of worker threads.
    pub fuel: u64,
    /// Wall-clock limit of the launch (`None`: none); past it the launch
    /// stops with `timeout`. Default [`DEFAULT_TIMEOUT`].
    pub timeout: Option<std::time::Duration>,
    pub max_call_depth: u32,
    /// Worker threads (`None`: one per core). At most one per cluster and
    /// [`MAX_WORKERS`] are started.
    pub threads: Option<usize>,
    /// Where the launch counts the CTAs it finished, for a progress display.
    pub progress: Option<Arc<Progress>>,
    /// Most bytes of `printf` and assertion output kept (default
    /// [`DEFAULT_STDOUT_BYTES`], CUDA's printf buffer); the rest is counted
    /// in [`Printed::dropped`].
    pub stdout_bytes: u64,
    /// Where `printf` writes. `None`: [`Device::launch`] collects it and
    /// returns it in [`LaunchStats::stdout`] (or [`RunError::stdout`]).
    pub stdout: Option<Arc<Stdout>>,
    /// A cooperative launch (`cuLaunchCooperativeKernel`): every CTA of the
    /// grid is resident at once (they run together on one worker, at most
    /// [`MAX_COOPERATIVE_CTAS`]), and the grid-wide barrier of
    /// libcudadevrt's `cudaCGSynchronize` joins them all.
    pub cooperative: bool,
    /// A cooperative launch's grid workspace: the address of 8 zeroed bytes
    /// of global memory (a size word, left 0 here, then the barrier word
    /// that nvcc's inline grid sync counts on), which `%envreg1`:`%envreg2` hold and
    /// `cudaCGGetIntrinsicHandle` returns. Required when `cooperative`
    /// ([`Device::launch_cooperative`] allocates one); ignored otherwise.
    pub grid_workspace: u64,
}

/// The most CTAs a cooperative launch runs (all resident at once).
pub const MAX_COOPERATIVE_CTAS: u64 = 4096;

/// The bytes of a cooperative launch's grid workspace.
pub const GRID_WORKSPACE_BYTES: u64 = 8;

impl LaunchConfig {
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig {
            grid: grid.into(),
            block: block.into(),
            cluster: None,
            dynamic_shared_bytes: 0,
            scheduling: Scheduling::Stack,
            fuel: DEFAULT_FUEL,
            timeout: Some(DEFAULT_TIMEOUT),
            max_call_depth: DEFAULT_MAX_CALL_DEPTH,
            threads: None,
            progress: None,
            stdout_bytes: DEFAULT_STDOUT_BYTES,
            stdout: None,
            cooperative: false,
            grid_workspace: 0,
        }
    }
}

/// A launch's progress, read by another thread while it runs: CTAs
/// finished out of the grid's total. The engine only counts; the caller
/// draws.
#[derive(Debug, Default)]
pub struct Progress {
    done: std::sync::atomic::AtomicU64,
    total: std::sync::atomic::AtomicU64,
}

impl Progress {
    pub fn new() -> Arc<Progress> {
        Arc::new(Progress::default())
    }

    /// CTAs finished (ran to the end or failed) so far.
    pub fn done(&self) -> u64 {
        self.done.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// CTAs in the grid (0 until the launch has started).
    pub fn total(&self) -> u64 {
        self.total.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn start(&self, total: u64) {
        self.done.store(0, std::sync::atomic::Ordering::Relaxed);
        self.total.store(total, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A typed kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    S8(i8),
    S16(i16),
    S32(i32),
    S64(i64),
    F32(f32),
    F64(f64),
    /// A device pointer.
    Ptr(u64),
    /// Raw bytes (a by-value struct parameter).
    Bytes(Vec<u8>),
}

impl KernelArg {
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            KernelArg::U8(v) => v.to_le_bytes().to_vec(),
            KernelArg::U16(v) => v.to_le_bytes().to_vec(),
            KernelArg::U32(v) => v.to_le_bytes().to_vec(),
            KernelArg::U64(v) | KernelArg::Ptr(v) => v.to_le_bytes().to_vec(),
            KernelArg::S8(v) => v.to_le_bytes().to_vec(),
            KernelArg::S16(v) => v.to_le_bytes().to_vec(),
            KernelArg::S32(v) => v.to_le_bytes().to_vec(),
            KernelArg::S64(v) => v.to_le_bytes().to_vec(),
            KernelArg::F32(v) => v.to_le_bytes().to_vec(),
            KernelArg::F64(v) => v.to_le_bytes().to_vec(),
            KernelArg::Bytes(b) => b.clone(),
        }
    }
}

/// Default cap on the memory of a device and its launches: 4 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;
/// Default local memory per thread (and largest frame of one function):
/// 512 KiB, CUDA's limit.
pub const DEFAULT_LOCAL_BYTES_PER_THREAD: u32 = 512 * 1024;

/// Resource limits of a device.
#[derive(Clone, Debug)]
pub struct Limits {
    /// One cap on all the memory the device and a launch use: global
    /// allocations (module variables included), and what each worker of a
    /// launch keeps for its CTAs in flight (shared memory, register files,
    /// local frames). Default [`DEFAULT_MAX_MEMORY`]; `--max-memory`.
    pub max_memory: u64,
    /// A separate cap on global allocations alone (default: none beyond
    /// `max_memory`).
    pub max_device_bytes: u64,
    /// Shared memory per CTA, static plus dynamic.
    pub max_shared_bytes: u32,
    /// Local memory (call frames) per thread, checked for each function's
    /// frame when a module is loaded and for the call chain at run time.
    pub local_bytes_per_thread: u32,
    /// The size of the device heap of `malloc`/`free`
    /// (`CU_LIMIT_MALLOC_HEAP_SIZE`, default [`heap::DEFAULT_HEAP_BYTES`]),
    /// read when the heap is reserved; change it with
    /// [`Device::set_heap_size`], which refuses once the heap is in use.
    pub malloc_heap_bytes: u64,
}

impl Limits {
    /// The cap on global allocations: the smaller of the two.
    pub fn global_cap(&self) -> u64 {
        self.max_memory.min(self.max_device_bytes)
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_memory: DEFAULT_MAX_MEMORY, max_device_bytes: u64::MAX, max_shared_bytes: 228 * 1024, local_bytes_per_thread: DEFAULT_LOCAL_BYTES_PER_THREAD, malloc_heap_bytes: heap::DEFAULT_HEAP_BYTES }
    }
}

/// The emulated device: global memory and limits.
#[derive(Debug)]
pub struct Device {
    pub(crate) mem: memory::GlobalMemory,
    pub limits: Limits,
    /// What each module variable's allocation is (base → "`.global` variable `x`").
    pub(crate) names: std::collections::HashMap<u64, String>,
}

/// A loaded module: the decoded program, with its globals allocated on the device.
#[derive(Clone, Debug)]
pub struct Module {
    pub program: Arc<program::Program>,
    consts: Arc<Vec<u8>>,
    /// Addresses of the module's `.global` variables.
    pub globals: Vec<(String, u64)>,
    /// Whether some function calls `malloc` or `free` (the device heap).
    uses_heap: bool,
}

impl Module {
    /// Whether the module calls the device `malloc` or `free`: loading it
    /// reserved the device heap, and launching any of its kernels fixes the
    /// heap's size ([`Device::set_heap_size`]).
    pub fn uses_heap(&self) -> bool {
        self.uses_heap
    }

    /// Names of the kernels (`.entry` functions with a body).
    pub fn kernels(&self) -> Vec<&str> {
        self.program.functions.iter().filter(|f| f.is_kernel && f.defined).map(|f| f.name.as_str()).collect()
    }

    /// Kernel parameter sizes in bytes, if `name` is a kernel.
    pub fn kernel_params(&self, name: &str) -> Option<Vec<u32>> {
        self.program
            .functions
            .iter()
            .find(|f| f.is_kernel && f.defined && f.name == name)
            .map(|f| f.kparams.iter().map(|p| p.1).collect())
    }
}

/// One branch's divergence count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchStat {
    pub function: String,
    pub line: u32,
    pub count: u64,
}

/// What a launch did.
#[derive(Clone, Debug, Default)]
pub struct LaunchStats {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// Divergence events (a branch, `brx.idx` or indirect call whose lanes split).
    pub divergent_branches: u64,
    /// The branches that diverged, most often first.
    pub branches: Vec<BranchStat>,
    /// What the kernel printed (`printf`), when the launch collected it
    /// ([`LaunchConfig::stdout`] is `None`).
    pub stdout: Printed,
}

impl LaunchStats {
    pub fn simt_efficiency(&self) -> f64 {
        if self.warp_instructions == 0 {
            1.0
        } else {
            self.thread_instructions as f64 / (self.warp_instructions as f64 * 32.0)
        }
    }

    fn from_stats(s: &warp::Stats, prog: &program::Program) -> LaunchStats {
        let mut branches: Vec<BranchStat> = s
            .divergence
            .iter()
            .map(|((f, pc), c)| {
                let func = &prog.functions[*f as usize];
                BranchStat { function: func.name.clone(), line: func.code.get(*pc as usize).map(|i| i.line).unwrap_or(0), count: *c }
            })
            .collect();
        branches.sort_by(|a, b| b.count.cmp(&a.count).then(a.line.cmp(&b.line)).then(a.function.cmp(&b.function)));
        LaunchStats {
            warp_instructions: s.warp_instructions,
            thread_instructions: s.thread_instructions,
            divergent_branches: s.divergent_branches,
            branches,
            stdout: Printed::default(),
        }
    }
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

impl Device {
    pub fn new() -> Device {
        Device::with_limits(Limits::default())
    }

    pub fn with_limits(limits: Limits) -> Device {
        Device { mem: memory::GlobalMemory::new(), limits, names: Default::default() }
    }

    /// Parses, checks and decodes a module, and allocates its `.global` variables.
    /// `name` is used in rendered diagnostics. A module loaded alone is a
    /// whole program, as `ptxas` without `-c` sees it: a called `.extern`
    /// function needs its definition in the module.
    pub fn load_named(&mut self, name: &str, src: &str) -> Result<Module, RunError> {
        self.load_modules(&[(name, src)], false, false)
    }

    /// Links separately compiled modules as nvlink does (`nvcc -rdc`): each
    /// module is parsed and checked as relocatable code (`ptxas -c`), then
    /// the `.extern` functions and `.global`/`.const` variables of each are
    /// resolved against another's `.visible` definition (or else its first
    /// `.weak` one). Two `.visible` definitions of a name, a called
    /// function or a variable that no module defines, and a declaration
    /// that does not match its definition (parameters, or a variable's
    /// size) are a `load_error` naming the files and lines. `modules`:
    /// (name, text) pairs; names without a linkage stay private to their
    /// module.
    pub fn load_linked(&mut self, modules: &[(&str, &str)]) -> Result<Module, RunError> {
        self.load_modules(modules, true, false)
    }

    /// As [`Device::load_linked`], with libcudadevrt (the CUDA device
    /// runtime library) linked in: a call of its cooperative-groups
    /// functions (`cudaCGGetIntrinsicHandle`, `cudaCGSynchronize`,
    /// `cudaCGSynchronizeGrid`, `cudaCGGetSize`, `cudaCGGetRank`, declared
    /// `.extern .func` without a body) runs the engine's own: the handle is
    /// the grid workspace's address in a cooperative launch
    /// ([`LaunchConfig::cooperative`]) and 0 in any other, and
    /// synchronizing waits at the grid-wide barrier. Without it such a call
    /// is to a function with no body, as a module that does not link the
    /// library is.
    pub fn load_linked_devrt(&mut self, modules: &[(&str, &str)]) -> Result<Module, RunError> {
        self.load_modules(modules, true, true)
    }

    /// nvlink's symbol check over separately compiled modules, without
    /// decoding or allocating anything: the problems [`Device::load_linked`]
    /// would report (duplicate definitions, undefined references,
    /// prototype and size mismatches), one per line. Modules with syntax or
    /// check errors are left out (their own diagnostics say why).
    pub fn link_problems(modules: &[(&str, &str)]) -> Result<(), String> {
        let mut parsed = Vec::with_capacity(modules.len());
        let mut called = Vec::with_capacity(modules.len());
        let mut kept = Vec::with_capacity(modules.len());
        for &(name, src) in modules {
            let p = ptxsim_syntax::parse(src);
            if p.diagnostics.iter().any(|d| d.is_error()) {
                continue;
            }
            let checked = ptxsim_check::check_module_mode(&p.module, usize::MAX, ptxsim_check::Mode::Relocatable);
            if checked.diagnostics.iter().any(|d| d.is_error()) {
                continue;
            }
            let lines = ptxsim_syntax::LineIndex::new(src);
            called.push(checked.unresolved.iter().map(|(n, s)| (n.clone(), lines.line(s.start))).collect::<Vec<_>>());
            parsed.push(p);
            kept.push((name, src));
        }
        let units: Vec<decode::Unit<'_, '_>> =
            kept.iter().zip(&parsed).map(|(&(name, src), p)| decode::Unit { name, ast: &p.module, lines: ptxsim_syntax::LineIndex::new(src) }).collect();
        decode::link::check(&units, &called)
    }

    fn load_modules(&mut self, modules: &[(&str, &str)], link: bool, devrt: bool) -> Result<Module, RunError> {
        use ptxsim_syntax::ast::{Item, Linkage, StateSpace};
        let mode = if link { ptxsim_check::Mode::Relocatable } else { ptxsim_check::Mode::WholeProgram };
        let mut parsed = Vec::with_capacity(modules.len());
        let mut called = Vec::with_capacity(modules.len());
        for &(name, src) in modules {
            let p = ptxsim_syntax::parse(src);
            let file = ptxsim_syntax::SourceFile::new(name, src);
            if p.diagnostics.iter().any(|d| d.is_error()) {
                return Err(RunError::new(TrapKind::LoadError, file.render(&p.diagnostics, false)));
            }
            let checked = ptxsim_check::check_module_mode(&p.module, usize::MAX, mode);
            if checked.diagnostics.iter().any(|d| d.is_error()) {
                return Err(RunError::new(TrapKind::LoadError, file.render(&checked.diagnostics, false)));
            }
            let lines = ptxsim_syntax::LineIndex::new(src);
            called.push(checked.unresolved.iter().map(|(n, s)| (n.clone(), lines.line(s.start))).collect::<Vec<_>>());
            parsed.push(p);
        }
        let units: Vec<decode::Unit<'_, '_>> =
            modules.iter().zip(&parsed).map(|(&(name, src), p)| decode::Unit { name, ast: &p.module, lines: ptxsim_syntax::LineIndex::new(src) }).collect();
        if link {
            decode::link::check(&units, &called).map_err(|m| RunError::new(TrapKind::LoadError, m))?;
        }
        let name = modules.iter().map(|m| m.0).collect::<Vec<_>>().join(", ");
        let limit = self.limits.global_cap();
        let mem = &mut self.mem;
        let mut addrs = Vec::new();
        let mut refused = false;
        let mut alloc = |size: u64, _align: u64| {
            let a = mem.alloc(size, limit);
            refused |= a.is_none();
            addrs.extend(a);
            a
        };
        let decoded = decode::decode_units(&units, link, devrt, &mut alloc);
        let (prog, inits) = match decoded {
            Ok(d) => d,
            Err(m) if refused => {
                return Err(RunError::new(
                    TrapKind::OutOfMemory,
                    format!("{name}: {m}: {} bytes of global memory are allocated and the limit is {limit} bytes (--max-memory)", self.mem.total),
                ))
            }
            Err(m) if link => return Err(RunError::new(TrapKind::LoadError, m)),
            Err(m) => return Err(RunError::new(TrapKind::LoadError, format!("{name}: {m}"))),
        };
        // Module variables are allocated in declaration order (an `.extern`
        // one, when linking, is another module's).
        let vars = parsed.iter().flat_map(|p| p.module.items.iter()).filter_map(|i| match i {
            Item::Var(v) if v.space.value == StateSpace::Global && !(link && v.linkage.map(|l| l.value) == Some(Linkage::Extern)) => Some(v),
            _ => None,
        });
        let names: Vec<String> = vars.flat_map(|v| v.declarators.iter().map(|d| d.name.text.to_string())).collect();
        let globals: Vec<(String, u64)> = if names.len() == addrs.len() { names.into_iter().zip(addrs).collect() } else { Vec::new() };
        for (n, a) in &globals {
            self.names.insert(*a, format!("`.global` variable `{n}`"));
        }
        // One limit on local storage, at load as at run time.
        let cap = self.limits.local_bytes_per_thread;
        if let Some(f) = prog.functions.iter().find(|f| f.defined && f.frame_bytes > cap) {
            return Err(RunError {
                function: Some(f.name.clone()),
                line: Some(f.line),
                ..RunError::new(
                    TrapKind::OutOfMemory,
                    format!(
                        "local memory exceeds its limit of {cap} bytes per thread: the frame of `{}` ({} bytes of `.local` and `.param` variables) does not fit",
                        f.name, f.frame_bytes
                    ),
                )
            });
        }
        for (addr, bytes) in &inits {
            if !self.mem.write_bytes(*addr, bytes) {
                return Err(RunError::new(TrapKind::LoadError, "internal: initialiser outside its allocation"));
            }
        }
        // The device heap is reserved when the first module that calls
        // `malloc`/`free` is loaded, as CUDA does.
        let uses_heap = prog.functions.iter().any(|f| f.code.iter().any(|i| matches!(i.op, program::Op::Malloc { .. } | program::Op::Free { .. })));
        if uses_heap {
            if let Err(e) = self.reserve_heap() {
                for (_, a) in &globals {
                    self.names.remove(a);
                    self.mem.free(*a);
                }
                return Err(RunError::new(e.kind, format!("{name}: {}", e.message)));
            }
        }
        let consts = Arc::new(prog.const_init.clone());
        Ok(Module { program: Arc::new(prog), consts, globals, uses_heap })
    }

    pub fn load(&mut self, src: &str) -> Result<Module, RunError> {
        self.load_named("module.ptx", src)
    }

    /// Allocates `bytes` of zeroed global memory; returns its device address.
    pub fn alloc(&mut self, bytes: u64) -> Result<u64, RunError> {
        let cap = self.limits.global_cap();
        self.mem.alloc(bytes, cap).ok_or_else(|| {
            RunError::new(
                TrapKind::OutOfMemory,
                format!("cannot allocate {bytes} bytes of global memory: {} bytes are allocated and the limit is {cap} bytes (--max-memory)", self.mem.total),
            )
        })
    }

    /// Frees an allocation that [`Device::alloc`] returned (not a module's
    /// `.global` variable). Its bytes count against the memory limit no
    /// more; its addresses are never reused, so a kernel that still uses
    /// them traps `out_of_bounds`. Freeing anything else, or twice, is an
    /// error and changes nothing.
    pub fn free(&mut self, addr: u64) -> Result<(), RunError> {
        if let Some(what) = self.names.get(&addr) {
            return Err(RunError::new(TrapKind::InvalidLaunch, format!("{addr:#x} is {what}, not an allocation")));
        }
        if self.mem.free(addr) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::InvalidLaunch, format!("{addr:#x} is not the start of a live allocation (freed already, or never allocated)")))
        }
    }

    /// The device heap's size (`CU_LIMIT_MALLOC_HEAP_SIZE`): the size it
    /// has, or will have when a module that calls `malloc` is loaded.
    pub fn heap_size(&self) -> u64 {
        self.limits.malloc_heap_bytes
    }

    /// Sets the device heap's size. Refused (`invalid_launch`) once a kernel
    /// of a module that calls `malloc`/`free` has been launched, as CUDA
    /// refuses `cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)` then. Before that,
    /// a reserved heap (nothing allocated in it yet) is reserved again with
    /// the new size; `out_of_memory`, with the old size kept, when that does
    /// not fit the memory limit.
    pub fn set_heap_size(&mut self, bytes: u64) -> Result<(), RunError> {
        if self.mem.heap.in_use() {
            return Err(RunError::new(
                TrapKind::InvalidLaunch,
                "the device heap's size cannot change: a kernel that calls `malloc` or `free` has been launched since it was reserved",
            ));
        }
        let old = self.limits.malloc_heap_bytes;
        if self.mem.heap.reservation().is_none() {
            self.limits.malloc_heap_bytes = bytes;
            return Ok(());
        }
        self.release_heap();
        self.limits.malloc_heap_bytes = bytes;
        if let Err(e) = self.reserve_heap() {
            self.limits.malloc_heap_bytes = old;
            self.reserve_heap()?;
            return Err(e);
        }
        Ok(())
    }

    /// Frees the device heap with every block in it (a context going away);
    /// the next module that calls `malloc` reserves it again, and its size
    /// may change until then.
    pub fn release_heap(&mut self) {
        if let Some(base) = self.mem.heap.release() {
            self.names.remove(&base);
            self.mem.free(base);
        }
    }

    /// Readies the device for a module loaded before and loaded again
    /// without decoding (a cache of decoded modules): a module that calls
    /// `malloc`/`free` reserves the device heap, as its first load did.
    /// `out_of_memory` when the heap does not fit.
    pub fn reload(&mut self, module: &Module) -> Result<(), RunError> {
        if module.uses_heap {
            self.reserve_heap()?;
        }
        Ok(())
    }

    /// Reserves the device heap, if not reserved yet: one global
    /// allocation of [`Limits::malloc_heap_bytes`].
    fn reserve_heap(&mut self) -> Result<(), RunError> {
        if self.mem.heap.reservation().is_some() {
            return Ok(());
        }
        let bytes = self.limits.malloc_heap_bytes;
        let cap = self.limits.global_cap();
        let base = self.mem.alloc(bytes, cap).ok_or_else(|| {
            RunError::new(
                TrapKind::OutOfMemory,
                format!(
                    "cannot reserve the device heap of {bytes} bytes (`malloc`): {} bytes of global memory are allocated and the limit is {cap} bytes (--max-memory)",
                    self.mem.total
                ),
            )
        })?;
        self.mem.heap.reserve(base, bytes);
        self.names.insert(base, "the device heap (`malloc`)".to_string());
        Ok(())
    }

    /// Places a zeroed allocation of `size` bytes at address `addr` (host
    /// memory the driver maps at the host's own address): 8-byte aligned,
    /// outside the reserved ranges, overlapping no live allocation, within
    /// the memory limit ([`memory::GlobalMemory::alloc_at`]). Freed with
    /// [`Device::free`]; the address may then be placed again.
    pub fn alloc_at(&mut self, addr: u64, size: u64) -> Result<(), PlaceError> {
        let cap = self.limits.global_cap();
        self.mem.alloc_at(addr, size, cap)
    }

    /// Bytes of global memory allocated (allocations, placed ranges and
    /// module variables).
    pub fn allocated_bytes(&self) -> u64 {
        self.mem.total
    }

    /// Copies host bytes to device memory through a shared reference (the
    /// words are atomics), so it may run while launches hold the device.
    pub fn store(&self, addr: u64, bytes: &[u8]) -> Result<(), RunError> {
        if self.mem.write_bytes(addr, bytes) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::OutOfBounds, format!("host write of {} bytes at {addr:#x} {}", bytes.len(), self.explain(addr, bytes.len() as u64))))
        }
    }

    /// Copies device memory into `out` (no intermediate buffer).
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), RunError> {
        if self.mem.read_into(addr, out) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::OutOfBounds, format!("host read of {} bytes at {addr:#x} {}", out.len(), self.explain(addr, out.len() as u64))))
        }
    }

    /// Copies host bytes to device memory.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), RunError> {
        if self.mem.write_bytes(addr, bytes) {
            Ok(())
        } else {
            Err(RunError::new(TrapKind::OutOfBounds, format!("host write of {} bytes at {addr:#x} {}", bytes.len(), self.explain(addr, bytes.len() as u64))))
        }
    }

    /// Copies device memory back to the host.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, RunError> {
        self.mem
            .read_bytes(addr, len)
            .ok_or_else(|| RunError::new(TrapKind::OutOfBounds, format!("host read of {len} bytes at {addr:#x} {}", self.explain(addr, len))))
    }

    /// Where a host access misses: the nearest allocation and the distance.
    fn explain(&self, addr: u64, len: u64) -> String {
        let global: Vec<(u64, u64, String)> =
            self.mem.allocs.iter().map(|a| (a.base, a.size, self.names.get(&a.base).cloned().unwrap_or_else(|| "a device allocation".to_string()))).collect();
        memory::explain_global(&global, addr, len)
    }

    /// Runs `kernel` of `module` over the grid.
    pub fn launch(&self, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<LaunchStats, RunError> {
        launch::launch(self, module, kernel, cfg, args)
    }

    /// Runs `kernel` as a cooperative launch: allocates a zeroed grid
    /// workspace ([`LaunchConfig::grid_workspace`]), launches with
    /// `cooperative` set, and frees the workspace.
    pub fn launch_cooperative(&mut self, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<LaunchStats, RunError> {
        let ws = self.alloc(GRID_WORKSPACE_BYTES)?;
        let mut c = cfg.clone();
        c.cooperative = true;
        c.grid_workspace = ws;
        let r = launch::launch(self, module, kernel, &c, args);
        let _ = self.free(ws);
        r
    }
}

/// The PTX engine's call path, for executor loops other than the PTX one
/// (the sm_50 machine form in `ptxsim-sass`): the engine's own `call`
/// handler (guard, `.uni`, per-lane function-pointer resolution and their
/// traps), callee frames with the arguments passed, and the return values
/// passed back, so that no other loop copies them.
pub mod callpath {
    use crate::datapath::{DataEnv, Setup, Warp};
    use crate::error::Trap;
    use crate::exec::{run_group, Ctx, Event};
    use crate::program::{FuncId, Op};
    use crate::RunError;

    fn err(t: Trap) -> RunError {
        RunError::new(t.kind, t.message).with_lane(t.lane)
    }

    /// Runs the `call` at `pc` of frame `frame` for the lanes of `mask` with
    /// the PTX engine's handler, and returns the calling lanes grouped by
    /// callee (empty when the guard holds on none). Counts one instruction.
    pub fn groups(setup: &Setup, env: &DataEnv<'_>, shared: &mut [u8], warp: &mut Warp, frame: u32, pc: u32, mask: u32) -> Result<Vec<(FuncId, u32)>, RunError> {
        let epoch = std::sync::atomic::AtomicU64::new(0);
        let ctx = Ctx { prog: &setup.program, global: env.global, kparams: env.kparams, consts: env.consts, geom: env.geom, write_epoch: &epoch, stdout: env.stdout };
        let (mut at, mut budget, mut stats) = (pc, 1u64, crate::warp::Stats::default());
        match run_group(&ctx, env.cta, shared, &mut crate::lanemem::Peers::none(), warp, frame, &mut at, mask, u32::MAX, &mut budget, &mut stats, false).map_err(err)? {
            Event::Call { groups, .. } => Ok(groups),
            _ => Ok(Vec::new()),
        }
    }

    /// Enters `callee` for lanes `mask` from the `call` at `pc` of frame
    /// `caller`: a new frame with the call's arguments passed (call depth and
    /// signature checked as in the PTX engine). Returns the new frame.
    pub fn enter(setup: &Setup, warp: &mut Warp, caller: u32, pc: u32, callee: FuncId, mask: u32) -> Result<u32, RunError> {
        let cf = warp.frames[caller as usize].func;
        let Some(Op::Call { args, rets, .. }) = setup.program.functions[cf as usize].code.get(pc as usize).map(|i| &i.op) else {
            return Err(RunError::new(crate::TrapKind::Unsupported, "internal: not a call instruction"));
        };
        warp.call(&setup.program, setup.geom.max_depth, caller, pc, callee, mask, args, rets.len()).map_err(err)
    }

    /// Passes the return values of frame `callee` back to its caller's
    /// bindings for lanes `mask`.
    pub fn leave(setup: &Setup, warp: &mut Warp, callee: u32, mask: u32) -> Result<(), RunError> {
        warp.pass_rets(&setup.program, callee, mask).map_err(err)
    }
}
