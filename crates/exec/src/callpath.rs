//! The PTX engine's handlers of `call` and of the barrier instructions,
//! for executor loops other than the PTX one (the sm_50 machine form in
//! `ptxsim-sass`): the engine's own `call` handler (guard, `.uni`,
//! per-lane function-pointer resolution and their traps), callee frames
//! with the arguments passed, the return values passed back, and a barrier
//! instruction's operands, so that no other loop copies them.

use crate::barrier::BarArgs;
use crate::datapath::{with_lanes, DataEnv, Setup, Warp};
use crate::error::{RunError, Trap, TrapKind};
use crate::exec::{bar_args as eval_bar, call_groups};
use crate::program::{FuncId, Instr, Op};

fn err(t: Trap) -> RunError {
    RunError::new(t.kind, t.message).with_lane(t.lane)
}

/// The instruction at `pc` of the function of live frame `frame`.
fn instr<'s>(setup: &'s Setup, warp: &Warp, frame: u32, pc: u32) -> Result<&'s Instr, RunError> {
    let f = warp.frames.get(frame as usize).filter(|f| f.alive).map(|f| f.func);
    f.and_then(|f| setup.program.functions.get(f as usize)?.code.get(pc as usize))
        .ok_or_else(|| RunError::new(TrapKind::Unsupported, format!("internal: no instruction {pc} in frame {frame}")))
}

/// Runs the `call` at `pc` of frame `frame` for the lanes of `mask` with
/// the PTX engine's handler, and returns the calling lanes grouped by
/// callee (empty when the guard holds on none). Counts one instruction.
pub fn groups(setup: &Setup, env: &DataEnv<'_>, shared: &mut [u8], warp: &mut Warp, frame: u32, pc: u32, mask: u32) -> Result<Vec<(FuncId, u32)>, RunError> {
    let ins = instr(setup, warp, frame, pc)?;
    let r = with_lanes(env, shared, warp, frame, |cx, fr| call_groups(&setup.program, cx, fr, ins, mask));
    warp.instrs += 1;
    r
}

/// Evaluates the barrier instruction at `pc` of frame `frame` for lanes
/// `mask` with the PTX engine's handler: the lanes whose guard holds and
/// the operands, or `None` when the guard holds on none. Errors are the
/// PTX engine's (an id out of range, an id that differs across lanes).
pub fn barrier_args(setup: &Setup, env: &DataEnv<'_>, shared: &mut [u8], warp: &mut Warp, frame: u32, pc: u32, mask: u32) -> Result<Option<(u32, BarArgs)>, RunError> {
    let ins = instr(setup, warp, frame, pc)?;
    let r = with_lanes(env, shared, warp, frame, |cx, fr| eval_bar(cx, fr, ins, mask));
    warp.instrs += 1;
    r
}

/// Enters `callee` for lanes `mask` from the `call` at `pc` of frame
/// `caller`: a new frame with the call's arguments passed (call depth and
/// signature checked as in the PTX engine). Returns the new frame.
pub fn enter(setup: &Setup, warp: &mut Warp, caller: u32, pc: u32, callee: FuncId, mask: u32) -> Result<u32, RunError> {
    let cf = warp.frames[caller as usize].func;
    let Some(Op::Call { args, rets, .. }) = setup.program.functions[cf as usize].code.get(pc as usize).map(|i| &i.op) else {
        return Err(RunError::new(crate::error::TrapKind::Unsupported, "internal: not a call instruction"));
    };
    warp.call(&setup.program, setup.geom.max_depth, (caller, pc), (callee, mask), args, rets.len()).map_err(err)
}

/// Passes the return values of frame `callee` back to its caller's
/// bindings for lanes `mask`.
pub fn leave(setup: &Setup, warp: &mut Warp, callee: u32, mask: u32) -> Result<(), RunError> {
    warp.pass_rets(&setup.program, callee, mask).map_err(err)
}
