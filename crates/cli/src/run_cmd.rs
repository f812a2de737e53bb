//! `ptxsim run`: run a kernel on the SIMT emulator.
//!
//! Owns the command flow: read the module, check every input before the
//! launch (the `--arg` specs and files, the numeric flags, the output
//! directory, the arguments against the kernel's parameters, the limits of
//! the module's `.target`), load, launch, and report. The JSON report is
//! `{"ok": true, "buffers": [...], "stats": {...}}` or `{"ok": false,
//! "error": {...}}`, with `"partial": true` and the buffers as the trap left
//! them when a launch traps. Exit status: 0 ok, 1 trap or PTX error, 2
//! usage/I/O. Default fuel: 10^9 warp instructions (`--fuel N` counts warp
//! instructions). Inputs live in `run_args`, outputs in `run_out`.

use crate::common::{cut, escape_controls, read_text, EXIT_INPUT, EXIT_USAGE, MAX_LISTED};
use crate::run_args::{check_args, parse_count, parse_dim, parse_spec, ModuleInfo, Spec, Ty, MAX_THREADS};
use crate::run_init::FillError;
use crate::run_out::{self, Buffer};
use ptxsim_exec::{Device, KernelArg, LaunchConfig, LaunchStats, Limits, RunError, Scheduling, TrapKind, DEFAULT_FUEL};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum SchedArg {
    Stack,
    Its,
}

/// `--jit`.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum JitArg {
    On,
    Off,
    Auto,
}

impl JitArg {
    fn mode(self) -> ptxsim_jit::Mode {
        match self {
            JitArg::On => ptxsim_jit::Mode::On,
            JitArg::Off => ptxsim_jit::Mode::Off,
            JitArg::Auto => ptxsim_jit::Mode::Auto,
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// The PTX file; several separately compiled modules (`nvcc -rdc`) are
    /// linked as nvlink links them.
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// The kernel (`.entry`) to run (without it, the module's kernels are listed).
    #[arg(long)]
    kernel: Option<String>,
    /// Grid dimensions in CTAs: X[,Y[,Z]].
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    grid: String,
    /// Block dimensions in threads: X[,Y[,Z]].
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    block: String,
    /// Thread-block cluster dimensions: X[,Y[,Z]] (needs a module for sm_90 or later).
    #[arg(long, allow_hyphen_values = true)]
    cluster: Option<String>,
    /// A kernel argument, in parameter order: TYPE=VALUE (u32=1024, f32=0.5) or
    /// a buffer TYPE[N]=INIT with INIT one of zeros, iota, 1,2,3, @file.npy, @file.bin.
    /// A buffer given for an array parameter (`.param .align 8 .b8 s[16]`, a
    /// struct passed by value) is passed by value: `--arg 'b8[16]=@s.bin'`.
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// Print one JSON object (buffers, stats, or the error).
    #[arg(long)]
    json: bool,
    /// Write each buffer as DIR/argN.npy (N: the 0-based argument index); checked before the run.
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Reconvergence model.
    #[arg(long, value_enum, default_value = "stack")]
    scheduling: SchedArg,
    /// The executor: the PTX engine, or the sm_50 machine form (`ptxsim sass`) on the CRS stack.
    #[arg(long, value_enum, default_value = "ptx")]
    engine: crate::sass_cmd::EngineArg,
    /// The compiling tier of the PTX engine: `auto` compiles a function to
    /// native code once it is hot (in the background), `on` compiles every
    /// function before the launch, `off` interprets everything.
    #[arg(long, value_enum, default_value = "auto")]
    jit: JitArg,
    /// Warp-instruction budget of the launch.
    #[arg(long, default_value_t = DEFAULT_FUEL.to_string(), allow_hyphen_values = true)]
    fuel: String,
    /// Dynamic shared memory bytes per CTA (`extern .shared`).
    #[arg(long, default_value = "0", allow_hyphen_values = true)]
    shared: String,
    /// Worker threads, 1 to 256 (default: one per core).
    #[arg(long, allow_hyphen_values = true)]
    threads: Option<String>,
    /// Wall-clock limit of the launch in seconds (0: none).
    #[arg(long, default_value = "60", allow_hyphen_values = true)]
    timeout: String,
    /// Cap on all memory: global buffers and variables, and each worker's
    /// shared memory, registers and local frames (4G, 512M, bytes).
    #[arg(long, default_value = "4G", allow_hyphen_values = true)]
    max_memory: String,
    /// Cap on what the kernel prints (`printf`, failed assertions): 1M
    /// (CUDA's default printf buffer), 64K, bytes. Output past it is dropped,
    /// with a note.
    #[arg(long, default_value = "1M", allow_hyphen_values = true)]
    printf_buffer: String,
    /// Size of the device heap of `malloc`/`free` (CUDA's
    /// `cudaLimitMallocHeapSize`): 8M (CUDA's default), 64K, bytes.
    #[arg(long, default_value = "8M", allow_hyphen_values = true)]
    malloc_heap: String,
}

pub(crate) fn error_json(e: &RunError, hint: Option<&str>) -> Value {
    json!({
        "kind": e.kind.as_str(),
        "message": e.message,
        "line": e.line,
        "cta": e.cta.map(|c| c.to_vec()),
        "warp": e.warp,
        "lane": e.lane,
        "function": e.function.as_deref().map(cut),
        "hint": hint,
    })
}

/// A failed launch: the error, a hint, and the buffers as the trap left them.
struct Failure {
    error: RunError,
    buffers: Option<Vec<Buffer>>,
    /// The module of the failing function, when several were linked.
    file: Option<String>,
    /// An input that could not be read as it was checked: a usage/I/O
    /// error (exit status 2), not a launch error.
    usage: bool,
}

impl From<RunError> for Failure {
    fn from(error: RunError) -> Failure {
        Failure { error, buffers: None, file: None, usage: false }
    }
}

/// The file a rendered diagnostic points into: the renderer's location
/// line, `┌─ FILE:LINE:COLUMN`.
fn diagnostic_file(rendered: &str) -> Option<&str> {
    let at = rendered.lines().find_map(|l| l.trim_start().strip_prefix("┌─ "))?;
    let mut parts = at.rsplitn(3, ':');
    let (col, line, file) = (parts.next()?, parts.next()?, parts.next()?);
    let number = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    (number(col) && number(line)).then_some(file)
}

fn fail(a: &Args, file: &str, f: Failure, hint: Option<String>) -> ExitCode {
    let file = f.file.as_deref().unwrap_or(file);
    let mut e = f.error;
    let code = ExitCode::from(if f.usage { EXIT_USAGE } else { EXIT_INPUT });
    // Load errors from the decoder say "line N: ..."; name the file.
    if e.kind == TrapKind::LoadError {
        let named = format!("{file}: line ");
        if let Some(rest) = e.message.strip_prefix("line ").or_else(|| e.message.strip_prefix(named.as_str())) {
            e.message = format!("{file}:{rest}");
        }
    }
    if let (Some(dir), Some(b)) = (&a.out_dir, &f.buffers) {
        if let Err(m) = run_out::write_npy_files(dir, b) {
            eprintln!("error: {}", escape_controls(&m));
        } else if !a.json {
            eprintln!("note: wrote the buffers as the launch left them (partial) to {}", escape_controls(&cut(&dir.display().to_string())));
        }
    }
    let printed = std::mem::take(&mut e.stdout);
    if a.json {
        let _ = run_out::print_json_error(&error_json(&e, hint.as_deref()), f.buffers.as_deref(), &printed);
        return code;
    }
    // What the kernel printed is its own output, written as it is; every
    // line below is escaped (it quotes input: source lines, names, an
    // assertion's message).
    print_stdout(&printed);
    let mut text = String::new();
    use std::fmt::Write;
    if f.usage {
        let _ = writeln!(text, "error: {}", e.message);
    } else if e.message.starts_with("error[") || e.message.starts_with("warning[") {
        // Rendered diagnostics of the parser or checker: already located,
        // in the file they name (when several are linked, not always the
        // kernel's).
        let in_file = diagnostic_file(&e.message).unwrap_or(file);
        let _ = writeln!(text, "error[{}]: `{}` does not load:\n{}", e.kind, cut(in_file), e.message);
    } else {
        let _ = writeln!(text, "error[{}]: {}", e.kind, e.message);
    }
    let mut at = Vec::new();
    if let Some(l) = e.line {
        at.push(format!("{}:{l}", cut(file)));
    }
    if let Some(fun) = &e.function {
        at.push(format!("in `{}`", cut(fun)));
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
        let _ = writeln!(text, "  at {}", at.join(", "));
    }
    if let Some(h) = hint {
        let _ = writeln!(text, "  hint: {h}");
    }
    if let Some(b) = &f.buffers {
        if !b.is_empty() {
            text.push_str("buffers when the launch stopped (partial):\n");
            text.push_str(&run_out::buffer_lines(b));
        }
    }
    eprint!("{}", escape_controls(&text));
    code
}

fn usage(json: bool, msg: String) -> ExitCode {
    let e = RunError::new(TrapKind::InvalidLaunch, msg);
    if json {
        println!("{}", json!({"ok": false, "error": error_json(&e, None)}));
    } else {
        eprintln!("error: {}", escape_controls(&e.message));
    }
    ExitCode::from(EXIT_USAGE)
}

/// The module list of a message: each file and its kernels, cut.
fn kernels_of(sources: &[(String, String)], infos: &[ModuleInfo]) -> String {
    let mut s: Vec<String> = sources.iter().zip(infos).take(MAX_LISTED).map(|((f, _), i)| format!("{}: {}", cut(f), i.kernel_names())).collect();
    if sources.len() > MAX_LISTED {
        s.push(format!("… and {} more modules", sources.len() - MAX_LISTED));
    }
    s.join("; ")
}

pub fn run(a: Args) -> ExitCode {
    // --timeout counts from here: reading and loading the module and the
    // arguments, and the launch.
    let started = Instant::now();
    let mut sources: Vec<(String, String)> = Vec::with_capacity(a.files.len());
    for f in &a.files {
        match read_text(f) {
            Ok(s) => sources.push((f.display().to_string(), s)),
            Err(c) => return c,
        }
    }
    if sources.len() > 1 && a.engine == crate::sass_cmd::EngineArg::Sass {
        return usage(a.json, "--engine sass runs one module: linking several is not supported yet by the machine form; use --engine ptx".into());
    }
    // What the launch is checked against, from the text of the module that
    // defines the kernel (the first one when none does).
    let infos: Vec<ModuleInfo> = sources.iter().map(|(_, src)| ModuleInfo::new(&ptxsim_syntax::parse(src).module)).collect();
    let at = a.kernel.as_deref().and_then(|k| infos.iter().position(|i| i.kernel(k).is_some())).unwrap_or(0);
    let (file, info) = (sources[at].0.clone(), &infos[at]);
    let Some(kernel) = a.kernel.clone() else {
        return usage(a.json, format!("--kernel KERNEL is required; {}", kernels_of(&sources, &infos)));
    };
    let mut specs = Vec::new();
    for s in &a.args {
        match parse_spec(s) {
            Ok(sp) => specs.push(sp),
            Err(m) => return usage(a.json, m),
        }
    }
    let mut cfg = match launch_config(&a, info, &file) {
        Ok(c) => c,
        Err(m) => return usage(a.json, m),
    };
    if let Some(k) = info.kernel(&kernel) {
        if let Err(m) = check_args(k, &specs, info.addr_bytes()) {
            return usage(a.json, m);
        }
    } else if infos.iter().any(|i| !i.kernels.is_empty()) {
        return usage(a.json, format!("no module has a kernel named `{}`; {}", cut(&kernel), kernels_of(&sources, &infos)));
    }
    if let Some(dir) = &a.out_dir {
        if let Err(m) = run_out::prepare_out_dir(dir) {
            return usage(a.json, m);
        }
    }
    let max_memory = match crate::limits::parse_bytes(&a.max_memory) {
        Ok(n) => n,
        Err(m) => return usage(a.json, m),
    };
    if a.engine == crate::sass_cmd::EngineArg::Sass && a.scheduling == SchedArg::Its {
        return usage(a.json, "--engine sass runs the sm_50 machine form, which has no independent thread scheduling: drop --scheduling its".into());
    }
    let (max_shared, _) = info.max_shared();
    let malloc_heap_bytes = match crate::limits::parse_bytes(&a.malloc_heap) {
        Ok(n) => n,
        Err(m) => return usage(a.json, m.replace("--max-memory", "--malloc-heap")),
    };
    let limits = Limits { max_memory, max_shared_bytes: max_shared, malloc_heap_bytes, ..Limits::default() };
    let mut hint = shared_hint(info, &kernel, cfg.dynamic_shared_bytes);
    let empty: Vec<usize> = specs.iter().enumerate().filter(|(i, s)| matches!(s, Spec::Buffer { len: 0, .. }) && !info.kernel(&kernel).is_some_and(|k| k.params.get(*i).is_some_and(|p| p.array))).map(|(i, _)| i).collect();
    let display = crate::limits::progress(&mut cfg, a.json);
    let time = Time { started, limit: cfg.timeout };
    let out = execute(&sources, &kernel, cfg, specs, info, limits, (a.engine, a.jit.mode()), time);
    drop(display);
    drop(sources);
    let (buffers, stats) = match out {
        Ok(o) => o,
        Err(f) => {
            if let (Some(&i), TrapKind::OutOfBounds, true) = (empty.first(), f.error.kind, f.error.message.contains("null pointer")) {
                hint = Some(format!("argument {i} is a buffer of 0 elements: it has no device memory and is passed as a null pointer"));
            }
            let hint = hint.filter(|_| f.error.kind == TrapKind::OutOfBounds);
            return fail(&a, &file, f, hint);
        }
    };
    if let Some(dir) = &a.out_dir {
        if let Err(m) = run_out::write_npy_files(dir, &buffers) {
            eprintln!("error: {}", escape_controls(&m));
            return ExitCode::from(EXIT_USAGE);
        }
    }
    if a.json {
        let _ = run_out::print_json_ok(&buffers, &stats, &stats.stdout);
    } else {
        print_stdout(&stats.stdout);
        print!("{}", escape_controls(&run_out::summary(&file, &kernel, &buffers, &stats)));
    }
    ExitCode::SUCCESS
}

/// Writes what the kernel printed to standard output as it is, and a note
/// on standard error when the cap dropped some of it.
fn print_stdout(p: &ptxsim_exec::Printed) {
    use std::io::Write;
    if !p.bytes.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&p.bytes);
        if !p.bytes.ends_with(b"\n") {
            let _ = out.write_all(b"\n");
        }
        let _ = out.flush();
    }
    if p.dropped > 0 {
        eprintln!("note: the kernel printed more than the printf buffer holds: {} bytes kept, {} bytes dropped (--printf-buffer)", p.bytes.len(), p.dropped);
    }
}

/// The launch configuration from the flags, checked against the module's target.
fn launch_config(a: &Args, info: &ModuleInfo, file: &str) -> Result<LaunchConfig, String> {
    let grid = parse_dim(&a.grid, "grid")?;
    let block = parse_dim(&a.block, "block")?;
    let cluster = a.cluster.as_deref().map(|c| parse_dim(c, "cluster")).transpose()?;
    let mut cfg = LaunchConfig::new(grid, block);
    if cluster.is_some() {
        if let Some(sm) = info.sm.filter(|&sm| sm < 90) {
            return Err(format!("--cluster: thread-block clusters need sm_90 or later, and {} targets sm_{sm}", cut(file)));
        }
    }
    cfg.cluster = cluster;
    cfg.fuel = parse_count(&a.fuel, "--fuel", 0, u64::MAX)?;
    let (max_shared, arch) = info.max_shared();
    let shared = parse_count(&a.shared, "--shared", 0, u32::MAX as u64)?;
    if shared > max_shared as u64 {
        return Err(format!("--shared {shared}: more than the {max_shared} bytes of shared memory a CTA may use on {arch} (the module's .target)"));
    }
    cfg.dynamic_shared_bytes = shared as u32;
    cfg.threads = a.threads.as_deref().map(|t| parse_count(t, "--threads", 1, MAX_THREADS)).transpose()?.map(|t| t as usize);
    cfg.scheduling = if a.scheduling == SchedArg::Its { Scheduling::Its } else { Scheduling::Stack };
    cfg.timeout = crate::limits::parse_timeout(&a.timeout)?;
    cfg.stdout_bytes = crate::limits::parse_bytes(&a.printf_buffer).map_err(|m| m.replace("--max-memory", "--printf-buffer"))?;
    // The machine-form engine writes to a collector given here; the PTX
    // engine returns its own with the launch's result.
    if a.engine == crate::sass_cmd::EngineArg::Sass {
        cfg.stdout = Some(std::sync::Arc::new(ptxsim_exec::Stdout::new(cfg.stdout_bytes)));
    }
    Ok(cfg)
}

/// A hint for a kernel that declares `extern .shared` but was given no
/// dynamic shared memory: its accesses are then out of bounds.
fn shared_hint(info: &ModuleInfo, kernel: &str, dynamic: u32) -> Option<String> {
    if dynamic != 0 {
        return None;
    }
    let mut names: Vec<&str> = info.extern_shared.iter().map(String::as_str).collect();
    if let Some(k) = info.kernel(kernel) {
        names.extend(k.extern_shared.iter().map(String::as_str));
    }
    let first = cut(names.first()?);
    Some(format!("the module declares `extern .shared` `{first}`, whose size is the dynamic shared memory of the launch: give it with --shared BYTES (it is 0)"))
}

/// The time limit of the command: `--timeout` counted from its start.
#[derive(Clone, Copy)]
struct Time {
    started: Instant,
    limit: Option<Duration>,
}

impl Time {
    fn deadline(&self) -> Option<Instant> {
        self.limit.map(|l| self.started + l)
    }

    /// The timeout error for a limit that passed before the launch.
    fn passed(&self, during: &str) -> RunError {
        let limit = self.limit.map_or_else(String::new, show_duration);
        RunError::new(TrapKind::Timeout, format!("the command ran past its time limit of {limit} (--timeout) while {during}, before the launch"))
    }
}

/// "60 s", "1.5 s", "250 ms", as the launch's own timeout error says it.
fn show_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.3} s", d.as_secs_f64())
    }
}

/// Loads, allocates and fills the buffers (each filled in place, a piece
/// at a time), launches with the time left of the command's limit, and
/// hands back every buffer (read from the device as the output needs it),
/// also after a trap (partial results).
#[allow(clippy::too_many_arguments)]
fn execute(
    sources: &[(String, String)],
    kernel: &str,
    mut cfg: LaunchConfig,
    specs: Vec<Spec>,
    info: &ModuleInfo,
    limits: Limits,
    (engine, jit): (crate::sass_cmd::EngineArg, ptxsim_jit::Mode),
    time: Time,
) -> Result<(Vec<Buffer>, LaunchStats), Failure> {
    let mut dev = Device::with_limits(limits);
    let (file, src) = (&sources[0].0, &sources[0].1);
    let (mut module, machine) = match engine {
        crate::sass_cmd::EngineArg::Sass => crate::sass_cmd::load_machine(&mut dev, file, src).map(|(m, p)| (m, Some(p)))?,
        crate::sass_cmd::EngineArg::Ptx if sources.len() > 1 => {
            let refs: Vec<(&str, &str)> = sources.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
            (dev.load_linked(&refs)?, None)
        }
        crate::sass_cmd::EngineArg::Ptx => (dev.load_named(file, src)?, None),
    };
    if machine.is_none() {
        ptxsim_jit::attach(&mut module, jit);
    }
    let deadline = time.deadline();
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(time.passed("loading the module").into());
    }
    let params = info.kernel(kernel).map(|k| k.params.as_slice()).unwrap_or(&[]);
    let mut args = Vec::new();
    let mut bufs = Vec::new();
    for (i, s) in specs.into_iter().enumerate() {
        match s {
            Spec::Scalar(ty, bits) => args.push(match ty {
                Ty::U(8) | Ty::B(8) => KernelArg::U8(bits as u8),
                Ty::S(8) => KernelArg::S8(bits as u8 as i8),
                Ty::U(16) | Ty::B(16) => KernelArg::U16(bits as u16),
                Ty::S(16) => KernelArg::S16(bits as u16 as i16),
                Ty::U(32) | Ty::B(32) => KernelArg::U32(bits as u32),
                Ty::S(32) => KernelArg::S32(bits as u32 as i32),
                Ty::S(_) => KernelArg::S64(bits as i64),
                Ty::F32 => KernelArg::F32(f32::from_bits(bits as u32)),
                Ty::F64 => KernelArg::F64(f64::from_bits(bits)),
                Ty::U(_) | Ty::B(_) => KernelArg::U64(bits),
            }),
            Spec::Buffer { ty, len, init } => {
                if params.get(i).is_some_and(|p| p.array) {
                    // A struct (or any array) passed by value.
                    let mut bytes = vec![0u8; len as usize];
                    init.fill(ty, len, deadline, &mut |off, piece| {
                        bytes[off as usize..off as usize + piece.len()].copy_from_slice(piece);
                        Ok(())
                    })
                    .map_err(|e| fill_failure(e, i, len, &time))?;
                    args.push(KernelArg::Bytes(bytes));
                    continue;
                }
                if len == 0 {
                    // No elements, no device memory: a null pointer, which
                    // every access traps on.
                    args.push(KernelArg::Ptr(0));
                    bufs.push((i, ty, 0, 0));
                    continue;
                }
                let addr = dev.alloc(len)?;
                init.fill(ty, len, deadline, &mut |off, piece| dev.write(addr + off, piece)).map_err(|e| fill_failure(e, i, len, &time))?;
                drop(init);
                args.push(KernelArg::Ptr(addr));
                bufs.push((i, ty, addr, len));
            }
        }
    }
    // The launch gets what is left of the command's time.
    if let Some(d) = deadline {
        let left = d.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(time.passed("loading the arguments").into());
        }
        cfg.timeout = Some(left);
    }
    let cfg = &cfg;
    let loaded = time.started.elapsed();
    let mut launched = match &machine {
        Some(mp) => crate::sass_cmd::launch(&dev, &module, mp, kernel, cfg, &args),
        None => dev.launch(&module, kernel, cfg, &args),
    };
    if let Some(s) = &cfg.stdout {
        match &mut launched {
            Ok(st) => st.stdout = s.take(),
            Err(e) => e.stdout = s.take(),
        }
    }
    drop(args);
    if let (Err(e), Some(limit)) = (&mut launched, time.limit) {
        if e.kind == TrapKind::Timeout {
            e.message = format!(
                "the launch ran past the command's time limit of {} (--timeout, counted from the start: loading the module and the arguments took {})",
                show_duration(limit),
                show_duration(loaded)
            );
        }
    }
    let dev = Rc::new(dev);
    let buffers = || -> Vec<Buffer> {
        bufs.iter()
            .map(|&(i, ty, addr, len)| if len == 0 { Buffer::host(i, ty, Vec::new()) } else { Buffer::device(i, ty, dev.clone(), addr, len) })
            .collect()
    };
    match launched {
        Ok(stats) => Ok((buffers(), stats)),
        Err(error) => {
            // A launch that never started has no results to show.
            let started = !matches!(error.kind, TrapKind::InvalidLaunch | TrapKind::LoadError);
            let buffers = started.then(buffers);
            // The failing function's own module, when several are linked.
            let prog = &module.program;
            let file = (prog.files.len() > 1)
                .then(|| error.function.as_ref().and_then(|f| prog.functions.iter().find(|g| &g.name == f)).and_then(|f| prog.files.get(f.module as usize)).cloned())
                .flatten();
            Err(Failure { error, buffers, file, usage: false })
        }
    }
}

/// The failure of filling argument `i` (`len` bytes).
fn fill_failure(e: FillError, i: usize, len: u64, time: &Time) -> Failure {
    match e {
        FillError::Timeout { done } => time.passed(&format!("loading the arguments (argument {i}: {done} of its {len} bytes filled)")).into(),
        FillError::Input(m) => Failure { usage: true, ..RunError::new(TrapKind::InvalidLaunch, format!("argument {i}: {m}")).into() },
        FillError::Sink(e) => (*e).into(),
    }
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
    let info = ModuleInfo::new(&ptxsim_syntax::parse(src).module);
    let sources = [(file.to_string(), src.to_string())];
    let time = Time { started: Instant::now(), limit: None };
    let (buffers, stats) = execute(&sources, kernel, cfg, specs, &info, Limits::default(), (crate::sass_cmd::EngineArg::Ptx, ptxsim_jit::Mode::Auto), time).map_err(|f| f.error)?;
    let raw = buffers.iter().map(Buffer::hex).collect();
    Ok((run_out::summary(file, kernel, &buffers, &stats), raw))
}
