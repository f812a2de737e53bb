//! Diagnostics stay bounded whatever the input: a snippet quotes a window of
//! its line, long names are cut in messages, errors and warnings are capped
//! per file (`--max-errors`, default 100) with a count of what was left out,
//! and both the text and the JSON output end with the totals. Each test
//! bounds the process's peak memory or time as well as its output.

mod common;

use common::{ptxsim_measured, temp_dir, MB};
use std::time::Duration;

const HDR: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

fn kernel(body: &str) -> String {
    format!("{HDR}.visible .entry k()\n{{\n.reg .u32 %r1;\n{body}ret;\n}}\n")
}

#[test]
fn a_42_mb_line_with_100_errors_is_not_copied_per_error() {
    let dir = temp_dir("longline");
    let mut body = "mov.u32 %r1, #; ".repeat(100);
    body.push_str(&" ".repeat(42_000_000));
    body.push_str("mov.u32 %r1, 1;\n");
    let p = dir.join("long.ptx");
    std::fs::write(&p, kernel(&body)).unwrap();
    drop(body);
    let r = ptxsim_measured(&["check", "--color", "never", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(r.stdout.matches("error[syntax/invalid-character]").count(), 100);
    // Each snippet is a window of the line: about 160 bytes, not 42 MB.
    assert!(r.stdout.len() < 100_000, "output {} bytes", r.stdout.len());
    assert!(r.stdout.contains("long.ptx:7:14"), "{}", &r.stdout[..2000]);
    assert!(r.stderr.contains("100 errors, 0 warnings"), "{}", r.stderr);
    // The input is 42 MB; 100 copies of the line would be 4.2 GB.
    assert!(r.peak_rss < 250 * MB, "peak RSS {} MB", r.peak_rss / MB);
    assert!(r.wall < Duration::from_secs(10), "{:?}", r.wall);
}

#[test]
fn a_10_mb_identifier_is_cut_in_the_message_and_the_snippet() {
    let dir = temp_dir("longid");
    let name = "x".repeat(10_000_000);
    let p = dir.join("id.ptx");
    std::fs::write(&p, kernel(&format!("mov.u32 %r1, {name};\n"))).unwrap();
    drop(name);
    let r = ptxsim_measured(&["check", "--color", "never", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(1));
    assert!(r.stdout.contains("error[check/unknown-symbol]"), "{}", &r.stdout[..r.stdout.len().min(2000)]);
    assert!(r.stdout.contains("…(10000000 bytes)`"), "{}", &r.stdout[..r.stdout.len().min(2000)]);
    assert!(r.stdout.len() < 4_000, "output {} bytes", r.stdout.len());
    let j = ptxsim_measured(&["check", "--format", "json", p.to_str().unwrap()], Duration::from_secs(30));
    assert!(j.stdout.len() < 4_000, "JSON output {} bytes", j.stdout.len());
    assert!(r.peak_rss < 100 * MB, "peak RSS {} MB", r.peak_rss / MB);
}

#[test]
fn ten_thousand_semantic_errors_are_capped_and_counted() {
    let dir = temp_dir("many");
    let body: String = (0..10_000).map(|i| format!("mov.u32 %r1, %undef{i};\n")).collect();
    let p = dir.join("many.ptx");
    std::fs::write(&p, kernel(&body)).unwrap();
    let r = ptxsim_measured(&["check", "--color", "never", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout.matches("error[check/unknown-symbol]").count(), 100);
    assert!(r.stdout.contains("9900 more errors not shown (--max-errors 100)"), "{}", r.stdout.lines().last().unwrap_or(""));
    assert!(r.stderr.contains("1 file checked: 10000 errors, 0 warnings"), "{}", r.stderr);
    let r = ptxsim_measured(&["check", "--color", "never", "--max-errors", "3", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.stdout.matches("error[check/unknown-symbol]").count(), 3);
    assert!(r.stdout.contains("9997 more errors not shown (--max-errors 3)"));
    let r = ptxsim_measured(&["check", "--max-errors", "0", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(2), "--max-errors 0 is a usage error");
    let j = ptxsim_measured(&["check", "--format", "json", p.to_str().unwrap()], Duration::from_secs(30));
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("one JSON object");
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(100));
    assert_eq!(v["summary"]["errors"], 10_000);
    assert_eq!(v["summary"]["warnings"], 0);
    assert_eq!(v["summary"]["not_shown"], 9_900);
    assert_eq!(v["summary"]["files"], 1);
}

#[test]
fn syntax_errors_past_the_cap_are_counted_not_dropped_silently() {
    let dir = temp_dir("syn");
    let p = dir.join("syn.ptx");
    std::fs::write(&p, kernel(&"mov.u32 %r1, #;\n".repeat(1000))).unwrap();
    let r = ptxsim_measured(&["check", "--color", "never", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout.matches("error[syntax/").count(), 100);
    assert!(r.stdout.contains("900 more errors not shown"), "{}", r.stdout.lines().last().unwrap_or(""));
    assert!(r.stderr.contains("1000 errors"), "{}", r.stderr);
}

#[test]
fn warnings_only_ends_with_no_errors_and_the_warning_count() {
    // `bra.uni` on a predicate computed from %tid.x: the check/uni-divergent warning, three times.
    let one = "mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p, %r1, 16;\n@%p bra.uni L{i};\nL{i}:\n";
    let body: String = (0..3).map(|i| one.replace("{i}", &i.to_string())).collect();
    let src = format!("{HDR}.visible .entry k()\n{{\n.reg .u32 %r1;\n.reg .pred %p;\n{body}ret;\n}}\n");
    let dir = temp_dir("warn");
    let p = dir.join("warn.ptx");
    std::fs::write(&p, src).unwrap();
    let r = ptxsim_measured(&["check", "--color", "never", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.matches("warning[check/uni-divergent]").count(), 3, "{}", r.stdout);
    assert!(r.stderr.contains("ok: 1 file checked, no errors, 3 warnings"), "{}", r.stderr);
    let j = ptxsim_measured(&["check", "--format", "json", p.to_str().unwrap()], Duration::from_secs(30));
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("JSON");
    assert_eq!(v["summary"]["warnings"], 3);
    assert_eq!(v["summary"]["errors"], 0);
}

#[test]
fn json_check_of_a_missing_file_reports_it_in_the_json() {
    let r = ptxsim_measured(&["check", "--format", "json", "/nonexistent/not/here.ptx"], Duration::from_secs(30));
    assert_eq!(r.code, Some(2));
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("one JSON object");
    let d = &v["diagnostics"][0];
    assert_eq!(d["file"], "/nonexistent/not/here.ptx");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["code"], "io/read");
    assert!(d["message"].as_str().unwrap_or("").contains("cannot read"), "{d}");
    assert_eq!(v["summary"]["unreadable_files"], 1);
}

#[test]
fn fmt_of_a_module_with_check_errors_exits_1() {
    let dir = temp_dir("fmt");
    let p = dir.join("bad.ptx");
    std::fs::write(&p, kernel("mov.u32 %r1, %nope;\n")).unwrap();
    let r = ptxsim_measured(&["fmt", p.to_str().unwrap()], Duration::from_secs(30));
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("check/unknown-symbol"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
}
