//! The library as a C program sees it: a vector add written against the
//! driver API (tests/c/vector_add.c), compiled with the system `cc`, linked
//! against the built library and run with it found by its SONAME; and the
//! SONAME itself, read from the ELF dynamic section; a fork after `cuInit`
//! (tests/c/fork.c).

mod common;

use std::process::Command;

#[test]
fn c_vector_add_runs_through_libcuda_so_1() {
    let lib = common::private_copy("c-vector-add");
    let dir = lib.parent().unwrap().to_path_buf();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/vector_add.c");
    let exe = dir.join("vector_add");
    let out = Command::new("cc").arg("-std=c99").arg("-Wall").arg("-o").arg(&exe).arg(src).arg(&lib).output().expect("run cc (a C compiler is needed for this test)");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).env("LD_LIBRARY_PATH", &dir).env_remove("PTXSIM_LOG").output().expect("run vector_add");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "vector_add failed ({}):\nstdout: {stdout}\nstderr: {stderr}", run.status);
    // The driver version is 13.5 (cudart 13.5 refuses an older driver).
    assert!(stdout.starts_with("OK ptxsim cc=8.0 driver=13050 blocks=8"), "unexpected output: {stdout}");
    assert!(stderr.is_empty(), "the library printed to stderr without PTXSIM_LOG: {stderr}");
}

#[test]
fn c_program_logs_calls_with_ptxsim_log() {
    let lib = common::private_copy("c-log");
    let dir = lib.parent().unwrap().to_path_buf();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/vector_add.c");
    let exe = dir.join("vector_add");
    let out = Command::new("cc").arg("-std=c99").arg("-o").arg(&exe).arg(src).arg(&lib).output().expect("run cc");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).env("LD_LIBRARY_PATH", &dir).env("PTXSIM_LOG", "1").env("PTXSIM_CC", "7.5").output().expect("run vector_add");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "stderr: {stderr}");
    // PTXSIM_CC sets the capability (and the pre-Volta scheduling, which
    // gives the same sums).
    assert!(String::from_utf8_lossy(&run.stdout).starts_with("OK ptxsim cc=7.5"), "stdout: {}", String::from_utf8_lossy(&run.stdout));
    assert!(stderr.contains("cuLaunchKernel -> CUDA_SUCCESS"), "no call log: {stderr}");
    assert!(stderr.contains("cuInit -> CUDA_SUCCESS"), "no call log: {stderr}");
}

#[test]
fn c_kernel_printf_reaches_stdout_and_assert_is_sticky() {
    let lib = common::private_copy("c-printf-assert");
    let dir = lib.parent().unwrap().to_path_buf();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/printf_assert.c");
    let exe = dir.join("printf_assert");
    let out = Command::new("cc").arg("-std=c99").arg("-Wall").arg("-o").arg(&exe).arg(src).arg(&lib).output().expect("run cc");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).env("LD_LIBRARY_PATH", &dir).env_remove("PTXSIM_LOG").output().expect("run printf_assert");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    let want = "BAD 218\nbefore\nhello from 0\nhello from 1\nhello from 2\nhello from 3\nafter\n";
    assert!(stdout.starts_with(want), "kernel printf out of place:\n{stdout}");
    // CUDA's assertion message from the device, then both calls' codes.
    assert!(stdout.contains("t.cu:7: check: block: [0,0,0], thread: [0,0,0] Assertion `x > 0` failed."), "no device assert message:\n{stdout}");
    assert!(stdout.trim_end().ends_with("ASSERT 710 710"), "stdout:\n{stdout}");
    assert!(stderr.contains("kernel trap: trap: assertion"), "no located trap message on stderr: {stderr}");
    assert!(!stderr.contains("module load failed"), "logged without PTXSIM_LOG: {stderr}");
    // With the call log, the refused module's located diagnostic is logged.
    let run = Command::new(&exe).env("LD_LIBRARY_PATH", &dir).env("PTXSIM_LOG", "1").output().expect("run printf_assert");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "stderr: {stderr}");
    assert!(stderr.contains("module load failed: load_error: ") && stderr.contains("module.ptx"), "no located load error in the log: {stderr}");
    assert!(stderr.contains("cuModuleLoadData -> CUDA_ERROR_INVALID_PTX"), "{stderr}");
    assert!(stderr.contains("cuLaunchKernel -> CUDA_ERROR_ASSERT"), "{stderr}");
}

/// The DT_SONAME of a 64-bit little-endian ELF file.
fn soname(elf: &[u8]) -> Option<String> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(elf.get(o..o + 2)?.try_into().ok()?) as usize);
    let u32_at = |o: usize| Some(u32::from_le_bytes(elf.get(o..o + 4)?.try_into().ok()?) as usize);
    let u64_at = |o: usize| Some(u64::from_le_bytes(elf.get(o..o + 8)?.try_into().ok()?) as usize);
    if elf.get(0..4)? != b"\x7fELF" || elf[4] != 2 || elf[5] != 1 {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(0x28)?, u16_at(0x3a)?, u16_at(0x3c)?);
    let section = |i: usize| shoff + i * shentsize;
    for i in 0..shnum {
        let s = section(i);
        if u32_at(s + 4)? != 6 {
            continue; // not SHT_DYNAMIC
        }
        let (off, size, link) = (u64_at(s + 0x18)?, u64_at(s + 0x20)?, u32_at(s + 0x28)?);
        let strtab = u64_at(section(link) + 0x18)?;
        for e in (off..off + size).step_by(16) {
            if u64_at(e)? == 14 {
                let start = strtab + u64_at(e + 8)?;
                let end = start + elf[start..].iter().position(|&b| b == 0)?;
                return Some(String::from_utf8_lossy(&elf[start..end]).into_owned());
            }
        }
    }
    None
}

#[test]
fn soname_is_libcuda_so_1() {
    let bytes = std::fs::read(common::lib_path()).expect("read libcuda.so");
    assert_eq!(soname(&bytes).as_deref(), Some("libcuda.so.1"));
    // Cross-check with readelf where it is installed.
    if let Ok(out) = Command::new("readelf").arg("-d").arg(common::lib_path()).output() {
        if out.status.success() {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("Library soname: [libcuda.so.1]"), "readelf -d:\n{text}");
        }
    }
}

#[test]
fn a_child_forked_after_cuinit_gets_not_initialized() {
    let lib = common::private_copy("c-fork");
    let dir = lib.parent().unwrap().to_path_buf();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/fork.c");
    let exe = dir.join("fork");
    let out = Command::new("cc").arg("-std=c99").arg("-D_POSIX_C_SOURCE=200809L").arg("-Wall").arg("-o").arg(&exe).arg(src).arg(&lib).output().expect("run cc");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).env("LD_LIBRARY_PATH", &dir).env_remove("PTXSIM_LOG").output().expect("run fork");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert_eq!(stdout, "OK\n");
}
