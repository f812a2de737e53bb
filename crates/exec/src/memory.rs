//! Device memory: the global arena and the address map.
//!
//! Global memory is an arena of bounds-checked allocations behind 64-bit
//! device addresses. Each allocation stores its bytes in `AtomicU64` words so
//! that CTAs running in parallel on several cores can share it with no
//! `unsafe` code: a racy kernel gets an unspecified value (as PTX says), never
//! undefined behaviour in the emulator. Natural alignment is enforced by the
//! engine, so an access of up to 8 bytes never straddles two words.
//!
//! Generic addresses are split into windows: shared, local, const and kernel
//! param spaces each have a 4 GiB window; everything else is global.
//! Function "addresses" are small tagged integers in `FUNC_BASE..`.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// First global allocation address.
pub const GLOBAL_BASE: u64 = 0x0000_1000_0000_0000;
/// Generic windows of the per-CTA / per-thread / module spaces.
pub const SHARED_WINDOW: u64 = 0x0000_7e00_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x0000_7d00_0000_0000;
pub const CONST_WINDOW: u64 = 0x0000_7c00_0000_0000;
pub const PARAM_WINDOW: u64 = 0x0000_7b00_0000_0000;
pub const WINDOW_SIZE: u64 = 1 << 32;
/// Function addresses: `FUNC_BASE + 16 * function index` (fit in 32 bits).
pub const FUNC_BASE: u64 = 0xfc00_0000;
pub const FUNC_STRIDE: u64 = 16;

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
        let w = self.words[(off >> 3) as usize].load(Relaxed);
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
            word.store(v, Relaxed);
            return;
        }
        let sh = (off & 7) * 8;
        let m = ((1u64 << (size * 8)) - 1) << sh;
        let v = (v << sh) & m;
        let mut cur = word.load(Relaxed);
        loop {
            match word.compare_exchange_weak(cur, (cur & !m) | v, Relaxed, Relaxed) {
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
#[derive(Debug, Default)]
pub struct GlobalMemory {
    /// Sorted by base address.
    pub allocs: Vec<Allocation>,
    next: u64,
    pub total: u64,
}

impl GlobalMemory {
    pub fn new() -> GlobalMemory {
        GlobalMemory { allocs: Vec::new(), next: GLOBAL_BASE, total: 0 }
    }

    /// Allocates `size` bytes (zeroed), 256-byte aligned, with a guard gap.
    pub fn alloc(&mut self, size: u64, limit: u64) -> Option<u64> {
        let size = size.max(1);
        let new_total = self.total.checked_add(size)?;
        if new_total > limit {
            return None;
        }
        let words = usize::try_from(size.div_ceil(8)).ok()?;
        let base = self.next;
        let mut v = Vec::new();
        v.try_reserve_exact(words).ok()?;
        v.resize_with(words, || AtomicU64::new(0));
        self.allocs.push(Allocation { base, size, words: v });
        self.next = (base + size + 256 + 255) & !255;
        if self.next >= PARAM_WINDOW {
            return None;
        }
        self.total = new_total;
        Some(base)
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
        for (k, b) in bytes.iter().enumerate() {
            a.write(addr - a.base + k as u64, 1, *b as u64);
        }
        true
    }

    pub fn read_bytes(&self, addr: u64, len: u64) -> Option<Vec<u8>> {
        let i = self.find(addr, len)?;
        let a = &self.allocs[i];
        let off = addr - a.base;
        let mut out = Vec::with_capacity(len as usize);
        for k in 0..len {
            out.push(a.read(off + k, 1) as u8);
        }
        Some(out)
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
