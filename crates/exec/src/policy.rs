//! The warp-engine seam: what a warp engine supplies to the CTA scheduler
//! (`sched.rs`), the one launch shell of every engine. An engine decides
//! which lanes of a warp run together and where they go after a
//! divergence, a call or a return; the scheduler owns the CTA loop,
//! barriers, clusters, fuel, deadlock and spin detection, and talks to the
//! engine only through [`WarpEngine`]: a turn of a warp that ends with a
//! [`Stop`], moving lanes past an instruction, parking lanes at a barrier
//! and releasing them, the warp's state for spin detection, and locating
//! an error. Stops come with their operands evaluated ([`BarArgs`]), so
//! the scheduler never reads the engine's instructions.
//!
//! Engines: the PTX engine's two scheduling policies, the reconvergence
//! stack (`simt_stack.rs`, `--scheduling stack`) and independent thread
//! scheduling (`its.rs`, `--scheduling its`), and the sm_50 machine form
//! on its CRS stack (`ptxsim-sass`, through the public `shell` module).
//! An engine's warp holds the PTX engine's [`Warp`] (`AsRef<Warp>`): the
//! scheduler reads its status, exited lanes, frames, stores and spin
//! checkpoints there, whatever else the engine keeps beside it.

use crate::cta::Cta;
use crate::error::{RunError, Trap};
pub use crate::barrier::BarArgs;
use crate::exec::{CtaEnv, Ctx, Turn};
use crate::lanemem::Peers;
use crate::program::FuncId;
use crate::warp::{lanes, Frame, Stats, Warp, WarpStatus};

/// A trap with where it happened: a function and pc in the engine's own
/// code (the PTX engine: a function of the program and an instruction
/// index in it).
#[derive(Debug)]
pub struct Located {
    pub trap: Trap,
    pub func: FuncId,
    pub pc: u32,
}

/// How a warp's turn ended.
#[derive(Debug)]
pub enum Stop {
    /// Its slice of fuel is spent, or it gives the others a turn.
    Yield,
    Sleep,
    /// Every lane has finished (the engine set the warp's status to
    /// [`WarpStatus::Done`]).
    Done,
    /// Lanes `mask` exited (or finished otherwise): the CTA's live threads
    /// drop by their count and its barriers are checked again.
    Exited { mask: u32 },
    /// Lanes `mask` at a barrier instruction at `pc` of frame `frame`.
    Bar { frame: u32, pc: u32, mask: u32, args: BarArgs },
    ClusterArrive { mask: u32 },
    ClusterWait { mask: u32 },
    /// Lanes `mask` at the grid-wide barrier of a cooperative launch.
    GridSync { mask: u32 },
}

/// What parked lanes wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// CTA barrier `id`.
    Bar(u32),
    /// The end of cluster-barrier phase `phase`.
    Cluster(u64),
    /// The end of grid-barrier phase `phase`.
    Grid(u64),
}

impl Wait {
    /// The status of a warp all of whose lanes wait for this.
    pub fn status(self) -> WarpStatus {
        match self {
            Wait::Bar(id) => WarpStatus::Barrier(id),
            Wait::Cluster(phase) => WarpStatus::ClusterWait(phase),
            Wait::Grid(phase) => WarpStatus::GridWait(phase),
        }
    }
}

/// The warp whose turn it is: warp `warp` of `cta`, with the other CTAs of
/// its cluster (`lo` below it, `hi` above it, in rank order), the fuel the
/// turn may still use (one unit per warp instruction; the engine counts it
/// down and stops with [`Stop::Yield`] at zero) and the statistics the
/// turn adds to.
pub struct WarpTurn<'s, W> {
    pub lo: &'s mut [Cta<W>],
    pub cta: &'s mut Cta<W>,
    pub hi: &'s mut [Cta<W>],
    pub warp: usize,
    pub budget: u64,
    pub stats: &'s mut Stats,
}

/// A warp engine: the scheduler runs any engine's warps.
pub trait WarpEngine {
    /// The engine's warp: the PTX engine's [`Warp`] and whatever the
    /// engine keeps beside it.
    type Warp: AsRef<Warp> + AsMut<Warp>;
    /// A problem inside a turn, before the CTA and warp are attached. The
    /// scheduler's own traps (deadlocks, spins, fuel) come as [`Located`].
    type Fault: From<Located>;
    /// The engine's located error.
    type Error;
    /// Runs the warp until the turn's fuel is spent or a stop the
    /// scheduler must see.
    fn turn(&self, t: &mut WarpTurn<'_, Self::Warp>) -> Result<Stop, Self::Fault>;
    /// Where the warp is (function, pc, in the engine's code), for errors.
    fn current(&self, w: &Self::Warp) -> (FuncId, u32);
    /// Moves lanes `mask`, stopped at a non-blocking synchronisation
    /// instruction, past it.
    fn advance(&self, w: &mut Self::Warp, mask: u32);
    /// Lanes `mask` stopped at a synchronisation instruction; `waiting` of
    /// them wait for `on`, the others go on past it.
    fn block(&self, w: &mut Self::Warp, mask: u32, waiting: u32, on: Wait);
    /// Releases the lanes of `mask` that wait for `on`, past the instruction.
    fn release(&self, w: &mut Self::Warp, on: Wait, mask: u32);
    /// For an engine under which a warp can spin forever while some of its
    /// lanes are parked (a reconvergence or CRS stack), the warp's state
    /// after its turn: the scheduler reports a state that repeats with no
    /// store anywhere. `None`: nothing to check after this turn (the
    /// warp's checkpoints stay as they are).
    fn spin_state(&self, _w: &Self::Warp) -> Option<SpinState> {
        None
    }
    /// The located error of fault `f` in warp `warp` of `cta`.
    fn locate(&self, cta: &Cta<Self::Warp>, warp: u32, f: Self::Fault) -> Self::Error;
    /// The located error of warp `wi` of `ctas[ci]`, which found the
    /// launch's fuel or time spent (`l`).
    fn out_of_fuel(&self, ctas: &[Cta<Self::Warp>], ci: usize, wi: usize, l: Located) -> Self::Error {
        self.locate(&ctas[ci], wi as u32, l.into())
    }
}

/// What spin detection looks at.
pub struct SpinState {
    /// A hash of the warp's architectural state ([`StateHash`]).
    pub hash: u64,
    /// The lanes running, and those parked waiting for them.
    pub running: u32,
    pub parked: u32,
    /// Whether any lanes wait below the running ones (only then can the
    /// warp spin forever).
    pub nested: bool,
    /// Where the running lanes are (as [`WarpEngine::current`]).
    pub at: (FuncId, u32),
    /// Where the parked lanes wait, and what to do about it, for the
    /// message: "which {why}".
    pub why: &'static str,
}

/// The hash of a warp's architectural state that spin detection compares
/// (one multiply and rotate per word: a checkpoint, not a defence).
#[derive(Clone, Copy, Debug)]
pub struct StateHash(u64);

impl Default for StateHash {
    fn default() -> StateHash {
        StateHash::new()
    }
}

impl StateHash {
    pub fn new() -> StateHash {
        StateHash(0xcbf2_9ce4_8422_2325)
    }

    #[inline(always)]
    pub fn mix(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    /// The registers and predicates of frame `fr` in the lanes of `mask`.
    pub fn frame(&mut self, fr: &Frame, mask: u32) {
        for r in &fr.regs {
            for l in lanes(mask) {
                self.mix(r[l]);
            }
        }
        for p in &fr.preds {
            self.mix((p & mask) as u64);
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Runs `f` on the PTX engine's [`Turn`] of `t`'s warp: the CTA's shared
/// memory, the cluster's other CTAs lent, the fuel and statistics.
pub(crate) fn ptx_turn<R>(t: &mut WarpTurn<'_, Warp>, f: impl FnOnce(&mut Turn<'_, '_>) -> R) -> R {
    let Cta { env, shared, warps, .. } = &mut *t.cta;
    let mut peers = Peers { lo: &mut *t.lo, hi: &mut *t.hi, lent: true };
    let mut turn = Turn { env, shared, peers: &mut peers, warp: &mut warps[t.warp], budget: t.budget, stats: &mut *t.stats };
    let r = f(&mut turn);
    t.budget = turn.budget;
    r
}

/// The located error of trap `l` in warp `warp` of CTA `cta`.
pub(crate) fn locate(ctx: &Ctx<'_>, cta: &CtaEnv, warp: u32, l: Located) -> RunError {
    let f = ctx.prog.functions.get(l.func as usize);
    let ins = f.and_then(|f| f.code.get(l.pc as usize));
    RunError {
        kind: l.trap.kind,
        message: l.trap.message,
        function: f.map(|f| f.name.clone()),
        line: ins.map(|i| i.line).or(f.map(|f| f.line)),
        span: ins.map(|i| i.span),
        cta: Some(cta.ctaid),
        warp: Some(warp),
        lane: l.trap.lane,
        stdout: Default::default(),
    }
}
