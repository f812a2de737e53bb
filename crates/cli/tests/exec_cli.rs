//! `ptxsim exec -- CMD`: CMD finds the ptxsim driver library as
//! `libcuda.so.1` by name (Python's ctypes, a C program's dlopen), the
//! options reach the library (`--cc`, `--scheduling`, `--summary`), CMD's
//! exit status comes back, and a missing library is exit 2 with the
//! instructions.
//!
//! The library used is the one cargo built for this profile
//! (`target/<profile>/deps/libcuda.so` or `target/<profile>/libcuda.so`,
//! the newer; built with `cargo build -p ptxsim-cuda` when neither exists),
//! passed through `PTXSIM_LIBCUDA`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The built driver library.
fn libcuda() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let profile_dir = Path::new(env!("CARGO_BIN_EXE_ptxsim")).parent().expect("bin dir").to_path_buf();
        let find = || {
            [profile_dir.join("deps/libcuda.so"), profile_dir.join("libcuda.so")]
                .into_iter()
                .filter(|p| p.is_file())
                .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        };
        if let Some(p) = find() {
            return p;
        }
        let release = profile_dir.file_name().is_some_and(|n| n == "release");
        let mut c = Command::new(env!("CARGO"));
        c.args(["build", "-p", "ptxsim-cuda"]);
        if release {
            c.arg("--release");
        }
        let st = c.status().expect("run cargo build -p ptxsim-cuda");
        assert!(st.success(), "cargo build -p ptxsim-cuda failed");
        find().expect("libcuda.so after cargo build -p ptxsim-cuda")
    })
}

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("exec-cli-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// `ptxsim exec ARGS` with the built library and a clean environment for
/// the library's own settings.
fn exec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .arg("exec")
        .args(args)
        .env("PTXSIM_LIBCUDA", libcuda())
        .env_remove("PTXSIM_CC")
        .env_remove("PTXSIM_LOG")
        .env_remove("PTXSIM_SCHEDULING")
        .env_remove("PTXSIM_THREADS")
        .env_remove("PTXSIM_SUMMARY")
        .env_remove("CUPY_COMPILE_WITH_PTX")
        .env_remove("CUPY_ACCELERATORS")
        .output()
        .expect("run ptxsim exec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const PY_DEVICE: &str = r#"
import ctypes
lib = ctypes.CDLL("libcuda.so.1")
assert lib.cuInit(0) == 0
dev = ctypes.c_int()
assert lib.cuDeviceGet(ctypes.byref(dev), 0) == 0
name = ctypes.create_string_buffer(64)
assert lib.cuDeviceGetName(name, 64, dev) == 0
major, minor = ctypes.c_int(), ctypes.c_int()
assert lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev) == 0
assert lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev) == 0
print(f"{name.value.decode()} {major.value}.{minor.value}")
"#;

#[test]
fn python_ctypes_finds_libcuda_so_1_and_sees_cc() {
    let d = scratch("python");
    let script = d.join("device.py");
    std::fs::write(&script, PY_DEVICE).unwrap();
    let s = script.to_str().unwrap();
    let out = exec(&["--", "python3", s]);
    assert!(out.status.success(), "stdout: {}\nstderr: {}", text(&out.stdout), text(&out.stderr));
    assert_eq!(text(&out.stdout), "ptxsim 8.0\n");
    let out = exec(&["--cc", "7.5", "--", "python3", s]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "ptxsim 7.5\n");
}

/// Compiles tests/c/dlopen_vadd.c (no link against the library).
fn dlopen_vadd(name: &str) -> PathBuf {
    let d = scratch(name);
    let exe = d.join("dlopen_vadd");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/dlopen_vadd.c");
    let out = Command::new("cc").args(["-std=c99", "-Wall", "-o"]).arg(&exe).arg(src).arg("-ldl").output().expect("run cc (a C compiler is needed)");
    assert!(out.status.success(), "cc failed:\n{}", text(&out.stderr));
    exe
}

#[test]
fn c_program_dlopens_libcuda_by_name_and_runs_vadd() {
    let exe = dlopen_vadd("c-vadd");
    let out = exec(&["--", exe.to_str().unwrap()]);
    assert!(out.status.success(), "stdout: {}\nstderr: {}", text(&out.stdout), text(&out.stderr));
    assert_eq!(text(&out.stdout), "OK ptxsim cc=8.0 sum=93375\n");
    assert!(out.stderr.is_empty(), "stderr without --summary: {}", text(&out.stderr));
}

#[test]
fn summary_lists_kernel_launches_and_instructions() {
    let exe = dlopen_vadd("c-summary");
    let out = exec(&["--summary", "--threads", "2", "--", exe.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "stderr: {err}");
    assert_eq!(text(&out.stdout), "OK ptxsim cc=8.0 sum=93375\n");
    assert!(err.contains("summary: cc 8.0, scheduling its, threads 2, timeout 60 s, fuel 1000000000\n"), "{err}");
    assert!(err.contains("kernels launched: 2\n"), "{err}");
    assert!(err.contains("    vadd: 2\n"), "{err}");
    assert!(err.contains("traps: 0, launches refused: 0"), "{err}");
    // 250 threads: 8 warps per launch, each running a few instructions.
    let warp: u64 = err.split("warp instructions: ").nth(1).and_then(|r| r.split(',').next()).and_then(|n| n.parse().ok()).expect("warp count");
    assert!(warp >= 2 * 8 * 10, "{err}");
}

#[test]
fn timeout_and_fuel_options_reach_the_library() {
    let exe = dlopen_vadd("c-limits");
    let e = exe.to_str().unwrap();
    let out = exec(&["--timeout", "0", "--fuel", "5000", "--summary", "--", e]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("threads auto, timeout none, fuel 5000\n"), "{err}");
    let out = exec(&["--timeout", "2.5", "--summary", "--", e]);
    assert!(text(&out.stderr).contains("timeout 2.5 s, fuel 1000000000\n"), "{}", text(&out.stderr));
    // A budget too small for the 8 warps of a launch: the launch stops
    // with fuel exhausted (a sticky error), which the program reports.
    let out = exec(&["--fuel", "3", "--summary", "--", e]);
    assert!(!out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("fuel exhausted"), "{}", text(&out.stderr));
    // Not a number of seconds, or no fuel: usage errors from ptxsim itself.
    assert_eq!(exec(&["--timeout", "soon", "--", "true"]).status.code(), Some(2));
    assert_eq!(exec(&["--fuel", "0", "--", "true"]).status.code(), Some(2));
}

#[test]
fn scheduling_option_reaches_the_library() {
    let exe = dlopen_vadd("c-sched");
    let e = exe.to_str().unwrap();
    // cc 6.1 defaults to the stack; --scheduling its overrides it.
    let out = exec(&["--cc", "6.1", "--summary", "--", e]);
    assert!(text(&out.stderr).contains("summary: cc 6.1, scheduling stack, threads auto"), "{}", text(&out.stderr));
    let out = exec(&["--cc", "6.1", "--scheduling", "its", "--summary", "--", e]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(text(&out.stdout), "OK ptxsim cc=6.1 sum=93375\n");
    assert!(err.contains("summary: cc 6.1, scheduling its, threads auto"), "{err}");
    let out = exec(&["--scheduling", "stack", "--summary", "--", e]);
    assert!(text(&out.stderr).contains("summary: cc 8.0, scheduling stack"), "{}", text(&out.stderr));
    // Not a mode: a usage error from ptxsim itself.
    let out = exec(&["--scheduling", "simt", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn exit_status_of_cmd_is_passed_through() {
    assert_eq!(exec(&["--", "sh", "-c", "exit 7"]).status.code(), Some(7));
    assert_eq!(exec(&["--", "true"]).status.code(), Some(0));
    // Killed by SIGTERM (15): 128 + 15.
    assert_eq!(exec(&["--", "sh", "-c", "kill -TERM $$"]).status.code(), Some(143));
}

#[test]
fn cmd_sees_the_library_dir_and_it_is_removed_after() {
    let out = exec(&["--", "sh", "-c", "echo \"$LD_LIBRARY_PATH|$TRITON_LIBCUDA_PATH\"; test -e \"$TRITON_LIBCUDA_PATH/libcuda.so.1\" && test -e \"$TRITON_LIBCUDA_PATH/libcuda.so\""]);
    let o = text(&out.stdout);
    assert!(out.status.success(), "libcuda.so.1/libcuda.so missing in the directory: {o}");
    let (ld, triton) = o.trim_end().split_once('|').expect("two paths");
    assert_eq!(ld.split(':').next(), Some(triton), "{o}");
    assert!(!Path::new(triton).exists(), "{triton} left behind");
}

/// CuPy's settings: PTX from NVRTC, no prebuilt CUB, unless the caller
/// set them.
#[test]
fn cupy_settings_default_unless_set() {
    let out = exec(&["--", "sh", "-c", "echo \"${CUPY_COMPILE_WITH_PTX-unset}|${CUPY_ACCELERATORS-unset}\""]);
    assert_eq!(text(&out.stdout).trim_end(), "1|");
    let out = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["exec", "--", "sh", "-c", "echo \"$CUPY_COMPILE_WITH_PTX|$CUPY_ACCELERATORS\""])
        .env("PTXSIM_LIBCUDA", libcuda())
        .env("CUPY_COMPILE_WITH_PTX", "0")
        .env("CUPY_ACCELERATORS", "cub")
        .output()
        .expect("run ptxsim exec");
    assert_eq!(text(&out.stdout).trim_end(), "0|cub");
}

#[test]
fn missing_library_is_exit_2_with_instructions() {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxsim"))
        .args(["exec", "--", "true"])
        .env("PTXSIM_LIBCUDA", "/nonexistent/libcuda.so")
        .output()
        .expect("run ptxsim exec");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("PTXSIM_LIBCUDA=/nonexistent/libcuda.so is not a file"), "{err}");
    assert!(err.contains("cargo build --release -p ptxsim-cuda"), "{err}");
}

#[test]
fn command_that_cannot_start_is_exit_2() {
    let out = exec(&["--", "/nonexistent/program"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot run `/nonexistent/program`"), "{}", text(&out.stderr));
    // No command at all: usage error.
    assert_eq!(exec(&[]).status.code(), Some(2));
}

/// Triton's ptxas: `TRITON_PTXAS_PATH` (and the Blackwell one) is a `ptxas`
/// in exec's directory whose `--version` has a `release N.M` line.
#[test]
fn triton_ptxas_path_answers_version() {
    let out = exec(&["--", "sh", "-c", "test \"$TRITON_PTXAS_PATH\" = \"$TRITON_PTXAS_BLACKWELL_PATH\" && test \"$(dirname \"$TRITON_PTXAS_PATH\")\" = \"$TRITON_LIBCUDA_PATH\" && \"$TRITON_PTXAS_PATH\" --version"]);
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}{}", text(&out.stderr));
    assert!(o.lines().any(|l| l.contains("Cuda compilation tools, release 12.8, V12.8.93")), "{o}");
}

/// The pass-through copies the .ptx to `-o`, NUL-terminated, ignoring
/// Triton's other flags (as Triton 3.3 calls it).
#[test]
fn triton_ptxas_copies_ptx_to_output() {
    let d = scratch("ptxas");
    let ptx = d.join("k.ptx");
    let text_in = ".version 8.0\n.target sm_80\n.address_size 64\n";
    std::fs::write(&ptx, text_in).expect("write ptx");
    let obj = d.join("k.ptx.o");
    let script = format!(
        "\"$TRITON_PTXAS_PATH\" -lineinfo -v --gpu-name=sm_80 {} -o {}",
        ptx.display(),
        obj.display()
    );
    let out = exec(&["--", "sh", "-c", &script]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = std::fs::read(&obj).expect("output written");
    assert_eq!(got, [text_in.as_bytes(), b"\0"].concat());
    // A missing input is an error.
    let out = exec(&["--", "sh", "-c", "\"$TRITON_PTXAS_PATH\" /nonexistent/x.ptx -o /dev/null"]);
    assert_eq!(out.status.code(), Some(1));
}
