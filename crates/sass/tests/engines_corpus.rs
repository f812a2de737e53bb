//! Both engines give identical results on the corpus: every kernel of
//! `tests/corpus/{nvcc,clang,llvmlite,seeds}` runs with the inputs of
//! `crates/exec/tests/all/support/corpus_specs.rs` under the PTX engine (stack scheduling) and as
//! the lowered sm_50 machine form on the CRS-stack executor, one worker
//! each, on fresh devices; every buffer and every byte of the module's
//! `.global` variables must agree, or both runs must trap with the same kind.
//! Schedule-dependent bytes are left out as in the stack/ITS comparison
//! (`EXCEPTIONS`, with reasons). What the machine form cannot run yet is
//! counted and listed by reason, and checked to fail that way.

#[path = "../../exec/tests/all/support/corpus_specs.rs"]
mod specs;

use ptxsim_exec::{Device, Dim3, LaunchConfig, TrapKind};
use ptxsim_sass::engine::{MachineConfig, SassError};
use specs::*;

const FUEL: u64 = 20_000_000;

#[derive(Debug, PartialEq)]
enum Outcome {
    Done { bufs: Vec<Vec<u8>>, globals: Vec<u8> },
    Trap(TrapKind, String),
}

fn run(src: &str, spec: &Spec, block: Dim3, sass: bool) -> Outcome {
    let mut dev = Device::new();
    let lo = dev.alloc(1).unwrap();
    let (m, mp) = if sass {
        let (m, l) = ptxsim_sass::load_and_lower(&mut dev, "k.ptx", src).unwrap();
        (m, Some(l.prog))
    } else {
        (dev.load(src).unwrap(), None)
    };
    let hi = dev.alloc(1).unwrap();
    let (args, ptrs) = upload(&mut dev, &spec.args);
    let mut cfg = LaunchConfig::new(spec.grid, block);
    cfg.dynamic_shared_bytes = spec.dynamic_shared;
    cfg.fuel = FUEL;
    cfg.threads = Some(1);
    let r = match &mp {
        Some(mp) => ptxsim_sass::engine::launch(&dev, &m, mp, spec.kernel, &cfg, &args, &MachineConfig::default()).map(|_| ()).map_err(|e| match e {
            SassError::Run(e) => (e.kind, e.to_string()),
            h => (TrapKind::Trap, h.to_string()),
        }),
        None => dev.launch(&m, spec.kernel, &cfg, &args).map(|_| ()).map_err(|e| (e.kind, e.to_string())),
    };
    match r {
        Ok(()) => Outcome::Done {
            bufs: ptrs.iter().map(|&(p, n)| dev.read(p, n).unwrap()).collect(),
            globals: (lo + 1..hi.min(lo + (1 << 20))).filter_map(|a| dev.read(a, 1).ok()).flatten().collect(),
        },
        Err((k, m)) => Outcome::Trap(k, m),
    }
}

fn compare(a: &Outcome, b: &Outcome, skip: Option<&Skip>) -> Option<String> {
    match (a, b) {
        (Outcome::Done { bufs: x, globals: gx }, Outcome::Done { bufs: y, globals: gy }) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                let skipped = |at: usize| skip.is_some_and(|s| s.arg == i && s.range.contains(&at));
                if let Some(at) = (0..p.len()).find(|&at| p[at] != q[at] && !skipped(at)) {
                    return Some(format!("buffer {i} differs at byte {at}"));
                }
            }
            (gx != gy).then(|| "module globals differ".to_string())
        }
        (Outcome::Trap(k1, m1), Outcome::Trap(k2, m2)) => (k1 != k2).then(|| format!("ptx traps `{m1}`, sass traps `{m2}`")),
        (Outcome::Trap(_, m), _) => Some(format!("only the ptx engine traps: {m}")),
        (_, Outcome::Trap(_, m)) => Some(format!("only the sass engine traps: {m}")),
    }
}

/// Why a launch does not run on the machine form yet (matched on the sass
/// engine's error message).
const NOT_YET: &[(&str, &str)] = &[
    ("cluster barriers", "cluster barriers (barrier.cluster.arrive/wait)"),
];

#[test]
fn ptx_and_sass_engines_agree_on_the_corpus() {
    let specs = specs();
    let (mut launches, mut same, mut traps_alike) = (0, 0, 0);
    let mut not_yet: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let mut fails = Vec::new();
    for f in corpus_files() {
        let src = std::fs::read_to_string(&f).unwrap();
        let dir = f.parent().and_then(|p| p.file_name()).and_then(|s| s.to_str()).unwrap_or("");
        let file = format!("{dir}/{}", f.file_stem().and_then(|s| s.to_str()).unwrap_or(""));
        let m = Device::new().load(&src).unwrap();
        for k in m.kernels() {
            let Some(spec) = specs.iter().find(|s| s.kernel == k) else { continue };
            let skip = EXCEPTIONS.iter().find(|e| e.0 == k).map(|e| &e.1);
            let blocks: &[Dim3] = if spec.grid == d1(3) && spec.block == d1(80) { &[d1(80), d1(75)] } else { &[spec.block] };
            for &block in blocks {
                launches += 1;
                let at = format!("{file}: {k} (block {})", block.x * block.y * block.z);
                let a = run(&src, spec, block, false);
                let b = run(&src, spec, block, true);
                if let Outcome::Trap(TrapKind::Unsupported, msg) = &b {
                    if !matches!(a, Outcome::Trap(TrapKind::Unsupported, _)) {
                        if let Some((_, why)) = NOT_YET.iter().find(|(m, _)| msg.contains(m)) {
                            not_yet.entry(why).or_default().push(at);
                            continue;
                        }
                    }
                }
                match compare(&a, &b, skip) {
                    None => {
                        same += 1;
                        traps_alike += matches!(a, Outcome::Trap(..)) as usize;
                    }
                    Some(d) => fails.push(format!("{at}: {d}")),
                }
            }
        }
    }
    let waiting: usize = not_yet.values().map(|v| v.len()).sum();
    eprintln!("corpus on both engines: {launches} launches, {same} identical ({traps_alike} identical traps), {waiting} not yet runnable on the machine form:");
    for (why, v) in &not_yet {
        eprintln!("  {} launches: {why}", v.len());
    }
    assert!(fails.is_empty(), "{} launches differ:\n{}", fails.len(), fails.join("\n"));
    assert!(same >= 299, "only {same} identical launches");
}
