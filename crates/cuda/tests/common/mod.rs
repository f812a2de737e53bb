//! Shared by the integration tests: where the built `libcuda.so` is, and a
//! private copy of it per test (a copy has its own inode, so the dynamic
//! loader maps it as a separate library with its own driver state).

#![allow(dead_code)]

use std::path::PathBuf;

/// The built library, found from the test binary's path
/// (`target/<profile>/deps/<test>`): `deps/libcuda.so` first, which cargo
/// rebuilds with the package's rlib before the tests run (the uplifted
/// `target/<profile>/libcuda.so` is refreshed only by `cargo build`).
pub fn lib_path() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let mut dir = exe.parent().map(|p| p.to_path_buf());
    while let Some(d) = dir {
        let p = d.join("libcuda.so");
        if p.exists() {
            return p;
        }
        dir = d.parent().map(|p| p.to_path_buf());
    }
    panic!(
        "libcuda.so not found above {} : build it with `cargo build --release -p ptxsim-cuda` (the test expects target/<profile>/libcuda.so)",
        exe.display()
    );
}

/// A fresh directory under the target's tmp dir for `name`, emptied first
/// (by unlinking, so a process still mapping an old copy keeps it), so
/// repeated runs do not pile up copies.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ptxsim-cuda-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

/// Copies the library into a fresh directory as `libcuda.so.1`; returns the copy's path.
pub fn private_copy(name: &str) -> PathBuf {
    let d = scratch(name);
    let p = d.join("libcuda.so.1");
    std::fs::copy(lib_path(), &p).expect("copy libcuda.so");
    p
}
