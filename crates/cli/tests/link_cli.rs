//! `ptxsim run` with several modules links them as nvlink does: the nvcc
//! `-rdc` pair of `tests/corpus/nvcc_rdc` runs from the command line, and a
//! missing or duplicate definition is a load error naming files and lines.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim")).args(args).output().expect("the ptxsim binary runs")
}

fn tests(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests").join(rel).display().to_string()
}

const ARGS: [&str; 14] = [
    "--kernel", "rdc_apply", "--grid", "1", "--block", "64", "--arg", "f32[64]=zeros", "--arg", "f32[64]=iota", "--arg", "s32[64]=zeros", "--arg", "s32[64]=iota",
];

#[test]
fn the_rdc_pair_runs_linked() {
    let (main, lib) = (tests("corpus/nvcc_rdc/rdc_main.ptx"), tests("corpus/nvcc_rdc/rdc_lib.ptx"));
    let mut args = vec!["run", main.as_str(), lib.as_str()];
    args.extend(ARGS);
    args.extend(["--arg", "s32=60", "--json"]);
    let out = ptxsim(&args);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let vals = |k: usize| -> Vec<f64> { v["buffers"][k]["values"].as_array().expect("values").iter().map(|x| x.as_f64().expect("number")).collect() };
    let (outv, cnt) = (vals(0), vals(2));
    for i in 0..64usize {
        let x = i as f32;
        // rdc_poly(x) * rdc_scale: two fmas, then a multiplication by 2.5;
        // rdc_count(v) = popc(v) + (v & 7); threads from 60 on do nothing.
        let (want_out, want_cnt) = if i < 60 { (x.mul_add(3.0, -2.0).mul_add(x, 1.0) * 2.5, (i as u32).count_ones() as f64 + (i & 7) as f64) } else { (0.0, 0.0) };
        assert_eq!(outv[i] as f32, want_out, "out[{i}]");
        assert_eq!(cnt[i], want_cnt, "cnt[{i}]");
    }
}

#[test]
fn link_errors_name_the_symbol_files_and_lines() {
    let main = tests("corpus/nvcc_rdc/rdc_main.ptx");
    // Alone, the module is a whole program (ptxas without -c).
    let mut args = vec!["run", main.as_str()];
    args.extend(ARGS);
    args.extend(["--arg", "s32=60"]);
    let out = ptxsim(&args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`_Z8rdc_polyf` is called but never defined in this module"), "{err}");
    // Linked with a module that does not define the callees.
    let other = tests("link/libok.ptx");
    let mut args = vec!["run", main.as_str(), other.as_str()];
    args.extend(ARGS);
    args.extend(["--arg", "s32=60"]);
    let out = ptxsim(&args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("`_Z8rdc_polyf` is called at {main}:62 and declared `.extern` at {main}:")), "{err}");
    assert!(err.contains("no module given defines it"), "{err}");
    // The same library twice: duplicate definitions.
    let lib = tests("corpus/nvcc_rdc/rdc_lib.ptx");
    let mut args = vec!["run", main.as_str(), lib.as_str(), lib.as_str()];
    args.extend(ARGS);
    args.extend(["--arg", "s32=60"]);
    let out = ptxsim(&args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`_Z8rdc_polyf` is defined twice"), "{err}");
}

/// `ptxsim check --link` runs nvlink's symbol check over the files checked.
#[test]
fn check_link_reports_what_nvlink_reports() {
    let (main, lib) = (tests("corpus/nvcc_rdc/rdc_main.ptx"), tests("corpus/nvcc_rdc/rdc_lib.ptx"));
    let out = ptxsim(&["check", "--link", &main, &lib]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("left to the linker"));
    let (lmain, lsig) = (tests("link/main.ptx"), tests("link/libsig.ptx"));
    let out = ptxsim(&["check", "--link", &lmain, &lsig]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("error[link/symbol]: `f` is declared at {lmain}:6 and defined at {lsig}:8 with different prototypes")), "{text}");
    let out = ptxsim(&["check", "--link", "--format", "json", &lmain]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let msgs: Vec<&str> = v["diagnostics"].as_array().expect("diagnostics").iter().filter(|d| d["code"] == "link/symbol").filter_map(|d| d["message"].as_str()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(msgs.iter().any(|m| m.starts_with("`f` is called at")) && msgs.iter().any(|m| m.starts_with("`g` is declared `.extern`")), "{msgs:?}");
    assert_eq!(v["summary"]["errors"], 2);
}
