//! Fuzz target: kernel launches from hostile input. The first 16 bytes are
//! the launch (grid, block and cluster shapes, fuel, worker threads,
//! scheduling mode, the memory cap, dynamic shared memory, null or valid
//! pointer arguments), the rest is PTX text. The module is loaded under the
//! memory cap and its first kernel launched, with a 2-second timeout.
//!
//! Nothing may panic; every run ends within its fuel or time (libFuzzer's
//! `-timeout` catches a hang, `-rss_limit_mb` unbounded memory); a launch
//! that succeeds executed no more than its fuel; an error is one of the
//! stable kinds, is located (source line inside the module, a CTA inside
//! the grid) when it comes from a warp, and renders.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Limits, Scheduling, TrapKind};
use std::time::Duration;

/// Bytes of the launch header before the PTX text.
const HEADER: usize = 16;

fuzz_target!(|data: &[u8]| {
    if data.len() < HEADER {
        return;
    }
    let (h, text) = data.split_at(HEADER);
    let Ok(src) = std::str::from_utf8(text) else { return };
    let u16at = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]) as u32;
    let grid = Dim3::new(u32::from_le_bytes([h[0], h[1], h[2], h[3]]), h[4] as u32, h[5] as u32);
    let block = Dim3::new(u16at(6), h[8] as u32, h[9] as u32);
    let cluster = (h[10] != 0).then(|| Dim3::new((h[10] & 7) as u32, ((h[10] >> 3) & 3) as u32, 1));
    let fuel = u16at(11) as u64 * 16;
    let threads = (h[13] % 9 != 0).then_some((h[13] % 9) as usize);
    let its = h[14] & 1 == 1;
    let max_memory = 1u64 << (16 + ((h[14] >> 1) & 15).min(14));
    let null_args = h[15] & 1 == 1;
    let dyn_shared = (h[15] >> 1) as u32 * 256;

    let mut dev = Device::with_limits(Limits { max_memory, ..Limits::default() });
    let module = match dev.load_named("fuzz.ptx", src) {
        Ok(m) => m,
        Err(e) => {
            assert!(matches!(e.kind, TrapKind::LoadError | TrapKind::OutOfMemory | TrapKind::Unsupported), "load: {e}");
            let _ = e.to_string();
            return;
        }
    };
    let kernels: Vec<String> = module.kernels().iter().map(|s| s.to_string()).collect();
    let Some(kernel) = kernels.first() else { return };
    let Some(params) = module.kernel_params(kernel) else { return };
    let mut args = Vec::new();
    for (i, size) in params.iter().enumerate() {
        if *size == 8 {
            let p = if null_args { 0 } else { dev.alloc(1024).unwrap_or(0) };
            args.push(KernelArg::Ptr(p));
        } else {
            args.push(KernelArg::Bytes(vec![i as u8; *size as usize]));
        }
    }
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.cluster = cluster;
    cfg.fuel = fuel;
    cfg.threads = threads;
    cfg.scheduling = if its { Scheduling::Its } else { Scheduling::Stack };
    cfg.dynamic_shared_bytes = dyn_shared;
    cfg.timeout = Some(Duration::from_secs(2));
    match dev.launch(&module, kernel, &cfg, &args) {
        Ok(stats) => assert!(stats.warp_instructions <= fuel, "ran {} warp instructions on a fuel of {fuel}", stats.warp_instructions),
        Err(e) => {
            let _ = e.to_string();
            if let Some(line) = e.line {
                assert!(line >= 1 && line as usize <= src.lines().count().max(1), "{e}: line {line} outside the module");
            }
            if let Some(c) = e.cta {
                assert!(c[0] < grid.x && c[1] < grid.y.max(1) && c[2] < grid.z.max(1), "{e}: CTA outside the grid");
            }
            if e.warp.is_some() {
                assert!(e.cta.is_some(), "{e}: a warp without its CTA");
            }
        }
    }
});
