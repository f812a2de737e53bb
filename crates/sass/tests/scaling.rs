//! Lowering, printing, parsing back and running the machine form grow
//! linearly with the program (issue 21, item 9), checked without a clock: a
//! counting global allocator records, for each phase, the peak of live heap
//! bytes, the bytes allocated in all and the number of allocations, on the
//! three shapes of `support/shapes.rs` (sequential divergent `if`s, one
//! `brx.idx` table, many empty kernels) at `n` and `4n`.
//!
//! A linear phase grows about 4x from `n` to `4n` (up to 8x where a vector or
//! hash table doubles its capacity at an unlucky size); a quadratic one 16x.
//! The bound is 8x on every figure, and the peak while lowering the
//! 40,000 `if`s of the issue (10,000 in debug builds) must stay under a
//! fixed number of bytes per `if` (the old lowering kept one flag per block
//! per SSY site: 40,000 x 120,000 bytes). The launches check their outputs
//! against the values `support/shapes.rs` computes from the source.

#[path = "support/shapes.rs"]
mod shapes;

use ptxsim_exec::{Device, KernelArg, LaunchConfig};
use ptxsim_sass::engine::MachineConfig;

#[global_allocator]
static GLOBAL: ptxsim_testkit::Counting = ptxsim_testkit::Counting;

/// What one phase cost: peak live bytes above the live bytes at its start,
/// bytes allocated, allocations.
#[derive(Clone, Copy, Debug)]
struct Cost {
    peak: usize,
    total: usize,
    allocs: usize,
}

fn measure<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let m = ptxsim_testkit::mark();
    let out = f();
    let cost = Cost { peak: m.peak(), total: m.total(), allocs: m.allocs() };
    (out, cost)
}

const PHASES: [&str; 4] = ["lower", "print", "parse", "run"];

/// Lowers, prints, parses back and launches one warp of `kernel`; checks the
/// stored words against `expect` (by lane) when there is an output.
fn phases(src: &str, kernel: &str, expect: Option<&dyn Fn(u32) -> u32>) -> [Cost; 4] {
    let mut dev = Device::new();
    let m = dev.load_named("gen.ptx", src).expect("the generated module loads");
    let parsed = ptxsim_syntax::parse(src);
    let (low, lower) = measure(|| ptxsim_sass::lower::lower(src, &parsed.module, &m.program).expect("lowers"));
    assert!(low.fallbacks.is_empty(), "{kernel}: every divergent branch gets its site");
    let (text, print) = measure(|| ptxsim_sass::text::print(&low.prog));
    let (back, parse) = measure(|| ptxsim_sass::parse::parse(&mut Device::new(), "gen.sass", &text).expect("the printed text parses"));
    assert_eq!(back.1.code.len(), low.prog.code.len(), "{kernel}: the text reads back to as many instructions");
    drop(back);
    drop(text);
    let mut args = Vec::new();
    let out = expect.map(|_| dev.alloc(32 * 4).expect("alloc"));
    args.extend(out.map(KernelArg::Ptr));
    let mut cfg = LaunchConfig::new(1, 32);
    cfg.threads = Some(1);
    let (r, run) = measure(|| ptxsim_sass::engine::launch(&dev, &m, &low.prog, kernel, &cfg, &args, &MachineConfig::default()).map(|_| ()));
    r.unwrap_or_else(|e| panic!("{kernel}: {e}"));
    if let (Some(expect), Some(out)) = (expect, out) {
        let b = dev.read(out, 32 * 4).expect("read");
        for (t, w) in b.chunks(4).enumerate() {
            let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            assert_eq!(got, expect(t as u32), "{kernel}: lane {t}");
        }
    }
    [lower, print, parse, run]
}

/// Sizes: the 40,000 `if`s in release builds; a quarter in debug builds.
const SCALE: usize = if cfg!(debug_assertions) { 4 } else { 1 };

/// Peak heap while lowering, per `if`, at most (measured 2.8 KB at 40,000:
/// the analyses, the machine instructions and their PTX text; the old
/// lowering needed 3 bytes per block, 120 KB per `if`, at that size).
const MAX_PEAK_PER_IF: usize = 8192;

#[test]
fn lowering_printing_parsing_and_running_grow_linearly() {
    let n_ifs = 10_000 / SCALE;
    let n_cases = 25_000 / SCALE;
    let n_kernels = 12_500 / SCALE;
    let mut report = String::new();
    let mut failures = Vec::new();
    /// Kernel, `n`, the generator, and the output of lane `t` at size `n`.
    type Shape = (&'static str, usize, fn(usize) -> String, Option<fn(usize, u32) -> u32>);
    let shapes: [Shape; 3] = [
        ("ifs", n_ifs, shapes::ifs, Some(shapes::ifs_expected)),
        ("switch", n_cases, shapes::switch, Some(shapes::switch_expected)),
        ("k0", n_kernels, shapes::kernels, None),
    ];
    for (kernel, n, gen, expect) in &shapes {
        let mut costs = Vec::new();
        for size in [*n, 4 * n] {
            let f = expect.map(|e| move |t: u32| e(size, t));
            let c = phases(&gen(size), kernel, f.as_ref().map(|f| f as &dyn Fn(u32) -> u32));
            costs.push(c);
        }
        for (p, name) in PHASES.iter().enumerate() {
            let (a, b) = (costs[0][p], costs[1][p]);
            report.push_str(&format!("{kernel:>6} {name:<5} n={n:<6} peak {:>11} -> {:>11}  allocated {:>11} -> {:>11}  allocations {:>8} -> {:>8}\n", a.peak, b.peak, a.total, b.total, a.allocs, b.allocs));
            for (what, x, y) in [("peak", a.peak, b.peak), ("allocated", a.total, b.total), ("allocations", a.allocs, b.allocs)] {
                // Small figures (a launch's setup) are all constant overhead.
                if y > 8 * x.max(4096) {
                    failures.push(format!("{kernel} {name}: {what} grew {x} -> {y} from n = {n} to {}", 4 * n));
                }
            }
        }
        if *kernel == "ifs" {
            let peak = costs[1][0].peak;
            let bound = MAX_PEAK_PER_IF * 4 * n;
            if peak > bound {
                failures.push(format!("lowering {} divergent ifs peaked at {peak} bytes (bound {bound})", 4 * n));
            }
        }
    }
    println!("{report}");
    assert!(failures.is_empty(), "super-linear growth:\n{}\n{report}", failures.join("\n"));
}
