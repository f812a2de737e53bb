//! `ptxsim sass` and `ptxsim run --engine sass` from the command line: a
//! hand-written machine program (the seed's if/else example) runs with the
//! seed's semantics, printing reads back, a hardware error is a located trap,
//! and `--engine sass --scheduling its` is a usage error.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim")).args(args).current_dir(root()).env("NO_COLOR", "1").output().expect("runs")
}

#[test]
fn the_seed_example_runs_with_the_seed_semantics() {
    let out = ptxsim(&["run", "tests/sass/examples/seed_if_else.sass", "--kernel", "seed_if_else", "--block", "32", "--arg", "u32[32]=zeros", "--engine", "sass", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let vals: Vec<u64> = v["buffers"][0]["values"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    // CC.GE after x = laneid - 16: taken (else path, 7) for x >= 0; R7 = R6 * R6.
    let want: Vec<u64> = (0..32).map(|l| if l < 16 { 100 * 100 } else { 7 * 7 }).collect();
    assert_eq!(vals, want);
}

#[test]
fn printing_reads_back() {
    for f in ["tests/sass/examples/seed_if_else.sass", "examples/control_flow.ptx"] {
        let a = ptxsim(&["sass", f]);
        assert_eq!(a.status.code(), Some(0), "{f}: {}", String::from_utf8_lossy(&a.stderr));
        let text = String::from_utf8(a.stdout).unwrap();
        assert!(text.contains("/*0008*/") && text.contains(".ctrl "), "{f}");
        let tmp = std::env::temp_dir().join(format!("ptxsim-sass-cli-{}.sass", std::process::id()));
        std::fs::write(&tmp, &text).unwrap();
        let b = ptxsim(&["sass", tmp.to_str().unwrap()]);
        let _ = std::fs::remove_file(&tmp);
        assert_eq!(b.status.code(), Some(0), "{f}: {}", String::from_utf8_lossy(&b.stderr));
        // The lowering's summary comments are not part of the program.
        let strip = |t: &str| t.lines().filter(|l| !l.starts_with("// ")).collect::<Vec<_>>().join("\n");
        assert_eq!(strip(&text), strip(&String::from_utf8(b.stdout).unwrap()), "{f}");
    }
    let k = ptxsim(&["sass", "examples/control_flow.ptx", "--kernel", "twice"]);
    let t = String::from_utf8(k.stdout).unwrap();
    assert!(t.contains(".function twice func") && !t.contains(".function control_flow"));
}

#[test]
fn a_hardware_error_is_a_located_trap() {
    let out = ptxsim(&["run", "tests/sass/examples/stack_error.sass", "--kernel", "stack_error", "--block", "32", "--arg", "u32[1]=zeros", "--engine", "sass", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "trap");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("STACK_ERROR: ") && msg.contains("0x0008"), "{msg}");
    assert_eq!(v["error"]["warp"], 0);
}

#[test]
fn the_machine_form_has_no_independent_scheduling() {
    let out = ptxsim(&["run", "examples/control_flow.ptx", "--kernel", "control_flow", "--engine", "sass", "--scheduling", "its", "--arg", "u32[1]=zeros"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no independent thread scheduling"));
}
