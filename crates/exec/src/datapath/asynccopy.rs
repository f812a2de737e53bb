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
//! ([`AsyncCopies`]), with the group each belongs to (per thread: the
//! copies a thread issued since its last `commit_group` form its next
//! group). A shared-memory access by that warp (`ld`, `st`, `atom`, `red`,
//! `ldmatrix`, `stmatrix`, by a `.shared` or a generic address) that
//! overlaps one of them traps `async_copy_race`, naming the copy's lane.
//! Accesses by other warps are not checked (they need a barrier after the
//! wait anyway, and a barrier before it is the only way to see a pending
//! copy from another warp: that case is not detected). At most
//! [`MAX_TRACKED`] copies are tracked per warp; past that the oldest are
//! forgotten (they are complete in memory already, so only the race check
//! for them is lost).

use super::{fetch, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanemem::{check_align, place, Place};
use crate::program::*;
use crate::warp::{lanes, Frame};

/// Copies tracked per warp for the race check.
pub const MAX_TRACKED: usize = 4096;

/// One copy not yet waited for: its lane, the lane's group it belongs to,
/// its destination bytes `[start, end)` in the CTA's shared memory (at most
/// 16), its issue number (for forgetting the oldest), and the mbarrier
/// phase that tracks it, if its lane made a `cp.async.mbarrier.arrive`
/// after issuing it: the object's shared offset and the phase's parity.
#[derive(Clone, Copy, Debug)]
struct Pending {
    lane: u8,
    group: u64,
    start: u64,
    end: u64,
    seq: u64,
    mbar: Option<(u64, bool)>,
}

/// The widest copy (`cp-size` 16): a pending copy starting more than this
/// below an access cannot reach it.
const WIDEST: u64 = 16;

/// A warp's asynchronous copies not yet waited for, sorted by destination
/// (so that checking an access looks at the few copies that can overlap
/// it), and each lane's number of committed groups.
#[derive(Clone, Debug, Default)]
pub struct AsyncCopies {
    pending: Vec<Pending>,
    committed: [u64; 32],
    seq: u64,
}

impl AsyncCopies {
    /// Forgets everything (a warp starting a new CTA).
    pub fn clear(&mut self) {
        self.pending.clear();
        self.committed = [0; 32];
        self.seq = 0;
    }

    /// Whether no copy is pending (the race check costs nothing then).
    #[inline(always)]
    pub fn idle(&self) -> bool {
        self.pending.is_empty()
    }

    fn push(&mut self, mut p: Pending) {
        if self.pending.len() >= MAX_TRACKED {
            if let Some(oldest) = self.pending.iter().enumerate().min_by_key(|(_, q)| q.seq).map(|(i, _)| i) {
                self.pending.remove(oldest);
            }
        }
        p.seq = self.seq;
        self.seq += 1;
        let at = self.pending.partition_point(|q| q.start <= p.start);
        self.pending.insert(at, p);
    }

    /// `cp.async.commit_group` on the lanes of `m`.
    pub fn commit(&mut self, m: u32) {
        for l in lanes(m) {
            self.committed[l] += 1;
        }
    }

    /// `cp.async.wait_group n` on the lanes of `m`: every committed group
    /// but the `n` most recent is complete.
    pub fn wait(&mut self, m: u32, n: u64) {
        if self.pending.is_empty() {
            return;
        }
        let committed = self.committed;
        self.pending.retain(|p| m >> p.lane & 1 == 0 || p.group.saturating_add(n) >= committed[p.lane as usize]);
    }

    /// `cp.async.mbarrier.arrive{.noinc}` by lane `l` on the mbarrier at
    /// shared offset `at`, in its phase of parity `parity`: the arrive-on
    /// is triggered when every copy the lane issued before it is complete
    /// (PTX ISA 9.7.9.25.3), so those copies are complete when that phase
    /// completes. A copy already tracked by an earlier arrive keeps it.
    pub fn track(&mut self, l: usize, at: u64, parity: bool) {
        for p in self.pending.iter_mut().filter(|p| p.lane as usize == l && p.mbar.is_none()) {
            p.mbar = Some((at, parity));
        }
    }

    /// A thread of the warp observed (`mbarrier.test_wait`/`try_wait`
    /// true) that the phase of parity `parity` of the mbarrier at `at` is
    /// complete: the copies whose arrive-on that phase tracked are complete
    /// and visible to it, as after `cp.async.wait_group`.
    pub fn observed(&mut self, at: u64, parity: bool) {
        if !self.pending.is_empty() {
            self.pending.retain(|p| p.mbar != Some((at, parity)));
        }
    }

    /// The trap for an access of lane `l` to shared bytes `[start, end)`
    /// that overlap a pending copy.
    fn check(&self, l: usize, start: u64, end: u64, what: &str) -> Result<(), Trap> {
        let from = self.pending.partition_point(|p| p.start + WIDEST <= start);
        for p in self.pending[from..].iter().take_while(|p| p.start < end) {
            if start < p.end {
                let state = if p.group < self.committed[p.lane as usize] { "committed but not waited for" } else { "not committed" };
                return Err(Trap::lane(
                    TrapKind::AsyncCopyRace,
                    l as u32,
                    format!(
                        "lane {l}: {what} shared bytes {start:#x}..{end:#x}, the destination of lane {}'s cp.async ({:#x}..{:#x}), {state}: wait for it with cp.async.wait_group/wait_all (or an mbarrier phase its cp.async.mbarrier.arrive tracks) first",
                        p.lane, p.start, p.end
                    ),
                ));
            }
        }
        Ok(())
    }
}

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

/// Where a copy's bytes come from: `src_size` bytes of the source
/// (zero-filled up to `cp_size`), or none with `ignore-src`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CopySrcSize {
    /// No size operand: all `cp_size` bytes.
    Full,
    /// `src-size`: a 32-bit value, at most `cp_size`.
    Size(Src),
    /// `ignore-src`: when true the source is not read and zeros are written.
    Ignore(PSrc),
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
        let group = cx.copies.committed[l];
        cx.copies.push(Pending { lane: l as u8, group, start: d, end: d + cp_size as u64, seq: 0, mbar: None });
    }
    *cx.stores += 1;
    Ok(())
}
