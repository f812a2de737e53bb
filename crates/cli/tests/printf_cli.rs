//! `ptxsim run` and device `printf` / `assert`: the kernel's output on
//! standard output before the summary, in `--json` as `stdout`, the
//! `--printf-buffer` cap with its note, both engines. Expected lines are
//! formatted here from the kernel's source (`tests/corpus/src/printf.cu`)
//! with Rust's formatting of the same values.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim")).args(args).output().expect("the ptxsim binary runs")
}

fn corpus(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(rel).display().to_string()
}

/// `hello_printf` with data = iota, n = 70 on 2 CTAs of 40 threads: CTA 0
/// prints the greeting (thread 0) and `report` for threads 0, 8, ..., 32
/// (warp 0's calls, then warp 1's); CTA 1 `report` for 40..64, then thread
/// 69's last line (the same warp, later in program order).
fn hello_lines(ptr: &str) -> String {
    let report = |i: u32| format!("thread {i} value {:.6} hex {:08x}\n", i as f64, i.wrapping_mul(2654435761));
    let mut s = String::from("hello from block 0 of 2, blockDim 40\n");
    s.extend([0, 8, 16, 24, 32, 40, 48, 56, 64].map(report));
    s += &format!("last=69 ptr={ptr} double={:.3} ll={} str=end\n", 69.0f64 * 2.0, 69i64 << 33);
    s
}

const HELLO: [&str; 9] = ["--kernel", "hello_printf", "--grid", "2", "--block", "40", "--arg", "f32[80]=iota", "--arg"];

/// The pointer the kernel printed with `%p` (the device address of the
/// buffer, which the test does not know beforehand).
fn printed_ptr(out: &str) -> String {
    let at = out.find("ptr=").expect("the last line") + 4;
    out[at..].split(' ').next().unwrap_or("").to_string()
}

#[test]
fn printf_lines_come_before_the_summary_in_both_engines_and_builds() {
    for build in ["nvcc/printf.ptx", "clang/printf.ptx"] {
        for engine in ["ptx", "sass"] {
            let f = corpus(build);
            let mut args = vec!["run", f.as_str()];
            args.extend(HELLO);
            args.extend(["u32=70", "--engine", engine]);
            let out = ptxsim(&args);
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            assert_eq!(out.status.code(), Some(0), "{build} {engine}: {}", String::from_utf8_lossy(&out.stderr));
            let ptr = printed_ptr(&text);
            assert!(ptr.starts_with("0x") && u64::from_str_radix(&ptr[2..], 16).is_ok(), "{ptr}");
            let want = hello_lines(&ptr);
            assert!(text.starts_with(&want), "{build} {engine}:\n{text}\nwant first:\n{want}");
            assert!(text[want.len()..].starts_with("ran `hello_printf`"), "{text}");
        }
    }
}

#[test]
fn json_carries_the_output_and_the_cap_drops_with_a_note() {
    let f = corpus("nvcc/printf.ptx");
    let mut args = vec!["run", f.as_str()];
    args.extend(HELLO);
    args.extend(["u32=70", "--json"]);
    let out = ptxsim(&args);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let s = v["stdout"].as_str().expect("stdout").to_string();
    assert_eq!(s, hello_lines(&printed_ptr(&s)));
    assert_eq!(v["stdout_dropped"], 0);

    args.extend(["--printf-buffer", "50"]);
    let out = ptxsim(&args);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let full = hello_lines("0x0");
    assert_eq!(v["stdout"].as_str(), Some(&full[..50]));
    assert!(v["stdout_dropped"].as_u64().is_some_and(|d| d > 0));
    args.retain(|a| *a != "--json");
    let out = ptxsim(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("note: the kernel printed more than the printf buffer holds: 50 bytes kept"), "{err}");
}

/// Triton's `tl.device_assert(x >= 0, "negative input")` (line 188 of the
/// generator) failing for x[5]: a `trap` naming the assertion, and CUDA's
/// message on standard output.
#[test]
fn a_failed_assertion_is_a_trap_with_its_message_printed() {
    let f = corpus("triton/tr_checked_copy.ptx");
    let vals: Vec<String> = (0..512).map(|i| if i == 5 { "-3".to_string() } else { i.to_string() }).collect();
    let x = format!("s32[512]={}", vals.join(","));
    for engine in ["ptx", "sass"] {
        let args = ["run", &f, "--kernel", "checked_copy", "--block", "128", "--arg", &x, "--arg", "s32[512]=zeros", "--arg", "s32=512", "--arg", "u64=0", "--engine", engine, "--json"];
        let out = ptxsim(&args);
        assert_eq!(out.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["error"]["kind"], "trap");
        assert_eq!(v["error"]["message"], "assertion `negative input` failed at /tmp/ptxsim-corpus/src/tr_kernels.py:188 in `unknown` (thread (5,0,0))");
        assert_eq!((v["error"]["warp"].as_u64(), v["error"]["lane"].as_u64()), (Some(0), Some(5)), "{engine}");
        assert_eq!(v["stdout"], "/tmp/ptxsim-corpus/src/tr_kernels.py:188: unknown: block: [0,0,0], thread: [5,0,0] Assertion `negative input` failed.\n");
    }
}
