//! `ptxsim sass` text reads back: for every corpus kernel, example and
//! conformance kernel the engine loads, print → parse → print is the identity
//! (the parse goes through the engine's own PTX front end for the data parts);
//! and random machine-only programs round-trip too (proptest).

use proptest::prelude::*;
use ptxsim_sass::isa::*;
use ptxsim_sass::{parse, text, CcTest};
use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() && !p.ends_with("src") {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

pub fn all_ptx() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut v = Vec::new();
    ptx_files(&root.join("tests/corpus"), &mut v);
    ptx_files(&root.join("tests/run"), &mut v);
    ptx_files(&root.join("examples"), &mut v);
    v.sort();
    v
}

#[test]
fn print_parse_print_is_the_identity_on_every_loadable_file() {
    let mut done = 0;
    let mut failures = Vec::new();
    for path in all_ptx() {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let mut dev = ptxsim_exec::Device::new();
        if dev.load_named(&name, &src).is_err() {
            continue; // not a module the engine runs
        }
        let mut dev = ptxsim_exec::Device::new();
        let (_, low) = match ptxsim_sass::load_and_lower(&mut dev, &name, &src) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: lowering failed: {e}"));
                continue;
            }
        };
        let t1 = text::print(&low.prog);
        let mut dev2 = ptxsim_exec::Device::new();
        match parse::parse(&mut dev2, &name, &t1) {
            Ok((_, p2)) => {
                let t2 = text::print(&p2);
                if t1 != t2 {
                    let d = t1.lines().zip(t2.lines()).find(|(a, b)| a != b);
                    failures.push(format!("{name}: text differs after a round trip: {d:?}"));
                }
                done += 1;
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(done >= 60, "only {done} files round-tripped");
}

fn arb_cc() -> impl Strategy<Value = CcTest> {
    (0u8..32).prop_map(|c| CcTest::from_code(c).unwrap())
}

fn arb_op(n: usize) -> impl Strategy<Value = MOp> {
    // Targets are instruction indices, turned into offsets below.
    let t = 0..n;
    prop_oneof![
        Just(MOp::Nop),
        t.clone().prop_map(|i| MOp::Ssy { off: i as i64 }),
        t.clone().prop_map(|i| MOp::Pbk { off: i as i64 }),
        t.clone().prop_map(|i| MOp::Pcnt { off: i as i64 }),
        t.clone().prop_map(|i| MOp::Pret { off: i as i64 }),
        t.clone().prop_map(|i| MOp::Pexit { off: i as i64 }),
        arb_cc().prop_map(|cc| MOp::Sync { cc }),
        arb_cc().prop_map(|cc| MOp::Brk { cc }),
        arb_cc().prop_map(|cc| MOp::Cont { cc }),
        arb_cc().prop_map(|cc| MOp::Ret { cc }),
        arb_cc().prop_map(|cc| MOp::Exit { cc }),
        (arb_cc(), any::<bool>(), any::<bool>(), t.clone()).prop_map(|(cc, u, lmt, i)| MOp::Bra { cc, u, lmt, dest: Dest::Imm(i as i64) }),
        (arb_cc(), any::<bool>(), any::<bool>(), 0u8..32, any::<u16>()).prop_map(|(cc, u, lmt, bank, o)| MOp::Jmp { cc, u, lmt, dest: Dest::Const { bank, offset: o & !3 } }),
        (arb_cc(), any::<bool>(), t.clone()).prop_map(|(cc, lmt, i)| MOp::Jmp { cc, u: false, lmt, dest: Dest::Imm(i as i64) }),
        (arb_cc(), any::<bool>(), any::<u8>(), -(1i64 << 23)..(1i64 << 23)).prop_map(|(cc, lmt, r, imm)| MOp::Brx { cc, lmt, ra: AnyReg::R(r), imm, call: None }),
        (arb_cc(), any::<bool>(), any::<u8>(), any::<i32>()).prop_map(|(cc, lmt, r, imm)| MOp::Jmx { cc, lmt, ra: AnyReg::R(r), imm: imm as i64 }),
        (any::<u8>(), any::<u32>()).prop_map(|(d, imm)| MOp::Mov32i { d, imm }),
        (any::<bool>(), any::<bool>(), any::<u8>(), any::<u8>(), any::<u32>()).prop_map(|(x, cc, d, a, b)| MOp::Iadd { x, cc, d, a, b: MSrc::Imm(b) }),
        (any::<bool>(), any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(cc, d, a, b)| MOp::Fadd { cc, d, a, b: MSrc::R(b) }),
        (0usize..6, any::<bool>(), any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(c, u, d, a, b)| MOp::Iset { cmp: ICmp::ALL[c], unsigned: u, cc: true, d, a, b: MSrc::R(b) }),
        (1u8..15, any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(t, d, a, b)| MOp::Fset { test: CcTest::from_code(t).unwrap(), cc: true, d, a, b: MSrc::R(b) }),
    ]
}

fn build(ops: Vec<(MOp, bool)>) -> MProgram {
    let mut p = MProgram::default();
    let n = ops.len();
    for (mut op, guarded) in ops {
        let i = p.code.len();
        let off = |t: i64| ptxsim_sass::layout::offset_to(i, ptxsim_sass::layout::addr_of(t as usize));
        match &mut op {
            MOp::Ssy { off: o } | MOp::Pbk { off: o } | MOp::Pcnt { off: o } | MOp::Pret { off: o } | MOp::Pexit { off: o } => *o = off(*o),
            MOp::Bra { dest: Dest::Imm(o), .. } => *o = off(*o),
            MOp::Jmp { dest: Dest::Imm(o), .. } => *o = ptxsim_sass::layout::addr_of(*o as usize) as i64,
            _ => {}
        }
        let guard = (guarded && op.predicable()).then(|| Guard { name: "PT".into(), slot: u32::MAX, neg: true });
        p.code.push(MInstr { guard, op, origin: Origin::None, line: 0 });
    }
    p.code.push(MInstr::new(MOp::Exit { cc: CcTest::T }));
    while p.code.len() % 3 != 0 {
        p.code.push(MInstr::new(MOp::Nop));
    }
    let _ = n;
    p.functions.push(MFunction { name: "k".into(), is_kernel: true, ptx: 0, start: 0, len: p.code.len(), ptx_header: vec![".visible .entry k()".into()], ptx_decls: vec![] });
    p.ptx_module = vec![".version 7.8".into(), ".target sm_50".into(), ".address_size 64".into()];
    p.control = vec![ptxsim_sass::lower::DEFAULT_CONTROL; p.code.len() / 3];
    ptxsim_sass::lower::name_labels(&mut p);
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]
    #[test]
    fn machine_programs_round_trip(ops in (1usize..20).prop_flat_map(|n| proptest::collection::vec((arb_op(n), any::<bool>()), n))) {
        let p = build(ops);
        let t1 = text::print(&p);
        let mut dev = ptxsim_exec::Device::new();
        let (_, p2) = parse::parse(&mut dev, "random.sass", &t1).map_err(|e| TestCaseError::fail(format!("{e}\n{t1}")))?;
        prop_assert_eq!(&p2.code.iter().map(|i| (&i.op, i.guard.as_ref().map(|g| g.neg))).collect::<Vec<_>>(), &p.code.iter().map(|i| (&i.op, i.guard.as_ref().map(|g| g.neg))).collect::<Vec<_>>());
        prop_assert_eq!(text::print(&p2), t1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]
    /// Random machine programs run to an end or a located error, never a
    /// panic or a hang (fuel bounds them).
    #[test]
    fn random_machine_programs_never_panic(ops in (1usize..20).prop_flat_map(|n| proptest::collection::vec((arb_op(n), any::<bool>()), n)), block in 1u32..70) {
        let p = build(ops);
        let t = text::print(&p);
        let mut dev = ptxsim_exec::Device::new();
        let (m, p2) = parse::parse(&mut dev, "random.sass", &t).map_err(TestCaseError::fail)?;
        let mut cfg = ptxsim_exec::LaunchConfig::new(2, block);
        cfg.fuel = 20_000;
        cfg.max_call_depth = 8;
        let mc = ptxsim_sass::engine::MachineConfig { crs_capacity: 64, api_call_limit: Some(3) };
        let _ = ptxsim_sass::engine::launch(&dev, &m, &p2, "k", &cfg, &[], &mc);
    }

    /// Mutated text (a line dropped, duplicated or cut) is parsed or refused
    /// with a message, never a panic.
    #[test]
    fn mutated_text_never_panics(ops in (1usize..12).prop_flat_map(|n| proptest::collection::vec((arb_op(n), any::<bool>()), n)), cut in any::<proptest::sample::Index>(), how in 0u8..3) {
        let t = text::print(&build(ops));
        let mut lines: Vec<String> = t.lines().map(String::from).collect();
        let i = cut.index(lines.len());
        match how {
            0 => { lines.remove(i); }
            1 => { let l = lines[i].clone(); lines.insert(i, l); }
            _ => { let l = &lines[i]; let c = l.char_indices().nth(l.chars().count() / 2).map(|x| x.0).unwrap_or(0); lines[i] = l[..c].to_string(); }
        }
        let mut dev = ptxsim_exec::Device::new();
        let _ = parse::parse(&mut dev, "mutated.sass", &lines.join("\n"));
    }
}
