//! Kernel launch: validates the configuration and arguments, lays out the
//! kernel parameter buffer, splits the grid into clusters (the launch's
//! `--cluster` shape, else the kernel's `.reqnctapercluster`, else one CTA
//! each; `.explicitcluster` and `.maxclusterrank` are enforced) and hands them out in increasing order to
//! worker threads (`crate::workers`), as many as the memory cap allows. Clusters share
//! nothing but global memory. A cooperative launch's grid is one unit of
//! work instead: all its CTAs (at most `MAX_COOPERATIVE_CTAS`) resident on
//! one worker, so that the grid-wide barrier can join them. Once one fails no worker starts another; the
//! error reported is the one of the lowest-numbered failing cluster (see
//! the comment at the dispatch for when that depends on timing).

use crate::error::{RunError, TrapKind};
use ptxsim_syntax::diag::cut_name;
use crate::exec::{CtaEnv, Ctx, Geom};
use crate::fuel::{Fuel, Tank};
use crate::cta::Cta;
use crate::sched::{run_cluster, Shell, Units};
use crate::simt_stack::Stack;
use crate::its::Its;
use crate::warp::{Stats, Warp, NO_FRAME};
use crate::config::{BranchStat, Dim3, KernelArg, LaunchConfig, LaunchStats, Scheduling, GRID_WORKSPACE_BYTES, MAX_COOPERATIVE_CTAS};
use crate::datapath::{DataEnv, Setup};
use crate::stdout::Printed;
use crate::device::{Device, Module};
use crate::memory::{self, MemMap};
use crate::program::{Function, Program};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The most worker threads a launch starts.
pub const MAX_WORKERS: usize = 1024;

/// At most eight names, each cut (`cut_name`), then how many more there are.
pub(crate) fn name_list<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let list = ptxsim_syntax::diag::cut_list(names.map(|n| format!("`{}`", cut_name(n))), 8);
    if list.is_empty() {
        "none".to_string()
    } else {
        list
    }
}

fn invalid(msg: impl Into<String>) -> RunError {
    RunError::new(TrapKind::InvalidLaunch, msg)
}

/// A validated launch: the kernel, its parameter buffer and the geometry.
pub(crate) struct Prepared {
    pub kernel: u32,
    pub kparams: Vec<u8>,
    pub geom: Geom,
}

/// Validates the launch of `kernel` with `cfg` and `args`, and lays out the
/// kernel parameter buffer.
pub(crate) fn prepare(dev: &Device, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<Prepared, RunError> {
    let prog = &*module.program;
    let kid = prog
        .functions
        .iter()
        .position(|f| f.name == kernel && f.is_kernel && f.defined)
        .ok_or_else(|| {
            let names = prog.functions.iter().filter(|f| f.is_kernel && f.defined).map(|f| f.name.as_str());
            invalid(format!("no kernel named `{}` (kernels: {})", cut_name(kernel), name_list(names)))
        })? as u32;
    // Module-local kernels of one name in several linked modules: nvlink
    // links them, but the name alone does not say which to launch.
    let same: Vec<&Function> = prog.functions.iter().filter(|f| f.name == kernel && f.is_kernel && f.defined).collect();
    if same.len() > 1 {
        let at: Vec<String> = same.iter().take(4).map(|f| format!("{}:{}", prog.files.get(f.module as usize).map_or("module", String::as_str), f.line)).collect();
        return Err(invalid(format!(
            "the kernel name `{}` is ambiguous: {} linked modules define a module-local `.entry` of that name ({}{}); make one `.visible` or rename it",
            cut_name(kernel),
            same.len(),
            at.join(", "),
            if same.len() > 4 { ", ..." } else { "" }
        )));
    }
    let kf = &prog.functions[kid as usize];
    let kname = cut_name(kernel);
    let (g, b) = (cfg.grid, cfg.block);
    for (what, d) in [("grid", g), ("block", b)] {
        if d.x == 0 || d.y == 0 || d.z == 0 {
            return Err(invalid(format!("{what} dimensions must be at least 1 (got {},{},{})", d.x, d.y, d.z)));
        }
    }
    let threads = b.x as u64 * b.y as u64 * b.z as u64;
    if threads > 1024 || b.z > 64 {
        return Err(invalid(format!("a block has at most 1024 threads and z ≤ 64 (got {},{},{})", b.x, b.y, b.z)));
    }
    if g.y > 65535 || g.z > 65535 || g.x > i32::MAX as u32 {
        return Err(invalid(format!("grid {},{},{} exceeds the limits (2^31-1, 65535, 65535)", g.x, g.y, g.z)));
    }
    if let Some(r) = kf.reqntid {
        if [b.x, b.y, b.z] != r {
            return Err(invalid(format!("kernel `{kname}` requires .reqntid {},{},{}", r[0], r[1], r[2])));
        }
    }
    if let Some(r) = kf.maxntid {
        if threads > r[0] as u64 * r[1] as u64 * r[2] as u64 {
            return Err(invalid(format!("kernel `{kname}` allows at most {} threads per block (.maxntid)", r[0] * r[1] * r[2])));
        }
    }
    // The cluster shape: the launch's, or the kernel's compile-time
    // `.reqnctapercluster` (CUDA launches such a kernel in its declared
    // clusters, and a different shape at launch is an error).
    let cl = match (cfg.cluster, kf.reqnctapercluster) {
        (Some(c), Some(r)) if [c.x, c.y, c.z] != r => {
            return Err(invalid(format!(
                "kernel `{kname}` is declared with .reqnctapercluster {},{},{}; it cannot be launched in clusters of {},{},{}",
                r[0], r[1], r[2], c.x, c.y, c.z
            )))
        }
        (Some(c), _) => c,
        (None, Some(r)) => Dim3::new(r[0], r[1], r[2]),
        (None, None) if kf.explicitcluster => {
            return Err(invalid(format!("kernel `{kname}` is declared .explicitcluster: it must be launched with a cluster shape (--cluster), and none was given")))
        }
        (None, None) => Dim3::new(1, 1, 1),
    };
    let explicit_cluster = cfg.cluster.is_some() || kf.reqnctapercluster.is_some();
    if let Some(n) = kf.maxclusterrank {
        let size = cl.x as u64 * cl.y as u64 * cl.z as u64;
        if size > u64::from(n) {
            return Err(invalid(format!("kernel `{kname}` is declared with .maxclusterrank {n}; a cluster of {},{},{} has {size} CTAs", cl.x, cl.y, cl.z)));
        }
    }
    if cl.x == 0 || cl.y == 0 || cl.z == 0 || g.x % cl.x != 0 || g.y % cl.y != 0 || g.z % cl.z != 0 {
        return Err(invalid(format!("cluster {},{},{} must divide the grid {},{},{}", cl.x, cl.y, cl.z, g.x, g.y, g.z)));
    }
    if cl.x as u64 * cl.y as u64 * cl.z as u64 > 16 {
        return Err(invalid("a cluster has at most 16 CTAs"));
    }
    // The limit applies to what the kernel uses (`Function::shared_bytes`);
    // the CTA's buffer holds every kernel's variables at their offsets.
    let kernel_smem = prog.functions[kid as usize].shared_bytes as u64 + cfg.dynamic_shared_bytes as u64;
    if kernel_smem > dev.limits.max_shared_bytes as u64 {
        return Err(invalid(format!(
            "{} bytes of shared memory per CTA (static {} + dynamic {}) exceed the limit of {}",
            kernel_smem, prog.functions[kid as usize].shared_bytes, cfg.dynamic_shared_bytes, dev.limits.max_shared_bytes
        )));
    }
    let total_smem = prog.shared_dynamic_offset as u64 + cfg.dynamic_shared_bytes as u64;
    // The printf buffer is device memory, as CUDA's FIFO is.
    let fifo = cfg.stdout.as_ref().map_or(cfg.stdout_bytes, |s| s.cap());
    let cap = dev.limits.max_memory;
    if fifo > cap.saturating_sub(dev.mem.total) {
        return Err(RunError::new(
            TrapKind::OutOfMemory,
            format!("the printf buffer of {fifo} bytes (--printf-buffer) does not fit beside the {} bytes of global memory allocated in the memory limit of {cap} bytes (--max-memory)", dev.mem.total),
        ));
    }
    // Parameters.
    if args.len() != kf.kparams.len() {
        return Err(invalid(format!("kernel `{kname}` takes {} parameters, {} given", kf.kparams.len(), args.len())));
    }
    let mut kparams = vec![0u8; kf.kparam_bytes as usize];
    for (i, (a, &(off, size))) in args.iter().zip(kf.kparams.iter()).enumerate() {
        let bytes = a.bytes();
        if bytes.len() != size as usize {
            return Err(invalid(format!("argument {i} of `{kname}` is {} bytes but the parameter is {size} bytes", bytes.len())));
        }
        kparams[off as usize..(off + size) as usize].copy_from_slice(&bytes);
    }
    // A cooperative launch: every CTA resident at once, and a grid
    // workspace for the grid barrier.
    if cfg.cooperative {
        let ctas = g.x as u64 * g.y as u64 * g.z as u64;
        if ctas > MAX_COOPERATIVE_CTAS {
            return Err(invalid(format!(
                "a cooperative launch runs every CTA of the grid at once, at most {} here; the grid {},{},{} has {ctas}",
                MAX_COOPERATIVE_CTAS,
                g.x,
                g.y,
                g.z
            )));
        }
        if cfg.grid_workspace == 0 || dev.read(cfg.grid_workspace, GRID_WORKSPACE_BYTES).is_err() {
            return Err(invalid(format!(
                "a cooperative launch needs a grid workspace of {} bytes of global memory (LaunchConfig::grid_workspace; Device::launch_cooperative allocates one), got {:#x}",
                GRID_WORKSPACE_BYTES,
                cfg.grid_workspace
            )));
        }
    }
    let nwarps = threads.div_ceil(32) as u32;
    let geom = Geom {
        grid: [g.x, g.y, g.z],
        block: [b.x, b.y, b.z],
        cluster: [cl.x, cl.y, cl.z],
        explicit_cluster,
        dyn_smem: cfg.dynamic_shared_bytes,
        total_smem: total_smem as u32,
        max_depth: cfg.max_call_depth,
        nwarps,
        grid_workspace: if cfg.cooperative { cfg.grid_workspace } else { 0 },
    };
    // A kernel that may call `malloc` fixes the device heap's size.
    if module.uses_heap() {
        dev.mem.heap.mark_used();
    }
    Ok(Prepared { kernel: kid, kparams, geom })
}

pub(crate) fn launch(dev: &Device, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<LaunchStats, RunError> {
    let Prepared { kernel: kid, kparams, geom } = prepare(dev, module, kernel, cfg, args)?;
    let prog = &*module.program;
    let kf = &prog.functions[kid as usize];
    let (g, b) = (cfg.grid, cfg.block);
    let cl = Dim3::new(geom.cluster[0], geom.cluster[1], geom.cluster[2]);
    let threads = b.x as u64 * b.y as u64 * b.z as u64;
    let total_smem = geom.total_smem;
    let epoch = AtomicU64::new(0);
    let own_stdout;
    let stdout: &crate::stdout::Stdout = match &cfg.stdout {
        Some(s) => s,
        None => {
            own_stdout = crate::stdout::Stdout::new(cfg.stdout_bytes);
            &own_stdout
        }
    };
    let ctx = Ctx { prog, global: &dev.mem, kparams: &kparams, consts: &module.consts, geom: &geom, write_epoch: &epoch, stdout, tier: module.tier().map(|t| &**t) };
    let abort = AtomicU64::new(u64::MAX);
    let ncl = [g.x / cl.x, g.y / cl.y, g.z / cl.z];
    let nclusters = ncl[0] as u64 * ncl[1] as u64 * ncl[2] as u64;
    let local_limit = dev.limits.local_bytes_per_thread;
    // The registers a whole warp's entry frame must zero (the others are
    // written before any lane reads them).
    let zero: Vec<u32> = crate::prefix::entry_keep(kf).iter().enumerate().filter(|(_, k)| !**k).map(|(r, _)| r as u32).collect();
    // Workers: no more than there are clusters.
    let units = if cfg.cooperative { 1 } else { nclusters };
    // (The core count is asked once per process: on Linux it reads the
    // cgroup files, tens of microseconds, and one unit needs no count.)
    let most = units.min(MAX_WORKERS as u64) as usize;
    let workers = if most <= 1 { 1 } else { cfg.threads.unwrap_or_else(cores).clamp(1, most) };
    // The memory cap: what the device holds, plus what each worker keeps
    // for its cluster in flight. Fewer workers run when not all fit.
    let need = worker_bytes(prog, kf, threads, (cl.x as u64 * cl.y as u64 * cl.z as u64) * (nclusters / units), total_smem as u64, local_limit);
    let cap = dev.limits.max_memory;
    // The printf buffer is device memory (checked in `prepare`).
    let room = cap.saturating_sub(dev.mem.total).saturating_sub(stdout.cap());
    if need.total > room {
        return Err(RunError::new(
            TrapKind::OutOfMemory,
            format!(
                "the launch needs {} bytes for each cluster in flight ({}) beside the {} bytes of global memory allocated, more than the memory limit of {cap} bytes (--max-memory)",
                need.total,
                need.parts(),
                dev.mem.total
            ),
        ));
    }
    let workers = workers.min((room / need.total.max(1)).max(1) as usize);
    let map = Arc::new(mem_map(dev, prog, args, kf.kparam_bytes as u64, total_smem as u64, cfg.dynamic_shared_bytes as u64));
    let fuel = Fuel::new(cfg.fuel, workers, cfg.timeout);
    let cluster_ctas = cl.x as u64 * cl.y as u64 * cl.z as u64;
    if let Some(p) = &cfg.progress {
        p.start(nclusters * cluster_ctas);
    }
    // Each worker keeps the CTAs of its last cluster and refills them for
    // the next one (warps, register files, shared memory), so a big grid
    // costs no allocation per CTA.
    // A unit of work is one cluster, or for a cooperative launch the whole
    // grid (its clusters side by side, all resident on one worker).
    let per_unit = if cfg.cooperative { nclusters } else { 1 };
    let nunits = nclusters / per_unit;
    let plan = CtaPlan { kid, threads: threads as u32, mode: cfg.scheduling, local_limit, smem: total_smem as usize, zero: &zero };
    let (next, running) = (AtomicU64::new(0), AtomicU64::new(0));
    let quiet = std::sync::Mutex::new(Vec::new());
    let units = Units { running: &running, next: &next, total: nunits, workers, quiet: &quiet };
    let run_one = |pool: &mut Vec<Cta>, tank: &mut Tank<'_>, ui: u64| -> Result<Stats, RunError> {
        let mut n = 0usize;
        for ci in ui * per_unit..(ui + 1) * per_unit {
            let cid = [(ci % ncl[0] as u64) as u32, ((ci / ncl[0] as u64) % ncl[1] as u64) as u32, (ci / (ncl[0] as u64 * ncl[1] as u64)) as u32];
            let mut rank = 0;
            for z in 0..cl.z {
                for y in 0..cl.y {
                    for x in 0..cl.x {
                        let ctaid = [cid[0] * cl.x + x, cid[1] * cl.y + y, cid[2] * cl.z + z];
                        let env = CtaEnv { ctaid, cluster_id: cid, cluster_ctaid: [x, y, z], rank };
                        if pool.len() <= n {
                            pool.push(Cta::empty(env.clone()));
                        }
                        fill_cta(&ctx, &mut pool[n], env, &plan)?;
                        rank += 1;
                        n += 1;
                    }
                }
            }
        }
        let mut sh = Shell { tank, index: ui, abort: &abort, epoch: &epoch, units: Some(&units) };
        match cfg.scheduling {
            Scheduling::Stack => run_cluster(&Stack(&ctx), &mut pool[..n], cluster_ctas as usize, &mut sh),
            Scheduling::Its => run_cluster(&Its(&ctx), &mut pool[..n], cluster_ctas as usize, &mut sh),
        }
    };
    // Clusters are handed out in increasing order, one at a time. Once
    // cluster k failed (`abort` = the lowest failing index), no worker
    // starts a cluster above k and those running above k stop at their next
    // check; those below k, all started already, run on for a grace of
    // `fuel::GRACE` warp instructions per worker (they may fail themselves,
    // or wait forever on cluster k), then stop without an error of their
    // own. So the error reported, the lowest failing cluster's, is the one a
    // single worker would report, for a kernel without races whose clusters
    // fail within the grace (fuel and time aside).
    // The CTAs a worker's thread kept from its last launch are refilled
    // (`crate::workers`), and kept again when they are small.
    let keep = need.total <= crate::workers::KEEP_BYTES;
    let work = || memory::with_map(&map, || {
        let mut pool = crate::workers::take_ctas();
        let mut tank = fuel.tank();
        let mut total = Total::default();
        loop {
            // (Counted running before it takes an index: a unit taken is
            // never seen as neither running nor pending.)
            running.fetch_add(1, Ordering::SeqCst);
            let ci = next.fetch_add(1, Ordering::SeqCst);
            if ci >= nunits || abort.load(Ordering::Relaxed) < ci {
                running.fetch_sub(1, Ordering::SeqCst);
                if keep {
                    crate::workers::keep_ctas(pool);
                }
                return total;
            }
            let r = run_one(&mut pool, &mut tank, ci);
            units.leave(ci);
            running.fetch_sub(1, Ordering::SeqCst);
            if tank.take_cut() {
                // Stopped after another cluster failed: not an error of its own.
                continue;
            }
            if r.is_err() {
                abort.fetch_min(ci, Ordering::Relaxed);
                // (A cooperative launch's one unit keeps all it printed.)
                stdout.stop_after((ci + 1) * per_unit - 1);
                fuel.note_failure();
            }
            total = total.add(r.map_err(|e| (ci, e)));
            if let Some(p) = &cfg.progress {
                p.done.fetch_add(cluster_ctas * per_unit, Ordering::Relaxed);
            }
        }
    });
    let total = crate::workers::run(workers, work).into_iter().fold(Total::default(), Total::join);
    let Total { stats, err } = total;
    let printed = if cfg.stdout.is_none() { stdout.take() } else { Default::default() };
    if let Some((_, mut e)) = err {
        e.stdout = printed;
        return Err(e);
    }
    let mut s = launch_stats(&stats, prog);
    s.stdout = printed;
    Ok(s)
}

/// The launch's statistics so far, and the error of the lowest-numbered
/// failing cluster.
#[derive(Default)]
struct Total {
    stats: Stats,
    err: Option<(u64, RunError)>,
}

impl Total {
    fn add(mut self, r: Result<Stats, (u64, RunError)>) -> Total {
        match r {
            Ok(s) => self.stats.merge(&s),
            Err((ci, e)) => {
                if self.err.as_ref().map(|(c, _)| ci < *c).unwrap_or(true) {
                    self.err = Some((ci, e));
                }
            }
        }
        self
    }

    fn join(mut self, o: Total) -> Total {
        self.stats.merge(&o.stats);
        match o.err {
            Some(e) => self.add(Err(e)),
            None => self,
        }
    }
}

/// What every CTA of a launch starts as: its kernel, threads, scheduling
/// mode, per-thread local limit, shared bytes and the entry registers to
/// zero (`crate::prefix`).
struct CtaPlan<'z> {
    kid: u32,
    threads: u32,
    mode: Scheduling,
    local_limit: u32,
    smem: usize,
    zero: &'z [u32],
}

/// Makes `cta` a fresh CTA `env` of `plan`'s kernel, reusing its buffers.
fn fill_cta(ctx: &Ctx<'_>, cta: &mut Cta, env: CtaEnv, plan: &CtaPlan<'_>) -> Result<(), RunError> {
    let CtaPlan { kid, threads, mode, local_limit, smem, zero } = *plan;
    let nwarps = threads.div_ceil(32);
    cta.env = env;
    cta.live = threads;
    cta.shared.clear();
    cta.shared.resize(smem, 0);
    cta.warps.truncate(nwarps as usize);
    for wi in 0..nwarps {
        let t0 = wi * 32;
        let n = (threads - t0).min(32);
        let valid = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let w = match cta.warps.get_mut(wi as usize) {
            Some(w) => {
                w.reset(wi, valid, local_limit);
                w
            }
            None => {
                cta.warps.push(Warp::new(wi, valid, [[0u64; 32]; 3], local_limit));
                cta.warps.last_mut().expect("just pushed")
            }
        };
        // (The thread ids of a warp that ran the same warp of another CTA
        // are already right: nothing else writes them.)
        if w.tid_of != Some((ctx.geom.block, t0)) {
            w.fill_tid(ctx.geom.block, t0);
            w.tid_of = Some((ctx.geom.block, t0));
        }
        // A whole warp in stack mode runs the entry code together: the
        // registers it writes first need no zeroing.
        let zero = if valid == u32::MAX && mode == Scheduling::Stack { Some(zero) } else { None };
        let fi = w.push_frame_zeroing(ctx.prog, (kid, valid), (NO_FRAME, 0, 0), zero).map_err(|t| {
            let f = &ctx.prog.functions[kid as usize];
            RunError { function: Some(f.name.clone()), line: Some(f.line), cta: Some(cta.env.ctaid), warp: Some(wi), ..RunError::new(t.kind, t.message) }
        })?;
        match mode {
            Scheduling::Stack => crate::simt_stack::enter(w, fi),
            Scheduling::Its => crate::its::enter(w, fi),
        }
    }
    Ok(())
}

/// What one worker keeps for a cluster in flight, an upper estimate.
struct WorkerBytes {
    total: u64,
    /// CTAs per cluster, threads per CTA, and per CTA the bytes of shared
    /// memory, of registers and warp state, and of local frames.
    ctas: u64,
    threads: u64,
    smem: u64,
    regs: u64,
    local: u64,
}

impl WorkerBytes {
    /// The parts, in words (for the error only).
    fn parts(&self) -> String {
        let WorkerBytes { ctas, threads, smem, regs, local, .. } = self;
        format!("{ctas} CTA(s) of {threads} threads, each {smem} bytes of shared memory, {regs} bytes of registers and warp state, {local} bytes of local frames")
    }
}

/// The number of workers a launch uses by default: the cores this
/// process may run on, asked once.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

/// Shared memory, register files and local frames of a cluster of `ctas`
/// CTAs of `threads` threads. Local frames count the kernel's own, and when
/// the module has other functions, their frames too (a call chain without
/// recursion holds each at most once), within the per-thread limit.
fn worker_bytes(prog: &Program, kf: &Function, threads: u64, ctas: u64, smem: u64, local_limit: u32) -> WorkerBytes {
    let others = prog.functions.iter().filter(|f| f.defined && !f.is_kernel);
    let (mut frames, mut regs) = (kf.frame_bytes as u64, kf.num_regs as u64 * 256 + kf.num_preds as u64 * 4);
    for f in others {
        frames += f.frame_bytes as u64;
        regs += f.num_regs as u64 * 256 + f.num_preds as u64 * 4;
    }
    let local = frames.min(local_limit as u64) * threads;
    let warps = threads.div_ceil(32);
    let regs = warps * (regs + std::mem::size_of::<crate::warp::Warp>() as u64);
    let per_cta = smem + regs + local;
    WorkerBytes { total: per_cta.saturating_mul(ctas), ctas, threads, smem, regs, local }
}

/// The launch's memory for out-of-bounds messages: each global allocation
/// named by what it is (a kernel argument, a module variable).
fn mem_map(dev: &Device, prog: &Program, args: &[KernelArg], kparam_bytes: u64, smem: u64, dyn_smem: u64) -> MemMap {
    let _ = prog;
    let global = dev
        .mem
        .allocs
        .iter()
        .map(|a| {
            let arg = args.iter().position(|k| matches!(k, KernelArg::Ptr(p) | KernelArg::U64(p) if *p >= a.base && *p < a.base + a.size));
            let heap = dev.mem.heap.reservation().is_some_and(|h| h.0 == a.base);
            let what = match (arg, dev.names.get(&a.base)) {
                (Some(i), Some(n)) if heap => memory::Alloc::NamedArg(n.clone(), i),
                (Some(i), _) => memory::Alloc::Arg(i),
                (None, Some(n)) => memory::Alloc::Named(n.clone()),
                (None, None) => memory::Alloc::Other,
            };
            (a.base, a.size, what)
        })
        .collect();
    MemMap { global, kparam_bytes, shared_bytes: smem, dynamic_shared_bytes: dyn_smem }
}

/// The statistics of a launch from its warps' counters.
fn launch_stats(s: &crate::warp::Stats, prog: &crate::program::Program) -> LaunchStats {
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

/// The public set-up of a launch for executor loops other than the PTX one
/// (`datapath`'s API): what needs the device and the module lives here, in
/// the layer that owns them.
impl Setup {
    /// Validates `cfg` and `args` for `kernel` of `module` exactly as
    /// [`Device::launch`] does, and lays out the parameters.
    pub fn new(dev: &Device, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<Setup, RunError> {
        let p = prepare(dev, module, kernel, cfg, args)?;
        Ok(Setup {
            stdout: cfg.stdout.clone().unwrap_or_else(|| Arc::new(crate::stdout::Stdout::new(cfg.stdout_bytes))),
            program: module.program.clone(),
            kernel: p.kernel,
            kparams: p.kparams,
            consts: module.consts.clone(),
            geom: p.geom,
            local_limit: dev.limits.local_bytes_per_thread,
        })
    }

    /// What the instructions of a warp of `cta` read, on device `dev`.
    pub fn env<'a>(&'a self, dev: &'a Device, cta: &'a CtaEnv) -> DataEnv<'a> {
        DataEnv { global: &dev.mem, kparams: &self.kparams, consts: &self.consts, geom: &self.geom, cta, stdout: &self.stdout }
    }
}

/// Launching, beside the launch itself.
impl Device {
    /// Runs `kernel` of `module` over the grid.
    pub fn launch(&self, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<LaunchStats, RunError> {
        launch(self, module, kernel, cfg, args)
    }

    /// Runs `kernel` as a cooperative launch: allocates a zeroed grid
    /// workspace ([`LaunchConfig::grid_workspace`]), launches with
    /// `cooperative` set, and frees the workspace.
    pub fn launch_cooperative(&mut self, module: &Module, kernel: &str, cfg: &LaunchConfig, args: &[KernelArg]) -> Result<LaunchStats, RunError> {
        let ws = self.alloc(GRID_WORKSPACE_BYTES)?;
        let mut c = cfg.clone();
        c.cooperative = true;
        c.grid_workspace = ws;
        let r = launch(self, module, kernel, &c, args);
        let _ = self.free(ws);
        r
    }
}
