//! `ptxsim run` under hostile or careless input: buffers cost about their own
//! size in every output mode, input files are checked before they are read,
//! `.npy` files are read as NumPy defines them, the output directory is
//! checked before the run, a trap still reports the buffers (partial), and
//! every bad flag gets a message that names it and its range. Each test
//! bounds the time or the memory of the process.

mod common;

use common::{json, run, temp_dir, write, MB};
use std::path::Path;
use std::time::Duration;

const NOOP: &str = ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n    ret;\n}\n";

/// A `.npy` file (version 1.0) with the given descr, order, shape and data.
fn npy(path: &Path, descr: &str, fortran: bool, shape: &str, data: &[u8]) {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}", if fortran { "True" } else { "False" });
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    v.extend_from_slice(dict.as_bytes());
    v.extend_from_slice(data);
    std::fs::write(path, v).unwrap();
}

#[test]
fn a_100m_element_buffer_costs_about_its_size_in_text_and_json() {
    let dir = temp_dir("bigbuf");
    let k = write(&dir, "noop.ptx", NOOP);
    // 100 MB of u8: the old per-element JSON value and hex string cost 8.9 GB.
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u8[100000000]=zeros"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("arg0 u8[100000000] = [0, 0, 0,"), "{}", r.stdout);
    assert!(r.peak_rss < 400 * MB, "text mode: peak RSS {} MB for a 100 MB buffer", r.peak_rss / MB);
    // JSON streams the values; 14.9 GB before for 100M elements.
    let r = run(&["run", &k, "--kernel", "k", "--json", "--arg", "u8[50000000]=iota"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.peak_rss < 300 * MB, "json mode: peak RSS {} MB for a 50 MB buffer", r.peak_rss / MB);
    assert!(r.stdout.starts_with("{\"ok\":true,\"buffers\":[{\"arg\":0,\"type\":\"u8\",\"values\":[0,1,2,3,"));
    let v = json(&r);
    let vals = v["buffers"][0]["values"].as_array().expect("values");
    assert_eq!(vals.len(), 50_000_000);
    assert_eq!(vals[300], 300 % 256, "iota of u8 wraps");
}

#[test]
fn input_files_are_checked_before_they_are_read() {
    let dir = temp_dir("inputs");
    let k = write(&dir, "noop.ptx", NOOP);
    // /dev/zero has no size: the read stops one byte past the buffer.
    let r = run(&["run", &k, "--kernel", "k", "--arg", "s32[400]=@/dev/zero"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("/dev/zero holds more than the buffer's 1600 bytes"), "{}", r.stderr);
    assert!(r.peak_rss < 64 * MB, "peak RSS {} MB (it grew to 4.2 GB)", r.peak_rss / MB);
    // A 3 GB (sparse) file for a 400-element buffer: refused from its size.
    let big = dir.join("big.bin");
    std::fs::File::create(&big).unwrap().set_len(3_000_000_000).unwrap();
    let spec = format!("s32[400]=@{}", big.display());
    let r = run(&["run", &k, "--kernel", "k", "--arg", &spec]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("is 3000000000 bytes (750000000 elements), but the buffer is 400 s32 elements (1600 bytes)"), "{}", r.stderr);
    assert!(r.wall < Duration::from_secs(2) && r.peak_rss < 64 * MB, "{:?}, {} MB", r.wall, r.peak_rss / MB);
}

#[test]
fn npy_fortran_order_is_reordered_and_bad_files_are_named_for_what_they_are() {
    let dir = temp_dir("npy");
    let k = write(&dir, "noop.ptx", NOOP);
    // NumPy's np.asfortranarray([[0,1,2],[3,4,5]], dtype=np.uint32): the data
    // is column by column, 0 3 1 4 2 5; the kernel must see C order 0..5.
    let f = dir.join("f.npy");
    let data: Vec<u8> = [0u32, 3, 1, 4, 2, 5].iter().flat_map(|x| x.to_le_bytes()).collect();
    npy(&f, "<u4", true, "(2, 3)", &data);
    let spec = format!("u32[6]=@{}", f.display());
    let r = run(&["run", &k, "--kernel", "k", "--json", "--arg", &spec]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(json(&r)["buffers"][0]["values"], serde_json::json!([0, 1, 2, 3, 4, 5]));
    // Trailing bytes after the data.
    let t = dir.join("t.npy");
    let mut more = data.clone();
    more.extend_from_slice(&[9, 9, 9, 9]);
    npy(&t, "<u4", false, "(6,)", &more);
    let spec = format!("u32[6]=@{}", t.display());
    let r = run(&["run", &k, "--kernel", "k", "--arg", &spec]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("4 bytes of trailing data after the 6 elements"), "{}", r.stderr);
    // Truncated: says so, and does not blame the dtype.
    let c = dir.join("c.npy");
    npy(&c, "<u4", false, "(6,)", &data[..10]);
    let spec = format!("u32[6]=@{}", c.display());
    let r = run(&["run", &k, "--kernel", "k", "--arg", &spec]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("truncated: the header says 6 elements (24 bytes), but only 10 bytes follow it"), "{}", r.stderr);
    assert!(!r.stderr.contains("dtype"), "{}", r.stderr);
    // A dtype that differs is named as such.
    let spec = format!("f32[6]=@{}", f.display());
    let r = run(&["run", &k, "--kernel", "k", "--arg", &spec]);
    assert!(r.stderr.contains("dtype is '<u4', not f32"), "{}", r.stderr);
}

/// Every thread stores its index + 100 into out[tid], then thread 0 traps.
const TRAPS: &str = ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n    .reg .u32 %t, %v;\n    .reg .u64 %a, %o;\n    .reg .pred %p;\n    ld.param.u64 %o, [out];\n    mov.u32 %t, %tid.x;\n    add.u32 %v, %t, 100;\n    mul.wide.u32 %a, %t, 4;\n    add.u64 %a, %o, %a;\n    st.global.u32 [%a], %v;\n    bar.sync 0;\n    setp.eq.u32 %p, %t, 0;\n@%p trap;\n    ret;\n}\n";

#[test]
fn out_dir_is_checked_first_and_a_trap_still_reports_the_buffers() {
    let dir = temp_dir("outdir");
    let k = write(&dir, "traps.ptx", TRAPS);
    let file = write(&dir, "a-file", "x");
    let r = run(&["run", &k, "--kernel", "k", "--block", "4", "--arg", "u32[4]=zeros", "--out-dir", &file]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("exists and is not a directory"), "{}", r.stderr);
    assert!(!r.stderr.contains("trap"), "checked before the run: {}", r.stderr);
    let r = run(&["run", &k, "--kernel", "k", "--block", "4", "--arg", "u32[4]=zeros", "--out-dir", "/dev/null/sub"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--out-dir /dev/null/sub: cannot create it"), "{}", r.stderr);
    // A trap: the JSON has the error and the buffers as the kernel left them.
    let out = dir.join("out");
    let r = run(&["run", &k, "--kernel", "k", "--block", "4", "--json", "--arg", "u32[4]=zeros", "--out-dir", out.to_str().unwrap()]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let v = json(&r);
    assert_eq!(v["ok"], false);
    assert_eq!(v["error"]["kind"], "trap");
    assert_eq!(v["partial"], true);
    assert_eq!(v["buffers"][0]["values"], serde_json::json!([100, 101, 102, 103]));
    let npy = std::fs::read(out.join("arg0.npy")).expect("arg0.npy written after the trap");
    assert_eq!(&npy[npy.len() - 16..], [100u32, 101, 102, 103].iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>().as_slice());
    // Text mode shows them too.
    let r = run(&["run", &k, "--kernel", "k", "--block", "4", "--arg", "u32[4]=zeros"]);
    assert!(r.stderr.contains("buffers when the launch stopped (partial):") && r.stderr.contains("arg0 u32[4] = [100, 101, 102, 103]"), "{}", r.stderr);
}

#[test]
fn launch_flags_get_exact_messages() {
    let dir = temp_dir("flags");
    let k = write(&dir, "noop.ptx", NOOP);
    let base = ["run", k.as_str(), "--kernel", "k", "--arg", "u32[1]=zeros"];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        run(&a)
    };
    let r = with(&["--grid", "4294967296"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--grid: `4294967296` is out of range; it must be from 1 to 4294967295"), "{}", r.stderr);
    for flag in ["--grid", "--threads", "--block"] {
        let r = with(&[flag, "-1"]);
        assert_eq!(r.code, Some(2));
        assert!(r.stderr.contains(&format!("{flag}: `-1` is negative")), "{}", r.stderr);
        assert!(!r.stderr.contains("-- -1"), "no clap tip: {}", r.stderr);
    }
    let r = with(&["--threads", "0"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--threads: 0 is too small; it must be from 1 to 256"), "{}", r.stderr);
    let r = with(&["--threads", "100000"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--threads: `100000` is out of range; it must be from 1 to 256"), "{}", r.stderr);
    assert!(r.wall < Duration::from_secs(5));
    // No --kernel: the module's kernels are listed.
    let r = run(&["run", &k]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--kernel KERNEL is required") && r.stderr.contains("its kernels: k"), "{}", r.stderr);
}

#[test]
fn arguments_are_checked_against_the_parameters() {
    let dir = temp_dir("params");
    let k = write(&dir, "u32.ptx", ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u32 n)\n{\n    ret;\n}\n");
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u32[1]=zeros", "--arg", "f32=1.5"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("argument 1 (`n`, .u32) takes an integer, but the --arg is `f32` (a float)"), "{}", r.stderr);
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u32[1]=zeros", "--arg", "u64=1"]);
    assert!(r.stderr.contains("argument 1 (`n`, .u32) is 4 bytes, but `u64` is 8 bytes"), "{}", r.stderr);
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u32[1]=zeros"]);
    assert!(r.stderr.contains("kernel `k` takes 2 parameters, 1 --arg given: out (.u64), n (.u32)"), "{}", r.stderr);
    // Raw bits are accepted for any parameter of their size.
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u32[1]=zeros", "--arg", "b32=0x3fc00000"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

/// Reads the struct parameter's u32 at offset 4 and its u64 at offset 8 and
/// stores them to out[0] and out[1] (as u64).
const BYVAL: &str = ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out, .param .align 8 .b8 s[16])\n{\n    .reg .u32 %a;\n    .reg .u64 %b, %c, %o;\n    ld.param.u64 %o, [out];\n    ld.param.u32 %a, [s+4];\n    ld.param.u64 %b, [s+8];\n    cvt.u64.u32 %c, %a;\n    st.global.u64 [%o], %c;\n    st.global.u64 [%o+8], %b;\n    ret;\n}\n";

#[test]
fn a_struct_is_passed_by_value_with_its_size_checked() {
    let dir = temp_dir("byval");
    let k = write(&dir, "byval.ptx", BYVAL);
    let s = dir.join("s.bin");
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&7u32.to_le_bytes());
    bytes.extend_from_slice(&0xdead_beefu32.to_le_bytes());
    bytes.extend_from_slice(&0x0123_4567_89ab_cdefu64.to_le_bytes());
    std::fs::write(&s, &bytes).unwrap();
    let spec = format!("b8[16]=@{}", s.display());
    let r = run(&["run", &k, "--kernel", "k", "--json", "--arg", "u64[2]=zeros", "--arg", &spec]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert_eq!(json(&r)["buffers"][0]["values"], serde_json::json!([0xdead_beefu64, 0x0123_4567_89ab_cdefu64]));
    // The same bytes inline, as a list.
    let list = format!("b8[16]={}", bytes.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(","));
    let r = run(&["run", &k, "--kernel", "k", "--json", "--arg", "u64[2]=zeros", "--arg", &list]);
    assert_eq!(json(&r)["buffers"][0]["values"][0], 0xdead_beefu64);
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u64[2]=zeros", "--arg", "b8[8]=zeros"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("argument 1 (`s`, .b8 array of 16 bytes) is passed by value and needs exactly 16 bytes; the --arg buffer is 8 bytes"), "{}", r.stderr);
    let r = run(&["run", &k, "--kernel", "k", "--arg", "u64[2]=zeros", "--arg", "u64=1"]);
    assert!(r.stderr.contains("is an array passed by value; give its bytes as a buffer"), "{}", r.stderr);
}

#[test]
fn limits_follow_the_module_target() {
    let dir = temp_dir("target");
    let src = |sm: &str| format!(".version 7.8\n.target {sm}\n.address_size 64\n.extern .shared .align 4 .b8 dyn[];\n.visible .entry k(.param .u64 a)\n{{\n    .reg .u32 %r;\n    .shared .align 4 .b8 s[1024];\n    ld.shared.u32 %r, [s];\n    ret;\n}}\n");
    let k80 = write(&dir, "k80.ptx", &src("sm_80"));
    let k90 = write(&dir, "k90.ptx", &src("sm_90"));
    // sm_80: 163 KB per block (166,912 bytes) static + dynamic; sm_90: 227 KB (232,448).
    let ok = |k: &str, dynamic: u32| run(&["run", k, "--kernel", "k", "--arg", "u32[1]=zeros", "--shared", &dynamic.to_string()]);
    assert_eq!(ok(&k80, 166_912 - 1024).code, Some(0));
    let r = ok(&k80, 166_912 - 1024 + 1);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("exceed the limit of 166912"), "{}", r.stderr);
    let r = ok(&k80, 200_000);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--shared 200000: more than the 166912 bytes of shared memory a CTA may use on sm_80"), "{}", r.stderr);
    assert_eq!(ok(&k90, 232_448 - 1024).code, Some(0));
    assert!(ok(&k90, 232_448 - 1024 + 1).stderr.contains("exceed the limit of 232448"));
    // Clusters need sm_90.
    let r = run(&["run", &k80, "--kernel", "k", "--arg", "u32[1]=zeros", "--grid", "2", "--cluster", "2"]);
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("--cluster: thread-block clusters need sm_90 or later"), "{}", r.stderr);
    assert_eq!(run(&["run", &k90, "--kernel", "k", "--arg", "u32[1]=zeros", "--grid", "2", "--cluster", "2"]).code, Some(0));
}

#[test]
fn load_errors_name_the_file_and_extern_shared_gets_a_hint() {
    let dir = temp_dir("load");
    // A big declared range costs nothing (ptxas accepts it): only the
    // registers the body names take slots.
    let k = write(&dir, "regs.ptx", ".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n    .reg .b32 %r<4294967295>;\n    mov.u32 %r4294967294, 1;\n    ret;\n}\n");
    assert_eq!(run(&["run", &k, "--kernel", "k"]).code, Some(0));
    // Naming more registers than the engine's limit is a load error at the
    // function's line.
    let body: String = (0..16_385).map(|i| format!("    mov.u32 %r{i}, {i};\n")).collect();
    let k = write(&dir, "regs2.ptx", &format!(".version 7.8\n.target sm_70\n.address_size 64\n.visible .entry k()\n{{\n    .reg .b32 %r<20000>;\n{body}    ret;\n}}\n"));
    let r = run(&["run", &k, "--kernel", "k"]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains(&format!("{k}:4: more than 16384 registers named in one function")), "{}", r.stderr);
    let k = write(&dir, "dyn.ptx", ".version 7.8\n.target sm_70\n.address_size 64\n.extern .shared .align 4 .b8 buf[];\n.visible .entry k()\n{\n    .reg .u32 %r;\n    st.shared.u32 [buf], 1;\n    ret;\n}\n");
    let r = run(&["run", &k, "--kernel", "k"]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("error[out_of_bounds]"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: the module declares `extern .shared` `buf`") && r.stderr.contains("--shared BYTES"), "{}", r.stderr);
    let r = run(&["run", &k, "--kernel", "k", "--json"]);
    assert!(json(&r)["error"]["hint"].as_str().unwrap_or("").contains("--shared"));
    assert_eq!(run(&["run", &k, "--kernel", "k", "--shared", "4"]).code, Some(0));
}
