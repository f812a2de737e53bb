//! Conformance tests for `ptxsim run` (the SIMT engine), written against the
//! CLI contract only:
//!
//! ```text
//! ptxsim run FILE --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--arg SPEC]...
//!            [--json] [--out-dir DIR] [--scheduling stack|its] [--fuel N]
//! ```
//!
//! Two kinds of cases:
//!
//! * Data-driven groups: every `tests/run/<group>.json` (found by
//!   `data_driven_groups`, no list to edit) names a kernel in
//!   `tests/run/<ptx>`, the launch, and the expected buffers or error. The
//!   expected values come from `scripts/gen_run_expectations.py` (Python
//!   reference models of the PTX ISA semantics) or are hand-derived; see
//!   `tests/run/README.md`.
//! * Table groups (`setp_*`): inputs generated here, expected values from an
//!   independent Rust reference (native integer comparisons, IEEE
//!   `partial_cmp`) in this file.
//!
//! Every failure of a group is collected into one report: group, case,
//! scheduling mode, buffer, element, expected vs got.

use serde_json::Value;
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// ------------------------------------------------------------------ plumbing

fn run_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/run").canonicalize().expect("tests/run exists")
}

/// A scratch directory for a test's input files, removed when dropped.
struct TmpDir(PathBuf);

impl std::ops::Deref for TmpDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TmpDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmp_dir(tag: &str) -> TmpDir {
    let d = std::env::temp_dir().join(format!("ptxsim-run-conf-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    TmpDir(d)
}

fn ptxsim(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the ptxsim binary runs")
}

fn clip(s: &str, n: usize) -> String {
    if s.len() <= n {
        s.to_string()
    } else {
        let mut end = n;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}... ({} bytes)", &s[..end], s.len())
    }
}

struct Launch<'a> {
    ptx: PathBuf,
    kernel: &'a str,
    grid: &'a str,
    block: &'a str,
    args: Vec<String>,
    scheduling: Option<&'a str>,
    extra: Vec<String>,
}

impl Launch<'_> {
    fn argv(&self) -> Vec<String> {
        let mut v = vec![
            "run".to_string(),
            self.ptx.display().to_string(),
            "--kernel".into(),
            self.kernel.into(),
            "--grid".into(),
            self.grid.into(),
            "--block".into(),
            self.block.into(),
        ];
        for a in &self.args {
            v.push("--arg".into());
            v.push(a.clone());
        }
        v.push("--json".into());
        if let Some(s) = self.scheduling {
            v.push("--scheduling".into());
            v.push(s.into());
        }
        v.extend(self.extra.iter().cloned());
        v
    }
}

/// Result of one launch: exit code and the parsed JSON object (or why not).
struct RunResult {
    code: Option<i32>,
    json: Result<Value, String>,
    stderr: String,
}

fn launch(l: &Launch) -> RunResult {
    let out = ptxsim(&l.argv());
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let json = serde_json::from_str::<Value>(stdout.trim())
        .map_err(|e| format!("stdout is not one JSON object ({e}): {}", clip(&stdout, 300)));
    RunResult { code: out.status.code(), json, stderr }
}

/// Finds buffer `arg` in the `buffers` array of a successful run.
fn buffer(v: &Value, arg: u64) -> Option<&Value> {
    v.get("buffers")?.as_array()?.iter().find(|b| b.get("arg").and_then(Value::as_u64) == Some(arg))
}

fn is_float(ty: &str) -> bool {
    matches!(ty, "f16" | "f32" | "f64")
}

/// Compares one element. `exp` null = not checked.
fn same_value(ty: &str, exp: &Value, got: &Value) -> bool {
    if exp.is_null() {
        return true;
    }
    if is_float(ty) {
        match (exp, got) {
            (Value::String(e), Value::String(g)) => e == g,
            (Value::Number(e), Value::Number(g)) => {
                let (e, g) = (e.as_f64().unwrap(), g.as_f64().unwrap());
                if ty == "f32" {
                    (e as f32).to_bits() == (g as f32).to_bits()
                } else {
                    e.to_bits() == g.to_bits()
                }
            }
            _ => false,
        }
    } else {
        let as_i128 = |v: &Value| -> Option<i128> {
            v.as_u64().map(|x| x as i128).or_else(|| v.as_i64().map(|x| x as i128))
        };
        match (as_i128(exp), as_i128(got)) {
            (Some(e), Some(g)) => e == g,
            _ => false,
        }
    }
}

fn show(ty: &str, v: &Value) -> String {
    if !is_float(ty) {
        if let Some(u) = v.as_u64() {
            return format!("{u} (0x{u:x})");
        }
        return v.to_string();
    }
    match v.as_f64() {
        Some(f) if ty == "f32" => format!("{} (0x{:08x})", v, (f as f32).to_bits()),
        Some(f) => format!("{} (0x{:016x})", v, f.to_bits()),
        None => v.to_string(),
    }
}

/// Checks the expected buffers of an ok case; appends problems to `fails`.
fn check_buffers(ctx: &str, expect: &Value, got: &Value, fails: &mut Vec<String>) {
    let Some(bufs) = expect.get("buffers").and_then(Value::as_object) else { return };
    for (arg, eb) in bufs {
        let arg: u64 = arg.parse().unwrap();
        let ty = eb["type"].as_str().unwrap();
        let ev = eb["values"].as_array().unwrap();
        let Some(gb) = buffer(got, arg) else {
            fails.push(format!("{ctx}: buffer arg {arg} missing from the output"));
            continue;
        };
        if gb.get("type").and_then(Value::as_str) != Some(ty) {
            fails.push(format!("{ctx}: buffer arg {arg}: type expected {ty}, got {}", gb["type"]));
        }
        let Some(gv) = gb.get("values").and_then(Value::as_array) else {
            fails.push(format!("{ctx}: buffer arg {arg}: no values array"));
            continue;
        };
        if gv.len() != ev.len() {
            fails.push(format!("{ctx}: buffer arg {arg}: {} values expected, got {}", ev.len(), gv.len()));
            continue;
        }
        let bad: Vec<usize> = (0..ev.len()).filter(|&i| !same_value(ty, &ev[i], &gv[i])).collect();
        if !bad.is_empty() {
            let mut s = format!("{ctx}: buffer arg {arg} ({ty}): {} of {} elements differ:", bad.len(), ev.len());
            for &i in bad.iter().take(8) {
                let _ = write!(s, "\n      [{i}] expected {}, got {}", show(ty, &ev[i]), show(ty, &gv[i]));
            }
            fails.push(s);
        }
    }
}

/// Extra checks on an ok case that are properties rather than values.
fn check_properties(ctx: &str, expect: &Value, got: &Value, fails: &mut Vec<String>) {
    if let Some(w) = expect.get("warpid") {
        // %warpid: identical within a warp, distinct between warps of a CTA.
        let arg = w["arg"].as_u64().unwrap();
        let per_cta = w["threads_per_cta"].as_u64().unwrap() as usize;
        match buffer(got, arg).and_then(|b| b["values"].as_array()) {
            None => fails.push(format!("{ctx}: %warpid buffer arg {arg} missing")),
            Some(v) => {
                let v: Vec<u64> = v.iter().map(|x| x.as_u64().unwrap_or(u64::MAX)).collect();
                for (c, cta) in v.chunks(per_cta).enumerate() {
                    let mut ids: Vec<u64> = Vec::new();
                    for (w, warp) in cta.chunks(32).enumerate() {
                        if warp.iter().any(|&x| x != warp[0]) {
                            fails.push(format!("{ctx}: %warpid differs inside warp {w} of CTA {c}: {warp:?}"));
                        }
                        if ids.contains(&warp[0]) {
                            fails.push(format!("{ctx}: %warpid {} shared by two warps of CTA {c}", warp[0]));
                        }
                        ids.push(warp[0]);
                    }
                }
            }
        }
    }
    if let Some(p) = expect.get("permutation") {
        let arg = p["arg"].as_u64().unwrap();
        let n = p["n"].as_u64().unwrap();
        match buffer(got, arg).and_then(|b| b["values"].as_array()) {
            None => fails.push(format!("{ctx}: buffer arg {arg} missing")),
            Some(v) => {
                let mut v: Vec<u64> = v.iter().map(|x| x.as_u64().unwrap_or(u64::MAX)).collect();
                v.sort_unstable();
                if v != (0..n).collect::<Vec<_>>() {
                    fails.push(format!("{ctx}: buffer arg {arg} is not a permutation of 0..{n}: {}", clip(&format!("{v:?}"), 300)));
                }
            }
        }
    }
}

fn check_error(ctx: &str, expect: &Value, r: &RunResult, fails: &mut Vec<String>) {
    let want_exit = expect.get("exit").and_then(Value::as_i64).unwrap_or(1) as i32;
    if r.code != Some(want_exit) {
        fails.push(format!("{ctx}: exit code expected {want_exit}, got {:?}; stderr: {}", r.code, clip(&r.stderr, 300)));
    }
    let Some(kind) = expect.get("kind").and_then(Value::as_str) else { return };
    let v = match &r.json {
        Ok(v) => v,
        Err(e) => {
            fails.push(format!("{ctx}: expected error {kind}: {e}; stderr: {}", clip(&r.stderr, 300)));
            return;
        }
    };
    if v.get("ok") != Some(&Value::Bool(false)) {
        fails.push(format!("{ctx}: expected {{\"ok\": false}} with error {kind}, got {}", clip(&v.to_string(), 300)));
        return;
    }
    let e = &v["error"];
    if e.get("kind").and_then(Value::as_str) != Some(kind) {
        fails.push(format!("{ctx}: error kind expected {kind}, got {}", clip(&e.to_string(), 400)));
        return;
    }
    if let Some(line) = expect.get("line") {
        if e.get("line") != Some(line) {
            fails.push(format!("{ctx}: {kind}: line expected {line}, got {}", e.get("line").unwrap_or(&Value::Null)));
        }
    }
    if let Some(lines) = expect.get("line_in").and_then(Value::as_array) {
        if !lines.iter().any(|l| Some(l) == e.get("line")) {
            fails.push(format!("{ctx}: {kind}: line expected one of {lines:?}, got {}", e.get("line").unwrap_or(&Value::Null)));
        }
    }
    for key in ["lane", "warp", "cta"] {
        if let Some(want) = expect.get(key) {
            if e.get(key) != Some(want) {
                fails.push(format!("{ctx}: {kind}: {key} expected {want}, got {}", e.get(key).unwrap_or(&Value::Null)));
            }
        }
    }
    if let Some(words) = expect.get("message_contains").and_then(Value::as_array) {
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("").to_lowercase();
        for w in words {
            let w = w.as_str().unwrap().to_lowercase();
            if !msg.contains(&w) {
                fails.push(format!("{ctx}: {kind}: message should mention {w:?}: {msg:?}"));
            }
        }
    }
}

/// Runs every case of `tests/run/<group>.json` in every scheduling mode it
/// lists; returns the number of runs and every failure.
fn run_group(group: &str, jit: &str) -> (usize, Vec<String>) {
    let dir = run_dir();
    let text = std::fs::read_to_string(dir.join(format!("{group}.json"))).expect("case file");
    let spec: Value = serde_json::from_str(&text).expect("case file is JSON");
    let ptx = dir.join(spec["ptx"].as_str().unwrap());
    let dir_s = dir.display().to_string();
    let mut fails = Vec::new();
    let mut runs = 0;
    for c in spec["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let args: Vec<String> =
            c["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().replace("{DIR}", &dir_s)).collect();
        let mut extra: Vec<String> = c
            .get("extra")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        extra.extend(["--jit".to_string(), jit.to_string()]);
        let modes: Vec<&str> = c["scheduling"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let expect = &c["expect"];
        for mode in modes {
            runs += 1;
            let ctx = format!("{group}/{name} [kernel {}, --scheduling {mode}, --jit {jit}]", c["kernel"].as_str().unwrap());
            let l = Launch {
                ptx: ptx.clone(),
                kernel: c["kernel"].as_str().unwrap(),
                grid: c["grid"].as_str().unwrap(),
                block: c["block"].as_str().unwrap(),
                args: args.clone(),
                scheduling: Some(mode),
                extra: extra.clone(),
            };
            let r = launch(&l);
            if expect["ok"] == Value::Bool(true) {
                match &r.json {
                    Ok(v) if r.code == Some(0) && v.get("ok") == Some(&Value::Bool(true)) => {
                        check_buffers(&ctx, expect, v, &mut fails);
                        check_properties(&ctx, expect, v, &mut fails);
                    }
                    Ok(v) => fails.push(format!(
                        "{ctx}: expected success, got exit {:?}: {}",
                        r.code,
                        clip(&v.get("error").unwrap_or(v).to_string(), 400)
                    )),
                    Err(e) => fails.push(format!(
                        "{ctx}: expected success, got exit {:?}: {e}; stderr: {}",
                        r.code,
                        clip(&r.stderr, 300)
                    )),
                }
            } else {
                check_error(&ctx, expect, &r, &mut fails);
            }
        }
    }
    (runs, fails)
}

fn report(group: &str, runs: usize, fails: Vec<String>) {
    if !fails.is_empty() {
        let mut s = format!("{group}: {} problem(s) in {runs} run(s):\n", fails.len());
        for f in fails.iter().take(60) {
            let _ = writeln!(s, "  - {f}");
        }
        if fails.len() > 60 {
            let _ = writeln!(s, "  ... and {} more", fails.len() - 60);
        }
        panic!("{s}");
    }
}

// ------------------------------------------------------------ data-driven

/// Every data-driven group: each `tests/run/*.json`, found here (a new
/// group needs no edit of this file), run on its own thread; one report
/// of every group's failures.
#[test]
fn data_driven_groups() {
    data_driven("off");
}

/// The same groups with the compiling tier forced on (every function
/// compiled before the launch): the same expected buffers and errors.
#[test]
fn data_driven_groups_with_the_compiling_tier() {
    data_driven("on");
}

fn data_driven(jit: &str) {
    let mut groups: Vec<String> = std::fs::read_dir(run_dir())
        .expect("tests/run")
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension().and_then(|x| x.to_str()) == Some("json")).then(|| p.file_stem().and_then(|s| s.to_str()).map(str::to_string)).flatten()
        })
        .collect();
    groups.sort();
    // The groups of 2026-11-25: sreg, guards, branch, brx, calls,
    // indirect_call, barriers, spinlock, int_ops, float_ops, cvt, memory,
    // args, traps.
    assert!(groups.len() >= 14, "only {} groups in tests/run: {groups:?}", groups.len());
    let results: Vec<(String, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = groups.iter().map(|g| s.spawn(move || (g.clone(), run_group(g, jit)))).collect();
        handles.into_iter().map(|h| h.join().expect("group thread")).map(|(g, (runs, fails))| (g, runs, fails)).collect()
    });
    let mut all = Vec::new();
    let mut total = 0;
    for (g, runs, fails) in results {
        assert!(runs > 0, "group {g} has no cases");
        total += runs;
        all.extend(fails.into_iter().map(|f| format!("[{g}] {f}")));
    }
    report(&format!("{} groups", groups.len()), total, all);
}

// ------------------------------------------------------------ setp tables

/// A small deterministic generator (SplitMix64) for the random part of the
/// input tables.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn write_bin(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write input");
    format!("@{}", p.display())
}

/// Runs a table kernel `(out u32[n], a T[n], b T[n], ..., n)` in both
/// scheduling modes and compares `out` against `expected`; `describe`
/// explains element i for the report.
#[allow(clippy::too_many_arguments)]
fn run_table(
    group: &str,
    ptx: &str,
    kernel: &str,
    in_args: Vec<String>,
    pre_args: Vec<String>,
    out_arg: u64,
    expected: &[u32],
    describe: &dyn Fn(usize, u32, u32) -> String,
) {
    let n = expected.len();
    let block = 256usize;
    let grid = n.div_ceil(block);
    let mut args = pre_args;
    args.extend(in_args);
    args.push(format!("u32={n}"));
    let mut fails = Vec::new();
    for mode in ["stack", "its"] {
        let ctx = format!("{group} [kernel {kernel}, {n} pairs, --scheduling {mode}]");
        let l = Launch {
            ptx: run_dir().join(ptx),
            kernel,
            grid: &grid.to_string(),
            block: &block.to_string(),
            args: args.clone(),
            scheduling: Some(mode),
            extra: vec![],
        };
        let r = launch(&l);
        let v = match &r.json {
            Ok(v) if r.code == Some(0) && v.get("ok") == Some(&Value::Bool(true)) => v,
            Ok(v) => {
                fails.push(format!("{ctx}: expected success, got exit {:?}: {}", r.code, clip(&v.to_string(), 400)));
                continue;
            }
            Err(e) => {
                fails.push(format!("{ctx}: expected success, got exit {:?}: {e}; stderr: {}", r.code, clip(&r.stderr, 300)));
                continue;
            }
        };
        let Some(got) = buffer(v, out_arg).and_then(|b| b["values"].as_array()) else {
            fails.push(format!("{ctx}: output buffer arg {out_arg} missing"));
            continue;
        };
        if got.len() != n {
            fails.push(format!("{ctx}: {n} results expected, got {}", got.len()));
            continue;
        }
        let mut bad = 0usize;
        for (i, g) in got.iter().enumerate() {
            let g = g.as_u64().map(|x| x as u32);
            if g != Some(expected[i]) {
                bad += 1;
                if bad <= 12 {
                    fails.push(format!("{ctx}: [{i}] {}", describe(i, expected[i], g.unwrap_or(u32::MAX))));
                }
            }
        }
        if bad > 12 {
            fails.push(format!("{ctx}: ... {bad} elements differ in all"));
        }
    }
    report(group, 2, fails);
}

fn mask_diff(names: &[&str], exp: u32, got: u32) -> String {
    let mut s = String::new();
    for (k, name) in names.iter().enumerate() {
        if name.is_empty() {
            continue;
        }
        let (e, g) = (exp >> k & 1, got >> k & 1);
        if e != g {
            let _ = write!(s, " {name}: expected {e} got {g};");
        }
    }
    format!("mask expected 0x{exp:08x}, got 0x{got:08x}:{s}")
}

// ---- integers

const INT_OPS: [&str; 22] = [
    "eq.b", "ne.b", "eq.u", "ne.u", "lo.u", "ls.u", "hi.u", "hs.u", "eq.s", "ne.s", "lt.s", "le.s", "gt.s", "ge.s",
    "lt.u", "le.u", "gt.u", "ge.u", "", "", "lt.s p|q: p", "lt.s p|q: q",
];

/// Reference for setp_int{16,32,64}: bit k = operator k of INT_OPS on a, b
/// read as unsigned (u, b) or two's-complement signed (s) `w`-bit integers.
fn int_mask(a: u64, b: u64, w: u32) -> u32 {
    let sext = |x: u64| -> i64 { ((x << (64 - w)) as i64) >> (64 - w) };
    let (sa, sb) = (sext(a), sext(b));
    let bits = [
        a == b, a != b, a == b, a != b, a < b, a <= b, a > b, a >= b,
        sa == sb, sa != sb, sa < sb, sa <= sb, sa > sb, sa >= sb,
        a < b, a <= b, a > b, a >= b,
    ];
    let mut m = 0u32;
    for (k, &bit) in bits.iter().enumerate() {
        m |= (bit as u32) << k;
    }
    if sa < sb {
        m |= 1 << 20;
    } else {
        m |= 1 << 21;
    }
    m
}

fn strat(w: u32, rng: &mut Rng, count: usize) -> Vec<u64> {
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let half = 1u64 << (w - 1);
    let mut v = vec![0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, half - 2, half - 1, half, half + 1, mask - 1, mask];
    for x in [0x7fffu64, 0x8000, 0xffff, 0x1_0000, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff] {
        if x <= mask {
            v.push(x);
        }
    }
    while v.len() < count {
        let r = rng.next() & mask;
        // also small magnitudes of both signs
        let r = if v.len() % 3 == 0 { r & 0xff } else if v.len() % 3 == 1 { mask - (r & 0xff) } else { r };
        v.push(r);
    }
    v.sort_unstable();
    v.dedup();
    v
}

fn setp_int(w: u32) {
    let mut rng = Rng(0x5e7_0000 + w as u64);
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    let s = strat(w, &mut rng, 256);
    for &a in &s {
        for &b in &s {
            pairs.push((a, b));
        }
    }
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let half = 1u64 << (w - 1);
    if w == 16 {
        // every a against a stratified set of b
        for a in 0..=0xffffu64 {
            for b in [0u64, 0x7fff, 0x8000, 0xffff] {
                pairs.push((a, b));
            }
        }
    } else {
        for _ in 0..16384 {
            let a = rng.next() & mask;
            let b = match rng.next() % 4 {
                0 => a,
                1 => a.wrapping_add(1) & mask,
                2 => a ^ half,
                _ => rng.next() & mask,
            };
            pairs.push((a, b));
        }
    }
    let dir = tmp_dir(&format!("setp{w}"));
    let bytes = |sel: fn(&(u64, u64)) -> u64| -> Vec<u8> {
        pairs.iter().flat_map(|p| sel(p).to_le_bytes()[..(w / 8) as usize].to_vec()).collect()
    };
    let ty = format!("u{w}");
    let n = pairs.len();
    let a = write_bin(&dir, "a.bin", &bytes(|p| p.0));
    let b = write_bin(&dir, "b.bin", &bytes(|p| p.1));
    let expected: Vec<u32> = pairs.iter().map(|&(a, b)| int_mask(a, b, w)).collect();
    let describe = |i: usize, e: u32, g: u32| {
        format!("a=0x{:x} b=0x{:x}: {}", pairs[i].0, pairs[i].1, mask_diff(&INT_OPS, e, g))
    };
    run_table(
        &format!("setp_int{w}"),
        "setp_int.ptx",
        &format!("setp_int{w}"),
        vec![format!("{ty}[{n}]={a}"), format!("{ty}[{n}]={b}")],
        vec![format!("u32[{n}]=zeros")],
        0,
        &expected,
        &describe,
    );
}

/// 16-bit: all 256x256 pairs of a stratified set, plus every a in 0..65536
/// against b in {0, 0x7fff, 0x8000, 0xffff}.
#[test]
fn setp_int16() {
    setp_int(16);
}

/// 32-bit: all pairs of a stratified set of up to 256 values (extremes,
/// neighbours of 0 and of the sign boundary) plus 16384 random pairs biased to
/// equal / adjacent / sign-flipped operands.
#[test]
fn setp_int32() {
    setp_int(32);
}

#[test]
fn setp_int64() {
    setp_int(64);
}

// ---- floats

const FLOAT_OPS: [&str; 32] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan", "", "",
    "eq.ftz", "ne.ftz", "lt.ftz", "le.ftz", "gt.ftz", "ge.ftz", "equ.ftz", "neu.ftz", "ltu.ftz", "leu.ftz",
    "gtu.ftz", "geu.ftz", "num.ftz", "nan.ftz", "ltu p|q: p", "ltu p|q: q",
];

/// The 14 operators of PTX ISA Tables 23-25 from an IEEE comparison result
/// (`None` = unordered, i.e. at least one NaN).
fn cmp_bits(o: Option<Ordering>) -> u32 {
    use Ordering::*;
    let n = o.is_none();
    let bits = [
        o == Some(Equal),
        matches!(o, Some(Less | Greater)),
        o == Some(Less),
        matches!(o, Some(Less | Equal)),
        o == Some(Greater),
        matches!(o, Some(Greater | Equal)),
        n || o == Some(Equal),
        n || matches!(o, Some(Less | Greater)),
        n || o == Some(Less),
        n || matches!(o, Some(Less | Equal)),
        n || o == Some(Greater),
        n || matches!(o, Some(Greater | Equal)),
        !n,
        n,
    ];
    bits.iter().enumerate().fold(0, |m, (k, &b)| m | (b as u32) << k)
}

fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        if x.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x
    }
}

fn f32_mask(a: f32, b: f32) -> u32 {
    let mut m = cmp_bits(a.partial_cmp(&b));
    m |= cmp_bits(ftz32(a).partial_cmp(&ftz32(b))) << 16;
    let ltu = a.is_nan() || b.is_nan() || a < b;
    m |= if ltu { 1 << 30 } else { 1 << 31 };
    m
}

fn f64_mask(a: f64, b: f64) -> u32 {
    let mut m = cmp_bits(a.partial_cmp(&b));
    let ltu = a.is_nan() || b.is_nan() || a < b;
    m |= if ltu { 1 << 30 } else { 1 << 31 };
    m
}

/// IEEE binary16 decoded exactly into f32 (every f16 value is an f32 value).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = (h >> 10) & 0x1f;
    let m = (h & 0x3ff) as f32;
    let mag = match e {
        0 => m * (2.0f32).powi(-24),
        31 => {
            if m == 0.0 {
                f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => (1024.0 + m) * (2.0f32).powi(e as i32 - 25),
    };
    sign * mag
}

fn f16_mask(a: u16, b: u16) -> u32 {
    let (fa, fb) = (f16_to_f32(a), f16_to_f32(b));
    let ftz = |h: u16, f: f32| if h & 0x7c00 == 0 { if h & 0x8000 != 0 { -0.0 } else { 0.0 } } else { f };
    cmp_bits(fa.partial_cmp(&fb)) | cmp_bits(ftz(a, fa).partial_cmp(&ftz(b, fb))) << 16
}

fn special_f32() -> Vec<u32> {
    vec![
        0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x0000_0002, 0x007f_ffff, 0x807f_ffff, 0x0080_0000,
        0x8080_0000, 0x3f80_0000, 0xbf80_0000, 0x3f80_0001, 0x3f7f_ffff, 0x4000_0000, 0x7f7f_ffff, 0xff7f_ffff,
        0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0x7fbf_ffff, 0x3dcc_cccd, 0xc2f6_e979,
        0x4b80_0000, 0x4b80_0001, 0x0040_0000, 0x8040_0000, 0x1e3c_e508, 0x5f80_0000,
    ]
}

fn special_f64() -> Vec<u64> {
    vec![
        0, 0x8000_0000_0000_0000, 1, 0x8000_0000_0000_0001, 0x000f_ffff_ffff_ffff, 0x0010_0000_0000_0000,
        0x3ff0_0000_0000_0000, 0xbff0_0000_0000_0000, 0x3ff0_0000_0000_0001, 0x3fef_ffff_ffff_ffff,
        0x7fef_ffff_ffff_ffff, 0xffef_ffff_ffff_ffff, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0x3fb9_9999_9999_999a,
        0x3810_0000_0000_0000, 0x36a0_0000_0000_0000, 0x47ef_ffff_e000_0000, 0x3ff0_0000_2000_0000,
        0x4340_0000_0000_0000, 0x4340_0000_0000_0001,
    ]
}

/// f32: all pairs of 30 special values (±0, ±min/max subnormal, ±min/max
/// normal, ±1 and neighbours, ±inf, quiet and signalling NaNs of both
/// signs...) plus 12000 random pairs, a third of them (x, x±1 ulp) and a third
/// subnormal. Bits 16..29 check `.ftz`.
#[test]
fn setp_f32() {
    let s = special_f32();
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for &a in &s {
        for &b in &s {
            pairs.push((a, b));
        }
    }
    let mut rng = Rng(0xf32);
    for i in 0..12000 {
        let a = rng.next() as u32;
        let (a, b) = match i % 3 {
            0 => (a, a.wrapping_add((rng.next() % 3) as u32).wrapping_sub(1)),
            1 => (a & 0x807f_ffff, (rng.next() as u32) & 0x807f_ffff),
            _ => (a, rng.next() as u32),
        };
        pairs.push((a, b));
    }
    let dir = tmp_dir("setpf32");
    let n = pairs.len();
    let a = write_bin(&dir, "a.bin", &pairs.iter().flat_map(|p| p.0.to_le_bytes()).collect::<Vec<_>>());
    let b = write_bin(&dir, "b.bin", &pairs.iter().flat_map(|p| p.1.to_le_bytes()).collect::<Vec<_>>());
    let expected: Vec<u32> = pairs.iter().map(|&(a, b)| f32_mask(f32::from_bits(a), f32::from_bits(b))).collect();
    let describe = |i: usize, e: u32, g: u32| {
        let (a, b) = pairs[i];
        format!("a={:e} (0x{a:08x}) b={:e} (0x{b:08x}): {}", f32::from_bits(a), f32::from_bits(b), mask_diff(&FLOAT_OPS, e, g))
    };
    run_table("setp_f32", "setp_float.ptx", "setp_f32", vec![format!("f32[{n}]={a}"), format!("f32[{n}]={b}")],
        vec![format!("u32[{n}]=zeros")], 0, &expected, &describe);
}

/// f64: all pairs of 24 special values plus 12000 random pairs (neighbours,
/// subnormals, arbitrary).
#[test]
fn setp_f64() {
    let s = special_f64();
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    for &a in &s {
        for &b in &s {
            pairs.push((a, b));
        }
    }
    let mut rng = Rng(0xf64);
    for i in 0..12000 {
        let a = rng.next();
        let (a, b) = match i % 3 {
            0 => (a, a.wrapping_add(rng.next() % 3).wrapping_sub(1)),
            1 => (a & 0x800f_ffff_ffff_ffff, rng.next() & 0x800f_ffff_ffff_ffff),
            _ => (a, rng.next()),
        };
        pairs.push((a, b));
    }
    let dir = tmp_dir("setpf64");
    let n = pairs.len();
    let a = write_bin(&dir, "a.bin", &pairs.iter().flat_map(|p| p.0.to_le_bytes()).collect::<Vec<_>>());
    let b = write_bin(&dir, "b.bin", &pairs.iter().flat_map(|p| p.1.to_le_bytes()).collect::<Vec<_>>());
    let expected: Vec<u32> = pairs.iter().map(|&(a, b)| f64_mask(f64::from_bits(a), f64::from_bits(b))).collect();
    let describe = |i: usize, e: u32, g: u32| {
        let (a, b) = pairs[i];
        format!("a={:e} (0x{a:016x}) b={:e} (0x{b:016x}): {}", f64::from_bits(a), f64::from_bits(b), mask_diff(&FLOAT_OPS, e, g))
    };
    run_table("setp_f64", "setp_float.ptx", "setp_f64", vec![format!("f64[{n}]={a}"), format!("f64[{n}]={b}")],
        vec![format!("u32[{n}]=zeros")], 0, &expected, &describe);
}

/// A 16-bit float `setp` table: all pairs of `specials`, then every 16-bit
/// pattern as `a` against each of `bs`. The input buffers are declared `u16`
/// (raw bits); `value` decodes a pattern exactly into an f32 for messages and
/// `mask` gives the expected operator mask.
fn setp_16bit_table(group: &str, ptx: &str, kernel: &str, specials: &[u16], bs: [u16; 3], value: fn(u16) -> f32, mask: fn(u16, u16) -> u32) {
    let mut pairs: Vec<(u16, u16)> = Vec::new();
    for &a in specials {
        for &b in specials {
            pairs.push((a, b));
        }
    }
    for a in 0..=0xffffu16 {
        for b in bs {
            pairs.push((a, b));
        }
    }
    let dir = tmp_dir(&group.replace('_', ""));
    let n = pairs.len();
    let a = write_bin(&dir, "a.bin", &pairs.iter().flat_map(|p| p.0.to_le_bytes()).collect::<Vec<_>>());
    let b = write_bin(&dir, "b.bin", &pairs.iter().flat_map(|p| p.1.to_le_bytes()).collect::<Vec<_>>());
    let expected: Vec<u32> = pairs.iter().map(|&(a, b)| mask(a, b)).collect();
    let describe = |i: usize, e: u32, g: u32| {
        let (a, b) = pairs[i];
        format!("a=0x{a:04x} ({:e}) b=0x{b:04x} ({:e}): {}", value(a), value(b), mask_diff(&FLOAT_OPS, e, g))
    };
    run_table(group, ptx, kernel, vec![format!("u16[{n}]={a}"), format!("u16[{n}]={b}")], vec![format!("u32[{n}]=zeros")], 0, &expected, &describe);
}

/// f16 (`setp.f16`, `setp.ftz.f16`): every one of the 65536 f16 bit patterns as
/// `a` against b in {+0, smallest subnormal, 1.0}, plus all pairs of 40
/// special values.
/// PTX ISA, half-precision `setp`: "By default, subnormal numbers are
/// supported. `setp.ftz.{f16,f16x2}` flushes subnormal inputs to
/// sign-preserving zero."
#[test]
fn setp_f16() {
    let s: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x7bff,
        0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7dff, 0x3555, 0xc100, 0x0200, 0x8200, 0x4000, 0x5640,
        0x6400, 0x6401, 0x1400, 0x9400, 0x0002, 0x0003, 0x3800, 0xb800, 0x7800, 0x0401, 0x8401, 0x2e66, 0xaaaa,
        0x5555,
    ];
    setp_16bit_table("setp_f16", "setp_float.ptx", "setp_f16", &s, [0x0000, 0x0001, 0x3c00], f16_to_f32, f16_mask);
}

/// bf16 as the upper half of an f32 (exact).
fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// bf16 (`setp.bf16`, sm_90): every one of the 65536 bf16 bit patterns as `a`
/// against b in {+0, smallest subnormal, 1.0}, plus all pairs of 36 special
/// values. A bf16 is the upper 16 bits of an f32, so the reference compares
/// `f32::from_bits(h << 16)` with `partial_cmp` (subnormals by value: setp.bf16
/// has no `.ftz`).
#[test]
fn setp_bf16() {
    let s: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x3f81, 0x3f7f, 0x7f7f,
        0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x7fbf, 0x3eab, 0xc120, 0x0040, 0x8040, 0x4000, 0x42c8,
        0x4b80, 0x4b81, 0x1e3c, 0x9e3c, 0x0002, 0x0003, 0x3f00, 0xbf00, 0x7f00, 0x0081,
    ];
    let mask = |a: u16, b: u16| cmp_bits(bf16_to_f32(a).partial_cmp(&bf16_to_f32(b)));
    setp_16bit_table("setp_bf16", "setp_bf16.ptx", "setp_bf16", &s, [0x0000, 0x0001, 0x3f80], bf16_to_f32, mask);
}

// ---- BoolOp forms, p|q, predicate logic, selp

const FORM_OPS: [&str; 27] = [
    "lt.and c", "lt.and !c", "lt.or c", "lt.or !c", "lt.xor c", "lt.xor !c", "lt.and p|q c: p", "lt.and p|q c: q",
    "lt.or p|q !c: p", "lt.or p|q !c: q", "lt.xor p|q c: p", "lt.xor p|q c: q", "geu.and c", "geu.and !c",
    "geu.or c", "geu.or !c", "geu.xor c", "geu.xor !c", "geu.or p|q !c: p", "geu.or p|q !c: q",
    "ne.xor.b32 p|q c: p", "ne.xor.b32 p|q c: q", "and.pred", "or.pred", "xor.pred", "not.pred", "mov.pred",
];

/// Reference for setp_forms (PTX ISA setp: t = a CmpOp b; p = BoolOp(t, c);
/// q = BoolOp(!t, c); 9.3.2 predicate logic).
fn forms_mask(a: u32, b: u32, c: bool) -> u32 {
    let and = |x: bool, y: bool| x && y;
    let or = |x: bool, y: bool| x || y;
    let xor = |x: bool, y: bool| x ^ y;
    let t = (a as i32) < (b as i32);
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    let u = fa.is_nan() || fb.is_nan() || fa >= fb;
    let ne = a != b;
    let bits = [
        and(t, c), and(t, !c), or(t, c), or(t, !c), xor(t, c), xor(t, !c),
        and(t, c), and(!t, c), or(t, !c), or(!t, !c), xor(t, c), xor(!t, c),
        and(u, c), and(u, !c), or(u, c), or(u, !c), xor(u, c), xor(u, !c),
        or(u, !c), or(!u, !c), xor(ne, c), xor(!ne, c),
        t && c, t || c, t ^ c, !t, c,
    ];
    bits.iter().enumerate().fold(0, |m, (k, &bit)| m | (bit as u32) << k)
}

#[test]
fn setp_forms_and_predicate_logic() {
    let vals: Vec<u32> = vec![
        0, 1, 2, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 0x3f80_0000, 0xbf80_0000, 0x7fc0_0000, 0xffc0_0000,
        0x7f80_0000, 0xff80_0000, 0x8000_0001, 0x0000_0001, 0x4000_0000, 100,
    ];
    let mut rows: Vec<(u32, u32, u32)> = Vec::new();
    for &a in &vals {
        for &b in &vals {
            for c in [0u32, 1, 0xdead_beef] {
                rows.push((a, b, c));
            }
        }
    }
    let dir = tmp_dir("forms");
    let n = rows.len();
    let col = |f: fn(&(u32, u32, u32)) -> u32| rows.iter().flat_map(|r| f(r).to_le_bytes()).collect::<Vec<u8>>();
    let a = write_bin(&dir, "a.bin", &col(|r| r.0));
    let b = write_bin(&dir, "b.bin", &col(|r| r.1));
    let c = write_bin(&dir, "c.bin", &col(|r| r.2));
    let expected: Vec<u32> = rows.iter().map(|&(a, b, c)| forms_mask(a, b, c != 0)).collect();
    let describe = |i: usize, e: u32, g: u32| {
        let (a, b, c) = rows[i];
        format!("a=0x{a:08x} b=0x{b:08x} c={}: {}", c != 0, mask_diff(&FORM_OPS, e, g))
    };
    run_table("setp_forms", "setp_forms.ptx", "setp_forms",
        vec![format!("u32[{n}]={a}"), format!("u32[{n}]={b}"), format!("u32[{n}]={c}")],
        vec![format!("u32[{n}]=zeros"), format!("u32[{n}]=zeros")], 0, &expected, &describe);
    // selp.b32 d, a, b, (a <s b) = the signed minimum.
    let expected_sel: Vec<u32> =
        rows.iter().map(|&(a, b, _)| if (a as i32) < (b as i32) { a } else { b }).collect();
    let describe_sel = |i: usize, e: u32, g: u32| {
        let (a, b, _) = rows[i];
        format!("selp.b32 with a=0x{a:08x} b=0x{b:08x}: expected 0x{e:08x}, got 0x{g:08x}")
    };
    run_table("setp_forms(selp)", "setp_forms.ptx", "setp_forms",
        vec![format!("u32[{n}]={a}"), format!("u32[{n}]={b}"), format!("u32[{n}]={c}")],
        vec![format!("u32[{n}]=zeros"), format!("u32[{n}]=zeros")], 1, &expected_sel, &describe_sel);
}

// ------------------------------------------------------------ CLI contract

fn sreg_ptx() -> String {
    run_dir().join("sreg.ptx").display().to_string()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// Usage errors exit with 2: bad --arg specs, bad grid, bad scheduling mode,
/// missing files.
#[test]
fn usage_errors_exit_2() {
    let p = sreg_ptx();
    let base = |extra: &[&str]| {
        let mut v = s(&["run", &p, "--kernel", "sreg", "--grid", "1", "--block", "32"]);
        v.extend(s(extra));
        v
    };
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("unknown scalar type u33", base(&["--arg", "u32[512]=zeros", "--arg", "u33=1"])),
        ("scalar without a value", base(&["--arg", "u32[512]=zeros", "--arg", "u32"])),
        ("unknown INIT", base(&["--arg", "u32[512]=bogus", "--arg", "u32[32]=zeros"])),
        ("list longer than the buffer", base(&["--arg", "u32[2]=1,2,3", "--arg", "u32[32]=zeros"])),
        ("not a number in a list", base(&["--arg", "u32[2]=1,x", "--arg", "u32[32]=zeros"])),
        ("value out of range for u8", base(&["--arg", "u8=300", "--arg", "u32[32]=zeros"])),
        ("missing @file", base(&["--arg", "u32[4]=@/nonexistent/definitely/missing.bin", "--arg", "u32[32]=zeros"])),
        ("bad --grid", {
            let mut v = s(&["run", &p, "--kernel", "sreg", "--grid", "x", "--block", "32"]);
            v.extend(s(&["--arg", "u32[512]=zeros", "--arg", "u32[32]=zeros"]));
            v
        }),
        ("bad --scheduling", base(&["--arg", "u32[512]=zeros", "--arg", "u32[32]=zeros", "--scheduling", "sideways"])),
        ("missing PTX file", s(&["run", "/nonexistent/k.ptx", "--kernel", "k", "--grid", "1", "--block", "1"])),
    ];
    let mut fails = Vec::new();
    for (what, argv) in &cases {
        let out = ptxsim(argv);
        if out.status.code() != Some(2) {
            fails.push(format!(
                "{what}: exit code expected 2, got {:?}; stdout: {}; stderr: {}",
                out.status.code(),
                clip(&String::from_utf8_lossy(&out.stdout), 200),
                clip(&String::from_utf8_lossy(&out.stderr), 200)
            ));
        }
    }
    report("usage_errors", cases.len(), fails);
}

/// A kernel that runs fine exits 0 with --json {"ok": true}, and the same
/// launch without --json also exits 0. The stats are consistent: a uniform
/// full-warp kernel has SIMT efficiency 1 and no divergent branches; the
/// divergent loop kernel has divergent branches and efficiency below 1.
#[test]
fn json_stats() {
    let mut fails = Vec::new();
    let p = sreg_ptx();
    let uni = ptxsim(&s(&[
        "run", &p, "--kernel", "sreg", "--grid", "1", "--block", "32", "--arg", "u32[512]=zeros", "--arg",
        "u32[32]=zeros", "--json",
    ]));
    let plain = ptxsim(&s(&[
        "run", &p, "--kernel", "sreg", "--grid", "1", "--block", "32", "--arg", "u32[512]=zeros", "--arg",
        "u32[32]=zeros",
    ]));
    if plain.status.code() != Some(0) {
        fails.push(format!("without --json: exit {:?}: {}", plain.status.code(), clip(&String::from_utf8_lossy(&plain.stderr), 200)));
    }
    let b = run_dir().join("branch.ptx").display().to_string();
    let div = ptxsim(&s(&[
        "run", &b, "--kernel", "loops", "--grid", "2", "--block", "64", "--arg", "u32[256]=zeros", "--arg",
        "u32=128", "--json",
    ]));
    let stat = |out: &Output, what: &str, fails: &mut Vec<String>| -> Option<(f64, f64, f64, f64)> {
        let v: Value = match serde_json::from_slice(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                fails.push(format!("{what}: exit {:?}, stdout is not JSON ({e}); stderr: {}", out.status.code(), clip(&String::from_utf8_lossy(&out.stderr), 200)));
                return None;
            }
        };
        if out.status.code() != Some(0) || v["ok"] != Value::Bool(true) {
            fails.push(format!("{what}: expected ok with exit 0, got exit {:?}: {}", out.status.code(), clip(&v.to_string(), 300)));
            return None;
        }
        let st = &v["stats"];
        let f = |k: &str| st.get(k).and_then(Value::as_f64);
        match (f("warp_instructions"), f("thread_instructions"), f("simt_efficiency"), f("divergent_branches")) {
            (Some(w), Some(t), Some(e), Some(d)) => Some((w, t, e, d)),
            _ => {
                fails.push(format!("{what}: stats lack numeric warp_instructions/thread_instructions/simt_efficiency/divergent_branches: {st}"));
                None
            }
        }
    };
    if let Some((w, t, e, d)) = stat(&uni, "uniform sreg kernel", &mut fails) {
        if !(w > 0.0 && t > 0.0 && t <= 32.0 * w) {
            fails.push(format!("uniform: need 0 < thread_instructions <= 32*warp_instructions: warp {w}, thread {t}"));
        }
        if t != 32.0 * w {
            fails.push(format!("uniform full warp: thread_instructions {t} should be 32 x warp_instructions {w}"));
        }
        if e != 1.0 {
            fails.push(format!("uniform full warp: simt_efficiency expected 1, got {e}"));
        }
        if d != 0.0 {
            fails.push(format!("uniform: divergent_branches expected 0, got {d}"));
        }
    }
    if let Some((w, t, e, d)) = stat(&div, "divergent loops kernel", &mut fails) {
        if !(w > 0.0 && t > 0.0 && t < 32.0 * w) {
            fails.push(format!("divergent: need 0 < thread_instructions < 32*warp_instructions: warp {w}, thread {t}"));
        }
        if !(e > 0.0 && e < 1.0) {
            fails.push(format!("divergent: simt_efficiency should be in (0, 1), got {e}"));
        }
        if d < 1.0 {
            fails.push(format!("divergent: divergent_branches should be >= 1, got {d}"));
        }
    }
    report("json_stats", 3, fails);
}

/// Parses a version 1.x/2.x .npy file: (descr, shape, data bytes).
fn parse_npy(bytes: &[u8]) -> Result<(String, Vec<usize>, Vec<u8>), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("no .npy magic".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("unknown .npy version {v}")),
    };
    let header = std::str::from_utf8(&bytes[start..start + hlen]).map_err(|e| e.to_string())?;
    let descr = header.split("'descr':").nth(1).and_then(|r| r.split('\'').nth(1)).ok_or("no descr")?.to_string();
    if header.contains("'fortran_order': True") {
        return Err("fortran_order".into());
    }
    let shape_s = header.split("'shape':").nth(1).and_then(|r| r.split('(').nth(1)).and_then(|r| r.split(')').next()).ok_or("no shape")?;
    let shape = shape_s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(|x| x.parse::<usize>().map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?;
    Ok((descr, shape, bytes[start + hlen..].to_vec()))
}

/// --out-dir writes argN.npy for every buffer argument (N = 0-based argument
/// index) with the final contents; scalar arguments get no file.
#[test]
fn out_dir_npy() {
    let dir = tmp_dir("outdir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = run_dir().join("args.ptx").display().to_string();
    let out = ptxsim(&s(&[
        "run", &p, "--kernel", "inplace", "--grid", "1", "--block", "64", "--arg", "u8[10]=iota", "--arg", "u32=10",
        "--arg", "s16[3]=1,-2,3", "--arg", "u32=3", "--arg", "f32[2]=1,-1", "--arg", "u32=2", "--arg", "f64[2]=0.25,8",
        "--arg", "u32=2", "--arg", "s64[2]=-1,7", "--arg", "u32=2", "--arg", "u32[3]=4294967295,0,9", "--arg", "u32=3",
        "--out-dir", &dir.display().to_string(),
    ]));
    let mut fails = Vec::new();
    if out.status.code() != Some(0) {
        fails.push(format!("exit {:?}; stderr: {}", out.status.code(), clip(&String::from_utf8_lossy(&out.stderr), 300)));
    }
    let le = |v: &[i128], size: usize| -> Vec<u8> { v.iter().flat_map(|x| (*x as u64).to_le_bytes()[..size].to_vec()).collect() };
    let expect: Vec<(usize, &[&str], Vec<u8>)> = vec![
        (0, &["|u1", "<u1"], le(&(0..10).map(|i| 3 * i + 1).collect::<Vec<_>>(), 1)),
        (2, &["<i2"], le(&[-1, 2, -3], 2)),
        (4, &["<f4"], [2.5f32, -1.5].iter().flat_map(|x| x.to_le_bytes()).collect()),
        (6, &["<f8"], [-1.0f64, 6.75].iter().flat_map(|x| x.to_le_bytes()).collect()),
        (8, &["<i8"], le(&[3, -21], 8)),
        (10, &["<u4"], le(&[0, 1, 10], 4)),
    ];
    for (arg, descrs, data) in expect {
        let f = dir.join(format!("arg{arg}.npy"));
        match std::fs::read(&f) {
            Err(e) => fails.push(format!("{}: {e}", f.display())),
            Ok(bytes) => match parse_npy(&bytes) {
                Err(e) => fails.push(format!("{}: not a valid .npy: {e}", f.display())),
                Ok((descr, shape, got)) => {
                    if !descrs.contains(&descr.as_str()) {
                        fails.push(format!("arg{arg}.npy: dtype expected {descrs:?}, got {descr:?}"));
                    }
                    let n = data.len() / descrs[0][2..].parse::<usize>().unwrap();
                    if shape != vec![n] {
                        fails.push(format!("arg{arg}.npy: shape expected ({n},), got {shape:?}"));
                    }
                    if got != data {
                        fails.push(format!("arg{arg}.npy: data expected {data:?}, got {got:?}"));
                    }
                }
            },
        }
    }
    for scalar in [1, 3, 5, 7, 9, 11] {
        if dir.join(format!("arg{scalar}.npy")).exists() {
            fails.push(format!("arg{scalar}.npy written for a scalar argument"));
        }
    }
    report("out_dir_npy", 1, fails);
}
