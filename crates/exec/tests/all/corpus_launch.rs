//! Shared helpers of the corpus launch tests (`corpus_numba.rs`,
//! `corpus_triton.rs`): loading one corpus module, typed host buffers,
//! deterministic pseudo-random inputs, ulp arithmetic for stated error
//! bounds, and the outcome type that separates "ran and matched", "ran and
//! differs" and "stopped at an instruction the engine does not support".

#![allow(dead_code)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Module, RunError, Scheduling, TrapKind};
use std::cell::Cell;
use std::path::PathBuf;

thread_local! {
    /// The scheduling mode of the launches of the current check.
    static MODE: Cell<Scheduling> = const { Cell::new(Scheduling::Stack) };
}

/// Warp instructions one launch may execute: far more than any launch of
/// these tests needs, so running out (a `fuel_exhausted` trap) fails.
pub const FUEL: u64 = 200_000_000;

/// Why a launch check failed.
#[derive(Debug)]
pub enum Failure {
    /// The load or the launch returned an error.
    Run(RunError),
    /// The kernel ran, and an output differs from the independent reference.
    Mismatch(String),
}

impl From<RunError> for Failure {
    fn from(e: RunError) -> Failure {
        Failure::Run(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Run(e) => write!(f, "{e}"),
            Failure::Mismatch(m) => write!(f, "{m}"),
        }
    }
}

pub type Outcome = Result<(), Failure>;

/// A launch that is expected to stop at an instruction the engine does not
/// support yet: (what is launched, the instruction the error must name, the
/// check that runs it and compares its outputs once it runs).
pub type Pending = (&'static str, &'static str, fn() -> Outcome);

/// Runs every pending launch and fails unless each still stops with an
/// `unsupported` error naming its instruction. A launch that now runs and
/// matches must move to the checked tests.
pub fn assert_pending(pending: &[Pending]) {
    let mut problems = Vec::new();
    for (what, insn, check) in pending {
        match check() {
            Ok(()) => problems.push(format!(
                "{what}: now runs and matches its reference; move it from the pending list to the checked tests"
            )),
            Err(Failure::Run(e)) if e.kind == TrapKind::Unsupported && e.message.contains(&format!("`{insn}")) => {}
            Err(e) => problems.push(format!("{what}: expected an `unsupported` error naming `{insn}`, got: {e}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs a check under both scheduling modes (a reconvergence stack per
/// warp, and independent thread scheduling): each must match the reference.
pub fn assert_ok(what: &str, check: fn() -> Outcome) {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        MODE.with(|m| m.set(mode));
        let outcome = check();
        MODE.with(|m| m.set(Scheduling::Stack));
        if let Err(e) = outcome {
            panic!("{what} ({mode:?} scheduling): {e}");
        }
    }
}

/// The path of `tests/<rel>` in the repository.
pub fn tests_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests").join(rel)
}

/// Reads `tests/<rel>`.
pub fn tests_text(rel: &str) -> String {
    let p = tests_path(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// The `.ptx` file names of `tests/<dir>`, sorted.
pub fn ptx_files(dir: &str) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(tests_path(dir))
        .unwrap_or_else(|e| panic!("tests/{dir}: {e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".ptx"))
        .collect();
    files.sort();
    files
}

/// A loaded corpus module with its only kernel.
pub struct Loaded {
    pub dev: Device,
    pub module: Module,
    pub kernel: String,
    /// The module's path under `tests/`.
    pub rel: String,
    /// The buffers allocated by [`Loaded::buffer`]: (address, bytes).
    pub bufs: Vec<(u64, u64)>,
}

impl Loaded {
    /// Loads `tests/<rel>`, which must define exactly one kernel.
    pub fn open(rel: &str) -> Result<Loaded, Failure> {
        let text = tests_text(rel);
        let mut dev = Device::new();
        let mut module = dev.load_named(rel, &text)?;
        // The including test crate's choice of compiling tier (none here;
        // `ptxsim-jit`'s `corpus_frameworks` test forces it on).
        crate::tier_hook(&mut module);
        let kernels = module.kernels();
        if kernels.len() != 1 {
            return Err(Failure::Mismatch(format!("{rel}: expected one kernel, found {kernels:?}")));
        }
        let kernel = kernels[0].to_string();
        Ok(Loaded { dev, module, kernel, rel: rel.to_string(), bufs: Vec::new() })
    }

    /// Allocates a buffer holding `data`; returns its device address.
    pub fn buffer<T: Elem>(&mut self, data: &[T]) -> Result<u64, Failure> {
        let bytes = to_bytes(data);
        let addr = self.dev.alloc(bytes.len().max(1) as u64)?;
        self.dev.write(addr, &bytes)?;
        self.bufs.push((addr, bytes.len() as u64));
        Ok(addr)
    }

    /// Reads `n` elements at `addr`.
    pub fn read<T: Elem>(&self, addr: u64, n: usize) -> Result<Vec<T>, Failure> {
        let bytes = self.dev.read(addr, (n * T::SIZE) as u64)?;
        Ok(from_bytes(&bytes))
    }

    /// Launches the kernel with the test's fuel budget.
    pub fn launch(&self, grid: impl Into<ptxsim_exec::Dim3>, block: impl Into<ptxsim_exec::Dim3>, shared: u32, args: &[KernelArg]) -> Outcome {
        self.launch_stats(grid, block, shared, args).map(|_| ())
    }

    /// [`Loaded::launch`], returning what the launch reports (its
    /// statistics and what the kernel printed).
    pub fn launch_stats(&self, grid: impl Into<ptxsim_exec::Dim3>, block: impl Into<ptxsim_exec::Dim3>, shared: u32, args: &[KernelArg]) -> Result<ptxsim_exec::LaunchStats, Failure> {
        let (grid, block) = (grid.into(), block.into());
        if MODE.with(|m| m.get()) == Scheduling::Stack {
            if let Some(dir) = std::env::var_os("PTXSIM_RECORD_LAUNCHES") {
                self.export(std::path::Path::new(&dir), grid, block, shared, args);
            }
        }
        let mut cfg = LaunchConfig::new(grid, block);
        cfg.fuel = FUEL;
        cfg.dynamic_shared_bytes = shared;
        cfg.scheduling = MODE.with(|m| m.get());
        Ok(self.dev.launch(&self.module, &self.kernel, &cfg, args)?)
    }
}

impl Loaded {
    /// Appends this launch to `dir/launches.txt` in the format of the
    /// `export_corpus_launches` example (for `scripts/gpu_record.py`): a
    /// pointer argument equal to the address of one of this module's
    /// buffers becomes that buffer, with its bytes at launch time written to
    /// `dir`. The launch's name is the module, the kernel and a digest of
    /// the inputs, so it does not depend on the order tests run in.
    fn export(&self, dir: &std::path::Path, grid: ptxsim_exec::Dim3, block: ptxsim_exec::Dim3, shared: u32, args: &[KernelArg]) {
        use std::fmt::Write as _;
        use std::io::Write as _;
        let fnv = |h: u64, b: &[u8]| b.iter().fold(h, |h, &x| (h ^ x as u64).wrapping_mul(0x100_0000_01b3));
        let mut inputs = Vec::new();
        let mut all = 0xcbf2_9ce4_8422_2325u64;
        for a in args {
            let v = match a {
                KernelArg::Ptr(p) | KernelArg::U64(p) => Some(*p),
                _ => None,
            };
            match v.and_then(|p| self.bufs.iter().find(|b| b.0 == p && p != 0)) {
                Some(&(p, n)) => {
                    let bytes = self.dev.read(p, n).expect("read a recorded buffer");
                    all = fnv(all, &bytes);
                    inputs.push(Some(bytes));
                }
                None => {
                    all = fnv(all, &a.bytes());
                    inputs.push(None);
                }
            }
        }
        let stem = self.rel.trim_start_matches("corpus/").trim_end_matches(".ptx").replace('/', "_");
        // (Numba's mangled kernel names are too long for a file name.)
        let kernel = if self.kernel.len() <= 40 { self.kernel.clone() } else { format!("k{:08x}", fnv(0xcbf2_9ce4_8422_2325, self.kernel.as_bytes()) as u32) };
        let id = format!("{stem}.{kernel}.{:08x}", all as u32);
        let mut line = format!("{id} {} {} {},{},{} {},{},{} {shared}", self.rel.trim_start_matches("corpus/"), self.kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z);
        for (i, (a, inp)) in args.iter().zip(&inputs).enumerate() {
            match inp {
                Some(bytes) => {
                    let file = format!("{id}.in{i}.bin");
                    std::fs::write(dir.join(&file), bytes).expect("write an input");
                    let _ = write!(line, " buf:{file}#{:016x}", fnv(0xcbf2_9ce4_8422_2325, bytes));
                }
                None => {
                    let _ = write!(line, " v{}:", a.bytes().len());
                    for x in a.bytes() {
                        let _ = write!(line, "{x:02x}");
                    }
                }
            }
        }
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("launches.txt")).expect("open launches.txt");
        let _ = writeln!(f, "{line}");
    }
}

/// A plain element type of a host buffer (little-endian on the device).
pub trait Elem: Copy {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
elem!(u8, u16, i32, u32, i64, u64, f32, f64);

pub fn to_bytes<T: Elem>(data: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() * T::SIZE);
    for &x in data {
        x.put(&mut out);
    }
    out
}

pub fn from_bytes<T: Elem>(bytes: &[u8]) -> Vec<T> {
    bytes.chunks_exact(T::SIZE).map(T::get).collect()
}

/// A deterministic pseudo-random sequence (splitmix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }

    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        self.f64_in(lo as f64, hi as f64) as f32
    }

    /// Uniform in [lo, hi] (inclusive).
    pub fn i64_in(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + (self.next() as u128 % span) as i128) as i64
    }

    /// A float with a random sign, a random exponent in [emin, emax] and
    /// random mantissa bits: inputs whose sums depend on the order of the
    /// additions.
    pub fn f32_wide(&mut self, emin: i32, emax: i32) -> f32 {
        let e = self.i64_in(emin as i64, emax as i64) as i32;
        let m = 1.0 + (self.next() >> 41) as f32 / (1u32 << 23) as f32;
        let s = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        s * m * 2f32.powi(e)
    }
}

/// The spacing of the f32 values at the magnitude of `x` (for |x| in
/// [2^k, 2^(k+1)): 2^(k-23); subnormal spacing below 2^-126).
pub fn ulp_f32(x: f64) -> f64 {
    let a = x.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return 2f64.powi(-149);
    }
    2f64.powi(a.log2().floor() as i32 - 23)
}

/// The spacing of the f64 values at the magnitude of `x`.
pub fn ulp_f64(x: f64) -> f64 {
    let a = x.abs();
    if a < f64::MIN_POSITIVE {
        return 2f64.powi(-1074);
    }
    2f64.powi(a.log2().floor() as i32 - 52)
}

/// Compares two buffers element by element with `same`; reports the first
/// few differences with their index and both values.
pub fn compare<T: Copy + std::fmt::Debug>(what: &str, got: &[T], want: &[T], same: impl Fn(usize, T, T) -> bool) -> Outcome {
    if got.len() != want.len() {
        return Err(Failure::Mismatch(format!("{what}: {} elements read, {} expected", got.len(), want.len())));
    }
    let bad: Vec<String> = (0..got.len())
        .filter(|&i| !same(i, got[i], want[i]))
        .take(5)
        .map(|i| format!("[{i}]: got {:?}, expected {:?}", got[i], want[i]))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        let total = (0..got.len()).filter(|&i| !same(i, got[i], want[i])).count();
        Err(Failure::Mismatch(format!("{what}: {total} of {} elements differ; {}", got.len(), bad.join("; "))))
    }
}

/// Bit-exact float comparison (`-0.0` differs from `0.0`; NaN equals NaN
/// of the same bits).
pub fn same_bits_f32(_: usize, a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
}

pub fn same_bits_f64(_: usize, a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}
