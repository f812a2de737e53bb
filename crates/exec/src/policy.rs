//! The scheduling seam: what a warp-scheduling policy supplies to the CTA
//! scheduler (`sched.rs`). A policy decides which lanes of a warp run
//! together and where they go after a divergence, a call or a return; the
//! scheduler owns barriers, clusters, fuel and deadlock detection, and
//! talks to the policy only through [`Policy`]: a turn of the warp, moving
//! lanes past an instruction, parking lanes at a barrier and releasing
//! them. Events come with their operands evaluated ([`BarArgs`]; a call's
//! arguments with its event), so the scheduler never reads the program's
//! instructions.
//!
//! Policies: the reconvergence stack (`simt_stack.rs`, `--scheduling
//! stack`) and independent thread scheduling (`its.rs`, `--scheduling its`).

use crate::error::{RunError, Trap};
pub(crate) use crate::exec::BarArgs;
use crate::exec::{CtaEnv, Ctx, Turn};
use crate::program::FuncId;
use crate::warp::{Warp, WarpStatus};

/// A trap with the function and pc it happened at.
#[derive(Debug)]
pub(crate) struct Located {
    pub trap: Trap,
    pub func: FuncId,
    pub pc: u32,
}

/// How a warp's turn ended.
#[derive(Debug)]
pub(crate) enum TurnEnd {
    Yield,
    Sleep,
    Done,
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
pub(crate) enum Wait {
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

/// A warp-scheduling policy.
pub(crate) trait Policy: Sync {
    /// Puts every valid lane of a fresh warp at pc 0 of frame `frame`.
    fn enter(&self, w: &mut Warp, frame: u32);
    /// Runs turn `t`'s warp until the turn's fuel is spent or an event the
    /// scheduler must see.
    fn turn(&self, ctx: &Ctx<'_>, t: &mut Turn<'_, '_>) -> Result<TurnEnd, Located>;
    /// Where the warp is (function, pc), for errors.
    fn current(&self, w: &Warp) -> (FuncId, u32);
    /// Moves lanes `mask`, stopped at a non-blocking synchronisation
    /// instruction, past it.
    fn advance(&self, w: &mut Warp, mask: u32);
    /// Lanes `mask` stopped at a synchronisation instruction; `waiting` of
    /// them wait for `on`, the others go on past it.
    fn block(&self, w: &mut Warp, mask: u32, waiting: u32, on: Wait);
    /// Releases the lanes of `mask` that wait for `on`, past the instruction.
    fn release(&self, w: &mut Warp, on: Wait, mask: u32);
    /// For a policy under which a warp can spin forever while some of its
    /// lanes are parked (the reconvergence stack), the warp's state: the
    /// scheduler reports a state that repeats with no store anywhere.
    fn spin_state(&self, _w: &Warp) -> Option<SpinState> {
        None
    }
}

/// What spin detection looks at.
pub(crate) struct SpinState {
    /// A hash of the warp's architectural state.
    pub hash: u64,
    /// The lanes running, and those parked waiting for them.
    pub running: u32,
    pub parked: u32,
    /// Whether any lanes wait below the running ones (only then can the
    /// warp spin forever).
    pub nested: bool,
    /// Where the running lanes are.
    pub at: (FuncId, u32),
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
