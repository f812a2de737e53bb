//! The escape-time loop (Mandelbrot-style, f32, divergent) and an integer
//! loop, with the tier forced on and off: identical buffers and
//! statistics, and the loop body compiled.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, LaunchStats, Scheduling};
use ptxsim_jit::{attach, Mode};

pub const ESCAPE: &str = include_str!("data/escape.ptx");

fn run_escape(mode: Mode, sched: Scheduling, fuel: u64) -> (Result<LaunchStats, String>, Vec<u8>) {
    let n = 4096u32;
    let mut dev = Device::new();
    let mut m = dev.load(ESCAPE).unwrap();
    let t = attach(&mut m, mode);
    if let Some(t) = &t {
        for (name, r) in t.report() {
            if let Some(Ok(c)) = r {
                assert!(c.compiled > 0, "{name}: {c:?}");
            }
        }
    }
    let cx: Vec<u8> = (0..n).flat_map(|i| (-2.0f32 + (i % 64) as f32 * (2.6 / 64.0)).to_le_bytes()).collect();
    let cy: Vec<u8> = (0..n).flat_map(|i| (-1.2f32 + (i / 64) as f32 * (2.4 / 64.0)).to_le_bytes()).collect();
    let (a, b, o) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    dev.write(a, &cx).unwrap();
    dev.write(b, &cy).unwrap();
    let mut cfg = LaunchConfig::new(Dim3::new(n / 128 + 1, 1, 1), Dim3::new(128, 1, 1));
    cfg.scheduling = sched;
    cfg.fuel = fuel;
    cfg.threads = Some(1);
    let args = [KernelArg::U64(a), KernelArg::U64(b), KernelArg::U64(o), KernelArg::U32(n), KernelArg::U32(200)];
    let r = dev.launch(&m, "escape", &cfg, &args).map_err(|e| format!("{:?} {} line {:?} cta {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.cta, e.warp, e.lane));
    (r, dev.read(o, 4 * n as u64).unwrap())
}

fn key(s: &Result<LaunchStats, String>) -> Result<(u64, u64, u64), String> {
    s.as_ref().map(|s| (s.warp_instructions, s.thread_instructions, s.divergent_branches)).map_err(|e| e.clone())
}

#[test]
fn escape_loop_same_with_tier_on_and_off() {
    for sched in [Scheduling::Stack, Scheduling::Its] {
        let (a, ba) = run_escape(Mode::Off, sched, u64::MAX / 4);
        let (b, bb) = run_escape(Mode::On, sched, u64::MAX / 4);
        assert!(a.is_ok(), "{a:?}");
        assert_eq!(key(&a), key(&b), "{sched:?}");
        assert_eq!(ba, bb, "{sched:?}");
        // Fuel exhaustion at the same point, for several budgets.
        let total = a.as_ref().unwrap().warp_instructions;
        for fuel in [1, 7, 40, 41, total / 3 + 5, total - 1] {
            let (a, ba) = run_escape(Mode::Off, sched, fuel);
            let (b, bb) = run_escape(Mode::On, sched, fuel);
            assert_eq!(key(&a), key(&b), "{sched:?} fuel {fuel}");
            assert_eq!(ba, bb, "{sched:?} fuel {fuel}");
        }
    }
}
