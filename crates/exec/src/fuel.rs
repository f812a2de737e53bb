//! The launch's budgets: fuel (warp instructions) and wall-clock time.
//!
//! Fuel is one launch-wide pool. Each worker draws from it through its own
//! [`Tank`], a chunk at a time, and returns what it did not use when it
//! stops. Fuel is exact: a launch runs out only when the warp instructions
//! it executed reached the budget, whatever the number of workers. A worker
//! that finds the pool empty while other workers still hold fuel waits for
//! them to use it or give it back; a worker that holds fuel is never
//! waiting, so the wait ends. Chunks shrink as the pool empties, so the
//! workers share the last of it.
//!
//! The deadline (`LaunchConfig::timeout`) is checked at every refill, that
//! is at least every [`MAX_CHUNK`] warp instructions a worker executes, and
//! while a worker waits for fuel.

use crate::error::{RunError, Trap, TrapKind};
use crate::exec::Ctx;
use crate::cta::Cta;
use crate::policy::{locate, Located};
use crate::warp::{LaneState, WarpStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Warp instructions a worker may still run after another cluster failed
/// (a cluster below the failing one may be about to fail itself, or may
/// wait forever on the failed one).
pub(crate) const GRACE: u64 = 1 << 22;

/// The largest chunk a tank draws at once.
pub(crate) const MAX_CHUNK: u64 = 1 << 16;

/// What the pool holds: fuel not handed out, and fuel held by tanks (not
/// yet used or returned).
#[derive(Debug)]
struct Pool {
    left: u64,
    held: u64,
}

/// The launch-wide fuel pool and deadline.
#[derive(Debug)]
pub(crate) struct Fuel {
    pool: Mutex<Pool>,
    changed: Condvar,
    budget: u64,
    workers: u64,
    start: Instant,
    timeout: Option<Duration>,
    /// A cluster of the launch failed.
    failed: AtomicBool,
}

impl Fuel {
    /// A pool of `budget` warp instructions shared by `workers` workers,
    /// with an optional wall-clock limit counted from now.
    pub fn new(budget: u64, workers: usize, timeout: Option<Duration>) -> Fuel {
        Fuel {
            pool: Mutex::new(Pool { left: budget, held: 0 }),
            changed: Condvar::new(),
            budget,
            workers: workers.max(1) as u64,
            start: Instant::now(),
            timeout,
            failed: AtomicBool::new(false),
        }
    }

    /// Notes that a cluster failed: from now on, each worker runs at most
    /// [`GRACE`] more warp instructions before its tank cuts it off.
    pub fn note_failure(&self) {
        self.failed.store(true, Ordering::Relaxed);
    }

    /// A worker's tank, empty.
    pub fn tank(&self) -> Tank<'_> {
        Tank { fuel: self, budget: 0, taken: 0, after_failure: 0, cut: false }
    }

    /// The timeout trap if the deadline has passed.
    pub fn check_deadline(&self) -> Result<(), Trap> {
        match self.timeout {
            Some(t) if self.start.elapsed() >= t => Err(Trap::new(
                TrapKind::Timeout,
                format!("the launch ran past its time limit of {} (--timeout)", show_duration(t)),
            )),
            _ => Ok(()),
        }
    }

    /// Wakes the workers waiting for fuel. A launch of one worker has none
    /// (a worker waits only while another holds fuel), and then skips the
    /// wake-up (a system call even with no waiter).
    fn wake(&self) {
        if self.workers > 1 {
            self.changed.notify_all();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pool> {
        // A worker that panicked cannot leave the counters half-updated
        // (every update is a pair of plain assignments), so a poisoned lock
        // is still consistent.
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn exhausted(&self) -> Trap {
        Trap::new(
            TrapKind::FuelExhausted,
            format!(
                "fuel exhausted: the launch executed its whole budget of {} warp instructions (--fuel {}) and needs more",
                self.budget, self.budget
            ),
        )
    }
}

/// "60 s", "1.5 s", "250 ms".
fn show_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.3} s", d.as_secs_f64())
    }
}

/// One worker's share of the fuel: `budget` left to use of the `taken` it
/// drew since its last refill. Dropping it returns what is left.
pub(crate) struct Tank<'a> {
    fuel: &'a Fuel,
    budget: u64,
    taken: u64,
    /// Warp instructions used since another cluster failed.
    after_failure: u64,
    /// The tank refused fuel because the grace after a failure ran out.
    cut: bool,
}

impl Tank<'_> {
    /// Up to `max` warp instructions for the next turn, refilling the tank
    /// when it is empty. The caller runs at most that many and gives the
    /// rest back with [`Tank::refund`]. Errors: the launch's fuel is used up
    /// (every unit executed), or its deadline passed.
    pub fn slice(&mut self, max: u64) -> Result<u64, Trap> {
        if self.budget == 0 {
            self.refill()?;
        }
        let s = self.budget.min(max);
        self.budget -= s;
        Ok(s)
    }

    /// Whether the last error came from the grace after another cluster's
    /// failure running out (the caller drops it: it is not the cluster's
    /// own); clears it.
    pub fn take_cut(&mut self) -> bool {
        std::mem::take(&mut self.cut)
    }

    /// Returns the unused part of a slice.
    pub fn refund(&mut self, n: u64) {
        self.budget += n;
    }

    fn refill(&mut self) -> Result<(), Trap> {
        let f = self.fuel;
        f.check_deadline()?;
        let mut p = f.lock();
        // Everything drawn before is used now.
        p.held -= self.taken;
        if f.failed.load(Ordering::Relaxed) {
            self.after_failure += self.taken;
            if self.after_failure >= GRACE {
                self.taken = 0;
                self.cut = true;
                f.wake();
                return Err(Trap::new(TrapKind::Timeout, "stopped: another cluster of the launch failed"));
            }
        }
        self.taken = 0;
        loop {
            if p.left > 0 {
                let share = (p.left / (2 * f.workers)).clamp(1, MAX_CHUNK);
                p.left -= share;
                p.held += share;
                self.taken = share;
                self.budget = share;
                // A waiter may be able to conclude now.
                f.wake();
                return Ok(());
            }
            if p.held == 0 {
                f.wake();
                return Err(f.exhausted());
            }
            // Others hold fuel: they run, and use or return it.
            f.wake();
            p = match f.changed.wait_timeout(p, Duration::from_millis(20)) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
            f.check_deadline()?;
        }
    }
}

impl Drop for Tank<'_> {
    fn drop(&mut self) {
        let f = self.fuel;
        let mut p = f.lock();
        p.left += self.budget;
        p.held -= self.taken;
        self.budget = 0;
        self.taken = 0;
        f.wake();
    }
}

/// The located error of a warp that found the launch's budget spent.
/// When fuel ran out while another warp of the cluster waits at a barrier,
/// the message says so; when the running warp is moreover provably looping
/// (stack mode: its state repeats with no store anywhere since), the error
/// is the barrier wait it is (`barrier_deadlock`), not `fuel_exhausted`.
pub(crate) fn out_of_budget(ctx: &Ctx<'_>, ctas: &[Cta], ci: usize, wi: usize, mut l: Located) -> RunError {
    if l.trap.kind == TrapKind::FuelExhausted {
        if let Some((c, w, id, line)) = barrier_waiter(ctx, ctas) {
            let me = &ctas[ci].warps[wi];
            let epoch = ctx.write_epoch.load(std::sync::atomic::Ordering::Relaxed);
            let looping = me.spin_same >= 3 && me.spin_epoch == epoch && me.stores == me.spin_stores;
            let bar = id.map(|i| format!("barrier {i}")).unwrap_or_else(|| "a barrier".to_string());
            let at = format!("warp {w} of CTA ({},{},{}) waits at {bar} (line {line})", ctas[c].env.ctaid[0], ctas[c].env.ctaid[1], ctas[c].env.ctaid[2]);
            if looping {
                l.trap = Trap::new(
                    TrapKind::BarrierDeadlock,
                    format!("{bar} can never complete: {at} while warp {wi} loops forever without arriving (its state repeats and nothing is stored); found when the fuel budget ran out"),
                );
            } else {
                l.trap.message = format!("{}; meanwhile {at}, for warp {wi}, which runs without arriving", l.trap.message);
            }
        }
    }
    locate(ctx, &ctas[ci].env, wi as u32, l)
}

/// A warp of the cluster blocked at a CTA barrier: (CTA index, warp, barrier, line).
fn barrier_waiter(ctx: &Ctx<'_>, ctas: &[Cta]) -> Option<(usize, usize, Option<u32>, u32)> {
    for (c, cta) in ctas.iter().enumerate() {
        for (wi, w) in cta.warps.iter().enumerate() {
            let its = (0..32).find(|&l| w.lane_state[l] == LaneState::Barrier && w.status != WarpStatus::Done);
            let at = match (its, w.status) {
                (Some(l), _) => Some((None, w.frames.get(w.lane_frame[l] as usize).map(|f| f.func), w.pc[l])),
                (None, WarpStatus::Barrier(id)) => w.stack.last().map(|e| (Some(id), w.frames.get(e.frame as usize).map(|f| f.func), e.pc)),
                _ => None,
            };
            if let Some((id, Some(func), pc)) = at {
                let f = ctx.prog.functions.get(func as usize);
                let line = f.and_then(|f| f.code.get(pc as usize).map(|i| i.line).or(Some(f.line))).unwrap_or(0);
                return Some((c, wi, id, line));
            }
        }
    }
    None
}
