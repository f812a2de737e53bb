//! Three-source `min`/`max{.NaN}{.abs}.f32 d, a, b, c` (PTX ISA 9.7.3.10,
//! 9.7.3.11, PTX 8.8, sm_100): each result is checked against the
//! manual's rules computed here on the bits: NaN operands are ignored
//! (the canonical NaN `0x7fffffff` when all are NaN), with `.NaN` any NaN
//! gives the canonical NaN, `-0.0` orders below `+0.0`, and `.abs` takes
//! the operands' absolute values first.
use crate::support::words::{run_words, words_kernel};
use ptxsim_exec::Scheduling;

const CANON: u32 = 0x7fff_ffff;

fn is_nan(x: u32) -> bool {
    x & 0x7f80_0000 == 0x7f80_0000 && x & 0x007f_ffff != 0
}

/// The value order of the manual: by value, `-0.0` before `+0.0`.
fn key(x: u32) -> (f32, u8) {
    (f32::from_bits(x), if x >> 31 == 1 { 0 } else { 1 })
}

fn reference(max: bool, nan: bool, abs: bool, xs: [u32; 3]) -> u32 {
    let xs: Vec<u32> = xs.iter().map(|&x| if abs { x & 0x7fff_ffff } else { x }).collect();
    let nums: Vec<u32> = xs.iter().copied().filter(|&x| !is_nan(x)).collect();
    if nums.is_empty() || nan && nums.len() < 3 {
        return CANON;
    }
    let cmp = |a: &&u32, b: &&u32| key(**a).partial_cmp(&key(**b)).unwrap();
    if max {
        *nums.iter().max_by(cmp).unwrap()
    } else {
        *nums.iter().min_by(cmp).unwrap()
    }
}

const TRIPLES: [[u32; 3]; 7] = [
    [0x4040_0000, 0xbf80_0000, 0x4000_0000], // 3, -1, 2
    [0x7fc0_0000, 0xbf80_0000, 0x4000_0000], // NaN, -1, 2
    [0x4040_0000, 0x7fc0_0000, 0xffc0_1234], // 3, NaN, -NaN
    [0x7fc0_0000, 0x7fa0_0000, 0xffc0_0000], // all NaN
    [0x0000_0000, 0x8000_0000, 0x0000_0000], // +0, -0, +0
    [0xc0a0_0000, 0x4080_0000, 0xc090_0000], // -5, 4, -4.5
    [0xff80_0000, 0x7f80_0000, 0x3f80_0000], // -inf, +inf, 1
];

#[test]
fn three_source_min_max_follow_the_manual() {
    let mut body = String::new();
    let mut want = Vec::new();
    let mut k = 0;
    for (t, xs) in TRIPLES.iter().enumerate() {
        for max in [false, true] {
            for nan in [false, true] {
                for abs in [false, true] {
                    let op = format!("{}{}{}.f32", if max { "max" } else { "min" }, if nan { ".NaN" } else { "" }, if abs { ".abs" } else { "" });
                    body += &format!(
                        "    mov.b32 %f1, 0x{:08x};\n    mov.b32 %f2, 0x{:08x};\n    mov.b32 %f3, 0x{:08x};\n    {op} %f4, %f1, %f2, %f3;\n    st.global.f32 [%rd5+{}], %f4;\n",
                        xs[0], xs[1], xs[2], 4 * k
                    );
                    want.push((t, op, reference(max, nan, abs, *xs)));
                    k += 1;
                }
            }
        }
    }
    let src = words_kernel("8.8", "sm_100a", 0, k, &format!("    .reg .f32 %f<5>;\n{body}"));
    let got = run_words(&src, 1, &[], k, Scheduling::Stack);
    for ((t, op, w), g) in want.iter().zip(&got) {
        assert_eq!(*g, *w, "{op} on triple {t} {:x?}: got {g:#010x}, want {w:#010x}", TRIPLES[*t]);
    }
}
