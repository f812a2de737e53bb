//! `fma.rn.relu.{f16,bf16,f16x2,bf16x2}` (PTX ISA 9.7.4.4), run by the engine
//! against a reference computed here: `a * b + c` exactly in integers (every
//! input is an integer multiple of the format's least quantum), rounded once
//! to nearest even into the format by hand, then the manual's `.relu`:
//! a negative result becomes 0 and a NaN result the canonical NaN 0x7fff.
//! Results that round to zero are left out (whether -0 counts as negative
//! is not said by the manual).

use ptxsim_exec::Scheduling;

use crate::support::words::run_words;

/// A 16-bit float format: fraction bits, exponent bias.
#[derive(Clone, Copy)]
struct Fmt {
    frac: u32,
    bias: i32,
}
const F16: Fmt = Fmt { frac: 10, bias: 15 };
const BF16: Fmt = Fmt { frac: 7, bias: 127 };

impl Fmt {
    fn exp_bits(self) -> u32 {
        15 - self.frac
    }
    fn emin(self) -> i32 {
        1 - self.bias
    }
    fn emax(self) -> i32 {
        self.bias
    }
    fn is_special(self, h: u16) -> bool {
        let e = (h as u32 >> self.frac) & ((1 << self.exp_bits()) - 1);
        e == (1 << self.exp_bits()) - 1
    }
    fn to_f64(self, h: u16) -> f64 {
        let e = ((h as u32 >> self.frac) & ((1 << self.exp_bits()) - 1)) as i32;
        let m = (h as u32 & ((1 << self.frac) - 1)) as f64;
        let v = if e == (1 << self.exp_bits()) - 1 {
            if m == 0.0 { f64::INFINITY } else { f64::NAN }
        } else if e == 0 {
            m * 2f64.powi(self.emin() - self.frac as i32)
        } else {
            (1.0 + m / 2f64.powi(self.frac as i32)) * 2f64.powi(e - self.bias)
        };
        if h & 0x8000 != 0 { -v } else { v }
    }
    /// `n * 2^-u + t` rounded to nearest even into the format (n != 0), where
    /// `t` is smaller than half a unit of `n`'s last place and only its sign
    /// relative to `n` counts (`sticky`: 1 away from zero, -1 towards, 0 none).
    fn round(self, n: i128, u: i32, sticky: i32) -> u16 {
        let sign = if n < 0 { 0x8000u16 } else { 0 };
        let mag = n.unsigned_abs();
        let top = 127 - mag.leading_zeros() as i32; // mag in [2^top, 2^(top+1))
        let e = (top - u).max(self.emin());
        let shift = e - self.frac as i32 + u; // bits below the kept quantum
        if shift >= 127 {
            return sign; // far below the least subnormal: zero
        }
        let mut m = if shift <= 0 { mag << -shift } else {
            let (kept, rem, half) = (mag >> shift, mag & ((1u128 << shift) - 1), 1u128 << (shift - 1));
            let up = rem > half || rem == half && (sticky > 0 || sticky == 0 && kept & 1 == 1);
            if up { kept + 1 } else { kept }
        };
        let mut e = e;
        if m == 1 << (self.frac + 1) {
            m >>= 1;
            e += 1;
        }
        if e > self.emax() {
            return sign | (((1 << self.exp_bits()) - 1) << self.frac) as u16;
        }
        let bits = if m < 1 << self.frac { m as u32 } else { (((e + self.bias) as u32) << self.frac) | (m as u32 - (1 << self.frac)) };
        sign | bits as u16
    }
}

/// `fma.rn.relu` by the definition; `None` where the rounded result is zero.
fn reference(f: Fmt, a: u16, b: u16, c: u16) -> Option<u16> {
    let r = if [a, b, c].iter().any(|&h| f.is_special(h)) {
        let v = f.to_f64(a) * f.to_f64(b) + f.to_f64(c);
        if v.is_nan() {
            return Some(0x7fff);
        }
        if v == 0.0 {
            return None;
        }
        // Infinite (an infinite input with finite others).
        if v > 0.0 { (((1 << f.exp_bits()) - 1) << f.frac) as u16 } else { 0x8000 | (((1 << f.exp_bits()) - 1) << f.frac) as u16 }
    } else {
        // The product is exact in f64 (at most 22 significant bits); the sum
        // s plus its exact error e (Knuth's TwoSum) is a * b + c exactly.
        let (p, c) = (f.to_f64(a) * f.to_f64(b), f.to_f64(c));
        let s = p + c;
        let bb = s - p;
        let e = (p - (s - bb)) + (c - bb);
        if s == 0.0 {
            return None;
        }
        // s = m * 2^x with m an integer of at most 53 bits.
        let x = s.abs().log2().floor() as i32 - 52;
        let m = (s / 2f64.powi(x)) as i128;
        assert_eq!(m as f64 * 2f64.powi(x), s, "exact split");
        let sticky = if e == 0.0 { 0 } else if (e > 0.0) == (s > 0.0) { 1 } else { -1 };
        f.round(m, -x, sticky)
    };
    if r & 0x7fff == 0 {
        return None;
    }
    Some(if r & 0x8000 != 0 { 0 } else { r })
}

const KERNEL: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .b32 %a, %b, %c, %r<4>, %t;
    .reg .b16 %ha, %hb, %hc, %h<4>;
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
    mov.b32 {%ha, %h0}, %a;
    mov.b32 {%hb, %h1}, %b;
    mov.b32 {%hc, %h2}, %c;
    fma.rn.relu.f16 %h0, %ha, %hb, %hc;
    fma.rn.relu.bf16 %h1, %ha, %hb, %hc;
    mov.b32 %r0, {%h0, %h1};
    fma.rn.relu.f16x2 %r1, %a, %b, %c;
    fma.rn.relu.bf16x2 %r2, %a, %b, %c;
    mul.wide.u32 %rd3, %t, 12;
    add.u64 %rd5, %rd1, %rd3;
    st.global.u32 [%rd5], %r0;
    st.global.u32 [%rd5+4], %r1;
    st.global.u32 [%rd5+8], %r2;
    ret;
}
"#;

#[test]
fn fma_relu_matches_the_definition() {
    let mut s = 0x2468_ace0_1357_9bdfu64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let specials: [u16; 8] = [0x7c00, 0xfc00, 0x7e00, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8001];
    let threads = 512usize;
    let mut input = Vec::new();
    for t in 0..threads {
        let r = next();
        let mut w = [r as u32, (r >> 32) as u32, next() as u32];
        // Near-cancelling sums now and then: c = -(a*b) roughly, by taking
        // c's halves from a's with the sign flipped.
        if t % 4 == 1 {
            w[2] = w[0] ^ 0x8000_8000;
            w[1] = (w[1] & 0x8000_8000) | 0x3c00_3f80 | (w[1] & 0x0003_0003);
        }
        if t < 64 {
            w[t % 3] = (w[t % 3] & 0xffff_0000) | specials[t % 8] as u32;
        }
        input.extend(w);
    }
    let out = run_words(KERNEL, threads, &input, 3, Scheduling::Stack);
    let mut checked = 0;
    for t in 0..threads {
        let (a, b, c) = (input[3 * t], input[3 * t + 1], input[3 * t + 2]);
        let h = |v: u32, i: u32| (v >> (16 * i)) as u16;
        let got = [(out[3 * t] as u16, F16, 0), (h(out[3 * t], 1), BF16, 0), (h(out[3 * t + 1], 0), F16, 0), (h(out[3 * t + 1], 1), F16, 1), (h(out[3 * t + 2], 0), BF16, 0), (h(out[3 * t + 2], 1), BF16, 1)];
        for (i, (g, f, half)) in got.into_iter().enumerate() {
            if let Some(w) = reference(f, h(a, half), h(b, half), h(c, half)) {
                assert_eq!(g, w, "thread {t} result {i}: a={a:#010x} b={b:#010x} c={c:#010x}: got {g:#06x} want {w:#06x}");
                checked += 1;
            }
        }
    }
    assert!(checked > threads * 5, "only {checked} results checked");
}

#[test]
fn rounding_by_hand_is_right_on_worked_values() {
    // 1 * 1 + 2^-11 in f16: a tie between 1 and 1 + 2^-10, to even: 1.0.
    assert_eq!(reference(F16, 0x3c00, 0x3c00, 0x1000), Some(0x3c00));
    // 1 * 1 + 1.5 * 2^-11 (0x1200): above the tie, up to 1 + 2^-10.
    assert_eq!(reference(F16, 0x3c00, 0x3c00, 0x1200), Some(0x3c01));
    // -1 * 2 + 1 = -1: negative, clamped to 0; 65504 * 2 overflows to +inf.
    assert_eq!(reference(F16, 0xbc00, 0x4000, 0x3c00), Some(0));
    assert_eq!(reference(F16, 0x7bff, 0x4000, 0x0000), Some(0x7c00));
    // bf16: 1.5 * 1.5 + 0 = 2.25 exactly (0x4010).
    assert_eq!(reference(BF16, 0x3fc0, 0x3fc0, 0x0000), Some(0x4010));
    // inf * 0 is NaN: canonical.
    assert_eq!(reference(F16, 0x7c00, 0x0000, 0x3c00), Some(0x7fff));
}
