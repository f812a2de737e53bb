//! Launches the corpus kernels that have golden references under
//! `tests/corpus/golden/<case>/` and compares their outputs with them, under
//! both scheduling modes. The references are computed independently of
//! ptxsim by `tests/corpus/src/golden.py` (Python's `math` module in double
//! precision, exact rational arithmetic for directed roundings, Python
//! integers for the integer intrinsics); `scripts/gpu_golden.py` checks the
//! same references against a real GPU.
//!
//! A case directory holds `case.txt` (one directive a line):
//!
//! ```text
//! ptx nvcc/mathf.ptx          # module, relative to tests/corpus
//! kernel mathf_unary         # `*`: the module's only kernel (Numba's mangled names)
//! grid X Y Z / block X Y Z / shared BYTES
//! buf K TYPE N                # argument K: a buffer of N elements, argK.bin
//!                             # (TYPE u8..u64, s8..s64, f16, bf16, f32, f64)
//! val K TYPE VALUE            # argument K: a scalar
//! exact K all|masked ROWS     # buffer K after the launch equals wantK.bin
//!                             # (where maskK.bin is non-zero, if masked)
//! approx K ROWS               # |got - want| <= tol, wantK.bin and tolK.bin f64
//! ```
//!
//! `ROWS` names the equal-sized rows of the buffer (one per function), so a
//! difference is reported with its function and element. An `approx`
//! tolerance below zero leaves the element out; zero asks for the exact
//! value (sign of zero included); NaN matches any NaN; infinities must match.


use crate::corpus_launch::*;
use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};
use std::path::Path;

/// An element type of a golden buffer.
fn elem_size(ty: &str) -> Option<usize> {
    Some(match ty {
        "u8" | "s8" => 1,
        "u16" | "s16" | "f16" | "bf16" | "b16" => 2,
        "u32" | "s32" | "f32" => 4,
        "u64" | "s64" | "f64" => 8,
        _ => return None,
    })
}

/// Reads element `i` of a buffer of type `ty` as f64 (float types only).
fn as_f64(ty: &str, b: &[u8], i: usize) -> f64 {
    match ty {
        "f32" => f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()) as f64,
        "f64" => f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()),
        "f16" => half_to_f64(u16::from_le_bytes(b[2 * i..2 * i + 2].try_into().unwrap())),
        "bf16" => f32::from_bits((u16::from_le_bytes(b[2 * i..2 * i + 2].try_into().unwrap()) as u32) << 16) as f64,
        _ => panic!("approx on a non-float buffer of {ty}"),
    }
}

/// IEEE binary16 to f64 (exact).
fn half_to_f64(h: u16) -> f64 {
    let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn scalar(ty: &str, v: &str) -> KernelArg {
    fn p<T: std::str::FromStr>(ty: &str, v: &str) -> T {
        v.parse().unwrap_or_else(|_| panic!("bad scalar {ty}={v}"))
    }
    match ty {
        "u32" => KernelArg::U32(p(ty, v)),
        "s32" => KernelArg::S32(p(ty, v)),
        "u64" => KernelArg::U64(p(ty, v)),
        "s64" => KernelArg::S64(p(ty, v)),
        "f32" => KernelArg::F32(p(ty, v)),
        "f64" => KernelArg::F64(p(ty, v)),
        _ => panic!("bad scalar type {ty}"),
    }
}

fn dim(v: &[&str]) -> Dim3 {
    let n: Vec<u32> = v.iter().map(|x| x.parse().expect("dimension")).collect();
    Dim3::new(n[0], n[1], n[2])
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{}/{name}: {e}", dir.display()))
}

/// Runs one case in `mode`; returns the differences found.
fn run_case(dir: &Path, mode: Scheduling) -> Result<(), String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(dir.join("case.txt")).expect("case.txt");
    let lines: Vec<Vec<&str>> = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(|l| l.split_whitespace().collect()).collect();
    let field = |k: &str| lines.iter().find(|l| l[0] == k).unwrap_or_else(|| panic!("{name}: no `{k}`"));
    let ptx = field("ptx")[1];
    let mut dev = Device::new();
    let module = dev.load_named(ptx, &tests_text(&format!("corpus/{ptx}"))).map_err(|e| format!("{name}: load: {e}"))?;
    let kernel = match field("kernel")[1] {
        "*" => match module.kernels().as_slice() {
            [k] => k.to_string(),
            ks => return Err(format!("{name}: `kernel *` needs a module with one kernel, {ptx} has {ks:?}")),
        },
        k => k.to_string(),
    };
    let mut args = Vec::new();
    // Argument index -> (type, address, bytes).
    let mut bufs = std::collections::BTreeMap::new();
    for l in lines.iter().filter(|l| l[0] == "buf" || l[0] == "val") {
        let k: usize = l[1].parse().expect("argument index");
        assert_eq!(k, args.len(), "{name}: arguments out of order");
        if l[0] == "val" {
            args.push(scalar(l[2], l[3]));
            continue;
        }
        let n: usize = l[3].parse().expect("element count");
        let bytes = read(dir, &format!("arg{k}.bin"));
        assert_eq!(bytes.len(), n * elem_size(l[2]).expect("type"), "{name}: arg{k}.bin size");
        let p = dev.alloc(bytes.len() as u64).map_err(|e| e.to_string())?;
        dev.write(p, &bytes).map_err(|e| e.to_string())?;
        bufs.insert(k, (l[2], p, bytes.len()));
        args.push(KernelArg::Ptr(p));
    }
    let mut cfg = LaunchConfig::new(dim(&field("grid")[1..]), dim(&field("block")[1..]));
    cfg.fuel = FUEL;
    cfg.scheduling = mode;
    cfg.dynamic_shared_bytes = field("shared")[1].parse().expect("shared bytes");
    dev.launch(&module, &kernel, &cfg, &args).map_err(|e| format!("{name}: launch: {e}"))?;
    let mut report = Vec::new();
    for l in lines.iter().filter(|l| l[0] == "exact" || l[0] == "approx") {
        let k: usize = l[1].parse().expect("argument index");
        let (ty, p, len) = bufs[&k];
        let got = dev.read(p, len as u64).map_err(|e| e.to_string())?;
        let size = elem_size(ty).unwrap();
        let n = len / size;
        let rows: Vec<&str> = l.last().unwrap().split(',').collect();
        let per = n / rows.len();
        let want = read(dir, &format!("want{k}.bin"));
        let mut bad = Vec::new();
        if l[0] == "exact" {
            assert_eq!(want.len(), len, "{name}: want{k}.bin size");
            let mask = if l[2] == "masked" { read(dir, &format!("mask{k}.bin")) } else { vec![1; n] };
            for i in 0..n {
                let (g, w) = (&got[i * size..(i + 1) * size], &want[i * size..(i + 1) * size]);
                let both_nan = ty.starts_with('f') && as_f64(ty, &got, i).is_nan() && as_f64(ty, &want, i).is_nan();
                if mask[i] != 0 && g != w && !both_nan {
                    bad.push((i, format!("got {g:02x?}, expected {w:02x?}")));
                }
            }
        } else {
            let tol = read(dir, &format!("tol{k}.bin"));
            assert_eq!(want.len(), 8 * n, "{name}: want{k}.bin size");
            for i in 0..n {
                let g = as_f64(ty, &got, i);
                let w = as_f64("f64", &want, i);
                let t = as_f64("f64", &tol, i);
                let ok = if t < 0.0 {
                    true
                } else if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() || g.is_infinite() || t == 0.0 {
                    g == w && g.is_sign_negative() == w.is_sign_negative()
                } else {
                    (g - w).abs() <= t
                };
                if !ok {
                    bad.push((i, format!("got {g:e}, expected {w:e} within {t:e}")));
                }
            }
        }
        for (i, msg) in bad.iter().take(6) {
            report.push(format!("{name} arg{k} {} [{}]: {msg}", rows[i / per], i % per));
        }
        if bad.len() > 6 {
            report.push(format!("{name} arg{k}: {} differences in all", bad.len()));
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(report.join("\n"))
    }
}

#[test]
fn golden_cases_match_their_references() {
    let root = tests_path("corpus/golden");
    let mut dirs: Vec<_> = std::fs::read_dir(&root).expect("tests/corpus/golden").flatten().map(|e| e.path()).collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "only {} golden cases", dirs.len());
    let mut failures = Vec::new();
    for d in &dirs {
        for mode in [Scheduling::Stack, Scheduling::Its] {
            if let Err(e) = run_case(d, mode) {
                failures.push(format!("({mode:?}) {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
