//! CTA barriers (`bar.sync/arrive/red`, `barrier.*`): the bookkeeping of
//! the 16 barriers of one CTA (threads arrived, the expected count, the
//! waiting lanes, `bar.red`'s reduction) and its release, used by the
//! launch shell (`sched.rs`) for every warp engine. The shell decides when
//! a barrier is checked (after an arrival, after threads exit) and parks
//! and releases lanes through the engine; this module never looks inside
//! a warp's reconvergence state. [`crate::callpath::barrier_args`]
//! evaluates a barrier instruction's operands with the PTX engine's own
//! handler (guard, id range and uniformity traps) for another engine.

use crate::program::{BarKind, Dst};
use crate::warp::{lanes, Frame};

/// Barriers per CTA (ids 0..16).
pub const BARRIERS: usize = 16;

/// A barrier instruction's operands, evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarArgs {
    pub kind: BarKind,
    /// The barrier (0..16), the same in every lane.
    pub id: u32,
    /// The expected thread count, if given (read in the first lane).
    pub count: Option<u32>,
    /// `bar.red`'s predicate operand (all lanes).
    pub pred: Option<u32>,
    /// Where `bar.red` writes its result.
    pub dst: Option<Dst>,
}

/// Lanes of one warp waiting at a barrier.
#[derive(Clone, Debug)]
pub struct Waiter {
    pub warp: u32,
    /// The frame and pc of the barrier instruction (the caller's pc).
    pub frame: u32,
    pub pc: u32,
    pub mask: u32,
    /// The instruction, and where a `bar.red` writes its result.
    pub kind: BarKind,
    pub dst: Option<Dst>,
}

#[derive(Default, Clone, Debug)]
struct Barrier {
    arrived: u32,
    expected: Option<u32>,
    waiters: Vec<Waiter>,
    popc: u32,
    all: bool,
    any: bool,
    reduce: bool,
}

/// The barriers of one CTA.
#[derive(Clone, Debug)]
pub struct Barriers {
    bars: Vec<Barrier>,
    /// Bit `id`: barrier `id` saw an arrival since the last reset (the
    /// others are idle, so a reset or a scan after exits skips them).
    touched: u32,
}

impl Default for Barriers {
    fn default() -> Self {
        Barriers::new()
    }
}

/// The waiters of a barrier that completed, with `bar.red`'s result.
#[derive(Debug)]
pub struct Released {
    b: Barrier,
}

impl Released {
    /// The lanes released, in arrival order.
    pub fn waiters(&self) -> &[Waiter] {
        &self.b.waiters
    }

    /// Writes `bar.red`'s result to waiter `wt`'s destination in its frame
    /// `fr` (nothing for `bar.sync`/`bar.arrive`).
    pub fn write(&self, wt: &Waiter, fr: &mut Frame) {
        if !self.b.reduce {
            return;
        }
        match wt.dst {
            Some(Dst::Reg(d)) => {
                if let Some(r) = fr.regs.get_mut(d as usize) {
                    for l in lanes(wt.mask) {
                        r[l] = self.b.popc as u64;
                    }
                }
            }
            Some(Dst::Pred(p)) => {
                if let Some(p) = fr.preds.get_mut(p as usize) {
                    let v = if wt.kind == BarKind::RedAnd {
                        self.b.all
                    } else {
                        self.b.any
                    };
                    *p = if v { *p | wt.mask } else { *p & !wt.mask };
                }
            }
            None => {}
        }
    }
}

impl Barriers {
    /// Sixteen idle barriers.
    pub fn new() -> Barriers {
        Barriers {
            bars: vec![Barrier::default(); BARRIERS],
            touched: 0,
        }
    }

    /// Makes every barrier idle again.
    pub fn reset(&mut self) {
        for id in lanes(self.touched) {
            if let Some(b) = self.bars.get_mut(id) {
                *b = Barrier::default();
            }
        }
        self.touched = 0;
    }

    /// The barriers that may have threads arrived ([`Barriers::pending`]),
    /// a bit per id; every other barrier is idle.
    pub fn maybe_pending(&self) -> u32 {
        self.touched
    }

    /// Lanes `waiter.mask` arrive at barrier `args.id` (below 16, as
    /// [`crate::callpath::barrier_args`] checks): counted, with their `bar.red` predicate. Returns
    /// whether they wait (all but `bar.arrive`); the caller parks them and
    /// then calls [`Barriers::check`].
    pub fn arrive(&mut self, args: &BarArgs, waiter: Waiter) -> bool {
        let Some(b) = self.bars.get_mut(args.id as usize) else {
            return false;
        };
        self.touched |= 1 << args.id;
        let mask = waiter.mask;
        if b.arrived == 0 && b.waiters.is_empty() {
            b.all = true;
            b.any = false;
            b.popc = 0;
            b.reduce = false;
        }
        b.arrived += mask.count_ones();
        if let Some(c) = args.count {
            b.expected = Some(c);
        }
        if let Some(pv) = args.pred {
            b.reduce = true;
            b.popc += (pv & mask).count_ones();
            b.all &= pv & mask == mask;
            b.any |= pv & mask != 0;
        }
        if args.kind == BarKind::Arrive {
            false
        } else {
            b.waiters.push(waiter);
            true
        }
    }

    /// Whether threads arrived at barrier `id` since it last completed.
    pub fn pending(&self, id: usize) -> bool {
        self.bars.get(id).is_some_and(|b| b.arrived != 0)
    }

    /// Completes barrier `id` once its expected number of threads (the
    /// instruction's count, else `live`, the CTA's threads that have not
    /// exited) arrived: the barrier is idle again and its waiters are
    /// returned for the caller to release.
    pub fn check(&mut self, id: usize, live: u32) -> Option<Released> {
        let b = self.bars.get(id)?;
        if b.arrived == 0 || b.arrived < b.expected.unwrap_or(live) {
            return None;
        }
        Some(Released {
            b: std::mem::take(&mut self.bars[id]),
        })
    }

    /// For a deadlock report: the first barrier that has waiters, its first
    /// waiter and a message saying how many threads arrived.
    pub fn stuck(&self, live: u32) -> Option<(&Waiter, String)> {
        self.bars.iter().enumerate().find_map(|(id, b)| {
            let wt = b.waiters.first()?;
            let warps: Vec<String> = b
                .waiters
                .iter()
                .map(|w| format!("warp {} (lanes {:#010x})", w.warp, w.mask))
                .collect();
            let target = b.expected.unwrap_or(live);
            Some((
                wt,
                format!(
                    "barrier {id} can never complete: {} of {target} threads arrived; waiting: {}",
                    b.arrived,
                    warps.join(", ")
                ),
            ))
        })
    }
}
