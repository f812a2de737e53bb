//! Hand-written machine programs as text files (`tests/sass/machine/*.sass`),
//! each with its expectation in comments, taken from the seed and the fact
//! sheet (the comment above each says which rule it checks):
//!
//! - `// expect: R5=0x1 R6[0..16]=0x2 LMT=1 EXITED=0xffffffff` — scratch
//!   registers of warp 0 per lane range, the LMT bit, the exited lanes;
//! - `// expect-error: STACK_ERROR at 0x8` — a hardware error and its pc;
//! - `// config: api_call_limit=1 crs_capacity=16 max_call_depth=4`.
//!
//! One CTA of 32 threads runs each file.

use ptxsim_exec::{Device, LaunchConfig};
use ptxsim_sass::engine::{launch, MachineConfig, SassError};
use std::path::Path;

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

#[test]
fn machine_program_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sass/machine");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "sass")).collect();
    files.sort();
    let mut fails = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        let mut mc = MachineConfig::default();
        let mut cfg = LaunchConfig::new(1, 32);
        cfg.fuel = 100_000;
        cfg.max_call_depth = 64;
        let (mut expect, mut expect_err) = (Vec::new(), None);
        for l in text.lines() {
            if let Some(c) = l.strip_prefix("// config:") {
                for kv in c.split_whitespace() {
                    let (k, v) = kv.split_once('=').unwrap();
                    match k {
                        "api_call_limit" => mc.api_call_limit = Some(num(v) as u32),
                        "crs_capacity" => mc.crs_capacity = num(v) as usize,
                        "max_call_depth" => cfg.max_call_depth = num(v) as u32,
                        _ => panic!("{name}: unknown config {k}"),
                    }
                }
            } else if let Some(e) = l.strip_prefix("// expect:") {
                expect.extend(e.split_whitespace().map(String::from));
            } else if let Some(e) = l.strip_prefix("// expect-error:") {
                let (n, at) = e.trim().split_once(" at ").unwrap();
                expect_err = Some((n.to_string(), num(at)));
            }
        }
        assert!(!expect.is_empty() || expect_err.is_some(), "{name}: no expectation");
        let mut dev = Device::new();
        let (module, mp) = match ptxsim_sass::parse::parse(&mut dev, &name, &text) {
            Ok(x) => x,
            Err(e) => {
                fails.push(format!("{name}: does not parse: {e}"));
                continue;
            }
        };
        let r = launch(&dev, &module, &mp, "k", &cfg, &[], &mc);
        match (&expect_err, r) {
            (Some((n, at)), Err(SassError::Hardware { error, pc, .. })) => {
                if error.name() != n || pc != *at {
                    fails.push(format!("{name}: expected {n} at {at:#x}, got {error} at {pc:#x}"));
                }
            }
            (Some((n, _)), other) => fails.push(format!("{name}: expected {n}, got {other:?}")),
            (None, Err(e)) => fails.push(format!("{name}: {e}")),
            (None, Ok((_, warps))) => {
                let w = &warps[0];
                for e in &expect {
                    let (lhs, v) = e.split_once('=').unwrap();
                    let v = num(v);
                    let ok = match lhs {
                        "LMT" => w.lmt as u64 == v,
                        "EXITED" => w.exited as u64 == v,
                        r => {
                            let (reg, range) = match r.split_once('[') {
                                Some((reg, rg)) => {
                                    let (a, b) = rg.trim_end_matches(']').split_once("..").unwrap();
                                    (reg, num(a) as usize..num(b) as usize)
                                }
                                None => (r, 0..32),
                            };
                            let n: usize = reg.trim_start_matches('R').parse().unwrap();
                            range.clone().all(|l| w.scratch.get(n).map(|x| x[l] as u64) == Some(v))
                        }
                    };
                    if !ok {
                        fails.push(format!("{name}: {e} does not hold"));
                    }
                }
            }
        }
    }
    assert!(files.len() >= 18, "{} files", files.len());
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
