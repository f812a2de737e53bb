//! Stack-mode scheduling (pre-Volta): one SIMT stack of (pc, mask,
//! reconvergence pc, frame) entries per warp, fed by the immediate
//! post-dominators from `ptxsim-analysis`.
//!
//! On a divergent branch at `i` with reconvergence `r`, the top entry
//! becomes the reconvergence entry (pc `r`), and the not-taken and taken
//! paths are pushed with rpc `r` (the taken path runs first). When the top
//! entry reaches its rpc it is popped. `brx.idx` pushes one entry per
//! distinct target. A call pushes one entry per callee (a new frame each);
//! returning lanes leave every entry of their frame, so the caller resumes
//! only when all lanes of the call have returned. Exited lanes leave every
//! entry.

use crate::cta::Cta;
use crate::error::Trap;
use crate::exec::{run_group, At, Ctx, Event, Turn};
use crate::policy::{locate, ptx_turn, Located, SpinState, StateHash, Stop, Wait, WarpEngine, WarpTurn};
use crate::program::*;
use crate::warp::{Entry, Stats, Warp, WarpStatus, NO_FRAME};
use crate::error::RunError;

/// The reconvergence-stack engine of a launch.
pub(crate) struct Stack<'c>(pub &'c Ctx<'c>);

/// Puts every valid lane of a fresh warp at pc 0 of frame `frame`.
pub(crate) fn enter(w: &mut Warp, frame: u32) {
    w.stack.push(Entry { pc: 0, mask: w.valid, rpc: PC_EXIT, frame });
}

fn loc(warp: &Warp, t: Trap) -> Located {
    let (func, pc) = current(warp);
    Located { trap: t, func, pc }
}

fn current(warp: &Warp) -> (FuncId, u32) {
    match warp.stack.last() {
        Some(e) => (warp.frames[e.frame as usize].func, e.pc),
        None => (0, 0),
    }
}

impl WarpEngine for Stack<'_> {
    type Warp = Warp;
    type Fault = Located;
    type Error = RunError;

    fn turn(&self, t: &mut WarpTurn<'_, Warp>) -> Result<Stop, Located> {
        ptx_turn(t, |t| turn(self.0, t))
    }

    fn current(&self, w: &Warp) -> (FuncId, u32) {
        current(w)
    }

    fn advance(&self, w: &mut Warp, _mask: u32) {
        if let Some(t) = w.stack.last_mut() {
            t.pc += 1;
        }
    }

    /// The whole warp waits (its other lanes go on with it once released).
    fn block(&self, w: &mut Warp, _mask: u32, _waiting: u32, on: Wait) {
        w.status = on.status();
    }

    fn release(&self, w: &mut Warp, on: Wait, _mask: u32) {
        if w.status == on.status() {
            if let Some(t) = w.stack.last_mut() {
                t.pc += 1;
            }
            w.status = WarpStatus::Runnable;
        }
    }

    fn spin_state(&self, w: &Warp) -> Option<SpinState> {
        let top = *w.stack.last()?;
        let parked: u32 = w.stack[..w.stack.len() - 1].iter().fold(0, |a, e| a | e.mask) & !top.mask;
        Some(SpinState {
            hash: state_hash(w),
            running: top.mask,
            parked,
            nested: w.stack.len() >= 2,
            at: current(w),
            why: "are parked at a reconvergence point (a spin lock?); --scheduling its runs it",
        })
    }

    fn locate(&self, cta: &Cta, warp: u32, l: Located) -> RunError {
        locate(self.0, &cta.env, warp, l)
    }

    fn out_of_fuel(&self, ctas: &[Cta], ci: usize, wi: usize, l: Located) -> RunError {
        crate::fuel::out_of_budget(self.0, ctas, ci, wi, l)
    }
}

/// Pops finished entries; frees frames whose last entry went.
fn normalize(warp: &mut Warp) {
    while let Some(top) = warp.stack.last().copied() {
        if top.mask != 0 && top.pc != top.rpc {
            return;
        }
        warp.stack.pop();
        if warp.stack.last().map(|t| t.frame) != Some(top.frame) {
            warp.free_frame(top.frame);
        }
    }
}

/// Removes `m` from every entry of frame `fi` (contiguous at the top).
fn leave_frame(warp: &mut Warp, fi: u32, m: u32) {
    for e in warp.stack.iter_mut().rev() {
        if e.frame != fi {
            break;
        }
        e.mask &= !m;
    }
}

fn diverge(warp: &mut Warp, prog: &Program, stats: &mut Stats, pc: u32, groups: &[(u32, u32)]) {
    let Some(top) = warp.stack.last().copied() else { return };
    let func = warp.frames[top.frame as usize].func;
    let r = prog.functions[func as usize].reconv.get(pc as usize).copied().unwrap_or(PC_EXIT);
    push_groups(warp, r, groups);
    stats.divergent_branches += 1;
    *stats.divergence.entry((func, pc)).or_insert(0) += 1;
}

/// The stack after a divergence with reconvergence point `r` into
/// `groups` (target, lanes): the top entry waits at `r` (or, when it is
/// itself a path of an earlier divergence to `r`, gives way), and each
/// group not at `r` is pushed, the first on top.
fn push_groups(warp: &mut Warp, r: u32, groups: &[(u32, u32)]) {
    let Some(top) = warp.stack.last().copied() else { return };
    let n = warp.stack.len();
    let below_ok = top.rpc == r && n >= 2 && warp.stack[n - 2].pc == r && warp.stack[n - 2].frame == top.frame;
    if below_ok {
        warp.stack.pop();
    } else if let Some(t) = warp.stack.last_mut() {
        t.pc = r;
    }
    // Push in reverse so that the first group (the taken path) runs first.
    for &(target, mask) in groups.iter().rev() {
        if mask != 0 && target != r {
            warp.stack.push(Entry { pc: target, mask, rpc: r, frame: top.frame });
        }
    }
}

/// Runs the warp until its slice ends or an event the CTA must see.
fn turn(ctx: &Ctx<'_>, t: &mut Turn<'_, '_>) -> Result<Stop, Located> {
    let prog = ctx.prog;
    loop {
        let warp = &mut *t.warp;
        normalize(warp);
        let Some(top) = warp.stack.last().copied() else {
            warp.status = WarpStatus::Done;
            return Ok(Stop::Done);
        };
        if t.budget == 0 {
            return Ok(Stop::Yield);
        }
        let mut at = At { frame: top.frame, pc: top.pc, mask: top.mask, stop: top.rpc, yield_on_branch: false, converge: false, stack: true, threads_less: 0 };
        let ev = run_group(ctx, t, &mut at);
        let (pc, warp, stats) = (at.pc, &mut *t.warp, &mut *t.stats);
        if let Some(t) = warp.stack.last_mut() {
            t.pc = pc;
        }
        let ev = ev.map_err(|t| loc(warp, t))?;
        match ev {
            Event::Stop | Event::Branched | Event::Converge => {}
            // Compiled code ran a loop lane by lane and reports the
            // divergences it counted: the stack they leave.
            Event::Split { rpc, mask } => push_groups(warp, rpc, &[(pc, mask)]),
            // Compiled code diverged at a `bra` and left inside a side:
            // the stack that divergence pushed, with the side at `pc`.
            Event::Side { sides, mask } => {
                for side in &sides {
                    let Some(top) = warp.stack.last().copied() else { break };
                    let func = warp.frames[top.frame as usize].func;
                    let (target, r) = side.pcs(&prog.functions[func as usize]);
                    push_groups(warp, r, &[(target, side.taken), (side.branch + 1, top.mask & !side.taken)]);
                    if side.second && target != r && side.taken != 0 {
                        // The taken side ran to the reconvergence point.
                        warp.stack.pop();
                    }
                }
                if let Some(t) = warp.stack.last_mut() {
                    debug_assert_eq!(t.mask, mask, "the side's lanes");
                    t.pc = pc;
                }
            }
            Event::Yield => return Ok(Stop::Yield),
            Event::Diverge { taken, target } => {
                let groups = [(target, taken), (pc + 1, top.mask & !taken)];
                diverge(warp, prog, stats, pc, &groups);
            }
            Event::Brx { mut groups } => {
                groups.sort_by_key(|g| g.0);
                diverge(warp, prog, stats, pc, &groups);
            }
            Event::Call { groups, args, nrets } => {
                if let Some(t) = warp.stack.last_mut() {
                    t.pc = pc + 1;
                }
                let mut new = Vec::with_capacity(groups.len());
                for &(f, m) in &groups {
                    let fi = warp.call(prog, ctx.geom.max_depth, (top.frame, pc), (f, m), args, nrets).map_err(|t| Located {
                        trap: t,
                        func: warp.frames[top.frame as usize].func,
                        pc,
                    })?;
                    new.push(Entry { pc: 0, mask: m, rpc: PC_EXIT, frame: fi });
                }
                if groups.len() > 1 {
                    stats.divergent_branches += 1;
                    let func = warp.frames[top.frame as usize].func;
                    *stats.divergence.entry((func, pc)).or_insert(0) += 1;
                }
                for e in new.into_iter().rev() {
                    warp.stack.push(e);
                }
            }
            Event::Ret { mask } => {
                let fi = top.frame;
                if warp.frames[fi as usize].caller == NO_FRAME {
                    return Ok(exit(warp, mask, pc));
                }
                warp.pass_rets(prog, fi, mask).map_err(|t| Located { trap: t, func: warp.frames[fi as usize].func, pc })?;
                warp.frames[fi as usize].returned |= mask;
                if let Some(t) = warp.stack.last_mut() {
                    t.pc = pc + 1;
                }
                leave_frame(warp, fi, mask);
            }
            Event::Exit { mask } => return Ok(exit(warp, mask, pc)),
            Event::Bar { mask, args } => {
                return Ok(Stop::Bar { frame: top.frame, pc, mask, args });
            }
            Event::ClusterArrive { mask } => return Ok(Stop::ClusterArrive { mask }),
            Event::ClusterWait { mask } => return Ok(Stop::ClusterWait { mask }),
            Event::GridSync { mask } => return Ok(Stop::GridSync { mask }),
            Event::Sleep { ns } => {
                warp.sleep_ns += ns;
                if let Some(t) = warp.stack.last_mut() {
                    t.pc = pc + 1;
                }
                return Ok(Stop::Sleep);
            }
        }
    }
}

fn exit(warp: &mut Warp, mask: u32, pc: u32) -> Stop {
    warp.exited |= mask;
    if let Some(t) = warp.stack.last_mut() {
        t.pc = pc + 1;
    }
    for e in warp.stack.iter_mut() {
        e.mask &= !mask;
    }
    normalize(warp);
    if warp.stack.is_empty() {
        warp.status = WarpStatus::Done;
    }
    Stop::Exited { mask }
}

/// A hash of the warp's architectural state for spin detection.
fn state_hash(warp: &Warp) -> u64 {
    let mut h = StateHash::new();
    for e in &warp.stack {
        h.mix(((e.pc as u64) << 32) | e.mask as u64);
        h.mix(((e.rpc as u64) << 32) | e.frame as u64);
    }
    if let Some(top) = warp.stack.last() {
        h.frame(&warp.frames[top.frame as usize], top.mask);
    }
    h.finish()
}
