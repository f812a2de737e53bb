//! Hand-written machine programs for what lowering never emits: every CC
//! test on flags from integer and float results (NaN included), `.U`,
//! `.LMT` with PRET past the ApiCallLimit, JMP/JMX in and out of range, a
//! target on a control word, BRK/CONT out of nested divergence, RET on an
//! empty stack, each hardware error, and PTX control flow written on a data
//! line (a parse error at its line and address). (`machine_files.rs` runs the same
//! kind of programs from text files in `tests/sass/machine/`.) Expected values come from the seed
//! and the fact sheet (`sass-sm50-control-flow.md`), derived by hand in each
//! test, never from a run of the engine.

use ptxsim_exec::{Device, LaunchConfig};
use ptxsim_sass::engine::{launch, MachineConfig, SassError, WarpEnd};
use ptxsim_sass::{parse, CcTest, HwError};

const HEAD: &str = ".ptx .version 7.8\n.ptx .target sm_50\n.ptx .address_size 64\n.function k kernel\n.ptx .visible .entry k()\n.decl .reg .pred %p<4>;\n.decl .reg .b32 %r<8>;\n";

fn run_with(body: &str, mc: &MachineConfig, depth: u32) -> Result<Vec<WarpEnd>, SassError> {
    let text = format!("{HEAD}{body}");
    let mut dev = Device::new();
    let (module, mp) = parse::parse(&mut dev, "test.sass", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut cfg = LaunchConfig::new(1, 32);
    cfg.max_call_depth = depth;
    cfg.fuel = 100_000;
    launch(&dev, &module, &mp, "k", &cfg, &[], mc).map(|(_, w)| w)
}

fn run(body: &str) -> Result<Vec<WarpEnd>, SassError> {
    run_with(body, &MachineConfig::default(), 64)
}

fn hw_error(r: Result<Vec<WarpEnd>, SassError>) -> (HwError, u64) {
    match r {
        Err(SassError::Hardware { error, pc, .. }) => (error, pc),
        other => panic!("expected a hardware error, got {other:?}"),
    }
}

/// R5 of lane 0 after running `body`.
fn r5(body: &str) -> u32 {
    run(body).expect("runs")[0].scratch[5][0]
}

/// The fact sheet's formula column for codes 0-23, and the documented choice
/// for 24-31, written over (z, s, c, o).
fn formula(t: u8, z: bool, s: bool, c: bool, o: bool) -> bool {
    match t {
        0 => false,
        1 => (s && !z) != o,
        2 => z && !s,
        3 => s != (z || o),
        4 => !z && (s == o),
        5 => !z,
        6 => s == o,
        7 => !z || !s,
        8 => z && s,
        9 => s != o,
        10 => z,
        11 => z || (s != o),
        12 => (!s) != (z || o),
        13 => !z || s,
        14 => (!s || z) != o,
        15 => true,
        16 => !o,
        17 => !c,
        18 => !s,
        19 => z || !c,
        20 => c && !z,
        21 => s,
        22 => c,
        23 => o,
        24 | 27 => true,
        25 | 26 | 28 | 29 => false,
        30 => s || z,
        _ => !s && !z,
    }
}

fn branch_on(setup: &str, t: CcTest) -> String {
    let cc = if t == CcTest::T { String::new() } else { format!("CC.{}, ", t.name()) };
    format!("{setup}\nMOV32I R5, 0x0 ;\nBRA {cc}`(.L_t) ;\nEXIT ;\n.L_t:\nMOV32I R5, 0x1 ;\nEXIT ;\n")
}

#[test]
fn every_cc_test_on_integer_results() {
    // (a, b, flags of a + b worked out by hand: Z S C O)
    let cases: &[(u32, u32, [bool; 4])] = &[
        (1, 2, [false, false, false, false]),                 // 3
        (0, 0, [true, false, false, false]),                  // 0
        (0xffff_ffff, 1, [true, false, true, false]),         // -1 + 1 = 0, carry out
        (0x7fff_ffff, 1, [false, true, false, true]),         // signed overflow into the sign
        (0x8000_0000, 0x8000_0000, [true, false, true, true]), // both
        (0xffff_fffe, 0, [false, true, false, false]),        // -2
        (0xffff_ffff, 0xffff_ffff, [false, true, true, false]), // -1 + -1 = -2, carry
    ];
    for &(a, b, [z, s, c, o]) in cases {
        for t in CcTest::ALL {
            let prog = branch_on(&format!("MOV32I R1, 0x{a:x} ;\nMOV32I R2, 0x{b:x} ;\nIADD R0.CC, R1, R2 ;"), t);
            let want = formula(t.code(), z, s, c, o) as u32;
            assert_eq!(r5(&prog), want, "CC.{} after {a:#x} + {b:#x}", t.name());
        }
    }
}

#[test]
fn every_cc_test_on_float_results_with_nan() {
    // Float results: Z = zero or NaN, S = negative or NaN; C = O = 0 (documented choice).
    let cases: &[(f32, f32, [bool; 2])] = &[
        (2.0, 3.0, [false, false]),
        (-2.0, 0.5, [false, true]),
        (1.5, -1.5, [true, false]),
        (f32::NAN, 1.0, [true, true]),
        (f32::INFINITY, f32::NEG_INFINITY, [true, true]), // inf - inf = NaN
    ];
    for &(a, b, [z, s]) in cases {
        for t in CcTest::ALL {
            let prog = branch_on(&format!("MOV32I R1, 0x{:x} ;\nMOV32I R2, 0x{:x} ;\nFADD R0.CC, R1, R2 ;", a.to_bits(), b.to_bits()), t);
            let want = formula(t.code(), z, s, false, false) as u32;
            assert_eq!(r5(&prog), want, "CC.{} after {a} + {b}", t.name());
        }
    }
    // After NaN, every ordered test fails and every unordered test passes.
    let nan = format!("MOV32I R1, 0x{:x} ;\nMOV32I R2, 0x0 ;\nFADD R0.CC, R1, R2 ;", f32::NAN.to_bits());
    for code in 1..=7 {
        assert_eq!(r5(&branch_on(&nan, CcTest::from_code(code).unwrap())), 0);
    }
    for code in 8..=14 {
        assert_eq!(r5(&branch_on(&nan, CcTest::from_code(code).unwrap())), 1);
    }
}

#[test]
fn boolean_mask_sets_write_s_and_not_z() {
    // ISET/FSET .BM .CC: S = result, Z = !result, so SFT follows the result and EQU its negation.
    let set = |op: &str| format!("MOV32I R1, 0x3 ;\nMOV32I R2, 0x5 ;\n{op} ;");
    assert_eq!(r5(&branch_on(&set("ISET.LT.BM R0.CC, R1, R2"), CcTest::Sft)), 1);
    assert_eq!(r5(&branch_on(&set("ISET.GT.BM R0.CC, R1, R2"), CcTest::Sft)), 0);
    assert_eq!(r5(&branch_on(&set("ISET.GT.BM R0.CC, R1, R2"), CcTest::Equ)), 1);
    // 0xffffffff < 5 signed, not unsigned.
    let neg = "MOV32I R1, 0xffffffff ;\nMOV32I R2, 0x5 ;\n";
    assert_eq!(r5(&branch_on(&format!("{neg}ISET.LT.BM R0.CC, R1, R2 ;"), CcTest::Sft)), 1);
    assert_eq!(r5(&branch_on(&format!("{neg}ISET.LT.U32.BM R0.CC, R1, R2 ;"), CcTest::Sft)), 0);
    // FSET with NaN: ordered LT false, unordered LTU true.
    let fnan = format!("MOV32I R1, 0x{:x} ;\nMOV32I R2, 0x3f800000 ;\n", f32::NAN.to_bits());
    assert_eq!(r5(&branch_on(&format!("{fnan}FSET.LT.BM R0.CC, R1, R2 ;"), CcTest::Sft)), 0);
    assert_eq!(r5(&branch_on(&format!("{fnan}FSET.LTU.BM R0.CC, R1, R2 ;"), CcTest::Sft)), 1);
}

#[test]
fn iadd_x_carries_and_accumulates_z() {
    // 64-bit 0x00000001_ffffffff + 1 = 0x00000002_00000000: low word 0 with carry,
    // high word 1 + 0 + carry = 2; Z = Z_low & (high == 0) = false.
    let p = "MOV32I R1, 0xffffffff ;\nMOV32I R2, 0x1 ;\nIADD R3.CC, R1, R2 ;\nMOV32I R1, 0x1 ;\nMOV32I R2, 0x0 ;\nIADD.X R4.CC, R1, R2 ;\nEXIT ;\n";
    let w = &run(p).unwrap()[0];
    assert_eq!((w.scratch[3][0], w.scratch[4][0]), (0, 2));
    assert_eq!(w.cc.lane(0).z, false);
    // 0xffffffff_ffffffff + 1 = 0: Z stays set across both words.
    let p = "MOV32I R1, 0xffffffff ;\nMOV32I R2, 0x1 ;\nIADD R3.CC, R1, R2 ;\nMOV32I R2, 0x0 ;\nIADD.X R4.CC, R1, R2 ;\nEXIT ;\n";
    let w = &run(p).unwrap()[0];
    assert_eq!((w.scratch[3][0], w.scratch[4][0]), (0, 0));
    assert!(w.cc.lane(0).z && w.cc.lane(0).c);
}

const LANE_SPLIT: &str = "mov.u32 %r1, %laneid ;\nsetp.lt.u32 %p1, %r1, 16 ;\n";

#[test]
fn unanimous_branches() {
    // .U: taken only if every active thread agrees; otherwise by none.
    let p = format!("{LANE_SPLIT}MOV32I R5, 0x0 ;\n@%p1 BRA.U `(.L_t) ;\nEXIT ;\n.L_t:\nMOV32I R5, 0x1 ;\nEXIT ;\n");
    let w = &run(&p).unwrap()[0];
    assert!(w.scratch[5].iter().all(|&v| v == 0), "disagreeing threads: nobody branches");
    let p = format!("{LANE_SPLIT}setp.lt.u32 %p2, %r1, 32 ;\nMOV32I R5, 0x0 ;\n@%p2 BRA.U `(.L_t) ;\nEXIT ;\n.L_t:\nMOV32I R5, 0x1 ;\nEXIT ;\n");
    let w = &run(&p).unwrap()[0];
    assert!(w.scratch[5].iter().all(|&v| v == 1), "agreeing threads branch together");
    // Without .U the same branch diverges: lanes 0..15 take it.
    let p = format!("{LANE_SPLIT}MOV32I R5, 0x0 ;\n@%p1 BRA `(.L_t) ;\nEXIT ;\n.L_t:\nMOV32I R5, 0x1 ;\nEXIT ;\n");
    let w = &run(&p).unwrap()[0];
    assert!((0..32).all(|l| w.scratch[5][l] == (l < 16) as u32));
}

#[test]
fn lmt_after_pret_past_the_api_call_limit() {
    // ApiCallLimit 1: the first PRET pushes a token, the second would pass the
    // limit, so it sets the LMT bit and pushes nothing; BRA.LMT is then a NOP
    // (the bit stays set) while a plain BRA still branches.
    let p = "MOV32I R5, 0x0 ;\nPRET `(.L_r) ;\nPRET `(.L_r) ;\nBRA.LMT `(.L_t) ;\nMOV32I R5, 0x7 ;\nBRA `(.L_t) ;\n.L_r:\nEXIT ;\n.L_t:\nEXIT ;\n";
    let mc = MachineConfig { api_call_limit: Some(1), ..Default::default() };
    let w = &run_with(p, &mc, 64).unwrap()[0];
    assert!(w.lmt);
    assert_eq!(w.scratch[5][0], 7, "BRA.LMT fell through");
    // Under the limit the same BRA.LMT branches.
    let mc = MachineConfig { api_call_limit: Some(4), ..Default::default() };
    let w = &run_with(p, &mc, 64).unwrap()[0];
    assert!(!w.lmt);
    assert_eq!(w.scratch[5][0], 0);
}

#[test]
fn jmp_and_jmx_in_and_out_of_range() {
    // JMP to an absolute address in range: 0x28 is instruction 3.
    let p = "MOV32I R5, 0x0 ;\nJMP 0x28 ;\nEXIT ;\nMOV32I R5, 0x9 ;\nEXIT ;\n";
    assert_eq!(r5(p), 9);
    // Past the end of the code.
    let (e, pc) = hw_error(run("JMP 0x10000 ;\nEXIT ;\n"));
    assert_eq!((e, pc), (HwError::PcOverflow, 0x08));
    // JMX: Ra unsigned + S32: 0xfffffffc + 0x8 = 4 GiB + 4, outside 0..4 GiB.
    let (e, _) = hw_error(run("MOV32I R0, 0xfffffffc ;\nJMX R0 +0x8 ;\nEXIT ;\n"));
    assert_eq!(e, HwError::PcWrap);
    // JMX in range: 0x20 - 0x8 + 0x10 = 0x28.
    assert_eq!(r5("MOV32I R5, 0x0 ;\nMOV32I R0, 0x20 ;\nJMX R0 +0x8 ;\nMOV32I R5, 0x4 ;\nEXIT ;\n"), 4);
    // A register target whose low bits are set.
    let (e, _) = hw_error(run("MOV32I R0, 0x2c ;\nJMX R0 +0x0 ;\nEXIT ;\n"));
    assert_eq!(e, HwError::MisalignedPc);
    // BRX: relative, Ra signed: from 0x10, 0x10 + 8 + (-0x20) < 0.
    let (e, _) = hw_error(run("MOV32I R0, 0xffffffe0 ;\nBRX R0 +0x0 ;\nEXIT ;\n"));
    assert_eq!(e, HwError::PcWrap);
}

#[test]
fn brk_and_cont_out_of_nested_divergence() {
    // PBK, then lanes 0..15 and 16..31 diverge under an SSY; lanes < 8 BRK from
    // inside the SSY region. Everybody meets at the PBK target with the full mask.
    let p = format!(
        "{LANE_SPLIT}setp.lt.u32 %p2, %r1, 8 ;\nPBK `(.L_out) ;\nSSY `(.L_join) ;\n@!%p1 BRA `(.L_else) ;\n@%p2 BRK ;\nMOV32I R6, 0x1 ;\nSYNC ;\n.L_else:\nMOV32I R6, 0x2 ;\nSYNC ;\n.L_join:\nMOV32I R7, 0x3 ;\nBRK ;\n.L_out:\nMOV32I R5, 0x5 ;\nEXIT ;\n"
    );
    let w = &run(&p).unwrap()[0];
    for l in 0..32 {
        assert_eq!(w.scratch[5][l], 5, "lane {l} reached the PBK target");
        let r6 = if l < 8 { 0 } else if l < 16 { 1 } else { 2 };
        assert_eq!(w.scratch[6][l], r6, "lane {l}");
        assert_eq!(w.scratch[7][l], (l >= 8) as u32 * 3, "lane {l}: broken lanes skip the join");
    }
    // CONT: lanes < 16 skip the rest of the body, all meet at the PCNT target.
    let p = format!("{LANE_SPLIT}PCNT `(.L_next) ;\n@%p1 CONT ;\nMOV32I R6, 0x1 ;\nCONT ;\n.L_next:\nMOV32I R5, 0x5 ;\nEXIT ;\n");
    let w = &run(&p).unwrap()[0];
    assert!((0..32).all(|l| w.scratch[5][l] == 5 && w.scratch[6][l] == (l >= 16) as u32));
}

#[test]
fn ret_on_an_empty_stack_exits_and_without_a_call_token_is_an_error() {
    // SPA: RET on an empty CRS stack acts as EXIT.
    let w = &run("RET ;\nMOV32I R5, 0x1 ;\nEXIT ;\n").unwrap()[0];
    assert_eq!(w.exited, u32::MAX);
    assert_eq!(w.scratch[5][0], 0);
    // A stack holding only an SSY token: RET_EMPTY_STACK_ERROR.
    let (e, pc) = hw_error(run("SSY `(.L_j) ;\nRET ;\n.L_j:\nEXIT ;\n"));
    assert_eq!((e, pc), (HwError::RetEmptyStackError, 0x10));
    // CAL/RET: returns to the instruction after the CAL.
    assert_eq!(r5("MOV32I R5, 0x0 ;\nCAL `(.L_f) ;\nEXIT ;\n.L_f:\nMOV32I R5, 0x8 ;\nRET ;\n"), 8);
}

#[test]
fn stack_errors() {
    // SYNC / BRK / CONT without their token.
    for op in ["SYNC", "BRK", "CONT"] {
        let (e, pc) = hw_error(run(&format!("{op} ;\nEXIT ;\n")));
        assert_eq!((e, pc), (HwError::StackError, 0x08), "{op}");
    }
    // An SSY pushed every iteration of an endless loop fills the stack.
    let mc = MachineConfig { crs_capacity: 16, ..Default::default() };
    let (e, _) = hw_error(run_with(".L_l:\nSSY `(.L_l) ;\nBRA `(.L_l) ;\n", &mc, 64));
    assert_eq!(e, HwError::StackError);
    // A SYNC does not match an SSY below a CAL token (the callee's stack part is its own).
    let (e, _) = hw_error(run("SSY `(.L_j) ;\nCAL `(.L_f) ;\n.L_j:\nEXIT ;\n.L_f:\nSYNC ;\n"));
    assert_eq!(e, HwError::StackError);
}

#[test]
fn api_stack_error_past_the_hardware_call_depth() {
    // Endless recursion with CAL, call depth limit 4.
    let (e, _) = hw_error(run_with(".L_f:\nCAL `(.L_f) ;\nEXIT ;\n", &MachineConfig::default(), 4));
    assert_eq!(e, HwError::ApiStackError);
    // With an ApiCallLimit below it, a CAL past the limit is a NOP instead.
    let mc = MachineConfig { api_call_limit: Some(2), ..Default::default() };
    let w = run_with("MOV32I R5, 0x0 ;\n.L_f:\nIADD R5, R5, 0x1 ;\nCAL `(.L_f) ;\nEXIT ;\n", &mc, 4).unwrap();
    // Three passes through the body: the entry, two calls; the third CAL is a NOP.
    assert_eq!(w[0].scratch[5][0], 3);
}

#[test]
fn ptx_control_flow_on_a_data_line_is_a_parse_error_at_its_line_and_address() {
    // HEAD with a declaration of `f` is lines 1-8; the body's first line is
    // line 9 and holds instruction 0 (at 0x08), so line 11 holds
    // instruction 2 at 32 * (2 / 3) + 8 * (2 % 3 + 1) = 0x18 (fact sheet §3).
    let head_lines = HEAD.lines().count();
    assert_eq!(head_lines, 7);
    let head = HEAD.replacen(".function", ".ptx .visible .func f();\n.function", 1);
    for (line, op) in [
        ("exit ;", "exit"),
        ("@%p1 exit ;", "exit"),
        ("ret ;", "ret"),
        ("@!%p1 bra .L_x ;", "bra"),
        ("bra.uni .L_x ;", "bra.uni"),
        ("brx.idx %r1, T ;", "brx.idx"),
        ("call f ;", "call"),
        ("/*0018*/ exit ;", "exit"),
    ] {
        let text = format!("{head}mov.u32 %r1, 1 ;\nmov.u32 %r2, 2 ;\n{line}\n.L_x:\nEXIT ;\n.function f func\n.ptx .visible .func f()\nRET ;\n");
        let e = match parse::parse(&mut Device::new(), "test.sass", &text) {
            Ok(_) => panic!("`{line}` on a data line parsed"),
            Err(e) => e,
        };
        assert!(e.starts_with("test.sass:line 11: "), "`{line}`: {e}");
        assert!(e.contains(&format!("`{op}` at 0x0018")), "`{line}`: {e}");
    }
    // The same text with machine instructions in their place parses.
    for line in ["EXIT ;", "RET ;", "@!%p1 BRA `(.L_x) ;", "CAL `(f) {call f} ;"] {
        let text = format!("{head}mov.u32 %r1, 1 ;\nmov.u32 %r2, 2 ;\n{line}\n.L_x:\nEXIT ;\n.function f func\n.ptx .visible .func f()\nRET ;\n");
        if let Err(e) = parse::parse(&mut Device::new(), "test.sass", &text) {
            panic!("`{line}`: {e}");
        }
    }
    // `trap` is a data instruction (the data path raises it), not control
    // flow; so is a call of `vprintf` (the data path prints).
    let text = format!("{HEAD}mov.u32 %r1, 1 ;\nmov.u32 %r2, 2 ;\n@%p1 trap ;\nEXIT ;\n");
    assert!(parse::parse(&mut Device::new(), "test.sass", &text).is_ok());
}
