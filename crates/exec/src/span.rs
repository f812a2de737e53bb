//! Whole-warp global accesses: when every active lane's access of a scalar
//! global load or store is naturally aligned and falls inside one
//! allocation, the engine checks that once per warp (on the lowest and
//! highest address) and then reads or writes the lanes with no per-lane
//! address translation. Anything else (a misaligned lane, an address
//! outside every allocation, a generic address in another window) takes
//! the lane-by-lane path, which reports the first failing lane as before.

use crate::memory::{Allocation, GlobalMemory};

/// The allocation holding the `sz`-byte access at `base[l] + off` of every
/// lane `l` of `m` (non-empty), if there is one and every access is
/// aligned to `sz` (a power of two up to 8). `cache` remembers the last
/// allocation found.
#[inline]
pub(crate) fn warp_span<'g>(g: &'g GlobalMemory, base: &[u64; 32], off: u64, m: u32, sz: u64, cache: &mut usize) -> Option<&'g Allocation> {
    if m == 0 || sz > 8 || !sz.is_power_of_two() {
        return None;
    }
    let (mut lo, mut hi, mut bits) = (u64::MAX, 0u64, 0u64);
    for l in 0..32 {
        let a = base[l].wrapping_add(off);
        let on = m >> l & 1 != 0;
        lo = lo.min(if on { a } else { u64::MAX });
        hi = hi.max(if on { a } else { 0 });
        bits |= if on { a } else { 0 };
    }
    if bits & (sz - 1) != 0 {
        return None;
    }
    // `lo <= hi`; the span [lo, hi + sz) must lie inside the allocation.
    let inside = |al: &Allocation| lo >= al.base && hi - al.base < al.size && al.size - (hi - al.base) >= sz;
    if let Some(al) = g.allocs.get(*cache) {
        if inside(al) {
            return Some(al);
        }
    }
    let i = g.find(lo, 1)?;
    let al = &g.allocs[i];
    if inside(al) {
        *cache = i;
        Some(al)
    } else {
        None
    }
}

/// The word index in `al` of the first lane's access when all 32 lanes are
/// active and lane `l` accesses `first + l * sz` with `first` 8-byte
/// aligned: a whole warp reading or writing consecutive 4- or 8-byte
/// elements, which then moves as `4 * sz` whole words. `al` must hold every
/// lane's access ([`warp_span`]).
#[inline]
pub(crate) fn dense(al: &Allocation, base: &[u64; 32], off: u64, m: u32, sz: u64) -> Option<usize> {
    if m != u32::MAX || !(sz == 4 || sz == 8) {
        return None;
    }
    let first = base[0].wrapping_add(off);
    let mut ok = true;
    for (l, b) in base.iter().enumerate() {
        ok &= b.wrapping_add(off) == first.wrapping_add(l as u64 * sz);
    }
    let o = first - al.base;
    if ok && o & 7 == 0 {
        Some((o >> 3) as usize)
    } else {
        None
    }
}
