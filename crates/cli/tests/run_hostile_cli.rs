//! `ptxsim run` against hostile inputs: a Fortran-order `.npy` of
//! thousands of size-1 dimensions loads in time linear in its size,
//! `--timeout` covers loading the arguments, a buffer costs one copy of
//! itself in memory whatever fills it, messages stay short whatever the
//! names and lists they mention, a load error names its own file, control
//! characters are escaped in error text but not in what the kernel prints,
//! `--out-dir` never writes through a planted symbolic link, `.npy` headers
//! are read as strictly as the format defines, and a buffer of no elements
//! is a null pointer. Each test bounds the time or memory of the process.

mod common;

use common::{json, run, temp_dir, write, MB};
use std::path::Path;
use std::time::Duration;

const HDR: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

/// The start of a long output, for a failure message.
fn head(s: &str) -> &str {
    let mut k = s.len().min(500);
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    &s[..k]
}

/// A `.npy` file (version 2.0, so the header may pass 64 KiB) with the
/// given header dict and data; the header is padded to a multiple of 64.
fn npy(path: &Path, dict: &str, data: &[u8]) {
    let mut dict = dict.to_string();
    while !(12 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    let mut v = b"\x93NUMPY\x02\x00".to_vec();
    v.extend_from_slice(&(dict.len() as u32).to_le_bytes());
    v.extend_from_slice(dict.as_bytes());
    v.extend_from_slice(data);
    std::fs::write(path, v).unwrap();
}

/// A kernel of one pointer parameter that does nothing.
fn noop(dir: &Path) -> String {
    write(dir, "noop.ptx", &format!("{HDR}.visible .entry k(.param .u64 a)\n{{\n    ret;\n}}\n"))
}

#[test]
fn a_fortran_npy_with_20000_size_1_dimensions_loads_in_linear_time() {
    let dir = temp_dir("fortran1s");
    let k = noop(&dir);
    // Shape (550, 1, ..., 1, 4000) in Fortran order: element (i, j) of the
    // C-order array, i*4000 + j, is at i + j*550 in the data (the format's
    // column-major order; the 1s change neither order). Value: its C index
    // mod 251.
    let (rows, cols) = (550usize, 4000usize);
    let mut data = vec![0u8; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            data[i + j * rows] = ((i * cols + j) % 251) as u8;
        }
    }
    let shape = format!("({rows}, {}{cols})", "1, ".repeat(20_000));
    let f = dir.join("f.npy");
    npy(&f, &format!("{{'descr': '|u1', 'fortran_order': True, 'shape': {shape}, }}"), &data);
    let out = dir.join("out");
    let spec = format!("u8[{}]=@{}", rows * cols, f.display());
    // 2.2 M elements x 20,002 dimensions took about 20 s before.
    let r = run(&["run", &k, "--kernel", "k", "--arg", &spec, "--out-dir", out.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.wall < Duration::from_secs(4), "{:?}", r.wall);
    let back = std::fs::read(out.join("arg0.npy")).expect("arg0.npy");
    let c = &back[back.len() - rows * cols..];
    assert!(c.iter().enumerate().all(|(k, &v)| v as usize == k % 251), "not in C order");
}

#[test]
fn timeout_counts_from_the_start_and_covers_loading_the_arguments() {
    let dir = temp_dir("loadtimeout");
    let k = noop(&dir);
    // 256 MiB of iota cannot be generated in 20 ms: the limit passes while
    // the argument loads (before, the launch got its own 20 ms afterwards
    // and the run succeeded).
    let r = run(&["run", &k, "--kernel", "k", "--json", "--timeout", "0.02", "--arg", "u8[268435456]=iota"]);
    assert_eq!(r.code, Some(1), "{}{}", head(&r.stdout), head(&r.stderr));
    let v = json(&r);
    assert_eq!(v["error"]["kind"], "timeout", "{}", head(&r.stdout));
    let m = v["error"]["message"].as_str().unwrap_or("");
    assert!(m.contains("20 ms") && m.contains("--timeout") && m.contains("loading the arguments"), "{m}");
    assert!(r.wall < Duration::from_secs(2), "{:?}", r.wall);
    let r = run(&["run", &k, "--kernel", "k", "--timeout", "0.02", "--arg", "u8[268435456]=iota"]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.starts_with("error[timeout]: "), "{}", r.stderr);
}

#[test]
fn the_launch_gets_only_the_time_left() {
    let dir = temp_dir("timeleft");
    // Spins forever; two 256 MiB iota buffers take a good part of the limit to fill.
    let k = write(&dir, "spin.ptx", &format!("{HDR}.visible .entry k(.param .u64 a, .param .u64 b)\n{{\n.reg .u32 %i;\nmov.u32 %i, 0;\nL:\nadd.u32 %i, %i, 1;\nbra L;\n}}\n"));
    const LIMIT_MS: u64 = 3000;
    let r = run(&["run", &k, "--kernel", "k", "--timeout", "3", "--fuel", "1000000000000", "--arg", "u8[268435456]=iota", "--arg", "u8[268435456]=iota"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.starts_with("error[timeout]: "), "{}", head(&r.stderr));
    if r.stderr.contains("before the launch") {
        // A machine so loaded that filling the buffers took the whole
        // limit: the command stops while loading and never launches.
        assert!(r.stderr.contains("while loading"), "{}", head(&r.stderr));
        assert!(r.wall < Duration::from_millis(2 * LIMIT_MS), "{:?}", r.wall);
        return;
    }
    // The message says how long loading took ("took 977 ms" or "took
    // 1.126 s"). Text output, so the tail is not the time to print 512 MiB
    // of JSON.
    let took = r.stderr.split("took ").nth(1).and_then(|t| t.split(')').next()).unwrap_or("");
    let loading = match took.split_once(' ') {
        Some((n, "ms")) => n.parse::<u64>().ok(),
        Some((n, "s")) => n.parse::<f64>().ok().map(|s| (s * 1000.0) as u64),
        _ => None,
    }
    .unwrap_or_else(|| panic!("no loading time in {}", head(&r.stderr)));
    assert!(loading >= 200, "loading two 256 MiB iota buffers took {loading} ms: too little to tell the two behaviours apart");
    // Had the launch been given the whole limit, the command would have
    // run at least the loading time plus the limit (process start and
    // teardown come on top); given only what was left, it ends after the
    // limit plus start and teardown, which take far less than the loading.
    // The bound is the one the old behaviour could not meet, without a
    // margin that a loaded machine's slow teardown could eat.
    assert!(r.wall < Duration::from_millis(LIMIT_MS + loading), "{:?} with {loading} ms of loading", r.wall);
}

#[test]
fn a_256_mib_buffer_peaks_well_under_twice_its_size() {
    let dir = temp_dir("peak");
    let k = noop(&dir);
    const N: u64 = 256 * MB;
    // Before: the initialiser's bytes and the device copy (530 MB), then
    // the device copy and the copy read back.
    let r = run(&["run", &k, "--kernel", "k", "--max-memory", "300M", "--arg", "u8[268435456]=iota"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("arg0 u8[268435456] = [0, 1, 2, 3,"), "{}", head(&r.stdout));
    assert!(r.peak_rss < N * 13 / 10, "iota: peak RSS {} MB for a 256 MiB buffer", r.peak_rss / MB);
    // A raw file, read back to --out-dir.
    let bin = dir.join("big.bin");
    let bytes: Vec<u8> = (0..N).map(|i| (i % 253) as u8).collect();
    std::fs::write(&bin, &bytes).unwrap();
    let out = dir.join("out");
    let spec = format!("u8[268435456]=@{}", bin.display());
    let r = run(&["run", &k, "--kernel", "k", "--max-memory", "300M", "--arg", &spec, "--out-dir", out.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.peak_rss < N * 13 / 10, "@file: peak RSS {} MB for a 256 MiB buffer", r.peak_rss / MB);
    let back = std::fs::read(out.join("arg0.npy")).expect("arg0.npy");
    assert!(back[back.len() - bytes.len()..] == bytes[..], "the file's bytes come back");
    drop(back);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_and_lists_in_run_messages_are_cut() {
    let dir = temp_dir("cut");
    let params: Vec<String> = (0..100_000).map(|i| format!(".param .u32 p{i}")).collect();
    let many = write(&dir, "many.ptx", &format!("{HDR}.visible .entry k({})\n{{\nret;\n}}\n", params.join(",\n")));
    for json_flag in [false, true] {
        let mut a = vec!["run", many.as_str(), "--kernel", "k", "--arg", "u32=1"];
        if json_flag {
            a.push("--json");
        }
        let r = run(&a);
        assert_eq!(r.code, Some(2));
        let all = format!("{}{}", r.stdout, r.stderr);
        // 1.5 MB before.
        assert!(all.len() < 1000, "{} bytes", all.len());
        assert!(all.contains("takes 100000 parameters, 1 --arg given: p0 (.u32), p1 (.u32)") && all.contains("… and 99992 more"), "{}", head(&all));
    }
    let name = "k".repeat(5_000_000);
    let long = write(&dir, "long.ptx", &format!("{HDR}.visible .entry {name}()\n{{\nret;\n}}\n"));
    drop(name);
    for a in [vec!["run", long.as_str()], vec!["run", long.as_str(), "--kernel", "x"], vec!["run", long.as_str(), "--kernel", "x", "--json"]] {
        let r = run(&a);
        assert_eq!(r.code, Some(2));
        let all = format!("{}{}", r.stdout, r.stderr);
        // 5 MB before.
        assert!(all.len() < 1000, "{a:?}: {} bytes", all.len());
        assert!(all.contains("…(5000000 bytes)"), "{}", head(&all));
    }
    // Quoted user text (each under Linux's 128 KiB per argument): a module
    // path of 80,000 bytes, an --arg of 30,000 values with a 20,000-byte bad
    // one, a bad --grid, a missing input file with a long name, many kernels.
    let k = noop(&dir);
    let spec = format!("u32[30000]={}{}", "1,".repeat(29_999), "x".repeat(20_000));
    let grid = "9".repeat(100_000);
    let missing = format!("u32[1]=@{}/{}", dir.display(), "m".repeat(200));
    let kernels: String = (0..1000).map(|i| format!(".visible .entry k{i}()\n{{\nret;\n}}\n")).collect();
    let kk = write(&dir, "kernels.ptx", &format!("{HDR}{kernels}"));
    let deep = format!("{}/{}missing.ptx", dir.display(), "./".repeat(40_000));
    for a in [
        vec!["run", deep.as_str(), "--kernel", "k"],
        vec!["run", k.as_str(), "--kernel", "k", "--arg", spec.as_str()],
        vec!["run", k.as_str(), "--kernel", "k", "--grid", grid.as_str()],
        vec!["run", k.as_str(), "--kernel", "k", "--arg", missing.as_str()],
        vec!["run", kk.as_str()],
    ] {
        let r = run(&a);
        assert_eq!(r.code, Some(2), "{}", r.stderr);
        assert!(r.stderr.len() < 1000, "{} bytes: {}", r.stderr.len(), &r.stderr[..r.stderr.len().min(300)]);
        assert!(r.stderr.contains(" bytes)") || r.stderr.contains("more"), "{}", r.stderr);
    }
}

#[test]
fn a_load_error_names_the_file_it_is_in() {
    let dir = temp_dir("loadfile");
    let km = write(&dir, "km.ptx", &format!("{HDR}.extern .func (.param .b32 r) f(.param .b32 a);\n.visible .entry km(.param .u64 o)\n{{\n.param .b32 pa;\n.param .b32 pr;\nst.param.b32 [pa], 1;\ncall (pr), f, (pa);\nret;\n}}\n"));
    let bad = write(&dir, "bad.ptx", &format!("{HDR}.visible .func (.param .b32 r) g(.param .b32 a)\n{{\n  mov.u32 %nope, 1;\n  ret;\n}}\n"));
    let v1 = write(&dir, "v1.ptx", &format!("{HDR}.visible .func (.param .b32 r) f(.param .b32 a)\n{{\n  st.param.b32 [r], 1;\n  ret;\n}}\n"));
    let r = run(&["run", &km, &bad, &v1, "--kernel", "km", "--arg", "u32[1]=zeros"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("error[load_error]: `{bad}` does not load:")), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{bad}:6:11")), "{}", r.stderr);
    assert!(!r.stderr.contains(&format!("`{km}` does not load")), "{}", r.stderr);
}

/// The bytes of `s` that a terminal acts on: C0 controls other than
/// newline and tab, and DEL.
fn controls(s: &str) -> Vec<char> {
    s.chars().filter(|&c| c.is_ascii_control() && c != '\n' && c != '\t').collect()
}

#[test]
fn control_characters_are_escaped_in_error_text_not_in_kernel_output() {
    let dir = temp_dir("controls");
    // __assertfail(message "\e[2J\a\rhi\x7f", file and function "a\eb", line 7).
    let k = write(
        &dir,
        "assert.ptx",
        &format!(
            "{HDR}.extern .func __assertfail(.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b64 p4);\n\
             .global .align 1 .b8 msg[10] = {{27, 91, 50, 74, 7, 13, 104, 105, 127, 0}};\n\
             .global .align 1 .b8 fil[4] = {{97, 27, 98, 0}};\n\
             .visible .entry k()\n{{\n.reg .b64 %rd<3>;\nmov.u64 %rd1, msg;\ncvta.global.u64 %rd1, %rd1;\nmov.u64 %rd2, fil;\ncvta.global.u64 %rd2, %rd2;\n\
             {{\n.param .b64 a0;\nst.param.b64 [a0], %rd1;\n.param .b64 a1;\nst.param.b64 [a1], %rd2;\n.param .b32 a2;\nst.param.b32 [a2], 7;\n\
             .param .b64 a3;\nst.param.b64 [a3], %rd2;\n.param .b64 a4;\nst.param.b64 [a4], 1;\ncall.uni __assertfail, (a0, a1, a2, a3, a4);\n}}\nret;\n}}\n"
        ),
    );
    let r = run(&["run", &k, "--kernel", "k"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(controls(&r.stderr).is_empty(), "{:?}", r.stderr);
    assert!(r.stderr.contains("assertion `\\x1b[2J\\x07\\rhi\\x7f` failed at a\\x1bb:7"), "{}", r.stderr);
    // The kernel's own output (CUDA's assertion line) is written as it is.
    assert!(r.stdout.contains("a\x1bb:7: a\x1bb: block: [0,0,0], thread: [0,0,0] Assertion `\x1b[2J\x07\rhi\x7f` failed.\n"), "{:?}", r.stdout);
    // JSON carries the characters themselves (JSON escapes them).
    let r = run(&["run", &k, "--kernel", "k", "--json"]);
    assert!(json(&r)["error"]["message"].as_str().unwrap_or("").contains("`\x1b[2J\x07\rhi\x7f`"), "{}", r.stdout);
    // A quoted source line with ESC, BEL and CR: `run`'s load error and
    // `check`, also in colour (whose own escapes are SGR sequences only).
    let bad = write(&dir, "ctl.ptx", &format!("{HDR}.visible .entry k()\n{{\n  bogus\x1b]0;title\x07\x1b[2J\r;\n  ret;\n}}\n"));
    let r = run(&["run", &bad, "--kernel", "k"]);
    assert_eq!(r.code, Some(1));
    assert!(controls(&r.stderr).is_empty(), "{:?}", r.stderr);
    assert!(r.stderr.contains("bogus\\x1b]0;title\\x07\\x1b[2J\\r;"), "{}", r.stderr);
    let r = run(&["check", "--color", "never", &bad]);
    assert!(controls(&r.stdout).is_empty() && r.stdout.contains("\\x1b[2J"), "{:?}", r.stdout);
    let r = run(&["check", "--color", "always", &bad]);
    assert!(r.stdout.contains("\\x1b[2J") && !r.stdout.contains("\x1b[2J") && !r.stdout.contains("\x1b]") && !r.stdout.contains('\x07') && !r.stdout.contains('\r'), "{:?}", r.stdout);
}

#[test]
fn out_dir_replaces_a_planted_symlink_instead_of_writing_through_it() {
    let dir = temp_dir("symlink");
    let k = noop(&dir);
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let outside = dir.join("outside.txt");
    std::fs::write(&outside, b"precious").unwrap();
    std::os::unix::fs::symlink(&outside, out.join("arg0.npy")).unwrap();
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u32[4]=iota", "--out-dir", out.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(std::fs::read(&outside).unwrap(), b"precious", "written through the link");
    let meta = std::fs::symlink_metadata(out.join("arg0.npy")).unwrap();
    assert!(meta.file_type().is_file(), "arg0.npy is now a file of its own");
    let npy = std::fs::read(out.join("arg0.npy")).unwrap();
    assert_eq!(&npy[npy.len() - 16..], [0u32, 1, 2, 3].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>().as_slice());
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["arg0.npy"]);
}

#[test]
fn npy_headers_with_repeated_keys_or_loose_dtype_sizes_are_refused() {
    let dir = temp_dir("npyhdr");
    let k = noop(&dir);
    let data = [0u8; 16];
    let cases = [
        ("dup-shape.npy", "{'descr': '<u4', 'fortran_order': False, 'shape': (4,), 'shape': (2,), }", "the key 'shape' twice"),
        ("dup-descr.npy", "{'descr': '<u4', 'fortran_order': False, 'descr': '<f4', 'shape': (4,), }", "the key 'descr' twice"),
        ("dup-order.npy", "{'descr': '<u4', 'fortran_order': False, 'fortran_order': True, 'shape': (4,), }", "the key 'fortran_order' twice"),
        ("plus.npy", "{'descr': '<u+4', 'fortran_order': False, 'shape': (4,), }", "dtype is '<u+4', not u32"),
        ("space.npy", "{'descr': '<u 4', 'fortran_order': False, 'shape': (4,), }", "dtype is '<u 4', not u32"),
    ];
    for (name, dict, want) in cases {
        let p = dir.join(name);
        npy(&p, dict, &data);
        let spec = format!("u32[4]=@{}", p.display());
        let r = run(&["run", &k, "--kernel", "k", "--arg", &spec]);
        assert_eq!(r.code, Some(2), "{name}: {}", r.stdout);
        assert!(r.stderr.contains(want), "{name}: {}", r.stderr);
    }
}

#[test]
fn a_buffer_of_no_elements_is_a_null_pointer() {
    let dir = temp_dir("empty");
    let k = noop(&dir);
    let out = dir.join("out");
    let r = run(&["run", &k, "--kernel", "k", "--json", "--arg", "u32[0]=zeros", "--out-dir", out.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(json(&r)["buffers"][0]["values"], serde_json::json!([]));
    let npy = std::fs::read(out.join("arg0.npy")).expect("arg0.npy");
    assert!(String::from_utf8_lossy(&npy).contains("'shape': (0,)"));
    // A load from it is out of bounds: it has no bytes (not "1 bytes").
    let ld = write(&dir, "ld.ptx", &format!("{HDR}.visible .entry k(.param .u64 a)\n{{\n.reg .u64 %a;\n.reg .u32 %r;\nld.param.u64 %a, [a];\nld.global.u32 %r, [%a];\nret;\n}}\n"));
    let r = run(&["run", &ld, "--kernel", "k", "--arg", "u32[0]=zeros"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("error[out_of_bounds]") && r.stderr.contains("null pointer"), "{}", r.stderr);
    assert!(!r.stderr.contains("1 bytes"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: argument 0 is a buffer of 0 elements"), "{}", r.stderr);
}
