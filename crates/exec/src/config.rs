//! The launch and device configuration, as data: what a caller hands the
//! engine (grid and block sizes, scheduling mode, fuel and time limits,
//! typed kernel arguments, device limits) and gets back (launch
//! statistics), and the resolved geometry of a launch and of each CTA that
//! the layers above read ([`Geom`], [`CtaEnv`]). Re-exported at the crate
//! root; no behaviour beyond constructors and accessors.

use crate::stdout::{Printed, Stdout, DEFAULT_STDOUT_BYTES};
use std::sync::Arc;

/// CUDA's default heap size (`CU_LIMIT_MALLOC_HEAP_SIZE`): 8 MiB.
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;

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
    /// [`crate::MAX_WORKERS`] are started.
    pub threads: Option<usize>,
    /// Where the launch counts the CTAs it finished, for a progress display.
    pub progress: Option<Arc<Progress>>,
    /// Most bytes of `printf` and assertion output kept (default
    /// [`DEFAULT_STDOUT_BYTES`], CUDA's printf buffer); the rest is counted
    /// in [`Printed::dropped`].
    pub stdout_bytes: u64,
    /// Where `printf` writes. `None`: [`crate::Device::launch`] collects it and
    /// returns it in [`LaunchStats::stdout`] (or [`crate::RunError::stdout`]).
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
    /// ([`crate::Device::launch_cooperative`] allocates one); ignored otherwise.
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
    pub(crate) done: std::sync::atomic::AtomicU64,
    pub(crate) total: std::sync::atomic::AtomicU64,
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
    /// (`CU_LIMIT_MALLOC_HEAP_SIZE`, default [`DEFAULT_HEAP_BYTES`]),
    /// read when the heap is reserved; change it with
    /// [`crate::Device::set_heap_size`], which refuses once the heap is in use.
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
        Limits { max_memory: DEFAULT_MAX_MEMORY, max_device_bytes: u64::MAX, max_shared_bytes: 228 * 1024, local_bytes_per_thread: DEFAULT_LOCAL_BYTES_PER_THREAD, malloc_heap_bytes: DEFAULT_HEAP_BYTES }
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
}

/// Launch geometry.
#[derive(Clone, Debug)]
pub struct Geom {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Cluster dimensions (1,1,1 without an explicit cluster).
    pub cluster: [u32; 3],
    pub explicit_cluster: bool,
    /// Dynamic shared memory bytes per CTA.
    pub dyn_smem: u32,
    /// Static plus dynamic shared memory bytes per CTA.
    pub total_smem: u32,
    /// Call-depth limit.
    pub max_depth: u32,
    /// Warps per CTA.
    pub nwarps: u32,
    /// A cooperative launch's grid workspace address (0: not a cooperative
    /// launch): `%envreg1`:`%envreg2` and libcudadevrt's grid handle.
    pub grid_workspace: u64,
}

/// One CTA's place in the grid and its cluster (what `%ctaid`,
/// `%clusterid`, `%cluster_ctaid` and `%cluster_ctarank` read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtaEnv {
    pub ctaid: [u32; 3],
    pub cluster_id: [u32; 3],
    pub cluster_ctaid: [u32; 3],
    pub rank: u32,
}
