//! Warp-wide operations: `activemask`, `vote`, `shfl`, `match.sync`,
//! `redux.sync` and `elect.sync`, whose lanes read each other's values (or
//! the warp's active mask).

use super::{fetch, set_pred, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanes::store;
use crate::program::*;
use crate::warp::{lanes, Frame};

/// `activemask.b32 d`: the running lanes, written on the guard-true ones.
pub(super) fn activemask(fr: &mut Frame, active: u32, m: u32, d: u32) {
    store(&mut fr.regs[d as usize], &[active as u64; 32], m);
}

/// `vote{.sync}.{all,any,uni}.pred` and `vote{.sync}.ballot.b32`: each
/// executing lane votes with the lanes that pass the same membermask (all
/// of `m` for the non-`.sync` form, whose mask is all ones); a lane outside
/// a group's membermask contributes 0 to its ballot (PTX ISA vote.sync).
pub(super) fn vote(cx: &Lanes<'_>, fr: &mut Frame, m: u32, mode: VoteMode, d: Dst, a: PSrc, membermask: &Src) {
    let av = super::psrc(&fr.preds, a) & m;
    let t0;
    let mv = fetch!(cx, fr.regs, membermask, t0);
    let (mut r, mut pv) = ([0u64; 32], 0u32);
    let mut left = m;
    while left != 0 {
        let mask = mv[left.trailing_zeros() as usize] as u32;
        let set = lanes(left).filter(|&l| mv[l] as u32 == mask).fold(0u32, |acc, l| acc | 1 << l);
        let (g, av) = (set & mask, av & set & mask);
        let v = match mode {
            VoteMode::Ballot => av as u64,
            VoteMode::All => (av == g) as u64,
            VoteMode::Any => (av != 0) as u64,
            VoteMode::Uni => (av == g || av == 0) as u64,
        };
        for l in lanes(set) {
            r[l] = v;
        }
        if v != 0 {
            pv |= set;
        }
        left &= !set;
    }
    match d {
        Dst::Reg(reg) => store(&mut fr.regs[reg as usize], &r, m),
        Dst::Pred(p) => set_pred(&mut fr.preds, p, pv, m),
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

/// The groups of lanes a `.sync` warp collective runs over: the executing
/// lanes grouped by the membermask they pass (PTX ISA: each thread waits
/// for "all non-exited threads corresponding to membermask" that pass "the
/// same membermask value", so disjoint groups, such as the two halves of a
/// warp in a `tiled_partition<16>` reduction, run side by side), after the
/// checks the manual's undefined cases call for: every executing lane must
/// be in its membermask, every lane of a mask that executes must pass that
/// same mask, and every live (not exited) lane of the mask must execute the
/// instruction with them (the engine runs a collective when the lanes reach
/// it together and cannot wait for lanes elsewhere). Each group's lanes are
/// its membermask.
fn member_groups(cx: &Lanes<'_>, fr: &Frame, m: u32, what: &str, membermask: &Src) -> Result<Vec<u32>, Trap> {
    let t0;
    let mv = fetch!(cx, fr.regs, membermask, t0);
    let mut groups = Vec::new();
    let mut left = m;
    while left != 0 {
        let first = left.trailing_zeros() as usize;
        let mask = mv[first] as u32;
        let mut set = 0u32;
        for l in lanes(left) {
            if mv[l] as u32 == mask {
                set |= 1 << l;
            }
        }
        for l in lanes(set) {
            if mask >> l & 1 == 0 {
                return Err(Trap::lane(TrapKind::NonUniform, l as u32, format!("`{what}`: lane {l} executes it but is not in membermask {mask:#010x} (undefined in the manual)")));
            }
        }
        let other = mask & m & !set;
        if other != 0 {
            let l = other.trailing_zeros();
            return Err(Trap::lane(
                TrapKind::NonUniform,
                l,
                format!("`{what}`: lane {l} is in lane {first}'s membermask {mask:#010x} but passes {:#010x} (the manual requires the same mask)", mv[l as usize] as u32),
            ));
        }
        let missing = mask & cx.live & !m;
        if missing != 0 {
            return Err(Trap::lane(
                TrapKind::NonUniform,
                first as u32,
                format!("`{what}`: membermask {mask:#010x} names lanes {missing:#010x} that have not exited and do not execute it with lanes {m:#010x}"),
            ));
        }
        groups.push(set);
        left &= !set;
    }
    Ok(groups)
}

/// `match.any.sync.b32/.b64 d, a, membermask`: each lane gets the mask of
/// the members whose `a` equals its own; `match.all.sync.b32/.b64 d{|p}, a,
/// membermask`: the members' mask when all their `a` are equal, else 0, and
/// `p` says whether they were (PTX ISA 9.7.13 match.sync).
pub(super) fn match_sync(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (all, bits): (bool, u32), (d, p): (u32, Option<u32>), [a, membermask]: [&Src; 2]) -> Result<(), Trap> {
    let what = if all { "match.all.sync" } else { "match.any.sync" };
    let groups = member_groups(cx, fr, m, what, membermask)?;
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let mk = super::arith::bits_mask(bits);
    let mut r = [0u64; 32];
    let mut pv = 0u32;
    for set in groups {
        let first = lanes(set).next().map(|l| av[l] & mk);
        let same = lanes(set).all(|l| Some(av[l] & mk) == first);
        for l in lanes(set) {
            r[l] = if all {
                if same {
                    set as u64
                } else {
                    0
                }
            } else {
                lanes(set).filter(|&k| av[k] & mk == av[l] & mk).fold(0u64, |acc, k| acc | 1 << k)
            };
        }
        if same {
            pv |= set;
        }
    }
    store(&mut fr.regs[d as usize], &r, m);
    if let Some(p) = p {
        set_pred(&mut fr.preds, p, pv, m);
    }
    Ok(())
}

/// `redux.sync.op.type d, a, membermask` over the members' `a`
/// ([`ptxsim_sem::alu::ext::redux`]), written to every member.
pub(super) fn redux_sync(cx: &Lanes<'_>, fr: &mut Frame, m: u32, op: ptxsim_sem::alu::ext::ReduxOp, d: u32, a: &Src, membermask: &Src) -> Result<(), Trap> {
    let groups = member_groups(cx, fr, m, "redux.sync", membermask)?;
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let mut r = [0u64; 32];
    for set in groups {
        let v = ptxsim_sem::alu::ext::redux(op, lanes(set).map(|l| av[l] as u32)) as u64;
        for l in lanes(set) {
            r[l] = v;
        }
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}

/// `elect.sync d|p, membermask`: the member with the lowest lane id is the
/// leader (the manual leaves the choice to the implementation but requires
/// it to be deterministic); `d` gets its lane id on every member, `p` is
/// true on the leader only.
pub(super) fn elect_sync(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (d, p): (Option<u32>, Option<u32>), membermask: &Src) -> Result<(), Trap> {
    let groups = member_groups(cx, fr, m, "elect.sync", membermask)?;
    let (mut r, mut leaders) = ([0u64; 32], 0u32);
    for set in groups {
        let leader = set.trailing_zeros();
        leaders |= 1 << leader;
        for l in lanes(set) {
            r[l] = leader as u64;
        }
    }
    if let Some(d) = d {
        store(&mut fr.regs[d as usize], &r, m);
    }
    if let Some(p) = p {
        set_pred(&mut fr.preds, p, leaders, m);
    }
    Ok(())
}
