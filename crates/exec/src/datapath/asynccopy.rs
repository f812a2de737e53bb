//! Asynchronous copies from global to shared memory (PTX ISA 9.7.9.25
//! `cp.async`, `cp.async.commit_group`, `cp.async.wait_group`,
//! `cp.async.wait_all`) and the bookkeeping that makes a read of a copy's
//! destination before it was waited for a located trap.
//!
//! Execution order: a copy is performed when it is issued. The manual lets
//! the copy complete at any time between its issue and the `wait_group` /
//! `wait_all` that covers it, so completing it at issue is one of the legal
//! orders; a kernel that only touches a destination after waiting for it
//! (and, for other threads, after a barrier) sees the same bytes under
//! every order.
//!
//! Races: a program that reads or writes a destination before the copy is
//! waited for has no defined result (the copy may or may not have landed).
//! A copy is waited for by a `cp.async.wait_group`/`wait_all` that covers
//! it, or, when its thread made a `cp.async.mbarrier.arrive{.noinc}` after
//! issuing it, by a thread of the warp observing (`mbarrier.test_wait` or
//! `try_wait` true) the completion of the mbarrier phase that arrive-on
//! went to: the pattern `cuda::memcpy_async` with a `cuda::barrier`
//! compiles to.
//! Each warp keeps the destinations of its lanes' copies not yet waited for
//! ([`crate::copies::AsyncCopies`]), with the group each belongs to (per thread: the
//! copies a thread issued since its last `commit_group` form its next
//! group). A shared-memory access by that warp (`ld`, `st`, `atom`, `red`,
//! `ldmatrix`, `stmatrix`, by a `.shared` or a generic address) that
//! overlaps one of them traps `async_copy_race`, naming the copy's lane.
//! Accesses by other warps are not checked (they need a barrier after the
//! wait anyway, and a barrier before it is the only way to see a pending
//! copy from another warp: that case is not detected). At most
//! [`crate::copies::MAX_TRACKED`] copies are tracked per warp; past that the oldest are
//! forgotten (they are complete in memory already, so only the race check
//! for them is lost).

use super::{fetch, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanemem::{check_align, place, Place};
use crate::program::*;
use crate::warp::{lanes, Frame};

/// Checks the accesses of `bytes` bytes at `addr` (per lane, in `space`) by
/// the lanes of `m` against the warp's pending copies.
pub(crate) fn check_access(cx: &Lanes<'_>, fr: &Frame, m: u32, space: Space, addr: Addr, bytes: u64, write: bool) -> Result<(), Trap> {
    if !matches!(space, Space::Shared | Space::SharedCta | Space::Generic) {
        return Ok(());
    }
    let what = if write { "writes" } else { "reads" };
    for l in lanes(m) {
        let base = match addr.base {
            AddrBase::Reg(r) => fr.regs[r as usize][l],
            AddrBase::None => 0,
            AddrBase::Frame => cx.local_base,
        };
        let a = base.wrapping_add(addr.offset as u64);
        if let Place::Shared(o) = place(space, a) {
            cx.copies.check(l, o, o.saturating_add(bytes), what)?;
        }
    }
    Ok(())
}

/// Checks per-lane shared-memory rows (`ldmatrix`, `stmatrix`): lane `l`
/// touches `rows[l]..rows[l] + bytes` when its bit is set in `m`.
pub(crate) fn check_rows(cx: &Lanes<'_>, m: u32, rows: &[u64; 32], bytes: u64, write: bool) -> Result<(), Trap> {
    if cx.copies.idle() {
        return Ok(());
    }
    let what = if write { "writes" } else { "reads" };
    for l in lanes(m) {
        cx.copies.check(l, rows[l], rows[l].saturating_add(bytes), what)?;
    }
    Ok(())
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], cp_size{, src-size |
/// ignore-src}` for the lanes of `m`: copies at once (see the module doc)
/// and records each destination as pending in the lane's open group.
pub(crate) fn cp_async(cx: &mut Lanes<'_>, fr: &Frame, m: u32, dst: Addr, src: Addr, cp_size: u32, size: CopySrcSize) -> Result<(), Trap> {
    let t0;
    let sizes: Option<&[u64; 32]> = match &size {
        CopySrcSize::Size(s) => Some(fetch!(cx, fr.regs, s, t0)),
        _ => None,
    };
    let ignore = match size {
        CopySrcSize::Ignore(p) => super::psrc(&fr.preds, p),
        _ => 0,
    };
    let base = |a: Addr, l: usize| match a.base {
        AddrBase::Reg(r) => fr.regs[r as usize][l].wrapping_add(a.offset as u64),
        AddrBase::None => a.offset as u64,
        AddrBase::Frame => cx.local_base.wrapping_add(a.offset as u64),
    };
    let mut cache = usize::MAX;
    for l in lanes(m) {
        let n = if ignore >> l & 1 == 1 {
            0
        } else {
            match sizes {
                Some(s) => {
                    let n = s[l] as u32;
                    if n > cp_size {
                        return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: cp.async src-size {n} is larger than cp-size {cp_size} (undefined in the manual)")));
                    }
                    n
                }
                None => cp_size,
            }
        };
        let (d, s) = (base(dst, l), base(src, l));
        check_align(d, cp_size, l)?;
        check_align(s, cp_size, l)?;
        cx.copies.check(l, d, d.saturating_add(cp_size as u64), "cp.async writes")?;
        // Read the source first: a failing lane changes nothing.
        let mut bytes = [0u8; 16];
        if n == cp_size {
            let w = cp_size.min(8);
            for k in (0..cp_size).step_by(w as usize) {
                let v = cx.mem.read(Space::Global, l, s + k as u64, w, &mut cache)?;
                bytes[k as usize..(k + w) as usize].copy_from_slice(&v.to_le_bytes()[..w as usize]);
            }
        } else {
            for k in 0..n {
                bytes[k as usize] = cx.mem.read(Space::Global, l, s + k as u64, 1, &mut cache)? as u8;
            }
        }
        let w = cp_size.min(8);
        for k in (0..cp_size).step_by(w as usize) {
            let mut v = [0u8; 8];
            v[..w as usize].copy_from_slice(&bytes[k as usize..(k + w) as usize]);
            cx.mem.write(Space::Shared, l, d + k as u64, w, u64::from_le_bytes(v), &mut cache)?;
        }
        cx.copies.issue(l, d, d + cp_size as u64);
    }
    *cx.stores += 1;
    Ok(())
}
