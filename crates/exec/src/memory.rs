//! Device memory: the global arena and the address map.
//!
//! Global memory is an arena of bounds-checked allocations behind 64-bit
//! device addresses. Each allocation stores its bytes in `AtomicU64` words so
//! that CTAs running in parallel on several cores can share it with no
//! `unsafe` code: a racy kernel gets an unspecified value (as PTX says), never
//! undefined behaviour in the emulator. Natural alignment is enforced by the
//! engine, so an access of up to 8 bytes never straddles two words.
//! A kernel's loads are acquire loads and its stores release stores, and
//! `membar`/`fence` is a sequentially consistent fence of the worker, so
//! the protocols CTAs use to talk through global memory (flags after data,
//! decoupled look-back) work across workers on any host, not only on
//! x86's ordered stores; an aligned vector of up to 16 bytes is moved
//! whole ([`wide_lock`]).
//!
//! Allocations are zeroed by the allocator (calloc): the operating system
//! hands out zero pages on first touch, so a large `.global` variable or
//! buffer costs resident memory only where it is written or read.
//!
//! An out-of-bounds trap names the nearest allocation and the distance past
//! its end ([`oob`]), from the [`MemMap`] the launch installs on each of its
//! worker threads.
//!
//! Generic addresses are split into windows: shared, local, const and kernel
//! param spaces each have a 4 GiB window; everything else is global.
//! Function "addresses" are small tagged integers in `FUNC_BASE..`.

use crate::error::{Trap, TrapKind};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::{Acquire, Relaxed, Release}};
use std::sync::Arc;

pub use crate::program::{CONST_WINDOW, FUNC_BASE, FUNC_STRIDE, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE};

/// Address ranges `[lo, hi)` no placed allocation may touch: the null page,
/// the function addresses, and the generic windows of the other spaces.
const RESERVED: [(u64, u64); 6] = [
    (0, 4096),
    (FUNC_BASE, 1 << 32),
    (SHARED_WINDOW, SHARED_WINDOW + WINDOW_SIZE),
    (LOCAL_WINDOW, LOCAL_WINDOW + WINDOW_SIZE),
    (CONST_WINDOW, CONST_WINDOW + WINDOW_SIZE),
    (PARAM_WINDOW, PARAM_WINDOW + WINDOW_SIZE),
];

/// Why [`GlobalMemory::alloc_at`] refused to place an allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceError {
    /// A size of zero.
    Empty,
    /// The address is not 8-byte aligned.
    Misaligned { addr: u64 },
    /// The range touches the null page, the function addresses or a
    /// window of another space (or wraps around).
    Reserved { addr: u64, size: u64 },
    /// The range overlaps the live allocation `[base, base+size)`.
    Overlap { base: u64, size: u64 },
    /// The memory limit, or the host's memory, cannot hold `size` more bytes.
    OutOfMemory { size: u64 },
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            PlaceError::Empty => write!(f, "an allocation of 0 bytes"),
            PlaceError::Misaligned { addr } => write!(f, "{addr:#x} is not 8-byte aligned"),
            PlaceError::Reserved { addr, size } => write!(f, "{size} bytes at {addr:#x} reach addresses reserved for the null page, functions or another space's window"),
            PlaceError::Overlap { base, size } => write!(f, "overlaps the allocation of {size} bytes at {base:#x}"),
            PlaceError::OutOfMemory { size } => write!(f, "no room for {size} more bytes under the memory limit"),
        }
    }
}

impl std::error::Error for PlaceError {}

/// Which space a generic address falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    Global,
    Shared(u64),
    Local(u64),
    Const(u64),
    Param(u64),
}

#[inline(always)]
pub fn classify(addr: u64) -> Window {
    if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) {
        Window::Shared(addr - SHARED_WINDOW)
    } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) {
        Window::Local(addr - LOCAL_WINDOW)
    } else if (CONST_WINDOW..CONST_WINDOW + WINDOW_SIZE).contains(&addr) {
        Window::Const(addr - CONST_WINDOW)
    } else if (PARAM_WINDOW..PARAM_WINDOW + WINDOW_SIZE).contains(&addr) {
        Window::Param(addr - PARAM_WINDOW)
    } else {
        Window::Global
    }
}

/// The locks that make a 16-byte vector access to global memory
/// single-copy atomic across workers: a vector load or store of 16 bytes
/// holds the lock of its address while it moves the two words
/// ([`crate::lanemem::LaneMem::read_vector`]).
static WIDE: [AtomicBool; 64] = [const { AtomicBool::new(false) }; 64];

/// A held lock of [`WIDE`], released on drop.
pub struct WideGuard(&'static AtomicBool);

/// Takes the lock of the 16 bytes at global address `a`.
pub fn wide_lock(a: u64) -> WideGuard {
    let l = &WIDE[((a >> 4) as usize) & (WIDE.len() - 1)];
    while l.compare_exchange_weak(false, true, Acquire, Relaxed).is_err() {
        std::hint::spin_loop();
    }
    WideGuard(l)
}

impl Drop for WideGuard {
    fn drop(&mut self) {
        self.0.store(false, Release);
    }
}

/// One global allocation.
#[derive(Debug)]
pub struct Allocation {
    pub base: u64,
    pub size: u64,
    pub words: Vec<AtomicU64>,
}

impl Allocation {
    #[inline(always)]
    pub fn read(&self, off: u64, size: u32) -> u64 {
        let w = self.words[(off >> 3) as usize].load(Acquire);
        if size == 8 {
            w
        } else {
            (w >> ((off & 7) * 8)) & ((1u64 << (size * 8)) - 1)
        }
    }

    #[inline(always)]
    pub fn write(&self, off: u64, size: u32, v: u64) {
        let word = &self.words[(off >> 3) as usize];
        if size == 8 {
            word.store(v, Release);
            return;
        }
        let sh = (off & 7) * 8;
        let m = ((1u64 << (size * 8)) - 1) << sh;
        let v = (v << sh) & m;
        let mut cur = word.load(Relaxed);
        loop {
            match word.compare_exchange_weak(cur, (cur & !m) | v, Release, Relaxed) {
                Ok(_) => return,
                Err(c) => cur = c,
            }
        }
    }

    /// Atomic read-modify-write of `size` (4 or 8) bytes; returns the old value.
    pub fn rmw(&self, off: u64, size: u32, f: &mut dyn FnMut(u64) -> u64) -> u64 {
        let word = &self.words[(off >> 3) as usize];
        let sh = if size == 8 { 0 } else { (off & 7) * 8 };
        let m = if size == 8 { u64::MAX } else { ((1u64 << (size * 8)) - 1) << sh };
        let mut cur = word.load(std::sync::atomic::Ordering::SeqCst);
        loop {
            let old = (cur & m) >> sh;
            let new = (f(old) << sh) & m;
            match word.compare_exchange_weak(
                cur,
                (cur & !m) | new,
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
            ) {
                Ok(_) => return old,
                Err(c) => cur = c,
            }
        }
    }
}

/// The global arena.
#[derive(Debug)]
pub struct GlobalMemory {
    /// Sorted by base address.
    pub allocs: Vec<Allocation>,
    next: u64,
    pub total: u64,
    /// The blocks of the device heap (`malloc`/`free`), which lives in one
    /// of `allocs` once reserved.
    pub heap: crate::heap::Heap,
    /// Changes whenever `allocs` does (`alloc`, `alloc_at`, `free`), and
    /// is unique across all global memories of the process: what was
    /// learnt of `allocs` (an allocation's range and words) holds while
    /// it is unchanged ([`GlobalMemory::generation`]).
    generation: u64,
}

/// The next [`GlobalMemory::generation`].
static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Default for GlobalMemory {
    fn default() -> GlobalMemory {
        GlobalMemory::new()
    }
}

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory { allocs: Vec::new(), next: GLOBAL_BASE, total: 0, heap: Default::default(), generation: next_generation() }
    }

    /// An id of this memory's current set of allocations: equal ids mean
    /// the same allocations, at the same host addresses (never 0).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Allocates `size` bytes (zeroed, lazily backed), 256-byte aligned,
    /// with a guard gap, at the next free address above the last one
    /// handed out (skipping any allocation placed there by [`alloc_at`]).
    ///
    /// [`alloc_at`]: GlobalMemory::alloc_at
    pub fn alloc(&mut self, size: u64, limit: u64) -> Option<u64> {
        let size = size.max(1);
        let new_total = self.total.checked_add(size)?;
        if new_total > limit {
            return None;
        }
        let words = usize::try_from(size.div_ceil(8)).ok()?;
        let mut base = self.next;
        // Step over placed allocations that the range (and its guard gap)
        // would overlap; allocations are disjoint and sorted, so their
        // ends are sorted too.
        loop {
            let end = base.checked_add(size)?.checked_add(256)?;
            let j = self.allocs.partition_point(|a| a.base + a.size <= base);
            match self.allocs.get(j) {
                Some(a) if a.base < end => base = a.base.checked_add(a.size)?.checked_add(256 + 255)? & !255,
                _ => break,
            }
        }
        let next = base.checked_add(size)?.checked_add(256 + 255)? & !255;
        if next >= PARAM_WINDOW {
            return None;
        }
        let v: Vec<AtomicU64> = bytemuck::allocation::try_zeroed_vec(words).ok()?;
        let i = self.allocs.partition_point(|a| a.base < base);
        self.allocs.insert(i, Allocation { base, size, words: v });
        self.generation = next_generation();
        self.next = next;
        self.total = new_total;
        Some(base)
    }

    /// Places a zeroed allocation of `size` bytes at `addr` (a host
    /// address the driver maps into the device's address space, so the
    /// host and kernels use the same pointer). `addr` must be 8-byte
    /// aligned (an access never straddles two words), the range must miss
    /// the null page, the function-address range and the generic windows
    /// of the other spaces, and must not overlap a live allocation.
    pub fn alloc_at(&mut self, addr: u64, size: u64, limit: u64) -> Result<(), PlaceError> {
        if size == 0 {
            return Err(PlaceError::Empty);
        }
        if !addr.is_multiple_of(8) {
            return Err(PlaceError::Misaligned { addr });
        }
        let end = addr.checked_add(size).ok_or(PlaceError::Reserved { addr, size })?;
        if RESERVED.iter().any(|&(lo, hi)| addr < hi && lo < end) {
            return Err(PlaceError::Reserved { addr, size });
        }
        let j = self.allocs.partition_point(|a| a.base + a.size <= addr);
        if let Some(a) = self.allocs.get(j).filter(|a| a.base < end) {
            return Err(PlaceError::Overlap { base: a.base, size: a.size });
        }
        let new_total = self.total.checked_add(size).filter(|&t| t <= limit).ok_or(PlaceError::OutOfMemory { size })?;
        let words = usize::try_from(size.div_ceil(8)).map_err(|_| PlaceError::OutOfMemory { size })?;
        let v: Vec<AtomicU64> = bytemuck::allocation::try_zeroed_vec(words).map_err(|_| PlaceError::OutOfMemory { size })?;
        self.allocs.insert(j, Allocation { base: addr, size, words: v });
        self.generation = next_generation();
        self.total = new_total;
        Ok(())
    }

    /// Frees the allocation at `base` (an address `alloc` returned): its
    /// bytes leave the total, so the memory cap has them again, and its
    /// addresses are never handed out again, so a stale pointer into it
    /// traps as out of bounds instead of reaching a newer allocation.
    /// False when no allocation starts at `base`.
    pub fn free(&mut self, base: u64) -> bool {
        match self.allocs.binary_search_by_key(&base, |a| a.base) {
            Ok(i) => {
                let a = self.allocs.remove(i);
                self.generation = next_generation();
                self.total -= a.size;
                true
            }
            Err(_) => false,
        }
    }

    /// The allocation holding `[addr, addr+size)`, if one does.
    #[inline]
    pub fn find(&self, addr: u64, size: u64) -> Option<usize> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i == 0 {
            return None;
        }
        let a = &self.allocs[i - 1];
        if addr - a.base + size <= a.size {
            Some(i - 1)
        } else {
            None
        }
    }

    pub fn write_bytes(&self, addr: u64, bytes: &[u8]) -> bool {
        let Some(i) = self.find(addr, bytes.len() as u64) else { return false };
        let a = &self.allocs[i];
        let off = addr - a.base;
        // The unaligned head byte by byte, then whole words, then the tail.
        let head = (((8 - (off & 7)) & 7) as usize).min(bytes.len());
        for (k, b) in bytes[..head].iter().enumerate() {
            a.write(off + k as u64, 1, *b as u64);
        }
        let body = &bytes[head..];
        let w0 = ((off + head as u64) >> 3) as usize;
        let mut chunks = body.chunks_exact(8);
        for (w, c) in a.words[w0..].iter().zip(&mut chunks) {
            w.store(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]), Relaxed);
        }
        let tail = chunks.remainder();
        let t0 = off + (bytes.len() - tail.len()) as u64;
        for (k, b) in tail.iter().enumerate() {
            a.write(t0 + k as u64, 1, *b as u64);
        }
        true
    }

    pub fn read_bytes(&self, addr: u64, len: u64) -> Option<Vec<u8>> {
        let len = usize::try_from(len).ok()?;
        self.find(addr, len as u64)?;
        let mut out = vec![0u8; len];
        self.read_into(addr, &mut out).then_some(out)
    }

    /// Copies `[addr, addr+out.len())` into `out`; false (and `out`
    /// unchanged) when no allocation holds the whole range.
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> bool {
        let len = out.len();
        let Some(i) = self.find(addr, len as u64) else { return false };
        let a = &self.allocs[i];
        let off = addr - a.base;
        // Whole words where the range covers them, bytes at the edges.
        let head = (((8 - (off & 7)) & 7) as usize).min(len);
        for (k, o) in out[..head].iter_mut().enumerate() {
            *o = a.read(off + k as u64, 1) as u8;
        }
        let w0 = ((off + head as u64) >> 3) as usize;
        let mut chunks = out[head..].chunks_exact_mut(8);
        for (w, c) in a.words[w0..].iter().zip(&mut chunks) {
            c.copy_from_slice(&w.load(Relaxed).to_le_bytes());
        }
        let tail = chunks.into_remainder();
        let t0 = off + (len - tail.len()) as u64;
        for (k, o) in tail.iter_mut().enumerate() {
            *o = a.read(t0 + k as u64, 1) as u8;
        }
        true
    }
}

/// Reads `size` bytes little-endian from a byte slice, if in bounds.
#[inline(always)]
pub fn read_le(bytes: &[u8], off: u64, size: u32) -> Option<u64> {
    let off = usize::try_from(off).ok()?;
    let end = off.checked_add(size as usize)?;
    let s = bytes.get(off..end)?;
    let mut b = [0u8; 8];
    b[..size as usize].copy_from_slice(s);
    Some(u64::from_le_bytes(b))
}

/// Writes `size` bytes little-endian into a byte slice, if in bounds.
#[inline(always)]
pub fn write_le(bytes: &mut [u8], off: u64, size: u32, v: u64) -> bool {
    let Ok(off) = usize::try_from(off) else { return false };
    let Some(end) = off.checked_add(size as usize) else { return false };
    match bytes.get_mut(off..end) {
        Some(s) => {
            s.copy_from_slice(&v.to_le_bytes()[..size as usize]);
            true
        }
        None => false,
    }
}

/// The function a function-pointer value names, if any.
pub fn func_id(v: u64, nfuncs: usize) -> Option<u32> {
    if v < FUNC_BASE || !(v - FUNC_BASE).is_multiple_of(FUNC_STRIDE) {
        return None;
    }
    let i = (v - FUNC_BASE) / FUNC_STRIDE;
    if (i as usize) < nfuncs {
        Some(i as u32)
    } else {
        None
    }
}

/// What a launch's memory holds, for the messages of out-of-bounds traps:
/// the global allocations with what they are, and the sizes of the
/// per-launch spaces.
#[derive(Debug, Default)]
pub(crate) struct MemMap {
    /// (base, size, what), sorted by base; described in words only when
    /// an access misses, so a launch formats nothing.
    pub global: Vec<(u64, u64, Alloc)>,
    pub kparam_bytes: u64,
    pub shared_bytes: u64,
    pub dynamic_shared_bytes: u64,
}

/// What a global allocation is, for [`MemMap`].
#[derive(Debug)]
pub(crate) enum Alloc {
    /// Kernel argument `i` points into it.
    Arg(usize),
    /// A module variable, described (`` `.global` variable `x` ``).
    Named(String),
    /// A named block (the device heap) that kernel argument `i` points into.
    NamedArg(String, usize),
    /// Any other allocation.
    Other,
}

impl std::fmt::Display for Alloc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Alloc::Arg(i) => write!(f, "kernel argument {i}"),
            Alloc::Named(n) => f.write_str(n),
            Alloc::NamedArg(n, i) => write!(f, "{n}, where kernel argument {i} points"),
            Alloc::Other => f.write_str("a device allocation"),
        }
    }
}

thread_local! {
    static MAP: RefCell<Option<Arc<MemMap>>> = const { RefCell::new(None) };
}

/// Runs `f` with `map` describing memory to [`oob`] on this thread.
pub(crate) fn with_map<R>(map: &Arc<MemMap>, f: impl FnOnce() -> R) -> R {
    let old = MAP.with(|m| m.borrow_mut().replace(map.clone()));
    let r = f();
    MAP.with(|m| *m.borrow_mut() = old);
    r
}

/// The trap of lane `l`'s `size`-byte access at address `a` of `space`
/// that no memory holds: it names the nearest allocation and how far past
/// its end (or before its start) the access is, or the read-only parameter
/// window it falls in.
pub(crate) fn oob(l: usize, space: &str, a: u64, size: u32) -> Trap {
    let head = format!("lane {l}: {size}-byte access at {space} address {a:#x}");
    let why = MAP.with(|m| m.borrow().as_ref().map(|map| explain(map, space, a, size as u64))).unwrap_or_else(|| "is outside every allocation".to_string());
    Trap::lane(TrapKind::OutOfBounds, l as u32, format!("{head} {why}"))
}

/// `n byte` or `n bytes`.
fn bytes(n: u64) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

fn explain(map: &MemMap, space: &str, a: u64, size: u64) -> String {
    let window = if space == "generic" { classify(a) } else { Window::Global };
    let past = |what: &str, off: u64, len: u64| {
        if off >= len {
            format!("is {} past the end of {what} ({})", bytes(off - len), bytes(len))
        } else {
            format!("runs {} past the end of {what} ({})", bytes(off + size - len), bytes(len))
        }
    };
    match (space, window) {
        ("shared" | "shared::cta", _) | (_, Window::Shared(_)) => {
            let off = if let Window::Shared(o) = window { o } else { a };
            let s = past("the CTA's shared memory", off, map.shared_bytes);
            if map.dynamic_shared_bytes == 0 {
                s
            } else {
                format!("{s}, {} of them dynamic (--shared)", map.dynamic_shared_bytes)
            }
        }
        ("kernel param", _) | (_, Window::Param(_)) => {
            let off = if let Window::Param(o) = window { o } else { a };
            if off + size <= map.kparam_bytes {
                "is in the kernel's parameter window, which is read-only".to_string()
            } else {
                past("the kernel's parameter window", off, map.kparam_bytes)
            }
        }
        ("local" | "param", _) | (_, Window::Local(_)) => "is outside the thread's local frames".to_string(),
        ("const", _) | (_, Window::Const(_)) => "is outside the module's `.const` bank".to_string(),
        _ => explain_global(&map.global, a, size),
    }
}

/// Where `[a, a+size)` lies against `global` ((base, size, what), sorted):
/// how far past the end of the nearest allocation, or before its start.
pub(crate) fn explain_global<W: std::fmt::Display>(global: &[(u64, u64, W)], a: u64, size: u64) -> String {
    if a < 4096 {
        return format!("is outside every allocation (a null pointer{})", if a == 0 { String::new() } else { format!(" plus {a}") });
    }
    let i = global.partition_point(|g| g.0 <= a);
    let below = i.checked_sub(1).and_then(|j| global.get(j));
    let above = global.get(i);
    let d_below = below.map(|g| a.saturating_sub(g.0 + g.1));
    let d_above = above.map(|g| g.0 - a);
    match (below, above) {
        (Some(g), _) if a < g.0 + g.1 => format!("runs {} past the end of {} ({} at {:#x})", bytes(a + size - (g.0 + g.1)), g.2, bytes(g.1), g.0),
        (Some(g), _) if d_above.is_none_or(|d| d_below.unwrap_or(u64::MAX) <= d) => {
            format!("is {} past the end of {} ({} at {:#x})", bytes(a - (g.0 + g.1)), g.2, bytes(g.1), g.0)
        }
        (_, Some(g)) => format!("is {} before the start of {} ({} at {:#x})", bytes(g.0 - a), g.2, bytes(g.1), g.0),
        _ => "is outside every allocation (there are none)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    //! The word-wise host copies against a byte-at-a-time model.
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn placed_allocations_keep_the_list_sorted_and_disjoint() {
        let mut g = GlobalMemory::new();
        let a = g.alloc(100, u64::MAX).unwrap();
        // A host-like address far above the bump pointer, and one the bump
        // pointer will reach next.
        let high = 0x7f12_3456_7000u64;
        assert_eq!(g.alloc_at(high, 4096, u64::MAX), Ok(()));
        let next = (a + 100 + 256 + 255) & !255;
        assert_eq!(g.alloc_at(next, 64, u64::MAX), Ok(()));
        // Overlaps, at either edge or inside.
        assert_eq!(g.alloc_at(high - 8, 16, u64::MAX), Err(PlaceError::Overlap { base: high, size: 4096 }));
        assert_eq!(g.alloc_at(high + 4088, 100, u64::MAX), Err(PlaceError::Overlap { base: high, size: 4096 }));
        assert_eq!(g.alloc_at(a + 8, 8, u64::MAX), Err(PlaceError::Overlap { base: a, size: 100 }));
        // Adjacent is fine.
        assert_eq!(g.alloc_at(high + 4096, 8, u64::MAX), Ok(()));
        assert_eq!(g.alloc_at(high - 8, 8, u64::MAX), Ok(()));
        // The bump allocator steps over the placed block at `next`.
        let b = g.alloc(32, u64::MAX).unwrap();
        assert!(b >= next + 64 + 256, "{b:#x} lands on or right after the placed block at {next:#x}");
        assert!(g.allocs.windows(2).all(|w| w[0].base + w[0].size <= w[1].base), "sorted and disjoint");
        // Errors.
        assert_eq!(g.alloc_at(high + 0x10_0001, 8, u64::MAX), Err(PlaceError::Misaligned { addr: high + 0x10_0001 }));
        assert_eq!(g.alloc_at(high + 0x10_0000, 0, u64::MAX), Err(PlaceError::Empty));
        assert!(matches!(g.alloc_at(0, 8, u64::MAX), Err(PlaceError::Reserved { .. })));
        assert!(matches!(g.alloc_at(SHARED_WINDOW - 8, 16, u64::MAX), Err(PlaceError::Reserved { .. })));
        assert!(matches!(g.alloc_at(FUNC_BASE, 8, u64::MAX), Err(PlaceError::Reserved { .. })));
        assert!(matches!(g.alloc_at(u64::MAX - 7, 16, u64::MAX), Err(PlaceError::Reserved { .. })));
        assert_eq!(g.alloc_at(high + 0x10_0000, 64, g.total + 63), Err(PlaceError::OutOfMemory { size: 64 }));
        // Freed, the same address can be placed again; bytes round-trip.
        let before = g.total;
        assert!(g.free(high));
        assert_eq!(g.total, before - 4096);
        assert_eq!(g.alloc_at(high, 4096, u64::MAX), Ok(()));
        assert!(g.write_bytes(high + 3, b"mapped"));
        let mut out = [0u8; 6];
        assert!(g.read_into(high + 3, &mut out));
        assert_eq!(&out, b"mapped");
        assert!(!g.read_into(high + 4093, &mut out), "runs past the end");
    }

    proptest! {
        #[test]
        fn host_copies_equal_bytewise(size in 1u64..80, off in 0u64..80, data in proptest::collection::vec(any::<u8>(), 0..80), fill in any::<u8>()) {
            let mut g = GlobalMemory::new();
            let base = g.alloc(size, u64::MAX).unwrap();
            let mut model = vec![fill; size as usize];
            prop_assert!(g.write_bytes(base, &model));
            let fits = off + data.len() as u64 <= size;
            prop_assert_eq!(g.write_bytes(base + off, &data), fits);
            if fits {
                model[off as usize..off as usize + data.len()].copy_from_slice(&data);
            }
            let a = &g.allocs[0];
            let bytewise: Vec<u8> = (0..size).map(|k| a.read(k, 1) as u8).collect();
            prop_assert_eq!(&bytewise, &model);
            for start in 0..size {
                for len in [0, 1, 7, 8, 9, 17, size - start] {
                    if start + len <= size {
                        let got = g.read_bytes(base + start, len).unwrap();
                        prop_assert_eq!(&got[..], &model[start as usize..(start + len) as usize]);
                    }
                }
            }
            prop_assert!(g.read_bytes(base + size, 1).is_none());
        }
    }
}
