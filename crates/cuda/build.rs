//! Build script: gives the cdylib the SONAME `libcuda.so.1` on Linux, the
//! name every client (`dlopen("libcuda.so.1")`, `-l:libcuda.so.1`) asks for.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
