//! `ptxsim run`: run a kernel on the SIMT emulator.
//!
//! Owns the command-line contract: `--arg` specs (`TYPE=VALUE` scalars and
//! `TYPE[N]=INIT` buffers with `zeros`, `iota`, a list, `@file.npy` or
//! `@file.bin`), the JSON report (`{"ok": true, "buffers": [...], "stats":
//! {...}}` or `{"ok": false, "error": {...}}`), `.npy` output, and the
//! readable summary. Exit status: 0 ok, 1 trap or PTX error, 2 usage/I/O.
//! Default fuel: 10^9 warp instructions (`--fuel N` counts warp instructions).

use crate::common::{read_text, EXIT_INPUT, EXIT_USAGE};
use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, LaunchStats, RunError, Scheduling, TrapKind, DEFAULT_FUEL};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum SchedArg {
    Stack,
    Its,
}

#[derive(clap::Args)]
pub struct Args {
    /// The PTX file.
    file: PathBuf,
    /// The kernel (`.entry`) to run.
    #[arg(long)]
    kernel: String,
    /// Grid dimensions in CTAs: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    grid: String,
    /// Block dimensions in threads: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    block: String,
    /// Thread-block cluster dimensions: X[,Y[,Z]].
    #[arg(long)]
    cluster: Option<String>,
    /// A kernel argument, in parameter order: TYPE=VALUE (u32=1024, f32=0.5) or
    /// a buffer TYPE[N]=INIT with INIT one of zeros, iota, 1,2,3, @file.npy, @file.bin.
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Print one JSON object (buffers, stats, or the error).
    #[arg(long)]
    json: bool,
    /// Write each buffer as DIR/argN.npy (N: the 0-based argument index).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Reconvergence model.
    #[arg(long, value_enum, default_value = "stack")]
    scheduling: SchedArg,
    /// The executor: the PTX engine, or the sm_50 machine form (`ptxsim sass`) on the CRS stack.
    #[arg(long, value_enum, default_value = "ptx")]
    engine: crate::sass_cmd::EngineArg,
    /// Warp-instruction budget of the launch.
    #[arg(long, default_value_t = DEFAULT_FUEL)]
    fuel: u64,
    /// Dynamic shared memory bytes per CTA (`extern .shared`).
    #[arg(long, default_value_t = 0)]
    shared: u32,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Wall-clock limit of the launch in seconds (0: none).
    #[arg(long, default_value = "60", allow_hyphen_values = true)]
    timeout: String,
    /// Cap on all memory: global buffers and variables, and each worker's
    /// shared memory, registers and local frames (4G, 512M, bytes).
    #[arg(long, default_value = "4G", allow_hyphen_values = true)]
    max_memory: String,
}

/// Element types of `--arg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    U(u32),
    S(u32),
    B(u32),
    F32,
    F64,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "u8" => Ty::U(8),
            "u16" => Ty::U(16),
            "u32" => Ty::U(32),
            "u64" => Ty::U(64),
            "s8" => Ty::S(8),
            "s16" => Ty::S(16),
            "s32" => Ty::S(32),
            "s64" => Ty::S(64),
            "b8" => Ty::B(8),
            "b16" => Ty::B(16),
            "b32" => Ty::B(32),
            "b64" => Ty::B(64),
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Ty::U(b) | Ty::S(b) | Ty::B(b) => b as usize / 8,
            Ty::F32 => 4,
            Ty::F64 => 8,
        }
    }

    fn name(self) -> String {
        match self {
            Ty::U(b) => format!("u{b}"),
            Ty::S(b) => format!("s{b}"),
            Ty::B(b) => format!("b{b}"),
            Ty::F32 => "f32".into(),
            Ty::F64 => "f64".into(),
        }
    }

    /// Parses one value into little-endian bits.
    fn value(self, s: &str) -> Result<u64, String> {
        let s = s.trim();
        let bad = || format!("`{s}` is not a valid {} value", self.name());
        match self {
            Ty::F32 => Ok(parse_float(s).ok_or_else(bad)? as f32).map(|f| f.to_bits() as u64),
            Ty::F64 => Ok(parse_float(s).ok_or_else(bad)?.to_bits()),
            Ty::U(b) | Ty::S(b) | Ty::B(b) => {
                let (neg, body) = match s.strip_prefix('-') {
                    Some(r) => (true, r),
                    None => (false, s.strip_prefix('+').unwrap_or(s)),
                };
                let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                    u64::from_str_radix(h, 16).map_err(|_| bad())?
                } else {
                    body.parse::<u64>().map_err(|_| bad())?
                };
                let mask = if b == 64 { u64::MAX } else { (1u64 << b) - 1 };
                if neg {
                    if matches!(self, Ty::U(_)) || mag > (1u64 << (b - 1)) {
                        return Err(format!("`{s}` is out of range for {}", self.name()));
                    }
                    Ok(mag.wrapping_neg() & mask)
                } else {
                    let max = if matches!(self, Ty::S(_)) { (1u64 << (b - 1)) - 1 } else { mask };
                    if mag > max {
                        return Err(format!("`{s}` is out of range for {}", self.name()));
                    }
                    Ok(mag)
                }
            }
        }
    }

    fn json(self, bits: u64) -> Value {
        match self {
            Ty::U(_) | Ty::B(_) => json!(bits),
            Ty::S(b) => {
                let s = 64 - b;
                json!(((bits << s) as i64) >> s)
            }
            Ty::F32 => float_json(f32::from_bits(bits as u32) as f64),
            Ty::F64 => float_json(f64::from_bits(bits)),
        }
    }
}

fn float_json(f: f64) -> Value {
    if f.is_nan() {
        json!("NaN")
    } else if f.is_infinite() {
        json!(if f > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(f)
    }
}

fn parse_float(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "nan" => Some(f64::NAN),
        "inf" | "infinity" | "+inf" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        _ => s.parse::<f64>().ok(),
    }
}

enum Spec {
    Scalar(Ty, u64),
    Buffer { ty: Ty, bytes: Vec<u8> },
}

/// Most elements one buffer argument may have (2^28).
const MAX_ELEMS: u64 = 1 << 28;

fn parse_spec(s: &str) -> Result<Spec, String> {
    let (lhs, rhs) = s.split_once('=').ok_or_else(|| format!("`--arg {s}`: expected TYPE=VALUE or TYPE[N]=INIT"))?;
    if let Some((tname, rest)) = lhs.split_once('[') {
        let ty = Ty::parse(tname).ok_or_else(|| format!("`--arg {s}`: unknown type `{tname}`"))?;
        let n: u64 = rest
            .strip_suffix(']')
            .and_then(|x| x.trim().parse().ok())
            .ok_or_else(|| format!("`--arg {s}`: expected TYPE[N] with N a count"))?;
        if n > MAX_ELEMS {
            return Err(format!("`--arg {s}`: at most {MAX_ELEMS} elements"));
        }
        let sz = ty.size();
        let mut bytes = Vec::with_capacity(n as usize * sz);
        match rhs {
            "zeros" => bytes.resize(n as usize * sz, 0),
            "iota" => {
                for i in 0..n {
                    let bits = match ty {
                        Ty::F32 => (i as f32).to_bits() as u64,
                        Ty::F64 => (i as f64).to_bits(),
                        _ => i,
                    };
                    bytes.extend_from_slice(&bits.to_le_bytes()[..sz]);
                }
            }
            r if r.starts_with('@') => {
                let path = &r[1..];
                bytes = read_file_values(ty, Path::new(path)).map_err(|e| format!("`--arg {s}`: {e}"))?;
                if bytes.len() != n as usize * sz {
                    return Err(format!("`--arg {s}`: {path} holds {} elements, not {n}", bytes.len() / sz));
                }
            }
            list => {
                let vals: Vec<&str> = if list.trim().is_empty() { Vec::new() } else { list.split(',').collect() };
                if vals.len() as u64 != n {
                    return Err(format!("`--arg {s}`: {} values given for {n} elements", vals.len()));
                }
                for v in vals {
                    bytes.extend_from_slice(&ty.value(v).map_err(|e| format!("`--arg {s}`: {e}"))?.to_le_bytes()[..sz]);
                }
            }
        }
        Ok(Spec::Buffer { ty, bytes })
    } else {
        let ty = Ty::parse(lhs).ok_or_else(|| format!("`--arg {s}`: unknown type `{lhs}`"))?;
        Ok(Spec::Scalar(ty, ty.value(rhs).map_err(|e| format!("`--arg {s}`: {e}"))?))
    }
}

fn read_file_values(ty: Ty, path: &Path) -> Result<Vec<u8>, String> {
    let data = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if path.extension().and_then(|e| e.to_str()) != Some("npy") {
        if data.len() % ty.size() != 0 {
            return Err(format!("{} is {} bytes, not a whole number of {} elements", path.display(), data.len(), ty.name()));
        }
        return Ok(data);
    }
    let npy = npyz::NpyFile::new(&data[..]).map_err(|e| format!("{}: {e}", path.display()))?;
    let e = |x: std::io::Error| format!("{}: {x} (the .npy dtype must match {})", path.display(), ty.name());
    let mut out = Vec::new();
    macro_rules! rd {
        ($t:ty) => {
            for v in npy.into_vec::<$t>().map_err(e)? {
                out.extend_from_slice(&v.to_le_bytes());
            }
        };
    }
    match ty {
        Ty::U(8) | Ty::B(8) => rd!(u8),
        Ty::U(16) | Ty::B(16) => rd!(u16),
        Ty::U(32) | Ty::B(32) => rd!(u32),
        Ty::U(_) | Ty::B(_) => rd!(u64),
        Ty::S(8) => rd!(i8),
        Ty::S(16) => rd!(i16),
        Ty::S(32) => rd!(i32),
        Ty::S(_) => rd!(i64),
        Ty::F32 => rd!(f32),
        Ty::F64 => rd!(f64),
    }
    Ok(out)
}

fn write_npy(ty: Ty, bytes: &[u8], path: &Path) -> std::io::Result<()> {
    let sz = ty.size();
    let it = bytes.chunks_exact(sz);
    macro_rules! wr {
        ($t:ty) => {
            npyz::to_file_1d(path, it.map(|c| <$t>::from_le_bytes(c.try_into().unwrap_or_default())).collect::<Vec<$t>>())
        };
    }
    match ty {
        Ty::U(8) | Ty::B(8) => wr!(u8),
        Ty::U(16) | Ty::B(16) => wr!(u16),
        Ty::U(32) | Ty::B(32) => wr!(u32),
        Ty::U(_) | Ty::B(_) => wr!(u64),
        Ty::S(8) => wr!(i8),
        Ty::S(16) => wr!(i16),
        Ty::S(32) => wr!(i32),
        Ty::S(_) => wr!(i64),
        Ty::F32 => wr!(f32),
        Ty::F64 => wr!(f64),
    }
}

pub(crate) fn parse_dim(s: &str, what: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split(',').map(|p| p.trim()).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} takes X[,Y[,Z]]"));
    }
    let mut v = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p.parse().map_err(|_| format!("--{what}: `{p}` is not a positive integer"))?;
    }
    Ok(Dim3::new(v[0], v[1], v[2]))
}

fn error_json(e: &RunError) -> Value {
    json!({
        "ok": false,
        "error": {
            "kind": e.kind.as_str(),
            "message": e.message,
            "line": e.line,
            "cta": e.cta.map(|c| c.to_vec()),
            "warp": e.warp,
            "lane": e.lane,
            "function": e.function,
        }
    })
}

fn fail(json: bool, file: &str, e: &RunError, code: u8) -> ExitCode {
    if json {
        println!("{}", error_json(e));
    } else {
        if e.message.starts_with("error[") || e.message.starts_with("warning[") {
            // Rendered diagnostics of the parser or checker: already located.
            eprintln!("error[{}]: `{file}` does not load:\n{}", e.kind, e.message);
        } else {
            eprintln!("error[{}]: {}", e.kind, e.message);
        }
        let mut at = Vec::new();
        if let Some(l) = e.line {
            at.push(format!("{file}:{l}"));
        }
        if let Some(f) = &e.function {
            at.push(format!("in `{f}`"));
        }
        if let Some(c) = e.cta {
            at.push(format!("CTA ({},{},{})", c[0], c[1], c[2]));
        }
        if let Some(w) = e.warp {
            at.push(format!("warp {w}"));
        }
        if let Some(l) = e.lane {
            at.push(format!("lane {l}"));
        }
        if !at.is_empty() {
            eprintln!("  at {}", at.join(", "));
        }
    }
    ExitCode::from(code)
}

fn usage(json: bool, msg: String) -> ExitCode {
    let e = RunError::new(TrapKind::InvalidLaunch, msg);
    if json {
        println!("{}", error_json(&e));
    } else {
        eprintln!("error: {}", e.message);
    }
    ExitCode::from(EXIT_USAGE)
}

/// Result of a run: buffers (argument index, type, bytes) and stats.
pub(crate) struct Outcome {
    pub buffers: Vec<(usize, String, Vec<Value>, Vec<String>)>,
    pub stats: LaunchStats,
}

pub fn run(a: Args) -> ExitCode {
    let src = match read_text(&a.file) {
        Ok(s) => s,
        Err(c) => return c,
    };
    let file = a.file.display().to_string();
    let mut specs = Vec::new();
    for s in &a.args {
        match parse_spec(s) {
            Ok(sp) => specs.push(sp),
            Err(m) => return usage(a.json, m),
        }
    }
    let grid = match parse_dim(&a.grid, "grid") {
        Ok(d) => d,
        Err(m) => return usage(a.json, m),
    };
    let block = match parse_dim(&a.block, "block") {
        Ok(d) => d,
        Err(m) => return usage(a.json, m),
    };
    let cluster = match a.cluster.as_deref().map(|c| parse_dim(c, "cluster")).transpose() {
        Ok(d) => d,
        Err(m) => return usage(a.json, m),
    };
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.cluster = cluster;
    cfg.fuel = a.fuel;
    cfg.dynamic_shared_bytes = a.shared;
    cfg.threads = a.threads;
    cfg.scheduling = if a.scheduling == SchedArg::Its { Scheduling::Its } else { Scheduling::Stack };
    cfg.timeout = match crate::limits::parse_timeout(&a.timeout) {
        Ok(t) => t,
        Err(m) => return usage(a.json, m),
    };
    let limits = match crate::limits::parse_bytes(&a.max_memory) {
        Ok(n) => ptxsim_exec::Limits { max_memory: n, ..Default::default() },
        Err(m) => return usage(a.json, m),
    };
    if a.engine == crate::sass_cmd::EngineArg::Sass && a.scheduling == SchedArg::Its {
        return usage(a.json, "--engine sass runs the sm_50 machine form, which has no independent thread scheduling: drop --scheduling its".into());
    }
    let display = crate::limits::progress(&mut cfg, a.json);
    let out = execute(&file, &src, &a.kernel, &cfg, &specs, &limits, a.engine);
    drop(display);
    let out = match out {
        Ok(o) => o,
        Err(e) => return fail(a.json, &file, &e, EXIT_INPUT),
    };
    if let Some(dir) = &a.out_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot create {}: {e}", dir.display());
            return ExitCode::from(EXIT_USAGE);
        }
    }
    // .npy files
    if let Some(dir) = &a.out_dir {
        for (i, spec) in specs.iter().enumerate() {
            if let Spec::Buffer { ty, .. } = spec {
                let Some((_, _, _, _)) = out.buffers.iter().find(|b| b.0 == i) else { continue };
                let bytes = &out_bytes(&out, i);
                let path = dir.join(format!("arg{i}.npy"));
                if let Err(e) = write_npy(*ty, bytes, &path) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    return ExitCode::from(EXIT_USAGE);
                }
            }
        }
    }
    if a.json {
        let bufs: Vec<Value> = out.buffers.iter().map(|(i, t, v, _)| json!({"arg": i, "type": t, "values": v})).collect();
        println!("{}", json!({"ok": true, "buffers": bufs, "stats": stats_json(&out.stats)}));
    } else {
        print!("{}", summary(&file, &a.kernel, &out));
    }
    ExitCode::SUCCESS
}

fn out_bytes(out: &Outcome, i: usize) -> Vec<u8> {
    out.buffers.iter().find(|b| b.0 == i).map(|b| b.3.iter().flat_map(|h| hex_to_bytes(h)).collect()).unwrap_or_default()
}

fn hex_to_bytes(h: &str) -> Vec<u8> {
    (0..h.len() / 2).filter_map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok()).collect()
}

pub(crate) fn stats_json(s: &LaunchStats) -> Value {
    json!({
        "warp_instructions": s.warp_instructions,
        "thread_instructions": s.thread_instructions,
        "simt_efficiency": s.simt_efficiency(),
        "divergent_branches": s.divergent_branches,
        "branches": s.branches.iter().take(20).map(|b| json!({"function": b.function, "line": b.line, "divergences": b.count})).collect::<Vec<_>>(),
    })
}

/// Loads, allocates buffers, launches and reads every buffer back.
fn execute(file: &str, src: &str, kernel: &str, cfg: &LaunchConfig, specs: &[Spec], limits: &ptxsim_exec::Limits, engine: crate::sass_cmd::EngineArg) -> Result<Outcome, RunError> {
    let mut dev = Device::with_limits(limits.clone());
    let (module, machine) = match engine {
        crate::sass_cmd::EngineArg::Sass => crate::sass_cmd::load_machine(&mut dev, file, src).map(|(m, p)| (m, Some(p)))?,
        crate::sass_cmd::EngineArg::Ptx => (dev.load_named(file, src)?, None),
    };
    let mut args = Vec::new();
    let mut bufs = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        match s {
            Spec::Scalar(ty, bits) => args.push(match ty {
                Ty::U(8) | Ty::B(8) => KernelArg::U8(*bits as u8),
                Ty::S(8) => KernelArg::S8(*bits as u8 as i8),
                Ty::U(16) | Ty::B(16) => KernelArg::U16(*bits as u16),
                Ty::S(16) => KernelArg::S16(*bits as u16 as i16),
                Ty::U(32) | Ty::B(32) => KernelArg::U32(*bits as u32),
                Ty::S(32) => KernelArg::S32(*bits as u32 as i32),
                Ty::S(_) => KernelArg::S64(*bits as i64),
                Ty::F32 => KernelArg::F32(f32::from_bits(*bits as u32)),
                Ty::F64 => KernelArg::F64(f64::from_bits(*bits)),
                Ty::U(_) | Ty::B(_) => KernelArg::U64(*bits),
            }),
            Spec::Buffer { ty, bytes } => {
                let addr = dev.alloc(bytes.len() as u64)?;
                dev.write(addr, bytes)?;
                args.push(KernelArg::Ptr(addr));
                bufs.push((i, *ty, addr, bytes.len() as u64));
            }
        }
    }
    let stats = match &machine {
        Some(mp) => crate::sass_cmd::launch(&dev, &module, mp, kernel, cfg, &args)?,
        None => dev.launch(&module, kernel, cfg, &args)?,
    };
    let mut buffers = Vec::new();
    for (i, ty, addr, len) in bufs {
        let bytes = if len == 0 { Vec::new() } else { dev.read(addr, len)? };
        let sz = ty.size();
        let mut vals = Vec::new();
        let mut raw = Vec::new();
        for c in bytes.chunks_exact(sz) {
            let mut b = [0u8; 8];
            b[..sz].copy_from_slice(c);
            vals.push(ty.json(u64::from_le_bytes(b)));
            raw.push(c.iter().map(|x| format!("{x:02x}")).collect::<String>());
        }
        buffers.push((i, ty.name(), vals, raw));
    }
    Ok(Outcome { buffers, stats })
}

/// The readable report (also used by the demo).
pub(crate) fn summary(file: &str, kernel: &str, out: &Outcome) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "ran `{kernel}` from {file}");
    for (i, t, vals, _) in &out.buffers {
        let shown: Vec<String> = vals
            .iter()
            .take(16)
            .map(|v| match v {
                Value::String(x) => x.clone(),
                v => v.to_string(),
            })
            .collect();
        let more = if vals.len() > 16 { format!(", … ({} more)", vals.len() - 16) } else { String::new() };
        let _ = writeln!(s, "  arg{i} {t}[{}] = [{}{more}]", vals.len(), shown.join(", "));
    }
    let st = &out.stats;
    let _ = writeln!(s, "instructions: {} warp, {} thread", st.warp_instructions, st.thread_instructions);
    let _ = writeln!(s, "SIMT efficiency: {:.1}%", st.simt_efficiency() * 100.0);
    let _ = writeln!(s, "divergent branches: {}", st.divergent_branches);
    for b in st.branches.iter().take(5) {
        let _ = writeln!(s, "  {file}:{} in `{}`: diverged {} time{}", b.line, b.function, b.count, if b.count == 1 { "" } else { "s" });
    }
    s
}

/// Runs a kernel from source with 1D dims and `--arg`-style specs; returns the
/// readable report and every buffer's final bytes (as hex, one string per element).
pub(crate) fn run_source(
    file: &str,
    src: &str,
    kernel: &str,
    grid: u32,
    block: u32,
    args: &[&str],
    mode: Scheduling,
) -> Result<(String, Vec<Vec<String>>), RunError> {
    let mut specs = Vec::new();
    for a in args {
        specs.push(parse_spec(a).map_err(|m| RunError::new(TrapKind::InvalidLaunch, m))?);
    }
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.scheduling = mode;
    let out = execute(file, src, kernel, &cfg, &specs, &Default::default(), crate::sass_cmd::EngineArg::Ptx)?;
    let raw = out.buffers.iter().map(|b| b.3.clone()).collect();
    Ok((summary(file, kernel, &out), raw))
}
