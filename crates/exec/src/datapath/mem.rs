//! Loads, stores and atomics: per-lane addresses from an address operand,
//! each access through [`LaneMem`](crate::lanemem::LaneMem), with two fast
//! paths. A scalar global or generic access whose lanes all fall aligned in
//! one allocation (`span.rs`) moves the warp's values with no per-lane
//! checks (whole words for a dense warp); a kernel-parameter or constant
//! load at a fixed address reads once for the warp. Both give what the
//! lane-by-lane path gives, which reports the first failing lane. Vector
//! atomics and the non-tensor bulk copies (`cp.async.bulk`) live here too.

use super::{fetch, Lanes};
use ptxsim_sem::alu;
use crate::error::{Trap, TrapKind};
use crate::lanemem::check_align;
use crate::lanes::store;
use crate::memory::Allocation;
use crate::program::*;
use crate::warp::{lanes, Frame, SPAN_CACHE};
use std::sync::atomic::Ordering::{Acquire, Release};

/// The per-lane base addresses of `addr`, borrowed from the frame or
/// materialised in `$t`.
macro_rules! abase {
    ($cx:expr, $fr:expr, $addr:expr, $t:ident) => {
        match $addr.base {
            AddrBase::Reg(r) => &$fr.regs[r as usize],
            AddrBase::None => {
                $t = [0; 32];
                &$t
            }
            AddrBase::Frame => {
                $t = [$cx.local_base; 32];
                &$t
            }
        }
    };
}

#[inline(always)]
fn extend(v: u64, size: u32, signed: bool) -> u64 {
    if signed {
        alu::sext(v, size * 8) as u64
    } else {
        v
    }
}

#[inline(always)]
pub(super) fn ld(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, pc: u32, (space, size, signed): (Space, u32, bool), ds: &[Option<u32>], addr: Addr) -> Result<(), Trap> {
    if ds.len() != 1 {
        return ld_vector(cx, fr, m, space, (size, signed), ds, addr);
    }
    if matches!(space, Space::Global | Space::Generic) {
        return ld_global(cx, fr, m, pc, (space, size, signed), ds[0], addr);
    }
    let uniform_addr = m != 0 && matches!(space, Space::KernelParam | Space::Const) && matches!(addr.base, AddrBase::None);
    if uniform_addr {
        // A kernel parameter or constant at a fixed address: the same value
        // for every lane, read once.
        let a = addr.offset as u64;
        let l = m.trailing_zeros() as usize;
        check_align(a, size, l)?;
        let bytes = if space == Space::KernelParam { cx.mem.kparams } else { cx.mem.consts };
        let v = match crate::memory::read_le(bytes, a, size) {
            Some(v) => v,
            None => cx.mem.read(space, l, a, size, &mut { usize::MAX })?,
        };
        if let Some(d) = ds[0] {
            let v = extend(v, size, signed);
            let dst = &mut fr.regs[d as usize];
            if m == u32::MAX {
                *dst = [v; 32];
            } else {
                store(dst, &[v; 32], m);
            }
        }
        return Ok(());
    }
    let t3;
    let base = abase!(cx, fr, addr, t3);
    let mut r = [0u64; 32];
    let mut cache = usize::MAX;
    for l in lanes(m) {
        let a = base[l].wrapping_add(addr.offset as u64);
        check_align(a, size, l)?;
        r[l] = cx.mem.read(space, l, a, size, &mut cache)?;
    }
    if let Some(d) = ds[0] {
        let r = if signed { r.map(|v| extend(v, size, true)) } else { r };
        store(&mut fr.regs[d as usize], &r, m);
    }
    Ok(())
}

/// A scalar global or generic load into register `d`: a dense warp's
/// words straight into the register, other whole-warp spans through one
/// bounds check, else lane by lane.
#[inline(always)]
fn ld_global(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, pc: u32, (space, size, signed): (Space, u32, bool), d: Option<u32>, addr: Addr) -> Result<(), Trap> {
    let sz = size as u64;
    let off = addr.offset as u64;
    let cache = &mut cx.span_cache[pc as usize % SPAN_CACHE];
    let span = {
        let t3;
        let base = abase!(cx, fr, addr, t3);
        match crate::span::dense_span(cx.mem.global, base, off, m, sz, *cache) {
            Some((al, w0)) => Some((al, Some(w0))),
            None => crate::span::warp_span(cx.mem.global, base, off, m, sz, cache),
        }
    };
    if let Some((al, Some(w0))) = span {
        // Dense: all 32 lanes, in order, from word `w0` (the address
        // register is no longer needed, so it may be `d` itself).
        if let Some(d) = d {
            let dst = &mut fr.regs[d as usize];
            dense_read(al, w0, sz, dst);
            if signed && sz < 8 {
                for v in dst.iter_mut() {
                    *v = extend(*v, size, true);
                }
            }
        }
        return Ok(());
    }
    let t3;
    let base = abase!(cx, fr, addr, t3);
    let mut r = [0u64; 32];
    if let Some((al, dense)) = span {
        span_read(al, dense, base, off, m, size, &mut r);
    } else {
        let mut cache = usize::MAX;
        for l in lanes(m) {
            let a = base[l].wrapping_add(off);
            if a & (sz - 1) != 0 {
                check_align(a, size, l)?;
            }
            r[l] = match cx.mem.global.allocs.get(cache) {
                Some(al) if a >= al.base && a - al.base + sz <= al.size => al.read(a - al.base, size),
                _ => cx.mem.read(space, l, a, size, &mut cache)?,
            };
        }
    }
    if let Some(d) = d {
        let r = if signed { r.map(|v| extend(v, size, true)) } else { r };
        store(&mut fr.regs[d as usize], &r, m);
    }
    Ok(())
}

/// A dense warp's `sz`-byte values (4 or 8) from word `w0` of `al` on.
#[inline(always)]
fn dense_read(al: &Allocation, w0: usize, sz: u64, r: &mut [u64; 32]) {
    if sz == 4 {
        for (k, w) in al.words[w0..w0 + 16].iter().enumerate() {
            let w = w.load(Acquire);
            r[2 * k] = w & 0xffff_ffff;
            r[2 * k + 1] = w >> 32;
        }
    } else {
        for (k, w) in al.words[w0..w0 + 32].iter().enumerate() {
            r[k] = w.load(Acquire);
        }
    }
}

/// Reads the lanes of `m` from allocation `al`, which holds every lane's
/// aligned access: whole words for a dense warp; two neighbouring lanes
/// that read the halves of one aligned word with 4-byte loads read it once.
#[inline(always)]
fn span_read(al: &Allocation, dense: Option<usize>, base: &[u64; 32], off: u64, m: u32, size: u32, r: &mut [u64; 32]) {
    let (ab, sz) = (al.base, size as u64);
    let mut rest = m;
    if let Some(w0) = dense {
        rest = 0;
        dense_read(al, w0, sz, r);
    }
    while rest != 0 {
        let l = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let o = base[l].wrapping_add(off) - ab;
        if sz == 4 && o & 7 == 0 && l < 31 && rest >> (l + 1) & 1 != 0 && base[l + 1].wrapping_add(off) - ab == o + 4 {
            let w = al.read(o, 8);
            r[l] = w & 0xffff_ffff;
            r[l + 1] = w >> 32;
            rest &= !(1u32 << (l + 1));
        } else {
            r[l] = al.read(o, size);
        }
    }
}

/// `ld.v2/.v4`: the whole vector's alignment checked per lane. When every
/// active lane reads the same address of a memory the lanes share (global,
/// shared, constant, kernel parameters, or a generic address outside the
/// local window), the vector is read once for the lowest lane (the lane
/// that would trap first) and given to all.
fn ld_vector(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, space: Space, (size, signed): (u32, bool), ds: &[Option<u32>], addr: Addr) -> Result<(), Trap> {
    let t3;
    let base = *abase!(cx, fr, addr, t3);
    let n = ds.len();
    // The values of up to four elements on the stack, more on the heap.
    let (mut small, mut big) = ([[0u64; 32]; 4], Vec::new());
    let vals: &mut [[u64; 32]] = if n <= 4 {
        &mut small[..n]
    } else {
        big.resize(n, [0u64; 32]);
        &mut big
    };
    let mut cache = usize::MAX;
    let first = m.trailing_zeros() as usize;
    let a0 = base.get(first).map_or(0, |b| b.wrapping_add(addr.offset as u64));
    let same = m != 0 && lanes(m).all(|l| base[l] == base[first]);
    let shared_memory = match space {
        Space::Global | Space::Shared | Space::SharedCta | Space::Const | Space::KernelParam => true,
        Space::Generic => !matches!(crate::memory::classify(a0), crate::memory::Window::Local(_)),
        Space::Local | Space::FrameParam => false,
    };
    // One lane's elements (a vector has at most 8 in PTX; more on the heap).
    let (mut one, mut one_big) = ([0u64; 8], Vec::new());
    let e: &mut [u64] = if n <= 8 {
        &mut one[..n]
    } else {
        one_big.resize(n, 0);
        &mut one_big
    };
    if same && shared_memory {
        check_align(a0, size * n as u32, first)?;
        cx.mem.read_vector(space, first, a0, size, e, &mut cache)?;
        for (v, &x) in vals.iter_mut().zip(e.iter()) {
            *v = [extend(x, size, signed); 32];
        }
    } else {
        for l in lanes(m) {
            let a = base[l].wrapping_add(addr.offset as u64);
            check_align(a, size * n as u32, l)?;
            cx.mem.read_vector(space, l, a, size, e, &mut cache)?;
            for (v, &x) in vals.iter_mut().zip(e.iter()) {
                v[l] = extend(x, size, signed);
            }
        }
    }
    for (k, d) in ds.iter().enumerate() {
        if let Some(d) = d {
            store(&mut fr.regs[*d as usize], &vals[k], m);
        }
    }
    Ok(())
}

#[inline(always)]
pub(super) fn st(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, pc: u32, (space, size): (Space, u32), srcs: &[Src], addr: Addr) -> Result<(), Trap> {
    *cx.stores += 1;
    if srcs.len() != 1 {
        return st_vector(cx, fr, m, space, size, srcs, addr);
    }
    let (t0, t3);
    let base = abase!(cx, fr, addr, t3);
    let v = fetch!(cx, fr.regs, &srcs[0], t0);
    let (sz, off) = (size as u64, addr.offset as u64);
    if !matches!(space, Space::Global | Space::Generic) {
        let mut cache = usize::MAX;
        for l in lanes(m) {
            let a = base[l].wrapping_add(off);
            check_align(a, size, l)?;
            cx.mem.write(space, l, a, size, v[l], &mut cache)?;
        }
        return Ok(());
    }
    let cache = &mut cx.span_cache[pc as usize % SPAN_CACHE];
    let span = match crate::span::dense_span(cx.mem.global, base, off, m, sz, *cache) {
        Some((al, w0)) => Some((al, Some(w0))),
        None => crate::span::warp_span(cx.mem.global, base, off, m, sz, cache),
    };
    if let Some((al, dense)) = span {
        span_write(al, dense, base, off, m, size, v);
        return Ok(());
    }
    // Lane by lane, through the last allocation found; two neighbouring
    // lanes that fill one aligned 8-byte word with 4-byte stores write it
    // at once.
    let mut cache = usize::MAX;
    let mut rest = m;
    while rest != 0 {
        let l = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let a = base[l].wrapping_add(off);
        if a & (sz - 1) != 0 {
            check_align(a, size, l)?;
        }
        match cx.mem.global.allocs.get(cache) {
            Some(al) if a >= al.base && a - al.base + sz <= al.size => {
                let o = a - al.base;
                let pair = l < 31 && rest >> (l + 1) & 1 != 0;
                if sz == 4 && o & 7 == 0 && o + 8 <= al.size && pair && base[l + 1].wrapping_add(off) == a + 4 {
                    al.write(o, 8, (v[l] & 0xffff_ffff) | (v[l + 1] << 32));
                    rest &= !(1u32 << (l + 1));
                } else {
                    al.write(o, size, v[l]);
                }
            }
            _ => cx.mem.write(space, l, a, size, v[l], &mut cache)?,
        }
    }
    Ok(())
}

/// Writes the lanes of `m` into allocation `al`, which holds every lane's
/// aligned access (whole words for a dense warp, pairs of 4-byte stores
/// filling one aligned word at once).
#[inline(always)]
fn span_write(al: &Allocation, dense: Option<usize>, base: &[u64; 32], off: u64, m: u32, size: u32, v: &[u64; 32]) {
    let (ab, sz) = (al.base, size as u64);
    let mut rest = m;
    if let Some(w0) = dense {
        rest = 0;
        if sz == 4 {
            for (k, w) in al.words[w0..w0 + 16].iter().enumerate() {
                w.store((v[2 * k] & 0xffff_ffff) | (v[2 * k + 1] << 32), Release);
            }
        } else {
            for (k, w) in al.words[w0..w0 + 32].iter().enumerate() {
                w.store(v[k], Release);
            }
        }
    }
    while rest != 0 {
        let l = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let o = base[l].wrapping_add(off) - ab;
        let pair = l < 31 && rest >> (l + 1) & 1 != 0;
        if sz == 4 && o & 7 == 0 && pair && o + 8 <= al.size && base[l + 1].wrapping_add(off) - ab == o + 4 {
            al.write(o, 8, (v[l] & 0xffff_ffff) | (v[l + 1] << 32));
            rest &= !(1u32 << (l + 1));
        } else {
            al.write(o, size, v[l]);
        }
    }
}

/// `st.v2/.v4`.
fn st_vector(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, space: Space, size: u32, srcs: &[Src], addr: Addr) -> Result<(), Trap> {
    let t3;
    let base = *abase!(cx, fr, addr, t3);
    let n = srcs.len() as u32;
    let vals: Vec<[u64; 32]> = srcs.iter().map(|s| super::src_lanes(cx, &fr.regs, s)).collect();
    let mut cache = usize::MAX;
    let mut e = vec![0u64; n as usize];
    for l in lanes(m) {
        let a = base[l].wrapping_add(addr.offset as u64);
        check_align(a, size * n, l)?;
        for (x, v) in e.iter_mut().zip(&vals) {
            *x = v[l];
        }
        cx.mem.write_vector(space, l, a, size, &e, &mut cache)?;
    }
    Ok(())
}

pub(super) fn atom(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, (space, op, ty): (Space, AtomOp, ITyOrF), d: Option<u32>, addr: Addr, [b, c]: [&Src; 2]) -> Result<(), Trap> {
    let (t0, t1, t3);
    let base = abase!(cx, fr, addr, t3);
    let (bv, cv) = (fetch!(cx, fr.regs, b, t0), fetch!(cx, fr.regs, c, t1));
    let size = ty.bytes();
    let mut r = [0u64; 32];
    for l in lanes(m) {
        let a = base[l].wrapping_add(addr.offset as u64);
        check_align(a, size, l)?;
        let (old, changed) = crate::atomics::atom(&mut cx.mem, space, l, (a, size), (op, ty), [bv[l], cv[l]])?;
        r[l] = old;
        if changed {
            *cx.stores += 1;
        }
    }
    if let Some(d) = d {
        store(&mut fr.regs[d as usize], &r, m);
    }
    Ok(())
}

/// `atom`/`red` on a vector ([`Op::AtomVec`](crate::program::Op::AtomVec)):
/// per lane, one atomic operation per element. The vector must be aligned
/// to its whole size, and a generic address must point to global memory
/// (PTX ISA 9.7.13.5: vector atomics exist only for `.global`).
pub(super) fn atom_vec(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, (space, op, ty): (Space, AtomOp, ITyOrF), ds: &[Option<u32>], addr: Addr, bs: &[Src]) -> Result<(), Trap> {
    let t3;
    let base = *abase!(cx, fr, addr, t3);
    let size = ty.bytes();
    let n = bs.len();
    let vals: Vec<[u64; 32]> = bs.iter().map(|s| super::src_lanes(cx, &fr.regs, s)).collect();
    let mut old = vec![[0u64; 32]; n];
    for l in lanes(m) {
        let a = base[l].wrapping_add(addr.offset as u64);
        check_align(a, size * n as u32, l)?;
        if space == Space::Generic && !matches!(crate::lanemem::place(space, a), crate::lanemem::Place::Global(_)) {
            return Err(Trap::lane(
                TrapKind::OutOfBounds,
                l as u32,
                format!("lane {l}: vector `atom`/`red` at generic address {a:#x}, which is not in global memory (the manual allows vector atomics on global memory only)"),
            ));
        }
        for k in 0..n {
            let (was, changed) = crate::atomics::atom(&mut cx.mem, space, l, (a + (k as u64) * size as u64, size), (op, ty), [vals[k][l], 0])?;
            old[k][l] = was;
            if changed {
                *cx.stores += 1;
            }
        }
    }
    for (k, d) in ds.iter().enumerate() {
        if let Some(d) = d {
            store(&mut fr.regs[*d as usize], &old[k], m);
        }
    }
    Ok(())
}

/// What the manual leaves undefined for lane `l`'s bulk copy or reduction
/// of `n` bytes from `s` to `d`: a size that is not a multiple of 16, an
/// address not aligned to 16 bytes, and (`shared_src`) a `.shared::cta`
/// source outside this CTA's shared memory.
fn bulk_checks(l: usize, what: &str, (d, s, n): (u64, u64, u64), shared_src: bool) -> Result<(), Trap> {
    if n % 16 != 0 {
        return Err(Trap::lane(TrapKind::Misaligned, l as u32, format!("lane {l}: {what} size {n} is not a multiple of 16")));
    }
    check_align(d, 16, l)?;
    check_align(s, 16, l)?;
    if shared_src && s >> crate::lanemem::RANK_SHIFT != 0 {
        return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: the source of {what}, shared {s:#x}, is not in this CTA's shared memory (`.shared::cta`)")));
    }
    Ok(())
}

/// `cp.async.bulk` ([`Op::BulkCopy`](crate::program::Op::BulkCopy)) on the
/// lanes of `m`, each lane its own copy. The copy is performed when it is
/// issued (completing at once is one of the orders the asynchronous proxy
/// allows), 8 bytes at a time; then, for the `.mbarrier::complete_tx::bytes`
/// forms, the mbarrier's transaction count drops by the size (it may go
/// below zero until the matching `expect_tx`, which the manual allows).
/// With a multicast `mask`, the destination and the mbarrier are the same
/// CTA-relative offsets in each CTA of the cluster whose rank is a bit of
/// the mask. A size that is not a multiple of 16 and an address not
/// aligned to 16 bytes are undefined in the manual: traps, as are a mask
/// bit past the cluster and a shared source outside this CTA.
pub(super) fn bulk_copy(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, (dspace, dst): (Space, Addr), (sspace, src): (Space, Addr), size: &Src, (mbar, mask): (Option<Addr>, Option<&Src>)) -> Result<(), Trap> {
    use crate::lanemem::RANK_SHIFT;
    let (t0, t1, t2, t3, t4);
    let db = *abase!(cx, fr, dst, t0);
    let sb = *abase!(cx, fr, src, t1);
    let sv = *fetch!(cx, fr.regs, size, t2);
    let mbv = match mbar {
        Some(a) => Some(*abase!(cx, fr, a, t3)),
        None => None,
    };
    let maskv = match mask {
        Some(s) => Some(*fetch!(cx, fr.regs, s, t4)),
        None => None,
    };
    let (n_ctas, own) = (super::space::cluster_size(cx), u64::from(cx.sregs.cta.rank));
    let (mut rc, mut wc) = (usize::MAX, usize::MAX);
    for l in lanes(m) {
        let (d, s, n) = (db[l].wrapping_add(dst.offset as u64), sb[l].wrapping_add(src.offset as u64), sv[l] as u32 as u64);
        let mb = match (mbv, mbar) {
            (Some(v), Some(a)) => Some(v[l].wrapping_add(a.offset as u64)),
            _ => None,
        };
        bulk_checks(l, "cp.async.bulk", (d, s, n), sspace == Space::Shared)?;
        // The (destination, mbarrier) pairs: one, or one per CTA of the mask.
        let mut targets: Vec<(u64, Option<u64>)> = Vec::new();
        match maskv {
            None => targets.push((d, mb)),
            Some(mv) => {
                let bits = mv[l] & 0xffff;
                let at = |r: u64, x: u64| {
                    let off = x & ((1 << RANK_SHIFT) - 1);
                    if r == own {
                        off
                    } else {
                        (r + 1) << RANK_SHIFT | off
                    }
                };
                for r in (0..16u64).filter(|r| bits >> r & 1 != 0) {
                    if r >= n_ctas {
                        return Err(super::space::bad_rank(l, "cp.async.bulk .multicast::cluster", r, n_ctas));
                    }
                    targets.push((at(r, d), mb.map(|b| at(r, b))));
                }
            }
        }
        for &(to, _) in &targets {
            for k in (0..n).step_by(8) {
                let v = cx.mem.read(sspace, l, s + k, 8, &mut rc)?;
                cx.mem.write(dspace, l, to + k, 8, v, &mut wc)?;
            }
        }
        *cx.stores += 1;
        for &(_, b) in &targets {
            if let Some(b) = b {
                super::mbarrier::complete_tx(cx, l, b, n)?;
            }
        }
    }
    Ok(())
}

/// `st.async` ([`Op::StAsync`](crate::program::Op::StAsync)) on the lanes
/// of `m`: the store, then per lane `complete_tx` of the bytes stored on
/// its mbarrier (the store lands when issued, one of the orders the
/// manual allows). The mbarrier must lie in the CTA the store writes to
/// (PTX ISA 9.7.9.12); one elsewhere is a located trap.
pub(super) fn st_async(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, pc: u32, (size, srcs): (u32, &[Src]), (addr, mbar): (Addr, Addr)) -> Result<(), Trap> {
    let (_, mb) = same_cta(cx, fr, m, "st.async", (addr, mbar))?;
    st(cx, fr, m, pc, (Space::Shared, size), srcs, addr)?;
    let bytes = size as u64 * srcs.len() as u64;
    for l in lanes(m) {
        super::mbarrier::complete_tx(cx, l, mb[l], bytes)?;
    }
    Ok(())
}

/// The destination and the mbarrier address of each lane of `m` of an
/// asynchronous store or reduction `what`, the mbarrier checked to lie in
/// the destination's CTA (PTX ISA 9.7.9.12, 9.7.13.7).
fn same_cta(cx: &mut Lanes<'_>, fr: &Frame, m: u32, what: &str, (addr, mbar): (Addr, Addr)) -> Result<([u64; 32], [u64; 32]), Trap> {
    let (t0, t1);
    let mut db = *abase!(cx, fr, addr, t0);
    let mut mb = *abase!(cx, fr, mbar, t1);
    for l in lanes(m) {
        db[l] = db[l].wrapping_add(addr.offset as u64);
        let d = db[l];
        mb[l] = mb[l].wrapping_add(mbar.offset as u64);
        if cx.mem.cta_of(d) != cx.mem.cta_of(mb[l]) {
            let msg = format!("lane {l}: {what}'s mbarrier at shared::cluster {:#x} is not in the CTA of its destination {d:#x} (PTX ISA 9.7.9.12, 9.7.13.7: they must be in the same CTA)", mb[l]);
            return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, msg));
        }
    }
    Ok((db, mb))
}

/// `red.async` ([`Op::RedAsync`](crate::program::Op::RedAsync)) on the
/// lanes of `m`: per lane the atomic reduction ([`crate::atomics::atom`]),
/// then `complete_tx` of the element's bytes on its mbarrier.
pub(super) fn red_async(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, (op, ty): (AtomOp, ITyOrF), (addr, b): (Addr, &Src), mbar: Addr) -> Result<(), Trap> {
    let (db, mb) = same_cta(cx, fr, m, ptxsim_isa::Opcode::RedAsync.as_str(), (addr, mbar))?;
    let t1;
    let bv = *fetch!(cx, fr.regs, b, t1);
    let size = ty.bytes();
    for l in lanes(m) {
        let a = db[l];
        check_align(a, size, l)?;
        crate::atomics::atom(&mut cx.mem, Space::Shared, l, (a, size), (op, ty), [bv[l], 0])?;
        *cx.stores += 1;
        super::mbarrier::complete_tx(cx, l, mb[l], size as u64)?;
    }
    Ok(())
}

/// `cp.reduce.async.bulk` ([`Op::BulkReduce`](crate::program::Op::BulkReduce))
/// on the lanes of `m`: per lane, each element of the destination is
/// reduced with the source element at the same offset by one atomic
/// operation ([`crate::atomics::atom`], the `atom`/`red` semantics: `.add`
/// on `.f32` flushes subnormals as the manual says this instruction does),
/// when issued; then the mbarrier's `complete_tx` of the size. The size
/// and alignment rules are [`bulk_copy`]'s.
pub(super) fn bulk_reduce(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, (dspace, dst): (Space, Addr), (src, size): (Addr, &Src), mbar: Option<Addr>, (op, ty): (AtomOp, ITyOrF)) -> Result<(), Trap> {
    let (t0, t1, t2, t3);
    let db = *abase!(cx, fr, dst, t0);
    let sb = *abase!(cx, fr, src, t1);
    let sv = *fetch!(cx, fr.regs, size, t2);
    let mbv = match mbar {
        Some(a) => Some(*abase!(cx, fr, a, t3)),
        None => None,
    };
    let esize = ty.bytes() as u64;
    let mut rc = usize::MAX;
    for l in lanes(m) {
        let (d, s, n) = (db[l].wrapping_add(dst.offset as u64), sb[l].wrapping_add(src.offset as u64), sv[l] as u32 as u64);
        bulk_checks(l, "cp.reduce.async.bulk", (d, s, n), true)?;
        for k in (0..n).step_by(esize as usize) {
            let v = cx.mem.read(Space::Shared, l, s + k, esize as u32, &mut rc)?;
            crate::atomics::atom(&mut cx.mem, dspace, l, (d + k, esize as u32), (op, ty), [v, 0])?;
        }
        *cx.stores += 1;
        if let (Some(v), Some(a)) = (mbv, mbar) {
            super::mbarrier::complete_tx(cx, l, v[l].wrapping_add(a.offset as u64), n)?;
        }
    }
    Ok(())
}
