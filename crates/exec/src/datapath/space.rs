//! `isspacep`, `mapa` and `getctarank` (PTX ISA 9.7.9.16-18): which window a
//! generic address falls in, and the shared memory of the CTAs of a
//! cluster.
//!
//! The engine's generic address space has one window per state space
//! (`memory::classify`): shared, local, const and kernel parameters, and
//! global memory everywhere else. Only the executing CTA's shared memory is
//! reachable (the data path holds that CTA's bytes alone), so a CTA's
//! `.shared::cluster` window is its `.shared::cta` window (the manual:
//! the `.shared::cta` window of the executing CTA lies in the
//! `.shared::cluster` window): `mapa` to the CTA's own rank gives the same
//! address back, `getctarank` of a shared address gives the CTA's own
//! rank. `mapa` to another CTA of the cluster (distributed shared memory)
//! traps `unsupported`; a rank outside the cluster, or a generic address
//! outside the shared window, is undefined in the manual and traps
//! `out_of_bounds`.

use super::{fetch, set_pred, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanes::store;
use crate::memory::{classify, Window, SHARED_WINDOW, WINDOW_SIZE};
use crate::program::{Space, Src};
use crate::warp::{lanes, Frame};

/// `isspacep.space p, a`.
pub(super) fn isspacep(cx: &Lanes<'_>, fr: &mut Frame, m: u32, space: Space, p: u32, (a, off): (&Src, u64)) {
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let mut v = 0u32;
    for l in lanes(m) {
        let hit = match classify(av[l].wrapping_add(off)) {
            Window::Global => space == Space::Global,
            Window::Shared(_) => space == Space::Shared,
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

/// Whether `a` addresses shared memory: in the generic shared window, or
/// (a `.shared::cluster` address) an offset in the window.
fn in_shared(generic: bool, a: u64) -> bool {
    if generic {
        matches!(classify(a), Window::Shared(_))
    } else {
        a < WINDOW_SIZE
    }
}

fn not_shared(l: usize, what: &str, a: u64) -> Trap {
    let w = if a >= SHARED_WINDOW { "" } else { " (a generic address of shared memory lies in the shared window)" };
    Trap::lane(TrapKind::OutOfBounds, l as u32, format!("`{what}`: address {a:#x} is not in shared memory{w}"))
}

/// `mapa{.shared::cluster}.type d, a, b`.
pub(super) fn mapa(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (generic, bits): (bool, u32), d: u32, (a, off): (&Src, u64), b: &Src) -> Result<(), Trap> {
    let (t0, t1);
    let (av, bv) = (fetch!(cx, fr.regs, a, t0), fetch!(cx, fr.regs, b, t1));
    let g = cx.sregs.geom;
    let n = g.cluster[0] * g.cluster[1] * g.cluster[2];
    let own = cx.sregs.cta.rank;
    let mut r = [0u64; 32];
    for l in lanes(m) {
        let (addr, rank) = (mask(bits, av[l].wrapping_add(off)), bv[l] as u32);
        if rank >= n {
            return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("`mapa`: CTA rank {rank} is outside the cluster of {n} CTAs")));
        }
        if !in_shared(generic, addr) {
            return Err(not_shared(l, "mapa", addr));
        }
        if rank != own {
            return Err(Trap::lane(
                TrapKind::Unsupported,
                l as u32,
                format!("`mapa` to CTA rank {rank} of the cluster (this CTA is rank {own}): shared memory of another CTA (distributed shared memory) is not supported yet"),
            ));
        }
        r[l] = addr;
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}

/// `getctarank{.shared::cluster}.type d, a`.
pub(super) fn getctarank(cx: &Lanes<'_>, fr: &mut Frame, m: u32, (generic, bits): (bool, u32), d: u32, (a, off): (&Src, u64)) -> Result<(), Trap> {
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let own = u64::from(cx.sregs.cta.rank);
    let mut r = [0u64; 32];
    for l in lanes(m) {
        let addr = mask(bits, av[l].wrapping_add(off));
        if !in_shared(generic, addr) {
            return Err(not_shared(l, "getctarank", addr));
        }
        r[l] = own;
    }
    store(&mut fr.regs[d as usize], &r, m);
    Ok(())
}
