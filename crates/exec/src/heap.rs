//! The device heap behind the CUDA system calls `malloc` and `free`
//! (device-side dynamic allocation).
//!
//! CUDA's semantics (Programming Guide, "Dynamic Global Memory Allocation
//! and Operations"; `cuCtxSetLimit`):
//! - the heap has a fixed size, [`crate::Limits::malloc_heap_bytes`]
//!   (`CU_LIMIT_MALLOC_HEAP_SIZE`, 8 MiB by default); it is reserved when a
//!   module that calls `malloc` or `free` is loaded, as one global
//!   allocation of the device ([`crate::Device`] does that, this module
//!   only manages the blocks inside);
//! - its size may change until a kernel that uses it has been launched;
//!   after that a change is refused ([`Heap::in_use`]);
//! - `malloc(n)` returns a 16-byte aligned block of at least `n` bytes, or
//!   0 (NULL) when no free range is large enough: never a trap;
//! - `free(0)` does nothing; a block lives until it is freed (by any
//!   thread, in any later launch) or the heap is released;
//! - `free` of anything else than a live block's start (a pointer `malloc`
//!   never returned, or one freed already) is undefined in CUDA; here it is
//!   a `bad_free` trap that says which of the two it is.
//!
//! The allocator is first fit over the free ranges in address order, with
//! neighbouring free ranges coalesced on `free`, under one mutex (CTAs run
//! in parallel on several workers). Block sizes are multiples of 16 bytes,
//! at least 16 (`malloc(0)` returns a unique block, as C allows). Each
//! live block's size is kept beside it, not in the heap's bytes, so a
//! kernel writing past its block cannot corrupt the allocator. Bounds are
//! checked for the heap allocation as a whole, not per block.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The alignment and granule of every block.
pub const ALIGN: u64 = 16;

pub use crate::config::DEFAULT_HEAP_BYTES;

/// Why a `free` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadFree {
    /// The pointer is the start of a block freed already (and not handed
    /// out again since).
    DoubleFree { size: u64 },
    /// The pointer lies inside a live block, not at its start.
    InsideBlock { base: u64, size: u64 },
    /// The pointer is in the heap but no block starts there.
    NotABlock,
    /// The pointer is outside the heap (not from `malloc` at all).
    OutsideHeap,
}

impl BadFree {
    /// A sentence on what `free(ptr)` was given.
    pub fn describe(&self, ptr: u64, heap: (u64, u64)) -> String {
        match self {
            BadFree::DoubleFree { size } => format!("double free: {ptr:#x} is a block of {size} bytes that was freed already"),
            BadFree::InsideBlock { base, size } => {
                format!("{ptr:#x} is not a pointer `malloc` returned: it is {} bytes into the block of {size} bytes at {base:#x}", ptr - base)
            }
            BadFree::NotABlock => format!("{ptr:#x} is not a pointer `malloc` returned: no block of the device heap starts there"),
            BadFree::OutsideHeap if heap.1 == 0 => format!("{ptr:#x} is not a pointer `malloc` returned: the device heap is not reserved"),
            BadFree::OutsideHeap => {
                format!("{ptr:#x} is not a pointer `malloc` returned: it is outside the device heap ({} bytes at {:#x})", heap.1, heap.0)
            }
        }
    }
}

#[derive(Debug, Default)]
struct Blocks {
    /// The heap allocation: base address and usable size (a multiple of
    /// [`ALIGN`]); size 0 when not reserved.
    base: u64,
    size: u64,
    /// Free ranges, offset → length; never two adjacent ones.
    free: BTreeMap<u64, u64>,
    /// Live blocks, offset → length.
    live: BTreeMap<u64, u64>,
    /// Starts of blocks freed and not handed out again (offset → length),
    /// to tell a double free from a pointer `malloc` never returned.
    freed: BTreeMap<u64, u64>,
}

/// The allocator state of the device heap (see the module docs).
#[derive(Debug, Default)]
pub struct Heap {
    blocks: Mutex<Blocks>,
    /// A kernel of a module that calls `malloc`/`free` has been launched
    /// since the heap was reserved: its size is fixed.
    used: AtomicBool,
}

impl Heap {
    fn lock(&self) -> std::sync::MutexGuard<'_, Blocks> {
        self.blocks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The heap allocation (base, bytes usable), if reserved.
    pub fn reservation(&self) -> Option<(u64, u64)> {
        let b = self.lock();
        (b.base != 0).then_some((b.base, b.size))
    }

    /// Takes the allocation at `base` of `bytes` as the heap: all of it
    /// free (whole granules only).
    pub(crate) fn reserve(&self, base: u64, bytes: u64) {
        let mut b = self.lock();
        let size = bytes / ALIGN * ALIGN;
        *b = Blocks { base, size, ..Blocks::default() };
        if size > 0 {
            b.free.insert(0, size);
        }
        self.used.store(false, Ordering::Relaxed);
    }

    /// Forgets the reservation and every block; returns the base of the
    /// allocation that held it, for the device to free.
    pub(crate) fn release(&self) -> Option<u64> {
        let mut b = self.lock();
        let base = (b.base != 0).then_some(b.base);
        *b = Blocks::default();
        self.used.store(false, Ordering::Relaxed);
        base
    }

    /// Marks the heap in use (a kernel that may call `malloc` runs).
    pub(crate) fn mark_used(&self) {
        self.used.store(true, Ordering::Relaxed);
    }

    /// Whether a kernel using the heap has been launched since it was
    /// reserved (its size can no longer change).
    pub fn in_use(&self) -> bool {
        self.used.load(Ordering::Relaxed)
    }

    /// Bytes in live blocks.
    pub fn live_bytes(&self) -> u64 {
        self.lock().live.values().sum()
    }

    /// `malloc(n)`: the address of a fresh block of at least `n` bytes,
    /// 16-byte aligned, or 0 when no free range is large enough (or the
    /// heap is not reserved).
    pub fn malloc(&self, n: u64) -> u64 {
        let Some(need) = n.max(1).checked_next_multiple_of(ALIGN) else { return 0 };
        let mut b = self.lock();
        let Some((&off, &len)) = b.free.iter().find(|(_, &len)| len >= need) else { return 0 };
        b.free.remove(&off);
        if len > need {
            b.free.insert(off + need, len - need);
        }
        b.live.insert(off, need);
        // Earlier freed blocks overlapping this one are now (part of) a
        // live block: a `free` of their start is no longer a double free.
        let stale: Vec<u64> = b.freed.range(..off + need).rev().take_while(|(&o, &l)| o + l > off).map(|(&o, _)| o).collect();
        for o in stale {
            b.freed.remove(&o);
        }
        b.base + off
    }

    /// `free(ptr)` for `ptr != 0`: the block goes back to the free ranges,
    /// merged with free neighbours.
    pub fn free(&self, ptr: u64) -> Result<(), BadFree> {
        let mut b = self.lock();
        if b.size == 0 || ptr < b.base || ptr - b.base >= b.size {
            return Err(BadFree::OutsideHeap);
        }
        let off = ptr - b.base;
        let Some(len) = b.live.remove(&off) else {
            if let Some(&size) = b.freed.get(&off) {
                return Err(BadFree::DoubleFree { size });
            }
            if let Some((&o, &l)) = b.live.range(..off).next_back().filter(|(&o, &l)| off < o + l) {
                return Err(BadFree::InsideBlock { base: b.base + o, size: l });
            }
            return Err(BadFree::NotABlock);
        };
        b.freed.insert(off, len);
        let (mut start, mut end) = (off, off + len);
        if let Some((&o, &l)) = b.free.range(..off).next_back() {
            if o + l == off {
                b.free.remove(&o);
                start = o;
            }
        }
        if let Some(l) = b.free.remove(&end) {
            end += l;
        }
        b.free.insert(start, end - start);
        Ok(())
    }

    /// Free ranges (offset, length) in address order, for tests.
    #[cfg(test)]
    fn free_ranges(&self) -> Vec<(u64, u64)> {
        self.lock().free.iter().map(|(&o, &l)| (o, l)).collect()
    }
}

#[cfg(test)]
mod tests {
    //! The allocator against a model: live blocks never overlap, stay
    //! inside the heap and aligned, free ranges are coalesced, and the
    //! bytes add up.
    use super::*;
    use proptest::prelude::*;

    const BASE: u64 = 0x1000_0000;

    #[test]
    fn first_fit_reuses_the_lowest_hole_and_coalesces() {
        let h = Heap::default();
        h.reserve(BASE, 160);
        let a = h.malloc(20); // 32 bytes
        let b = h.malloc(16);
        let c = h.malloc(1);
        assert_eq!((a, b, c), (BASE, BASE + 32, BASE + 48));
        assert_eq!(h.free(b), Ok(()));
        assert_eq!(h.free(a), Ok(()));
        // a and b merged into one 48-byte range at 0, and the tail.
        assert_eq!(h.free_ranges(), vec![(0, 48), (64, 96)]);
        assert_eq!(h.malloc(48), BASE);
        assert_eq!(h.free(c), Ok(()));
        assert_eq!(h.free_ranges(), vec![(48, 112)]);
        assert_eq!(h.malloc(113), 0);
        assert_eq!(h.malloc(112), BASE + 48);
        assert_eq!(h.malloc(1), 0);
    }

    #[test]
    fn bad_frees_say_what_they_are() {
        let h = Heap::default();
        h.reserve(BASE, 1024);
        let a = h.malloc(64);
        assert_eq!(h.free(a + 16), Err(BadFree::InsideBlock { base: a, size: 64 }));
        assert_eq!(h.free(a + 512), Err(BadFree::NotABlock));
        assert_eq!(h.free(BASE + 1024), Err(BadFree::OutsideHeap));
        assert_eq!(h.free(a), Ok(()));
        assert_eq!(h.free(a), Err(BadFree::DoubleFree { size: 64 }));
        // Handed out again: freeing it is legal once more.
        assert_eq!(h.malloc(16), a);
        assert_eq!(h.free(a), Ok(()));
    }

    proptest! {
        #[test]
        fn blocks_never_overlap(ops in proptest::collection::vec((any::<bool>(), 0u64..300, any::<prop::sample::Index>()), 1..200)) {
            let size = 2048u64;
            let h = Heap::default();
            h.reserve(BASE, size);
            let mut live: Vec<(u64, u64)> = Vec::new();
            for (alloc, n, pick) in ops {
                if alloc || live.is_empty() {
                    let p = h.malloc(n);
                    if p == 0 {
                        // Refused only when no hole is big enough.
                        let need = n.max(1).next_multiple_of(16);
                        prop_assert!(h.free_ranges().iter().all(|r| r.1 < need));
                        continue;
                    }
                    prop_assert_eq!(p % 16, 0);
                    prop_assert!(p >= BASE && p + n <= BASE + size);
                    for &(q, m) in &live {
                        prop_assert!(p + n.max(1) <= q || q + m <= p, "{p:#x}+{n} overlaps {q:#x}+{m}");
                    }
                    live.push((p, n.max(1)));
                } else {
                    let (p, _) = live.swap_remove(pick.index(live.len()));
                    prop_assert_eq!(h.free(p), Ok(()));
                }
                let free = h.free_ranges();
                for w in free.windows(2) {
                    prop_assert!(w[0].0 + w[0].1 < w[1].0, "adjacent free ranges {w:?}");
                }
                prop_assert_eq!(free.iter().map(|r| r.1).sum::<u64>() + h.live_bytes(), size);
            }
        }
    }
}
