//! `prmt.b32` with a mode (`.f4e`, `.b4e`, `.rc8`, `.ecl`, `.ecr`,
//! `.rc16`; PTX ISA 9.7.9.7), run by the engine against the manual's table
//! copied here row by row: for each mode and selector `c[1:0]`, the source
//! byte (0..7 of `{b, a}`, `a` the low four) of `d.b3 d.b2 d.b1 d.b0`.

use ptxsim_exec::Scheduling;

use crate::support::words::{run_words, words_kernel};

const TABLE: [(&str, [[u32; 4]; 4]); 6] = [
    ("f4e", [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]]),
    ("b4e", [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]]),
    ("rc8", [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]),
    ("ecl", [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]]),
    ("ecr", [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]]),
    ("rc16", [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]]),
];

fn kernel() -> String {
    let mut body = String::new();
    for (i, (mode, _)) in TABLE.iter().enumerate() {
        body += &format!("    prmt.b32.{mode} %r4, %r1, %r2, %r3;\n    st.global.u32 [%rd5+{}], %r4;\n", 4 * i);
    }
    words_kernel("7.0", "sm_80", 3, TABLE.len(), &body)
}

#[test]
fn prmt_modes_follow_the_manuals_table() {
    // Every selector with high bits set too (only c[1:0] counts), bytes with
    // the sign bit set (no sign replication in these modes).
    let mut s = 0x1357_9bdf_0246_8aceu64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    };
    let threads = 64usize;
    let mut input = Vec::new();
    for t in 0..threads {
        let (a, b) = if t < 8 { (0x8382_8180, 0x8786_8584) } else { (next(), next()) };
        let c = if t < 4 { t as u32 } else { next() };
        input.extend([a, b, c]);
    }
    let out = run_words(&kernel(), threads, &input, 6, Scheduling::Stack);
    for t in 0..threads {
        let (a, b, c) = (input[3 * t], input[3 * t + 1], input[3 * t + 2]);
        let pool = (b as u64) << 32 | a as u64;
        let byte = |i: u32| ((pool >> (8 * i)) & 0xff) as u32;
        for (i, (mode, rows)) in TABLE.iter().enumerate() {
            let [b3, b2, b1, b0] = rows[(c & 3) as usize];
            let want = byte(b0) | byte(b1) << 8 | byte(b2) << 16 | byte(b3) << 24;
            assert_eq!(out[6 * t + i], want, "prmt.b32.{mode} thread {t}: a={a:#010x} b={b:#010x} c={c:#x}");
        }
    }
    // Worked by hand: f4e with c = 1 over bytes 0x80..0x87 is 0x84838281.
    assert_eq!(out[6], 0x8483_8281);
}
