//! Per-lane memory access: one lane's read, write or atomic
//! read-modify-write at an address of a state space, with the bounds,
//! alignment and read-only checks that make every bad access a located
//! trap. [`LaneMem`] is the one view of the memories a warp instruction can
//! reach (global, the CTA's shared memory and those of the other CTAs of
//! its cluster, the warp's per-lane local memory, the constant bank and
//! the kernel parameters); loads, stores and
//! atomics (`atomics.rs`) all go through it.

use crate::error::{Trap, TrapKind};
use crate::memory::{classify, read_le, wide_lock, write_le, GlobalMemory, Window};
use crate::program::Space;

/// The memories one warp instruction can reach.
pub(crate) struct LaneMem<'a> {
    pub global: &'a GlobalMemory,
    pub consts: &'a [u8],
    pub kparams: &'a [u8],
    pub shared: &'a mut [u8],
    /// Each lane's local memory (frames, `.local` and `.param` variables).
    pub local: &'a mut [Vec<u8>],
    /// Each lane's end of live local memory: an access past it is out of bounds.
    pub local_top: &'a [u32; 32],
    /// The shared memories of the other CTAs of the cluster.
    pub peers: Peers<'a>,
}

/// Bit of a shared-window offset where a `.shared::cluster` address of
/// another CTA keeps its rank: offset `(rank + 1) << RANK_SHIFT | off` is
/// byte `off` of the shared memory of the CTA of cluster rank `rank`; an
/// offset below `1 << RANK_SHIFT` is the executing CTA's own (the
/// `.shared::cta` window inside the `.shared::cluster` window).
pub const RANK_SHIFT: u32 = 24;

/// A shared-window offset split into the CTA rank it names (`None`: the
/// executing CTA's own window) and the offset in that CTA's memory.
#[inline]
pub(crate) fn split_rank(o: u64) -> (Option<u64>, u64) {
    match o >> RANK_SHIFT {
        0 => (None, o),
        t => (Some(t - 1), o & ((1 << RANK_SHIFT) - 1)),
    }
}

/// The shared memories of the other CTAs of the executing CTA's cluster
/// (distributed shared memory): `lo` those of ranks below the executing
/// CTA's, `hi` those above, in rank order. A cluster runs on one worker,
/// so the scheduler lends them for a warp's turn; the data path's public
/// API has none (`lent` false: an address of another CTA is reported
/// `unsupported` there).
pub(crate) struct Peers<'a> {
    pub lo: &'a mut [crate::cta::Cta],
    pub hi: &'a mut [crate::cta::Cta],
    /// Whether `lo` and `hi` are the cluster's (false: the data path was
    /// handed one CTA's shared memory alone).
    pub lent: bool,
}

impl Peers<'_> {
    /// No other CTA.
    pub fn none() -> Peers<'static> {
        Peers { lo: &mut [], hi: &mut [], lent: false }
    }

    /// The same view, borrowed again.
    pub fn again(&mut self) -> Peers<'_> {
        Peers { lo: &mut *self.lo, hi: &mut *self.hi, lent: self.lent }
    }

    /// The CTA count of the cluster.
    fn size(&self) -> u64 {
        (self.lo.len() + 1 + self.hi.len()) as u64
    }
}

impl LaneMem<'_> {
    /// The cluster rank of the CTA whose shared memory the shared-window
    /// offset `o` names (the executing CTA's for its own window).
    pub fn cta_of(&self, o: u64) -> u64 {
        split_rank(o).0.unwrap_or(self.peers.lo.len() as u64)
    }

    /// Reads the `out.len()` elements of `size` bytes of a vector at `a`
    /// (aligned to the whole vector: the caller checked) for lane `l`.
    ///
    /// A vector in global memory is seen whole by the CTAs running on
    /// other workers, as the hardware makes an aligned vector access of up
    /// to 16 bytes (and CUB's decoupled look-back relies on it, packing a
    /// tile's status and prefix into one vector): the elements sharing an
    /// 8-byte word are read in one access, and the two words of a 16-byte
    /// vector under its address's lock ([`wide_lock`]), which a 16-byte
    /// vector store takes too. Where the vector does not lie in one
    /// allocation, it is read element by element, so the trap is the one
    /// the first bad element gives. The other spaces belong to one CTA.
    pub fn read_vector(&self, space: Space, l: usize, a: u64, size: u32, out: &mut [u64], cache: &mut usize) -> Result<(), Trap> {
        if let Some((al, off, _lock)) = self.whole_global(space, a, size, out.len(), cache) {
            for (w, chunk) in out.chunks_mut((8 / size) as usize).enumerate() {
                let word = al.read(off + w as u64 * 8, size * chunk.len() as u32);
                for (k, o) in chunk.iter_mut().enumerate() {
                    *o = element(word, k as u32, size);
                }
            }
            return Ok(());
        }
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.read(space, l, a + k as u64 * size as u64, size, cache)?;
        }
        Ok(())
    }

    /// Where a vector of `n` elements of `size` bytes at `a` lies whole in
    /// one global allocation (the one `cache` names, else the one found):
    /// the allocation, the offset, and for 16 bytes the held lock of its
    /// address. `None` for other spaces, or to go element by element.
    fn whole_global(&self, space: Space, a: u64, size: u32, n: usize, cache: &mut usize) -> Option<(&crate::memory::Allocation, u64, Option<crate::memory::WideGuard>)> {
        let Place::Global(g) = place(space, a) else { return None };
        let total = size as u64 * n as u64;
        if size > 8 {
            return None;
        }
        let fits = |al: &crate::memory::Allocation| g >= al.base && g - al.base + total <= al.size;
        let i = match self.global.allocs.get(*cache) {
            Some(al) if fits(al) => *cache,
            _ => self.global.find(g, total)?,
        };
        *cache = i;
        let al = &self.global.allocs[i];
        Some((al, g - al.base, (total == 16).then(|| wide_lock(g))))
    }

    /// Writes the elements `vals` of `size` bytes of a vector at `a`
    /// (aligned to the whole vector) for lane `l`: in global memory whole,
    /// as [`LaneMem::read_vector`] reads it.
    pub fn write_vector(&mut self, space: Space, l: usize, a: u64, size: u32, vals: &[u64], cache: &mut usize) -> Result<(), Trap> {
        if let Some((al, off, _lock)) = self.whole_global(space, a, size, vals.len(), cache) {
            for (w, chunk) in vals.chunks((8 / size) as usize).enumerate() {
                let word = chunk.iter().enumerate().fold(0u64, |acc, (k, &v)| acc | element(v, 0, size) << (k as u32 * size * 8));
                al.write(off + w as u64 * 8, size * chunk.len() as u32, word);
            }
            return Ok(());
        }
        for (k, &v) in vals.iter().enumerate() {
            self.write(space, l, a + k as u64 * size as u64, size, v, cache)?;
        }
        Ok(())
    }

    /// Where shared-window offset `o` lands: which CTA's memory (`0` this
    /// CTA's, `1 + i` `peers.lo[i]`, `-1 - i` `peers.hi[i]`) and the offset
    /// in it, or the located trap naming the rank and the CTA's shared
    /// memory when it lies outside. `a` is the address as the instruction
    /// gave it.
    #[cold]
    fn shared_at(&self, l: usize, a: u64, o: u64, size: u32) -> Result<(isize, u64), Trap> {
        let (rank, off) = split_rank(o);
        if let (Some(r), false) = (rank, self.peers.lent) {
            return Err(Trap::lane(
                TrapKind::Unsupported,
                l as u32,
                format!("lane {l}: shared::cluster address {a:#x} names CTA rank {r}: only the PTX engine's scheduler lends the data path the other CTAs' shared memories (distributed shared memory)"),
            ));
        }
        let own = self.peers.lo.len() as u64;
        let n = self.peers.size();
        let (which, len) = match rank {
            None => (0, self.shared.len()),
            Some(r) if r == own => (0, self.shared.len()),
            Some(r) if r < own => (1 + r as isize, self.peers.lo[r as usize].shared.len()),
            Some(r) if r < n => (-1 - (r - own - 1) as isize, self.peers.hi[(r - own - 1) as usize].shared.len()),
            Some(r) => {
                return Err(Trap::lane(
                    TrapKind::OutOfBounds,
                    l as u32,
                    format!("lane {l}: {size}-byte access at shared::cluster address {a:#x}: CTA rank {r} is outside the cluster of {n} CTAs"),
                ))
            }
        };
        if off.checked_add(size as u64).is_none_or(|e| e > len as u64) {
            let who = match rank {
                Some(r) if r != own => format!("the shared memory of CTA rank {r} of the cluster"),
                _ => format!("the shared memory of this CTA (rank {own})"),
            };
            return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: {size}-byte access at shared::cluster address {a:#x} (offset {off:#x}) is outside {who} ({len} bytes)")));
        }
        Ok((which, off))
    }

    fn shared_ref(&self, which: isize) -> &[u8] {
        match which {
            0 => self.shared,
            i if i > 0 => &self.peers.lo[(i - 1) as usize].shared,
            i => &self.peers.hi[(-1 - i) as usize].shared,
        }
    }

    fn shared_mut(&mut self, which: isize) -> &mut [u8] {
        match which {
            0 => self.shared,
            i if i > 0 => &mut self.peers.lo[(i - 1) as usize].shared,
            i => &mut self.peers.hi[(-1 - i) as usize].shared,
        }
    }

    /// A read of another CTA's shared memory (or a trap).
    #[cold]
    fn peer_read(&self, l: usize, a: u64, o: u64, size: u32) -> Result<u64, Trap> {
        let (w, off) = self.shared_at(l, a, o, size)?;
        read_le(self.shared_ref(w), off, size).ok_or_else(|| oob(l, "shared", a, size))
    }
}

/// The trap for an access outside every allocation of its space.
pub(crate) fn oob(l: usize, space: &str, a: u64, size: u32) -> Trap {
    crate::memory::oob(l, space, a, size)
}

/// A `Misaligned` trap unless `a` is a multiple of `size` (a power of two).
#[inline(always)]
pub(crate) fn check_align(a: u64, size: u32, l: usize) -> Result<(), Trap> {
    if size.is_power_of_two() && a & (size as u64 - 1) != 0 {
        return Err(Trap::lane(TrapKind::Misaligned, l as u32, format!("lane {l}: address {a:#x} is not a multiple of the access size {size}")));
    }
    Ok(())
}

pub(crate) fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::SharedCta => "shared::cta",
        Space::Local => "local",
        Space::Const => "const",
        Space::KernelParam => "kernel param",
        Space::FrameParam => "param",
        Space::Generic => "generic",
    }
}

/// Where an access lands once its space (and, for a generic address, its
/// window) is resolved: a global address, or an offset into one of the
/// byte memories.
pub(crate) enum Place {
    Global(u64),
    Shared(u64),
    Local(u64),
    Const(u64),
    Param(u64),
    /// Past every window of its space (a `.shared::cta` offset beyond the
    /// shared window of one CTA): the access traps `out_of_bounds`.
    Outside,
}

#[inline(always)]
pub(crate) fn place(space: Space, a: u64) -> Place {
    match space {
        Space::Global => Place::Global(a),
        Space::Shared => Place::Shared(a),
        Space::SharedCta if a >> RANK_SHIFT == 0 => Place::Shared(a),
        Space::SharedCta => Place::Outside,
        Space::Local | Space::FrameParam => Place::Local(a),
        Space::Const => Place::Const(a),
        Space::KernelParam => Place::Param(a),
        Space::Generic => match classify(a) {
            Window::Global => Place::Global(a),
            Window::Shared(o) => Place::Shared(o),
            Window::Local(o) => Place::Local(o),
            Window::Const(o) => Place::Const(o),
            Window::Param(o) => Place::Param(o),
        },
    }
}

impl LaneMem<'_> {
    /// Reads `size` bytes at address `a` of `space` for lane `l`; `cache`
    /// remembers the global allocation last found.
    #[inline(always)]
    pub fn read(&self, space: Space, l: usize, a: u64, size: u32, cache: &mut usize) -> Result<u64, Trap> {
        let r = match place(space, a) {
            Place::Global(a) => return global_read(self.global, l, a, size, cache),
            Place::Shared(o) => match read_le(self.shared, o, size) {
                None if o >> RANK_SHIFT != 0 => return self.peer_read(l, a, o, size),
                r => r,
            },
            Place::Local(o) => {
                if o + size as u64 > self.local_top[l] as u64 {
                    None
                } else {
                    read_le(&self.local[l], o, size)
                }
            }
            Place::Const(o) => read_le(self.consts, o, size),
            Place::Param(o) => read_le(self.kparams, o, size),
            Place::Outside => None,
        };
        r.ok_or_else(|| oob(l, space_name(space), a, size))
    }

    /// Writes the low `size` bytes of `v` at address `a` of `space` for lane `l`.
    #[inline]
    pub fn write(&mut self, space: Space, l: usize, a: u64, size: u32, v: u64, cache: &mut usize) -> Result<(), Trap> {
        let ok = match place(space, a) {
            Place::Global(a) => return global_write(self.global, l, a, size, v, cache),
            Place::Shared(o) => {
                write_le(self.shared, o, size, v) || {
                    if o >> RANK_SHIFT == 0 {
                        false
                    } else {
                        let (w, off) = self.shared_at(l, a, o, size)?;
                        write_le(self.shared_mut(w), off, size, v)
                    }
                }
            }
            Place::Local(o) => o + size as u64 <= self.local_top[l] as u64 && write_le(&mut self.local[l], o, size, v),
            Place::Const(_) | Place::Param(_) if space != Space::Generic => {
                return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: store to read-only {} space at {a:#x}", space_name(space))))
            }
            Place::Const(_) | Place::Param(_) | Place::Outside => false,
        };
        if ok {
            Ok(())
        } else {
            Err(oob(l, space_name(space), a, size))
        }
    }

    /// Replaces the `size`-byte value at `a` of `space` (global, shared,
    /// local or generic) by `f(old)` for lane `l`, atomically for global
    /// memory; returns the old value.
    pub fn rmw(&mut self, space: Space, l: usize, a: u64, size: u32, f: &mut dyn FnMut(u64) -> u64) -> Result<u64, Trap> {
        if matches!(space, Space::Const | Space::KernelParam | Space::FrameParam) {
            return Err(oob(l, space_name(space), a, size));
        }
        match place(space, a) {
            Place::Global(a) => {
                let g = self.global;
                let i = g.find(a, size as u64).ok_or_else(|| oob(l, "global", a, size))?;
                let al = &g.allocs[i];
                Ok(al.rmw(a - al.base, size, f))
            }
            Place::Shared(o) => {
                let (w, off) = if o >> RANK_SHIFT == 0 { (0, o) } else { self.shared_at(l, a, o, size)? };
                let mem = self.shared_mut(w);
                let old = read_le(mem, off, size).ok_or_else(|| oob(l, "shared", a, size))?;
                write_le(mem, off, size, f(old));
                Ok(old)
            }
            Place::Local(o) => {
                if o + size as u64 > self.local_top[l] as u64 {
                    return Err(oob(l, "local", a, size));
                }
                let old = read_le(&self.local[l], o, size).ok_or_else(|| oob(l, "local", a, size))?;
                write_le(&mut self.local[l], o, size, f(old));
                Ok(old)
            }
            Place::Const(_) | Place::Param(_) | Place::Outside => Err(oob(l, space_name(space), a, size)),
        }
    }
}

#[inline(always)]
fn global_read(g: &GlobalMemory, l: usize, a: u64, size: u32, cache: &mut usize) -> Result<u64, Trap> {
    if let Some(al) = g.allocs.get(*cache) {
        if a >= al.base && a - al.base + size as u64 <= al.size {
            return Ok(al.read(a - al.base, size));
        }
    }
    match g.find(a, size as u64) {
        Some(i) => {
            *cache = i;
            let al = &g.allocs[i];
            Ok(al.read(a - al.base, size))
        }
        None => Err(oob(l, "global", a, size)),
    }
}

#[inline(always)]
fn global_write(g: &GlobalMemory, l: usize, a: u64, size: u32, v: u64, cache: &mut usize) -> Result<(), Trap> {
    let i = match g.allocs.get(*cache) {
        Some(al) if a >= al.base && a - al.base + size as u64 <= al.size => *cache,
        _ => match g.find(a, size as u64) {
            Some(i) => {
                *cache = i;
                i
            }
            None => return Err(oob(l, "global", a, size)),
        },
    };
    let al = &g.allocs[i];
    al.write(a - al.base, size, v);
    Ok(())
}

/// Element `k` of `size` bytes of a little-endian word.
#[inline(always)]
fn element(word: u64, k: u32, size: u32) -> u64 {
    let w = word >> (k * size * 8);
    if size >= 8 {
        w
    } else {
        w & ((1u64 << (size * 8)) - 1)
    }
}
