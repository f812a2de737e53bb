//! The `ptxsim check` contract: exit status 0 (clean), 1 (errors in the input),
//! 2 (usage or I/O problems); several errors in one run; located diagnostics
//! in text and JSON.

use std::path::PathBuf;
use std::process::{Command, Output};

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the ptxsim binary runs")
}

fn temp_file(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxsim-check-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write temp file");
    p
}

const CLEAN: &str = ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n    ret;\n}\n";

#[test]
fn clean_module_exits_0() {
    let p = temp_file("clean.ptx", CLEAN.as_bytes());
    let out = ptxsim(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn several_errors_reported_in_one_run_with_locations() {
    // Three independent mistakes on lines 6, 8 and 9: a missing `;`, an integer
    // too large for 64 bits, and a stray character. Recovery at statement
    // boundaries must report all three.
    let src = ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n    add.s32 %r1, %r2, 1\n    mov.u32 %r3, 1;\n    mov.u32 %r3, 99999999999999999999999;\n    mov.u32 %r4, #;\n    ret;\n}\n";
    let p = temp_file("three.ptx", src.as_bytes());
    let out = ptxsim(&["check", "--color", "never", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let name = p.display().to_string();
    // The missing `;` is reported where it belongs: right after `1` on line 6.
    assert!(text.contains(&format!("{name}:6:24")), "{text}");
    assert!(text.contains(&format!("{name}:8:18")), "{text}");
    assert!(text.contains(&format!("{name}:9:18")), "{text}");
    assert!(text.matches("error[").count() >= 3, "{text}");
    // A source snippet is shown.
    assert!(text.contains("add.s32 %r1, %r2, 1"), "{text}");
}

#[test]
fn json_format_has_file_line_column_code() {
    let src = ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n    .bogus 1;\n    ret;\n}\n";
    let p = temp_file("json.ptx", src.as_bytes());
    let out = ptxsim(&["check", "--format", "json", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["code"], "syntax/unknown-directive");
    assert_eq!(d["line"], 6);
    assert_eq!(d["column"], 5);
    assert_eq!(d["file"], p.display().to_string());
    assert!(d["message"].as_str().unwrap().contains(".bogus"));
}

#[test]
fn missing_file_exits_2() {
    let out = ptxsim(&["check", "/nonexistent/definitely/not/here.ptx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn non_utf8_exits_2() {
    let p = temp_file("bin.ptx", &[0x2e, 0x76, 0xff, 0xfe, 0x00]);
    let out = ptxsim(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn usage_error_exits_2() {
    let out = ptxsim(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    let out = ptxsim(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn errors_in_one_file_do_not_hide_another() {
    let good = temp_file("good.ptx", CLEAN.as_bytes());
    let bad = temp_file("bad.ptx", b".version 7.8\n.target sm_70\n.entry k( {\n");
    let out = ptxsim(&["check", "--color", "never", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&bad.display().to_string()), "{text}");
    assert!(!text.contains(&good.display().to_string()), "{text}");
}

/// A module that calls an `.extern` function it does not define: accepted by
/// default (relocatable code, as `ptxas -c`: tests/check/relocatable), with
/// the function listed as left to the linker; `--whole-program` rejects it
/// (as `ptxas` without `-c`: "Unresolved extern function").
#[test]
fn extern_calls_are_left_to_the_linker_unless_whole_program() {
    let src = ".version 7.8\n.target sm_70\n.address_size 64\n.extern .func (.param .b32 r) ext_f(.param .b32 a);\n.visible .entry k()\n{\n    .reg .b32 %r;\n    {\n    .param .b32 pa;\n    .param .b32 pr;\n    st.param.b32 [pa], 1;\n    call (pr), ext_f, (pa);\n    ld.param.b32 %r, [pr];\n    }\n    ret;\n}\n";
    let p = temp_file("extern_call.ptx", src.as_bytes());
    let name = p.display().to_string();
    let out = ptxsim(&["check", &name]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("left to the linker") && err.contains(&format!("`ext_f` ({name}:12)")), "{err}");
    let out = ptxsim(&["check", "--format", "json", &name]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["summary"]["errors"], 0);
    assert_eq!(v["summary"]["unresolved"][0]["function"], "ext_f");
    assert_eq!(v["summary"]["unresolved"][0]["line"], 12);
    let out = ptxsim(&["check", "--whole-program", &name]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error[check/call-target]: `ext_f` is called but never defined in this module"), "{text}");
}

/// `--jobs` changes how many threads check the bodies, never the report: a
/// module large enough to be spread over threads (one per 256 KiB), with
/// errors in many of its functions and one past `--max-errors`, gives the
/// same output and status on 1 and 4 threads, in text and JSON; `--jobs 0`
/// is a usage error.
#[test]
fn jobs_do_not_change_the_report() {
    let mut src = String::from(".version 7.8\n.target sm_70\n.address_size 64\n");
    for k in 0..8000 {
        let bad = if k % 97 == 0 { "%undeclared" } else { "%r1" };
        src.push_str(&format!(".visible .entry k{k}()\n{{\n    .reg .b32 %r<4>;\n    mov.u32 %r2, {bad};\n    ret;\n}}\n"));
    }
    assert!(src.len() > 600 << 10, "{} bytes", src.len());
    let p = temp_file("jobs.ptx", src.as_bytes());
    let p = p.to_str().unwrap();
    for format in ["text", "json"] {
        let one = ptxsim(&["check", "--format", format, "--max-errors", "50", "-j", "1", p]);
        let four = ptxsim(&["check", "--format", format, "--max-errors", "50", "--jobs", "4", p]);
        assert_eq!(one.status.code(), Some(1));
        assert_eq!(four.status.code(), one.status.code(), "{format}");
        assert_eq!(String::from_utf8_lossy(&four.stdout), String::from_utf8_lossy(&one.stdout), "{format}");
        assert_eq!(String::from_utf8_lossy(&four.stderr), String::from_utf8_lossy(&one.stderr), "{format}");
        let out = String::from_utf8_lossy(&one.stdout).into_owned() + &String::from_utf8_lossy(&one.stderr);
        // 83 functions (every 97th of 8,000) have the error; 50 are shown.
        let past = if format == "text" { "33 more errors not shown" } else { "\"not_shown\":33" };
        assert!(out.contains("undeclared") && out.contains(past), "{format}: {}", out.get(..2000).unwrap_or(&out));
    }
    assert_eq!(ptxsim(&["check", "--jobs", "0", p]).status.code(), Some(2));
}
