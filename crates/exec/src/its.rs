//! Independent thread scheduling (sm_70+): every lane has its own pc and
//! frame. The scheduler picks the ready lanes that share the lowest
//! (pc, frame) and runs them together, so lanes that meet at the same pc
//! reconverge; a group that keeps spinning on a backward branch while
//! others wait is rotated out, so a lock holder always makes progress.
//! A divergent `ret` parks the returning lanes until every lane of the call
//! has returned (or exited).
//!
//! A group that reaches a whole-warp `.sync.aligned` instruction (`mma`,
//! `wgmma.mma_async`, `ldmatrix`, ...) while other lanes of the warp are
//! ready elsewhere, or a `vote`/`match`/`redux`/`elect.sync` whose
//! membermask names such lanes, waits there unexecuted (`Warp::converge`), as the
//! manual's `.sync` says, and is not picked while other lanes can run, so
//! the rest of the warp catches up and the instruction runs whole: a lane
//! spinning inside an `if` (CUTLASS's producer waiting on an mbarrier)
//! while the others, rotated in, go round the loop to the next `wgmma`.
//! Groups held at different such instructions, with no other lane to run,
//! execute and trap `non_uniform` as before.

use crate::cta::Cta;
use crate::error::RunError;
use crate::exec::{run_group, At, Ctx, Event, Turn};
use crate::policy::{locate, ptx_turn, Located, Stop, Wait, WarpEngine, WarpTurn};
use crate::program::*;
use crate::warp::{lanes, LaneState, Warp, WarpStatus, NO_FRAME};

/// The independent-thread-scheduling engine of a launch.
pub(crate) struct Its<'c>(pub &'c Ctx<'c>);

/// The lane state of lanes waiting for `on`.
fn wait_state(on: Wait) -> LaneState {
    match on {
        Wait::Bar(_) => LaneState::Barrier,
        Wait::Cluster(phase) => LaneState::ClusterWait(phase),
        Wait::Grid(phase) => LaneState::GridWait(phase),
    }
}

/// Puts every valid lane of a fresh warp at pc 0 of frame `frame`.
pub(crate) fn enter(w: &mut Warp, frame: u32) {
    w.its_used = true;
    for l in lanes(w.valid) {
        w.lane_frame[l] = frame;
    }
}

impl WarpEngine for Its<'_> {
    type Warp = Warp;
    type Fault = Located;
    type Error = RunError;

    fn turn(&self, t: &mut WarpTurn<'_, Warp>) -> Result<Stop, Located> {
        ptx_turn(t, |t| turn(self.0, t))
    }

    fn current(&self, w: &Warp) -> (FuncId, u32) {
        for l in 0..32 {
            if w.lane_state[l] == LaneState::Ready && w.lane_frame[l] != NO_FRAME {
                return (w.frames[w.lane_frame[l] as usize].func, w.pc[l]);
            }
        }
        (0, 0)
    }

    fn advance(&self, w: &mut Warp, mask: u32) {
        for l in lanes(mask) {
            w.pc[l] += 1;
        }
    }

    /// The waiting lanes park; the warp blocks once no lane is ready.
    fn block(&self, w: &mut Warp, mask: u32, waiting: u32, on: Wait) {
        for l in lanes(mask) {
            if waiting >> l & 1 == 1 {
                w.lane_state[l] = wait_state(on);
            } else {
                w.pc[l] += 1;
            }
        }
        if ready_mask(w) == 0 {
            w.status = on.status();
        }
    }

    fn release(&self, w: &mut Warp, on: Wait, mask: u32) {
        let mut released = 0u32;
        for l in lanes(mask) {
            if w.lane_state[l] == wait_state(on) {
                w.lane_state[l] = LaneState::Ready;
                w.pc[l] += 1;
                released |= 1 << l;
            }
        }
        if released != 0 && w.status != WarpStatus::Done {
            w.status = WarpStatus::Runnable;
        }
    }

    fn locate(&self, cta: &Cta, warp: u32, l: Located) -> RunError {
        locate(self.0, &cta.env, warp, l)
    }

    fn out_of_fuel(&self, ctas: &[Cta], ci: usize, wi: usize, l: Located) -> RunError {
        crate::fuel::out_of_budget(self.0, ctas, ci, wi, l)
    }
}

/// Quanta a spinning group may take before another group gets a turn.
const SPIN_ROTATE: u32 = 8;

fn ready_mask(w: &Warp) -> u32 {
    let mut m = 0;
    for l in 0..32 {
        if w.lane_state[l] == LaneState::Ready {
            m |= 1 << l;
        }
    }
    m
}

fn pick(w: &mut Warp, ready: u32) -> (u32, u32, u32) {
    // Lanes held at a whole-warp instruction give way to the others; a
    // group still takes the held lanes at its pc along.
    let movable = if ready & !w.converge != 0 { ready & !w.converge } else { ready };
    let mut keys: Vec<(u32, u32)> = lanes(movable).map(|l| (w.pc[l], w.lane_frame[l])).collect();
    keys.sort_unstable();
    keys.dedup();
    let key = if w.spins >= SPIN_ROTATE && keys.len() > 1 {
        // Give the lanes that were not spinning a turn.
        w.spins = 0;
        let last = w.last_mask;
        keys.iter()
            .copied()
            .find(|k| lanes(ready).all(|l| (w.pc[l], w.lane_frame[l]) != *k || last >> l & 1 == 0))
            .unwrap_or(keys[0])
    } else {
        keys[0]
    };
    w.last_key = Some(key);
    let mut m = 0;
    for l in lanes(ready) {
        if (w.pc[l], w.lane_frame[l]) == key {
            m |= 1 << l;
        }
    }
    w.last_mask = m;
    (key.0, key.1, m)
}

/// Releases the lanes of frame `fi` if every member has returned or exited.
fn try_complete(w: &mut Warp, fi: u32) {
    let fr = &w.frames[fi as usize];
    if !fr.alive || fr.caller == NO_FRAME {
        return;
    }
    let done = fr.returned | (fr.members & w.exited);
    if done & fr.members != fr.members {
        return;
    }
    let (caller, ret_pc, back) = (fr.caller, fr.call_pc + 1, fr.returned & !w.exited);
    for l in lanes(back) {
        w.pc[l] = ret_pc;
        w.lane_frame[l] = caller;
        w.lane_state[l] = LaneState::Ready;
    }
    w.free_frame(fi);
}

/// The pcs of the lanes of group `m` other than `mask` when compiled code
/// left the group's lanes `mask` inside `sides` of divergent `bra`s
/// (outermost first): where each divergence sent them (the reconvergence
/// point once the taken side ran).
fn side_lanes(f: &Function, w: &mut Warp, sides: &[crate::tier::Side], (m, mask): (u32, u32)) {
    let mut group = m;
    for side in sides {
        let (target, r) = side.pcs(f);
        let here = if side.second { group & !side.taken } else { group & side.taken };
        for l in lanes(group & !here & !mask) {
            w.pc[l] = if side.second { r } else if side.taken >> l & 1 == 1 { target } else { side.branch + 1 };
        }
        group = here;
    }
}

fn turn(ctx: &Ctx<'_>, t: &mut Turn<'_, '_>) -> Result<Stop, Located> {
    let prog = ctx.prog;
    loop {
        let w = &mut *t.warp;
        let ready = ready_mask(w);
        if ready == 0 {
            let alive = (0..32).any(|l| !matches!(w.lane_state[l], LaneState::Exited | LaneState::Absent));
            w.status = if alive { WarpStatus::Barrier(u32::MAX) } else { WarpStatus::Done };
            return Ok(if alive { Stop::Yield } else { Stop::Done });
        }
        if t.budget == 0 {
            return Ok(Stop::Yield);
        }
        let (pc0, fi, m) = pick(w, ready);
        let others = ready & !m;
        let mut stop = PC_EXIT;
        for l in lanes(others) {
            if w.lane_frame[l] == fi && w.pc[l] > pc0 && w.pc[l] < stop {
                stop = w.pc[l];
            }
        }
        // Hold the group at a whole-warp instruction while lanes that are
        // not themselves held can still run and join it.
        w.converge &= !m;
        let converge = others & !w.converge != 0;
        let mut at = At { frame: fi, pc: pc0, mask: m, stop, yield_on_branch: others != 0, converge, stack: false, threads_less: 0 };
        let ev = run_group(ctx, t, &mut at);
        let (pc, w, stats) = (at.pc, &mut *t.warp, &mut *t.stats);
        for l in lanes(m) {
            w.pc[l] = pc;
        }
        let func = w.frames[fi as usize].func;
        let ev = ev.map_err(|t| Located { trap: t, func, pc })?;
        match ev {
            Event::Stop => {}
            Event::Converge => w.converge |= m,
            // Compiled code splits stack-mode groups only; lanes of a
            // split would wait at the reconvergence point.
            Event::Split { rpc, mask } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = rpc;
                }
            }
            // Compiled code runs divergent sides in stack mode only; were
            // it to, the lanes not in the side go where that divergence
            // sent them.
            Event::Side { sides, mask } => side_lanes(&ctx.prog.functions[func as usize], w, &sides, (m, mask)),
            Event::Yield => return Ok(Stop::Yield),
            Event::Branched => {
                if pc <= pc0 || others != 0 && pc < pc0 {
                    w.spins += 1;
                }
            }
            Event::Diverge { taken, target } => {
                for l in lanes(taken) {
                    w.pc[l] = target;
                }
                for l in lanes(m & !taken) {
                    w.pc[l] = pc + 1;
                }
                stats.divergent_branches += 1;
                *stats.divergence.entry((func, pc)).or_insert(0) += 1;
                if target <= pc {
                    w.spins += 1;
                }
            }
            Event::Brx { groups } => {
                for (t, gm) in &groups {
                    for l in lanes(*gm) {
                        w.pc[l] = *t;
                    }
                }
                stats.divergent_branches += 1;
                *stats.divergence.entry((func, pc)).or_insert(0) += 1;
            }
            Event::Call { groups, args, nrets } => {
                for l in lanes(m) {
                    w.pc[l] = pc + 1;
                }
                for &(f, gm) in &groups {
                    let nf = w.call(prog, ctx.geom.max_depth, (fi, pc), (f, gm), args, nrets).map_err(|t| Located { trap: t, func, pc })?;
                    for l in lanes(gm) {
                        w.pc[l] = 0;
                        w.lane_frame[l] = nf;
                    }
                }
                if groups.len() > 1 {
                    stats.divergent_branches += 1;
                    *stats.divergence.entry((func, pc)).or_insert(0) += 1;
                }
            }
            Event::Ret { mask } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = pc + 1;
                }
                if w.frames[fi as usize].caller == NO_FRAME {
                    return Ok(exit(w, mask));
                }
                w.pass_rets(prog, fi, mask).map_err(|t| Located { trap: t, func, pc })?;
                w.frames[fi as usize].returned |= mask;
                for l in lanes(mask) {
                    w.lane_state[l] = LaneState::WaitRet;
                }
                try_complete(w, fi);
            }
            Event::Exit { mask } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = pc + 1;
                }
                return Ok(exit(w, mask));
            }
            Event::Bar { mask, args } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = pc + 1;
                }
                return Ok(Stop::Bar { frame: fi, pc, mask, args });
            }
            Event::ClusterArrive { mask } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = pc + 1;
                }
                return Ok(Stop::ClusterArrive { mask });
            }
            Event::ClusterWait { mask } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = pc + 1;
                }
                return Ok(Stop::ClusterWait { mask });
            }
            Event::GridSync { mask } => {
                for l in lanes(m & !mask) {
                    w.pc[l] = pc + 1;
                }
                return Ok(Stop::GridSync { mask });
            }
            Event::Sleep { ns } => {
                w.sleep_ns += ns;
                for l in lanes(m) {
                    w.pc[l] = pc + 1;
                }
                w.spins += 1;
                return Ok(Stop::Sleep);
            }
        }
    }
}

fn exit(w: &mut Warp, mask: u32) -> Stop {
    w.exited |= mask;
    for l in lanes(mask) {
        w.lane_state[l] = LaneState::Exited;
    }
    // Frames waiting on these lanes may now be complete.
    for fi in 0..w.frames.len() as u32 {
        if w.frames[fi as usize].alive && w.frames[fi as usize].members & mask != 0 {
            try_complete(w, fi);
        }
    }
    if ready_mask(w) == 0 && (0..32).all(|l| matches!(w.lane_state[l], LaneState::Exited | LaneState::Absent)) {
        w.status = WarpStatus::Done;
    }
    Stop::Exited { mask }
}
