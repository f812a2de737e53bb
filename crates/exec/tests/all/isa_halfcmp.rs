//! The half-precision comparisons (PTX ISA 9.7.7): `setp` and `set` on
//! `.f16x2`/`.bf16x2` and `set` with `.f16`/`.bf16`/`.u16` destinations,
//! run by the engine and compared with values computed here from the
//! manual's definitions: the halves are decoded by hand (IEEE binary16 and
//! bfloat16), compared in f64 with the manual's ordered/unordered rules;
//! `setp.f16x2 p|q` gives `p = BoolOp(t[0], c)` (lower half, bits 0..15)
//! and `q = BoolOp(t[1], c)` (upper half); `set` writes 0xffffffff /
//! 0xffff per half for integer destinations and 1.0 in the destination's
//! float format, 0 where false.

use ptxsim_exec::{Device, LaunchConfig, Scheduling};

use crate::support::words::run_words;

/// IEEE binary16 bits to f64, by the format's definition.
fn f16_value(h: u16) -> f64 {
    let (s, e, m) = (h >> 15, (h >> 10) & 0x1f, (h & 0x3ff) as f64);
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15),
    };
    if s == 1 { -v } else { v }
}

/// bfloat16 bits to f64: the upper half of an f32.
fn bf16_value(h: u16) -> f64 {
    f32::from_bits((h as u32) << 16) as f64
}

/// The manual's CmpOp on floats: ordered comparisons are false and
/// unordered ones true when either side is NaN.
fn cmp(op: &str, x: f64, y: f64) -> bool {
    let nan = x.is_nan() || y.is_nan();
    match op {
        "eq" => !nan && x == y,
        "ne" => !nan && x != y,
        "lt" => !nan && x < y,
        "le" => !nan && x <= y,
        "gt" => !nan && x > y,
        "ge" => !nan && x >= y,
        "equ" => nan || x == y,
        "neu" => nan || x != y,
        "ltu" => nan || x < y,
        "leu" => nan || x <= y,
        "gtu" => nan || x > y,
        "geu" => nan || x >= y,
        "num" => !nan,
        "nan" => nan,
        _ => unreachable!("{op}"),
    }
}

/// `.ftz` on f16: subnormal inputs become zero of the same sign.
fn ftz16(h: u16) -> u16 {
    if h & 0x7c00 == 0 { h & 0x8000 } else { h }
}

const KERNEL: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .b32 %a, %b, %c, %r<8>, %t;
    .reg .b16 %ha, %hb, %h<4>;
    .reg .pred %pc, %p<8>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %t, %tid.x;
    mul.wide.u32 %rd3, %t, 12;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %a, [%rd4];
    ld.global.u32 %b, [%rd4+4];
    ld.global.u32 %c, [%rd4+8];
    setp.ne.u32 %pc, %c, 0;
    mov.b32 {%ha, %h0}, %a;
    mov.b32 {%hb, %h1}, %b;
    setp.lt.f16x2 %p0|%p1, %a, %b;
    setp.geu.and.ftz.f16x2 %p2|%p3, %a, %b, %pc;
    setp.ne.or.bf16x2 %p4|%p5, %a, %b, !%pc;
    setp.nan.xor.bf16x2 %p6|%p7, %a, %b, %pc;
    selp.u32 %r0, 1, 0, %p0;
    selp.u32 %r1, 2, 0, %p1;
    or.b32 %r0, %r0, %r1;
    selp.u32 %r1, 4, 0, %p2;
    or.b32 %r0, %r0, %r1;
    selp.u32 %r1, 8, 0, %p3;
    or.b32 %r0, %r0, %r1;
    selp.u32 %r1, 16, 0, %p4;
    or.b32 %r0, %r0, %r1;
    selp.u32 %r1, 32, 0, %p5;
    or.b32 %r0, %r0, %r1;
    selp.u32 %r1, 64, 0, %p6;
    or.b32 %r0, %r0, %r1;
    selp.u32 %r1, 128, 0, %p7;
    or.b32 %r0, %r0, %r1;
    set.le.u32.f16x2 %r1, %a, %b;
    set.equ.f16x2.f16x2 %r2, %a, %b;
    set.gt.xor.bf16x2.bf16x2 %r3, %a, %b, %pc;
    set.nan.f16.f16 %h2, %ha, %hb;
    set.lt.u16.bf16 %h3, %ha, %hb;
    mov.b32 %r4, {%h2, %h3};
    set.ge.and.bf16.f16 %h2, %ha, %hb, %pc;
    set.num.s32.f16 %r5, %ha, %hb;
    cvt.u32.u16 %r6, %h2;
    mul.wide.u32 %rd3, %t, 32;
    add.u64 %rd5, %rd1, %rd3;
    st.global.v4.u32 [%rd5], {%r0, %r1, %r2, %r3};
    st.global.v4.u32 [%rd5+16], {%r4, %r5, %r6, %t};
    ret;
}
"#;

#[test]
fn half_comparisons_match_the_manual() {
    let specials: [u16; 14] = [0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x03ff, 0x7f80, 0x7fc0, 0x3f80, 0xc000];
    let mut s = 0x0123_4567_89ab_cdefu64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let threads = 256usize;
    let mut input = Vec::new();
    for t in 0..threads {
        let r = next();
        let half = |i: usize, k: u64| if t < 196 { specials[(t / 14 + i * (t % 14)) % 14] } else { (r >> (16 * k)) as u16 };
        // The lower halves run over all pairs of specials; the upper ones
        // (and every half past thread 196) are pseudo-random, with equal
        // halves now and then.
        let (alo, blo) = if t < 196 { (specials[t / 14], specials[t % 14]) } else { (half(0, 0), half(1, 1)) };
        let ahi = (r >> 32) as u16;
        let bhi = if t % 5 == 0 { ahi } else { (r >> 48) as u16 };
        let c = (next() & 1) as u32;
        input.extend([alo as u32 | (ahi as u32) << 16, blo as u32 | (bhi as u32) << 16, c]);
    }
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = run_words(KERNEL, threads, &input, 8, mode);
        for t in 0..threads {
            let (a, b, c) = (input[3 * t], input[3 * t + 1], input[3 * t + 2] != 0);
            let h = |v: u32, i: u32| (v >> (16 * i)) as u16;
            let f = |op: &str, i: u32| cmp(op, f16_value(h(a, i)), f16_value(h(b, i)));
            let fz = |op: &str, i: u32| cmp(op, f16_value(ftz16(h(a, i))), f16_value(ftz16(h(b, i))));
            let g = |op: &str, i: u32| cmp(op, bf16_value(h(a, i)), bf16_value(h(b, i)));
            let bits = [f("lt", 0), f("lt", 1), fz("geu", 0) && c, fz("geu", 1) && c, g("ne", 0) || !c, g("ne", 1) || !c, g("nan", 0) ^ c, g("nan", 1) ^ c];
            let preds = bits.iter().enumerate().map(|(i, &x)| (x as u32) << i).sum::<u32>();
            let pack = |lo: bool, hi: bool, one: u32| if lo { one } else { 0 } | if hi { one << 16 } else { 0 };
            let want = [
                preds,
                pack(f("le", 0), f("le", 1), 0xffff),
                pack(f("equ", 0), f("equ", 1), 0x3c00),
                pack(g("gt", 0) ^ c, g("gt", 1) ^ c, 0x3f80),
                pack(f("nan", 0), false, 0x3c00) | if g("lt", 0) { 0xffff_0000 } else { 0 },
                if f("num", 0) { 0xffff_ffff } else { 0 },
                if f("ge", 0) && c { 0x3f80 } else { 0 },
                t as u32,
            ];
            assert_eq!(&out[8 * t..8 * t + 8], &want, "thread {t} ({mode:?}): a={a:#010x} b={b:#010x} c={c}");
        }
    }
}

#[test]
fn setp_on_pairs_needs_the_predicate_pair() {
    let src = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<3>;\n.reg .pred %p<2>;\nsetp.lt.f16x2 %p1, %r1, %r2;\nret;\n}\n";
    let mut dev = Device::new();
    // The checker or the decoder refuses it; the engine never runs it.
    if let Ok(m) = dev.load(src) {
        let e = dev.launch(&m, "k", &LaunchConfig::new(1u32, 32u32), &[]).expect_err("refused");
        assert!(e.message.contains("p|q") || e.message.contains("setp"), "{e}");
    }
}
