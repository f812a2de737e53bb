//! ptxsim-jit: the compiling tier of the PTX engine, on Cranelift.
//!
//! It owns the tier a [`ptxsim_exec::Module`] runs its hot functions in
//! ([`attach`], the [`ptxsim_exec::tier::Tier`] seam): planning what of a
//! decoded function compiles (`plan`), emitting warp-wide Cranelift IR for
//! it (`emit`: each register a vector of 32 lanes, explicit lane masks,
//! predicated code as masked vector code), the warp-wide loads and stores
//! compiled code calls (`mem`), compiling it to native code and running it
//! (`code`), and tiering: [`Mode::On`] compiles every function
//! when attached, [`Mode::Auto`] compiles a function on a background thread
//! once it has run [`AUTO_THRESHOLD`] warp instructions (a launch never
//! waits for the compiler; a function of [`QUICK_FIRST`] instructions or
//! more is compiled quickly first, and its full code replaces that when
//! ready), [`Mode::Off`] attaches nothing.
//!
//! Compiled code runs exactly what the interpreter would (same bits, same
//! fuel, same traps): what it does not compile, and every event the
//! scheduler must see, it hands back to the interpreter at the
//! instruction's pc (`ptxsim_exec::tier`'s invariants).

mod code;
mod emit;
mod live;
mod mem;
mod plan;
mod region;

pub use code::{compile_function, compile_function_as, CompileError, CompiledFn, Quality};
use ptxsim_exec::program::{FuncId, Program};
use ptxsim_exec::tier::{Compiled, Tier};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// Warp instructions a function runs interpreted before [`Mode::Auto`]
/// compiles it.
pub const AUTO_THRESHOLD: u64 = 20_000;

/// The fewest instructions of a function that [`Mode::Auto`] compiles
/// quickly first ([`Quality::Quick`], about half the time), to run that
/// code while the full compile goes on.
pub const QUICK_FIRST: usize = 256;

/// When the tier compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every function, when the tier is attached (launches then never run
    /// interpreted where there is compiled code): the differential tests'
    /// "forced on".
    On,
    /// No tier: everything interpreted.
    Off,
    /// A function once it is hot, in the background.
    Auto,
}

impl Mode {
    /// `on`, `off` or `auto`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "on" | "1" | "true" => Some(Mode::On),
            "off" | "0" | "false" => Some(Mode::Off),
            "auto" | "" => Some(Mode::Auto),
            _ => None,
        }
    }

    /// The mode `PTXSIM_JIT` names (unset: auto; an unknown value: an error
    /// naming it).
    pub fn from_env() -> Result<Mode, String> {
        match std::env::var("PTXSIM_JIT") {
            Err(_) => Ok(Mode::Auto),
            Ok(v) => Mode::parse(&v).ok_or_else(|| format!("PTXSIM_JIT={v:?}: expected on, off or auto")),
        }
    }
}

/// One function's tiering state.
struct Slot {
    /// Warp instructions run interpreted so far.
    count: AtomicU64,
    /// 0 cold, 1 compiling, 2 finished (compiled or failed).
    state: AtomicU8,
    /// The full code, and the quick code that may run before it is ready.
    code: OnceLock<Result<CompiledFn, CompileError>>,
    quick: OnceLock<Result<CompiledFn, CompileError>>,
}

struct Inner {
    prog: Arc<Program>,
    funcs: Vec<Slot>,
}

impl Inner {
    /// Compiles function `func` at quality `q` (with `quick_first`, quickly
    /// first when it is large).
    fn compile(&self, func: FuncId, q: Quality, quick_first: bool) {
        let f = &self.prog.functions[func as usize];
        let slot = &self.funcs[func as usize];
        // `auto` also switches off the entries whose runs do not pay.
        let build = |q| if quick_first { compile_function_as(f, q).map(CompiledFn::tuned) } else { compile_function_as(f, q) };
        if quick_first && q == Quality::Full && f.code.len() >= QUICK_FIRST {
            let _ = slot.quick.set(build(Quality::Quick));
        }
        let _ = slot.code.set(build(q));
        slot.state.store(2, Ordering::Release);
    }
}

/// The compiling tier of one module.
pub struct JitTier {
    mode: Mode,
    quality: Quality,
    inner: Arc<Inner>,
}

impl std::fmt::Debug for JitTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JitTier({:?}, {} functions)", self.mode, self.inner.funcs.len())
    }
}

impl JitTier {
    /// A tier for `prog` (with [`Mode::On`], every defined function is
    /// compiled now, fully).
    pub fn new(prog: Arc<Program>, mode: Mode) -> JitTier {
        JitTier::with_quality(prog, mode, Quality::Full)
    }

    /// [`JitTier::new`] whose code is of quality `q` (the differential
    /// tests run [`Quality::Quick`] code too).
    pub fn with_quality(prog: Arc<Program>, mode: Mode, q: Quality) -> JitTier {
        let slot = || Slot { count: AtomicU64::new(0), state: AtomicU8::new(0), code: OnceLock::new(), quick: OnceLock::new() };
        let funcs = prog.functions.iter().map(|_| slot()).collect();
        let t = JitTier { mode, quality: q, inner: Arc::new(Inner { prog, funcs }) };
        if mode == Mode::On {
            for (i, f) in t.inner.prog.functions.iter().enumerate() {
                if f.defined && !f.code.is_empty() {
                    t.inner.funcs[i].state.store(1, Ordering::Relaxed);
                    t.inner.compile(i as FuncId, q, false);
                }
            }
        }
        t
    }

    /// What became of each function so far: its name and its compiled
    /// code, or why it has none (`None`: not compiled yet).
    pub fn report(&self) -> Vec<(String, Option<Result<&CompiledFn, &CompileError>>)> {
        self.inner
            .prog
            .functions
            .iter()
            .zip(&self.inner.funcs)
            .map(|(f, s)| (f.name.clone(), s.code.get().map(|r| r.as_ref())))
            .collect()
    }

    /// Waits until no compilation of this tier is running.
    pub fn wait_idle(&self) {
        while self.inner.funcs.iter().any(|s| s.state.load(Ordering::Acquire) == 1) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

impl Tier for JitTier {
    fn compiled(&self, func: FuncId) -> Option<&dyn Compiled> {
        let s = self.inner.funcs.get(func as usize)?;
        match s.code.get().or_else(|| s.quick.get())? {
            Ok(c) => Some(c),
            Err(_) => None,
        }
    }

    fn observe(&self, func: FuncId, n: u64) {
        if self.mode != Mode::Auto {
            return;
        }
        let Some(s) = self.inner.funcs.get(func as usize) else { return };
        if s.state.load(Ordering::Relaxed) != 0 {
            return;
        }
        if s.count.fetch_add(n, Ordering::Relaxed) + n < AUTO_THRESHOLD {
            return;
        }
        if s.state.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            let inner = Arc::clone(&self.inner);
            let q = self.quality;
            let spawned = std::thread::Builder::new().name("ptxsim-jit".into()).spawn(move || inner.compile(func, q, true));
            if spawned.is_err() {
                // No thread: this function stays interpreted.
                s.state.store(2, Ordering::Release);
            }
        }
    }
}

/// Attaches a tier in `mode` to `module` (none with [`Mode::Off`]), and
/// returns it.
pub fn attach(module: &mut ptxsim_exec::Module, mode: Mode) -> Option<Arc<JitTier>> {
    attach_as(module, mode, Quality::Full)
}

/// [`attach`] with code of quality `q`.
pub fn attach_as(module: &mut ptxsim_exec::Module, mode: Mode, q: Quality) -> Option<Arc<JitTier>> {
    if mode == Mode::Off {
        module.set_tier(None);
        return None;
    }
    let t = Arc::new(JitTier::with_quality(Arc::clone(&module.program), mode, q));
    module.set_tier(Some(t.clone()));
    Some(t)
}
