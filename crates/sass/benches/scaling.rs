//! How lowering to the machine form and running it scale (issue 21, item 9):
//! three generated shapes (`tests/support/shapes.rs`: sequential divergent
//! `if`s, one `brx.idx` table, many empty kernels), each at `n` and `4n`.
//! For each it prints the PTX engine's load and the `ptxsim cfg` analyses of
//! every function (the baselines, from the same run), then the machine
//! form's lowering, printing, parsing the printed text back, and a launch of
//! one warp on the CRS engine beside the same launch on the PTX engine, and
//! last the `4n / n` ratio of each column: about 4 is linear, 16 quadratic.
//!
//! `cargo bench -p ptxsim-sass --bench scaling`; `PTXSIM_SCALING_DIV=k`
//! divides every size by `k` (to measure a slow build in reasonable time);
//! `PTXSIM_SCALING_ONLY=ifs|switch|k0` runs one shape (for a profiler).

#[path = "../tests/support/shapes.rs"]
mod shapes;

use ptxsim_exec::{Device, KernelArg, LaunchConfig};
use ptxsim_sass::engine::MachineConfig;
use std::time::Instant;

/// Seconds of the fastest of up to three runs (one if the first is slow).
fn time<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let s = Instant::now();
    let mut out = f();
    let mut best = s.elapsed().as_secs_f64();
    if best < 0.5 {
        for _ in 0..2 {
            let s = Instant::now();
            out = f();
            best = best.min(s.elapsed().as_secs_f64());
        }
    }
    (best, out)
}

const COLS: [&str; 7] = ["ptx load", "cfg", "lower", "print", "parse", "sass run", "ptx run"];

fn measure(src: &str, kernel: &str, with_out: bool) -> [f64; 7] {
    let (t_load, m) = time(|| Device::new().load_named("gen.ptx", src).expect("generated module loads"));
    let (t_cfg, _) = time(|| {
        let parsed = ptxsim_syntax::parse(src);
        ptxsim_analysis::report::analyse_module(&parsed.module).len()
    });
    let parsed = ptxsim_syntax::parse(src);
    let (t_lower, low) = time(|| ptxsim_sass::lower::lower(src, &parsed.module, &m.program).expect("generated module lowers"));
    let (t_print, text) = time(|| ptxsim_sass::text::print(&low.prog));
    let (t_parse, _) = time(|| ptxsim_sass::parse::parse(&mut Device::new(), "gen.sass", &text).expect("printed text parses"));
    let mut dev = Device::new();
    let m = dev.load_named("gen.ptx", src).expect("loads");
    let mut args = Vec::new();
    if with_out {
        args.push(KernelArg::Ptr(dev.alloc(32 * 4).expect("alloc")));
    }
    let mut cfg = LaunchConfig::new(1, 32);
    cfg.threads = Some(1);
    let (t_sass, r) = time(|| ptxsim_sass::engine::launch(&dev, &m, &low.prog, kernel, &cfg, &args, &MachineConfig::default()).map(|_| ()));
    if let Err(e) = r {
        println!("  sass run failed: {e}");
    }
    let (t_ptx, r) = time(|| dev.launch(&m, kernel, &cfg, &args).map(|_| ()));
    if let Err(e) = r {
        println!("  ptx run failed: {e}");
    }
    [t_load, t_cfg, t_lower, t_print, t_parse, t_sass, t_ptx]
}

fn main() {
    let div: usize = std::env::var("PTXSIM_SCALING_DIV").ok().and_then(|v| v.parse().ok()).filter(|&d| d > 0).unwrap_or(1);
    type Gen = fn(usize) -> String;
    let shapes: [(&str, Gen, &str, bool, usize); 3] = [
        ("divergent ifs", shapes::ifs, "ifs", true, 10_000),
        ("brx.idx cases", shapes::switch, "switch", true, 25_000),
        ("empty kernels", shapes::kernels, "k0", false, 12_500),
    ];
    print!("{:<15} {:>8}", "shape", "n");
    for c in COLS {
        print!(" {c:>10}");
    }
    println!("   (milliseconds)");
    let only = std::env::var("PTXSIM_SCALING_ONLY").ok();
    for (name, gen, kernel, with_out, n) in shapes {
        if only.as_deref().is_some_and(|o| o != kernel) {
            continue;
        }
        let n = (n / div).max(1);
        let mut rows = Vec::new();
        for size in [n, 4 * n] {
            let src = gen(size);
            let r = measure(&src, kernel, with_out);
            print!("{name:<15} {size:>8}");
            for t in r {
                print!(" {:>10.1}", t * 1e3);
            }
            println!();
            rows.push(r);
        }
        print!("{:<15} {:>8}", "", "4n / n");
        for (a, b) in rows[0].iter().zip(&rows[1]) {
            print!(" {:>9.1}x", b / a.max(1e-9));
        }
        println!();
    }
}
