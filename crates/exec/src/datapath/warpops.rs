//! Warp-wide operations: `activemask`, `vote` and `shfl`, whose lanes read
//! each other's values (or the warp's active mask).

use super::{fetch, set_pred, Lanes};
use crate::lanes::store;
use crate::program::*;
use crate::warp::{lanes, Frame};

/// `activemask.b32 d`: the running lanes, written on the guard-true ones.
pub(super) fn activemask(fr: &mut Frame, active: u32, m: u32, d: u32) {
    store(&mut fr.regs[d as usize], &[active as u64; 32], m);
}

/// `vote.{all,any,uni}.pred` and `vote.ballot.b32` over the lanes of `m`.
pub(super) fn vote(fr: &mut Frame, m: u32, mode: VoteMode, d: Dst, a: PSrc) {
    let av = super::psrc(&fr.preds, a) & m;
    let v = match mode {
        VoteMode::Ballot => av as u64,
        VoteMode::All => (av == m) as u64,
        VoteMode::Any => (av != 0) as u64,
        VoteMode::Uni => (av == m || av == 0) as u64,
    };
    match d {
        Dst::Reg(r) => store(&mut fr.regs[r as usize], &[v; 32], m),
        Dst::Pred(p) => set_pred(&mut fr.preds, p, if v != 0 { u32::MAX } else { 0 }, m),
    }
}

/// `shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c`: each lane of `m`
/// reads lane `j` of `a` (PTX ISA 9.7.8.6: `b` the lane or offset, `c`
/// the clamp and segment mask), or its own value when `j` is out of range;
/// `p` says whether `j` was in range.
pub(super) fn shfl(cx: &Lanes<'_>, fr: &mut Frame, m: u32, mode: ShflMode, (d, pd): (u32, Option<u32>), [a, b, c]: [&Src; 3]) {
    let (t0, t1, t2);
    let (av, bv, cv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1), fetch!(cx, fr.regs, c, t2));
    let mut r = [0u64; 32];
    let mut pv = 0u32;
    for l in lanes(m) {
        let lane = l as i64;
        let bval = (bv[l] & 31) as i64;
        let cval = (cv[l] & 31) as i64;
        let seg = ((cv[l] >> 8) & 31) as i64;
        let max_lane = (lane & seg) | (cval & !seg);
        let min_lane = lane & seg;
        let (j, ok) = match mode {
            ShflMode::Up => (lane - bval, lane - bval >= max_lane),
            ShflMode::Down => (lane + bval, lane + bval <= max_lane),
            ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
            ShflMode::Idx => {
                let j = min_lane | (bval & !seg);
                (j, j <= max_lane)
            }
        };
        let j = if ok && (0..32).contains(&j) { j } else { lane };
        r[l] = av[j as usize] & 0xffff_ffff;
        if ok {
            pv |= 1 << l;
        }
    }
    store(&mut fr.regs[d as usize], &r, m);
    if let Some(pd) = pd {
        set_pred(&mut fr.preds, pd, pv, m);
    }
}
