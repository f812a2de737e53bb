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
