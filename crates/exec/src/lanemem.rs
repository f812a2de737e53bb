//! Per-lane memory access: one lane's read, write or atomic
//! read-modify-write at an address of a state space, with the bounds,
//! alignment and read-only checks that make every bad access a located
//! trap. [`LaneMem`] is the one view of the memories a warp instruction can
//! reach (global, the CTA's shared memory, the warp's per-lane local
//! memory, the constant bank and the kernel parameters); loads, stores and
//! atomics (`atomics.rs`) all go through it.

use crate::error::{Trap, TrapKind};
use crate::memory::{classify, read_le, write_le, GlobalMemory, Window};
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
}

#[inline(always)]
pub(crate) fn place(space: Space, a: u64) -> Place {
    match space {
        Space::Global => Place::Global(a),
        Space::Shared => Place::Shared(a),
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
            Place::Shared(o) => read_le(self.shared, o, size),
            Place::Local(o) => {
                if o + size as u64 > self.local_top[l] as u64 {
                    None
                } else {
                    read_le(&self.local[l], o, size)
                }
            }
            Place::Const(o) => read_le(self.consts, o, size),
            Place::Param(o) => read_le(self.kparams, o, size),
        };
        r.ok_or_else(|| oob(l, space_name(space), a, size))
    }

    /// Writes the low `size` bytes of `v` at address `a` of `space` for lane `l`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn write(&mut self, space: Space, l: usize, a: u64, size: u32, v: u64, cache: &mut usize) -> Result<(), Trap> {
        let ok = match place(space, a) {
            Place::Global(a) => return global_write(self.global, l, a, size, v, cache),
            Place::Shared(o) => write_le(self.shared, o, size, v),
            Place::Local(o) => o + size as u64 <= self.local_top[l] as u64 && write_le(&mut self.local[l], o, size, v),
            Place::Const(_) | Place::Param(_) if space != Space::Generic => {
                return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: store to read-only {} space at {a:#x}", space_name(space))))
            }
            Place::Const(_) | Place::Param(_) => false,
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
                let old = read_le(self.shared, o, size).ok_or_else(|| oob(l, "shared", a, size))?;
                write_le(self.shared, o, size, f(old));
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
            Place::Const(_) | Place::Param(_) => Err(oob(l, space_name(space), a, size)),
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
