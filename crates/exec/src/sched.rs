//! The launch shell of every warp engine: CTA and cluster scheduling. The
//! warps of the CTAs of one group (a cluster, or a cooperative launch's
//! whole grid, its clusters side by side) run in a deterministic
//! round-robin on one core, each for a slice of fuel or until it blocks.
//! This file owns barriers (`bar.sync/arrive/red`,
//! `barrier.cluster.arrive/wait`, the grid-wide barrier of a cooperative
//! launch), their release when threads exit, deadlock detection and spin
//! detection. Fuel comes from the worker's [`Tank`] (`fuel`). The warps
//! themselves run through a [`WarpEngine`] (`policy.rs`): the PTX engine's
//! stack or ITS policy, or another engine (the sm_50 machine form); this
//! file never looks inside a warp's reconvergence state nor at the
//! engine's instructions, and is compiled once per engine.

use crate::error::{Trap, TrapKind};
use crate::fuel::Tank;
use crate::cta::Cta;
use crate::barrier::{BarArgs, Waiter};
use crate::policy::{Located, Stop, Wait, WarpEngine, WarpTurn};
use crate::warp::{lanes, Stats, Warp, WarpStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

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

/// What a group runs with besides its CTAs: the worker's fuel, the
/// group's index in the launch and the launch's abort mark (the lowest
/// failing index: a group above it stops), and the launch's write epoch
/// (bumped after every turn that stored: spin detection reads it).
pub(crate) struct Shell<'a, 't> {
    pub tank: &'a mut Tank<'t>,
    pub index: u64,
    pub abort: &'a AtomicU64,
    pub epoch: &'a AtomicU64,
    /// The launch's other units, where they run on other workers (`None`:
    /// this worker runs the whole launch, one unit after another).
    pub units: Option<&'a Units<'a>>,
}

/// The units (clusters) of a launch shared out among workers: which could
/// still store to global memory while this one spins. A unit running on
/// another worker can, unless it spins itself with nothing stored since;
/// and so can one not started yet while another worker is free to take it.
pub(crate) struct Units<'a> {
    pub running: &'a AtomicU64,
    pub next: &'a AtomicU64,
    pub total: u64,
    pub workers: usize,
    /// The units found spinning, each with the write epoch it spun at (at
    /// most one entry per worker: a unit leaves when it ends).
    pub quiet: &'a Mutex<Vec<(u64, u64)>>,
}

impl Units<'_> {
    /// Records unit `me` as spinning at write epoch `epoch`, and says
    /// whether every other unit that can still store spins too.
    fn alone(&self, me: u64, epoch: u64) -> bool {
        let mut q = self.quiet.lock().unwrap_or_else(|e| e.into_inner());
        match q.iter_mut().find(|(u, _)| *u == me) {
            Some(entry) => entry.1 = epoch,
            None => q.push((me, epoch)),
        }
        let others = q.iter().filter(|&&(u, e)| u != me && e == epoch).count() as u64;
        self.running.load(Ordering::SeqCst) <= others + 1 && (self.workers <= 1 || self.next.load(Ordering::SeqCst) >= self.total)
    }

    /// Unit `me` has ended.
    pub fn leave(&self, me: u64) {
        self.quiet.lock().unwrap_or_else(|e| e.into_inner()).retain(|&(u, _)| u != me);
    }
}

/// Runs one group of CTAs to completion on engine `eng`: clusters of
/// `csize` CTAs each, side by side (one cluster, unless the launch is
/// cooperative).
pub(crate) fn run_cluster<E: WarpEngine>(eng: &E, ctas: &mut [Cta<E::Warp>], csize: usize, sh: &mut Shell<'_, '_>) -> Result<Stats, E::Error> {
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
        if rounds.is_multiple_of(64) && sh.abort.load(Ordering::Relaxed) < sh.index {
            return Ok(stats);
        }
        let mut any_run = false;
        let mut all_done = true;
        for ci in 0..ctas.len() {
            for wi in 0..ctas[ci].warps.len() {
                let st = ctas[ci].warps[wi].as_ref().status;
                if st == WarpStatus::Done {
                    continue;
                }
                all_done = false;
                if st != WarpStatus::Runnable {
                    continue;
                }
                any_run = true;
                let slice = match sh.tank.slice(SLICE) {
                    Ok(s) => s,
                    Err(trap) => {
                        let (func, pc) = eng.current(&ctas[ci].warps[wi]);
                        return Err(eng.out_of_fuel(ctas, ci, wi, Located { trap, func, pc }));
                    }
                };
                let stores_before = ctas[ci].warps[wi].as_ref().stores;
                let end = {
                    // The other CTAs of the cluster are lent for the turn
                    // (distributed shared memory).
                    let base = ci / csize * csize;
                    let end = (base + csize).min(ctas.len());
                    let (lo, rest) = ctas[base..end].split_at_mut(ci - base);
                    let Some((cta, hi)) = rest.split_first_mut() else { continue };
                    let mut t = WarpTurn { lo, cta, hi, warp: wi, budget: slice, stats: &mut stats };
                    let r = eng.turn(&mut t);
                    let left = t.budget;
                    sh.tank.refund(left);
                    match r {
                        Ok(e) => e,
                        Err(f) => return Err(eng.locate(&ctas[ci], wi as u32, f)),
                    }
                };
                if ctas[ci].warps[wi].as_ref().stores != stores_before {
                    sh.epoch.fetch_add(1, Ordering::Relaxed);
                }
                // A turn that reached a barrier or an exit made progress:
                // no spin to look for (a spinning warp's turns end when its
                // slice is spent, or at a `nanosleep`).
                let progressed = !matches!(end, Stop::Yield | Stop::Sleep);
                match end {
                    Stop::GridSync { mask } => {
                        eng.block(&mut ctas[ci].warps[wi], mask, mask, Wait::Grid(gs.phase));
                        if let Some(a) = gs.arrived.get_mut(ci) {
                            *a += mask.count_ones();
                        }
                        gs.any = true;
                        check_grid(ctas, &mut gs, eng);
                    }
                    end => {
                        let exited = matches!(end, Stop::Exited { .. });
                        let k = ci / csize;
                        let base = k * csize;
                        let end_cl = (base + csize).min(ctas.len());
                        if let Some(c) = cs.get_mut(k) {
                            handle_end(&mut ctas[base..end_cl], c, ci - base, wi, end, eng);
                        }
                        if exited && gs.any {
                            check_grid(ctas, &mut gs, eng);
                        }
                    }
                }
                if progressed {
                    let w = ctas[ci].warps[wi].as_mut();
                    w.spin_count = 0;
                    w.spin_same = 0;
                } else {
                    spin_check(eng, sh, ctas, ci, wi)?;
                }
            }
        }
        if all_done {
            return Ok(stats);
        }
        if !any_run {
            return Err(deadlock(eng, ctas));
        }
    }
}


/// Acts on how a warp's turn ended: exits release barriers, barrier
/// arrivals are counted and their lanes parked through the engine.
fn handle_end<E: WarpEngine>(ctas: &mut [Cta<E::Warp>], cs: &mut ClusterSync, ci: usize, wi: usize, end: Stop, eng: &E) {
    match end {
        // (The grid barrier is the caller's.)
        Stop::Yield | Stop::Sleep | Stop::Done | Stop::GridSync { .. } => {}
        Stop::Exited { mask } => {
            let n = mask.count_ones();
            let cta = &mut ctas[ci];
            cta.live = cta.live.saturating_sub(n);
            cs.live = cs.live.saturating_sub(n);
            // (No arrival in this phase: no exiting lane arrived in it.)
            if cs.arrived != 0 {
                let w = cta.warps[wi].as_ref();
                for l in lanes(mask) {
                    if w.cluster_arrived[l] == cs.phase {
                        cs.arrived = cs.arrived.saturating_sub(1);
                    }
                }
            }
            for id in lanes(ctas[ci].barriers.maybe_pending()) {
                if ctas[ci].barriers.pending(id) {
                    check_barrier(&mut ctas[ci], id, eng);
                }
            }
            check_cluster(ctas, cs, eng);
        }
        Stop::Bar { frame, pc, mask, args } => arrive(&mut ctas[ci], wi, Waiter { warp: wi as u32, frame, pc, mask, kind: args.kind, dst: args.dst }, args, eng),
        Stop::ClusterArrive { mask } => {
            let w = &mut ctas[ci].warps[wi];
            let b = w.as_mut();
            b.cluster_used = true;
            for l in lanes(mask) {
                if b.cluster_arrived[l] != cs.phase {
                    b.cluster_arrived[l] = cs.phase;
                    cs.arrived += 1;
                }
            }
            eng.advance(w, mask);
            check_cluster(ctas, cs, eng);
        }
        Stop::ClusterWait { mask } => {
            let w = &mut ctas[ci].warps[wi];
            let b = w.as_ref();
            let waiting: u32 = lanes(mask).filter(|&l| b.cluster_arrived[l] == cs.phase).fold(0, |a, l| a | 1 << l);
            if waiting == 0 {
                eng.advance(w, mask);
            } else {
                eng.block(w, mask, waiting, Wait::Cluster(cs.phase));
            }
        }
    }
}

/// Lanes of warp `wi` arrive at barrier `args.id`: counted, and parked
/// unless the instruction only arrives.
fn arrive<E: WarpEngine>(cta: &mut Cta<E::Warp>, wi: usize, waiter: Waiter, args: BarArgs, eng: &E) {
    let mask = waiter.mask;
    let waits = cta.barriers.arrive(&args, waiter);
    let w = &mut cta.warps[wi];
    if waits {
        eng.block(w, mask, mask, Wait::Bar(args.id));
    } else {
        eng.advance(w, mask);
    }
    check_barrier(cta, args.id as usize, eng);
}

/// Releases barrier `id` once the expected number of threads arrived,
/// writing `bar.red`'s result to each waiter.
fn check_barrier<E: WarpEngine>(cta: &mut Cta<E::Warp>, id: usize, eng: &E) {
    let Some(rel) = cta.barriers.check(id, cta.live) else { return };
    for wt in rel.waiters() {
        let w = &mut cta.warps[wt.warp as usize];
        if let Some(fr) = w.as_mut().frames.get_mut(wt.frame as usize) {
            rel.write(wt, fr);
        }
        eng.release(w, Wait::Bar(id as u32), wt.mask);
    }
}

/// Completes the cluster barrier's phase once every live thread of the
/// cluster arrived, releasing the lanes that wait for it.
fn check_cluster<E: WarpEngine>(ctas: &mut [Cta<E::Warp>], cs: &mut ClusterSync, eng: &E) {
    if cs.arrived == 0 || cs.arrived < cs.live {
        return;
    }
    let done = cs.phase;
    cs.phase += 1;
    cs.arrived = 0;
    for c in ctas.iter_mut() {
        for w in c.warps.iter_mut() {
            eng.release(w, Wait::Cluster(done), u32::MAX);
        }
    }
}

/// Completes the grid barrier's phase once every CTA has threads left and
/// all of them wait at it, releasing them.
fn check_grid<E: WarpEngine>(ctas: &mut [Cta<E::Warp>], gs: &mut GridSync, eng: &E) {
    if !gs.any || ctas.iter().zip(&gs.arrived).any(|(c, &a)| c.live == 0 || a < c.live) {
        return;
    }
    let done = gs.phase;
    gs.phase += 1;
    gs.any = false;
    gs.arrived.iter_mut().for_each(|a| *a = 0);
    for c in ctas.iter_mut() {
        for w in c.warps.iter_mut() {
            eng.release(w, Wait::Grid(done), u32::MAX);
        }
    }
}

/// For a deadlock report: a warp waiting at the grid barrier, and why the
/// barrier cannot complete.
fn grid_stuck<W: AsRef<Warp>>(ctas: &[Cta<W>]) -> Option<(usize, usize, String)> {
    let (ci, wi) = ctas.iter().enumerate().find_map(|(ci, c)| c.warps.iter().position(|w| matches!(w.as_ref().status, WarpStatus::GridWait(_))).map(|wi| (ci, wi)))?;
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

/// The error of a group in which no warp can run: the barrier, cluster
/// barrier or grid barrier that can never complete, and where.
fn deadlock<E: WarpEngine>(eng: &E, ctas: &[Cta<E::Warp>]) -> E::Error {
    let stuck = |trap: Trap, func, pc| Located { trap, func, pc };
    if let Some((ci, wi, message)) = grid_stuck(ctas) {
        let w = &ctas[ci].warps[wi];
        let b = w.as_ref();
        // Under ITS the waiting lanes are not ready: their own pc.
        let at = (0..32).find(|&l| matches!(b.lane_state[l], crate::warp::LaneState::GridWait(_)) && b.its_used);
        let (func, pc) = match at {
            Some(l) => (b.frames.get(b.lane_frame[l] as usize).map_or(0, |f| f.func), b.pc[l]),
            None => eng.current(w),
        };
        return eng.locate(&ctas[ci], wi as u32, stuck(Trap::new(TrapKind::BarrierDeadlock, message), func, pc).into());
    }
    for cta in ctas {
        if let Some((wt, message)) = cta.barriers.stuck(cta.live) {
            let func = cta.warps[wt.warp as usize].as_ref().frames[wt.frame as usize].func;
            return eng.locate(cta, wt.warp, stuck(Trap::new(TrapKind::BarrierDeadlock, message), func, wt.pc).into());
        }
        for (wi, w) in cta.warps.iter().enumerate() {
            if let WarpStatus::ClusterWait(_) = w.as_ref().status {
                let (func, pc) = eng.current(w);
                let trap = Trap::new(TrapKind::BarrierDeadlock, "barrier.cluster.wait can never complete: some threads of the cluster never arrive");
                return eng.locate(cta, wi as u32, stuck(trap, func, pc).into());
            }
        }
    }
    // (Unreachable while every blocked warp waits at one of the above.)
    let wi = ctas[0].warps.iter().position(|w| w.as_ref().status != WarpStatus::Done).unwrap_or(0);
    let (func, pc) = ctas[0].warps.get(wi).map_or((0, 0), |w| eng.current(w));
    eng.locate(&ctas[0], wi as u32, stuck(Trap::new(TrapKind::BarrierDeadlock, "no warp can make progress"), func, pc).into())
}

/// Detects a warp that spins forever while some of its lanes are parked
/// (on the SIMT stack, the CRS stack): the state repeats exactly
/// (Brent-style checkpoints at powers of two) with no memory write
/// anywhere, no other warp of the group can change anything, and no unit
/// of the launch on another worker can either.
fn spin_check<E: WarpEngine>(eng: &E, sh: &Shell<'_, '_>, ctas: &mut [Cta<E::Warp>], ci: usize, wi: usize) -> Result<(), E::Error> {
    let epoch = sh.epoch.load(Ordering::Relaxed);
    let st = {
        let w = &mut ctas[ci].warps[wi];
        if w.as_ref().status != WarpStatus::Runnable {
            w.as_mut().spin_same = 0;
            return Ok(());
        }
        // A store anywhere since the last turn: no spin (and no state
        // hash, which costs a pass over the frame's registers; the next
        // turn without a store takes the first checkpoint).
        {
            let w = w.as_mut();
            if epoch != w.spin_epoch || w.stores != w.spin_stores {
                w.spin_epoch = epoch;
                w.spin_stores = w.stores;
                w.spin_count = 0;
                w.spin_same = 0;
                return Ok(());
            }
        }
        let Some(st) = eng.spin_state(w) else { return Ok(()) };
        let w = w.as_mut();
        let h = st.hash;
        if w.spin_count == 0 {
            w.spin_hash = h;
            w.spin_count = 1;
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
        (st, w.spin_same)
    };
    let (st, same) = st;
    // Every other runnable warp of the group must be cycling too, with no
    // store anywhere since: then nothing can ever change.
    let all_cycling = ctas.iter().enumerate().all(|(c, cta)| {
        cta.warps.iter().map(|w| w.as_ref()).enumerate().all(|(i, w)| {
            (c, i) == (ci, wi) || w.status != WarpStatus::Runnable || (w.spin_same >= 1 && w.spin_epoch == epoch)
        })
    });
    if !all_cycling {
        return Ok(());
    }
    // Nor may a unit on another worker, running (and not spinning too) or
    // about to start, store what this warp waits for (a CTA spinning on
    // another CTA's flag). A unit that spins records it here, whether or
    // not it has parked lanes itself (it may wait on another's).
    let alone = sh.units.is_none_or(|u| u.alone(sh.index, epoch));
    if !st.nested || same < 3 || !alone {
        return Ok(());
    }
    let (running, parked, (func, pc)) = (st.running, st.parked, st.at);
    let trap = Trap::lane(
        TrapKind::StackDeadlock,
        running.trailing_zeros(),
        format!("stack-mode scheduling cannot make progress: lanes {running:#010x} loop forever waiting for lanes {parked:#010x}, which {}", st.why),
    );
    Err(eng.locate(&ctas[ci], wi as u32, Located { trap, func, pc }.into()))
}
