//! Three semantics checked against the PTX ISA manual, with expected values
//! computed here independently of the engine:
//!
//! - warp collectives whose lanes pass different membermasks
//!   (`redux.sync`, `vote.sync`, `match.any.sync`, `elect.sync`): each
//!   thread's collective is over the threads that pass its membermask
//!   (`tests/isa/warp_groups.ptx`);
//! - `cvt.{rz,rm,rp}.{f16,bf16}.f32`: the nearest representable value in
//!   the direction asked, found here by searching all 65,536 encodings;
//! - `atom.add.noftz.{f16,f16x2,bf16x2}` and `red.add.noftz.f16x2`: each
//!   half added and rounded to nearest even, one lane after another
//!   (`tests/isa/half_round.ptx`).
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::path::PathBuf;

fn isa_text(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// Runs `kernel` of `tests/isa/<file>` on one CTA of `threads` threads
/// with the given u32 buffers (returned after the launch).
fn run(file: &str, kernel: &str, threads: u32, bufs: &[Vec<u32>], mode: Scheduling) -> Vec<Vec<u32>> {
    let mut dev = Device::new();
    let module = dev.load_named(file, &isa_text(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut args = Vec::new();
    for b in bufs {
        let p = dev.alloc((b.len() * 4) as u64).unwrap();
        dev.write(p, &b.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        args.push(KernelArg::Ptr(p));
    }
    let mut cfg = LaunchConfig::new(1u32, threads);
    cfg.scheduling = mode;
    dev.launch(&module, kernel, &cfg, &args).unwrap_or_else(|e| panic!("{file} {kernel}: {e}"));
    bufs.iter()
        .zip(&args)
        .map(|(b, a)| {
            let KernelArg::Ptr(p) = a else { unreachable!() };
            dev.read(*p, (b.len() * 4) as u64).unwrap().chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
        })
        .collect()
}

#[test]
fn collectives_with_one_membermask_per_half_warp() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = &run("warp_groups.ptx", "split_masks", 32, &[vec![0xdead_beef; 7 * 32]], mode)[0];
        for lane in 0..32u32 {
            let base = lane & 16;
            let mask = 0xffffu32 << base;
            let members = base..base + 16;
            let odd = members.clone().filter(|l| l % 2 == 1).fold(0u32, |m, l| m | 1 << l);
            let want = [
                members.clone().sum::<u32>(),
                odd,
                if lane % 2 == 1 { odd } else { mask & !odd },
                base,
                (lane == base) as u32,
                members.clone().all(|l| l < 20) as u32,
                base + 15,
            ];
            let names = ["redux.sync.add", "vote.sync.ballot", "match.any.sync", "elect.sync leader", "elect.sync predicate", "vote.sync.all", "redux.sync.max"];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(out[k * 32 + lane as usize], *w, "{} on lane {lane} ({mode:?})", names[k]);
            }
        }
    }
}

/// The value of a binary16 encoding.
fn f16_value(h: u16) -> f64 {
    let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn bf16_value(h: u16) -> f64 {
    f32::from_bits((h as u32) << 16) as f64
}

/// The encoding that `mode` (0 rz, 1 rm, 2 rp) gives for `x`, by search:
/// the greatest value not above `x` (rm), the least not below (rp), or the
/// one of those two nearer zero (rz); zero keeps the sign of `x`.
fn directed(x: f64, mode: u32, value: fn(u16) -> f64) -> u16 {
    let all = (0..=u16::MAX).filter(|&h| !value(h).is_nan());
    let below = all.clone().filter(|&h| value(h) <= x).max_by(|&a, &b| value(a).partial_cmp(&value(b)).unwrap()).unwrap();
    let above = all.filter(|&h| value(h) >= x).min_by(|&a, &b| value(a).partial_cmp(&value(b)).unwrap()).unwrap();
    let pick = match mode {
        0 => if x >= 0.0 { below } else { above },
        1 => below,
        _ => above,
    };
    // Of +0 and -0 (equal values), the one with the sign of x.
    if value(pick) == 0.0 {
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        return sign;
    }
    pick
}

#[test]
fn directed_conversions_into_f16_and_bf16() {
    let inputs: Vec<f32> = vec![
        1.0 / 3.0, -1.0 / 3.0, 65520.0, -65520.0, 65504.5, 1e-8, -1e-8, 3e-5, 2049.0, -2049.0, 1e30, -1e30, 3.0e38, 0.1, -0.1, 1.0, 7.0e-39,
        -7.0e-39, 123.456, 0.0, -0.0,
    ];
    let n = inputs.len();
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = &run("half_round.ptx", "half_round", n as u32, &[inputs.iter().map(|f| f.to_bits()).collect(), vec![0; 3 * n]], mode)[1];
        for (i, &x) in inputs.iter().enumerate() {
            for k in 0..3u32 {
                let w = out[3 * i + k as usize];
                let (h, b) = (w as u16, (w >> 16) as u16);
                let (wh, wb) = (directed(x as f64, k, f16_value), directed(x as f64, k, bf16_value));
                let r = ["rz", "rm", "rp"][k as usize];
                assert_eq!(h, wh, "cvt.{r}.f16.f32 of {x:e} ({mode:?}): got {h:#06x} ({}), want {wh:#06x} ({})", f16_value(h), f16_value(wh));
                assert_eq!(b, wb, "cvt.{r}.bf16.f32 of {x:e} ({mode:?}): got {b:#06x} ({}), want {wb:#06x} ({})", bf16_value(b), bf16_value(wb));
            }
        }
    }
}

#[test]
fn half_atomic_adds_round_each_sum() {
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = &run("half_round.ptx", "half_atoms", 32, &[vec![0, 0, 0x6800, 0]], mode)[0];
        // f16x2: 32 x 0.25 = 8 (0x4800), 32 x 1.0 = 32 (0x5000), exact.
        assert_eq!(out[0], 0x5000_4800, "atom.add.noftz.f16x2 ({mode:?})");
        // bf16x2: 32 x 1.0 = 32 (0x4200), 32 x -0.5 = -16 (0xc180).
        assert_eq!(out[1], 0xc180_4200, "atom.add.noftz.bf16x2 ({mode:?})");
        // f16 from 2048 (ulp 2): each + 3 lands on a tie and rounds to the
        // even encoding, + 4 per lane: 2048 + 128 = 2176 (0x6840).
        assert_eq!(f16_value(out[2] as u16), 2176.0, "atom.add.noftz.f16 ({mode:?})");
        assert_eq!(out[2] >> 16, 0, "atom.add.noftz.f16 leaves the upper half ({mode:?})");
        assert_eq!(out[3], 0x5000_4800, "red.add.noftz.f16x2 ({mode:?})");
    }
}
