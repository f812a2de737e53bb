//! ptxsim against real-GPU results: every file under `tests/gpu/` (see its
//! README) as an NVIDIA H100 (sm_90, driver 13.0) computed it.
//!
//! - Recorded launches (`tests/gpu/corpus`: the corpus launches of
//!   `support/corpus_specs.rs`, written by the `export_corpus_launches`
//!   example; `tests/gpu/launches`: the Numba and Triton launches) replayed
//!   by `scripts/gpu_record.py` through CuPy and the driver's PTX JIT,
//!   inputs included: each runs here on a fresh device with one worker,
//!   under both scheduling modes, and every byte of every buffer must equal
//!   the GPU's, except the bytes [`EXCEPTIONS`] (schedule-dependent on
//!   purpose) and the freedoms (results the PTX ISA leaves to the
//!   implementation, each with its reason) name; printed lines must be the
//!   same lines (their order across warps is the schedule's).
//! - Probes of single instructions (`tests/isa/{nan_bits,special_f32,
//!   special_f64,special_half,int_ops,warp_ops}.ptx`) on special and random
//!   operands, compared slot by slot.

use ptxsim_exec::{Device, LaunchConfig, Scheduling};
use std::collections::HashMap;
use std::path::PathBuf;

use crate::support::corpus_specs::*;


/// How a buffer may differ from the GPU's where the PTX ISA leaves the
/// result to the implementation.
enum Freedom {
    /// The bytes for which the function is true are not compared.
    Bytes(fn(usize) -> bool),
    /// Each f32 element within this many units in the last place of the
    /// GPU's (NaN matches NaN).
    F32Ulps(u32),
    /// Each f32 element within this fraction of the buffer's largest
    /// magnitude (a sum whose terms may each be off by a few ulps).
    F32OfMax(f32),
    /// Each f64 element within this many units in the last place.
    F64Ulps(u64),
    /// At most this many 4-byte elements differ, by any amount.
    FewWords(usize),
}

/// Results the PTX ISA leaves to the implementation, so ptxsim and the GPU
/// may both be right and still differ: (launch id prefix, argument, what
/// may differ, why).
const GPU_FREEDOM: &[(&str, usize, Freedom, &str)] = &[
    ("llvmlite_lt_compare.compare_kernel.", 4, Freedom::Bytes(|at| at >= 160 && at % 160 < 8),
     "each thread writes 42 words at a stride of 40 (lt_compare.py's record is two words longer than its slot), so its last \
      two stores race with the next thread's first two: a data race, whose outcome the memory model leaves open (the GPU's \
      store scheduling keeps the next thread's values)"),
    ("nvcc_fpmath.nbody_forces.", 1, Freedom::F32OfMax(1e-5), NBODY),
    ("nvcc_fpmath.nbody_forces.", 2, Freedom::F32OfMax(1e-5), NBODY),
    ("nvcc_fpmath.nbody_forces.", 3, Freedom::F32OfMax(1e-5), NBODY),
    ("clang_fpmath.nbody_forces.", 1, Freedom::F32OfMax(1e-5), NBODY),
    ("clang_fpmath.nbody_forces.", 2, Freedom::F32OfMax(1e-5), NBODY),
    ("clang_fpmath.nbody_forces.", 3, Freedom::F32OfMax(1e-5), NBODY),
    ("nvcc_mathf.mathf_unary.", 1, Freedom::F32Ulps(1024), MATHF),
    ("nvcc_mathd.mathd.", 2, Freedom::F64Ulps(2), "CUDA's double-precision library seeds division, rcbrt and rsqrt with `rcp.approx.ftz.f64`/`rsqrt.approx.ftz.f64` and has 378 `mul.f64`/`add.f64`/`sub.f64` without a rounding modifier, which ptxas may contract into `fma`; 56 of 11,520 results differ by one ulp"),
    ("nvcc_warp2.warp_reduce.", 3, Freedom::Bytes(|at| at / 4 >= 217 && (at / 4) % 217 < 23), "the kernel writes out[k*n + i] for every thread i, and the launch has more threads (240 or 225) than n = 217: thread n+j and thread j of the next row store to the same word, a data race whose outcome the memory model leaves open"),
    ("nvcc_wmma_bf16.wmma_bf16.", 2, Freedom::F32Ulps(1), WMMA),
    ("nvcc_wmma_bf16.wmma_bf16.", 3, Freedom::F32Ulps(1), WMMA),
    ("nvcc_mathf.mathf_binary.", 2, Freedom::F32Ulps(32), MATHF),
];

const WMMA: &str = "`wmma.mma` on bf16 with f32 accumulation: the manual does not state the precision or order of the tile's sums (ptxsim rounds each exact sum once); the H100 differs by one ulp in 14 and 17 of the two tiles' 256 results";

const NBODY: &str = "sums of forces computed with `rsqrt.approx.f32` (the manual bounds its error, 2^-22.9 relative, and leaves \
     the value to the implementation) and with `mul.f32`/`add.f32` without a rounding modifier, which ptxas may contract \
     into `fma` (PTX ISA: mul/add without .rn may be optimized aggressively); the per-term differences of a few ulps add \
     up in sums with cancellation";

const MATHF: &str = "CUDA's single-precision library uses `rcp`, `rsqrt`, `ex2`, `lg2`, `sin`, `cos` and `div` `.approx` in \
     its fast paths; the manual bounds their errors but does not give their bits, and lgammaf/tgammaf/erfcf amplify a \
     one-ulp difference of such a step. Each function's accuracy against an exact reference is checked by \
     `corpus_golden.rs`";

/// The distance in units in the last place between two f64 (bit patterns).
fn ulps64(a: u64, b: u64) -> u64 {
    let key = |x: u64| if x >> 63 == 1 { -((x & 0x7fff_ffff_ffff_ffff) as i128) } else { x as i128 };
    if f64::from_bits(a).is_nan() && f64::from_bits(b).is_nan() {
        return 0;
    }
    (key(a) - key(b)).unsigned_abs() as u64
}

/// The distance in units in the last place between two f32 (bit patterns).
fn ulps(a: u32, b: u32) -> u64 {
    let key = |x: u32| if x >> 31 == 1 { -((x & 0x7fff_ffff) as i64) } else { x as i64 };
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    if fa.is_nan() && fb.is_nan() {
        return 0;
    }
    (key(a) - key(b)).unsigned_abs()
}

/// Where buffer `i` of ptxsim (`mine`) differs from the GPU's, outside the
/// bytes `skipped` names and the freedoms `free` gives.
fn differs(gpu: &[u8], mine: &[u8], i: usize, skipped: &[(usize, std::ops::Range<usize>)], free: &[&(&str, usize, Freedom, &str)]) -> Option<String> {
    let off = |at: usize| {
        skipped.iter().any(|(a, r)| *a == i && r.contains(&at)) || free.iter().any(|g| g.1 == i && matches!(g.2, Freedom::Bytes(f) if f(at)))
    };
    let word = |v: &[u8], at: usize| v.get(at & !3..(at & !3) + 4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let largest = (0..gpu.len() / 4).filter_map(|w| word(gpu, 4 * w)).map(|x| f32::from_bits(x).abs()).filter(|x| x.is_finite()).fold(0f32, f32::max);
    let dword = |v: &[u8], at: usize| v.get(at & !7..(at & !7) + 8).map(|c| u64::from_le_bytes(c.try_into().unwrap()));
    let near = |at: usize| {
        let (Some(g), Some(m)) = (word(gpu, at), word(mine, at)) else { return false };
        free.iter().any(|f| {
            f.1 == i
                && match f.2 {
                    Freedom::F32Ulps(n) => ulps(g, m) <= n as u64,
                    Freedom::F32OfMax(e) => (f32::from_bits(g) - f32::from_bits(m)).abs() <= e * largest,
                    Freedom::F64Ulps(n) => matches!((dword(gpu, at), dword(mine, at)), (Some(g), Some(m)) if ulps64(g, m) <= n),
                    Freedom::Bytes(_) | Freedom::FewWords(_) => false,
                }
        })
    };
    let diff: Vec<usize> = (0..gpu.len().max(mine.len())).filter(|&at| gpu.get(at) != mine.get(at) && !off(at) && !near(at)).collect();
    let words = diff.iter().map(|at| at / 4).collect::<std::collections::BTreeSet<_>>().len();
    if free.iter().any(|f| f.1 == i && matches!(f.2, Freedom::FewWords(n) if words <= n)) {
        return None;
    }
    let at = *diff.first()?;
    let most = (0..gpu.len() / 4).filter_map(|w| Some(ulps(word(gpu, 4 * w)?, word(mine, 4 * w)?))).max().unwrap_or(0);
    let most64 = (0..gpu.len() / 8).filter_map(|w| Some(ulps64(dword(gpu, 8 * w)?, dword(mine, 8 * w)?))).max().unwrap_or(0);
    let w = |v: &[u8]| word(v, at).map(|x| format!("{x:#010x}")).unwrap_or_default();
    Some(format!(
        "{} bytes differ, first at byte {at}: gpu {} ptxsim {} (as f32 words at most {most} ulps apart, as f64 {most64})",
        diff.len(),
        w(gpu),
        w(mine)
    ))
}

/// One argument of a recorded launch.
enum Recorded {
    /// A buffer with these initial bytes.
    Buf(Vec<u8>),
    /// A scalar's bytes.
    Val(Vec<u8>),
}

/// The printed lines in sorted order, each `0x` followed by nine or more
/// hex digits (a `%p` of a device address, which is the implementation's)
/// replaced by `0x<address>`.
fn sorted_lines(b: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(b);
    let mut l: Vec<String> = text.split_inclusive('\n').map(mask_addresses).collect();
    l.sort();
    l
}

fn mask_addresses(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(p) = rest.find("0x") {
        let digits = rest[p + 2..].bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(&rest[..p + 2]);
        if digits >= 9 {
            out.push_str("<address>");
        } else {
            out.push_str(&rest[p + 2..p + 2 + digits]);
        }
        rest = &rest[p + 2 + digits..];
    }
    out.push_str(rest);
    out
}

/// What [`replay`] compared.
struct Replayed {
    launches: usize,
    bytes: usize,
    failures: Vec<String>,
}

/// Replays every launch of `dir/launches.txt` (the format of the
/// `export_corpus_launches` example: module under `tests/corpus`, kernel,
/// grid, block, dynamic shared memory, then `buf:FILE#DIGEST` or `vN:HEX`
/// per argument) on ptxsim under both scheduling modes, one worker, and
/// compares each buffer with `dir/<id>.out<K>.bin` and the printed lines
/// with `dir/<id>.stdout`. A launch `record.txt` marks as failed on the GPU
/// must fail here too. `skip(kernel)` names schedule-dependent bytes;
/// `freedoms` what the ISA leaves to the implementation.
fn replay(dir: &std::path::Path, freedoms: &[(&str, usize, Freedom, &str)], skip: impl Fn(&str) -> Vec<(usize, std::ops::Range<usize>)>) -> Replayed {
    let corpus = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus"));
    let status: HashMap<String, bool> = std::fs::read_to_string(dir.join("record.txt"))
        .expect("record.txt")
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(id, rest)| (id.to_string(), rest.starts_with("ok"))))
        .collect();
    let mut r = Replayed { launches: 0, bytes: 0, failures: Vec::new() };
    for line in std::fs::read_to_string(dir.join("launches.txt")).expect("launches.txt").lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (id, ptx, kernel) = (f[0], f[1], f[2]);
        let dim = |s: &str| {
            let v: Vec<u32> = s.split(',').map(|x| x.parse().unwrap()).collect();
            ptxsim_exec::Dim3::new(v[0], v[1], v[2])
        };
        let (grid, block, shared) = (dim(f[3]), dim(f[4]), f[5].parse::<u32>().unwrap());
        let args: Vec<Recorded> = f[6..]
            .iter()
            .map(|a| match a.strip_prefix("buf:") {
                Some(b) => Recorded::Buf(std::fs::read(dir.join(b.split('#').next().unwrap())).unwrap()),
                None => {
                    let hex = a.split_once(':').unwrap().1;
                    Recorded::Val((0..hex.len() / 2).map(|k| u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap()).collect())
                }
            })
            .collect();
        let src = std::fs::read_to_string(corpus.join(ptx)).unwrap();
        let free: Vec<&(&str, usize, Freedom, &str)> = freedoms.iter().filter(|g| id.starts_with(g.0)).collect();
        let skipped = skip(kernel);
        for mode in [Scheduling::Stack, Scheduling::Its] {
            r.launches += 1;
            let mut dev = Device::new();
            let mut m = dev.load_named(ptx, &src).unwrap();
            crate::tier_hook(&mut m);
            let mut bufs = Vec::new();
            let kargs: Vec<ptxsim_exec::KernelArg> = args
                .iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Recorded::Buf(b) => {
                        let p = dev.alloc(b.len().max(1) as u64).unwrap();
                        dev.write(p, b).unwrap();
                        bufs.push((i, p, b.len() as u64));
                        ptxsim_exec::KernelArg::U64(p)
                    }
                    Recorded::Val(v) => ptxsim_exec::KernelArg::Bytes(v.clone()),
                })
                .collect();
            let mut cfg = LaunchConfig::new(grid, block);
            cfg.dynamic_shared_bytes = shared;
            cfg.scheduling = mode;
            cfg.fuel = 200_000_000;
            cfg.threads = Some(1);
            match (status.get(id), dev.launch(&m, kernel, &cfg, &kargs)) {
                (Some(true), Ok(stats)) => {
                    for (i, p, n) in bufs {
                        let gpu = std::fs::read(dir.join(format!("{id}.out{i}.bin"))).unwrap();
                        let mine = dev.read(p, n).unwrap();
                        r.bytes += gpu.len();
                        if let Some(d) = differs(&gpu, &mine, i, &skipped, &free) {
                            r.failures.push(format!("{id} ({mode:?}): buffer {i}: {d}"));
                        }
                    }
                    let printed = std::fs::read(dir.join(format!("{id}.stdout"))).unwrap_or_default();
                    if sorted_lines(&printed) != sorted_lines(&stats.stdout.bytes) {
                        r.failures.push(format!("{id} ({mode:?}): printed lines differ:\ngpu     {:?}\nptxsim  {:?}", String::from_utf8_lossy(&printed), String::from_utf8_lossy(&stats.stdout.bytes)));
                    }
                }
                (Some(false), Err(_)) => {}
                (Some(true), Err(e)) => r.failures.push(format!("{id} ({mode:?}): ran on the GPU, fails here: {}", e.to_string().lines().next().unwrap_or(""))),
                (Some(false), Ok(_)) => r.failures.push(format!("{id} ({mode:?}): failed on the GPU, completes here")),
                (None, _) => r.failures.push(format!("{id}: no status in record.txt")),
            }
        }
    }
    r
}

/// The corpus launches of `support/corpus_specs.rs` as recorded (inputs
/// included, so the recording stands on its own when the specifications
/// change): every byte equal to the GPU's outside [`EXCEPTIONS`] and
/// [`GPU_FREEDOM`].
#[test]
fn corpus_launches_leave_what_the_gpu_left() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/gpu/corpus"));
    let r = replay(&dir, GPU_FREEDOM, |k| EXCEPTIONS.iter().filter(|e| e.0 == k).map(|e| (e.1.arg, e.1.range.clone())).collect());
    assert!(r.failures.is_empty(), "{} of {} launches differ from the GPU:\n{}", r.failures.len(), r.launches, r.failures.join("\n"));
    // 320 launches were recorded (2026-11-25); each runs in both modes.
    assert!(r.launches == 640 && r.bytes > 1_000_000, "only {} launches / {} bytes compared", r.launches, r.bytes);
}

/// Results of the recorded Numba and Triton launches the PTX ISA leaves to
/// the implementation: (launch id prefix, argument, what may differ, why).
const LAUNCH_FREEDOM: &[(&str, usize, Freedom, &str)] = &[
    ("numba_nb_mandel.", 4, Freedom::FewWords(4), "escape-time counts of 2,048 points: the kernel's `mul.f32`/`add.f32` carry no rounding modifier, so ptxas may contract them into `fma` (PTX ISA, mul/add: such instructions may be optimized aggressively); near the set's boundary the orbit is chaotic and a last-bit difference changes the count (measured: 2 points differ)"),
    ("numba_nb_fmath.", 4, Freedom::F32Ulps(256), "libdevice expf/tanhf/powf use `ex2.approx.ftz` and `rcp.approx.ftz` (bounded, not bit-specified by the manual) and uncontracted mul/add that ptxas may fuse; powf amplifies a one-ulp difference of its log step"),
    ("triton_tr_gelu.", 1, Freedom::F32Ulps(64), "erf/tanh through `ex2.approx.ftz.f32` and contractible mul/add"),
    ("triton_tr_layer_norm.", 1, Freedom::F32OfMax(1e-5), "`sqrt.approx.ftz.f32` of the variance and contractible mul/add in the sums; normalised outputs near zero differ by many ulps of their own magnitude but within 1e-5 of the row's largest"),
    ("triton_tr_softmax_row.", 0, Freedom::F32Ulps(4), "`ex2.approx.f32` (bounded, not bit-specified) and contractible mul/add"),
    ("numba_nb_special.", 4, Freedom::F64Ulps(8), "libdevice hypot/cbrt/erf in double use `rcp.approx.ftz.f64` and `rsqrt.approx.ftz.f64` seeds refined by Newton steps, and uncontracted mul/add; the refined result may keep a few ulps of the seed"),
];

/// The Numba and Triton launches of `corpus_numba.rs` and `corpus_triton.rs`
/// (recorded with `PTXSIM_RECORD_LAUNCHES=tests/gpu/launches cargo test
/// --test all -- corpus_numba:: corpus_triton::`, inputs included) against what
/// the H100 left in their buffers; a launch that failed on the GPU (Triton's
/// `device_assert`) must fail here too.
/// The Numba and Triton launches of `corpus_numba.rs` and `corpus_triton.rs`
/// (recorded with `PTXSIM_RECORD_LAUNCHES=tests/gpu/launches cargo test
/// --test all -- corpus_numba:: corpus_triton::`, inputs included) against what
/// the H100 left in their buffers; a launch that failed on the GPU (Triton's
/// `device_assert`) must fail here too.
#[test]
fn numba_and_triton_launches_leave_what_the_gpu_left() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/gpu/launches"));
    let r = replay(&dir, LAUNCH_FREEDOM, |_| Vec::new());
    assert!(r.failures.is_empty(), "{} of {} launches differ from the GPU:\n{}", r.failures.len(), r.launches, r.failures.join("\n"));
    assert!(r.launches >= 98 && r.bytes > 500_000, "only {} launches / {} bytes compared", r.launches, r.bytes);
}

/// `tests/gpu/<probe>/<file>`.
fn probe_data(probe: &str, file: &str) -> Vec<u8> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/gpu")).join(probe).join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `tests/isa/<probe>.ptx`.
fn probe_src(probe: &str) -> String {
    std::fs::read_to_string(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/isa")).join(format!("{probe}.ptx"))).unwrap()
}

/// Launches `kernel` of `src` on one CTA of `threads` threads in `mode`:
/// one buffer argument per input (filled with its bytes), then an output
/// buffer of `out_len` bytes; the output after the launch.
fn launch_probe(src: &str, kernel: &str, threads: usize, mode: Scheduling, inputs: &[&[u8]], out_len: usize) -> Result<Vec<u8>, ptxsim_exec::RunError> {
    let mut dev = Device::new();
    let mut m = dev.load(src)?;
    crate::tier_hook(&mut m);
    let mut args = Vec::new();
    for b in inputs {
        let p = dev.alloc(b.len().max(1) as u64)?;
        dev.write(p, b)?;
        args.push(ptxsim_exec::KernelArg::U64(p));
    }
    let po = dev.alloc(out_len as u64)?;
    args.push(ptxsim_exec::KernelArg::U64(po));
    let mut cfg = LaunchConfig::new(ptxsim_exec::Dim3::new(1, 1, 1), ptxsim_exec::Dim3::new(threads as u32, 1, 1));
    cfg.scheduling = mode;
    dev.launch(&m, kernel, &cfg, &args)?;
    Ok(dev.read(po, out_len as u64)?)
}

fn u16s(b: &[u8]) -> Vec<u16> {
    b.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
}
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The result slots of `tests/isa/nan_bits.ptx`: (byte offset in a thread's
/// 256 bytes, width in bytes, operation).
const NAN_SLOTS: &[(usize, usize, &str)] = &[
    (0, 8, "add.rn.f64 a,b"),
    (8, 8, "sub.rn.f64 a,b"),
    (16, 8, "mul.rn.f64 a,b"),
    (24, 8, "fma.rn.f64 a,b,c"),
    (32, 8, "div.rn.f64 a,b"),
    (40, 8, "sqrt.rn.f64 a"),
    (48, 8, "neg.f64 a"),
    (56, 8, "abs.f64 a"),
    (64, 8, "min.f64 a,b"),
    (72, 8, "max.f64 a,b"),
    (80, 4, "cvt.rn.f32.f64 a"),
    (88, 8, "cvt.f64.f32 (cvt.rn.f32.f64 a)"),
    (96, 8, "rcp.rn.f64 a"),
    (104, 4, "add.rn.f32 s,t"),
    (108, 4, "mul.rn.f32 s,t"),
    (112, 4, "fma.rn.f32 s,t,s"),
    (116, 4, "div.rn.f32 s,t"),
    (120, 4, "sqrt.rn.f32 s"),
    (124, 4, "neg.f32 s"),
    (128, 4, "sub.rn.f32 s,t"),
    (136, 8, "add.f64 a,b"),
    (144, 8, "mul.f64 a,b"),
    (152, 8, "add.rn.f64 sNaN,a"),
    (160, 8, "rcp.approx.ftz.f64 a"),
    (168, 8, "rsqrt.approx.f64 a"),
];

/// NaN bits on an H100 (`tests/gpu/nan_bits`, `scripts/gpu_nan_bits.py`):
/// every slot of `tests/isa/nan_bits.ptx` as the hardware wrote it, except
/// two the engine does not model: which NaN an f64 operation passes on when
/// both operands are NaNs and one is an immediate (the hardware takes the
/// machine instruction's second slot, where ptxas puts the immediate), and
/// `rcp.approx.ftz.f64` of a NaN, which the hardware computes from the upper
/// 32 bits only (`0x7fffffff00000000`, or zero for a low-word-only payload).
#[test]
fn nan_bits_are_the_hardwares() {
    let src = probe_src("nan_bits");
    let (inp, gpu) = (probe_data("nan_bits", "in.bin"), probe_data("nan_bits", "out.bin"));
    let n = inp.len() / 24;
    let mut failures = Vec::new();
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mine = launch_probe(&src, "probe64", n, mode, &[&inp], gpu.len()).unwrap();
        for t in 0..n {
            let abc: Vec<String> = (0..3).map(|k| format!("{:#018x}", u64::from_le_bytes(inp[24 * t + 8 * k..24 * t + 8 * k + 8].try_into().unwrap()))).collect();
            let a_nan = f64::from_bits(u64::from_le_bytes(inp[24 * t..24 * t + 8].try_into().unwrap())).is_nan();
            for &(off, w, op) in NAN_SLOTS {
                if op.starts_with("rcp.approx.ftz.f64") && a_nan || op == "add.rn.f64 sNaN,a" && a_nan {
                    continue;
                }
                let at = 256 * t + off;
                let (g, me) = (&gpu[at..at + w], &mine[at..at + w]);
                if g != me {
                    let hex = |b: &[u8]| if w == 8 { format!("{:#018x}", u64::from_le_bytes(b.try_into().unwrap())) } else { format!("{:#010x}", u32::from_le_bytes(b.try_into().unwrap())) };
                    failures.push(format!("({mode:?}) {op} with a,b,c = {}: gpu {} ptxsim {}", abc.join(","), hex(g), hex(me)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} results differ from the H100:\n{}", failures.len(), failures.join("\n"));
}

/// The result slots of `tests/isa/special_f32.ptx`, one 32-bit word each;
/// the first 46 depend on `a` only.
const SPECIAL_SLOTS: &[&str] = &[
    "abs.f32",
    "neg.f32",
    "sqrt.rn.f32",
    "sqrt.approx.f32",
    "sqrt.approx.ftz.f32",
    "rsqrt.approx.f32",
    "rsqrt.approx.ftz.f32",
    "rcp.rn.f32",
    "rcp.approx.f32",
    "rcp.approx.ftz.f32",
    "ex2.approx.f32",
    "ex2.approx.ftz.f32",
    "lg2.approx.f32",
    "lg2.approx.ftz.f32",
    "sin.approx.f32",
    "cos.approx.f32",
    "tanh.approx.f32",
    "cvt.rni.f32.f32",
    "cvt.rzi.ftz.f32.f32",
    "cvt.sat.f32.f32",
    "abs.ftz.f32",
    "neg.ftz.f32",
    "sqrt.rn.ftz.f32",
    "cvt.ftz.f32.f32",
    "cvt.rzi.s32.f32",
    "cvt.rni.u32.f32",
    "cvt.rmi.s32.f32",
    "cvt.rpi.u32.f32",
    "cvt.rzi.s64.f32 (low)",
    "cvt.rzi.s64.f32 (high)",
    "cvt.rzi.u64.f32 (low)",
    "cvt.rzi.u64.f32 (high)",
    "testp.finite.f32",
    "testp.infinite.f32",
    "testp.number.f32",
    "testp.notanumber.f32",
    "testp.normal.f32",
    "testp.subnormal.f32",
    "cvt.rn.f16.f32",
    "cvt.rn.bf16.f32",
    "min.f32",
    "max.f32",
    "min.NaN.f32",
    "max.NaN.f32",
    "div.rn.f32",
    "div.approx.f32",
    "div.full.f32",
    "div.approx.ftz.f32",
    "div.full.ftz.f32",
    "add.rn.ftz.f32",
    "mul.rn.ftz.f32",
    "add.rn.sat.f32",
    "copysign.f32",
    "min.ftz.f32",
    "max.ftz.f32",
    "sub.rn.f32",
    "mul.rn.f32",
    "add.rn.f32",
    "setp.lt.f32",
    "setp.equ.f32",
    "setp.num.f32",
    "setp.nan.f32",
    "setp.ltu.f32",
    "setp.ge.f32",
];

/// The error bound the PTX ISA states for an approximate operation on an
/// ordinary operand `a` (and `b`): `Some(allowed |got - gpu|)` given the
/// GPU's value `g`, `None` where the manual states no bound (so the result
/// is not compared), or `Some(0.0)`: exact.
fn approx_bound(op: &str, a: f32, b: f32, g: f32) -> Option<f64> {
    let ulp = |x: f32| (f32::from_bits(x.abs().to_bits() + 1) - x.abs()) as f64;
    let g64 = g as f64;
    Some(match op.split('.').next().unwrap_or("") {
        // Absolute error 2^-20.9 in [-100pi, 100pi]; no bound outside.
        "sin" | "cos" if (a as f64).abs() > 100.0 * std::f64::consts::PI => return None,
        "sin" | "cos" => 2f64.powf(-20.9),
        "tanh" => 2f64.powf(-10.987) * g64.abs(),
        "lg2" => 2f64.powf(-22.6).max(2.0 * ulp(g)),
        "ex2" => 2.0 * ulp(g),
        "rsqrt" | "sqrt" if op.contains("approx") => 2f64.powf(-22.9) * g64.abs() + ulp(g),
        "rcp" if op.contains("approx") => ulp(g),
        // 2 ulp for |b| in [2^-126, 2^126]; for 2^126 < |b| < 2^128,
        // `div.approx` gives exactly zero (a finite `a`); no bound otherwise.
        "div" if op.contains("approx") && b.is_finite() && b.abs() > 2f32.powi(126) => 0.0,
        "div" if (op.contains("approx") || op.contains("full")) && !(2f32.powi(-126)..=2f32.powi(126)).contains(&b.abs()) => return None,
        "div" if op.contains("approx") || op.contains("full") => 2.0 * ulp(g),
        _ => 0.0,
    })
}

/// Special f32 values on an H100 (`tests/gpu/special_f32`,
/// `scripts/gpu_special_f32.py`): every pair of 16 values (zeros,
/// infinities, NaNs with payloads, subnormals, the largest finite, ordinary
/// numbers) through 64 result slots: arithmetic, `.ftz`, `.sat`, `min/max`
/// with `.NaN`, `copysign`, `div.rn/.approx/.full`, `cvt` to integers and
/// halves, `testp`, `setp` and the `.approx` functions. Exact results must be
/// the GPU's bits; an approximate function on an ordinary operand (finite,
/// nonzero, and a finite GPU result) must be within the manual's bound of the
/// GPU's value.
#[test]
fn special_f32_values_are_the_hardwares() {
    let (ab, bb) = (probe_data("special_f32", "a.bin"), probe_data("special_f32", "b.bin"));
    let (a, b, gpu) = (u32s(&ab), u32s(&bb), u32s(&probe_data("special_f32", "out.bin")));
    let n = SPECIAL_SLOTS.len();
    assert_eq!(gpu.len(), a.len() * n);
    let mine = u32s(&launch_probe(&probe_src("special_f32"), "probe32", a.len(), Scheduling::Stack, &[&ab, &bb], 4 * gpu.len()).unwrap());
    let (mut failures, mut exact, mut bounded) = (Vec::new(), 0, 0);
    for t in 0..a.len() {
        let (fa, fb) = (f32::from_bits(a[t]), f32::from_bits(b[t]));
        for (k, op) in SPECIAL_SLOTS.iter().enumerate() {
            if k < 46 && t % 16 != 0 {
                continue; // (a function of `a` alone: one thread per value)
            }
            let (g, me) = (gpu[t * n + k], mine[t * n + k]);
            let ordinary = |x: f32| x.is_finite() && x != 0.0;
            // (`div.approx`/`.full` by |b| > 2^126: the manual states a result
            // only for a finite `a`, zero, which is a*(1/b) with 1/b flushed.)
            // (`div.approx` there is exact: NaN for an infinite `a`, else a zero.)
            let huge_divisor = op.starts_with("div.full") && fb.is_finite() && fb.abs() > 2f32.powi(126) && !fa.is_finite();
            let bound = if huge_divisor {
                None
            } else if ordinary(fa) && (k < 46 || ordinary(fb)) && f32::from_bits(g).is_finite() {
                approx_bound(op, fa, fb, f32::from_bits(g))
            } else {
                Some(0.0)
            };
            match bound {
                None => continue,
                Some(e) if e == 0.0 => exact += 1,
                Some(_) => bounded += 1,
            }
            let ok = g == me || bound.is_some_and(|e| e > 0.0 && (f32::from_bits(g) as f64 - f32::from_bits(me) as f64).abs() <= e);
            if !ok {
                failures.push(format!("{op} a={:#010x} b={:#010x}: gpu {g:#010x} ptxsim {me:#010x}", a[t], b[t]));
            }
        }
    }
    assert!(failures.is_empty(), "{} results differ from the H100:\n{}", failures.len(), failures.join("\n"));
    assert!(exact > 4000 && bounded > 50, "compared {exact} exactly and {bounded} within bounds");
}

/// The result slots of `tests/isa/special_f64.ptx`, one doubleword each;
/// the first 25 depend on `a` only.
const SPECIAL64_SLOTS: &[&str] = &[
    "abs.f64",
    "neg.f64",
    "sqrt.rn.f64",
    "rsqrt.approx.f64",
    "rsqrt.approx.ftz.f64",
    "rcp.rn.f64",
    "rcp.approx.ftz.f64",
    "cvt.rni.f64.f64",
    "cvt.rzi.f64.f64",
    "cvt.rmi.f64.f64",
    "cvt.sat.f64.f64",
    "cvt.rzi.s32.f64",
    "cvt.rni.u32.f64",
    "cvt.rpi.s32.f64",
    "cvt.rzi.s64.f64",
    "cvt.rni.u64.f64",
    "cvt.rn.f32.f64",
    "cvt.rz.f32.f64",
    "cvt.rn.ftz.f32.f64",
    "testp.finite.f64",
    "testp.infinite.f64",
    "testp.number.f64",
    "testp.notanumber.f64",
    "testp.normal.f64",
    "testp.subnormal.f64",
    "min.f64",
    "max.f64",
    "div.rn.f64",
    "add.rn.f64",
    "sub.rn.f64",
    "mul.rn.f64",
    "copysign.f64",
    "add.rz.f64",
    "mul.rm.f64",
    "div.rp.f64",
    "fma.rn.f64 a,b,a",
    "setp.lt.f64",
    "setp.equ.f64",
    "setp.num.f64",
    "setp.nan.f64",
    "setp.gtu.f64",
];

/// Special f64 values on an H100 (`tests/gpu/special_f64`,
/// `scripts/gpu_special_f64.py`): every pair of 16 values through 41
/// result slots (arithmetic in four rounding modes, `sqrt`, `rcp`, the
/// `.approx` reciprocal and square root, rounding to integral values,
/// `.sat`, `min/max`, `copysign`, conversions to integers and to f32,
/// `testp`, `setp`). Every result must be the GPU's bits, except
/// `rsqrt.approx.f64` (without `.ftz`) on an ordinary operand, which must be
/// within the manual's relative error 2^-22.9 of the GPU's value.
#[test]
fn special_f64_values_are_the_hardwares() {
    let (ab, bb) = (probe_data("special_f64", "a.bin"), probe_data("special_f64", "b.bin"));
    let (a, b, gpu) = (u64s(&ab), u64s(&bb), u64s(&probe_data("special_f64", "out.bin")));
    let n = SPECIAL64_SLOTS.len();
    assert_eq!(gpu.len(), a.len() * n);
    let mine = u64s(&launch_probe(&probe_src("special_f64"), "probe_f64", a.len(), Scheduling::Stack, &[&ab, &bb], 8 * gpu.len()).unwrap());
    let (mut failures, mut compared) = (Vec::new(), 0);
    for t in 0..a.len() {
        for (k, op) in SPECIAL64_SLOTS.iter().enumerate() {
            if k < 25 && t % 16 != 0 {
                continue;
            }
            compared += 1;
            let (g, me) = (gpu[t * n + k], mine[t * n + k]);
            let (fg, fm, fa) = (f64::from_bits(g), f64::from_bits(me), f64::from_bits(a[t]));
            let bounded = *op == "rsqrt.approx.f64" && fa.is_finite() && fa > 0.0 && fg.is_finite() && (fg - fm).abs() <= 2f64.powf(-22.9) * fg.abs();
            if g != me && !bounded {
                failures.push(format!("{op} a={:#018x} b={:#018x}: gpu {g:#018x} ptxsim {me:#018x}", a[t], b[t]));
            }
        }
    }
    assert!(failures.is_empty(), "{} results differ from the H100:\n{}", failures.len(), failures.join("\n"));
    assert!(compared > 4000, "compared {compared}");
}

/// The result slots of `tests/isa/special_half.ptx`, one halfword each; the
/// first 13 depend on `a` (f16) or `x` (bf16) only.
const HALF_SLOTS: &[&str] = &[
    "neg.f16",
    "abs.f16",
    "ex2.approx.f16",
    "tanh.approx.f16",
    "neg.bf16",
    "abs.bf16",
    "ex2.approx.ftz.bf16",
    "tanh.approx.bf16",
    "cvt.f32.f16 (low half)",
    "cvt.f32.f16 (high half)",
    "cvt.f32.bf16 (low half)",
    "cvt.f32.bf16 (high half)",
    "cvt.rn.f16.f32 (cvt.f32.bf16 x)",
    "add.rn.f16",
    "sub.rn.f16",
    "mul.rn.f16",
    "add.rn.ftz.f16",
    "mul.rn.sat.f16",
    "min.f16",
    "max.f16",
    "min.NaN.f16",
    "max.NaN.f16",
    "add.rn.bf16",
    "mul.rn.bf16",
    "min.bf16",
    "max.bf16",
    "min.NaN.bf16",
    "max.NaN.bf16",
    "sub.rn.bf16",
    "fma.rn.f16 a,b,a",
    "fma.rn.bf16 x,y,x",
    "fma.rn.relu.f16 a,b,a",
    "setp.lt.f16",
    "setp.equ.f16",
    "setp.nan.f16",
    "setp.ge.f16",
    "add.rn.f16x2 (a,b)+(a,b) low",
    "high",
];

/// Special f16 and bf16 values on an H100 (`tests/gpu/special_half`,
/// `scripts/gpu_special_half.py`): every pair of 16 values of each type
/// through 38 result slots (arithmetic, `.ftz`, `.sat`, `.relu`, `min/max`
/// with `.NaN`, `neg`, `abs`, `ex2`/`tanh.approx`, conversions to and from
/// f32, `setp`, `f16x2`). Every result must be the GPU's bits, except
/// `ex2.approx.f16` on an ordinary operand: within the manual's relative
/// error 2^-9.9 of the GPU's value.
#[test]
fn special_half_values_are_the_hardwares() {
    let raw: Vec<Vec<u8>> = ["a.bin", "b.bin", "x.bin", "y.bin"].iter().map(|f| probe_data("special_half", f)).collect();
    let ins: Vec<Vec<u16>> = raw.iter().map(|b| u16s(b)).collect();
    let gpu = u16s(&probe_data("special_half", "out.bin"));
    let n = HALF_SLOTS.len();
    let threads = ins[0].len();
    assert_eq!(gpu.len(), threads * n);
    let inputs: Vec<&[u8]> = raw.iter().map(|b| b.as_slice()).collect();
    let mine = u16s(&launch_probe(&probe_src("special_half"), "probe_half", threads, Scheduling::Stack, &inputs, 2 * gpu.len()).unwrap());
    let f16 = |h: u16| half::f16::from_bits(h).to_f64();
    let (mut failures, mut compared) = (Vec::new(), 0);
    for t in 0..threads {
        for (k, op) in HALF_SLOTS.iter().enumerate() {
            if k < 13 && t % 16 != 0 {
                continue;
            }
            compared += 1;
            let (g, me) = (gpu[t * n + k], mine[t * n + k]);
            let a = f16(ins[0][t]);
            let bounded = *op == "ex2.approx.f16" && a.is_finite() && a != 0.0 && f16(g).is_finite() && (f16(g) - f16(me)).abs() <= 2f64.powf(-9.9) * f16(g).abs();
            if g != me && !bounded {
                failures.push(format!("{op} a={:#06x} b={:#06x} x={:#06x} y={:#06x}: gpu {g:#06x} ptxsim {me:#06x}", ins[0][t], ins[1][t], ins[2][t], ins[3][t]));
            }
        }
    }
    assert!(failures.is_empty(), "{} results differ from the H100:\n{}", failures.len(), failures.join("\n"));
    assert!(compared > 4000, "compared {compared}");
}

/// The result slots of `tests/isa/int_ops.ptx`, one doubleword each.
const INT_SLOTS: &[&str] = &[
    "mul.hi.u32",
    "mul.hi.s32",
    "mad.hi.u32",
    "mad.lo.s32",
    "mul24.lo.u32",
    "mul24.hi.u32",
    "mul24.hi.s32",
    "mad24.lo.s32",
    "sad.u32",
    "sad.s32",
    "bfe.u32",
    "bfe.s32",
    "bfi.b32",
    "prmt.b32",
    "prmt.b32.f4e",
    "prmt.b32.b4e",
    "prmt.b32.rc8",
    "prmt.b32.ecl",
    "prmt.b32.ecr",
    "prmt.b32.rc16",
    "shf.l.wrap.b32",
    "shf.r.wrap.b32",
    "shf.l.clamp.b32",
    "shf.r.clamp.b32",
    "shl.b32",
    "shr.s32",
    "shr.u32",
    "brev.b32",
    "bfind.u32",
    "bfind.s32",
    "bfind.shiftamt.u32",
    "bfind.shiftamt.s32",
    "clz.b32",
    "popc.b32",
    "dp4a.u32.u32",
    "dp4a.s32.s32",
    "dp4a.s32.u32",
    "dp2a.lo.u32.u32",
    "dp2a.hi.s32.s32",
    "add.sat.s32",
    "sub.sat.s32",
    "min.s32",
    "max.u32",
    "abs.s32",
    "neg.s32",
    "lop3.b32 0x96",
    "lop3.b32 0xe8",
    "cnot.b32",
    "min.u16x2",
    "max.s16x2",
    "add.u16x2",
    "szext.clamp.s32",
    "szext.wrap.u32",
    "div.s32",
    "rem.s32",
    "div.u32",
    "rem.u32",
    "cvt.s8.s32.sat",
    "cvt.u16.s32.sat",
    "cvt.s16.u32.sat",
    "mul.hi.u64",
    "mul.hi.s64",
    "mad.lo.u64",
    "bfe.u64",
    "bfe.s64",
    "brev.b64",
    "shr.s64",
    "shl.b64",
    "div.s64",
    "rem.u64",
    "clz.b64",
    "popc.b64",
    "bfind.u64",
    "bfind.s64",
    "mul.wide.s32",
    "mul.wide.u32",
    "mad.wide.s32",
    "add.s64",
    "min.s64",
    "abs.s64",
];

/// Integer instructions on an H100 (`tests/gpu/int_ops`,
/// `scripts/gpu_int_ops.py`): 256 threads of pseudo-random and boundary
/// operands through 80 operations (high and wide multiplies, `mul24`,
/// `sad`, `bfe`/`bfi`, every `prmt` mode, `shf`, shifts past the width,
/// `brev`, `bfind`, `clz`, `popc`, `dp4a`/`dp2a`, saturating arithmetic,
/// `lop3`, `szext`, division, `cvt` with `.sat`, their 64-bit forms). Every
/// result must be the GPU's bits, except 64-bit `bfe` with a position or
/// length above 255, which the manual restricts to 0..255 (ptxsim applies
/// the manual's `& 0xff`; the H100's 64-bit sequence does not). The
/// sm_90 packed `min.u16x2`, `max.s16x2` and `add.u16x2` are compared
/// like the rest.
#[test]
fn integer_results_are_the_hardwares() {
    let full = probe_src("int_ops");
    let inp = probe_data("int_ops", "in.bin");
    let gpu = u64s(&probe_data("int_ops", "out.bin"));
    let n = INT_SLOTS.len();
    let threads = inp.len() / 48;
    assert_eq!(gpu.len(), threads * n);
    let mine = launch_probe(&full, "probe_int", threads, Scheduling::Stack, &[&inp], 8 * gpu.len()).map(|o| u64s(&o)).unwrap();
    let word = |t: usize, k: usize| u32::from_le_bytes(inp[48 * t + 4 * k..48 * t + 4 * k + 4].try_into().unwrap());
    let (mut failures, mut compared) = (Vec::new(), 0);
    for t in 0..threads {
        for (k, op) in INT_SLOTS.iter().enumerate() {
            if op.starts_with("bfe.") && op.ends_with("64") && (word(t, 1) > 255 || word(t, 2) > 255) {
                continue;
            }
            compared += 1;
            let (g, me) = (gpu[t * n + k], mine[t * n + k]);
            if g != me {
                failures.push(format!("{op} thread {t} (a={:#x} b={:#x} c={:#x} d={:#x}): gpu {g:#x} ptxsim {me:#x}", word(t, 0), word(t, 1), word(t, 2), word(t, 3)));
            }
        }
    }
    assert!(failures.is_empty(), "{} results differ from the H100:\n{}", failures.len(), failures.join("\n"));
    assert!(compared > 18_000, "compared {compared}");
}

/// Warp primitives on an H100 (`tests/gpu/warp_ops`, `scripts/gpu_warp_ops.py`):
/// two full warps through `tests/isa/warp_ops.ptx`'s 351 result words
/// (`shfl.sync` in the four modes with seven clamp/segment values and six
/// lane operands, results and predicates; `vote`, `match`, `redux`,
/// `%lanemask_*`, `activemask`), every word equal to the GPU's.
#[test]
fn warp_primitives_are_the_hardwares() {
    let src = probe_src("warp_ops");
    let (inp, gpu) = (probe_data("warp_ops", "in.bin"), probe_data("warp_ops", "out.bin"));
    let threads = inp.len() / 12;
    let words = gpu.len() / 4 / threads;
    assert_eq!(words, 351);
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let mine = launch_probe(&src, "probe_warp", threads, mode, &[&inp], gpu.len()).unwrap();
        let differ: Vec<String> = (0..gpu.len() / 4)
            .filter(|w| gpu[4 * w..4 * w + 4] != mine[4 * w..4 * w + 4])
            .take(10)
            .map(|w| format!("thread {} word {}: gpu {:02x?} ptxsim {:02x?}", w / words, w % words, &gpu[4 * w..4 * w + 4], &mine[4 * w..4 * w + 4]))
            .collect();
        assert!(differ.is_empty(), "({mode:?}) differs from the H100:\n{}", differ.join("\n"));
    }
}
