//! Linking separately compiled modules (`Device::load_linked`) against what
//! nvlink 13.5 says about the same module sets (`tests/link/verdicts.tsv`,
//! recorded by `scripts/record_link_verdicts.sh`): a set nvlink links loads
//! and its kernel computes the values its sources say; a set nvlink rejects
//! is a `load_error` naming the symbol, the problem and the files.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/link")
}

/// `out = {g, f(41)}` of `main.ptx`'s kernel, from the sources of the
/// modules that define `g` and `f` (see each file's first line).
fn expected(modules: &[&str]) -> [u32; 2] {
    let g = if modules.contains(&"libok") || modules.contains(&"libg") {
        7
    } else if modules.contains(&"libgs32") {
        -3i32 as u32
    } else {
        panic!("no g in {modules:?}")
    };
    // A `.visible` f wins over the `.weak` one of libweak (41 + 100).
    let f = if modules.contains(&"libok") || modules.contains(&"libnog") {
        41 + 1
    } else if modules.contains(&"libgs32") {
        41
    } else if modules.contains(&"libweak") {
        41 + 100
    } else {
        panic!("no f in {modules:?}")
    };
    [g, f]
}

#[test]
fn link_verdicts_agree_with_nvlink() {
    let table = std::fs::read_to_string(dir().join("verdicts.tsv")).expect("verdicts.tsv");
    let mut rows = 0;
    for line in table.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let modules: Vec<&str> = cols[0].split(' ').collect();
        let rc: i32 = cols[1].parse().expect("rc");
        let msg = cols.get(2).copied().unwrap_or("");
        let texts: Vec<(String, String)> = modules
            .iter()
            .map(|m| (format!("{m}.ptx"), std::fs::read_to_string(dir().join(format!("{m}.ptx"))).expect("module")))
            .collect();
        let refs: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let mut dev = Device::new();
        let loaded = dev.load_linked(&refs);
        if rc == 0 {
            let m = loaded.unwrap_or_else(|e| panic!("{modules:?}: nvlink links these, ptxsim: {e}"));
            let out = dev.alloc(8).expect("alloc");
            dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("{modules:?}: {e}"));
            let b = dev.read(out, 8).expect("read");
            let got = [u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u32::from_le_bytes([b[4], b[5], b[6], b[7]])];
            assert_eq!(got, expected(&modules), "{modules:?}");
        } else {
            let e = match loaded {
                Ok(_) => panic!("{modules:?}: nvlink rejects these ({msg}), ptxsim links them"),
                Err(e) => e,
            };
            assert_eq!(e.kind, TrapKind::LoadError, "{modules:?}: {e}");
            // Each problem nvlink names, ptxsim names with its symbol and
            // the files and lines involved.
            for part in msg.split(" | ").filter(|p| p.starts_with("nvlink error")) {
                // The symbol: the first quoted name after " '" ("doesn't" has a quote too).
                let sym = part.split(" '").nth(1).and_then(|r| r.split('\'').next()).expect("a quoted symbol");
                let (what, files): (&str, &[&str]) = if part.contains("Undefined reference") {
                    ("no module given defines it", &["main.ptx:"])
                } else if part.contains("Multiple definition") {
                    ("is defined twice", &[])
                } else if part.contains("Prototype doesn't match") {
                    ("Prototype doesn't match", &["main.ptx:", ".ptx:"])
                } else if part.contains("Size doesn't match") {
                    ("Size doesn't match", &["main.ptx:"])
                } else if part.contains("not declared __global__") {
                    ("defines it as a kernel (`.entry`)", &["main.ptx:", ".ptx:"])
                } else {
                    panic!("unexpected nvlink message {part}")
                };
                let ours = e.message.lines().find(|l| l.contains(&format!("`{sym}`")) && l.contains(what));
                let Some(ours) = ours else { panic!("{modules:?}: nvlink says `{part}`; ptxsim: {}", e.message) };
                for f in files {
                    assert!(ours.contains(f), "{modules:?}: `{ours}` should name {f}");
                }
            }
        }
        rows += 1;
    }
    assert!(rows >= 14, "{rows} rows");
}

#[test]
fn duplicate_definitions_name_both_files_and_lines() {
    let ok = std::fs::read_to_string(dir().join("libok.ptx")).expect("libok");
    let main = std::fs::read_to_string(dir().join("main.ptx")).expect("main");
    let e = Device::new().load_linked(&[("main.ptx", &main), ("a.ptx", &ok), ("b.ptx", &ok)]).expect_err("duplicates");
    // libok.ptx: g on line 6, f on line 8.
    assert!(e.message.contains("`f` is defined twice: at a.ptx:8 and at b.ptx:8"), "{}", e.message);
    assert!(e.message.contains("`g` is defined twice: at a.ptx:6 and at b.ptx:6"), "{}", e.message);
}

#[test]
fn names_without_linkage_stay_in_their_module() {
    // Both modules have a private `.func h` and a private `.global c`; the
    // kernel's module calls its own h, and the library's visible f calls its.
    let lib = ".version 8.8\n.target sm_80\n.address_size 64\n.global .align 4 .u32 c = 1000;\n.func (.param .b32 r) h(.param .b32 a)\n{\n .reg .b32 %x;\n .reg .b32 %y;\n ld.param.b32 %x, [a];\n ld.global.u32 %y, [c];\n add.s32 %x, %x, %y;\n st.param.b32 [r], %x;\n ret;\n}\n.visible .func (.param .b32 r) f(.param .b32 a)\n{\n .reg .b32 %x;\n ld.param.b32 %x, [a];\n {\n .param .b32 pa;\n .param .b32 pr;\n st.param.b32 [pa], %x;\n call (pr), h, (pa);\n ld.param.b32 %x, [pr];\n }\n st.param.b32 [r], %x;\n ret;\n}\n";
    let main = ".version 8.8\n.target sm_80\n.address_size 64\n.extern .func (.param .b32 r) f(.param .b32 a);\n.global .align 4 .u32 c = 5;\n.func (.param .b32 r) h(.param .b32 a)\n{\n .reg .b32 %x;\n .reg .b32 %y;\n ld.param.b32 %x, [a];\n ld.global.u32 %y, [c];\n mul.lo.s32 %x, %x, %y;\n st.param.b32 [r], %x;\n ret;\n}\n.visible .entry k(.param .u64 out)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd1;\n ld.param.u64 %rd1, [out];\n {\n .param .b32 pa;\n .param .b32 pr;\n st.param.b32 [pa], 3;\n call (pr), h, (pa);\n ld.param.b32 %r1, [pr];\n }\n {\n .param .b32 pa;\n .param .b32 pr;\n st.param.b32 [pa], 3;\n call (pr), f, (pa);\n ld.param.b32 %r2, [pr];\n }\n st.global.u32 [%rd1], %r1;\n st.global.u32 [%rd1+4], %r2;\n ret;\n}\n";
    let mut dev = Device::new();
    let m = dev.load_linked(&[("main.ptx", main), ("lib.ptx", lib)]).expect("links");
    let out = dev.alloc(8).expect("alloc");
    dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out)]).expect("runs");
    let b = dev.read(out, 8).expect("read");
    // main's h: 3 * 5; lib's f -> lib's h: 3 + 1000.
    assert_eq!([u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u32::from_le_bytes([b[4], b[5], b[6], b[7]])], [15, 1003]);
}

/// Two modules that each define a module-local `.entry k` link (nvlink 13.5
/// accepts them), but the name does not say which to launch: the launch is
/// refused, naming both definitions, rather than taking the first.
#[test]
fn a_kernel_name_defined_locally_in_two_modules_is_ambiguous() {
    let k = |v: u32| format!(".version 8.8\n.target sm_80\n.address_size 64\n\n.entry k(.param .u64 out)\n{{\n  .reg .b64 %rd1;\n  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], {v};\n  ret;\n}}\n");
    let (a, b) = (k(1), k(2));
    let mut dev = Device::new();
    let m = dev.load_linked(&[("k1.ptx", &a), ("k2.ptx", &b)]).expect("nvlink links two module-local kernels of one name");
    let out = dev.alloc(4).expect("alloc");
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out)]).expect_err("ambiguous");
    assert_eq!(e.kind, TrapKind::InvalidLaunch, "{e}");
    assert!(e.message.contains("ambiguous") && e.message.contains("k1.ptx:5") && e.message.contains("k2.ptx:5"), "{e}");
}
