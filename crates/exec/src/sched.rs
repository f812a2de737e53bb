//! CTA and cluster scheduling: the warps of the CTAs of one group (a
//! cluster, or a cooperative launch's whole grid, its clusters side by
//! side) run in a deterministic round-robin on one core, each for a slice
//! of fuel or until it blocks. This file owns barriers (`bar.sync/arrive/red`,
//! `barrier.cluster.arrive/wait`, the grid-wide barrier of a cooperative
//! launch), their release when threads exit, deadlock detection and spin
//! detection. Fuel comes from the worker's
//! [`Tank`] (`fuel`). The warps themselves run through a [`Policy`]
//! (`policy.rs`): this file never looks inside a warp's reconvergence state
//! nor at the program's instructions.

use crate::error::{RunError, Trap, TrapKind};
use crate::exec::{Ctx, Turn};
use crate::fuel::Tank;
use crate::lanemem::Peers;
pub(crate) use crate::cta::Cta;
use crate::policy::{locate, Located};
use crate::barrier::{BarArgs, Waiter};
use crate::policy::{Policy, TurnEnd, Wait};
use crate::warp::{lanes, Stats, WarpStatus};
use crate::config::Scheduling;
use std::sync::atomic::{AtomicU64, Ordering};

/// Warp instructions a warp runs before the next warp gets a turn.
const SLICE: u64 = 4096;

struct ClusterSync {
    phase: u64,
    arrived: u32,
    live: u32,
}

/// The grid-wide barrier (`cudaCGSynchronize`) of a cooperative launch,
/// whose CTAs are all in the group: a phase completes when every thread
/// of every CTA that has not exited waits at it, and each CTA still has
/// threads (a CTA that exited never arrives, as on a GPU, where the grid
/// barrier counts CTAs).
struct GridSync {
    phase: u64,
    /// Threads of each CTA waiting in this phase.
    arrived: Vec<u32>,
    any: bool,
}

/// The policy of a scheduling mode.
pub(crate) fn policy(mode: Scheduling) -> &'static dyn Policy {
    match mode {
        Scheduling::Stack => &crate::simt_stack::Stack,
        Scheduling::Its => &crate::its::Its,
    }
}

/// Runs one group of CTAs to completion: clusters of `csize` CTAs each,
/// side by side (one cluster, unless the launch is cooperative).
pub(crate) fn run_cluster(
    ctx: &Ctx<'_>,
    ctas: &mut [Cta],
    csize: usize,
    mode: Scheduling,
    tank: &mut Tank<'_>,
    my_index: u64,
    abort: &AtomicU64,
) -> Result<Stats, RunError> {
    let pol = policy(mode);
    let mut stats = Stats::default();
    let csize = csize.clamp(1, ctas.len().max(1));
    let mut cs: Vec<ClusterSync> =
        ctas.chunks(csize).map(|c| ClusterSync { phase: 0, arrived: 0, live: c.iter().map(|c| c.live).sum() }).collect();
    let mut gs = GridSync { phase: 0, arrived: vec![0; ctas.len()], any: false };
    for c in ctas.iter_mut() {
        c.barriers.reset();
    }
    let mut rounds: u64 = 0;
    loop {
        rounds += 1;
        if rounds.is_multiple_of(64) && abort.load(Ordering::Relaxed) < my_index {
            return Ok(stats);
        }
        let mut any_run = false;
        let mut all_done = true;
        for ci in 0..ctas.len() {
            for wi in 0..ctas[ci].warps.len() {
                let st = ctas[ci].warps[wi].status;
                if st == WarpStatus::Done {
                    continue;
                }
                all_done = false;
                if st != WarpStatus::Runnable {
                    continue;
                }
                any_run = true;
                let slice = match tank.slice(SLICE) {
                    Ok(s) => s,
                    Err(trap) => {
                        let (func, pc) = pol.current(&ctas[ci].warps[wi]);
                        return Err(crate::fuel::out_of_budget(ctx, ctas, ci, wi, Located { trap, func, pc }));
                    }
                };
                let mut left = slice;
                let stores_before = ctas[ci].warps[wi].stores;
                let end = {
                    // The other CTAs of the cluster lend their shared
                    // memories for the turn (distributed shared memory).
                    let base = ci / csize * csize;
                    let end = (base + csize).min(ctas.len());
                    let (lo, rest) = ctas[base..end].split_at_mut(ci - base);
                    let Some((cta, hi)) = rest.split_first_mut() else { continue };
                    let w = &mut cta.warps[wi];
                    let mut peers = Peers { lo, hi, lent: true };
                    let mut t = Turn { env: &cta.env, shared: &mut cta.shared, peers: &mut peers, warp: w, budget: left, stats: &mut stats };
                    let r = pol.turn(ctx, &mut t);
                    left = t.budget;
                    match r {
                        Ok(e) => e,
                        Err(l) => {
                            tank.refund(left);
                            return Err(locate(ctx, &ctas[ci].env, wi as u32, l));
                        }
                    }
                };
                tank.refund(left);
                if ctas[ci].warps[wi].stores != stores_before {
                    ctx.write_epoch.fetch_add(1, Ordering::Relaxed);
                }
                match end {
                    TurnEnd::GridSync { mask } => {
                        pol.block(&mut ctas[ci].warps[wi], mask, mask, Wait::Grid(gs.phase));
                        if let Some(a) = gs.arrived.get_mut(ci) {
                            *a += mask.count_ones();
                        }
                        gs.any = true;
                        check_grid(ctas, &mut gs, pol);
                    }
                    end => {
                        let exited = matches!(end, TurnEnd::Exited { .. });
                        let k = ci / csize;
                        let base = k * csize;
                        let end_cl = (base + csize).min(ctas.len());
                        if let Some(c) = cs.get_mut(k) {
                            handle_end(&mut ctas[base..end_cl], c, ci - base, wi, end, pol);
                        }
                        if exited && gs.any {
                            check_grid(ctas, &mut gs, pol);
                        }
                    }
                }
                spin_check(ctx, ctas, ci, wi, pol)?;
            }
        }
        if all_done {
            return Ok(stats);
        }
        if !any_run {
            return Err(deadlock(ctx, ctas, pol));
        }
    }
}


/// Acts on how a warp's turn ended: exits release barriers, barrier
/// arrivals are counted and their lanes parked through the policy.
fn handle_end(ctas: &mut [Cta], cs: &mut ClusterSync, ci: usize, wi: usize, end: TurnEnd, pol: &dyn Policy) {
    match end {
        // (The grid barrier is the caller's.)
        TurnEnd::Yield | TurnEnd::Sleep | TurnEnd::Done | TurnEnd::GridSync { .. } => {}
        TurnEnd::Exited { mask } => {
            let n = mask.count_ones();
            let cta = &mut ctas[ci];
            cta.live = cta.live.saturating_sub(n);
            cs.live = cs.live.saturating_sub(n);
            // (No arrival in this phase: no exiting lane arrived in it.)
            if cs.arrived != 0 {
                let w = &cta.warps[wi];
                for l in lanes(mask) {
                    if w.cluster_arrived[l] == cs.phase {
                        cs.arrived = cs.arrived.saturating_sub(1);
                    }
                }
            }
            for id in lanes(ctas[ci].barriers.maybe_pending()) {
                if ctas[ci].barriers.pending(id) {
                    check_barrier(&mut ctas[ci], id, pol);
                }
            }
            check_cluster(ctas, cs, pol);
        }
        TurnEnd::Bar { frame, pc, mask, args } => arrive(&mut ctas[ci], wi, Waiter { warp: wi as u32, frame, pc, mask, kind: args.kind, dst: args.dst }, args, pol),
        TurnEnd::ClusterArrive { mask } => {
            let w = &mut ctas[ci].warps[wi];
            w.cluster_used = true;
            for l in lanes(mask) {
                if w.cluster_arrived[l] != cs.phase {
                    w.cluster_arrived[l] = cs.phase;
                    cs.arrived += 1;
                }
            }
            pol.advance(w, mask);
            check_cluster(ctas, cs, pol);
        }
        TurnEnd::ClusterWait { mask } => {
            let w = &mut ctas[ci].warps[wi];
            let waiting: u32 = lanes(mask).filter(|&l| w.cluster_arrived[l] == cs.phase).fold(0, |a, l| a | 1 << l);
            if waiting == 0 {
                pol.advance(w, mask);
            } else {
                pol.block(w, mask, waiting, Wait::Cluster(cs.phase));
            }
        }
    }
}

/// Lanes of warp `wi` arrive at barrier `args.id`: counted, and parked
/// unless the instruction only arrives.
fn arrive(cta: &mut Cta, wi: usize, waiter: Waiter, args: BarArgs, pol: &dyn Policy) {
    let mask = waiter.mask;
    let waits = cta.barriers.arrive(&args, waiter);
    let w = &mut cta.warps[wi];
    if waits {
        pol.block(w, mask, mask, Wait::Bar(args.id));
    } else {
        pol.advance(w, mask);
    }
    check_barrier(cta, args.id as usize, pol);
}

/// Releases barrier `id` once the expected number of threads arrived,
/// writing `bar.red`'s result to each waiter.
fn check_barrier(cta: &mut Cta, id: usize, pol: &dyn Policy) {
    let Some(rel) = cta.barriers.check(id, cta.live) else { return };
    for wt in rel.waiters() {
        let w = &mut cta.warps[wt.warp as usize];
        if let Some(fr) = w.frames.get_mut(wt.frame as usize) {
            rel.write(wt, fr);
        }
        pol.release(w, Wait::Bar(id as u32), wt.mask);
    }
}

/// Completes the cluster barrier's phase once every live thread of the
/// cluster arrived, releasing the lanes that wait for it.
fn check_cluster(ctas: &mut [Cta], cs: &mut ClusterSync, pol: &dyn Policy) {
    if cs.arrived == 0 || cs.arrived < cs.live {
        return;
    }
    let done = cs.phase;
    cs.phase += 1;
    cs.arrived = 0;
    for c in ctas.iter_mut() {
        for w in c.warps.iter_mut() {
            pol.release(w, Wait::Cluster(done), u32::MAX);
        }
    }
}

/// Completes the grid barrier's phase once every CTA has threads left and
/// all of them wait at it, releasing them.
fn check_grid(ctas: &mut [Cta], gs: &mut GridSync, pol: &dyn Policy) {
    if !gs.any || ctas.iter().zip(&gs.arrived).any(|(c, &a)| c.live == 0 || a < c.live) {
        return;
    }
    let done = gs.phase;
    gs.phase += 1;
    gs.any = false;
    gs.arrived.iter_mut().for_each(|a| *a = 0);
    for c in ctas.iter_mut() {
        for w in c.warps.iter_mut() {
            pol.release(w, Wait::Grid(done), u32::MAX);
        }
    }
}

/// For a deadlock report: a warp waiting at the grid barrier, and why the
/// barrier cannot complete.
fn grid_stuck(ctas: &[Cta]) -> Option<(usize, usize, String)> {
    let (ci, wi) = ctas.iter().enumerate().find_map(|(ci, c)| c.warps.iter().position(|w| matches!(w.status, WarpStatus::GridWait(_))).map(|wi| (ci, wi)))?;
    let exited: Vec<String> = ctas.iter().filter(|c| c.live == 0).take(4).map(|c| format!("({},{},{})", c.env.ctaid[0], c.env.ctaid[1], c.env.ctaid[2])).collect();
    let n_exited = ctas.iter().filter(|c| c.live == 0).count();
    let why = if n_exited > 0 {
        format!(
            "{n_exited} of {} CTAs exited without arriving (CTA {}{})",
            ctas.len(),
            exited.join(", "),
            if n_exited > exited.len() { ", ..." } else { "" }
        )
    } else {
        "some threads of the grid never arrive".to_string()
    };
    Some((ci, wi, format!("the grid-wide barrier (cudaCGSynchronize) can never complete: {why}")))
}

fn deadlock(ctx: &Ctx<'_>, ctas: &[Cta], pol: &dyn Policy) -> RunError {
    if let Some((ci, wi, message)) = grid_stuck(ctas) {
        let w = &ctas[ci].warps[wi];
        // Under ITS the waiting lanes are not ready: their own pc.
        let at = (0..32).find(|&l| matches!(w.lane_state[l], crate::warp::LaneState::GridWait(_)) && w.its_used);
        let (func, pc) = match at {
            Some(l) => (w.frames.get(w.lane_frame[l] as usize).map_or(0, |f| f.func), w.pc[l]),
            None => pol.current(w),
        };
        let mut e = locate(ctx, &ctas[ci].env, wi as u32, Located { trap: Trap::new(TrapKind::BarrierDeadlock, message), func, pc });
        e.lane = None;
        return e;
    }
    for cta in ctas {
        if let Some((wt, message)) = cta.barriers.stuck(cta.live) {
            let func = cta.warps[wt.warp as usize].frames[wt.frame as usize].func;
            let mut e = locate(ctx, &cta.env, wt.warp, Located { trap: Trap::new(TrapKind::BarrierDeadlock, message), func, pc: wt.pc });
            e.lane = None;
            return e;
        }
        for (wi, w) in cta.warps.iter().enumerate() {
            if let WarpStatus::ClusterWait(_) = w.status {
                let (func, pc) = pol.current(w);
                return locate(
                    ctx,
                    &cta.env,
                    wi as u32,
                    Located {
                        trap: Trap::new(TrapKind::BarrierDeadlock, "barrier.cluster.wait can never complete: some threads of the cluster never arrive".to_string()),
                        func,
                        pc,
                    },
                );
            }
        }
    }
    let cta = &ctas[0];
    RunError {
        cta: Some(cta.env.ctaid),
        ..RunError::new(TrapKind::BarrierDeadlock, "no warp can make progress")
    }
}

/// Stack mode: detects a warp that spins forever while some of its lanes
/// are parked on the SIMT stack (the state repeats exactly with no memory
/// write anywhere, and no other warp of the cluster can run).
fn spin_check(ctx: &Ctx<'_>, ctas: &mut [Cta], ci: usize, wi: usize, pol: &dyn Policy) -> Result<(), RunError> {
    let epoch = ctx.write_epoch.load(Ordering::Relaxed);
    let st = {
        let w = &mut ctas[ci].warps[wi];
        if w.status != WarpStatus::Runnable {
            w.spin_same = 0;
            return Ok(());
        }
        let Some(st) = pol.spin_state(w) else { return Ok(()) };
        let h = st.hash;
        if epoch != w.spin_epoch || w.stores != w.spin_stores {
            w.spin_epoch = epoch;
            w.spin_stores = w.stores;
            w.spin_hash = h;
            w.spin_count = 1;
            w.spin_same = 0;
            return Ok(());
        }
        if h == w.spin_hash {
            w.spin_same += 1;
        } else {
            // Brent-style checkpointing: move the checkpoint at powers of two.
            w.spin_count += 1;
            if w.spin_count.is_power_of_two() {
                w.spin_hash = h;
                w.spin_same = 0;
            }
            return Ok(());
        }
        if !st.nested || w.spin_same < 3 {
            return Ok(());
        }
        st
    };
    // Every other runnable warp of the cluster must be cycling too, with no
    // store anywhere since: then nothing can ever change.
    let all_cycling = ctas.iter().enumerate().all(|(c, cta)| {
        cta.warps.iter().enumerate().all(|(i, w)| {
            (c, i) == (ci, wi) || w.status != WarpStatus::Runnable || (w.spin_same >= 1 && w.spin_epoch == epoch)
        })
    });
    if !all_cycling {
        return Ok(());
    }
    let (running, parked, (func, pc)) = (st.running, st.parked, st.at);
    let mut e = locate(
        ctx,
        &ctas[ci].env,
        wi as u32,
        Located {
            trap: Trap::new(
                TrapKind::StackDeadlock,
                format!(
                    "stack-mode scheduling cannot make progress: lanes {running:#010x} loop forever waiting for lanes {parked:#010x}, which are parked at a reconvergence point (a spin lock?); --scheduling its runs it",
                ),
            ),
            func,
            pc,
        },
    );
    e.lane = Some(running.trailing_zeros());
    Err(e)
}
