//! Every race-free kernel of the corpus (`tests/corpus/`) gives identical
//! results under `--scheduling stack` and `--scheduling its`.
//!
//! Each kernel is launched with deterministic non-zero inputs (pointer
//! parameters get buffers of small integers, 32-bit scalars an element count
//! that is not a multiple of the block size), on a grid whose blocks end in a
//! partial warp, with one worker thread so that CTAs run in a fixed order.
//! Both modes start from identical fresh inputs; every buffer is then compared
//! byte for byte, or, when a run traps, the two trap kinds are compared.
//! The kernels whose result may legitimately depend on the schedule are
//! listed in [`EXCEPTIONS`] with the reason.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, RunError, Scheduling, TrapKind};
use std::path::PathBuf;

/// Bytes of each pointer argument's buffer.
const BUF: usize = 1 << 16;
/// The value of 32-bit (and smaller) scalar parameters: an element count.
const N: u32 = 200;
const GRID: u32 = 3;
/// Not a multiple of 32: the last warp of each CTA is partial.
const BLOCK: u32 = 80;

/// Kernels whose results may depend on the order in which threads run, so
/// the two modes may differ: (corpus file, kernel, reason).
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    ("nvcc/spinlock", "locked_accumulate", SPIN),
    ("nvcc/spinlock", "ticket_lock", SPIN),
    ("clang/spinlock", "locked_accumulate", SPIN),
    ("clang/spinlock", "ticket_lock", SPIN),
];
const SPIN: &str = "a spin lock between threads of one warp: it cannot complete under a \
    reconvergence stack (a stack_deadlock by design) and completes under ITS; \
    engine.rs's spin_lock_completes_under_its_and_deadlocks_under_stack tests both";

/// An argument of a kernel that needs more than the generic rule.
#[derive(Clone, Copy)]
enum Arg {
    /// A buffer of small integers ([`pattern`]).
    Ints,
    /// A buffer of f32 (or f64) values 0.25 × small integers.
    F32s,
    F64s,
    /// `struct Node { int value, left, right; }`: a complete binary tree of
    /// 63 nodes (children 2i+1 and 2i+2), as `tree_kernel` expects.
    Tree,
    U32(u32),
    U64(u64),
    F32(f32),
    F64(f64),
}

/// Kernels whose parameters or geometry the generic rule does not fit:
/// (kernel, grid, block, arguments). The matrix kernels use 16×16 (or 8×8)
/// tiles in 2D blocks and sizes that are not multiples of the tile.
const CUSTOM: &[(&str, Dim3, Dim3, &[Arg])] = {
    use Arg::*;
    const G33: Dim3 = Dim3 { x: 3, y: 3, z: 1 };
    const B16: Dim3 = Dim3 { x: 16, y: 16, z: 1 };
    &[
        ("matmul_naive", G33, B16, &[F32s, F32s, F32s, U32(40), U32(40), U32(40)]),
        ("matmul_tiled", G33, B16, &[F32s, F32s, F32s, U32(40), U32(40), U32(40)]),
        ("dgemm_tiled_2x2", G33, Dim3 { x: 8, y: 8, z: 1 }, &[F64s, F64s, F64s, U32(48)]),
        ("transpose_tiled", G33, B16, &[F32s, F32s, U32(40), U32(24)]),
        ("daxpy_grid_stride", Dim3 { x: 2, y: 1, z: 1 }, Dim3 { x: 80, y: 1, z: 1 }, &[U64(1000), F64(1.5), F64s, F64s]),
        ("matvec_double", Dim3 { x: 2, y: 1, z: 1 }, Dim3 { x: 80, y: 1, z: 1 }, &[F64s, F64s, F64s, F64s, U32(40), U32(50)]),
        ("saxpy", Dim3 { x: 3, y: 1, z: 1 }, Dim3 { x: 80, y: 1, z: 1 }, &[U32(200), F32(0.5), F32s, F32s]),
        ("tree_kernel", Dim3 { x: 1, y: 1, z: 1 }, Dim3 { x: 80, y: 1, z: 1 }, &[Tree, Ints, Ints, U32(60), Ints]),
    ]
};

fn corpus_files() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus"));
    let mut files = Vec::new();
    for dir in ["nvcc", "clang", "llvmlite", "seeds"] {
        for e in std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "ptx") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

/// The initial contents of pointer argument `arg`: small integers, different
/// per argument, so that loops terminate and data-dependent indices stay small.
fn pattern(arg: usize) -> Vec<u8> {
    (0..BUF / 4).flat_map(|i| (((i * 7 + arg * 13 + 3) % 61) as u32).to_le_bytes()).collect()
}

enum Outcome {
    Ok(Vec<Vec<u8>>),
    Trap(TrapKind, String),
}

fn buffer(arg: usize, kind: Arg) -> Vec<u8> {
    match kind {
        Arg::F32s => (0..BUF / 4).flat_map(|i| (((i * 7 + arg * 13 + 3) % 61) as f32 * 0.25).to_le_bytes()).collect(),
        Arg::F64s => (0..BUF / 8).flat_map(|i| (((i * 7 + arg * 13 + 3) % 61) as f64 * 0.25).to_le_bytes()).collect(),
        Arg::Tree => {
            let child = |c: usize| if c < 63 { c as i32 } else { -1 };
            let mut v: Vec<u8> = (0..63usize)
                .flat_map(|i| [i as i32 + 1, child(2 * i + 1), child(2 * i + 2)])
                .flat_map(|x| x.to_le_bytes())
                .collect();
            v.resize(BUF, 0);
            v
        }
        _ => pattern(arg),
    }
}

fn run(src: &str, kernel: &str, params: &[u32], mode: Scheduling) -> Result<Outcome, RunError> {
    let mut dev = Device::new();
    let m = dev.load(src)?;
    let mut args = Vec::new();
    let mut bufs = Vec::new();
    let custom = CUSTOM.iter().find(|c| c.0 == kernel).filter(|c| c.3.len() == params.len());
    for (i, &size) in params.iter().enumerate() {
        let kind = custom.map(|c| c.3[i]).unwrap_or(match size {
            8 => Arg::Ints,
            4 => Arg::U32(N),
            _ => Arg::U32(1),
        });
        args.push(match (kind, size) {
            (Arg::Ints | Arg::F32s | Arg::F64s | Arg::Tree, _) => {
                let p = dev.alloc(BUF as u64)?;
                dev.write(p, &buffer(i, kind))?;
                bufs.push(p);
                KernelArg::Ptr(p)
            }
            (Arg::U64(v), _) => KernelArg::U64(v),
            (Arg::F32(v), _) => KernelArg::F32(v),
            (Arg::F64(v), _) => KernelArg::F64(v),
            (Arg::U32(v), 4) => KernelArg::U32(v),
            (Arg::U32(v), 2) => KernelArg::U16(v as u16),
            (Arg::U32(v), 1) => KernelArg::U8(v as u8),
            (Arg::U32(v), 8) => KernelArg::U64(v as u64),
            (Arg::U32(_), n) => KernelArg::Bytes(vec![1; n as usize]),
        });
    }
    let (grid, block) = custom.map(|c| (c.1, c.2)).unwrap_or((Dim3 { x: GRID, y: 1, z: 1 }, Dim3 { x: BLOCK, y: 1, z: 1 }));
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.scheduling = mode;
    cfg.fuel = 3_000_000;
    cfg.threads = Some(1);
    Ok(match dev.launch(&m, kernel, &cfg, &args) {
        Ok(_) => Outcome::Ok(bufs.iter().map(|&p| dev.read(p, BUF as u64)).collect::<Result<_, _>>()?),
        Err(e) => Outcome::Trap(e.kind, e.to_string()),
    })
}

#[test]
fn race_free_corpus_kernels_agree_in_both_modes() {
    let (mut compared, mut both_ok, mut excepted) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut seen_exceptions = Vec::new();
    for f in corpus_files() {
        let Ok(src) = std::fs::read_to_string(&f) else { continue };
        let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
        let dir = f.parent().and_then(|p| p.file_name()).and_then(|s| s.to_str()).unwrap_or("");
        let name = format!("{dir}/{stem}");
        let mut dev = Device::new();
        let Ok(m) = dev.load(&src) else { continue };
        for k in m.kernels() {
            if EXCEPTIONS.iter().any(|e| e.0 == name && e.1 == k) {
                excepted += 1;
                seen_exceptions.push((name.clone(), k.to_string()));
                continue;
            }
            let params = m.kernel_params(k).unwrap_or_default();
            let a = run(&src, k, &params, Scheduling::Stack);
            let b = run(&src, k, &params, Scheduling::Its);
            compared += 1;
            match (a, b) {
                (Ok(Outcome::Ok(x)), Ok(Outcome::Ok(y))) => {
                    both_ok += 1;
                    for (i, (bx, by)) in x.iter().zip(&y).enumerate() {
                        if let Some(at) = bx.iter().zip(by).position(|(p, q)| p != q) {
                            failures.push(format!("{name}: {k}: buffer {i} differs from byte {at}"));
                            break;
                        }
                    }
                }
                (Ok(Outcome::Trap(x, mx)), Ok(Outcome::Trap(y, my))) => {
                    if x != y {
                        failures.push(format!("{name}: {k}: stack traps `{mx}`, its traps `{my}`"));
                    }
                    if std::env::var_os("PTXSIM_SHOW_TRAPS").is_some() {
                        eprintln!("{name}: {k}: both trap: {mx}");
                    }
                }
                (Ok(Outcome::Trap(_, mx)), Ok(Outcome::Ok(_))) => failures.push(format!("{name}: {k}: only stack traps: {mx}")),
                (Ok(Outcome::Ok(_)), Ok(Outcome::Trap(_, my))) => failures.push(format!("{name}: {k}: only its traps: {my}")),
                (Err(e), _) | (_, Err(e)) => failures.push(format!("{name}: {k}: setup failed: {e}")),
            }
        }
    }
    eprintln!("corpus modes: {compared} kernels compared ({both_ok} ran to completion in both), {excepted} excepted");
    for (file, k, _) in EXCEPTIONS {
        assert!(seen_exceptions.iter().any(|(f, x)| f == file && x == k), "exception {file}: {k} is not in the corpus");
    }
    assert!(failures.is_empty(), "{} kernels differ between modes:\n{}", failures.len(), failures.join("\n"));
    assert!(compared >= 180, "only {compared} kernels compared");
    assert!(both_ok >= 175, "only {both_ok} kernels ran to completion in both modes");
}
