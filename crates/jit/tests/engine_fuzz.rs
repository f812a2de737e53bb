//! The engine tests' random structured kernels (`crates/exec/tests/all/
//! support/fuzz_gen.rs`: divergent if/else, bounded loops, `brx.idx`,
//! direct and indirect calls, early exits, barriers), each run with the
//! compiling tier forced on and off in both scheduling modes: the same
//! outputs, statistics (warp and thread instructions, divergent branches)
//! and errors, also with fuel budgets that run out part way, and with one
//! a third above what the launch needs (it completes, its turns' slices
//! ending at other points).

#[path = "../../exec/tests/all/support/fuzz_gen.rs"]
mod fuzz_gen;

use fuzz_gen::Gen;
use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};

fn run(src: &str, sched: Scheduling, mode: Mode, fuel: u64) -> Result<(Vec<u8>, (u64, u64, u64)), String> {
    let mut dev = Device::new();
    let mut m = dev.load(src).map_err(|e| e.to_string())?;
    attach(&mut m, mode);
    let p = dev.alloc(96 * 4).map_err(|e| e.to_string())?;
    let mut cfg = LaunchConfig::new(2, 48);
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    match dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(p)]) {
        Ok(s) => Ok((dev.read(p, 96 * 4).map_err(|e| e.to_string())?, (s.warp_instructions, s.thread_instructions, s.divergent_branches))),
        Err(e) => Err(format!("{:?} {} line {:?} cta {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.cta, e.warp, e.lane)),
    }
}

#[test]
fn random_structured_kernels_same_with_tier_on_and_off() {
    // PTXSIM_FUZZ_CASES=N SEED runs more (a longer search).
    let more = std::env::var("PTXSIM_FUZZ_CASES").ok();
    let mut it = more.as_deref().unwrap_or("").split_whitespace().map(|x| x.parse::<u64>().ok());
    let cases = it.next().flatten().unwrap_or(200);
    let mut g = Gen(it.next().flatten().unwrap_or(0x2545_f491_4f6c_dd1d));
    let (mut ran, mut cut) = (0, 0);
    for case in 0..cases {
        let src = g.program();
        for sched in [Scheduling::Stack, Scheduling::Its] {
            let off = run(&src, sched, Mode::Off, 5_000_000);
            let on = run(&src, sched, Mode::On, 5_000_000);
            assert_eq!(off, on, "case {case} {sched:?}:\n{src}");
            if let Ok((_, (w, ..))) = off {
                ran += 1;
                for fuel in [w / 3, w / 2 + 1, w - 1, w + w / 3 + 1] {
                    if fuel == 0 {
                        continue;
                    }
                    let a = run(&src, sched, Mode::Off, fuel);
                    let b = run(&src, sched, Mode::On, fuel);
                    assert_eq!(a, b, "case {case} {sched:?} fuel {fuel}:\n{src}");
                    cut += 1;
                }
            }
        }
    }
    assert!(ran > cases * 3 / 2 && cut > cases * 3, "only {ran} runs, {cut} with less fuel");
}
