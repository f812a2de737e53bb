//! `isspacep`, `mapa` and `getctarank` (PTX ISA 9.7.9.16-18): which window a
//! generic address falls in, and the shared memory of the CTAs of a
//! cluster (distributed shared memory).
//!
//! The engine's generic address space has one window per state space
//! (`memory::classify`): shared, local, const and kernel parameters, and
//! global memory everywhere else. The manual leaves the form of a
//! `.shared::cluster` address opaque; the engine's is an offset in the
//! 4 GiB shared window (`lanemem::RANK_SHIFT`):
//! - below `1 << 24`, the executing CTA's own shared memory: the
//!   `.shared::cta` window, which the manual places inside the
//!   `.shared::cluster` window, so a `.shared::cta` address is also the
//!   `.shared::cluster` address of the same byte;
//! - `(rank + 1) << 24 | off`, byte `off` of the shared memory of the CTA of
//!   cluster rank `rank`.
//!
//! Only a `.shared::cluster` address, or a generic one (what `mapa` and
//! `cvta` produce), is read this way. A `.shared`/`.shared::cta` address of
//! a memory instruction is an offset into this CTA's own window
//! (`Space::SharedCta`): its high bits name no CTA, and past the window it
//! traps `out_of_bounds`.
//!
//! `mapa` to the executing CTA's rank gives its own (`.shared::cta`) form,
//! to another rank the tagged one; the address it maps may be either form
//! (the variable's offset is the same in every CTA). `getctarank` inverts
//! it. A rank outside the cluster, or an address outside the shared
//! window, is undefined in the manual and traps `out_of_bounds`; so does an
//! access (`lanemem`) past the end of the named CTA's shared memory.

use super::{fetch, set_pred, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanemem::{split_rank, RANK_SHIFT};
use crate::lanes::store;
use crate::memory::{classify, Window, SHARED_WINDOW, WINDOW_SIZE};
use crate::program::{Space, Src};
use crate::warp::{lanes, Frame};

/// The opcodes the traps of this file name (their rows').
const MAPA: &str = ptxsim_isa::Opcode::Mapa.as_str();
const GETCTARANK: &str = ptxsim_isa::Opcode::Getctarank.as_str();

/// The CTA count of the executing CTA's cluster.
pub(super) fn cluster_size(cx: &Lanes<'_>) -> u64 {
    let g = cx.sregs.geom;
    u64::from(g.cluster[0]) * u64::from(g.cluster[1]) * u64::from(g.cluster[2])
}

/// `isspacep.space p, a`; `cluster` for `.shared::cluster`.
pub(super) fn isspacep(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (space, cluster): (Space, bool), p: u32, (a, off): (&Src, u64)) {
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let (own, n) = (u64::from(cx.sregs.cta.rank), cluster_size(cx));
    let mut v = 0u32;
    for l in lanes(m) {
        let hit = match classify(av[l].wrapping_add(off)) {
            Window::Global => space == Space::Global,
            Window::Shared(o) => {
                space == Space::Shared
                    && match split_rank(o).0 {
                        None => true,
                        Some(r) => r == own || (cluster && r < n),
                    }
            }
            Window::Local(_) => space == Space::Local,
            Window::Const(_) => space == Space::Const,
            Window::Param(_) => space == Space::KernelParam,
        };
        v |= (hit as u32) << l;
    }
    set_pred(&mut fr.preds, p, v, m);
}

fn mask(bits: u32, v: u64) -> u64 {
    if bits == 32 {
        v & 0xffff_ffff
    } else {
        v
    }
}

/// The shared-window offset of `a`: in the generic shared window, or (a
/// `.shared::cluster` address) an offset in the window; `None` outside.
fn shared_offset(generic: bool, a: u64) -> Option<u64> {
    if generic {
        match classify(a) {
            Window::Shared(o) => Some(o),
            _ => None,
        }
    } else {
        (a < WINDOW_SIZE).then_some(a)
    }
}

fn not_shared(l: usize, what: &str, a: u64) -> Trap {
    let w = if a >= SHARED_WINDOW { "" } else { " (a generic address of shared memory lies in the shared window)" };
    Trap::lane(TrapKind::OutOfBounds, l as u32, format!("`{what}`: address {a:#x} is not in shared memory{w}"))
}

pub(super) fn bad_rank(l: usize, what: &str, rank: u64, n: u64) -> Trap {
    Trap::lane(TrapKind::OutOfBounds, l as u32, format!("`{what}`: CTA rank {rank} is outside the cluster of {n} CTAs"))
}

/// `mapa{.shared::cluster}.type d, a, b`.
pub(super) fn mapa(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (generic, bits): (bool, u32), d: u32, (a, off): (&Src, u64), b: &Src) -> Result<(), Trap> {
    let (t0, t1);
    let (av, bv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1));
    let n = cluster_size(cx);
    let own = u64::from(cx.sregs.cta.rank);
    let mut r = [0u64; 32];
    for l in lanes(m) {
        let (addr, rank) = (mask(bits, av[l].wrapping_add(off)), u64::from(bv[l] as u32));
        if rank >= n {
            return Err(bad_rank(l, MAPA, rank, n));
        }
        let Some(o) = shared_offset(generic, addr) else { return Err(not_shared(l, MAPA, addr)) };
        let (from, var) = split_rank(o);
        if from.is_some_and(|f| f >= n) {
            return Err(bad_rank(l, MAPA, from.unwrap_or(0), n));
        }
        if rank != own && cx.mem.shared.len() as u64 > 1 << RANK_SHIFT {
            return Err(Trap::lane(
                TrapKind::Unsupported,
                l as u32,
                format!("`mapa` to CTA rank {rank}: distributed shared memory is modelled for at most {} bytes of shared memory per CTA; this CTA has {}", 1u64 << RANK_SHIFT, cx.mem.shared.len()),
            ));
        }
        let to = if rank == own { var } else { (rank + 1) << RANK_SHIFT | var };
        r[l] = if generic { SHARED_WINDOW + to } else { to };
        if bits == 32 && r[l] > u64::from(u32::MAX) {
            return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("`mapa`: the address of CTA rank {rank}'s copy of {addr:#x} does not fit in 32 bits")));
        }
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}

/// `getctarank{.shared::cluster}.type d, a`.
pub(super) fn getctarank(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (generic, bits): (bool, u32), d: u32, (a, off): (&Src, u64)) -> Result<(), Trap> {
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let (own, n) = (u64::from(cx.sregs.cta.rank), cluster_size(cx));
    let mut r = [0u64; 32];
    for l in lanes(m) {
        let addr = mask(bits, av[l].wrapping_add(off));
        let Some(o) = shared_offset(generic, addr) else { return Err(not_shared(l, GETCTARANK, addr)) };
        r[l] = match split_rank(o).0 {
            None => own,
            Some(k) if k < n => k,
            Some(k) => return Err(bad_rank(l, GETCTARANK, k, n)),
        };
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}
