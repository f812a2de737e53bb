//! Launching a one-CTA test kernel `k(.param .u64 out, .param .u64 in)`
//! over 32-bit words: shared by the instruction tests that feed each
//! thread a row of input words and read a row of result words back.

#![allow(dead_code)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

/// Runs kernel `k` of `src` on one CTA of `threads` threads in `mode`,
/// with `in` holding `input` and `out` sized `out_words` words per thread;
/// returns `out` after the launch. Any failure panics with its message.
pub fn run_words(src: &str, threads: usize, input: &[u32], out_words: usize, mode: Scheduling) -> Vec<u32> {
    let mut dev = Device::new();
    let m = dev.load(src).expect("loads");
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let pin = dev.alloc(bytes.len().max(1) as u64).expect("alloc");
    dev.write(pin, &bytes).expect("write");
    let out_bytes = (threads * out_words * 4) as u64;
    let pout = dev.alloc(out_bytes).expect("alloc");
    let mut cfg = LaunchConfig::new(1u32, threads as u32);
    cfg.scheduling = mode;
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(pout), KernelArg::Ptr(pin)]).expect("runs");
    dev.read(pout, out_bytes).expect("read").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The text of a kernel `k(.param .u64 out, .param .u64 in)` for
/// [`run_words`]: thread t loads its row of `n_in` input words into
/// `%r1`..`%r{n_in}` and `%rd5` points at its row of `n_out` result words;
/// `body` follows (it may use `%r{n_in + 1}`..`%r14`), then `ret`.
pub fn words_kernel(version: &str, target: &str, n_in: usize, n_out: usize, body: &str) -> String {
    let loads: String = (0..n_in).map(|k| format!("    ld.global.u32 %r{}, [%rd4+{}];\n", k + 1, 4 * k)).collect();
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n    .reg .b32 %r<16>;\n    .reg .u64 %rd<6>;\n    ld.param.u64 %rd1, [out];\n    ld.param.u64 %rd2, [in];\n    cvta.to.global.u64 %rd1, %rd1;\n    cvta.to.global.u64 %rd2, %rd2;\n    mov.u32 %r15, %tid.x;\n    mul.wide.u32 %rd3, %r15, {};\n    add.u64 %rd4, %rd2, %rd3;\n{loads}    mul.wide.u32 %rd3, %r15, {};\n    add.u64 %rd5, %rd1, %rd3;\n{body}    ret;\n}}\n",
        4 * n_in,
        4 * n_out
    )
}
