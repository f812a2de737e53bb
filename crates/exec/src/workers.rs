//! The threads a launch's workers run on, and what each thread keeps
//! between launches.
//!
//! Programs that launch through the driver library (CuPy, Numba, Triton,
//! nvcc-built code) launch many small kernels. Starting threads for each
//! launch, and building every worker's CTAs (warps, register files, shared
//! memory) anew, cost more than such a kernel's whole run. So the worker
//! threads of a launch come from a pool that lives for the process (one
//! per worker count, at most [`MAX_POOLS`]; rayon's), and each thread keeps
//! the CTAs its last launch filled ([`take_ctas`], [`keep_ctas`]) when
//! they are small ([`KEEP_BYTES`]).
//!
//! A pool serves one launch at a time: a launch that finds it busy (another
//! host thread launching at the same time) starts its own threads, as every
//! launch did before, so that no launch's workers wait behind another's.
//!
//! What a launch computes does not depend on either: a CTA is refilled as
//! a fresh one before it runs (`launch.rs`'s `fill_cta`), whichever launch
//! built it, and the workers take units of work in the same order from the
//! same counter as before.

use crate::cta::Cta;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Whether launches keep their threads and CTAs (on unless switched off).
static KEEP: AtomicBool = AtomicBool::new(true);

/// Switches the keeping of worker threads and CTAs between launches on or
/// off for the whole process (off: every launch starts its threads and
/// builds its CTAs, as `cargo bench -p ptxsim-exec --bench launches`
/// compares). What launches compute is the same either way.
pub fn keep_workers(on: bool) {
    KEEP.store(on, Ordering::Relaxed);
}

/// At most this many pools (distinct worker counts) live at once; a launch
/// with yet another count starts its threads itself.
const MAX_POOLS: usize = 4;

/// A thread keeps the CTAs of its last launch when the launch's estimate
/// of one worker's CTAs was at most this many bytes.
pub(crate) const KEEP_BYTES: u64 = 64 << 20;

thread_local! {
    /// The CTAs this thread's last launch filled, for its next.
    static CTAS: RefCell<Vec<Cta>> = const { RefCell::new(Vec::new()) };
}

/// The CTAs this thread kept from its last launch (empty if none).
pub(crate) fn take_ctas() -> Vec<Cta> {
    if !KEEP.load(Ordering::Relaxed) {
        return Vec::new();
    }
    CTAS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// Keeps `ctas` for this thread's next launch.
pub(crate) fn keep_ctas(ctas: Vec<Cta>) {
    if !KEEP.load(Ordering::Relaxed) {
        return;
    }
    CTAS.with(|c| *c.borrow_mut() = ctas);
}

/// The pools, each with its worker count and the process it was made in
/// (a child made by `fork` has none of its parent's threads).
static POOLS: Mutex<Vec<(usize, u32, Arc<Pool>)>> = Mutex::new(Vec::new());

/// A pool and the lock its launch holds.
struct Pool {
    threads: rayon::ThreadPool,
    busy: Mutex<()>,
}

/// The pool of `n` threads (a launch's workers less the calling thread), made on first use; `None` when there are
/// already [`MAX_POOLS`] of other sizes or its threads cannot be started.
fn pool(n: usize) -> Option<Arc<Pool>> {
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if pools.iter().any(|p| p.1 != pid) {
        // Made before a fork: those threads are not in this process. (The
        // pools are forgotten, not dropped: dropping one signals threads
        // that do not exist here.)
        for p in pools.drain(..) {
            std::mem::forget(p);
        }
    }
    if let Some(p) = pools.iter().find(|p| p.0 == n) {
        return Some(p.2.clone());
    }
    if pools.len() >= MAX_POOLS {
        return None;
    }
    let threads = rayon::ThreadPoolBuilder::new().num_threads(n).thread_name(|i| format!("ptxsim-worker-{i}")).build().ok()?;
    let p = Arc::new(Pool { threads, busy: Mutex::new(()) });
    pools.push((n, pid, p.clone()));
    Some(p)
}

/// Runs `work` once on each of `workers` threads and returns the results:
/// on the calling thread alone for one worker, else on the calling thread
/// and `workers - 1` threads of a pool when it is free, else on threads started for this call (the
/// calling thread one of them; a thread that cannot be started leaves its
/// share to the others).
pub(crate) fn run<T: Send, F: Fn() -> T + Sync>(workers: usize, work: F) -> Vec<T> {
    if workers <= 1 {
        return vec![work()];
    }
    if let Some(p) = KEEP.load(Ordering::Relaxed).then(|| pool(workers - 1)).flatten() {
        if let Ok(_held) = p.busy.try_lock() {
            let out = Mutex::new(Vec::with_capacity(workers));
            p.threads.in_place_scope(|s| {
                for _ in 1..workers {
                    s.spawn(|_| {
                        let t = work();
                        out.lock().unwrap_or_else(|e| e.into_inner()).push(t);
                    });
                }
                let t = work();
                out.lock().unwrap_or_else(|e| e.into_inner()).push(t);
            });
            return out.into_inner().unwrap_or_else(|e| e.into_inner());
        }
    }
    std::thread::scope(|s| {
        let work = &work;
        let mut handles = Vec::with_capacity(workers - 1);
        for i in 1..workers {
            match std::thread::Builder::new().name(format!("ptxsim-worker-{i}")).spawn_scoped(s, work) {
                Ok(h) => handles.push(h),
                Err(_) => break,
            }
        }
        let mut out = vec![work()];
        for h in handles {
            match h.join() {
                Ok(t) => out.push(t),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        out
    })
}
