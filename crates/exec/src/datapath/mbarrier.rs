//! `mbarrier` objects (PTX ISA 9.7.13.15): 64-bit barriers in shared
//! memory with an expected arrival count, a pending arrival count, a
//! transaction count and a phase, and `cp.async.mbarrier.arrive`.
//!
//! The manual leaves the object's contents opaque; the engine keeps them in
//! the object's own 8 bytes, so that a copy of the word, a reset by
//! `mbarrier.init` and an invalidation all behave as memory does:
//!
//! | bits | field |
//! |---|---|
//! | 0..20 | pending arrivals of the current phase |
//! | 20..40 | expected arrivals per phase |
//! | 40..61 | transaction count (21-bit two's complement) |
//! | 62 | initialised (set by `init`, cleared by `inval`) |
//! | 63 | the current phase's parity |
//!
//! A phase completes when its pending arrivals and its transaction count
//! are both zero: the parity flips and the pending count starts again from
//! the expected count. The state `mbarrier.arrive` returns has the parity
//! of the phase the thread arrived in (bit 63) and the pending count left
//! after its arrival (bits 0..20), which `mbarrier.pending_count` reads.
//! `test_wait` (and `try_wait`, which the engine never suspends: returning
//! false before the phase completes is one of the behaviours the manual
//! allows, and callers loop) is true when the phase of the state, or of the
//! given parity, has completed, i.e. the current parity differs from it.
//!
//! The lanes of a warp act in lane order. Undefined uses are traps: an
//! object that is not initialised (or was invalidated), a count outside
//! `1 ..= 2^20 - 1`, an arrival larger than the pending count, a
//! `.noComplete` arrival that would complete the phase, a transaction count
//! outside `±(2^20 - 1)`, an address that is not 8-byte aligned shared
//! memory.

use super::{fetch, set_pred, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanemem::{check_align, place, Place};
use crate::lanes::store;
use crate::program::*;
use crate::warp::{lanes, Frame};

const PENDING: u64 = (1 << 20) - 1;
const VALID: u64 = 1 << 62;
const PHASE: u64 = 1 << 63;
/// The largest arrival count and transaction count magnitude.
pub const MAX_COUNT: u64 = (1 << 20) - 1;

fn pending(o: u64) -> u64 {
    o & PENDING
}
fn expected(o: u64) -> u64 {
    (o >> 20) & PENDING
}
fn tx(o: u64) -> i64 {
    (((o >> 40) & ((1 << 21) - 1)) as i64) << 43 >> 43
}
fn with(o: u64, pending: u64, expected: u64, tx: i64) -> u64 {
    (o & (VALID | PHASE)) | pending | expected << 20 | ((tx as u64) & ((1 << 21) - 1)) << 40
}

fn trap(l: usize, msg: String) -> Trap {
    Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: {msg}"))
}

/// Completes the phase when nothing is pending.
fn settle(o: u64) -> u64 {
    if pending(o) == 0 && tx(o) == 0 {
        with(o ^ PHASE, expected(o), expected(o), 0)
    } else {
        o
    }
}

/// Object state `o` after `expect_tx` (or, `complete`, `complete_tx`) of
/// `count` transactions by lane `l`.
fn transact(o: u64, count: u64, complete: bool, l: usize) -> Result<u64, Trap> {
    let t = if complete { tx(o) - count as i64 } else { tx(o) + count as i64 };
    if count > MAX_COUNT || t.unsigned_abs() > MAX_COUNT {
        return Err(trap(l, format!("mbarrier transaction count {t} is outside ±{MAX_COUNT}")));
    }
    let after = with(o, pending(o), expected(o), t);
    Ok(if complete { settle(after) } else { after })
}

/// `complete_tx` of `count` transactions on the mbarrier at shared address
/// `at` (of this CTA, or rank-tagged: another CTA's) for lane `l`: how a
/// bulk copy signals its bytes, to one or (multicast) several CTAs.
pub(super) fn complete_tx(cx: &mut Lanes<'_>, l: usize, at: u64, count: u64) -> Result<(), Trap> {
    check_align(at, 8, l)?;
    let mut cache = usize::MAX;
    let o = cx.mem.read(Space::Shared, l, at, 8, &mut cache)?;
    if o & VALID == 0 {
        return Err(trap(l, format!("the mbarrier object at shared {at:#x} is not initialised (mbarrier.init), or was invalidated")));
    }
    let new = transact(o, count, true, l)?;
    cx.mem.write(Space::Shared, l, at, 8, new, &mut cache)?;
    *cx.stores += 1;
    Ok(())
}

/// The shared-memory offset of lane `l`'s object.
fn object(cx: &Lanes<'_>, fr: &Frame, l: usize, space: Space, addr: Addr) -> Result<u64, Trap> {
    let base = match addr.base {
        AddrBase::Reg(r) => fr.regs[r as usize][l],
        AddrBase::None => 0,
        AddrBase::Frame => cx.local_base,
    };
    let a = base.wrapping_add(addr.offset as u64);
    let Place::Shared(o) = place(space, a) else {
        return Err(trap(l, format!("the mbarrier object at {a:#x} is not in shared memory")));
    };
    check_align(o, 8, l)?;
    Ok(o)
}

/// One `mbarrier` instruction (or `cp.async.mbarrier.arrive`) on the lanes of `m`.
pub(crate) fn mbarrier(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, (op, d): (MbarOp, Option<Dst>), (space, addr): (Space, Addr), a: &Src) -> Result<(), Trap> {
    let t0;
    let av = *fetch!(cx, fr.regs, a, t0);
    if let MbarOp::PendingCount = op {
        if let Some(Dst::Reg(r)) = d {
            let out = av.map(|s| s & PENDING);
            store(&mut fr.regs[r as usize], &out, m);
        }
        return Ok(());
    }
    let mut out = [0u64; 32];
    let mut done = 0u32;
    let mut cache = usize::MAX;
    for l in lanes(m) {
        let at = object(cx, fr, l, space, addr)?;
        let o = cx.mem.read(Space::Shared, l, at, 8, &mut cache)?;
        let count = av[l];
        if op != MbarOp::Init && o & VALID == 0 {
            return Err(trap(l, format!("the mbarrier object at shared {at:#x} is not initialised (mbarrier.init), or was invalidated")));
        }
        let new = match op {
            MbarOp::Init => {
                if !(1..=MAX_COUNT).contains(&count) {
                    return Err(trap(l, format!("mbarrier.init count {count} is outside 1..={MAX_COUNT}")));
                }
                VALID | count | count << 20
            }
            MbarOp::Inval => 0,
            MbarOp::Arrive { drop, no_complete, expect_tx } => {
                let (n, o) = if expect_tx {
                    let t = tx(o) + count as i64;
                    if t.unsigned_abs() > MAX_COUNT {
                        return Err(trap(l, format!("mbarrier transaction count {t} is outside ±{MAX_COUNT}")));
                    }
                    (1, with(o, pending(o), expected(o), t))
                } else {
                    (count, o)
                };
                if !(1..=MAX_COUNT).contains(&n) || n > pending(o) {
                    return Err(trap(l, format!("mbarrier arrival count {n} with {} arrivals pending (outside 1..=pending)", pending(o))));
                }
                let left = pending(o) - n;
                let exp = if drop { expected(o).saturating_sub(n) } else { expected(o) };
                out[l] = (o & PHASE) | left;
                let after = with(o, left, exp, tx(o));
                if no_complete && left == 0 && tx(o) == 0 {
                    return Err(trap(l, "an mbarrier.arrive.noComplete would complete the phase (undefined in the manual)".to_string()));
                }
                settle(after)
            }
            MbarOp::Tx { complete } => transact(o, count, complete, l)?,
            MbarOp::CpAsyncArrive { noinc } => {
                cx.copies.track(l, at, o & PHASE != 0);
                // The copies of this thread are complete already (they are
                // performed at issue), so the arrive-on happens now; without
                // `.noinc` it first adds the arrival it then makes.
                if noinc {
                    if pending(o) == 0 {
                        return Err(trap(l, "cp.async.mbarrier.arrive.noinc with no arrival pending".to_string()));
                    }
                    settle(with(o, pending(o) - 1, expected(o), tx(o)))
                } else {
                    o
                }
            }
            MbarOp::TestWait { parity } => {
                let phase = if parity { count & 1 } else { count >> 63 };
                if o >> 63 != phase {
                    done |= 1 << l;
                    cx.copies.observed(at, phase == 1);
                }
                o
            }
            MbarOp::PendingCount => o,
        };
        if new != o {
            cx.mem.write(Space::Shared, l, at, 8, new, &mut cache)?;
        }
    }
    match (op, d) {
        (MbarOp::TestWait { .. }, Some(Dst::Pred(p))) => set_pred(&mut fr.preds, p, done, m),
        (MbarOp::Arrive { .. }, Some(Dst::Reg(r))) => store(&mut fr.regs[r as usize], &out, m),
        _ => {}
    }
    if !matches!(op, MbarOp::TestWait { .. }) {
        *cx.stores += 1;
    }
    Ok(())
}
