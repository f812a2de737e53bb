//! What a launch prints: [`Printed`], the output of `printf` and failed
//! assertions, and [`Stdout`], the collector that keeps each cluster's
//! output apart and merges it in cluster order under a byte cap. Data only:
//! the formatting is `printf.rs`'s, the calls `datapath/sys.rs`'s.

use std::sync::Mutex;

/// Default cap on the bytes a launch prints: CUDA's default printf FIFO
/// (`cudaLimitPrintfFifoSize`, 1 MiB).
pub const DEFAULT_STDOUT_BYTES: u64 = 1 << 20;

/// What a launch printed: `printf` output and the messages of failed
/// assertions, in order (see the README, "printf and assert").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Printed {
    /// The bytes, as the device formatted them (not necessarily UTF-8).
    pub bytes: Vec<u8>,
    /// Bytes not kept because the cap was reached (0: nothing was lost).
    pub dropped: u64,
}

impl Printed {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// The collector of a launch: each cluster's output apart (a cluster runs on
/// one worker, so its calls arrive in execution order), merged in cluster
/// order at the end. What is kept is the first `cap` bytes of that merged
/// order, whatever order the workers' calls arrive in, so a capped run prints
/// the same bytes with any worker count.
///
/// Invariant: the kept bytes are the first `min(cap, total)` bytes, in cluster
/// order, of everything pushed so far. A push that lands after the first
/// dropped byte is dropped whole; one that lands before it is kept, and the
/// bytes it displaces past the cap are cut from the end (highest clusters
/// first).
#[derive(Debug)]
pub struct Stdout {
    cap: u64,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    kept: u64,
    dropped: u64,
    /// The lowest cluster that lost bytes to the cap: everything a cluster at
    /// or above it prints lies past the kept prefix.
    cut_from: Option<u64>,
    /// The lowest cluster that failed (`u64::MAX`: none): what clusters
    /// above it print is not output of the launch.
    stop: u64,
    /// One entry per cluster that printed, sorted by cluster: its index,
    /// its kept bytes, and how many of its bytes the cap dropped (entries
    /// for clusters that lost everything are kept while there are fewer
    /// than [`MAX_ENTRIES`], so that [`Stdout::stop_after`] can take their
    /// losses back out of the count).
    chunks: Vec<Chunk>,
}

#[derive(Debug)]
struct Chunk {
    cluster: u64,
    bytes: Vec<u8>,
    lost: u64,
}

/// Most entries kept for clusters whose output the cap dropped whole.
const MAX_ENTRIES: usize = 1 << 16;

impl Stdout {
    pub fn new(cap: u64) -> Stdout {
        Stdout { cap, inner: Mutex::new(Inner { stop: u64::MAX, ..Inner::default() }) }
    }

    /// The most bytes kept.
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Appends what one call printed in cluster `cluster`.
    pub(crate) fn push(&self, cluster: u64, bytes: &[u8]) {
        let mut g = match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if bytes.is_empty() || cluster > g.stop {
            return;
        }
        let n = bytes.len() as u64;
        let found = g.chunks.binary_search_by_key(&cluster, |c| c.cluster);
        if g.cut_from.is_some_and(|c| cluster >= c) {
            g.dropped += n;
            match found {
                Ok(i) => g.chunks[i].lost += n,
                Err(i) if g.chunks.len() < MAX_ENTRIES => g.chunks.insert(i, Chunk { cluster, bytes: Vec::new(), lost: n }),
                Err(_) => {}
            }
            return;
        }
        let at = match found {
            Ok(i) => i,
            Err(i) => {
                g.chunks.insert(i, Chunk { cluster, bytes: Vec::new(), lost: 0 });
                i
            }
        };
        g.chunks[at].bytes.extend_from_slice(bytes);
        g.kept += n;
        // Cut what now lies past the cap, from the highest cluster down.
        let mut i = g.chunks.len();
        while g.kept > self.cap && i > 0 {
            i -= 1;
            let over = g.kept - self.cap;
            let last = &mut g.chunks[i];
            let c = last.cluster;
            let n = over.min(last.bytes.len() as u64);
            if n == 0 {
                continue;
            }
            let keep = last.bytes.len() - n as usize;
            last.bytes.truncate(keep);
            last.lost += n;
            g.kept -= n;
            g.dropped += n;
            g.cut_from = Some(g.cut_from.map_or(c, |f| f.min(c)));
        }
    }

    /// Cluster `k` failed: the launch's output is what the clusters up to
    /// `k` printed (cluster `k`'s up to its trap), the output a single
    /// worker produces, which runs the clusters in order and starts none
    /// after a failure. What clusters above `k` printed (they ran beside it
    /// on other workers) is discarded, and their losses to the cap no
    /// longer count.
    pub(crate) fn stop_after(&self, k: u64) {
        let mut g = match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if k >= g.stop {
            return;
        }
        g.stop = k;
        let from = g.chunks.partition_point(|c| c.cluster <= k);
        let gone: Vec<Chunk> = g.chunks.drain(from..).collect();
        for c in gone {
            g.kept -= c.bytes.len() as u64;
            g.dropped -= c.lost;
        }
        if g.cut_from.is_some_and(|c| c > k) {
            // Nothing at or below `k` lost bytes: they all fit again.
            g.cut_from = None;
        }
    }

    /// The output in cluster order.
    pub fn take(&self) -> Printed {
        let mut g = match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let chunks = std::mem::take(&mut g.chunks);
        let mut bytes = Vec::with_capacity(g.kept as usize);
        for c in chunks {
            bytes.extend_from_slice(&c.bytes);
        }
        Printed { bytes, dropped: g.dropped }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_keeps_cluster_order_and_the_cap() {
        let s = Stdout::new(10);
        s.push(2, b"cc");
        s.push(0, b"aaaa");
        s.push(1, b"bb");
        s.push(0, b"AAAA");
        s.push(3, b"x");
        let p = s.take();
        // Everything in cluster order is "aaaaAAAA" "bb" "cc" "x": the first 10 bytes are kept.
        assert_eq!(p.bytes, b"aaaaAAAAbb");
        assert_eq!(p.dropped, 3);
    }

    /// After cluster `k` fails, the output is that of clusters up to `k`
    /// alone, capped, and the losses of the clusters above no longer count:
    /// the same as if they had never printed.
    #[test]
    fn stop_after_keeps_the_clusters_up_to_the_failing_one() {
        let s = Stdout::new(6);
        s.push(3, b"dddd");
        s.push(0, b"aa");
        s.push(1, b"bbb");
        s.push(2, b"cc");
        s.stop_after(1);
        s.push(2, b"late");
        let p = s.take();
        assert_eq!(p.bytes, b"aabbb");
        assert_eq!(p.dropped, 0);
        let s = Stdout::new(4);
        s.push(2, b"cc");
        s.push(0, b"aa");
        s.push(1, b"bbb");
        s.stop_after(1);
        let p = s.take();
        assert_eq!(p.bytes, b"aabb");
        assert_eq!(p.dropped, 1);
    }

    /// The kept bytes are the first `cap` bytes in cluster order for every
    /// arrival order of the clusters' calls (each cluster's own calls in
    /// order), as with any number of workers.
    #[test]
    fn the_capped_output_does_not_depend_on_arrival_order() {
        let calls: [(u64, &[u8]); 6] = [(0, b"a0-"), (0, b"a1-"), (1, b"b0-"), (2, b"c0-"), (2, b"c1-"), (3, b"d0-")];
        let whole: Vec<u8> = calls.iter().flat_map(|c| c.1.iter().copied()).collect();
        for cap in [0u64, 1, 4, 7, 9, 12, 17, 18, 40] {
            let want = &whole[..(cap as usize).min(whole.len())];
            // Every interleaving that keeps each cluster's calls in order: all
            // permutations of the six calls, filtered.
            let mut idx = [0usize, 1, 2, 3, 4, 5];
            let mut seen = 0;
            loop {
                let ordered = (0..6).all(|i| (0..6).all(|j| !(idx[i] > idx[j] && i < j && calls[idx[i]].0 == calls[idx[j]].0)));
                if ordered {
                    seen += 1;
                    let s = Stdout::new(cap);
                    for &k in &idx {
                        s.push(calls[k].0, calls[k].1);
                    }
                    let p = s.take();
                    assert_eq!(p.bytes, want, "cap {cap}, order {idx:?}");
                    assert_eq!(p.dropped, (whole.len() - want.len()) as u64, "cap {cap}, order {idx:?}");
                }
                // next permutation
                let Some(i) = (0..5).rev().find(|&i| idx[i] < idx[i + 1]) else { break };
                let j = (i + 1..6).rev().find(|&j| idx[j] > idx[i]).unwrap_or(i + 1);
                idx.swap(i, j);
                idx[i + 1..].reverse();
            }
            assert_eq!(seen, 720 / 4, "interleavings of 2+1+2+1 ordered calls");
        }
    }
}
