//! Modifiers that change a result, run by the engine against values computed
//! here from the manual's definitions (never from the engine):
//!
//! - `min/max.relu.s32 d, a, b` (PTX ISA 9.7.1.10/9.7.1.11, sm_90): the
//!   signed minimum (maximum), a negative result clamped to 0;
//! - `min`/`max` with a third source: the manual has `d, a, b, c` for
//!   `.f32` only; an integer, `.f64` or half-type third source is rejected
//!   at load (it used to run as `min(a, b)`, dropping `c`);
//! - `neg/abs.ftz.{f16,f16x2}` (9.7.4.5/9.7.4.6): a subnormal operand is
//!   flushed to a zero of its sign before the sign is flipped or cleared;
//! - `fma.rn.oob{.relu}.{f16,bf16}` (8.1, sm_90): `.oob` makes the result +0
//!   where an operand is the tensor out-of-bounds NaN, whose bits the manual
//!   does not give, so the engine reports it unsupported, by name and line,
//!   rather than dropping `.oob`.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling, TrapKind};

use crate::support::words::{run_words, words_kernel};

/// A deterministic stream of words (splitmix64).
fn words(seed: u64, n: usize) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

#[test]
fn min_max_relu_s32_clamps_negative_results_to_zero() {
    let body = "    min.relu.s32 %r3, %r1, %r2;\n    max.relu.s32 %r4, %r1, %r2;\n    min.s32 %r5, %r1, %r2;\n    st.global.u32 [%rd5], %r3;\n    st.global.u32 [%rd5+4], %r4;\n    st.global.u32 [%rd5+8], %r5;\n";
    let src = words_kernel("8.0", "sm_90", 2, 3, body);
    let threads = 256;
    let mut input = words(0x5eed_0001, 2 * threads);
    // Edge values in the first rows: extremes, zero, -1, equal operands.
    let edges: [(i32, i32); 8] = [(i32::MIN, i32::MAX), (-1, 0), (0, -1), (-5, -7), (-5, 9), (7, 7), (-3, -3), (i32::MIN, i32::MIN)];
    for (t, (a, b)) in edges.iter().enumerate() {
        input[2 * t] = *a as u32;
        input[2 * t + 1] = *b as u32;
    }
    let out = run_words(&src, threads, &input, 3, Scheduling::Stack);
    let mut clamped = 0;
    for t in 0..threads {
        let (a, b) = (input[2 * t] as i32, input[2 * t + 1] as i32);
        let relu = |v: i32| if v < 0 { 0 } else { v };
        let want = [relu(if a < b { a } else { b }), relu(if a > b { a } else { b }), if a < b { a } else { b }];
        let got = [out[3 * t] as i32, out[3 * t + 1] as i32, out[3 * t + 2] as i32];
        assert_eq!(got, want, "thread {t}: a={a} b={b}: [min.relu, max.relu, min]");
        clamped += (want[0] == 0 && want[2] < 0) as usize;
    }
    assert!(clamped > threads / 8, "only {clamped} negative minima were clamped");
}

/// Loads `body` in a one-thread kernel; the load error's text, if any.
fn load_error(version: &str, target: &str, decls: &str, body: &str) -> Option<String> {
    let src = format!(".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{decls}\n    {body}\n    ret;\n}}\n");
    Device::new().load(&src).err().map(|e| e.to_string())
}

#[test]
fn a_third_min_max_source_is_an_f32_form_only() {
    for (decls, body) in [
        (".reg .s32 %a, %b, %c, %d;", "min.s32 %d, %a, %b, %c;"),
        (".reg .s32 %a, %b, %c, %d;", "max.relu.s32 %d, %a, %b, %c;"),
        (".reg .u32 %a, %b, %c, %d;", "max.u32 %d, %a, %b, %c;"),
        (".reg .s64 %a, %b, %c, %d;", "min.s64 %d, %a, %b, %c;"),
        (".reg .f64 %a, %b, %c, %d;", "max.f64 %d, %a, %b, %c;"),
        (".reg .b16 %a, %b, %c, %d;", "min.f16 %d, %a, %b, %c;"),
    ] {
        let e = load_error("8.7", "sm_100", decls, body).unwrap_or_else(|| panic!("`{body}` loaded"));
        assert!(e.contains("check/operand-count") && e.contains("three operands"), "`{body}`: {e}");
    }
    // The `.f32` form passes the checker from PTX 8.8 on sm_100 (ptxas
    // 13.5: "requires PTX ISA .version 8.8", "requires .target sm_100");
    // the engine reports it unsupported by name where it runs.
    assert_eq!(load_error("8.8", "sm_100", ".reg .f32 %a, %b, %c, %d;", "max.f32 %d, %a, %b, %c;"), None);
    assert!(load_error("8.7", "sm_100", ".reg .f32 %a, %b, %c, %d;", "max.f32 %d, %a, %b, %c;").is_some());
}

/// `neg`/`abs` of one 16-bit float pattern by the manual: with `.ftz` a
/// subnormal (exponent field 0, fraction nonzero) is first a zero of its
/// sign; then `neg` flips the sign bit and `abs` clears it.
fn neg_abs_f16(h: u16, neg: bool, ftz: bool) -> u16 {
    let subnormal = h & 0x7c00 == 0 && h & 0x03ff != 0;
    let v = if ftz && subnormal { h & 0x8000 } else { h };
    if neg { v ^ 0x8000 } else { v & 0x7fff }
}

#[test]
fn neg_abs_ftz_f16_flush_subnormal_operands() {
    let body = "    mov.b32 {%rs1, %rs2}, %r1;\n    neg.ftz.f16 %rs3, %rs1;\n    abs.ftz.f16 %rs4, %rs1;\n    neg.f16 %rs5, %rs1;\n    abs.f16 %rs6, %rs1;\n    mov.b32 %r2, {%rs3, %rs4};\n    mov.b32 %r3, {%rs5, %rs6};\n    neg.ftz.f16x2 %r4, %r1;\n    abs.ftz.f16x2 %r5, %r1;\n    st.global.u32 [%rd5], %r2;\n    st.global.u32 [%rd5+4], %r3;\n    st.global.u32 [%rd5+8], %r4;\n    st.global.u32 [%rd5+12], %r5;\n";
    let src = words_kernel("7.0", "sm_80", 1, 4, body).replace(".reg .u64 %rd<6>;", ".reg .u64 %rd<6>;\n    .reg .b16 %rs<8>;");
    let threads = 128;
    // Halves: subnormals of both signs, zeros, normals, infinities; no NaN
    // (a NaN operand's result is the canonical NaN, not the subject here).
    let specials: [u16; 10] = [0x0001, 0x8001, 0x03ff, 0x83ff, 0x0000, 0x8000, 0x0400, 0x8400, 0x7c00, 0xfc00];
    let mut input = Vec::new();
    for (t, r) in words(0x5eed_0002, threads).into_iter().enumerate() {
        let lo = if t < 100 { specials[t % 10] } else { (r as u16) & 0x83ff }; // the rest subnormal or zero
        let hi = if t < 100 { specials[(t / 10) % 10] } else { ((r >> 16) as u16) & 0xbfff };
        input.push(lo as u32 | (hi as u32) << 16);
    }
    let out = run_words(&src, threads, &input, 4, Scheduling::Stack);
    let mut flushed = 0;
    for t in 0..threads {
        let w = input[t];
        let (lo, hi) = (w as u16, (w >> 16) as u16);
        let pack = |a: u16, b: u16| a as u32 | (b as u32) << 16;
        let want = [
            pack(neg_abs_f16(lo, true, true), neg_abs_f16(lo, false, true)),
            pack(neg_abs_f16(lo, true, false), neg_abs_f16(lo, false, false)),
            pack(neg_abs_f16(lo, true, true), neg_abs_f16(hi, true, true)),
            pack(neg_abs_f16(lo, false, true), neg_abs_f16(hi, false, true)),
        ];
        let got = [out[4 * t], out[4 * t + 1], out[4 * t + 2], out[4 * t + 3]];
        assert_eq!(got, want, "thread {t}: a={w:#010x}: [neg.ftz/abs.ftz .f16, neg/abs .f16, neg.ftz.f16x2, abs.ftz.f16x2]");
        flushed += (lo & 0x7c00 == 0 && lo & 0x3ff != 0) as usize;
    }
    assert!(flushed > 20, "only {flushed} subnormal operands");
}

#[test]
fn fma_oob_is_reported_by_name_not_dropped() {
    for (ty, form) in [("b16", "fma.rn.oob.relu.f16"), ("b16", "fma.rn.oob.relu.bf16"), ("b16", "fma.rn.oob.f16"), ("b16", "fma.rn.oob.bf16"), ("b32", "fma.rn.oob.relu.f16x2"), ("b32", "fma.rn.oob.bf16x2")] {
        let src = format!(
            ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n    .reg .{ty} %a, %b, %c, %d;\n    .reg .u64 %o;\n    ld.param.u64 %o, [out];\n    mov.{ty} %a, 0;\n    mov.{ty} %b, 0;\n    mov.{ty} %c, 0;\n    {form} %d, %a, %b, %c;\n    st.global.{ty} [%o], %d;\n    ret;\n}}\n"
        );
        let mut dev = Device::new();
        let m = dev.load(&src).unwrap_or_else(|e| panic!("{form}: the checker accepts it (8.1, sm_90): {e}"));
        let p = dev.alloc(4).expect("alloc");
        let e = dev.launch(&m, "k", &LaunchConfig::new(1u32, 1u32), &[KernelArg::Ptr(p)]).expect_err(form);
        assert_eq!(e.kind, TrapKind::Unsupported, "{form}: {e}");
        assert!(e.message.contains(&format!("`{form}`")), "{form}: {e}");
        assert_eq!(e.line, Some(12), "{form}: {e}");
    }
}

/// `div.approx.f32` (PTX ISA 9.7.3.8): within 2 ulp of `a / b` for `|b|` in
/// `[2^-126, 2^126]`; for `2^126 < |b| < 2^128`, NaN when `a` is infinite
/// and otherwise 0 (here of the sign `a * (1/b)` has). `div.full.f32` keeps
/// its 2-ulp bound over the whole range.
#[test]
fn div_approx_f32_by_a_huge_divisor_is_zero() {
    let body = "    div.approx.f32 %r3, %r1, %r2;\n    div.approx.ftz.f32 %r4, %r1, %r2;\n    div.full.f32 %r5, %r1, %r2;\n    st.global.u32 [%rd5], %r3;\n    st.global.u32 [%rd5+4], %r4;\n    st.global.u32 [%rd5+8], %r5;\n";
    let src = words_kernel("7.0", "sm_80", 2, 3, body);
    let r = words(0x5eed_0003, 512);
    let mut input = Vec::new();
    let specials = [0x7f80_0000u32, 0xff80_0000, 0x7fc0_0000, 0, 0x8000_0000, 0x3f80_0000, 0x7f7f_ffff, 0x0000_0001];
    for t in 0..256 {
        // a: ordinary values of any size, or a special one; b: half the
        // time past 2^126 (biased exponent 253 or 254), else ordinary.
        let a = if t < 32 { specials[t % 8] } else { r[2 * t] & 0xbfff_ffff | 0x0080_0000 };
        let b = if t % 2 == 0 { (r[2 * t + 1] & 0x807f_ffff) | (253 + (t as u32 / 2) % 2) << 23 } else { (r[2 * t + 1] & 0x807f_ffff) | (100 + t as u32 % 50) << 23 };
        input.extend([a, b]);
    }
    let out = run_words(&src, 256, &input, 3, Scheduling::Stack);
    let mut zeros = 0;
    for t in 0..256 {
        let (a, b) = (input[2 * t], input[2 * t + 1]);
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let got = [out[3 * t], out[3 * t + 1], out[3 * t + 2]];
        let within = |g: u32, exact: f64| {
            let g = f32::from_bits(g) as f64;
            let ulp = (f32::from_bits((exact.abs() as f32).to_bits() + 1) - exact.abs() as f32) as f64;
            (g - exact).abs() <= 2.0 * ulp
        };
        let exact = fa as f64 / fb as f64;
        if fb.abs() > 2f32.powi(126) {
            for (i, g) in got[..2].iter().enumerate() {
                if fa.is_finite() {
                    let sign = (a ^ b) & 0x8000_0000;
                    assert_eq!(*g, sign, "thread {t} slot {i}: {a:#010x} / {b:#010x}: a zero");
                    zeros += 1;
                } else {
                    assert!(f32::from_bits(*g).is_nan(), "thread {t} slot {i}: {a:#010x} / {b:#010x}: NaN");
                }
            }
        } else if fa.is_finite() && fa != 0.0 && exact.abs() >= f32::MIN_POSITIVE as f64 && exact.abs() <= f32::MAX as f64 {
            assert!(within(got[0], exact), "thread {t}: div.approx {a:#010x} / {b:#010x}: {:#010x}", got[0]);
        }
        // div.full: 2 ulp over the whole range (normal results).
        if fa.is_finite() && fa != 0.0 && exact.abs() >= f32::MIN_POSITIVE as f64 && exact.abs() <= f32::MAX as f64 {
            assert!(within(got[2], exact), "thread {t}: div.full {a:#010x} / {b:#010x}: {:#010x}", got[2]);
        }
    }
    assert!(zeros > 200, "only {zeros} huge-divisor quotients checked");
}

/// `rcp.rn.ftz.f64` (taken by ptxas, not in the manual, whose `.f64` `.ftz`
/// form is `rcp.approx.ftz.f64`) is reported unsupported by name, not run
/// as the approximation (which reads only the operand's upper half).
#[test]
fn rcp_rnd_ftz_f64_is_reported_not_approximated() {
    for form in ["rcp.rn.ftz.f64", "rcp.rz.ftz.f64"] {
        let src = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n    .reg .f64 %a, %d;\n    .reg .u64 %o;\n    ld.param.u64 %o, [out];\n    mov.f64 %a, 0d4008000000000001;\n    {form} %d, %a;\n    st.global.f64 [%o], %d;\n    ret;\n}}\n"
        );
        let mut dev = Device::new();
        let m = dev.load(&src).unwrap_or_else(|e| panic!("{form}: {e}"));
        let p = dev.alloc(8).expect("alloc");
        let e = dev.launch(&m, "k", &LaunchConfig::new(1u32, 1u32), &[KernelArg::Ptr(p)]).expect_err(form);
        assert_eq!((e.kind, e.line), (TrapKind::Unsupported, Some(10)), "{form}: {e}");
        assert!(e.message.contains(&format!("`{form}`")), "{form}: {e}");
    }
}
