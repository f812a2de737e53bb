//! Every race-free kernel of the corpus gives identical results under
//! `Scheduling::Stack` (a reconvergence stack per warp) and `Scheduling::Its`
//! (independent thread scheduling).
//!
//! Each kernel of `tests/corpus/{nvcc,clang,llvmlite,seeds}/*.ptx` is
//! launched with inputs chosen from its source (`tests/corpus/src/`):
//! [`specs`] gives, per kernel name, the grid, the block and one argument per
//! parameter, so that loops terminate, indices stay in range and every
//! branch of interest is taken by some lanes. Blocks end in partial warps and
//! element counts are not multiples of the block size wherever the kernel
//! allows it; kernels whose full-mask warp primitives (`shfl.sync`,
//! `vote.sync`, `bar.warp.sync` with `0xffffffff`) need whole warps get
//! multiples of 32.
//!
//! Both modes start from identical fresh inputs on a fresh device; every
//! buffer and every byte of the module's `.global` variables is then compared
//! byte for byte, or, when a run traps, the two trap kinds are compared.
//!
//! Inputs are chosen so that the kernels' atomics are order-independent:
//! float atomic additions only add small multiples of 1/4 (exact sums in any
//! order), and compare-and-swap / warp-aggregated slot allocations only have
//! one possible winner. What remains schedule-dependent is listed in
//! [`EXCEPTIONS`] with the reason; kernels on which the engine is known to
//! disagree with itself are in [`KNOWN_ENGINE_BUGS`], checked to still fail
//! the same way.

use ptxsim_exec::{Device, Dim3, LaunchConfig, Scheduling, TrapKind};

/// Warp instructions one launch may execute: far more than any launch here
/// needs, so running out (a `fuel_exhausted` trap) fails the test.
const FUEL: u64 = 20_000_000;

use crate::support::corpus_specs::*;

/// Kernels on which the two modes disagree although the kernel is race-free:
/// engine bugs with a minimal repro (see the comment of each). The test
/// checks that each still differs in the recorded way, so that a fix is
/// noticed and the kernel moved back to the compared set.
/// (corpus file, kernel, the failure message's prefix).
const KNOWN_ENGINE_BUGS: &[(&str, &str, &str)] = &[];

#[derive(Debug, PartialEq)]
enum Outcome {
    /// Every pointer argument's final bytes, then the module's globals;
    /// whether the launch changed any of them; its divergent branches.
    Done {
        bufs: Vec<Vec<u8>>,
        globals: Vec<u8>,
        /// What the kernel printed (`printf`).
        stdout: Vec<u8>,
        wrote: bool,
        divergent: u64,
    },
    Trap(TrapKind, String),
}

/// Runs `spec` with block size `block` on a fresh device in `mode`.
fn run(src: &str, spec: &Spec, block: Dim3, mode: Scheduling) -> Outcome {
    let mut dev = Device::new();
    // The module's .global variables are allocated between these two probes.
    let lo = dev.alloc(1).unwrap();
    let m = dev.load(src).unwrap();
    let hi = dev.alloc(1).unwrap();
    let (args, ptrs) = upload(&mut dev, &spec.args);
    let mut cfg = LaunchConfig::new(spec.grid, block);
    cfg.dynamic_shared_bytes = spec.dynamic_shared;
    cfg.scheduling = mode;
    cfg.fuel = FUEL;
    // One worker: CTAs run in a fixed order, so a failure reproduces.
    cfg.threads = Some(1);
    let globals = |dev: &Device| -> Vec<u8> { (lo + 1..hi.min(lo + (1 << 20))).filter_map(|a| dev.read(a, 1).ok()).flatten().collect() };
    let globals_before = globals(&dev);
    match dev.launch(&m, spec.kernel, &cfg, &args) {
        Ok(stats) => {
            let bufs: Vec<Vec<u8>> = ptrs.iter().map(|&(p, n)| dev.read(p, n).unwrap()).collect();
            let globals = globals(&dev);
            let inputs = spec.args.iter().filter_map(|a| if let Arg::Buf(b) = a { Some(b) } else { None });
            let wrote = globals != globals_before || bufs.iter().zip(inputs).any(|(after, before)| after != before) || !stats.stdout.bytes.is_empty();
            Outcome::Done { bufs, globals, stdout: stats.stdout.bytes, wrote, divergent: stats.divergent_branches }
        }
        Err(e) => Outcome::Trap(e.kind, e.to_string()),
    }
}

/// Compares the two outcomes; `None` when they agree (outside `skip`).
fn compare(stack: &Outcome, its: &Outcome, skip: Option<&Skip>) -> Option<String> {
    match (stack, its) {
        (Outcome::Done { bufs: a, globals: ga, stdout: pa, .. }, Outcome::Done { bufs: b, globals: gb, stdout: pb, .. }) => {
            // The same lines: within a warp, the two modes run the sides of
            // a divergent branch in different orders (stack: the taken side
            // first; ITS: the lowest pc first), so lines printed on both
            // sides interleave differently.
            let lines = |p: &[u8]| {
                let mut l: Vec<Vec<u8>> = p.split_inclusive(|&b| b == b'\n').map(|x| x.to_vec()).collect();
                l.sort();
                l
            };
            if lines(pa) != lines(pb) {
                return Some(format!("printed lines differ:\nstack {:?}\nits   {:?}", String::from_utf8_lossy(pa), String::from_utf8_lossy(pb)));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let skipped = |at: usize| skip.is_some_and(|s| s.arg == i && s.range.contains(&at));
                if let Some(at) = (0..x.len()).find(|&at| x[at] != y[at] && !skipped(at)) {
                    let w = |v: &[u8]| {
                        let s = at & !3;
                        v.get(s..s + 4).map(|c| format!("{:#010x}", u32::from_le_bytes([c[0], c[1], c[2], c[3]]))).unwrap_or_default()
                    };
                    return Some(format!("buffer {i} differs at byte {at}: word stack {} its {}", w(x), w(y)));
                }
            }
            if ga != gb {
                let at = ga.iter().zip(gb).position(|(p, q)| p != q).unwrap_or(0);
                return Some(format!("module globals differ at byte {at}"));
            }
            None
        }
        (Outcome::Trap(x, mx), Outcome::Trap(y, my)) => (x != y).then(|| format!("stack traps `{mx}`, its traps `{my}`")),
        (Outcome::Trap(_, mx), Outcome::Done { .. }) => Some(format!("only stack traps: {mx}")),
        (Outcome::Done { .. }, Outcome::Trap(_, my)) => Some(format!("only its traps: {my}")),
    }
}

#[test]
fn race_free_corpus_kernels_agree_under_stack_and_its() {
    let specs = specs();
    let (mut compared, mut launches, mut completed, mut partial, mut diverged, mut global_bytes) = (0, 0, 0, 0, 0, 0);
    let mut printed = 0usize;
    let mut traps = Vec::new();
    let mut failures = Vec::new();
    let mut bugs_seen = Vec::new();
    for f in corpus_files() {
        let src = std::fs::read_to_string(&f).unwrap();
        let dir = f.parent().and_then(|p| p.file_name()).and_then(|s| s.to_str()).unwrap_or("");
        let file = format!("{dir}/{}", f.file_stem().and_then(|s| s.to_str()).unwrap_or(""));
        let m = Device::new().load(&src).unwrap_or_else(|e| panic!("{file}: {e}"));
        for k in m.kernels() {
            let spec = specs.iter().find(|s| s.kernel == k).unwrap_or_else(|| panic!("{file}: no spec for kernel {k}"));
            let sizes: Vec<u32> = spec
                .args
                .iter()
                .map(|a| match a {
                    Arg::Buf(_) => 8,
                    Arg::Val(v) => v.bytes().len() as u32,
                })
                .collect();
            assert_eq!(Some(sizes), m.kernel_params(k), "{file}: {k}: the spec's arguments do not match the parameters");
            let skip = EXCEPTIONS.iter().find(|e| e.0 == k).map(|e| &e.1);
            // The kernels on the default geometry also run with blocks of 75
            // (warps of 32, 32 and 11 lanes; 225 threads for 217 elements).
            let blocks: &[Dim3] = if spec.grid == d1(3) && spec.block == d1(80) { &[d1(80), d1(75)] } else { &[spec.block] };
            compared += 1;
            partial += skip.is_some() as usize;
            for &block in blocks {
                let a = run(&src, spec, block, Scheduling::Stack);
                let b = run(&src, spec, block, Scheduling::Its);
                launches += 1;
                let at = format!("{file}: {k} (block {})", block.x * block.y * block.z);
                match &a {
                    Outcome::Done { globals, wrote, divergent, stdout, .. } => {
                        printed += stdout.len();
                        completed += 1;
                        global_bytes += globals.len();
                        diverged += (*divergent > 0) as usize;
                        if !wrote {
                            failures.push(format!("{at}: the launch changed no buffer (inputs do not reach the kernel's work)"));
                        }
                    }
                    Outcome::Trap(kind, msg) => {
                        traps.push(format!("{at}: {kind:?}: {}", msg.lines().next().unwrap_or("")));
                        // Only the engine's gaps may trap: any
                        // other trap means the spec's inputs are wrong for the kernel.
                        if *kind != TrapKind::Unsupported {
                            failures.push(format!("{at}: traps in stack mode: {msg}"));
                        }
                    }
                }
                let diff = compare(&a, &b, skip);
                if let Some(bug) = KNOWN_ENGINE_BUGS.iter().find(|x| x.0 == file && x.1 == k) {
                    bugs_seen.push((bug.0, bug.1));
                    match &diff {
                        Some(d) if d.starts_with(bug.2) => {}
                        Some(d) => failures.push(format!("{at}: known engine bug now fails differently: {d}")),
                        None => failures.push(format!("{at}: known engine bug no longer reproduces: move it back")),
                    }
                } else if let Some(d) = diff {
                    failures.push(format!("{at}: {d}"));
                }
            }
        }
    }
    eprintln!(
        "corpus modes: {compared} kernels compared under stack and its in {launches} launch pairs ({completed} ran to \
         completion, {diverged} of them with divergent branches; {} trapped alike); {partial} kernels with \
         schedule-dependent bytes left out, {} known engine bugs",
        traps.len(),
        KNOWN_ENGINE_BUGS.len()
    );
    if std::env::var_os("PTXSIM_SHOW_TRAPS").is_some() {
        eprintln!("{}", traps.join("\n"));
    }
    for (kernel, _, _) in EXCEPTIONS {
        assert!(specs.iter().any(|s| s.kernel == *kernel), "exception {kernel} has no spec");
    }
    for (file, kernel, _) in KNOWN_ENGINE_BUGS {
        assert!(bugs_seen.contains(&(*file, *kernel)), "known engine bug {file}: {kernel} is not in the corpus");
    }
    assert!(failures.is_empty(), "{} launches fail:\n{}", failures.len(), failures.join("\n"));
    // 191 kernels in 68 files, 299 launch pairs; 2 trap alike, 275 of the
    // others diverge.
    assert!(compared >= 191, "only {compared} kernels compared");
    assert!(completed >= 283, "only {completed} launches ran to completion");
    assert!(diverged >= 250, "only {diverged} launches diverged");
    assert!(global_bytes > 0, "no module variable was read back (the globals probe found nothing)");
    // The printf kernels (nvcc, clang: hello_printf, assert_like) print,
    // identically under both modes.
    assert!(printed > 0, "no launch printed");
}
