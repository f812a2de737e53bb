//! The `ptxsim cfg` command: text, DOT and JSON reports agree with control-flow
//! facts derived by hand for a small kernel (expected values come from reading
//! the kernel, not from ptxsim's output).

use std::path::PathBuf;
use std::process::{Command, Output};

/// Lines: 7 `mov`, 8 `setp` (on %tid.x: divergent), 9 `@%p1 bra ELSE`,
/// 10-11 then-arm, 12 ELSE label, 13 else-arm, 14 JOIN label, 15 `ld.param` of a
/// kernel parameter, 16 `setp` on it (uniform), 17 `@%p2 bra END`, 18 END label,
/// 19 `ret`.
const KERNEL: &str = ".version 7.8
.target sm_70
.address_size 64
.visible .entry k(.param .u32 n)
{
.reg .u32 %r<6>; .reg .pred %p<3>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra ELSE;
    add.u32 %r2, %r1, 1;
    bra.uni JOIN;
ELSE:
    add.u32 %r2, %r1, 2;
JOIN:
    ld.param.u32 %r3, [n];
    setp.eq.u32 %p2, %r3, 0;
    @%p2 bra END;
END:
    ret;
}
";

/// The kernel written to a file of its own for each test: the tests run in
/// parallel, and one rewriting a shared file could let another read it
/// truncated.
fn file() -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("ptxsim-cfg-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(format!("k{}.ptx", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
    std::fs::write(&p, KERNEL).expect("write");
    p
}

fn ptxsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim")).args(args).output().expect("ptxsim runs")
}

#[test]
fn json_reports_reconvergence_and_uniformity() {
    let p = file();
    let out = ptxsim(&["cfg", p.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let f = &v["functions"][0];
    let branches = f["branches"].as_array().expect("branches");
    let by_line = |line: u64| {
        branches
            .iter()
            .find(|b| b["line"] == line)
            .unwrap_or_else(|| panic!("no branch on line {line}: {branches:?}"))
    };
    // The branch on %tid.x diverges and its arms meet at JOIN.
    let b9 = by_line(9);
    assert_eq!(b9["divergent"], true);
    assert_eq!(b9["reconvergence"]["label"], "JOIN");
    assert!(b9["cause"].as_str().unwrap_or("").contains("%tid.x"), "{b9}");
    // The branch on a kernel parameter is uniform; it reconverges at END.
    let b17 = by_line(17);
    assert_eq!(b17["divergent"], false);
    assert_eq!(b17["reconvergence"]["label"], "END");
}

#[test]
fn text_names_the_reconvergence_point_and_cause() {
    let p = file();
    let out = ptxsim(&["cfg", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.contains("line 9"), "{t}");
    assert!(t.contains("reconverges at JOIN"), "{t}");
    assert!(t.contains("%tid.x"), "{t}");
}

#[test]
fn dot_marks_divergent_branch_and_reconvergence_point() {
    let p = file();
    let out = ptxsim(&["cfg", p.to_str().unwrap(), "--format", "dot"]);
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.trim_start().starts_with("digraph"), "{t}");
    assert_eq!(t.matches('{').count(), t.matches('}').count(), "{t}");
    assert!(t.contains("color=red"), "divergent branch not marked: {t}");
    assert!(t.contains("doubleoctagon"), "reconvergence point not marked: {t}");
}

#[test]
fn uni_branch_that_diverges_is_warned() {
    let src = KERNEL.replace("@%p1 bra ELSE;", "@%p1 bra.uni ELSE;");
    let dir = std::env::temp_dir().join(format!("ptxsim-cfg-cli-uni-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join("uni.ptx");
    std::fs::write(&p, src).expect("write");
    let out = ptxsim(&["cfg", p.to_str().unwrap(), "--color", "never"]);
    let t = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(t.contains("uni-divergent"), "{t}");
    assert!(t.contains(":9:"), "{t}");
}

#[test]
fn missing_file_is_a_usage_error() {
    let out = ptxsim(&["cfg", "/nonexistent/x.ptx"]);
    assert_eq!(out.status.code(), Some(2));
}
