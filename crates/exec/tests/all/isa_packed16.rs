//! The packed 16-bit integer instructions of PTX ISA 8.0 (sm_90):
//! `add.{u16x2,s16x2}` (9.7.1.1), `min/max.u16x2` and
//! `min/max{.relu}.s16x2` (9.7.1.10, 9.7.1.11). The manual's semantics:
//! `a` and `b` are split into half words `a[0:15]`, `a[16:31]`, each pair is
//! processed on its own and the results are packed into `d` the same way;
//! `.relu` clamps a negative result to 0. The expected words are computed
//! here from that text, per half word with `i64` arithmetic, and checked
//! against the engine on boundary and random operands, in both scheduling
//! modes.

use ptxsim_exec::Scheduling;

use crate::support::words::{run_words, words_kernel};

/// The instructions under test, in the order the kernel stores them.
const FORMS: [&str; 8] = ["add.u16x2", "add.s16x2", "min.u16x2", "max.u16x2", "min.s16x2", "max.s16x2", "min.relu.s16x2", "max.relu.s16x2"];

fn kernel() -> String {
    let mut body = String::new();
    for (i, f) in FORMS.iter().enumerate() {
        body += &format!("    {f} %r4, %r1, %r2;\n    st.global.u32 [%rd5+{}], %r4;\n", 4 * i);
    }
    words_kernel("8.0", "sm_90", 2, FORMS.len(), &body)
}

/// Half word `i` of `v` as a signed or unsigned 16-bit integer.
fn field(v: u32, i: u32, signed: bool) -> i64 {
    let h = (v >> (16 * i)) & 0xffff;
    if signed && h >= 0x8000 {
        h as i64 - 0x1_0000
    } else {
        h as i64
    }
}

/// The manual's semantics of `form` on `a` and `b`.
fn expected(form: &str, a: u32, b: u32) -> u32 {
    let signed = form.ends_with("s16x2");
    let relu = form.contains(".relu");
    let mut d = 0u32;
    for i in 0..2 {
        let (x, y) = (field(a, i, signed), field(b, i, signed));
        let mut r = if form.starts_with("add") {
            x + y
        } else if form.starts_with("min") {
            if x < y {
                x
            } else {
                y
            }
        } else if x > y {
            x
        } else {
            y
        };
        if relu && r < 0 {
            r = 0;
        }
        // Packed back as 16 bits (an `add` result wraps).
        d |= ((r.rem_euclid(0x1_0000)) as u32) << (16 * i);
    }
    d
}

#[test]
fn packed_int16_follow_the_manual() {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s as u32
    };
    // Boundary half words in every combination, then random words.
    const EDGES: [u32; 6] = [0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff];
    let mut input = Vec::new();
    for &x in &EDGES {
        for &y in &EDGES {
            input.extend([x | (y << 16), y | (x << 16)]);
        }
    }
    while input.len() < 2 * 96 {
        input.extend([next(), next()]);
    }
    let threads = input.len() / 2;
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = run_words(&kernel(), threads, &input, FORMS.len(), mode);
        for t in 0..threads {
            let (a, b) = (input[2 * t], input[2 * t + 1]);
            for (i, f) in FORMS.iter().enumerate() {
                assert_eq!(out[FORMS.len() * t + i], expected(f, a, b), "{f} thread {t}: a={a:#010x} b={b:#010x} ({mode:?})");
            }
        }
    }
    // Worked by hand: a = {0x7fff, 0x0001} (high, low), b = {0x0001, 0xffff}.
    let (a, b) = (0x7fff_0001u32, 0x0001_ffffu32);
    assert_eq!(expected("add.s16x2", a, b), 0x8000_0000);
    assert_eq!(expected("min.s16x2", a, b), 0x0001_ffff);
    assert_eq!(expected("min.u16x2", a, b), 0x0001_0001);
    assert_eq!(expected("max.relu.s16x2", a, b), 0x7fff_0001);
    assert_eq!(expected("min.relu.s16x2", 0x8000_0005, 0x0003_fff0), 0x0000_0000);
}
