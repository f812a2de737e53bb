//! `ptxsim fmt` keeps comments: every comment of the bundled example
//! survives, in order, with trailing comments still at the end of their
//! statement's line; the output parses to the same module and formatting it
//! again changes nothing.

use std::process::Command;

fn fmt_file(p: &std::path::Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxsim")).arg("fmt").arg(p).output().expect("ptxsim runs");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The comments of a PTX text, as written (`//` to the end of the line).
fn comments(text: &str) -> Vec<String> {
    text.lines().filter_map(|l| l.find("//").map(|i| l[i..].trim_end().to_string())).collect()
}

#[test]
fn fmt_keeps_every_comment_of_the_example() {
    let example = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/control_flow.ptx");
    let src = std::fs::read_to_string(&example).expect("example");
    let (code, out, err) = fmt_file(&example);
    assert_eq!(code, Some(0), "{err}");
    let want = comments(&src);
    assert!(want.len() >= 20, "the example has {} comments", want.len());
    assert_eq!(comments(&out), want, "{out}");
    // A trailing comment stays on its statement's line.
    assert!(out.lines().any(|l| l.trim_start().starts_with("@%p ret;") && l.ends_with("// divergent early return")), "{out}");
    // Same module, and a fixed point.
    let a = ptxsim_syntax::parse(&src);
    let b = ptxsim_syntax::parse(&out);
    assert!(!b.has_errors());
    assert_eq!(a.module, b.module);
    let dir = std::env::temp_dir().join(format!("ptxsim-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("once.ptx");
    std::fs::write(&p, &out).unwrap();
    let (_, twice, _) = fmt_file(&p);
    assert_eq!(twice, out);
}

#[test]
fn block_comments_and_comments_before_a_closing_brace_are_kept() {
    let src = ".version 7.8\n.target sm_70\n.address_size 64\n/* a module\n   comment */\n.visible .entry k()\n{\n    .reg .u32 %r; // the register\n    mov.u32 %r, 1; /* inline */\n    // before ret\n    ret;\n    // last words\n}\n// the end\n";
    let dir = std::env::temp_dir().join(format!("ptxsim-fmt2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("c.ptx");
    std::fs::write(&p, src).unwrap();
    let (code, out, err) = fmt_file(&p);
    assert_eq!(code, Some(0), "{err}");
    for c in ["/* a module\n   comment */", "// the register", "/* inline */", "// before ret", "// last words", "// the end"] {
        assert!(out.contains(c), "missing {c:?} in:\n{out}");
    }
    let pos = |s: &str| out.find(s).unwrap_or(usize::MAX);
    assert!(pos("// last words") < pos("}\n"), "{out}");
    assert!(pos("}\n") < pos("// the end"), "{out}");
    assert!(out.lines().any(|l| l.contains("mov.u32 %r, 1;") && l.ends_with("/* inline */")), "{out}");
}
