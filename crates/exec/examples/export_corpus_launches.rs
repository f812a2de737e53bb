//! Writes the corpus launches of `tests/all/support/corpus_specs.rs` (every
//! kernel of `tests/corpus/{nvcc,clang,llvmlite,seeds}` with the inputs the
//! engine's corpus tests use) as launch descriptions that a script can replay
//! on a real GPU: `scripts/gpu_record.py` runs them through the CUDA driver's
//! PTX JIT and writes what the GPU left in every buffer, which
//! `tests/all/gpu_recorded.rs` then compares with ptxsim's results.
//!
//! ```sh
//! cargo run --release -p ptxsim-exec --example export_corpus_launches -- DIR
//! ```
//!
//! `DIR/launches.txt` lists one launch a line:
//! `ID PTX KERNEL GX,GY,GZ BX,BY,BZ SHARED ARG...` with `PTX` relative to
//! `tests/corpus`, and each `ARG` either `buf:FILE#DIGEST` (a device buffer
//! filled with `DIR/FILE` before the launch; `DIGEST`: its FNV-1a, hex) or `vN:HEX` (an N-byte scalar, its
//! little-endian bytes in hex).

#[path = "../tests/all/support/corpus_specs.rs"]
mod corpus_specs;

use corpus_specs::*;
use ptxsim_exec::Device;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: export_corpus_launches DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir).expect("create the output directory");
    let specs = specs();
    let mut list = String::new();
    for f in corpus_files() {
        let src = std::fs::read_to_string(&f).expect("read a corpus file");
        let rel = format!(
            "{}/{}",
            f.parent().and_then(|p| p.file_name()).and_then(|s| s.to_str()).unwrap_or(""),
            f.file_name().and_then(|s| s.to_str()).unwrap_or("")
        );
        let m = Device::new().load(&src).unwrap_or_else(|e| panic!("{rel}: {e}"));
        for k in m.kernels() {
            let spec = specs.iter().find(|s| s.kernel == k).unwrap_or_else(|| panic!("{rel}: no spec for {k}"));
            for block in launch_blocks(spec) {
                let id = launch_id(&rel, k, block);
                let mut line = format!(
                    "{id} {rel} {k} {},{},{} {},{},{} {}",
                    spec.grid.x, spec.grid.y, spec.grid.z, block.x, block.y, block.z, spec.dynamic_shared
                );
                for (i, a) in spec.args.iter().enumerate() {
                    match a {
                        Arg::Buf(bytes) => {
                            let file = format!("{id}.in{i}.bin");
                            std::fs::write(dir.join(&file), bytes).expect("write an input buffer");
                            let _ = write!(line, " buf:{file}#{:016x}", digest(bytes));
                        }
                        Arg::Val(v) => {
                            let b = v.bytes();
                            let _ = write!(line, " v{}:", b.len());
                            for x in b {
                                let _ = write!(line, "{x:02x}");
                            }
                        }
                    }
                }
                list.push_str(&line);
                list.push('\n');
            }
        }
    }
    std::fs::write(dir.join("launches.txt"), list).expect("write launches.txt");
}
