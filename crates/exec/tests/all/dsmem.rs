//! Distributed shared memory (`tests/isa/dsmem.ptx`): clusters whose CTAs
//! read, write and atomically update each other's shared memory through
//! `mapa`, `.shared::cluster` and generic addresses, compared with what the
//! PTX ISA manual defines (5.1.6, 9.7.9.16-18), computed here from the
//! cluster geometry alone; and the traps for ranks and offsets outside the
//! cluster's shared memories.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling, TrapKind};
use std::path::PathBuf;

const THREADS: u32 = 64;

fn text() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa/dsmem.ptx");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Runs `kernel` on `ctas` CTAs in clusters of `n`; returns `per` u32
/// words per thread.
fn run(kernel: &str, ctas: u32, n: u32, per: usize, mode: Scheduling) -> Vec<u32> {
    let mut dev = Device::new();
    let module = dev.load_named("dsmem.ptx", &text()).unwrap_or_else(|e| panic!("{e}"));
    let total = (ctas * THREADS) as usize * per;
    let out = dev.alloc(total as u64 * 4).unwrap();
    let mut cfg = LaunchConfig::new(ctas, THREADS);
    cfg.cluster = Some(Dim3::new(n, 1, 1));
    cfg.scheduling = mode;
    dev.launch(&module, kernel, &cfg, &[KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("{kernel} ({ctas} CTAs, clusters of {n}, {mode:?}): {e}"));
    words(&dev.read(out, total as u64 * 4).unwrap())
}

/// The value thread `t` of the CTA of rank `r` in cluster `c` stores.
fn v(c: u32, r: u32, t: u32) -> u32 {
    c * 100_000 + r * 1000 + t + 1
}

/// Each CTA reads its neighbour's array (rank r+1 mod n) and finds in its
/// own inbox what rank r-1 mod n stored there: the ring.
#[test]
fn ring_through_mapa() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        for (ctas, n) in [(4u32, 1u32), (4, 2), (8, 4), (2, 2)] {
            let out = run("ring", ctas, n, 11, mode);
            for b in 0..ctas {
                let (c, r) = (b / n, b % n);
                let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
                // Own rank: mapa gives a shared::cta address of this CTA
                // (isspacep.shared::cta/.shared true); another rank's is
                // only in the shared::cluster window.
                let mapped = if next == r { 0b0111 } else { 0b0001 };
                for t in 0..THREADS {
                    let g = (b * THREADS + t) as usize;
                    let w = &out[11 * g..11 * g + 11];
                    // inbox[3] of rank next holds what rank next-1 = r stored
                    // from its thread 3.
                    let want = [v(c, next, t), v(c, next, t), v(c, prev, t), next, next, mapped, 0b0111, n, v(c, r, 3), r, 0b11];
                    assert_eq!(w, &want, "{mode:?}, {ctas} CTAs in clusters of {n}: CTA {b} thread {t}");
                }
            }
        }
    }
}

/// Every thread of a cluster adds 1 to rank 0's counter with
/// `atom.shared::cluster.add` (the old values are then 0..n*64 once each),
/// then, after a cluster barrier, 1 with `red` (through `.shared::cluster` and generic addresses):
/// every thread reads 2*n*64 back.
#[test]
fn atomics_into_rank_zero() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        for (ctas, n) in [(2u32, 2u32), (8, 4), (3, 1)] {
            let out = run("count", ctas, n, 2, mode);
            for c in 0..ctas / n {
                let threads = (n * THREADS) as usize;
                let base = c as usize * threads;
                let mut olds: Vec<u32> = (0..threads).map(|i| out[2 * (base + i)]).collect();
                olds.sort_unstable();
                assert_eq!(olds, (0..threads as u32).collect::<Vec<_>>(), "{mode:?}, clusters of {n}: cluster {c}'s atom old values");
                for i in 0..threads {
                    assert_eq!(out[2 * (base + i) + 1], 2 * threads as u32, "{mode:?}, clusters of {n}: cluster {c} thread {i}'s final count");
                }
            }
        }
    }
}

fn bad(mode: u32) -> ptxsim_exec::RunError {
    let mut dev = Device::new();
    let module = dev.load_named("dsmem.ptx", &text()).unwrap();
    let mut cfg = LaunchConfig::new(2u32, THREADS);
    cfg.cluster = Some(Dim3::new(2, 1, 1));
    dev.launch(&module, "bad", &cfg, &[KernelArg::U32(mode)]).unwrap_err()
}

/// A rank outside the cluster, an offset past the end of the target CTA's
/// shared memory (two 64-word arrays and a word: under 4,096 bytes) and a generic
/// address outside the shared window are located `out_of_bounds` traps
/// naming the rank and the memory.
#[test]
fn bad_ranks_and_offsets_trap() {
    let e = bad(0);
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    assert!(e.message.contains("`mapa`: CTA rank 2 is outside the cluster of 2 CTAs"), "{e}");
    assert!(e.line.is_some(), "{e}");
    let e = bad(1);
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    assert!(e.message.contains("outside the shared memory of CTA rank 1 of the cluster"), "{e}");
    assert!(e.message.contains("offset 0x1000"), "{e}");
    let e = bad(2);
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    assert!(e.message.contains("`getctarank`: address 0x1000 is not in shared memory"), "{e}");
}
