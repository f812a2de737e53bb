//! The CC test formulas and the layout rules, against the fact sheet
//! (`sass-sm50-control-flow.md` §1 and §3) and the seed. Every expected value
//! is written out from those documents, flag combination by flag combination.

use ptxsim_sass::cc::{bm_flags, float_flags, iadd_flags};
use ptxsim_sass::layout::*;
use ptxsim_sass::{CcTest, Flags};

fn f(z: bool, s: bool, c: bool, o: bool) -> Flags {
    Flags { z, s, c, o }
}

/// The 16 flag combinations, in the order Z S C O (bit 3..0).
fn combos() -> Vec<Flags> {
    (0..16u8).map(|b| f(b & 8 != 0, b & 4 != 0, b & 2 != 0, b & 1 != 0)).collect()
}

/// Each documented test's truth table over the 16 combos, written out by hand
/// from the fact sheet's formula column (Z S C O as a 4-bit number, bit set = true).
#[test]
fn cc_truth_tables_match_the_fact_sheet() {
    // Expected set of (z,s,c,o) index values (0..16, Z is bit 3) where the test holds.
    // Written from the table:   LT: (S&!Z)^O   EQ: Z&!S   LE: S^(Z|O)   GT: !Z&!(S^O)
    //   NE: !Z   GE: !(S^O)   NUM: !Z|!S   NAN: Z&S   LTU: S^O   EQU: Z   LEU: Z|(S^O)
    //   GTU: !S^(Z|O)   NEU: !Z|S   GEU: (!S|Z)^O   OFF: !O  LO: !C  SFF: !S  LS: Z|!C
    //   HI: C&!Z  SFT: S  HS: C  OFT: O
    let table: &[(CcTest, &dyn Fn(bool, bool, bool, bool) -> bool)] = &[
        (CcTest::F, &|_, _, _, _| false),
        (CcTest::Lt, &|z, s, _, o| (s && !z) != o),
        (CcTest::Eq, &|z, s, _, _| z && !s),
        (CcTest::Le, &|z, s, _, o| s != (z || o)),
        (CcTest::Gt, &|z, s, _, o| !z && (s == o)),
        (CcTest::Ne, &|z, _, _, _| !z),
        (CcTest::Ge, &|_, s, _, o| s == o),
        (CcTest::Num, &|z, s, _, _| !z || !s),
        (CcTest::Nan, &|z, s, _, _| z && s),
        (CcTest::Ltu, &|_, s, _, o| s != o),
        (CcTest::Equ, &|z, _, _, _| z),
        (CcTest::Leu, &|z, s, _, o| z || (s != o)),
        (CcTest::Gtu, &|z, s, _, o| (!s) != (z || o)),
        (CcTest::Neu, &|z, s, _, _| !z || s),
        (CcTest::Geu, &|z, s, _, o| (!s || z) != o),
        (CcTest::T, &|_, _, _, _| true),
        (CcTest::Off, &|_, _, _, o| !o),
        (CcTest::Lo, &|_, _, c, _| !c),
        (CcTest::Sff, &|_, s, _, _| !s),
        (CcTest::Ls, &|z, _, c, _| z || !c),
        (CcTest::Hi, &|z, _, c, _| c && !z),
        (CcTest::Sft, &|_, s, _, _| s),
        (CcTest::Hs, &|_, _, c, _| c),
        (CcTest::Oft, &|_, _, _, o| o),
    ];
    assert_eq!(table.len(), 24);
    for (t, want) in table {
        assert_eq!(t.code() as usize, table.iter().position(|x| x.0 == *t).unwrap());
        for fl in combos() {
            assert_eq!(t.holds(fl), want(fl.z, fl.s, fl.c, fl.o), "{t} on {fl:?}");
        }
    }
}

#[test]
fn nan_flags_fail_every_ordered_test_and_pass_every_unordered_one() {
    // Fact sheet: with Z = S = 1, LT..GE are false and NAN, LTU..GEU true (O = 0).
    let nan = float_flags(f32::NAN);
    assert_eq!(nan, f(true, true, false, false));
    for t in [CcTest::Lt, CcTest::Eq, CcTest::Le, CcTest::Gt, CcTest::Ne, CcTest::Ge, CcTest::Num] {
        assert!(!t.holds(nan), "{t}");
    }
    for t in [CcTest::Nan, CcTest::Ltu, CcTest::Equ, CcTest::Leu, CcTest::Gtu, CcTest::Neu, CcTest::Geu] {
        assert!(t.holds(nan), "{t}");
    }
}

#[test]
fn float_and_integer_flag_writers() {
    assert_eq!(float_flags(0.0), f(true, false, false, false));
    assert_eq!(float_flags(-2.5), f(false, true, false, false));
    assert_eq!(float_flags(3.0), f(false, false, false, false));
    // 0x7fffffff + 1 = 0x80000000: negative, signed overflow, no carry.
    assert_eq!(iadd_flags(0x7fff_ffff, 1, false, false, false), (0x8000_0000, f(false, true, false, true)));
    // 0xffffffff + 1 = 0 with carry out, no signed overflow (-1 + 1).
    assert_eq!(iadd_flags(0xffff_ffff, 1, false, false, false), (0, f(true, false, true, false)));
    // 0x80000000 + 0x80000000 = 0, carry and overflow.
    assert_eq!(iadd_flags(0x8000_0000, 0x8000_0000, false, false, false), (0, f(true, false, true, true)));
    // .X adds the carry in and accumulates Z: Z_new = Z_old & (word == 0).
    assert_eq!(iadd_flags(0, 0, true, true, true).1, f(false, false, false, false));
    assert_eq!(iadd_flags(0xffff_ffff, 0, true, true, true), (0, f(true, false, true, false)));
    assert_eq!(iadd_flags(0xffff_ffff, 0, true, true, false), (0, f(false, false, true, false)));
    // ISET/FSET .BM .CC: S = result, Z = !result, C = O = 0.
    assert_eq!(bm_flags(true), f(false, true, false, false));
    assert_eq!(bm_flags(false), f(true, false, false, false));
}

#[test]
fn undocumented_tests_follow_the_documented_choice() {
    for fl in combos() {
        assert!(CcTest::CsmTa.holds(fl) && CcTest::FcsmTa.holds(fl));
        assert!(!CcTest::CsmTr.holds(fl) && !CcTest::CsmMx.holds(fl) && !CcTest::FcsmTr.holds(fl) && !CcTest::FcsmMx.holds(fl));
        assert_eq!(CcTest::Rle.holds(fl), fl.s || fl.z);
        assert_eq!(CcTest::Rgt.holds(fl), !fl.s && !fl.z);
    }
    for (i, t) in CcTest::ALL.iter().enumerate() {
        assert_eq!(t.code() as usize, i);
        assert_eq!(CcTest::from_name(t.name()), Some(*t));
        assert_eq!(t.documented(), i < 24);
    }
}

#[test]
fn bundle_addresses() {
    // Fact sheet §3: first instruction at 0x08; 0x00, 0x20, 0x40 are control words;
    // instructions at 0x0008, 0x0010, 0x0018, 0x0028.
    assert_eq!([addr_of(0), addr_of(1), addr_of(2), addr_of(3)], [0x08, 0x10, 0x18, 0x28]);
    assert!(is_control(0x00) && is_control(0x20) && is_control(0x40) && !is_control(0x28));
    assert_eq!(index_of(0x28, 10), Ok(3));
    // A target on a control word is the first instruction of its bundle.
    assert_eq!(index_of(0x20, 10), Ok(3));
    assert_eq!(index_of(0x140, 100), index_of(0x148, 100));
    assert_eq!(index_of(0x140, 100), Ok(30));
}

#[test]
fn relative_targets_count_from_the_next_slot() {
    // Observed (fact sheet): an SSY at 0x78 with offset 0xc0 lands at 0x140.
    assert_eq!(relative(0x78, 0xc0, 0), Ok(0x140));
    // The seed: BRA REL:0x28 from 0x08 goes to 0x08 + 8 + 0x28.
    assert_eq!(relative(0x08, 0x28, 0), Ok(0x38));
    assert_eq!(offset_to(0, 0x38), 0x28);
    // Backwards past 0 is out of the 0..4 GiB window.
    assert_eq!(relative(0x08, -0x20, 0), Err(HwError::PcWrap));
    assert_eq!(relative(0x08, -0x10, 0), Ok(0));
}

#[test]
fn targets_use_unbounded_precision() {
    // JMX: Ra is unsigned, the immediate signed; 0xffffffff + 1 = 4 GiB is outside.
    assert_eq!(absolute(0xffff_fff8, 0), Ok(0xffff_fff8));
    assert_eq!(absolute(0xffff_ffff, 1), Err(HwError::PcWrap));
    assert_eq!(absolute(0x10, -0x18), Err(HwError::PcWrap));
    // Extreme operands do not overflow the computation itself.
    assert_eq!(relative(u64::MAX, i64::MAX, i64::MAX), Err(HwError::PcWrap));
    assert_eq!(relative(0, i64::MIN, i64::MIN), Err(HwError::PcWrap));
    assert_eq!(absolute(u64::MAX, i64::MIN), Err(HwError::PcWrap));
}

#[test]
fn alignment_and_range_of_targets() {
    assert_eq!(index_of(0x0c, 10), Err(HwError::MisalignedPc));
    assert_eq!(index_of(0x0a, 10), Err(HwError::MisalignedPc));
    assert_eq!(index_of(0x28, 3), Err(HwError::PcOverflow));
    assert_eq!(index_of(u64::MAX & !7, 3), Err(HwError::PcOverflow));
    // Immediate fields: low two bits must be 0; S24 for BRA, U32 for JMP.
    assert!(check_imm(0x28, true).is_ok());
    assert!(check_imm(0x2a, true).is_err());
    assert!(check_imm(0x7f_fffc, true).is_ok());
    assert!(check_imm(0x80_0000, true).is_err());
    assert!(check_imm(-0x80_0000, true).is_ok());
    assert!(check_imm(-0x80_0004, true).is_err());
    assert!(check_imm(0xffff_fffc, false).is_ok());
    assert!(check_imm(0x1_0000_0000, false).is_err());
    assert!(fits_signed(-(1 << 31), 32) && !fits_signed(1 << 31, 32));
}
