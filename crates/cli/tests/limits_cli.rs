//! `ptxsim run`'s launch limits from the command line: `--timeout` and
//! `--fuel` stop a launch early with their own located error naming the
//! flag, each within a bound on wall time; no progress display when the
//! output is piped or JSON.

use std::io::Write;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

fn ptxsim(args: &[&str]) -> (Output, Duration) {
    let t0 = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_ptxsim")).args(args).env("NO_COLOR", "1").output().expect("the ptxsim binary runs");
    (o, t0.elapsed())
}

fn module(name: &str, body: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ptxsim-limits-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    let mut f = std::fs::File::create(&p).expect("temp file");
    write!(f, "{HEADER}{body}").expect("write");
    p.display().to_string()
}

const SPIN: &str = ".visible .entry k()\n{\n.reg .u32 %i;\nmov.u32 %i, 0;\nL:\nadd.u32 %i, %i, 1;\nbra L;\n}\n";
const STORE: &str = ".visible .entry k(.param .u64 out)\n{\n.reg .u32 %c;\n.reg .u64 %o;\nmov.u32 %c, %ctaid.x;\nld.param.u64 %o, [out];\nst.global.u32 [%o], %c;\nret;\n}\n";

#[test]
fn timeout_flag_stops_a_runaway_kernel_with_its_own_error() {
    let f = module("spin.ptx", SPIN);
    let (o, t) = ptxsim(&["run", &f, "--kernel", "k", "--timeout", "0.4", "--fuel", "1000000000000", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["error"]["kind"], "timeout", "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| m.contains("400 ms") && m.contains("--timeout")), "{v}");
    // Stopped inside the loop (lines 9-10).
    assert!(v["error"]["line"] == 9 || v["error"]["line"] == 10, "{v}");
    assert!(!o.status.success());
    assert!(t < Duration::from_secs(5), "{t:?}");
    // Nothing but the JSON object: no progress display.
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn fuel_stops_a_huge_grid_within_a_second() {
    let f = module("store.ptx", STORE);
    let (o, t) = ptxsim(&["run", &f, "--kernel", "k", "--grid", "2147483647", "--fuel", "1000", "--arg", "u32[1]=zeros"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("fuel_exhausted") && err.contains("--fuel 1000"), "{err}");
    assert!(!o.status.success());
    assert!(t < Duration::from_secs(1), "{t:?}");
}

#[test]
fn a_null_store_in_cta_0_of_a_huge_grid_ends_at_once() {
    let f = module("store0.ptx", STORE);
    let (o, t) = ptxsim(&["run", &f, "--kernel", "k", "--grid", "2147483647", "--block", "1024", "--arg", "u64=0", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["error"]["kind"], "out_of_bounds", "{v}");
    assert_eq!(v["error"]["cta"], serde_json::json!([0, 0, 0]), "{v}");
    assert!(t < Duration::from_secs(1), "{t:?}");
}

#[test]
fn a_bad_timeout_is_a_usage_error() {
    let f = module("spin2.ptx", SPIN);
    for bad in ["-1", "soon", "inf"] {
        let (o, _) = ptxsim(&["run", &f, "--kernel", "k", "--timeout", bad]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--timeout"), "{bad}: {err}");
        assert!(!o.status.success());
    }
}

#[test]
fn max_memory_caps_global_variables_by_name() {
    let f = module(
        "big.ptx",
        ".global .u8 a[1000000000];\n.global .u8 b[1000000000];\n.global .u8 c[1000000000];\n.visible .entry k()\n{\nret;\n}\n",
    );
    let (o, t) = ptxsim(&["run", &f, "--kernel", "k", "--max-memory", "2G", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["error"]["kind"], "out_of_memory", "{v}");
    let m = v["error"]["message"].as_str().unwrap_or("");
    assert!(m.contains("`c`") && m.contains("--max-memory") && m.contains("2147483648"), "{v}");
    assert!(t < Duration::from_secs(2), "{t:?}");
    // Under the default 4 GiB the three fit, lazily: the run is quick.
    let (o, t) = ptxsim(&["run", &f, "--kernel", "k"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(t < Duration::from_secs(2), "{t:?}");
    let (o, _) = ptxsim(&["run", &f, "--kernel", "k", "--max-memory", "lots"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-memory") && !o.status.success());
}
