//! Golden output of `ptxsim sass` (the printed machine form) for the seeds'
//! example kernels (`tests/corpus/seeds/`) and `examples/`, in
//! `tests/sass/golden/*.sass`. A change to lowering or printing shows up as a
//! diff in review; `BLESS=1 cargo test -p ptxsim-sass --test golden`
//! re-records the files. Each golden file must also read back (`parse`) to
//! the same text, and run: `tests/machine.rs` and the engine comparison
//! check what the code does.

use std::path::Path;

#[test]
fn sass_output_of_the_seed_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = root.join("tests/sass/golden");
    let mut inputs: Vec<_> = std::fs::read_dir(root.join("tests/corpus/seeds")).unwrap().flatten().map(|e| e.path()).collect();
    inputs.push(root.join("examples/control_flow.ptx"));
    inputs.retain(|p| p.extension().is_some_and(|x| x == "ptx"));
    inputs.sort();
    let bless = std::env::var_os("BLESS").is_some();
    let mut fails = Vec::new();
    for p in &inputs {
        let src = std::fs::read_to_string(p).unwrap();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let mut dev = ptxsim_exec::Device::new();
        let text = match ptxsim_sass::load_and_lower(&mut dev, &format!("{stem}.ptx"), &src) {
            Ok((_, l)) => ptxsim_sass::text::print(&l.prog),
            Err(e) => format!("// does not lower: {e}\n"),
        };
        let gold = out.join(format!("{stem}.sass"));
        if bless {
            std::fs::write(&gold, &text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&gold) {
            Ok(g) if g == text => {
                let mut dev = ptxsim_exec::Device::new();
                match ptxsim_sass::parse::parse(&mut dev, &stem, &g) {
                    Ok((_, p2)) if ptxsim_sass::text::print(&p2) == g => {}
                    Ok(_) => fails.push(format!("{stem}: the golden file does not read back to itself")),
                    Err(e) if g.starts_with("// does not lower") => drop(e),
                    Err(e) => fails.push(format!("{stem}: the golden file does not parse: {e}")),
                }
            }
            Ok(g) => {
                let d = g.lines().zip(text.lines()).enumerate().find(|(_, (a, b))| a != b);
                fails.push(format!("{stem}: output differs from {} (first at line {:?})", gold.display(), d.map(|(i, x)| (i + 1, x))));
            }
            Err(_) => fails.push(format!("{stem}: no golden file {} (run with BLESS=1)", gold.display())),
        }
    }
    assert!(inputs.len() >= 16);
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
