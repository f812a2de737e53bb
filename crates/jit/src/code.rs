//! Native code: compiling a function's IR with Cranelift's JIT module for
//! the host CPU, and running it ([`CompiledFn`], the engine's
//! [`ptxsim_exec::tier::Compiled`]): the registers and predicates the code
//! uses are copied from the frame into a packed buffer ([`Layout`]) before
//! the call, and the lanes it wrote copied back after it; the special
//! registers it reads are filled in beside them. Its loads and stores call
//! back into [`mem_entry`] (`mem::exec`). The only `unsafe` code of the
//! crate is here: calling the compiled function on that buffer, the
//! memory helper's view of the run's context, and freeing the code's
//! memory when it is dropped.

use crate::emit::{self, Layout, St};
use crate::plan::Class;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use crate::plan::{self, Plan};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use ptxsim_exec::program::{Function, L};
use crate::mem::MemOp;
use ptxsim_exec::program::Sreg;
use ptxsim_exec::tier::{Compiled, Env, Group, Side};
use std::time::{Duration, Instant};

/// Why a function has no compiled code.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// No instruction of it compiles (each with why, by name).
    #[error("nothing to compile in `{name}`: {skipped}")]
    Nothing { name: String, skipped: String },
    /// The host is not one Cranelift generates code for.
    #[error("no native code generator for this host: {0}")]
    Host(String),
    /// Cranelift rejected the function (a bug of the emitter).
    #[error("cranelift failed on `{name}`: {message}")]
    Codegen { name: String, message: String },
}

type Entry = unsafe extern "C" fn(*mut u64, *mut St);

/// The JIT module that owns a function's machine code.
struct Owner(Option<JITModule>);

// SAFETY: the module is only touched when it is created (one thread) and
// when it is dropped; the code it owns is immutable and may run anywhere.
#[allow(unsafe_code)]
unsafe impl Send for Owner {}
#[allow(unsafe_code)]
unsafe impl Sync for Owner {}

impl Drop for Owner {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            // SAFETY: the function pointer into this memory lives in the
            // same `CompiledFn`, which is being dropped.
            #[allow(unsafe_code)]
            unsafe {
                m.free_memory()
            };
        }
    }
}

/// A function's compiled code.
pub struct CompiledFn {
    entry: Entry,
    /// Unique in the process (never 0): it names the code's allocation
    /// caches in the thread's scratch buffer (`Layout::mcache`).
    id: u64,
    /// Per pc: the code can start there (`auto` switches an entry off
    /// when its runs are short: [`CompiledFn::tuned`]).
    entries: Vec<AtomicBool>,
    /// How many of `entries` are on.
    live_entries: std::sync::atomic::AtomicUsize,
    /// One past the highest register and predicate slot it touches.
    nregs: usize,
    npreds: usize,
    layout: Layout,
    /// Its loads and stores, by the index the code passes the helper.
    mem: Vec<MemOp>,
    /// Its lane-by-lane loops, by the index the code passes their helper.
    regions: Vec<crate::region::Region>,
    /// The branches whose divergence it runs, by counter index.
    sides: Vec<u32>,
    /// Per entry pc: the indices in `layout.regs` of the registers copied
    /// in there (those the code may read before writing them).
    live_in: Vec<Vec<usize>>,
    /// Which registers a thread may still read after each pc: one dead
    /// where the code leaves is not copied back (every path writes it
    /// before it reads it, as with the chunk loops' stores).
    live: Option<crate::live::Live>,
    /// Per bit of `live`'s rows, the register's index in the layout
    /// (`u32::MAX`: none); and the layout's registers `live` does not
    /// cover (always copied back).
    bit_reg: Vec<u32>,
    unlived: Vec<u32>,
    /// Runs of the code and the warp instructions they executed: code
    /// whose runs are too short to pay for themselves is switched `off`
    /// (its function runs interpreted from the next group on).
    runs: AtomicU64,
    executed: AtomicU64,
    off: AtomicBool,
    /// Per pc (with [`CompiledFn::tuned`]): runs from that entry, the warp
    /// instructions they executed, and the nanoseconds its first
    /// [`ENTRY_TIMED_RUNS`] runs took (an entry switched off clears its
    /// flag in `entries`, and the interpreter runs on there).
    entry_stats: Option<Vec<(AtomicU64, AtomicU64, AtomicU64)>>,
    /// Instructions compiled, of all.
    pub compiled: usize,
    /// Loops it runs lane by lane in stack mode ([`crate::region`]).
    pub lane_loops: usize,
    pub total: usize,
    /// The instructions it hands to the interpreter, with why.
    pub skipped: Vec<(u32, String)>,
    /// How long planning, IR building and code generation took.
    pub compile_time: Duration,
    _owner: Owner,
}

impl std::fmt::Debug for CompiledFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompiledFn({}/{} instructions, {} lane-by-lane loops, {:?})", self.compiled, self.total, self.lane_loops, self.compile_time)
    }
}

fn have_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(target_arch = "aarch64")]
    {
        true
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

/// How much the code generator works for the code's speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quality {
    /// Cranelift's single-pass register allocator: about half the
    /// compile time, code about a third slower on loops (BENCHMARKS.md).
    Quick,
    /// The backtracking register allocator.
    Full,
}

/// Plans and compiles `f` with the full code generator.
pub fn compile_function(f: &Function) -> Result<CompiledFn, CompileError> {
    compile_function_as(f, Quality::Full)
}

/// Plans and compiles `f` at quality `q`.
pub fn compile_function_as(f: &Function, q: Quality) -> Result<CompiledFn, CompileError> {
    let t0 = Instant::now();
    let mut p = plan::plan(f, have_fma());
    if p.blocks.is_empty() {
        let skipped = p.skipped.iter().take(8).map(|(pc, w)| format!("pc {pc}: {w}")).collect::<Vec<_>>().join("; ");
        return Err(CompileError::Nothing { name: f.name.clone(), skipped });
    }
    let layout = Layout::new(&p, f);
    let (module, id, mem) = codegen(f, &p, &layout, q)?;
    let entry = module.get_finalized_function(id);
    // SAFETY: the function was declared with `emit::signature`, which is
    // this pointer type's ABI (three pointers, no result, the host's
    // default calling convention).
    #[allow(unsafe_code)]
    let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(entry) };
    // (By pc: a lookup per run.)
    let mut live_in: Vec<Vec<usize>> = vec![Vec::new(); f.code.len()];
    for (&pc, slots) in &p.live_in {
        if let Some(v) = live_in.get_mut(pc as usize) {
            *v = layout.regs.iter().enumerate().filter(|(_, r)| slots.contains(&r.0)).map(|(i, _)| i).collect();
        }
    }
    let (mut bit_reg, mut unlived) = (Vec::new(), Vec::new());
    for (i, r) in layout.regs.iter().enumerate() {
        match p.live.as_ref().and_then(|l| l.index(r.0)) {
            Some(b) => {
                if bit_reg.len() <= b {
                    bit_reg.resize(b + 1, u32::MAX);
                }
                bit_reg[b] = i as u32;
            }
            None => unlived.push(i as u32),
        }
    }
    let nregs = p.regs.keys().next_back().map_or(0, |r| *r as usize + 1);
    let npreds = p.preds.last().map_or(0, |q| *q as usize + 1);
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    Ok(CompiledFn {
        entry,
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        entries: p.entries.iter().map(|&e| AtomicBool::new(e)).collect(),
        live_entries: std::sync::atomic::AtomicUsize::new(p.entries.iter().filter(|&&e| e).count()),
        nregs,
        npreds,
        layout,
        mem,
        regions: p.regions.clone(),
        sides: p.sides.clone(),
        live_in,
        bit_reg,
        unlived,
        live: p.live.take(),
        runs: AtomicU64::new(0),
        executed: AtomicU64::new(0),
        off: AtomicBool::new(false),
        entry_stats: None,
        compiled: p.ok.iter().filter(|o| **o).count(),
        lane_loops: p.regions.len(),
        total: f.code.len(),
        skipped: p.skipped,
        compile_time: t0.elapsed(),
        _owner: Owner(Some(module)),
    })
}

/// Cranelift's optimisation level (`PTXSIM_JIT_OPT` overrides it, for
/// measurements): `none`, which skips the e-graph pass, compiles the
/// 1,000-instruction bench function in 11 ms against 16 ms with `speed`,
/// and its code ran the engine bench's loops as fast or faster
/// (BENCHMARKS.md).
const OPT_LEVEL: &str = "none";

/// The host's code generator of quality `q`, made once per process.
fn host_isa(q: Quality) -> Result<cranelift_codegen::isa::OwnedTargetIsa, CompileError> {
    type Isa = OnceLock<Result<cranelift_codegen::isa::OwnedTargetIsa, String>>;
    static ISA: [Isa; 2] = [OnceLock::new(), OnceLock::new()];
    ISA[q as usize].get_or_init(|| {
        let mut fb = settings::builder();
        let opt = std::env::var("PTXSIM_JIT_OPT").unwrap_or_else(|_| OPT_LEVEL.to_string());
        fb.set("opt_level", &opt).map_err(|e| e.to_string())?;
        let ra = match q {
            Quality::Quick => "single_pass",
            Quality::Full => "backtracking",
        };
        fb.set("regalloc_algorithm", ra).map_err(|e| e.to_string())?;
        fb.set("enable_verifier", "false").map_err(|e| e.to_string())?;
        let isa_b = cranelift_native::builder().map_err(|e| e.to_string())?;
        isa_b.finish(settings::Flags::new(fb)).map_err(|e| e.to_string())
    })
    .clone()
    .map_err(CompileError::Host)
}

fn codegen(f: &Function, p: &Plan, lay: &Layout, q: Quality) -> Result<(JITModule, cranelift_module::FuncId, Vec<MemOp>), CompileError> {
    let err = |m: String| CompileError::Codegen { name: f.name.clone(), message: m };
    let isa = host_isa(q)?;
    let ptr = isa.pointer_type();
    let cc = isa.default_call_conv();
    let fcfg = isa.frontend_config();
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let sig = emit::signature(cc, ptr);
    let id = module.declare_function("ptx", Linkage::Local, &sig).map_err(|e| err(e.to_string()))?;
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    let mut fctx = FunctionBuilderContext::new();
    let helpers = [mem_entry as *const () as usize, region_entry as *const () as usize];
    let mem = {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let mem = emit::build(&mut b, f, p, lay, (helpers, cc, ptr));
        b.finalize(fcfg);
        mem
    };
    module.define_function(id, &mut ctx).map_err(|e| err(format!("{e:?}")))?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(|e| err(e.to_string()))?;
    Ok((module, id, mem))
}

impl Compiled for CompiledFn {
    fn entries(&self) -> &[AtomicBool] {
        // (Code without entries, or switched off: an empty slice, which
        // the dispatch loop checks fastest.)
        if self.off.load(Ordering::Relaxed) || self.live_entries.load(Ordering::Relaxed) == 0 {
            &[]
        } else {
            &self.entries
        }
    }

    fn run(&self, regs: &mut [L], preds: &mut [u32], g: &mut Group, env: &mut Env<'_>) {
        let stats = self.entry_stats.as_ref().and_then(|v| v.get(g.pc as usize));
        if regs.len() < self.nregs || preds.len() < self.npreds || !self.entries.get(g.pc as usize).is_some_and(|e| e.load(Ordering::Relaxed)) {
            return; // the interpreter runs it
        }
        // An entry's first runs are timed (`tuned` code).
        let timed = stats.filter(|s| s.0.load(Ordering::Relaxed) < ENTRY_TIMED_RUNS).map(|_| Instant::now());
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < self.layout.words {
                s.resize(self.layout.words, 0);
            }
            let buf: &mut [u64] = &mut s[..self.layout.words];
            let live = self.live_in.get(g.pc as usize).map_or(&[][..], |v| &v[..]);
            // The allocation caches hold what this code learnt of this
            // global memory's allocations, or nothing. Every compiled
            // function on the thread shares the buffer, so who used it
            // last is kept beside it (`CACHE_OWNER`), never in it (another
            // function's registers could spell any tag). Checked before the
            // copy in, which writes over other code's caches.
            let mc = self.layout.mcache as usize / 8;
            let generation = env.global.generation();
            if CACHE_OWNER.get() != (self.id, generation) {
                CACHE_OWNER.set((self.id, generation));
                buf[mc..].fill(0);
            }
            if !pack(&self.layout, live, regs, preds, env, buf) {
                // A 32-bit register whose slot holds bits above 32 (an
                // interpreted sign extension to 64 bits): the code keeps
                // 32 bits, while the interpreter's moves and addresses
                // keep the whole slot, so the interpreter runs on.
                return;
            }
            let (kp, kp_len, mem_ready) = (env.kparams.as_ptr() as u64, env.kparams.len() as u64, env.mem_ready as u32);
            for i in 0..self.sides.len() {
                set32(buf, self.layout.divs as usize + 4 * i, 0);
            }
            let words = buf.len();
            let p = buf.as_mut_ptr();
            let mut cx = MemCx { buf: p, words, ops: &self.mem, env, regions: &self.regions, codes: self.layout.codes as usize, mask: g.mask, threads_less: 0, diverged: Vec::new(), split: None };
            let mut st = St {
                pc: g.pc,
                mask: g.mask,
                stop: g.stop,
                yield_on_branch: g.yield_on_branch as u32,
                left: g.left,
                ctx: &mut cx as *mut MemCx<'_, '_> as usize,
                stack: (g.stack && !g.yield_on_branch) as u32,
                dv_n: 0,
                dv: [[0; 3]; emit::MAX_SIDE_DEPTH],
                tless: 0,
                mem_ready,
                _pad: 0,
                kp,
                kp_len,
                stores: 0,
            };
            // SAFETY: the code reads and writes `buf` within the layout's
            // `words` (its offsets come from the same layout) and `st`, and
            // passes `st.ctx` (`cx`, alive for the call) to `mem_entry`.
            #[allow(unsafe_code)]
            unsafe {
                (self.entry)(p, &mut st)
            };
            // Left inside a divergent side, or with a lane-by-lane loop
            // split (its lanes that left wait at the loop's exit, where
            // registers dead at the pc left at may be live): the other lanes
            // go on at other pcs, so every register the code wrote is copied
            // back.
            let sides: Vec<Side> = st.dv.iter().take(st.dv_n as usize).map(|d| Side { branch: d[0], taken: d[1], second: d[2] != 0 }).collect();
            let row = self.live.as_ref().filter(|_| sides.is_empty() && cx.split.is_none()).and_then(|l| l.row(st.pc));
            unpack(&self.layout, regs, preds, buf, row.map(|r| (r, &self.bit_reg[..], &self.unlived[..])));
            for (i, &pc) in self.sides.iter().enumerate() {
                let n = get32(buf, self.layout.divs as usize + 4 * i);
                if n != 0 {
                    match cx.diverged.iter_mut().find(|d| d.0 == pc) {
                        Some(d) => d.1 += n as u64,
                        None => cx.diverged.push((pc, n as u64)),
                    }
                }
            }
            *cx.env.stores += st.stores;
            self.account(g.left - st.left);
            if let Some((runs, executed, nanos)) = stats {
                let n = g.left - st.left;
                let e = executed.fetch_add(n, Ordering::Relaxed) + n;
                let r = runs.fetch_add(1, Ordering::Relaxed) + 1;
                let ns = match timed {
                    Some(t0) => nanos.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed),
                    None => nanos.load(Ordering::Relaxed),
                };
                // A run copies the entry's live registers in and the
                // written ones out: the more of them, the longer a run
                // must be to pay; and the first runs, timed, must have
                // beaten the interpreter's pace.
                let min = MIN_AVG_RUN + RUN_PER_REG * live.len() as u64;
                let slow = r == ENTRY_TIMED_RUNS && ns > e.saturating_mul(INTERP_NS);
                if (r == ENTRY_TIMED_RUNS || r % ENTRY_CHECK_RUNS == 0) && e < r * min || slow {
                    if let Some(e) = self.entries.get(g.pc as usize) {
                        if e.swap(false, Ordering::Relaxed) && self.live_entries.fetch_sub(1, Ordering::Relaxed) == 1 {
                            // No entry left: the dispatch loop need not look.
                            self.off.store(true, Ordering::Relaxed);
                        }
                    }
                }
            }
            g.pc = st.pc;
            g.left = st.left;
            g.threads_less += cx.threads_less + st.tless;
            g.sides = sides;
            g.diverged.append(&mut cx.diverged);
            g.split = cx.split;
        });
    }
}

/// What the memory helper reaches during one run of compiled code.
struct MemCx<'a, 'e> {
    /// The packed registers (`words` u64s), which the code does not touch
    /// while the helper runs.
    buf: *mut u64,
    words: usize,
    ops: &'a [MemOp],
    env: &'a mut Env<'e>,
    /// The lane-by-lane loops, the byte offset of their exit codes in
    /// `buf`, and the group's lanes.
    regions: &'a [crate::region::Region],
    codes: usize,
    mask: u32,
    /// What the loops counted ([`crate::region::settle`]), for the group.
    threads_less: u64,
    diverged: Vec<(u32, u64)>,
    split: Option<(u32, u32)>,
}

/// The memory helper compiled code calls for load or store `idx` on the
/// lanes of `m`: 0 when it ran, 1 when it is handed back (`mem::exec`).
extern "C" fn mem_entry(cx: *mut MemCx<'_, '_>, idx: u32, m: u32) -> u32 {
    // SAFETY: `cx` is the `MemCx` that `CompiledFn::run` made and keeps
    // alive for the whole call of the code, which calls this function only
    // with it (`St::ctx`); the code holds no reference into `buf` while
    // the helper runs, and `words` is its length.
    #[allow(unsafe_code)]
    let (cx, buf) = unsafe {
        let cx = &mut *cx;
        let buf = std::slice::from_raw_parts_mut(cx.buf, cx.words);
        (cx, buf)
    };
    match cx.ops.get(idx as usize) {
        Some(op @ crate::mem::MemOp { shfl: Some(s), .. }) if crate::mem::shfl(op, s, buf, m, cx.mask) => 0,
        Some(op) if op.shfl.is_none() && crate::mem::exec(op, buf, cx.env, m) => 0,
        _ => 1,
    }
}

/// The loop helper compiled code calls after lane-by-lane loop `idx`
/// ran with `cap` iterations at most: settles its counts into the run's
/// context and returns the fuel it used, with bit 63 set when lanes are
/// still inside (the code then leaves at the loop's head, the group split).
extern "C" fn region_entry(cx: *mut MemCx<'_, '_>, idx: u32, cap: u64) -> u64 {
    // SAFETY: as in `mem_entry`: `cx` is the live context of this run,
    // and the code holds no reference into `buf` while this runs.
    #[allow(unsafe_code)]
    let (cx, buf) = unsafe {
        let cx = &mut *cx;
        let buf = std::slice::from_raw_parts(cx.buf, cx.words);
        (cx, buf)
    };
    let Some(r) = cx.regions.get(idx as usize) else { return 0 };
    let mut codes = [u32::MAX; 32];
    for (l, c) in codes.iter_mut().enumerate() {
        *c = get32(buf, cx.codes + 4 * l);
    }
    let s = crate::region::settle(r, cx.mask, &codes, cap);
    cx.threads_less += (s.fuel * cx.mask.count_ones() as u64).saturating_sub(s.threads);
    for (pc, n) in s.diverged {
        match cx.diverged.iter_mut().find(|d| d.0 == pc) {
            Some(d) => d.1 += n,
            None => cx.diverged.push((pc, n)),
        }
    }
    if s.active != 0 && s.active != cx.mask {
        cx.split = Some((r.exit, s.active));
    }
    s.fuel | ((s.active != 0) as u64) << 63
}

impl CompiledFn {
    /// Counts a run of `n` warp instructions; every [`CHECK_RUNS`] runs,
    /// switches the code off when they averaged under [`MIN_AVG_RUN`].
    fn account(&self, n: u64) {
        // Loads and stores, not read-modify-writes (a locked add costs
        // about as much as a short run's copies): workers racing here may
        // lose a count, which only delays the check of the average.
        let e = self.executed.load(Ordering::Relaxed) + n;
        self.executed.store(e, Ordering::Relaxed);
        let r = self.runs.load(Ordering::Relaxed) + 1;
        self.runs.store(r, Ordering::Relaxed);
        if r % CHECK_RUNS == 0 && e < r * MIN_AVG_RUN {
            self.off.store(true, Ordering::Relaxed);
        }
    }

    /// The code with each entry switched off on its own, as `auto` runs
    /// it, once its runs average fewer warp instructions than the
    /// shortest worth entering, `MIN_AVG_RUN` plus `RUN_PER_REG` per
    /// register copied in there (checked after `ENTRY_TIMED_RUNS` runs
    /// from it and every `ENTRY_CHECK_RUNS`), or when its first
    /// `ENTRY_TIMED_RUNS` runs, timed, took
    /// longer per warp instruction than the interpreter (`INTERP_NS`):
    /// an entry from which the code soon hands back (a loop around an
    /// instruction it does not compile, a short path to a reconvergence
    /// point) costs the register copies and saves nothing. Which code
    /// runs then depends on timing; what it computes does not.
    pub fn tuned(mut self) -> CompiledFn {
        self.entry_stats = Some(self.entries.iter().map(|_| (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0))).collect());
        self
    }

    /// Runs of the code so far, and the warp instructions they executed.
    pub fn runs(&self) -> (u64, u64) {
        (self.runs.load(Ordering::Relaxed), self.executed.load(Ordering::Relaxed))
    }

    /// The pcs where the code can start.
    pub fn entry_pcs(&self) -> Vec<u32> {
        self.entries.iter().enumerate().filter(|e| e.1.load(Ordering::Relaxed)).map(|e| e.0 as u32).collect()
    }

    /// Whether the code was switched off for its short runs.
    pub fn switched_off(&self) -> bool {
        self.off.load(Ordering::Relaxed)
    }
}

/// Runs from one entry between checks of their average length
/// ([`CompiledFn::tuned`]).
const ENTRY_CHECK_RUNS: u64 = 64;

/// The first runs from one entry, timed and checked ([`CompiledFn::tuned`]):
/// few, since an entry of a kernel launched a few times runs a few times
/// per launch (nvcc's `mathf_unary`: 35 entries, about 5 runs each).
const ENTRY_TIMED_RUNS: u64 = 8;

/// Warp instructions more per register copied in at an entry that its
/// runs must average ([`CompiledFn::tuned`]): runs of about 20
/// instructions with 6 to 10 registers copied each way ran 1.3-1.75x
/// slower than interpreted (the corpus's `switch_loop` and clang's
/// `collatz_kernel`, `cargo bench -p ptxsim-jit --bench corpus`).
const RUN_PER_REG: u64 = 2;

/// About what the interpreter spends per warp instruction, in
/// nanoseconds (1.8-2.2 G thread instructions a second on full warps,
/// `cargo bench -p ptxsim-jit --bench engine`): an entry whose first
/// [`ENTRY_TIMED_RUNS`] runs took longer per warp instruction, copies
/// included, is switched off ([`CompiledFn::tuned`]).
const INTERP_NS: u64 = 15;

/// Runs between checks of the average run length.
const CHECK_RUNS: u64 = 512;
/// The shortest average run (warp instructions) worth entering compiled code for.
const MIN_AVG_RUN: u64 = 12;

thread_local! {
    /// The packed registers of the code running on this thread.
    static SCRATCH: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    /// The code that ran last in `SCRATCH` (its id) and the generation of
    /// the global memory it ran with: its allocation caches there are
    /// valid only for that pair (`Layout::mcache`).
    static CACHE_OWNER: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

/// The u32 at byte `off` of `buf`.
#[inline(always)]
fn get32(buf: &[u64], off: usize) -> u32 {
    (buf[off / 8] >> (8 * (off % 8))) as u32
}

#[inline(always)]
fn set32(buf: &mut [u64], off: usize, v: u32) {
    let w = &mut buf[off / 8];
    let sh = 8 * (off % 8);
    *w = (*w & !(0xffff_ffffu64 << sh)) | (v as u64) << sh;
}

/// Copies the registers `live` (indices in the layout) and every
/// predicate of the layout from the frame into `buf`, with every dirty
/// mask 0, and the special registers' lanes. (A register not copied is
/// written in every lane the code reads before it reads it.) False when a
/// `Narrow` register's slots hold bits above the low 32 in some lane.
fn pack(lay: &Layout, live: &[usize], regs: &[L], preds: &[u32], env: &Env<'_>, buf: &mut [u64]) -> bool {
    let mut high = 0u64;
    // The dirty masks lie side by side from an 8-byte boundary (the
    // predicates after them are written below).
    if let Some(&(_, _, _, d0)) = lay.regs.first() {
        let (w0, w1) = (d0 as usize / 8, (d0 as usize + 4 * lay.regs.len()).div_ceil(8));
        buf[w0..w1].fill(0);
    }
    for &(s, off) in &lay.sregs {
        let w = off as usize / 8;
        let uniform = |v: u32| (v as u64) | (v as u64) << 32;
        let d = |d: u8| d as usize % 3;
        let dst = &mut buf[w..w + 16];
        match s {
            Sreg::Tid(k) => {
                let t = &env.tid[d(k)];
                for (x, s) in dst.iter_mut().zip(t.chunks_exact(2)) {
                    *x = (s[0] & 0xffff_ffff) | s[1] << 32;
                }
            }
            Sreg::LaneId => {
                for (j, x) in dst.iter_mut().enumerate() {
                    *x = (2 * j as u64) | (2 * j as u64 + 1) << 32;
                }
            }
            Sreg::Ntid(k) => dst.fill(uniform(env.ntid[d(k)])),
            Sreg::Ctaid(k) => dst.fill(uniform(env.ctaid[d(k)])),
            Sreg::Nctaid(k) => dst.fill(uniform(env.nctaid[d(k)])),
            // The plan reads no other special register.
            _ => dst.fill(0),
        }
    }
    for &(r, class, off, _) in live.iter().filter_map(|&i| lay.regs.get(i)) {
        let src = &regs[r as usize];
        let w = off as usize / 8;
        match class {
            Class::Narrow => {
                for (b, s) in buf[w..w + 16].iter_mut().zip(src.chunks_exact(2)) {
                    *b = (s[0] & 0xffff_ffff) | s[1] << 32;
                    high |= (s[0] | s[1]) >> 32;
                }
            }
            Class::Wide => buf[w..w + 32].copy_from_slice(src),
        }
    }
    for &(q, off) in &lay.preds {
        set32(buf, off as usize, preds[q as usize]);
    }
    high == 0
}

/// Copies back the lanes the code wrote, but of the registers dead at
/// the pc where it left (`live`: the live row there, the layout index of
/// each of its bits, and the registers liveness does not cover), and
/// every predicate.
fn unpack(lay: &Layout, regs: &mut [L], preds: &mut [u32], buf: &[u64], live: Option<(&[u64], &[u32], &[u32])>) {
    let mut lm = (0u32, [0u64; 32]);
    match live {
        None => (0..lay.regs.len()).for_each(|i| copy_back(lay, i, regs, buf, &mut lm)),
        Some((row, bit_reg, others)) => {
            for (k, &w) in row.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let b = k * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    if let Some(&i) = bit_reg.get(b).filter(|&&i| i != u32::MAX) {
                        copy_back(lay, i as usize, regs, buf, &mut lm);
                    }
                }
            }
            for &i in others {
                copy_back(lay, i as usize, regs, buf, &mut lm);
            }
        }
    }
    for &(q, off) in &lay.preds {
        preds[q as usize] = get32(buf, off as usize);
    }
}

/// Copies back the lanes register `i` of the layout was written in
/// (`lm`: the last dirty mask and its lanes as all-ones words).
#[inline]
fn copy_back(lay: &Layout, i: usize, regs: &mut [L], buf: &[u64], lm: &mut (u32, [u64; 32])) {
    let Some(&(r, class, off, doff)) = lay.regs.get(i) else {
        return;
    };
    let dirty = get32(buf, doff as usize);
    if dirty == 0 {
        return;
    }
    let (last, lane_masks) = (&mut lm.0, &mut lm.1);
    let dst = &mut regs[r as usize];
    let w = off as usize / 8;
    if dirty == u32::MAX {
        match class {
            Class::Narrow => {
                for (k, d) in dst.chunks_exact_mut(2).enumerate() {
                    let x = buf[w + k];
                    d[0] = x & 0xffff_ffff;
                    d[1] = x >> 32;
                }
            }
            Class::Wide => dst.copy_from_slice(&buf[w..w + 32]),
        }
        return;
    }
    // Each lane's mask (all ones where written), the same for every
    // register written in the same lanes (a diverged warp's).
    if dirty != *last {
        *last = dirty;
        for (l, m) in lane_masks.iter_mut().enumerate() {
            *m = 0u64.wrapping_sub((dirty >> l & 1) as u64);
        }
    }
    match class {
        Class::Narrow => {
            for ((d, m), &x) in dst.chunks_exact_mut(2).zip(lane_masks.chunks_exact(2)).zip(&buf[w..w + 16]) {
                d[0] = (x & 0xffff_ffff & m[0]) | (d[0] & !m[0]);
                d[1] = (x >> 32 & m[1]) | (d[1] & !m[1]);
            }
        }
        Class::Wide => {
            for ((d, m), &x) in dst.iter_mut().zip(lane_masks.iter()).zip(&buf[w..w + 32]) {
                *d = (x & m) | (*d & !m);
            }
        }
    }
}
