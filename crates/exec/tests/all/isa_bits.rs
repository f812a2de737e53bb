//! `lop3.b32`, `shf.{l,r}.{wrap,clamp}.b32`, `mul24` and `mad24`: the lane
//! functions against references written here from the PTX ISA's semantics
//! blocks (9.7.8.6, 9.7.8.7, 9.7.1.5, 9.7.1.6), and kernels using every form
//! run by the engine against the same references.

use proptest::prelude::*;
use ptxsim_sem::alu::bits::{lop3, mul24, shf};
use ptxsim_exec::{Device, LaunchConfig, Scheduling};

use crate::support::words::run_words;

/// The manual's `shf`: `n = clamp ? min(c, 32) : c & 0x1f`, then
/// `shf.l: d = (b << n) | (a >> (32 - n))`, `shf.r: d = (b << (32 - n)) | (a >> n)`
/// in 32-bit arithmetic where a shift by 32 gives 0.
fn shf_ref(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let shl = |x: u32, s: u32| if s >= 32 { 0 } else { x << s };
    let shr = |x: u32, s: u32| if s >= 32 { 0 } else { x >> s };
    if left {
        shl(b, n) | shr(a, 32 - n)
    } else {
        shl(b, 32 - n) | shr(a, n)
    }
}

/// The manual's `mul24`/`mad24`: `t = a * b` of the 24-bit values (two's
/// complement for `.s32`), `d = t<31..0>` or `t<47..16>`, plus `c`;
/// `.sat` clamps the signed sum.
fn mul24_ref(hi: bool, signed: bool, sat: bool, mad: bool, a: u32, b: u32, c: u32) -> u32 {
    let v = |x: u32| -> i128 {
        let low = (x & 0x00ff_ffff) as i128;
        if signed && low >= 1 << 23 {
            low - (1 << 24)
        } else {
            low
        }
    };
    let t = v(a) * v(b);
    let part = if hi { (t >> 16) & 0xffff_ffff } else { t & 0xffff_ffff } as u32;
    match (mad, sat) {
        (false, _) => part,
        (true, false) => part.wrapping_add(c),
        (true, true) => (part as i32 as i128 + c as i32 as i128).clamp(i32::MIN as i128, i32::MAX as i128) as i32 as u32,
    }
}

/// A few three-input boolean functions, and the table the manual derives
/// for each: `F(0xF0, 0xCC, 0xAA)`.
const FUNCS: [fn(u32, u32, u32) -> u32; 6] =
    [|a, b, c| a & b & c, |a, b, c| a | b | c, |a, b, c| a ^ b ^ c, |a, b, c| (a & b) | (!a & c), |a, b, c| !(a | b) & c, |a, _, _| !a];

proptest! {
    #[test]
    fn lop3_is_the_function_of_its_table(a: u32, b: u32, c: u32, k in 0usize..6) {
        let f = FUNCS[k];
        let lut = f(0xF0, 0xCC, 0xAA) as u8;
        prop_assert_eq!(lop3(lut, a as u64, b as u64, c as u64), f(a, b, c) as u64);
    }

    #[test]
    fn lop3_every_table_bit_by_bit(lut: u8, a: u32, b: u32, c: u32) {
        let d = lop3(lut, a as u64, b as u64, c as u64) as u32;
        for i in 0..32 {
            let idx = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
            prop_assert_eq!(d >> i & 1, (lut as u32) >> idx & 1);
        }
    }

    #[test]
    fn shf_matches_the_manual(left: bool, clamp: bool, a: u32, b: u32, c in prop_oneof![0u32..=64, any::<u32>()]) {
        prop_assert_eq!(shf(left, clamp, a as u64, b as u64, c as u64), shf_ref(left, clamp, a, b, c) as u64);
    }

    #[test]
    fn mul24_matches_the_manual(hi: bool, signed: bool, a: u32, b: u32, c: u32) {
        prop_assert_eq!(mul24(hi, signed, false, false, a as u64, b as u64, 0), mul24_ref(hi, signed, false, false, a, b, 0) as u64);
        prop_assert_eq!(mul24(hi, signed, false, true, a as u64, b as u64, c as u64), mul24_ref(hi, signed, false, true, a, b, c) as u64);
        if hi && signed {
            prop_assert_eq!(mul24(true, true, true, true, a as u64, b as u64, c as u64), mul24_ref(true, true, true, true, a, b, c) as u64);
        }
    }
}

#[test]
fn shf_wrap_with_equal_halves_rotates() {
    for n in 0..64u32 {
        let x = 0x9e37_79b9u32;
        assert_eq!(shf_ref(true, false, x, x, n), x.rotate_left(n & 31));
        assert_eq!(shf_ref(false, false, x, x, n), x.rotate_right(n & 31));
    }
}

const KERNEL: &str = r#"
.version 7.8
.target sm_70
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 12;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    ld.global.u32 %r3, [%rd4+4];
    ld.global.u32 %r4, [%rd4+8];
    lop3.b32 %r5, %r2, %r3, %r4, 0xE8;
    lop3.b32 %r6, %r2, %r3, %r4, 0x96;
    shf.l.wrap.b32 %r7, %r2, %r3, %r4;
    shf.r.wrap.b32 %r8, %r2, %r3, %r4;
    shf.l.clamp.b32 %r9, %r2, %r3, %r4;
    shf.r.clamp.b32 %r10, %r2, %r3, %r4;
    mul24.lo.u32 %r11, %r2, %r3;
    mul24.hi.u32 %r12, %r2, %r3;
    mul24.lo.s32 %r13, %r2, %r3;
    mul24.hi.s32 %r14, %r2, %r3;
    mad24.lo.u32 %r15, %r2, %r3, %r4;
    mad24.hi.u32 %r16, %r2, %r3, %r4;
    mad24.lo.s32 %r17, %r2, %r3, %r4;
    mad24.hi.s32 %r18, %r2, %r3, %r4;
    mad24.hi.sat.s32 %r19, %r2, %r3, %r4;
    mul.wide.u32 %rd3, %r1, 64;
    add.u64 %rd5, %rd1, %rd3;
    st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r8};
    st.global.v4.u32 [%rd5+16], {%r9, %r10, %r11, %r12};
    st.global.v4.u32 [%rd5+32], {%r13, %r14, %r15, %r16};
    st.global.v2.u32 [%rd5+48], {%r17, %r18};
    st.global.u32 [%rd5+56], %r19;
    ret;
}
"#;

#[test]
fn kernels_using_every_form_match_the_manual() {
    // Inputs: edge values and a deterministic spread (SplitMix64).
    let mut s = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    };
    let edges = [0u32, 1, 31, 32, 33, 0x7f_ffff, 0x80_0000, 0xff_ffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    let threads = 128usize;
    let mut input = Vec::new();
    for t in 0..threads {
        let pick = |k: usize, r: u32| if t < edges.len() * 3 && (t + k).is_multiple_of(3) { edges[(t + k) % edges.len()] } else { r };
        let (a, b, c) = (pick(0, next()), pick(1, next()), pick(2, next() % 70));
        input.extend([a, b, c]);
    }
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = run_words(KERNEL, threads, &input, 16, mode);
        for t in 0..threads {
            let (a, b, c) = (input[3 * t], input[3 * t + 1], input[3 * t + 2]);
            let want = [
                (a & b) | (a & c) | (b & c), // 0xE8: majority
                a ^ b ^ c,                   // 0x96
                shf_ref(true, false, a, b, c),
                shf_ref(false, false, a, b, c),
                shf_ref(true, true, a, b, c),
                shf_ref(false, true, a, b, c),
                mul24_ref(false, false, false, false, a, b, c),
                mul24_ref(true, false, false, false, a, b, c),
                mul24_ref(false, true, false, false, a, b, c),
                mul24_ref(true, true, false, false, a, b, c),
                mul24_ref(false, false, false, true, a, b, c),
                mul24_ref(true, false, false, true, a, b, c),
                mul24_ref(false, true, false, true, a, b, c),
                mul24_ref(true, true, false, true, a, b, c),
                mul24_ref(true, true, true, true, a, b, c),
            ];
            assert_eq!(&out[16 * t..16 * t + 15], &want, "thread {t} ({mode:?}): a={a:#x} b={b:#x} c={c:#x}");
        }
    }
}

#[test]
fn forms_outside_the_manual_are_unsupported_by_name() {
    let mut reached = 0;
    for (line, name) in [
        ("shf.l.b32 %r1, %r2, %r3, %r4;", "shf.l.b32"),
        ("mul24.lo.sat.s32 %r1, %r2, %r3;", "mul24.lo.sat.s32"),
        ("mad24.lo.sat.s32 %r1, %r2, %r3, %r4;", "mad24.lo.sat.s32"),
        ("lop3.xor.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;", "lop3.xor.b32"),
    ] {
        let src = format!(
            ".version 8.2\n.target sm_70\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<5>;\n.reg .pred %p<3>;\n{line}\nret;\n}}\n"
        );
        let mut dev = Device::new();
        // A form the checker rejects never reaches the engine: fine.
        let m = match dev.load(&src) {
            Ok(m) => m,
            Err(e) => {
                assert_eq!(e.kind, ptxsim_exec::TrapKind::LoadError, "{line}: {e}");
                continue;
            }
        };
        let e = dev.launch(&m, "k", &LaunchConfig::new(1u32, 32u32), &[]).expect_err("traps");
        assert_eq!(e.kind, ptxsim_exec::TrapKind::Unsupported, "{line}: {e}");
        assert!(e.message.contains(name), "{line}: {e}");
        reached += 1;
    }
    eprintln!("{reached} forms reached the engine");
}

/// `lop3.{and,or}.b32 d|p, a, b, c, immLut, q` (PTX 8.2): `d` is `lop3.b32`'s
/// and `p = (d != 0) BoolOp q`. The predicate rule is what ptxas 12.9 makes
/// of it (`ptxas -arch=sm_80`, `nvdisasm`):
///
/// ```text
/// lop3.or.b32  %r5|%p1, %r1, %r2, %r3, 0x96, %p2  ->  LOP3.LUT P1, R7, R0, R5, R4, 0x96, P0
/// lop3.and.b32 %r5|%p3, %r1, %r2, %r3, 0xE8, %p2  ->  LOP3.LUT.PAND P0, R9, R0, R5, R4, 0xe8, P0
/// ```
///
/// and the same module written as `lop3.b32 d; setp.ne.u32 p, d, 0;
/// or.pred p, p, q` compiles to `LOP3.LUT P1, R7, R0, R5, R4, 0x96, !PT`
/// followed by `ISETP.NE.U32.OR P1, PT, R6, 0x7, P1` (q's comparison folded
/// in with `.OR`), `.and.pred` to the `.AND` pair: one predicate operation
/// on `d != 0` and `q` (sm_90 gives the same instructions).
const LOP3_PRED: &str = r#"
.version 8.2
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
    .reg .b32 %r<12>;
    .reg .pred %q, %p<6>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
    setp.ne.u32 %q, %r5, 0;
    lop3.or.b32 %r6|%p0, %r2, %r3, %r4, 0x96, %q;
    lop3.and.b32 %r7|%p1, %r2, %r3, %r4, 0xE8, %q;
    lop3.or.b32 %r8|%p2, %r2, %r3, %r4, 0x80, !%q;
    lop3.and.b32 %r9|%p3, %r2, %r3, %r4, 0x0, %q;
    lop3.or.b32 _|%p4, %r2, %r3, %r4, 0xF0, %q;
    lop3.and.b32 %r2|%p5, %r2, %r3, %r4, 0x3C, !%q;
    selp.u32 %r10, 1, 0, %p0;
    selp.u32 %r11, 2, 0, %p1;
    or.b32 %r10, %r10, %r11;
    selp.u32 %r11, 4, 0, %p2;
    or.b32 %r10, %r10, %r11;
    selp.u32 %r11, 8, 0, %p3;
    or.b32 %r10, %r10, %r11;
    selp.u32 %r11, 16, 0, %p4;
    or.b32 %r10, %r10, %r11;
    selp.u32 %r11, 32, 0, %p5;
    or.b32 %r10, %r10, %r11;
    mul.wide.u32 %rd3, %r1, 32;
    add.u64 %rd5, %rd1, %rd3;
    st.global.v4.u32 [%rd5], {%r6, %r7, %r8, %r9};
    st.global.v2.u32 [%rd5+16], {%r2, %r10};
    ret;
}
"#;

#[test]
fn lop3_predicate_output_is_d_nonzero_combined_with_q() {
    let mut s = 0x0f1e_2d3c_4b5a_6978u64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    };
    let threads = 128usize;
    let mut input = Vec::new();
    for t in 0..threads {
        // Small values now and then so that every result is sometimes zero.
        let small = t % 3 == 0;
        let pick = |r: u32| if small { r & 3 } else { r };
        let (a, b, c) = (pick(next()), pick(next()), pick(next()));
        input.extend([a, b, c, (t as u32 >> 1) & 1]);
    }
    for mode in [Scheduling::Stack, Scheduling::Its] {
        let out = run_words(LOP3_PRED, threads, &input, 8, mode);
        for t in 0..threads {
            let (a, b, c, q) = (input[4 * t], input[4 * t + 1], input[4 * t + 2], input[4 * t + 3] != 0);
            let xor = a ^ b ^ c; // 0x96
            let maj = (a & b) | (a & c) | (b & c); // 0xE8
            let and3 = a & b & c; // 0x80
            let xab = a ^ b; // 0x3C
            let p = [(xor != 0) || q, (maj != 0) && q, (and3 != 0) || !q, false, (a != 0) || q, (xab != 0) && !q];
            let pb = p.iter().enumerate().map(|(i, &x)| (x as u32) << i).sum::<u32>();
            assert_eq!(&out[8 * t..8 * t + 6], &[xor, maj, and3, 0, xab, pb], "thread {t} ({mode:?}): a={a:#x} b={b:#x} c={c:#x} q={q}");
        }
    }
}
