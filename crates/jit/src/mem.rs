//! Loads and stores of compiled code: one call per warp memory instruction
//! ([`exec`]), with the whole warp's addresses and mask, on the packed
//! registers of the run (`emit::Layout`) and what the dispatch loop lends
//! ([`Env`]: the global memory, the kernel parameters).
//!
//! An instruction runs in every lane of its mask or in none: every lane's
//! address is checked first (natural alignment, inside one global
//! allocation, a generic address in the global window, a kernel parameter
//! inside the parameter buffer), and if one fails, or async copies are
//! pending, nothing has happened and the instruction is handed back to the
//! interpreter, which runs it and traps exactly as it would have (same
//! kind, lane and message). Otherwise the values are the data path's:
//! loads are acquire loads of the allocation's words, stores release
//! stores (`Allocation::read`/`write`), lanes in ascending order; a store
//! counts once on the warp's store counter, as `datapath/mem.rs` counts.

use crate::plan::Class;
use ptxsim_exec::memory::{classify, read_le, Allocation, Window};
use ptxsim_exec::program::Space;
use ptxsim_exec::tier::Env;
use std::sync::atomic::Ordering::{Acquire, Release};

/// A compiled load or store, as the emitted code calls it.
#[derive(Clone, Debug)]
pub struct MemOp {
    pub store: bool,
    pub space: Space,
    /// Bytes: 1, 2, 4 or 8.
    pub size: u32,
    /// A load sign-extends its value to 64 bits.
    pub signed: bool,
    /// The byte offset of the address register's lanes (a `Wide`
    /// register), or none: the address is `offset` alone.
    pub base: Option<u32>,
    pub offset: i64,
    /// A load's destination, a store's value: (class, byte offset of its
    /// lanes, byte offset of its dirty mask); a store of an immediate has none.
    pub reg: Option<(Class, u32, u32)>,
    /// A store's immediate value.
    pub imm: u64,
    /// Not a memory access: a lane-wise float operation the code does not
    /// compile natively, into `reg` ([`alu`]).
    pub alu: Option<Alu>,
    /// A load or store the code runs inline on a dense warp: the byte
    /// offset of its allocation cache (`emit::Layout::mcache`), which
    /// [`exec`] fills when it ran the instruction for all 32 lanes.
    pub slot: Option<u32>,
    /// Not a memory access: a `shfl` into `reg` ([`shfl`]).
    pub shfl: Option<Shfl>,
    /// The address register is a `Narrow` one (a 32-bit shared-memory
    /// offset), not a `Wide` one.
    pub narrow_base: bool,
    /// A `shfl` with immediate `b` and `c`: [`Shfl::table`].
    pub table: Option<([u8; 32], u32)>,
}

/// `shfl.sync.mode.b32 d[|p], a, b, c` as the helper runs it: each
/// operand the byte offset of a `Narrow` register's lanes or an
/// immediate, and the byte offset of `p`'s lane mask.
#[derive(Clone, Debug)]
pub struct Shfl {
    pub mode: ptxsim_exec::program::ShflMode,
    pub a: Result<u32, u64>,
    pub b: Result<u32, u64>,
    pub c: Result<u32, u64>,
    pub p: Option<u32>,
    /// Emitted inside a side of a compiled divergence (handed back: the
    /// lanes outside the side may read registers the code never had).
    pub side: bool,
}

/// Lane `l`'s source lane and whether it is in range, for `b` and `c`
/// (PTX ISA `shfl.sync`: `b` the lane or offset, `c` the clamp value and
/// the segment mask; an out-of-range lane reads its own value).
#[inline(always)]
fn source(mode: ptxsim_exec::program::ShflMode, l: usize, bv: u32, cv: u32) -> (usize, bool) {
    use ptxsim_exec::program::ShflMode;
    let lane_i = l as i64;
    let bval = (bv & 31) as i64;
    let cval = (cv & 31) as i64;
    let seg = ((cv >> 8) & 31) as i64;
    let max_lane = (lane_i & seg) | (cval & !seg);
    let min_lane = lane_i & seg;
    let (j, ok) = match mode {
        ShflMode::Up => (lane_i - bval, lane_i - bval >= max_lane),
        ShflMode::Down => (lane_i + bval, lane_i + bval <= max_lane),
        ShflMode::Bfly => (lane_i ^ bval, (lane_i ^ bval) <= max_lane),
        ShflMode::Idx => {
            let j = min_lane | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    (if ok && (0..32).contains(&j) { j as usize } else { l }, ok)
}

impl Shfl {
    /// Each lane's source lane, and the lanes in range, when `b` and `c`
    /// are immediates (the same for every run).
    pub fn table(&self) -> Option<([u8; 32], u32)> {
        let (Err(b), Err(c)) = (self.b, self.c) else { return None };
        let mut t = [0u8; 32];
        let mut ok = 0u32;
        for (l, x) in t.iter_mut().enumerate() {
            let (j, k) = source(self.mode, l, b as u32, c as u32);
            *x = j as u8;
            ok |= (k as u32) << l;
        }
        Some((t, ok))
    }
}

/// Runs `shfl` `s` on the lanes of `m` over the packed registers, with
/// the semantics of the interpreter's data path (`datapath/warpops.rs`,
/// PTX ISA `shfl.sync`): lane `l` reads lane `j` of `a` when `j` is in
/// range, else its own, and `p` says whether it was. A lane may read a
/// lane outside `m`, whose register the packed copy holds only when the
/// run's group (`group`) is the whole warp and no side of a divergence is
/// running: otherwise `false`, handed back untouched.
pub fn shfl(op: &MemOp, s: &Shfl, buf: &mut [u64], m: u32, group: u32) -> bool {
    if group != u32::MAX || s.side {
        return false;
    }
    let Some((Class::Narrow, doff_lanes, dirty)) = op.reg else { return false };
    let opnd = |x: Result<u32, u64>| match x {
        Ok(off) => narrow(buf, off),
        Err(v) => [v as u32; 32],
    };
    let av = opnd(s.a);
    let mut r = [0u32; 32];
    let pv = match &op.table {
        Some((t, ok)) => {
            for l in lanes(m) {
                r[l] = av[t[l] as usize & 31];
            }
            *ok
        }
        None => {
            let (bv, cv) = (opnd(s.b), opnd(s.c));
            let mut pv = 0u32;
            for l in lanes(m) {
                let (j, ok) = source(s.mode, l, bv[l], cv[l]);
                r[l] = av[j];
                pv |= (ok as u32) << l;
            }
            pv
        }
    };
    // The result into `d`'s lanes of `m`, two lanes per word.
    let w = doff_lanes as usize / 8;
    let Some(d) = buf.get_mut(w..w + 16) else { return false };
    for (k, x) in d.iter_mut().enumerate() {
        let keep = (!m >> (2 * k)) & 3;
        let lo = if keep & 1 != 0 { *x & 0xffff_ffff } else { r[2 * k] as u64 };
        let hi = if keep & 2 != 0 { *x >> 32 } else { r[2 * k + 1] as u64 };
        *x = lo | hi << 32;
    }
    set32(buf, dirty as usize, get32(buf, dirty as usize) | m);
    if let Some(po) = s.p {
        let old = get32(buf, po as usize);
        set32(buf, po as usize, (old & !m) | (pv & m));
    }
    true
}

/// The 32 u32 lanes of the `Narrow` register at byte `off` (zeros outside `buf`).
#[inline(always)]
fn narrow(buf: &[u64], off: u32) -> [u32; 32] {
    let w = off as usize / 8;
    let mut r = [0u32; 32];
    if let Some(s) = buf.get(w..w + 16) {
        for (k, x) in s.iter().enumerate() {
            r[2 * k] = *x as u32;
            r[2 * k + 1] = (*x >> 32) as u32;
        }
    }
    r
}

/// A unary float operation run by the helper with the interpreter's
/// scalar semantics (`ptxsim_sem::alu::fun_rnd`), lane by lane.
#[derive(Clone, Debug)]
pub struct Alu {
    pub op: ptxsim_sem::alu::FUnOp,
    pub ty: ptxsim_sem::alu::FTy,
    pub ftz: bool,
    pub rnd: Option<ptxsim_sem::alu::Rounding>,
    /// The operand: a register (class, byte offset of its lanes) or an
    /// immediate.
    pub a: Result<(Class, u32), u64>,
}

/// Runs `x` on the lanes of `m`: `op.reg` gets each lane's result and
/// those lanes in its dirty mask.
fn alu(op: &MemOp, x: &Alu, buf: &mut [u64], m: u32) {
    let Some((class, off, doff)) = op.reg else { return };
    for l in lanes(m) {
        let a = match x.a {
            Ok((c, o)) => lane(buf, c, o, l),
            Err(v) => v,
        };
        let r = ptxsim_sem::alu::fun_rnd(x.op, x.ty, x.ftz, x.rnd, a);
        set_lane(buf, class, off, l, r);
    }
    set32(buf, doff as usize, get32(buf, doff as usize) | m);
}

/// The u32 at byte `off` of `buf` (`None` outside it).
#[inline(always)]
fn get32(buf: &[u64], off: usize) -> u32 {
    buf.get(off / 8).map_or(0, |w| (w >> (8 * (off % 8))) as u32)
}

#[inline(always)]
fn set32(buf: &mut [u64], off: usize, v: u32) {
    if let Some(w) = buf.get_mut(off / 8) {
        let sh = 8 * (off % 8);
        *w = (*w & !(0xffff_ffffu64 << sh)) | (v as u64) << sh;
    }
}

/// Lane `l` of the register whose lanes start at byte `off`.
#[inline(always)]
fn lane(buf: &[u64], class: Class, off: u32, l: usize) -> u64 {
    match class {
        Class::Narrow => get32(buf, off as usize + 4 * l) as u64,
        Class::Wide => buf.get(off as usize / 8 + l).copied().unwrap_or(0),
    }
}

#[inline(always)]
fn set_lane(buf: &mut [u64], class: Class, off: u32, l: usize, v: u64) {
    match class {
        Class::Narrow => set32(buf, off as usize + 4 * l, v as u32),
        Class::Wide => {
            if let Some(w) = buf.get_mut(off as usize / 8 + l) {
                *w = v;
            }
        }
    }
}

/// The lanes of `m`, lowest first.
#[inline(always)]
fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(l)
    })
}

/// The allocation holding the `size` bytes at `a`, the last one found
/// first; `None` when no allocation holds them all.
#[inline(always)]
fn find<'g>(allocs: &'g [Allocation], last: &mut Option<&'g Allocation>, a: u64, size: u64) -> Option<&'g Allocation> {
    let holds = |al: &Allocation| a >= al.base && a - al.base < al.size && al.size - (a - al.base) >= size;
    if let Some(al) = *last {
        if holds(al) {
            return Some(al);
        }
    }
    let i = allocs.partition_point(|al| al.base <= a);
    let al = allocs.get(i.checked_sub(1)?)?;
    if holds(al) {
        *last = Some(al);
        Some(al)
    } else {
        None
    }
}

/// The 32 lanes of the `Wide` register at byte `off` (zeros outside `buf`).
#[inline(always)]
fn wide(buf: &[u64], off: u32) -> [u64; 32] {
    let w = off as usize / 8;
    let mut r = [0u64; 32];
    if let Some(s) = buf.get(w..w + 32) {
        r.copy_from_slice(s);
    }
    r
}

/// Runs `op` on the lanes of `m` over the packed registers `buf`: `true`
/// when it ran, `false` when it is handed back untouched (see the module
/// documentation).
pub fn exec(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>, m: u32) -> bool {
    if let Some(x) = &op.alu {
        alu(op, x, buf, m);
        return true;
    }
    if !env.mem_ready {
        return false;
    }
    if m == 0 {
        *env.stores += op.store as u64;
        return true;
    }
    if op.space == Space::KernelParam && op.base.is_none() && !op.store {
        return param_uniform(op, buf, env, m);
    }
    if matches!(op.space, Space::Shared | Space::SharedCta) {
        return shared(op, buf, env, m);
    }
    if op.space == Space::Const && !op.store {
        return constant(op, buf, env, m);
    }
    if m == u32::MAX && op.size == 4 && op.space != Space::KernelParam {
        if let Some(done) = dense_fast(op, buf, env) {
            if done {
                let a0 = op.base.and_then(|o| buf.get(o as usize / 8)).map_or(0, |b| b.wrapping_add(op.offset as u64));
                fill_slot(op, buf, env, a0);
            }
            return done;
        }
    }
    let sz = op.size as u64;
    let mut addr = match op.base {
        Some(off) => wide(buf, off),
        None => [0u64; 32],
    };
    let mut bad = 0u32;
    for (l, a) in addr.iter_mut().enumerate() {
        *a = a.wrapping_add(op.offset as u64);
        bad |= ((*a & (sz - 1) != 0) as u32) << l;
    }
    if bad & m != 0 {
        return false;
    }
    let done = if op.store { store(op, buf, env, m, &addr) } else { load(op, buf, env, m, &addr) };
    if done && m == u32::MAX {
        fill_slot(op, buf, env, addr[0]);
    }
    done
}

/// Caches in `op`'s slot the allocation holding lane 0's address `a0`
/// (every allocation lies in the global window), so the code's inline
/// path finds it: its base, how many first-lane addresses leave room for
/// 32 values, and the host address of its words minus its base.
fn fill_slot(op: &MemOp, buf: &mut [u64], env: &Env<'_>, a0: u64) {
    let Some(slot) = op.slot else { return };
    let allocs = &env.global.allocs[..];
    let Some(al) = allocs.partition_point(|al| al.base <= a0).checked_sub(1).and_then(|i| allocs.get(i)) else { return };
    let span = 32 * op.size as u64;
    if a0 - al.base >= al.size || al.size < span || (al.words.len() as u64).saturating_mul(8) < al.size {
        return;
    }
    let w = slot as usize / 8;
    if let Some(s) = buf.get_mut(w..w + 3) {
        s[0] = al.base;
        s[1] = al.size - span + 1;
        s[2] = (al.words.as_ptr() as u64).wrapping_sub(al.base);
    }
}

/// A load or store of the CTA's shared memory (`.shared`, an offset into
/// it; `datapath/mem.rs` and `lanemem.rs` run the same): every lane's
/// address naturally aligned and its bytes inside the CTA's shared memory
/// (an offset beyond it, such as another CTA's window in a cluster, is
/// handed back), then the lanes in ascending order, little-endian.
fn shared(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>, m: u32) -> bool {
    let sz = op.size as u64;
    let mut addr = match (op.base, op.narrow_base) {
        (Some(off), true) => narrow(buf, off).map(|x| x as u64),
        (Some(off), false) => wide(buf, off),
        (None, _) => [0u64; 32],
    };
    let len = env.shared.len() as u64;
    for l in lanes(m) {
        let a = addr[l].wrapping_add(op.offset as u64);
        if a & (sz - 1) != 0 || a >= len || len - a < sz {
            return false;
        }
        addr[l] = a;
    }
    if op.store {
        *env.stores += 1;
        let v: [u64; 32] = match op.reg {
            Some((Class::Wide, off, _)) => wide(buf, off),
            Some((Class::Narrow, off, _)) => narrow(buf, off).map(|x| x as u64),
            None => [op.imm; 32],
        };
        for l in lanes(m) {
            let a = addr[l] as usize;
            env.shared[a..a + op.size as usize].copy_from_slice(&v[l].to_le_bytes()[..op.size as usize]);
        }
        return true;
    }
    let Some((class, off, doff)) = op.reg else { return true };
    for l in lanes(m) {
        let a = addr[l] as usize;
        let mut b = [0u8; 8];
        b[..op.size as usize].copy_from_slice(&env.shared[a..a + op.size as usize]);
        let mut v = u64::from_le_bytes(b);
        if op.signed && op.size < 8 {
            v = ptxsim_sem::alu::sext(v, op.size * 8) as u64;
        }
        set_lane(buf, class, off, l, v);
    }
    set32(buf, doff as usize, get32(buf, doff as usize) | m);
    true
}

/// A load of the module's constant bank (`.const`, an offset into it;
/// the data path's `Place::Const`): every lane's address naturally aligned
/// and its bytes inside the bank, or handed back untouched (the
/// interpreter traps); the value sign-extended when the load is signed.
fn constant(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>, m: u32) -> bool {
    let sz = op.size as u64;
    let base = match op.base {
        Some(off) => wide(buf, off),
        None => [0u64; 32],
    };
    let mut r = [0u64; 32];
    for l in lanes(m) {
        let a = base[l].wrapping_add(op.offset as u64);
        if a & (sz - 1) != 0 {
            return false;
        }
        match read_le(env.consts, a, op.size) {
            Some(v) => r[l] = if op.signed && op.size < 8 { ptxsim_sem::alu::sext(v, op.size * 8) as u64 } else { v },
            None => return false,
        }
    }
    let Some((class, off, doff)) = op.reg else { return true };
    for l in lanes(m) {
        set_lane(buf, class, off, l, r[l]);
    }
    set32(buf, doff as usize, get32(buf, doff as usize) | m);
    true
}

/// A kernel parameter at a fixed address: one read for the warp, its
/// value in every lane of `m`.
fn param_uniform(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>, m: u32) -> bool {
    let (a, size) = (op.offset as u64, op.size);
    if a & (size as u64 - 1) != 0 {
        return false;
    }
    let Some(bytes) = usize::try_from(a).ok().and_then(|a| env.kparams.get(a..a.checked_add(size as usize)?)) else { return false };
    let mut v = 0u64;
    for (k, b) in bytes.iter().enumerate() {
        v |= (*b as u64) << (8 * k);
    }
    if op.signed && size < 8 {
        v = ptxsim_sem::alu::sext(v, size * 8) as u64;
    }
    let Some((class, off, doff)) = op.reg else { return true };
    let w = off as usize / 8;
    match (class, m) {
        (Class::Narrow, u32::MAX) => {
            if let Some(d) = buf.get_mut(w..w + 16) {
                d.fill((v & 0xffff_ffff) | v << 32);
            }
        }
        (Class::Wide, u32::MAX) => {
            if let Some(d) = buf.get_mut(w..w + 32) {
                d.fill(v);
            }
        }
        _ => {
            for l in lanes(m) {
                set_lane(buf, class, off, l, v);
            }
        }
    }
    set32(buf, doff as usize, get32(buf, doff as usize) | m);
    true
}

/// The common case without per-lane work: all 32 lanes, 4-byte accesses
/// at consecutive addresses from an 8-byte-aligned one inside one
/// allocation, moved as 16 whole words between the allocation and the
/// packed register. `None` when the warp is not such a one (nothing
/// done).
#[inline(always)]
fn dense_fast(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>) -> Option<bool> {
    let w = op.base? as usize / 8;
    let b = buf.get(w..w + 32)?;
    let a0 = b[0].wrapping_add(op.offset as u64);
    if a0 & 7 != 0 {
        return None;
    }
    let mut diff = 0u64;
    for (l, x) in b.iter().enumerate() {
        diff |= x.wrapping_sub(b[0]) ^ (4 * l as u64);
    }
    if diff != 0 {
        return None;
    }
    let allocs = &env.global.allocs[..];
    let al = allocs.get(allocs.partition_point(|al| al.base <= a0).checked_sub(1)?)?;
    let o = a0 - al.base;
    if o >= al.size || al.size - o < 128 {
        return None;
    }
    let words = al.words.get((o / 8) as usize..(o / 8) as usize + 16)?;
    let (class, off, doff) = match op.reg {
        Some(r) => r,
        None if op.store => {
            *env.stores += 1;
            let v = (op.imm & 0xffff_ffff) | op.imm << 32;
            for x in words {
                x.store(v, Release);
            }
            return Some(true);
        }
        None => return Some(true),
    };
    let r = off as usize / 8;
    match (class, op.store) {
        (Class::Narrow, false) => {
            let d = buf.get_mut(r..r + 16)?;
            for (x, y) in d.iter_mut().zip(words) {
                *x = y.load(Acquire);
            }
        }
        (Class::Wide, false) => {
            let d = buf.get_mut(r..r + 32)?;
            let ext = |x: u64| if op.signed { x as u32 as i32 as i64 as u64 } else { x & 0xffff_ffff };
            for (k, y) in words.iter().enumerate() {
                let v = y.load(Acquire);
                d[2 * k] = ext(v);
                d[2 * k + 1] = ext(v >> 32);
            }
        }
        (Class::Narrow, true) => {
            *env.stores += 1;
            let s = buf.get(r..r + 16)?;
            for (x, y) in s.iter().zip(words) {
                y.store(*x, Release);
            }
            return Some(true);
        }
        (Class::Wide, true) => {
            *env.stores += 1;
            let s = buf.get(r..r + 32)?;
            for (k, y) in words.iter().enumerate() {
                y.store((s[2 * k] & 0xffff_ffff) | s[2 * k + 1] << 32, Release);
            }
            return Some(true);
        }
    }
    set32(buf, doff as usize, get32(buf, doff as usize) | u32::MAX);
    Some(true)
}

/// A dense warp: all 32 lanes, 4-byte accesses at consecutive addresses
/// from an 8-byte-aligned one, inside `al`: the first of its 16 words.
#[inline(always)]
fn dense(al: &Allocation, m: u32, size: u32, addr: &[u64; 32]) -> Option<usize> {
    let a0 = addr[0];
    if m != u32::MAX || size != 4 || a0 & 7 != 0 || a0 < al.base || a0 - al.base >= al.size || al.size - (a0 - al.base) < 128 {
        return None;
    }
    let mut off = 0u64;
    for (l, a) in addr.iter().enumerate() {
        off |= a ^ a0.wrapping_add(4 * l as u64);
    }
    if off != 0 {
        return None;
    }
    Some(((a0 - al.base) / 8) as usize)
}

fn load(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>, m: u32, addr: &[u64; 32]) -> bool {
    let (size, sz) = (op.size, op.size as u64);
    let mut r = [0u64; 32];
    if op.space == Space::KernelParam {
        if op.base.is_none() {
            // One address for the warp: read once.
            match read_le(env.kparams, addr[0], size) {
                Some(v) => r = [v; 32],
                None => return false,
            }
        } else {
            for l in lanes(m) {
                match read_le(env.kparams, addr[l], size) {
                    Some(v) => r[l] = v,
                    None => return false,
                }
            }
        }
    } else {
        let allocs = &env.global.allocs[..];
        let mut last = None;
        let first = m.trailing_zeros() as usize;
        if let Some(w0) = find(allocs, &mut last, addr[first], sz).and_then(|al| dense(al, m, size, addr).map(|w| (al, w))) {
            let (al, w0) = w0;
            for (k, w) in al.words[w0..w0 + 16].iter().enumerate() {
                let w = w.load(Acquire);
                r[2 * k] = w & 0xffff_ffff;
                r[2 * k + 1] = w >> 32;
            }
        } else {
            for l in lanes(m) {
                let a = addr[l];
                if op.space == Space::Generic && classify(a) != Window::Global {
                    return false;
                }
                let Some(al) = find(allocs, &mut last, a, sz) else { return false };
                r[l] = al.read(a - al.base, size);
            }
        }
    }
    let Some((class, off, doff)) = op.reg else { return true };
    if op.signed && size < 8 {
        for v in r.iter_mut() {
            *v = ptxsim_sem::alu::sext(*v, size * 8) as u64;
        }
    }
    let w = off as usize / 8;
    match (class, m) {
        (Class::Narrow, u32::MAX) => {
            if let Some(d) = buf.get_mut(w..w + 16) {
                for (k, x) in d.iter_mut().enumerate() {
                    *x = (r[2 * k] & 0xffff_ffff) | r[2 * k + 1] << 32;
                }
            }
        }
        (Class::Wide, u32::MAX) => {
            if let Some(d) = buf.get_mut(w..w + 32) {
                d.copy_from_slice(&r);
            }
        }
        _ => {
            for l in lanes(m) {
                set_lane(buf, class, off, l, r[l]);
            }
        }
    }
    set32(buf, doff as usize, get32(buf, doff as usize) | m);
    true
}

fn store(op: &MemOp, buf: &mut [u64], env: &mut Env<'_>, m: u32, addr: &[u64; 32]) -> bool {
    let (size, sz) = (op.size, op.size as u64);
    let allocs = &env.global.allocs[..];
    let mut last = None;
    // Every lane's allocation first: nothing is written unless all hold.
    let mut at: [Option<&Allocation>; 32] = [None; 32];
    for l in lanes(m) {
        let a = addr[l];
        if op.space == Space::Generic && classify(a) != Window::Global {
            return false;
        }
        match find(allocs, &mut last, a, sz) {
            Some(al) => at[l] = Some(al),
            None => return false,
        }
    }
    let v: [u64; 32] = match op.reg {
        Some((Class::Wide, off, _)) => wide(buf, off),
        Some((Class::Narrow, off, _)) => std::array::from_fn(|l| lane(buf, Class::Narrow, off, l)),
        None => [op.imm; 32],
    };
    *env.stores += 1;
    if let Some(al) = at[0] {
        if let Some(w0) = dense(al, m, size, addr) {
            for (k, w) in al.words[w0..w0 + 16].iter().enumerate() {
                w.store((v[2 * k] & 0xffff_ffff) | (v[2 * k + 1] << 32), Release);
            }
            return true;
        }
    }
    for l in lanes(m) {
        if let Some(al) = at[l] {
            al.write(addr[l] - al.base, size, v[l]);
        }
    }
    true
}
