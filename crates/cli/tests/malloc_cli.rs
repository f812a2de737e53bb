//! `ptxsim run` with a kernel that calls the device `malloc` and `free`:
//! `--malloc-heap` sets the heap's size (CUDA's default is 8 MiB), an
//! exhausted heap gives NULL, and a bad `free` stops the run with a located
//! `bad_free` error.

use std::io::Write;
use std::process::{Command, Output};

/// Each of the kernel's threads mallocs `n` bytes and writes 1 to
/// `got[tid]` when it got a block; with `off` not 0, a thread that got one
/// then frees `block + off`.
const PTX: &str = ".version 7.8\n.target sm_70\n.address_size 64\n\
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n\
.extern .func free(.param .b64 free_param_0);\n\
.visible .entry k(.param .u64 got, .param .u64 n, .param .u64 off)\n{\n\
  .reg .pred %p;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<8>;\n\
  ld.param.u64 %rd1, [got];\n  ld.param.u64 %rd2, [n];\n  ld.param.u64 %rd6, [off];\n\
  {\n  .param .b64 param0;\n  st.param.b64 [param0], %rd2;\n  .param .b64 retval0;\n  call.uni (retval0), malloc, (param0);\n  ld.param.b64 %rd3, [retval0];\n  }\n\
  setp.ne.u64 %p, %rd3, 0;\n  selp.u32 %r2, 1, 0, %p;\n  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd4, %r1, 4;\n  add.u64 %rd5, %rd1, %rd4;\n  st.global.u32 [%rd5], %r2;\n\
  setp.eq.u64 %p, %rd6, 0;\n  @%p bra DONE;\n  add.u64 %rd3, %rd3, %rd6;\n\
  {\n  .param .b64 param0;\n  st.param.b64 [param0], %rd3;\n  call.uni free, (param0);\n  }\n\
DONE:\n  ret;\n}\n";

fn module() -> String {
    let dir = std::env::temp_dir().join(format!("ptxsim-malloc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join("heap.ptx");
    std::fs::File::create(&p).and_then(|mut f| f.write_all(PTX.as_bytes())).expect("write");
    p.display().to_string()
}

fn run(f: &str, n: u64, off: u64, extra: &[&str]) -> (Output, serde_json::Value) {
    let (n, off) = (format!("u64={n}"), format!("u64={off}"));
    let mut args = vec!["run", f, "--kernel", "k", "--block", "64", "--json", "--arg", "u32[64]=zeros", "--arg", &n, "--arg", &off];
    args.extend(extra);
    let o = Command::new(env!("CARGO_BIN_EXE_ptxsim")).args(&args).output().expect("the ptxsim binary runs");
    let v = serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Null);
    (o, v)
}

fn granted(v: &serde_json::Value) -> u64 {
    v["buffers"][0]["values"].as_array().expect("values").iter().filter_map(|x| x.as_u64()).sum()
}

#[test]
fn malloc_heap_flag_sizes_the_heap() {
    let f = module();
    // 64 blocks of 1 KiB fit the default 8 MiB heap.
    let (o, v) = run(&f, 1024, 0, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(granted(&v), 64, "{v}");
    // A 16 KiB heap holds 16 of them; the others get NULL.
    let (o, v) = run(&f, 1024, 0, &["--malloc-heap", "16K"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(granted(&v), 16, "{v}");
    let (o, _) = run(&f, 1024, 0, &["--malloc-heap", "lots"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stdout).contains("--malloc-heap"), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn a_bad_free_is_reported_with_line_and_lane() {
    let f = module();
    let (o, v) = run(&f, 64, 16, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(v["error"]["kind"], "bad_free", "{v}");
    let line = PTX.lines().position(|l| l.contains("call.uni free")).unwrap() as u64 + 1;
    assert_eq!(v["error"]["line"], line, "{v}");
    assert_eq!(v["error"]["lane"], 0, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| m.contains("16 bytes into the block of 64 bytes")), "{v}");
}
