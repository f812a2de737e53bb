//! Differential test, bit for bit: every corpus launch of
//! `crates/exec/tests/all/corpus_modes.rs` (the same specifications), in
//! both scheduling modes, with the compiling tier forced on and off: the
//! same buffers, module globals, printed output, statistics (warp and
//! thread instructions, divergent branches) and, when a launch traps, the
//! same error (kind, message, function, line, CTA, warp, lane); the
//! quick code (`Quality::Quick`, what `auto` runs first in a large
//! function) is compared too, in stack mode. Launches
//! run on one worker so the CTA order is fixed; schedule-dependent kernels
//! (the corpus's `EXCEPTIONS`) are compared too, since one worker makes
//! them deterministic. A second pass gives each launch a fuel budget of a
//! third of what it needs: the same `fuel_exhausted` trap at the same
//! place.

#[path = "../../exec/tests/all/support/corpus_specs.rs"]
mod corpus_specs;

use corpus_specs::*;
use ptxsim_exec::{Device, Dim3, LaunchConfig, Scheduling};
use ptxsim_jit::{attach_as, Mode, Quality};

#[derive(Debug, PartialEq)]
enum Outcome {
    Done { bufs: Vec<Vec<u8>>, globals: Vec<u8>, stdout: Vec<u8>, stats: (u64, u64, u64) },
    Trap(String),
}

fn run(src: &str, spec: &Spec, block: Dim3, sched: Scheduling, (jit, q): (Mode, Quality), fuel: u64) -> (Outcome, usize) {
    let mut dev = Device::new();
    let lo = dev.alloc(1).unwrap();
    let mut m = dev.load(src).unwrap();
    let tier = attach_as(&mut m, jit, q);
    let compiled = tier.map_or(0, |t| t.report().iter().filter_map(|r| r.1.as_ref().and_then(|c| c.as_ref().ok()).map(|c| c.compiled)).sum());
    let hi = dev.alloc(1).unwrap();
    let (args, ptrs) = upload(&mut dev, &spec.args);
    let mut cfg = LaunchConfig::new(spec.grid, block);
    cfg.dynamic_shared_bytes = spec.dynamic_shared;
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    let globals = |dev: &Device| -> Vec<u8> { (lo + 1..hi.min(lo + (1 << 20))).filter_map(|a| dev.read(a, 1).ok()).flatten().collect() };
    let o = match dev.launch(&m, spec.kernel, &cfg, &args) {
        Ok(s) => Outcome::Done {
            bufs: ptrs.iter().map(|&(p, n)| dev.read(p, n).unwrap()).collect(),
            globals: globals(&dev),
            stdout: s.stdout.bytes,
            stats: (s.warp_instructions, s.thread_instructions, s.divergent_branches),
        },
        Err(e) => Outcome::Trap(format!("{:?} {:?} fn {:?} line {:?} cta {:?} warp {:?} lane {:?}", e.kind, e.message, e.function, e.line, e.cta, e.warp, e.lane)),
    };
    (o, compiled)
}

#[test]
fn corpus_launches_same_with_tier_on_and_off() {
    let specs = specs();
    let (mut launches, mut compiled_total, mut exhausted) = (0, 0, 0);
    let mut failures = Vec::new();
    for f in corpus_files() {
        let src = std::fs::read_to_string(&f).unwrap();
        let file = f.display().to_string();
        let m = Device::new().load(&src).unwrap_or_else(|e| panic!("{file}: {e}"));
        for k in m.kernels() {
            let Some(spec) = specs.iter().find(|s| s.kernel == k) else { continue };
            for (sched, q) in [(Scheduling::Stack, Quality::Full), (Scheduling::Its, Quality::Full), (Scheduling::Stack, Quality::Quick)] {
                let (off, _) = run(&src, spec, spec.block, sched, (Mode::Off, q), 20_000_000);
                let (on, n) = run(&src, spec, spec.block, sched, (Mode::On, q), 20_000_000);
                launches += 1;
                compiled_total += n;
                if off != on {
                    failures.push(format!("{file}: {k} {sched:?} {q:?}: off {off:?}\n   on {on:?}"));
                    continue;
                }
                if let Outcome::Done { stats: (w, ..), .. } = off {
                    if w > 3 {
                        let fuel = w / 3;
                        let (a, _) = run(&src, spec, spec.block, sched, (Mode::Off, q), fuel);
                        let (b, _) = run(&src, spec, spec.block, sched, (Mode::On, q), fuel);
                        exhausted += 1;
                        if a != b {
                            failures.push(format!("{file}: {k} {sched:?} {q:?} fuel {fuel}: off {a:?}\n   on {b:?}"));
                        }
                    }
                }
            }
        }
    }
    eprintln!("tier on/off: {launches} corpus launches compared ({compiled_total} instructions compiled over them), {exhausted} also at a third of their fuel");
    assert!(launches > 100, "the corpus was found");
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
