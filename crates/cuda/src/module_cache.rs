//! The decoded-module cache: loading PTX text that was loaded before (by
//! `cuModuleLoadData`, `cuLibraryLoadData` or a linked image) costs a hash,
//! a lookup and a byte compare instead of parsing, checking and decoding.
//!
//! Invariants:
//! - An entry is keyed by a hash of the text and the device settings that
//!   change what a load produces (the per-thread local memory limit, which
//!   can refuse a load); a hit also compares the whole text, so a hash
//!   collision is a miss, never a wrong program.
//! - Only modules without `.global` variables are cached. A `.global`
//!   variable is per load (two loads of one text get distinct variables, as
//!   on a GPU), and its address is part of the decoded program, so such a
//!   module is decoded again on every load. `.const` data is read-only and
//!   travels with the decoded module, so sharing it is safe.
//! - Failed loads are not cached (their diagnostics are rendered again).
//! - Bounded: at most [`MAX_ENTRIES`] entries and [`MAX_BYTES`] of
//!   estimated size (the text plus the decoded instruction arrays); the
//!   least recently used entry goes first. An entry larger than the byte
//!   bound is not cached.

use ptxsim_exec::Module;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex};

/// The most modules kept.
pub const MAX_ENTRIES: usize = 64;
/// The most estimated bytes kept.
pub const MAX_BYTES: usize = 256 << 20;

/// What a load depends on besides its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    /// `Limits::local_bytes_per_thread`: a frame above it refuses the load.
    pub local_bytes_per_thread: u32,
}

struct Entry {
    hash: u64,
    settings: Settings,
    text: Box<str>,
    module: Module,
    bytes: usize,
    used: u64,
}

/// The cache; the process has one ([`CACHE`]).
#[derive(Default)]
pub struct Cache {
    entries: Vec<Entry>,
    bytes: usize,
    clock: u64,
    hits: u64,
    misses: u64,
}

/// The process's cache, behind its own lock (taken after the registries
/// and the device, and never held while decoding).
pub static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::default()));

fn hash_of(text: &str, settings: Settings) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    settings.hash(&mut h);
    h.finish()
}

/// The estimated size of a cached module: its text and its instructions.
fn estimate(text: &str, module: &Module) -> usize {
    let code: usize = module
        .program
        .functions
        .iter()
        .map(|f| f.code.len() * std::mem::size_of::<ptxsim_exec::program::Instr>() + f.reconv.len() * 4 + f.name.len())
        .sum();
    text.len() + code + module.program.const_init.len()
}

impl Cache {
    /// The decoded module of `text` under `settings`, if cached.
    pub fn get(&mut self, text: &str, settings: Settings) -> Option<Module> {
        let hash = hash_of(text, settings);
        self.clock += 1;
        let clock = self.clock;
        match self.entries.iter_mut().find(|e| e.hash == hash && e.settings == settings && *e.text == *text) {
            Some(e) => {
                e.used = clock;
                self.hits += 1;
                Some(e.module.clone())
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// Keeps `module`, decoded from `text` under `settings`, unless it has
    /// `.global` variables or is larger than the whole cache; evicts the
    /// least recently used entries to stay within the bounds. Returns
    /// whether it was kept.
    pub fn insert(&mut self, text: &str, settings: Settings, module: &Module) -> bool {
        if !module.globals.is_empty() {
            return false;
        }
        let bytes = estimate(text, module);
        if bytes > MAX_BYTES {
            return false;
        }
        let hash = hash_of(text, settings);
        if self.entries.iter().any(|e| e.hash == hash && e.settings == settings && *e.text == *text) {
            return true;
        }
        while !self.entries.is_empty() && (self.entries.len() >= MAX_ENTRIES || self.bytes + bytes > MAX_BYTES) {
            let oldest = self.entries.iter().enumerate().min_by_key(|(_, e)| e.used).map(|(i, _)| i).unwrap_or(0);
            let e = self.entries.swap_remove(oldest);
            self.bytes -= e.bytes;
        }
        self.clock += 1;
        self.entries.push(Entry { hash, settings, text: text.into(), module: module.clone(), bytes, used: self.clock });
        self.bytes += bytes;
        true
    }

    /// Entries kept, their estimated bytes, hits and misses so far.
    pub fn stats(&self) -> (usize, usize, u64, u64) {
        (self.entries.len(), self.bytes, self.hits, self.misses)
    }
}

/// The process's cache, locked (a poisoned lock is taken over: every
/// update leaves the cache consistent before anything can panic).
pub fn lock() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The cache's entries, estimated bytes, hits and misses (for the tests
/// and the benchmark).
pub fn stats() -> (usize, usize, u64, u64) {
    lock().stats()
}
