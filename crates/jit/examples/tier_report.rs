//! Prints what the compiling tier compiles of each function of a PTX file,
//! and the operations it leaves to the interpreter with how often each
//! occurs: `cargo run --release -p ptxsim-jit --example tier_report -- FILE`.
#![allow(clippy::print_stdout)]

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: tier_report FILE.ptx");
        std::process::exit(2);
    };
    let src = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let mut dev = ptxsim_exec::Device::new();
    let mut m = match dev.load(&src) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let Some(t) = ptxsim_jit::attach(&mut m, ptxsim_jit::Mode::On) else { return };
    for (name, r) in t.report() {
        match r {
            Some(Ok(c)) => {
                let mut ops: std::collections::BTreeMap<&str, usize> = Default::default();
                for (_, w) in &c.skipped {
                    *ops.entry(w.as_str()).or_default() += 1;
                }
                println!("{name}: {} of {} instructions compiled, {} lane-by-lane loops, {:.2} ms", c.compiled, c.total, c.lane_loops, c.compile_time.as_secs_f64() * 1e3);
                for (op, k) in ops {
                    println!("    left to the interpreter: {op} x{k}");
                }
            }
            Some(Err(e)) => println!("{name}: not compiled: {e}"),
            None => println!("{name}: not compiled"),
        }
    }
}
