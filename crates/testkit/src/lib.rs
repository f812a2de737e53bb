//! Test support shared by the ptxsim crates' tests: a counting global
//! allocator, so that a test asserts memory bounds (peak heap, bytes and
//! allocations) without a clock, and can cap the heap so that an unbounded
//! allocation fails at once instead of exhausting the machine.
//!
//! A test binary installs it with
//! `#[global_allocator] static A: ptxsim_testkit::Counting = ptxsim_testkit::Counting;`
//! and measures with [`mark`]. The counters are process-wide: a test that
//! measures should not run beside other allocating tests of its binary.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The counting allocator (the system allocator underneath).
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Whether `n` more live bytes stay within the cap.
fn fits(n: usize) -> bool {
    LIVE.load(Relaxed).saturating_add(n) <= CAP.load(Relaxed)
}

fn grow(n: usize) {
    let now = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
    TOTAL.fetch_add(n, Relaxed);
    COUNT.fetch_add(1, Relaxed);
}

// SAFETY: every call forwards to `System` with the caller's layout; the
// counters are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if !fits(l.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grow(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if !fits(l.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            grow(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() && !fits(new - l.size()) {
            return std::ptr::null_mut();
        }
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                grow(new - l.size());
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

/// Live heap bytes now.
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Caps the live heap at `bytes`: an allocation past it fails (Rust then
/// aborts with "memory allocation failed"). `usize::MAX` lifts the cap.
pub fn set_cap(bytes: usize) {
    CAP.store(bytes, Relaxed);
}

/// The counters at a point: what was allocated since is read from it.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    base: usize,
    total: usize,
    count: usize,
}

/// Starts a measurement: the peak starts again from the live bytes now.
pub fn mark() -> Mark {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    Mark { base, total: TOTAL.load(Relaxed), count: COUNT.load(Relaxed) }
}

impl Mark {
    /// The most live bytes above the mark's since it was taken.
    pub fn peak(&self) -> usize {
        PEAK.load(Relaxed).saturating_sub(self.base)
    }

    /// Bytes allocated since the mark (frees not subtracted).
    pub fn total(&self) -> usize {
        TOTAL.load(Relaxed) - self.total
    }

    /// Allocations (and growing reallocations) since the mark.
    pub fn allocs(&self) -> usize {
        COUNT.load(Relaxed) - self.count
    }
}
