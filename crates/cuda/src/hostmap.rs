//! Host memory that kernels dereference: the blocks of `cuMemHostAlloc`,
//! `cuMemAllocHost`, `cuMemAllocManaged` and `cuMemHostRegister`, mapped
//! into the engine's global address space at the host's own address (the
//! device pointer of such a block is its host pointer).
//!
//! Owns: the mapped blocks ([`BLOCKS`]), the anonymous mappings that back
//! allocated blocks (`mmap`, so their addresses are the kernel's choice and
//! cannot be addresses the engine hands out; a placement that collides
//! anyway is retried at another address), and the copies that keep the
//! two views of a block equal.
//!
//! The engine keeps its own copy of each block (an allocation placed with
//! `Device::alloc_at` at the same address). The host's bytes are the
//! block's contents between launches: [`around_launch`] copies every block
//! into the engine before a launch and back after it (copy-in/copy-out at
//! launch boundaries), comparing first, so pages neither side changed are
//! neither written nor made resident. Only what the launch changed goes
//! back (granules of 256 bytes whose engine bytes hash differently than at
//! copy-in): host threads may write a block while a kernel runs. Host copies and memsets that reach a
//! block act on the host's bytes ([`with_blocks`]).
//!
//! Also the `.managed` variables of loaded modules ([`adopt`]): the engine
//! placed them when the module loaded, so the host side is made to match:
//! the pages around the variable are mapped at the same addresses in the
//! process (`MAP_FIXED_NOREPLACE`: the engine's addresses lie in a range
//! the process does not use), and the variable becomes a block like the
//! others.
//!
//! Invariants:
//! - Lock order: `STATE` before [`BLOCKS`] before the engine device. A
//!   launch with mapped blocks holds [`BLOCKS`] from its copy-in to its
//!   copy-out, so launches that see host blocks run one at a time, and a
//!   free or a host copy of a block waits for the launch in progress.
//! - Since launches run to completion inside the launch call, the host's
//!   view and the kernel's view agree at every point a CUDA program may
//!   look (after the launch returns, a synchronize, an event).
//! - A block registered read-only is copied in and never out (a GPU faults
//!   on a kernel's write to it; here the write is not seen by the host).

use crate::state;
use crate::types::*;
use ptxsim_exec::{Device, PlaceError};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

/// A mapped block: the host range `[addr, addr+size)` (the key is `addr`)
/// and the base of the engine allocation holding it (`addr` rounded down
/// to 8 bytes; its end is rounded up to 8, so every naturally aligned
/// access stays within one engine word).
#[derive(Debug, Clone, Copy)]
struct Block {
    size: u64,
    base: u64,
    copy_out: bool,
}

/// The mapped blocks, by host address.
static BLOCKS: Mutex<BTreeMap<u64, Block>> = Mutex::new(BTreeMap::new());

fn blocks() -> MutexGuard<'static, BTreeMap<u64, Block>> {
    BLOCKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Bytes compared and copied at a time.
const CHUNK: usize = 64 << 10;

/// Tries on a fresh mapping whose address the engine cannot take.
const MAP_TRIES: usize = 16;

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// The length of the mapping that backs a block of `size` bytes.
fn map_len(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(page())
}

/// Places host range `[addr, addr+size)` in the engine at the same address.
fn place(map: &mut BTreeMap<u64, Block>, addr: u64, size: u64, copy_out: bool) -> Result<(), PlaceError> {
    let base = addr & !7;
    let end = addr.checked_add(size).and_then(|e| e.checked_next_multiple_of(8)).ok_or(PlaceError::Reserved { addr, size })?;
    state::device_write().alloc_at(base, end - base)?;
    map.insert(addr, Block { size, base, copy_out });
    Ok(())
}

/// Allocates a zeroed, page-aligned host block of `size` bytes from a fresh
/// anonymous mapping and maps it into the engine; returns its address.
pub fn map_new(size: usize) -> Result<u64, CUresult> {
    let len = map_len(size).ok_or(CUDA_ERROR_OUT_OF_MEMORY)?;
    if size as u64 > state::device_read().limits.global_cap() {
        return Err(CUDA_ERROR_OUT_OF_MEMORY);
    }
    let mut map = blocks();
    let mut refused = Vec::new();
    let mut result = Err(CUDA_ERROR_OUT_OF_MEMORY);
    for _ in 0..MAP_TRIES {
        // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        if p == libc::MAP_FAILED {
            break;
        }
        match place(&mut map, p as u64, size as u64, true) {
            Ok(()) => {
                result = Ok(p as u64);
                break;
            }
            // Keep the refused mapping until a later one succeeds, so the
            // next mmap returns another address.
            Err(PlaceError::Overlap { .. } | PlaceError::Reserved { .. }) => refused.push(p),
            Err(_) => {
                // SAFETY: the mapping just made, unused.
                unsafe { libc::munmap(p, len) };
                break;
            }
        }
    }
    for p in refused {
        // SAFETY: mappings made above, never handed out.
        unsafe { libc::munmap(p, len) };
    }
    result
}

/// Unmaps a block of [`map_new`] from the engine and gives its memory back.
pub fn release(addr: u64, size: u64) {
    let mut map = blocks();
    if let Some(b) = map.remove(&addr) {
        let _ = state::device_write().free(b.base);
        if let Some(len) = map_len(size as usize) {
            // SAFETY: the block's own mapping (made by `map_new` with this
            // length), which has just left every registry.
            unsafe { libc::munmap(addr as *mut libc::c_void, len) };
        }
    }
}

/// Maps the caller's memory `[addr, addr+size)` into the engine
/// (`cuMemHostRegister`); its bytes are copied out after launches unless
/// `read_only`.
pub fn register(addr: u64, size: u64, read_only: bool) -> Result<(), PlaceError> {
    place(&mut blocks(), addr, size, !read_only)
}

/// Unmaps a registered range from the engine (its memory stays the
/// caller's).
pub fn unregister(addr: u64) {
    let mut map = blocks();
    if let Some(b) = map.remove(&addr) {
        let _ = state::device_write().free(b.base);
    }
}

/// Pages mapped for adopted module variables (kept for the process: the
/// engine never reuses a module variable's address).
static ADOPTED_PAGES: Mutex<BTreeMap<u64, ()>> = Mutex::new(BTreeMap::new());

/// Adopted variables' addresses (checked by host copies, which must act on
/// the host's bytes of these ranges).
static ADOPTED: Mutex<BTreeMap<u64, u64>> = Mutex::new(BTreeMap::new());

/// Makes the module variable at engine range `[addr, addr+size)` host
/// memory at the same address as well (a `__managed__` variable the host
/// dereferences), its current bytes copied to the host side.
pub fn adopt(addr: u64, size: u64) -> Result<(), CUresult> {
    let pg = page() as u64;
    let start = addr & !(pg - 1);
    let end = addr.checked_add(size.max(1)).and_then(|e| e.checked_next_multiple_of(pg)).ok_or(CUDA_ERROR_INVALID_VALUE)?;
    let mut map = blocks();
    {
        let mut pages = ADOPTED_PAGES.lock().unwrap_or_else(|e| e.into_inner());
        let mut p = start;
        while p < end {
            if !pages.contains_key(&p) {
                // SAFETY: a fresh anonymous mapping at an address nothing in
                // the process uses (MAP_FIXED_NOREPLACE refuses otherwise).
                let got = unsafe { libc::mmap(p as *mut libc::c_void, pg as usize, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE, -1, 0) };
                if got as u64 != p {
                    if got != libc::MAP_FAILED {
                        // SAFETY: an old kernel placed it elsewhere; undo.
                        unsafe { libc::munmap(got, pg as usize) };
                    }
                    crate::report::notice_once(&format!(
                        "a module's managed variable at {addr:#x} cannot be made host memory: the page {p:#x} is already mapped in this process (the load fails with CUDA_ERROR_OUT_OF_MEMORY)"
                    ));
                    return Err(CUDA_ERROR_OUT_OF_MEMORY);
                }
                pages.insert(p, ());
            }
            p += pg;
        }
    }
    let bytes = state::device_read().read(addr, size).map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
    // SAFETY: the pages covering the range were mapped above.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as usize as *mut u8, bytes.len()) };
    map.insert(addr, Block { size, base: addr & !7, copy_out: true });
    ADOPTED.lock().unwrap_or_else(|e| e.into_inner()).insert(addr, size);
    Ok(())
}

/// Whether `addr` is the base of an adopted module variable.
pub fn adopted(addr: u64) -> bool {
    ADOPTED.lock().unwrap_or_else(|e| e.into_inner()).contains_key(&addr)
}

/// Forgets an adopted variable (its module was unloaded); its engine
/// allocation stays with the engine, its pages with the process.
pub fn unadopt(addr: u64) {
    if ADOPTED.lock().unwrap_or_else(|e| e.into_inner()).remove(&addr).is_some() {
        blocks().remove(&addr);
    }
}

/// Runs `f` (a host copy or memset that reaches a block) while no launch
/// is between its copy-in and its copy-out.
pub fn with_blocks<R>(f: impl FnOnce() -> R) -> R {
    let _map = blocks();
    f()
}

/// Bytes summarised by one hash of a block's contents at copy-in.
const GRANULE: usize = 256;

/// A hash of `b` (at most [`GRANULE`] bytes).
fn granule_hash(b: &[u8]) -> u64 {
    let mut h = b.len() as u64;
    for w in b.chunks(8) {
        let mut x = [0u8; 8];
        x[..w.len()].copy_from_slice(w);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h
}

/// Copies every block into the engine, and returns per block the hash of
/// each [`GRANULE`] of what the engine then holds (the host's bytes).
fn copy_in(dev: &Device, map: &BTreeMap<u64, Block>, buf: &mut [u8]) -> Vec<Vec<u64>> {
    let mut snaps = Vec::with_capacity(map.len());
    for (&addr, b) in map {
        let mut snap = Vec::with_capacity((b.size as usize).div_ceil(GRANULE));
        let mut off = 0u64;
        while off < b.size {
            let n = (b.size - off).min(CHUNK as u64) as usize;
            // SAFETY: the block is live host memory of at least `size`
            // bytes (allocated here, or registered by the caller, who
            // keeps it until `cuMemHostUnregister`).
            let host = unsafe { std::slice::from_raw_parts((addr + off) as usize as *const u8, n) };
            let cur = &mut buf[..n];
            if dev.read_into(addr + off, cur).is_ok() && cur != host {
                let _ = dev.store(addr + off, host);
            }
            snap.extend(host.chunks(GRANULE).map(granule_hash));
            off += n as u64;
        }
        snaps.push(snap);
    }
    snaps
}

/// Copies back to the host what the launch changed in every block (but the
/// read-only ones): the granules whose engine bytes no longer hash as they
/// did at copy-in, and in them the bytes that differ from the host's. A
/// granule the launch left alone is not touched, so what another host
/// thread wrote there during the launch stays (a write-back of every
/// differing byte would undo it: the engine still holds the old bytes).
fn copy_out(dev: &Device, map: &BTreeMap<u64, Block>, snaps: &[Vec<u64>], buf: &mut [u8]) {
    for ((&addr, b), snap) in map.iter().zip(snaps).filter(|((_, b), _)| b.copy_out) {
        let mut off = 0u64;
        while off < b.size {
            let n = (b.size - off).min(CHUNK as u64) as usize;
            let cur = &mut buf[..n];
            if dev.read_into(addr + off, cur).is_ok() {
                let first = off as usize / GRANULE;
                for (g, e) in cur.chunks(GRANULE).enumerate() {
                    if snap.get(first + g) == Some(&granule_hash(e)) {
                        continue;
                    }
                    let at = addr + off + (g * GRANULE) as u64;
                    // SAFETY: as in `copy_in`; the block is writable host
                    // memory (it was not registered read-only), and the
                    // granule lies inside it.
                    let host = unsafe { std::slice::from_raw_parts_mut(at as usize as *mut u8, e.len()) };
                    for (h, &x) in host.iter_mut().zip(e) {
                        if *h != x {
                            *h = x;
                        }
                    }
                }
            }
            off += n as u64;
        }
    }
}

/// Runs launch `f` with every mapped block copied into the engine before
/// and back to the host after it. With no block mapped, runs `f` alone.
pub fn around_launch<R>(f: impl FnOnce() -> R) -> R {
    let map = blocks();
    if map.is_empty() {
        drop(map);
        return f();
    }
    let mut buf = vec![0u8; CHUNK];
    let snaps = copy_in(&state::device_read(), &map, &mut buf);
    let r = f();
    copy_out(&state::device_read(), &map, &snaps, &mut buf);
    r
}
