//! Loops that compiled code runs lane by lane (stack mode): which loops
//! qualify, and what the warp-wide run of such a loop would have counted
//! ([`settle`]: fuel, thread instructions, divergent branches, the lanes
//! still inside).
//!
//! A qualifying loop is the pcs `head..=last` of a function: every
//! instruction compiled and lane-wise (no load or store, nothing the
//! interpreter runs), `last` a branch back to `head`, and every other
//! branch in it a guarded, non-`.uni` branch to one exit pc outside the
//! loop (and, when the back edge is guarded, its fall-through is that exit
//! too). Every branch's reconvergence point is the exit. Under the
//! reconvergence stack such a loop runs each lane's iterations as if alone:
//! lanes leave at the exit and wait there, and nothing a lane does is seen
//! by another (its registers are its own, and the loop touches no memory).
//! So running the lanes four at a time, each until it leaves, gives the
//! same registers as the warp-wide run; the warp-wide run's counts follow
//! from where and when each lane left (its exit code: iteration × segments
//! + segment).

use crate::plan::{Class, Plan, Uses};
use ptxsim_exec::program::{Function, Op};

/// The most 128-bit vectors of registers a lane-by-lane loop keeps.
const MAX_VECTORS: usize = 32;

/// A segment of a loop: its instructions up to and including a branch.
#[derive(Clone, Debug)]
pub struct Seg {
    /// The pc of the branch that ends it.
    pub bra: u32,
    /// Its instructions, with the branch.
    pub len: u32,
}

/// A loop run lane by lane.
#[derive(Clone, Debug)]
pub struct Region {
    pub head: u32,
    /// The back edge (the loop's last instruction).
    pub last: u32,
    /// Where every lane leaves to: the reconvergence point.
    pub exit: u32,
    pub segs: Vec<Seg>,
    /// Registers the loop reads or writes (sorted), and those it writes.
    pub regs: Vec<u32>,
    pub written: Vec<u32>,
    /// Predicates it reads or writes (sorted).
    pub preds: Vec<u32>,
    /// The written registers dead at its head and at its exit: their
    /// inactive lanes' bits need not be kept, and they are not stored
    /// (the plan fills this in from its liveness).
    pub temps: Vec<u32>,
}

impl Region {
    /// Instructions of one whole iteration.
    pub fn iteration_len(&self) -> u32 {
        self.last - self.head + 1
    }
}

/// The qualifying loops of `f` under plan `p` (each head a block start).
pub fn find(f: &Function, p: &Plan, all: &[Option<Uses>]) -> Vec<Region> {
    let starts: std::collections::BTreeSet<u32> = p.blocks.iter().map(|b| b.start).collect();
    let mut out = Vec::new();
    for (t, ins) in f.code.iter().enumerate() {
        let Op::Bra { target, uni } = ins.op else { continue };
        let t = t as u32;
        if uni || target > t || !starts.contains(&target) {
            continue;
        }
        if let Some(r) = region(f, p, all, target, t) {
            out.push(r);
        }
    }
    out
}

fn region(f: &Function, p: &Plan, all: &[Option<Uses>], head: u32, last: u32) -> Option<Region> {
    let back = &f.code[last as usize];
    let mut exit = back.guard.map(|_| last + 1);
    let mut segs = Vec::new();
    let mut seg_start = head;
    let (mut regs, mut written, mut preds) = (Vec::new(), Vec::new(), Vec::new());
    for pc in head..=last {
        let ins = &f.code[pc as usize];
        if !p.ok[pc as usize] {
            return None;
        }
        let u = all[pc as usize].as_ref()?;
        match ins.op {
            Op::Bra { target, uni } => {
                if pc < last {
                    if uni || ins.guard.is_none() || target >= head && target <= last {
                        return None;
                    }
                    if *exit.get_or_insert(target) != target {
                        return None;
                    }
                }
                segs.push(Seg { bra: pc, len: pc + 1 - seg_start });
                seg_start = pc + 1;
            }
            _ if crate::plan::by_helper(&ins.op) => return None,
            _ => {}
        }
        for &(r, _, w) in &u.regs {
            regs.push(r);
            if w {
                written.push(r);
            }
        }
        preds.extend(u.preds.iter().copied());
    }
    let exit = exit?;
    if exit >= head && exit <= last {
        return None;
    }
    // The interpreter's reconvergence point of every branch that can
    // diverge is the exit.
    if segs.iter().any(|s| f.code[s.bra as usize].guard.is_some() && f.reconv.get(s.bra as usize) != Some(&exit)) {
        return None;
    }
    for v in [&mut regs, &mut written, &mut preds] {
        v.sort_unstable();
        v.dedup();
    }
    let vectors: usize = regs.iter().map(|r| if p.regs.get(r) == Some(&Class::Wide) { 2 } else { 1 }).sum();
    if vectors > MAX_VECTORS {
        return None;
    }
    Some(Region { head, last, exit, segs, regs, written, preds, temps: Vec::new() })
}

/// What the warp-wide run of a loop would have counted, from each lane's
/// exit code.
#[derive(Debug, PartialEq, Eq)]
pub struct Settled {
    /// Warp instructions (fuel).
    pub fuel: u64,
    /// Thread instructions.
    pub threads: u64,
    /// Divergent branches, (pc, times).
    pub diverged: Vec<(u32, u64)>,
    /// Lanes still in the loop (after `cap` iterations).
    pub active: u32,
}

/// The counts of loop `r` run by lanes `mask`, lane `l` of which left
/// with exit code `codes[l]` (iteration × segments + segment; `u32::MAX`:
/// still in the loop after `cap` whole iterations).
pub fn settle(r: &Region, mask: u32, codes: &[u32; 32], cap: u64) -> Settled {
    let s = r.segs.len() as u64;
    let total = r.iteration_len() as u64;
    // Instructions of an iteration up to and including segment j's branch.
    let upto = |j: u64| r.segs.iter().take(j as usize + 1).map(|g| g.len as u64).sum::<u64>();
    let (mut threads, mut active) = (0u64, 0u32);
    let (mut exited, mut n) = ([0u32; 32], 0usize);
    for (l, &c) in codes.iter().enumerate() {
        if mask >> l & 1 == 0 {
            continue;
        }
        if c == u32::MAX {
            active |= 1 << l;
            threads += cap * total;
        } else {
            threads += c as u64 / s * total + upto(c as u64 % s);
            exited[n] = c;
            n += 1;
        }
    }
    let exited = &mut exited[..n];
    exited.sort_unstable();
    // The lane that left last ran every segment at least as often as any
    // other (codes order lanes by iteration, then segment); lanes still
    // inside ran `cap` whole iterations.
    let fuel = match (active, exited.last()) {
        (0, Some(&c)) => c as u64 / s * total + upto(c as u64 % s),
        _ => cap * total,
    };
    // A branch diverged where some lanes left by it and others went on.
    let top = if active != 0 { u32::MAX } else { exited.last().copied().unwrap_or(0) };
    let mut diverged: Vec<(u32, u64)> = Vec::new();
    let mut last = None;
    for &c in exited.iter().filter(|&&c| c < top) {
        if last == Some(c) {
            continue;
        }
        last = Some(c);
        let pc = r.segs[(c as u64 % s) as usize].bra;
        match diverged.iter_mut().find(|d| d.0 == pc) {
            Some(d) => d.1 += 1,
            None => diverged.push((pc, 1)),
        }
    }
    Settled { fuel, threads, diverged, active }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escape loop's shape: a 5-instruction segment ending in an exit,
    /// a 7-instruction one ending in the back edge.
    fn escape() -> Region {
        Region {
            head: 10,
            last: 21,
            exit: 22,
            segs: vec![Seg { bra: 14, len: 5 }, Seg { bra: 21, len: 7 }],
            regs: vec![],
            written: vec![],
            preds: vec![],
            temps: vec![],
        }
    }

    #[test]
    fn counts_follow_the_warp_wide_run() {
        let r = escape();
        let mut codes = [u32::MAX; 32];
        // Lane 0 leaves at the first exit of iteration 0, lane 1 at the
        // first exit of iteration 3, lane 2 falls out of the back edge
        // of iteration 3, lane 3 also leaves in iteration 0.
        codes[0] = 0;
        codes[1] = 6;
        codes[2] = 7;
        codes[3] = 0;
        let s = settle(&r, 0b1111, &codes, 100);
        // The warp ran segment 0 four times (iterations 0-3) and segment 1
        // four times (iterations 0-3: lane 2 still ran it in iteration 3).
        assert_eq!(s.fuel, 4 * 5 + 4 * 7);
        // Lanes: 0 and 3 ran segment 0 once; lane 1 segment 0 four times
        // and segment 1 three times; lane 2 both four times.
        assert_eq!(s.threads, 2 * 5 + (4 * 5 + 3 * 7) + (4 * 5 + 4 * 7));
        // Iteration 0: two lanes left at pc 14, two went on (diverged);
        // iteration 3: lane 1 left at pc 14 while lane 2 went on (diverged);
        // lane 2 then left alone at pc 21 (no divergence).
        assert_eq!(s.diverged, vec![(14, 2)]);
        assert_eq!(s.active, 0);
    }

    #[test]
    fn lanes_still_inside_at_the_cap() {
        let r = escape();
        let mut codes = [u32::MAX; 32];
        codes[5] = 3; // left by the back edge of iteration 1
        let s = settle(&r, 0b110000, &codes, 4);
        assert_eq!(s.active, 0b010000);
        assert_eq!(s.fuel, 4 * 12);
        assert_eq!(s.threads, 4 * 12 + 2 * 12);
        assert_eq!(s.diverged, vec![(21, 1)]);
    }
}
