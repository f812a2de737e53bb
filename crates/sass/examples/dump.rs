fn main() {
    let path = std::env::args().nth(1).expect("file");
    let src = std::fs::read_to_string(&path).expect("read");
    let mut dev = ptxsim_exec::Device::new();
    match ptxsim_sass::load_and_lower(&mut dev, &path, &src) {
        Ok((_, l)) => {
            print!("{}", ptxsim_sass::text::print(&l.prog));
            for s in &l.sites { eprintln!("{s:?}"); }
            for f in &l.fallbacks { eprintln!("{f:?}"); }
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
