//! `cargo bench -p ptxsim --bench process`: the `ptxsim` binary as a user
//! runs it, each figure printed beside the same work done in process in
//! the same run.
//!
//! - `ptxsim check` on three modules of at least 12 MB generated from the
//!   corpus (`tests/corpus/**.ptx` files' items copied with renamed
//!   module-level names, `crates/syntax/tests/common/gen.rs`): every file
//!   (`mixed`), the files of small functions (`small`, thousands of them)
//!   and those of large ones (`large`). MB/s of the whole process and its
//!   peak resident memory, on one thread (`-j 1`) and on every core, beside
//!   parsing alone and checking in process (`check_text`) on one thread
//!   and on every core; with `--baseline=PATH`, another `ptxsim` binary on
//!   the same modules in the same run, the runs interleaved, its report
//!   compared. Each process is also measured in MB per CPU second (user and
//!   system), which a busy machine disturbs less than the wall clock.
//! - `ptxsim run` on the Mandelbrot escape kernel of the engine bench
//!   (256 x 256 points, at most 256 iterations, one worker): thread
//!   instructions per second of the whole process (reading the PTX and the
//!   points, decoding, the launch, the summary), beside the launch alone in
//!   process (`Device::launch`, as `cargo bench -p ptxsim-exec --bench
//!   engine` measures it).
//! - a small launch (vector add, 32 threads, three 64K-element buffers):
//!   the whole process beside `ptxsim --version` (the cost of starting a
//!   process at all).
//!
//! Wall-clock figures, best of N runs; the machine the figures in
//! BENCHMARKS.md come from is shared, so compare runs of one invocation.
#![allow(clippy::print_stdout)]

#[path = "../../syntax/tests/common/gen.rs"]
#[allow(dead_code)]
mod gen;

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const MANDEL: &str = include_str!("../../exec/benches/kernels/mandel.ptx");
const VADD: &str = include_str!("../../exec/benches/kernels/vadd.ptx");

const BIN: &str = env!("CARGO_BIN_EXE_ptxsim");

/// Best wall time of `n` runs of `ptxsim args`, and the last run's
/// standard output and error.
fn best_process(n: usize, args: &[&str]) -> (f64, String) {
    let mut best = f64::MAX;
    let mut out = String::new();
    for _ in 0..n {
        let t = Instant::now();
        let o = Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("run ptxsim");
        best = best.min(t.elapsed().as_secs_f64());
        assert!(o.status.success() || args[0] == "check", "ptxsim {args:?} failed: {}", String::from_utf8_lossy(&o.stdout));
        out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    }
    (best, out)
}

/// Best wall time of `n` calls of `f`, and its last result.
fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..n {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("n > 0"))
}

/// What [`race`] measured of one command: its best wall time and best CPU
/// time (user and system) in seconds, its largest peak resident set in
/// bytes, and its last run's standard output and error.
struct Runs {
    wall: f64,
    cpu: f64,
    rss: u64,
    out: String,
}

/// Runs each command (`bin args`, a `ptxsim`) `n` times, the commands in
/// turn (so that a change in the machine's load hits them alike).
///
/// Each run is started by a copy of this bench (`--spawn-rss`, see
/// [`spawn_rss`]) that has allocated nothing: a child's peak resident set
/// as the kernel reports it includes the peak of the process that spawned
/// it (a `vfork`-style spawn shares its memory until `exec`), and this
/// bench holds three modules and has built their syntax trees.
fn race(n: usize, cmds: &[(&str, Vec<&str>)]) -> Vec<Runs> {
    let me = std::env::current_exe().expect("the bench's own path");
    let mut runs: Vec<Runs> = cmds.iter().map(|_| Runs { wall: f64::MAX, cpu: f64::MAX, rss: 0, out: String::new() }).collect();
    for _ in 0..n {
        for ((bin, args), r) in cmds.iter().zip(&mut runs) {
            let o = Command::new(&me).arg("--spawn-rss").arg(bin).args(args).stdin(Stdio::null()).output().expect("run the bench as a spawner");
            let stdout = String::from_utf8_lossy(&o.stdout);
            let (head, rest) = stdout.split_once('\n').expect("the spawner's first line");
            let v: Vec<f64> = head.split_whitespace().map(|x| x.parse::<f64>().expect("a number")).collect();
            r.wall = r.wall.min(v[0]);
            r.rss = r.rss.max(v[1] as u64);
            r.cpu = r.cpu.min(v[2]);
            r.out = rest.to_string() + &String::from_utf8_lossy(&o.stderr);
        }
    }
    runs
}

/// `--spawn-rss BIN ARGS...`: runs `BIN ARGS...`, then prints its wall time
/// in seconds, peak resident set in bytes and CPU time (user and system) in
/// seconds on one line, then its standard output; its standard error is
/// passed through.
fn spawn_rss(bin: &str, args: &[String]) {
    use std::io::{Read, Write};
    let t = Instant::now();
    let mut child = Command::new(bin).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("run ptxsim");
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let _ = child.stdout.take().expect("stdout").read_to_end(&mut o);
    let _ = child.stderr.take().expect("stderr").read_to_end(&mut e);
    // SAFETY: wait4 only writes the status and the struct it is given;
    // the child is reaped here and not waited for again.
    #[allow(unsafe_code)]
    let (peak, cpu) = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        let mut status = 0;
        if libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) < 0 {
            (0, 0.0)
        } else {
            let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
            (ru.ru_maxrss as u64 * 1024, secs(ru.ru_utime) + secs(ru.ru_stime))
        }
    };
    let wall = t.elapsed().as_secs_f64();
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{wall} {peak} {cpu}");
    let _ = stdout.write_all(&o);
    let _ = std::io::stderr().write_all(&e);
}

fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            corpus_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

const MB: f64 = (1 << 20) as f64;

/// The modules `ptxsim check` is timed on, each about 12 MB of the corpus's
/// items copied with renamed names: every template (`mixed`), only files
/// whose functions are small (`small`: at most 4 KiB of text per defined
/// function, so thousands of functions), and only files whose functions
/// are large (`large`: at least 16 KiB per function, a few hundred).
fn check_modules(templates: &[gen::Template]) -> Vec<(&'static str, String, usize)> {
    let pick = |keep: &dyn Fn(&gen::Template) -> bool| -> Vec<&gen::Template> { templates.iter().filter(|t| keep(t)).collect() };
    let small = pick(&|t| t.bodies > 0 && t.bytes_per_body() <= 4 << 10);
    let large = pick(&|t| t.bodies > 0 && t.bytes_per_body() >= 16 << 10);
    vec![
        ("mixed", gen::generate(templates, 12 << 20), templates.len()),
        ("small", gen::generate_from(&small, 12 << 20), small.len()),
        ("large", gen::generate_from(&large, 12 << 20), large.len()),
    ]
}

/// Defined functions in a generated module (each copy of a template
/// defines its `bodies`): counted from the text, a `.entry` or `.func`
/// header followed by its body.
fn count_bodies(text: &str) -> usize {
    let outline = ptxsim_syntax::parse_outline(text).expect("the generated module parses");
    outline.items.iter().filter(|i| matches!(i, ptxsim_syntax::ast::Item::Function(f) if f.body.is_some())).count()
}

fn bench_check(dir: &Path, baseline: Option<&str>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut files = Vec::new();
    corpus_files(&root, &mut files);
    let templates: Vec<_> = files.iter().filter_map(|p| gen::template(&p.display().to_string(), &std::fs::read_to_string(p).ok()?)).collect();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let all = format!("-j{cores}");
    for (name, text, used) in check_modules(&templates) {
        let path = dir.join(format!("{name}.ptx"));
        std::fs::write(&path, &text).expect("write the module");
        let mb = text.len() as f64 / MB;
        let bodies = count_bodies(&text);
        println!("check `{name}`: {mb:.1} MB module, {bodies} functions ({:.1} KiB each), from {used} of {} corpus files", text.len() as f64 / 1024.0 / bodies.max(1) as f64, files.len());

        let p = path.to_str().expect("utf-8 temp path");
        let mut cmds = vec![(BIN, vec!["check", "-j1", p]), (BIN, vec!["check", all.as_str(), p])];
        if let Some(b) = baseline {
            cmds.push((b, vec!["check", "-j1", p]));
            cmds.push((b, vec!["check", all.as_str(), p]));
        }
        let runs = race(5, &cmds);
        let out = &runs[0].out;
        assert_eq!(*out, runs[1].out, "the same report on 1 and {cores} threads");
        if let Some(b) = baseline {
            assert_eq!(*out, runs[2].out, "the baseline {b} reports the same");
        }
        let summary = out.lines().find(|l| l.starts_with("ok:") || l.contains("error")).unwrap_or("").to_string();
        let (t_parse, n) = best_of(5, || ptxsim_syntax::parse(&text).module.items.len());
        let check = |threads: usize| {
            let r = ptxsim_check::check_text(&text, 100, ptxsim_check::Mode::Relocatable, threads);
            r.parse_diagnostics.len() + r.checked.map_or(0, |c| c.diagnostics.len())
        };
        let (t_in_one, d) = best_of(5, || check(1));
        let (t_in_all, _) = best_of(5, || check(cores));
        let rate = |t: f64| mb / t;
        println!("  {cores} cores; MB/s on one thread and on {cores} threads:");
        println!("  {:<44} {:>9.1}", "parse alone, in process (one thread)", rate(t_parse));
        println!("  {:<44} {:>9.1} {:>9.1}", "check_text, in process", rate(t_in_one), rate(t_in_all));
        println!("  {:<44} {:>9.1} {:>9.1}", "`ptxsim check` process", rate(runs[0].wall), rate(runs[1].wall));
        if let Some(b) = baseline {
            println!("  {:<44} {:>9.1} {:>9.1}", "baseline `ptxsim check` process", rate(runs[2].wall), rate(runs[3].wall));
            println!("  (baseline: {b}; its report is the same)");
        }
        println!("  MB per CPU second (user and system) of the process:");
        println!("  {:<44} {:>9.1} {:>9.1}", "`ptxsim check` process", rate(runs[0].cpu), rate(runs[1].cpu));
        if baseline.is_some() {
            println!("  {:<44} {:>9.1} {:>9.1}", "baseline `ptxsim check` process", rate(runs[2].cpu), rate(runs[3].cpu));
        }
        println!(
            "  peak RSS of the process: {:.0} MB = {:.1}x the input on one thread, {:.0} MB = {:.1}x on {cores}",
            runs[0].rss as f64 / MB,
            runs[0].rss as f64 / text.len() as f64,
            runs[1].rss as f64 / MB,
            runs[1].rss as f64 / text.len() as f64
        );
        println!("  ({n} items; {d} diagnostics in process; process summary: {summary})");
    }
}

/// The points of a `w x h` grid over [-2, 0.5] x [-1.25, 1.25], (re, im) each.
fn mandel_points(w: usize, h: usize) -> Vec<f32> {
    (0..w * h).flat_map(|g| [-2.0 + 2.5 * (g % w) as f32 / w as f32, -1.25 + 2.5 * (g / w) as f32 / h as f32]).collect()
}

/// The thread-instruction count in `ptxsim run`'s summary.
fn thread_instructions(out: &str) -> Option<u64> {
    let line = out.lines().find(|l| l.starts_with("instructions:"))?;
    let t = line.split(',').nth(1)?.split_whitespace().next()?;
    t.parse().ok()
}

fn bench_run(dir: &Path) {
    let (w, h) = (256usize, 256usize);
    let pts = mandel_points(w, h);
    let bytes: Vec<u8> = pts.iter().flat_map(|x| x.to_le_bytes()).collect();
    let (ptx, bin) = (dir.join("mandel.ptx"), dir.join("points.bin"));
    std::fs::write(&ptx, MANDEL).expect("write ptx");
    std::fs::write(&bin, &bytes).expect("write points");

    // In process: the launch alone, one worker, best of 5.
    let mut dev = Device::new();
    let m = dev.load(MANDEL).expect("load");
    let c = dev.alloc(bytes.len() as u64).expect("alloc");
    let count = dev.alloc(4 * (w * h) as u64).expect("alloc");
    let mag = dev.alloc(4 * (w * h) as u64).expect("alloc");
    dev.write(c, &bytes).expect("write");
    let mut cfg = LaunchConfig::new(256, 256);
    cfg.threads = Some(1);
    cfg.scheduling = Scheduling::Stack;
    let args = [KernelArg::Ptr(c), KernelArg::Ptr(count), KernelArg::Ptr(mag), KernelArg::U32(256)];
    let (t_in, ti) = best_of(5, || dev.launch(&m, "mandel", &cfg, &args).expect("launch").thread_instructions);

    let (p, b) = (ptx.to_str().expect("utf-8"), format!("f32[{}]=@{}", 2 * w * h, bin.to_str().expect("utf-8")));
    let (cnt, mg) = (format!("u32[{}]=zeros", w * h), format!("f32[{}]=zeros", w * h));
    let run_args = ["run", p, "--kernel", "mandel", "--grid", "256", "--block", "256", "--threads", "1", "--arg", &b, "--arg", &cnt, "--arg", &mg, "--arg", "u32=256"];
    let (t_proc, out) = best_process(5, &run_args);
    assert_eq!(thread_instructions(&out), Some(ti), "the process ran the same instructions:\n{out}");
    let (r_in, r_proc) = (ti as f64 / t_in, ti as f64 / t_proc);
    println!("run: Mandelbrot escape loop, 256 x 256 points, {ti} thread instructions, one worker");
    println!("  {:<44} {:>11.3e} thread-instr/s ({:.1} ms)", "launch alone, in process (interpreted)", r_in, t_in * 1e3);
    println!("  {:<44} {:>11.3e} thread-instr/s ({:.1} ms)", "`ptxsim run` process (--jit auto)", r_proc, t_proc * 1e3);
    // The compiling tier forced on and off, in the same run.
    for jit in ["off", "on"] {
        let mut a = run_args.to_vec();
        a.extend(["--jit", jit]);
        let (t, out) = best_process(5, &a);
        assert_eq!(thread_instructions(&out), Some(ti), "the process ran the same instructions:\n{out}");
        println!("  {:<44} {:>11.3e} thread-instr/s ({:.1} ms)", format!("`ptxsim run --jit {jit}` process"), ti as f64 / t, t * 1e3);
    }
    println!("  in process / whole process: {:.2}x", r_in / r_proc);

    let vadd = dir.join("vadd.ptx");
    std::fs::write(&vadd, VADD).expect("write ptx");
    let v = vadd.to_str().expect("utf-8");
    let (t_small, _) = best_process(10, &["run", v, "--kernel", "vec_add", "--grid", "1", "--block", "32", "--arg", "f32[65536]=iota", "--arg", "f32[65536]=iota", "--arg", "f32[65536]=zeros", "--arg", "u64=65536"]);
    let (t_start, _) = best_process(10, &["--version"]);
    println!("run: vector add, 32 threads, three 64K-element f32 buffers");
    println!("  {:<44} {:>9.2} ms", "`ptxsim --version` process (start-up)", t_start * 1e3);
    println!("  {:<44} {:>9.2} ms", "`ptxsim run` process", t_small * 1e3);
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).is_some_and(|a| a == "--spawn-rss") {
        spawn_rss(&argv[2], &argv[3..]);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    println!("CPU features: fma={} avx2={} avx512f={}", std::arch::is_x86_feature_detected!("fma"), std::arch::is_x86_feature_detected!("avx2"), std::arch::is_x86_feature_detected!("avx512f"));
    let dir = std::env::temp_dir().join(format!("ptxsim-process-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let want = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    if want("check") {
        // `--baseline=PATH`: another `ptxsim` binary (an earlier build) timed
        // on the same modules in the same run, its report compared.
        let baseline = std::env::args().find_map(|a| a.strip_prefix("--baseline=").map(str::to_string));
        bench_check(&dir, baseline.as_deref());
    }
    if want("run") {
        bench_run(&dir);
    }
    // `--keep`: leave the generated inputs for profiling.
    if std::env::args().any(|a| a == "--keep") {
        println!("inputs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
