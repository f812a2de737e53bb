//! Compiles every function of a PTX file with the tier and prints what
//! compiled, what was handed to the interpreter (by name) and the compile
//! time: `cargo run -p ptxsim-jit --example jitstat -- FILE.ptx`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: jitstat FILE.ptx");
    let src = std::fs::read_to_string(&path).expect("readable file");
    let mut dev = ptxsim_exec::Device::new();
    let mut m = dev.load(&src).unwrap_or_else(|e| panic!("{e}"));
    let t = ptxsim_jit::attach(&mut m, ptxsim_jit::Mode::On).expect("a tier");
    for (name, r) in t.report() {
        match r {
            Some(Ok(c)) => {
                println!("{name}: {c:?}");
                for (pc, why) in &c.skipped {
                    println!("  pc {pc}: {why}");
                }
            }
            Some(Err(e)) => println!("{name}: {e}"),
            None => println!("{name}: not compiled"),
        }
    }
}
