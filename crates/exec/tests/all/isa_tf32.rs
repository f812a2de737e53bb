//! `cvt.rna{.satfinite}.tf32.f32` (PTX ISA 9.7.9.21): the engine and the
//! lane function against a reference computed here from the definition:
//! the f32 value rounded to 10 fraction bits (tf32 keeps f32's 8-bit
//! exponent, so subnormals keep the place 2^-136), to nearest with ties
//! away from zero, exactly in f64; the result is a .b32 whose low 13 bits
//! are 0; a result past the largest finite tf32 is infinite, or with
//! `.satfinite` that largest value ((2 - 2^-10) * 2^127) of the same sign.

use proptest::prelude::*;
use ptxsim_exec::Scheduling;

use crate::support::words::run_words;

/// The definition, for finite inputs; `None` for NaN inputs.
fn reference(x: u32, satfinite: bool) -> Option<u32> {
    let v = f32::from_bits(x) as f64;
    if v.is_nan() {
        return None;
    }
    if v.is_infinite() {
        let max = (2.0 - 2f64.powi(-10)) * 2f64.powi(127);
        return Some(if satfinite { (max.copysign(v) as f32).to_bits() } else { x });
    }
    let mag = v.abs();
    let e = if mag == 0.0 { -126 } else { (mag.log2().floor() as i32).max(-126) };
    // log2 may be off by one near powers of two: settle e exactly.
    let e = if mag >= 2f64.powi(e + 1) { e + 1 } else if mag < 2f64.powi(e) && e > -126 { e - 1 } else { e };
    let ulp = 2f64.powi(e - 10);
    let r = (mag / ulp + 0.5).floor() * ulp;
    let max = (2.0 - 2f64.powi(-10)) * 2f64.powi(127);
    let r = if r > max { if satfinite { max } else { f64::INFINITY } } else { r };
    Some((r.copysign(v) as f32).to_bits())
}

fn check(x: u32, got: u32, sat: bool) {
    match reference(x, sat) {
        Some(w) => assert_eq!(got, w, "x={x:#010x} satfinite={sat}: got {got:#010x} want {w:#010x}"),
        None => {
            assert_eq!(got & 0x1fff, 0, "x={x:#010x}: low bits");
            // A NaN whose payload survives the cut stays that NaN's top bits.
            if x & 0x007f_e000 != 0 {
                assert!(f32::from_bits(got).is_nan(), "x={x:#010x} satfinite={sat}: got {got:#010x}");
            }
        }
    }
}

proptest! {
    #[test]
    fn tf32_rna_matches_the_definition(x: u32, sat: bool) {
        check(x, ptxsim_sem::alu::tf32_rna(x, sat), sat);
    }
}

const KERNEL: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<4>;
    .reg .f32 %f1;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    cvt.rna.tf32.f32 %r2, %f1;
    cvt.rna.satfinite.tf32.f32 %r3, %f1;
    mul.wide.u32 %rd3, %r1, 8;
    add.u64 %rd5, %rd1, %rd3;
    st.global.v2.u32 [%rd5], {%r2, %r3};
    ret;
}
"#;

#[test]
fn kernel_rounds_to_tf32_as_defined() {
    // Ties (0x1000 below the cut) of both parities and signs, the carry into
    // the exponent, the largest finite values, subnormals, zeros,
    // infinities, NaNs; then a deterministic spread.
    let mut input: Vec<u32> = vec![
        0x3f80_1000, 0x3f80_3000, 0xbf80_1000, 0xbf80_3000, 0x3f80_0fff, 0x3f80_1001, 0x3fff_f000, 0x3fff_efff,
        0x7f7f_f000, 0x7f7f_efff, 0xff7f_f000, 0x7f7f_ffff, 0x0000_1000, 0x0000_0fff, 0x8000_1000, 0x007f_f000,
        0x0000_0000, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_1234, 0x0000_0001, 0x3f80_0000,
    ];
    let mut s = 0x5555_aaaa_1234_9876u64;
    while input.len() < 256 {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let z = (z ^ (z >> 31)) as u32;
        // Every fourth one a tie exactly.
        input.push(if input.len() % 4 == 0 { z & 0xffff_e000 | 0x1000 } else { z });
    }
    let n = input.len();
    let out = run_words(KERNEL, n, &input, 2, Scheduling::Stack);
    for (t, &x) in input.iter().enumerate() {
        check(x, out[2 * t], false);
        check(x, out[2 * t + 1], true);
    }
    // Spot values worked by hand: 1 + 2^-11 (a tie) rounds away to
    // 1 + 2^-10; the largest f32 rounds to infinity, or with .satfinite to
    // the largest tf32.
    assert_eq!(out[0], 0x3f80_2000);
    assert_eq!(out[2 * 11], 0x7f80_0000);
    assert_eq!(out[2 * 11 + 1], 0x7f7f_e000);
}
