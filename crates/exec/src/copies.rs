//! A warp's asynchronous copies not yet waited for (`cp.async`): the
//! bookkeeping of their destinations and groups that the data path's race
//! check reads (`datapath/asynccopy.rs` issues the copies and says when
//! one is waited for). Warp state, below the data path.

use crate::error::{Trap, TrapKind};
use crate::lanes::lanes;

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
    /// The accumulator registers of the warp's `wgmma.mma_async`s not yet
    /// waited for, with the group each belongs to (`acc_groups` for one not
    /// committed yet).
    acc: Vec<(u32, u64)>,
    /// The warp's `wgmma.commit_group`s so far.
    acc_groups: u64,
}

impl AsyncCopies {
    /// Forgets everything (a warp starting a new CTA).
    pub fn clear(&mut self) {
        self.pending.clear();
        self.committed = [0; 32];
        self.seq = 0;
        self.acc.clear();
        self.acc_groups = 0;
    }

    /// A `wgmma.mma_async` of the warp writing accumulator registers `d`,
    /// in the warp's open group (PTX ISA 9.7.15.6: reading them before the
    /// `wgmma.wait_group` that covers it has no defined result).
    pub fn wgmma_issue(&mut self, d: &[u32]) {
        let g = self.acc_groups;
        for &r in d {
            if !self.acc.contains(&(r, g)) {
                self.acc.push((r, g));
            }
        }
    }

    /// `wgmma.commit_group`: the `wgmma`s of the open group form a group.
    pub fn wgmma_commit(&mut self) {
        self.acc_groups += 1;
    }

    /// `wgmma.wait_group n`: every committed group but the `n` most recent
    /// is complete.
    pub fn wgmma_wait(&mut self, n: u64) {
        let c = self.acc_groups;
        self.acc.retain(|&(_, g)| g.saturating_add(n) >= c);
    }

    /// The trap for lanes `m` reading registers `regs` (named `names`) while
    /// a `wgmma` writing one of them is not waited for.
    pub(crate) fn acc_check(&self, m: u32, regs: &[u32], names: &[String]) -> Result<(), Trap> {
        let Some((k, g)) = regs.iter().enumerate().find_map(|(k, r)| self.acc.iter().find(|a| a.0 == *r).map(|a| (k, a.1))) else { return Ok(()) };
        let l = m.trailing_zeros();
        let state = if g < self.acc_groups { "committed but not waited for" } else { "not committed" };
        let name = names.get(k).map(String::as_str).unwrap_or("a register");
        Err(Trap::lane(
            TrapKind::WgmmaRace,
            l,
            format!("lane {l}: reads `{name}`, an accumulator of a wgmma.mma_async {state}: wait for it with wgmma.commit_group and wgmma.wait_group first"),
        ))
    }

    /// Whether no copy is pending (the race check costs nothing then).
    #[inline(always)]
    pub fn idle(&self) -> bool {
        self.pending.is_empty()
    }

    /// Records a copy by lane `lane` to shared bytes `[start, end)`, in the
    /// lane's open group.
    pub(crate) fn issue(&mut self, lane: usize, start: u64, end: u64) {
        let group = self.committed[lane];
        self.push(Pending { lane: lane as u8, group, start, end, seq: 0, mbar: None });
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
    pub(crate) fn check(&self, l: usize, start: u64, end: u64, what: &str) -> Result<(), Trap> {
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
