//! Tests of `wgmma`'s descriptor, addresses, fragments and arithmetic
//! against the manual's bit table, CuTe's canonical layouts evaluated
//! independently (a generic shape:stride evaluator and `Swizzle<B,M,S>` as
//! CuTe defines it on offsets), the fragment figures, and exact sums.

use super::*;

#[test]
fn descriptor_fields_follow_the_bit_table() {
    // start 0x1230 -> 0x123 at bit 0; LBO 0x80 -> 8 at bit 16; SBO 0x400
    // -> 0x40 at bit 32; base offset 5 at bit 49; swizzle 1 (128 B) at 62.
    let d: u64 = 0x123 | 8 << 16 | 0x40 << 32 | 5 << 49 | 1 << 62;
    let x = MatrixDesc::decode(d);
    assert_eq!(x, MatrixDesc { start: 0x1230, lbo: 0x80, sbo: 0x400, base_offset: 5, swizzle: Swizzle::B128 });
    assert_eq!(x.encode(), d);
    // Bits outside the fields (14-15, 30-31, 46-48, 52-61) are ignored.
    assert_eq!(MatrixDesc::decode(d | 3 << 14 | 3 << 30 | 7 << 46 | 0x3ff << 52), x);
    assert_eq!(MatrixDesc::decode(2 << 62).swizzle, Swizzle::B64);
    assert_eq!(MatrixDesc::decode(3 << 62).swizzle, Swizzle::B32);
    assert_eq!(MatrixDesc::decode(0).swizzle, Swizzle::None);
    // The widest fields: 14 bits of 16-byte units.
    assert_eq!(MatrixDesc::decode(0x3fff).start, 0x3fff0);
}

/// CuTe's `Swizzle<B, M, S>` on an offset: bits `[M+S, M+S+B)` XORed into
/// bits `[M, M+B)`.
fn cute_swizzle(b: u32, m: u32, s: u32, off: u64) -> u64 {
    let yyy = ((1u64 << b) - 1) << (m + s);
    off ^ ((off & yyy) >> s)
}

/// A flat layout: modes (shape, stride), the coordinate split
/// colexicographically (first mode fastest), as CuTe evaluates a layout.
fn eval(modes: &[(u64, u64)], mut idx: u64) -> u64 {
    let mut off = 0;
    for &(shape, stride) in modes {
        off += (idx % shape) * stride;
        idx /= shape;
    }
    off
}

/// The canonical GMMA layouts, in elements (T elements in 16 bytes):
/// K-major `((8,m),(T,2)) : ((S_row, SBO), (1, LBO or T))`, MN-major
/// `((T,x,m),(8,k)) : ((1,T,..),(..))`, as CUTLASS's `make_gmma_desc`
/// comment lists them; returns the byte address of (mn, k).
fn canonical(major: Major, sw: u32, size: u64, lbo: u64, sbo: u64, start: u64, mn: u64, k: u64) -> u64 {
    let t = 16 / size;
    let (lbo_e, sbo_e) = (lbo / size, sbo / size);
    let elems = match major {
        Major::K => {
            let row = [1, 2, 4, 8][sw as usize] * t;
            let kmodes: [(u64, u64); 2] = if sw == 0 { [(t, 1), (2, lbo_e)] } else { [(t, 1), (2, t)] };
            eval(&[(8, row), (16, sbo_e)], mn) + eval(&kmodes, k)
        }
        Major::MN => {
            let x = [1, 2, 4, 8][sw as usize];
            if sw == 0 {
                eval(&[(t, 1), (1, t), (32, sbo_e)], mn) + eval(&[(8, t), (4, lbo_e)], k)
            } else {
                eval(&[(t, 1), (x, t), (16, lbo_e)], mn) + eval(&[(8, x * t), (4, sbo_e)], k)
            }
        }
    };
    cute_swizzle(sw, 4, 3, start + elems * size)
}

#[test]
fn addresses_equal_cutes_canonical_layouts() {
    let sws = [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128];
    for (swi, &sw) in sws.iter().enumerate() {
        for size in [1u64, 2, 4] {
            for major in [Major::K, Major::MN] {
                // Offsets CUTLASS would pick for a 128 x 64 tile, and odd ones.
                for (lbo, sbo) in [(128u64, 256u64), (2048, 1024), (1024, 512), (4096, 8192)] {
                    for start in [0u64, 1024, 0x8000, 0x8000 + 32] {
                        let desc = MatrixDesc { start: start as u32, lbo: lbo as u32, sbo: sbo as u32, base_offset: 0, swizzle: sw };
                        let kmax = 32 / size;
                        for mn in 0..128u64 {
                            for k in 0..kmax {
                                let want = canonical(major, swi as u32, size, lbo, sbo, start, mn, k);
                                let got = desc.addr(major, size as u32, mn as u32, k as u32);
                                assert_eq!(got, want, "{major:?} {sw:?} size {size} lbo {lbo} sbo {sbo} start {start} ({mn},{k})");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn worked_examples_of_the_128b_k_major_layout() {
    // f16, 128-byte swizzle, tile at 0x400 (1024-aligned), SBO 1024: row r
    // of the first 8 is 128 bytes at 0x400 + 128 r, its 16-byte chunk c at
    // chunk c ^ r.
    let d = MatrixDesc { start: 0x400, lbo: 16, sbo: 1024, base_offset: 0, swizzle: Swizzle::B128 };
    assert_eq!(a_addr(&d, AType::F16, Major::K, 0, 0), 0x400);
    assert_eq!(a_addr(&d, AType::F16, Major::K, 1, 0), 0x400 + 128 + 16);
    assert_eq!(a_addr(&d, AType::F16, Major::K, 3, 9), 0x400 + 3 * 128 + (1 ^ 3) * 16 + 2);
    assert_eq!(a_addr(&d, AType::F16, Major::K, 9, 0), 0x400 + 1024 + 128 + 16);
    // The second K block of a 64-wide tile: start advanced by 32 bytes.
    let d2 = MatrixDesc { start: 0x420, ..d };
    assert_eq!(a_addr(&d2, AType::F16, Major::K, 2, 0), 0x400 + 2 * 128 + (2 ^ 2) * 16);
    // A start 128 bytes into the pattern with the manual's base offset
    // ((start >> 7) & 7 = 1) gives the absolute pattern; with base offset
    // 0 the pattern starts at the start's row.
    let d3 = MatrixDesc { start: 0x480, base_offset: 1, ..d };
    assert_eq!(a_addr(&d3, AType::F16, Major::K, 0, 0), 0x480 + 16);
    let d4 = MatrixDesc { start: 0x480, base_offset: 0, ..d };
    assert_eq!(a_addr(&d4, AType::F16, Major::K, 0, 0), 0x480);
    // No swizzle, K-major: core matrices of 128 contiguous bytes, LBO
    // apart in K and SBO apart in M.
    let n = MatrixDesc { start: 0, lbo: 128, sbo: 256, base_offset: 0, swizzle: Swizzle::None };
    assert_eq!(a_addr(&n, AType::F16, Major::K, 7, 8), 7 * 16 + 128);
    assert_eq!(a_addr(&n, AType::F16, Major::K, 8, 0), 256);
    // B MN-major, 128-byte swizzle, f16: 64 N-elements per 128-byte row, K
    // rows 128 bytes apart, 8-row groups SBO apart, 64-column blocks LBO.
    let b = MatrixDesc { start: 0, lbo: 8192, sbo: 1024, base_offset: 0, swizzle: Swizzle::B128 };
    assert_eq!(b_addr(&b, AType::F16, Major::MN, 0, 8), 16);
    assert_eq!(b_addr(&b, AType::F16, Major::MN, 1, 8), 128 + (1 ^ 1) * 16);
    assert_eq!(b_addr(&b, AType::F16, Major::MN, 9, 64), 8192 + 1024 + 128 + 16);
}

#[test]
fn d_fragment_covers_each_element_once_as_drawn() {
    for n in [8u32, 24, 256] {
        let mut seen = vec![0u8; (M * n) as usize];
        for tid in 0..128 {
            for i in 0..n / 2 {
                let (r, c) = d_pos(tid, i);
                assert!(r < M && c < n);
                seen[(r * n + c) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }
    // The figure of the D fragment: T0 holds (0,0) (0,1) (8,0) (8,1) then
    // (0,8)...; T5 of warp 1 (tid 37: g 1, t 1) starts at row 17, column 2.
    assert_eq!((0..6).map(|i| d_pos(0, i)).collect::<Vec<_>>(), [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9)]);
    assert_eq!(d_pos(37, 0), (17, 2));
    assert_eq!(d_pos(127, 3), (16 * 3 + 7 + 8, 7));
    assert_eq!(DType::F32.regs(256), 128);
    assert_eq!(DType::F16.regs(256), 64);
}

#[test]
fn a_fragments_cover_a_once_and_match_the_figures() {
    for a in [AType::F16, AType::Tf32, AType::E4m3] {
        let k = a.k();
        let mut seen = vec![0u8; (M * k) as usize];
        for tid in 0..128 {
            for i in 0..a.a_elems() {
                let (r, c) = a_pos(a, tid, i);
                seen[(r * k + c) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "{a:?}");
    }
    // 16-bit (m64nNk16): a0,a1 row g, cols 2t,2t+1; a2,a3 row g+8; a4..a7
    // the same 8 columns on.
    assert_eq!((0..8).map(|i| a_pos(AType::F16, 5, i)).collect::<Vec<_>>(), [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]);
    // tf32 (k8): a0 (g,t), a1 (g+8,t), a2 (g,t+4), a3 (g+8,t+4).
    assert_eq!((0..4).map(|i| a_pos(AType::Tf32, 32 + 6, i)).collect::<Vec<_>>(), [(17, 2), (25, 2), (17, 6), (25, 6)]);
    // 8-bit (k32): a0..a3 row g cols 4t..4t+3, a4..a7 row g+8, a8.. cols +16.
    assert_eq!(a_pos(AType::S8, 7, 0), (1, 12));
    assert_eq!(a_pos(AType::S8, 7, 5), (9, 13));
    assert_eq!(a_pos(AType::S8, 7, 11), (1, 31));
}

#[test]
fn shapes_and_types_are_the_manuals() {
    let sh = |n, d, a, b| Shape { n, d, a, b };
    use AType::*;
    assert!(check(sh(256, DType::F32, F16, F16), false, true, true).is_ok());
    assert!(check(sh(8, DType::F16, E4m3, E5m2), false, false, false).is_ok());
    assert!(check(sh(24, DType::S32, S8, U8), true, false, false).is_ok());
    assert!(check(sh(40, DType::S32, S8, S8), false, false, false).is_err());
    assert!(check(sh(48, DType::S32, S8, S8), false, false, false).is_ok());
    assert!(check(sh(40, DType::F32, Tf32, Tf32), false, false, false).is_ok());
    assert!(check(sh(264, DType::F32, F16, F16), false, false, false).is_err());
    assert!(check(sh(64, DType::F16, BF16, BF16), false, false, false).is_err());
    assert!(check(sh(64, DType::F32, Tf32, Tf32), false, true, false).is_err());
    assert!(check(sh(64, DType::F32, F16, F16), true, false, false).is_err());
    assert_eq!([F16, Tf32, E4m3, S8].map(AType::k), [16, 8, 32, 32]);
}

/// f16 bits of a small integer.
fn h(x: f64) -> u64 {
    half::f16::from_f64(x).to_bits() as u64
}

#[test]
fn f16_into_f32_is_the_exact_sum_rounded_once() {
    let n = 8;
    let args = MmaArgs { shape: Shape { n, d: DType::F32, a: AType::F16, b: AType::F16 }, scale_d: true, neg_a: false, neg_b: false, satfinite: false };
    let k = 16usize;
    let a: Vec<u64> = (0..64 * k).map(|i| h(((i * 7) % 11) as f64 - 5.0)).collect();
    let b: Vec<u64> = (0..k * n as usize).map(|i| h(((i * 3) % 5) as f64 - 2.0)).collect();
    let mut d: Vec<u64> = (0..64 * n as usize).map(|i| (i as f32 * 0.5).to_bits() as u64).collect();
    let d0 = d.clone();
    mma(&args, 64, &a, &b, &mut d).unwrap();
    for r in 0..64 {
        for c in 0..n as usize {
            let mut s = f32::from_bits(d0[r * 8 + c] as u32) as f64;
            for kk in 0..k {
                s += (((r * k + kk) * 7 % 11) as f64 - 5.0) * ((((kk * 8 + c) * 3) % 5) as f64 - 2.0);
            }
            assert_eq!(f32::from_bits(d[r * 8 + c] as u32) as f64, s);
        }
    }
    // scale-d = 0 drops D; imm-scale-a = -1 negates A.
    let mut e = d0.clone();
    mma(&MmaArgs { scale_d: false, neg_a: true, ..args }, 64, &a, &b, &mut e).unwrap();
    let mut f = vec![0u64; 64 * 8];
    mma(&MmaArgs { scale_d: false, ..args }, 64, &a, &b, &mut f).unwrap();
    for i in 0..64 * 8 {
        assert_eq!(f32::from_bits(e[i] as u32), -f32::from_bits(f[i] as u32) + 0.0);
    }
}

#[test]
fn one_rounding_not_sixteen() {
    // 1 + 16 products of 2^-24 each: rounding after every addition would
    // keep 1.0 (each 2^-24 is half an ulp of 1.0 and ties to even); the
    // exact sum 1 + 2^-20 is representable.
    let n = 8;
    let args = MmaArgs { shape: Shape { n, d: DType::F32, a: AType::F16, b: AType::F16 }, scale_d: true, neg_a: false, neg_b: false, satfinite: false };
    let a = vec![h(2f64.powi(-12)); 64 * 16];
    let b = vec![h(2f64.powi(-12)); 16 * 8];
    let mut d = vec![1f32.to_bits() as u64; 64 * 8];
    mma(&args, 64, &a, &b, &mut d).unwrap();
    assert_eq!(f32::from_bits(d[0] as u32), 1.0 + 2f32.powi(-20));
    // Into f16: 2048 + 16 * 0.0625 = 2049 rounds (ties to even) to 2048.
    let args16 = MmaArgs { shape: Shape { d: DType::F16, ..args.shape }, ..args };
    let a = vec![h(0.25); 64 * 16];
    let b = vec![h(0.25); 16 * 8];
    let mut d = vec![h(2048.0); 64 * 8];
    mma(&args16, 64, &a, &b, &mut d).unwrap();
    assert_eq!(d[5], h(2048.0));
    let mut d = vec![h(2050.0); 64 * 8];
    mma(&args16, 64, &a, &b, &mut d).unwrap();
    assert_eq!(d[5], h(2052.0)); // 2051 ties to even: 2052
}

#[test]
fn fp8_tf32_and_integer_forms() {
    // e4m3 0x38 = 1.0, 0xb8 = -1.0, 0x40 = 2.0; e5m2 0x3c = 1.0.
    let n = 8;
    let args = MmaArgs { shape: Shape { n, d: DType::F32, a: AType::E4m3, b: AType::E5m2 }, scale_d: false, neg_a: false, neg_b: false, satfinite: false };
    let a: Vec<u64> = (0..64 * 32).map(|i| if i % 2 == 0 { 0x40 } else { 0xb8 }).collect();
    let b = vec![0x3cu64; 32 * 8];
    let mut d = vec![0u64; 64 * 8];
    mma(&args, 64, &a, &b, &mut d).unwrap();
    assert_eq!(f32::from_bits(d[0] as u32), 16.0); // 16 * 2 - 16 * 1
    // tf32 ignores the low 13 bits: 1 + 2^-23 counts as 1.
    let args = MmaArgs { shape: Shape { n, d: DType::F32, a: AType::Tf32, b: AType::Tf32 }, ..args };
    let a = vec![(1f32 + 2f32.powi(-23)).to_bits() as u64; 64 * 8];
    let b = vec![1f32.to_bits() as u64; 8 * 8];
    let mut d = vec![0u64; 64 * 8];
    mma(&args, 64, &a, &b, &mut d).unwrap();
    assert_eq!(f32::from_bits(d[0] as u32), 8.0);
    // s8 x u8 into s32: -128 * 255 * 32 + D; with .satfinite clamped.
    let args = MmaArgs { shape: Shape { n, d: DType::S32, a: AType::S8, b: AType::U8 }, scale_d: true, neg_a: false, neg_b: false, satfinite: false };
    let a = vec![0x80u64; 64 * 32];
    let b = vec![0xffu64; 32 * 8];
    let mut d = vec![7u64; 64 * 8];
    mma(&args, 64, &a, &b, &mut d).unwrap();
    assert_eq!(d[0] as u32 as i32, -128 * 255 * 32 + 7);
    let mut d = vec![(i32::MIN as u32) as u64; 64 * 8];
    mma(&MmaArgs { satfinite: true, ..args }, 64, &a, &b, &mut d).unwrap();
    assert_eq!(d[0] as u32 as i32, i32::MIN);
    let mut d = vec![(i32::MIN as u32) as u64; 64 * 8];
    mma(&args, 64, &a, &b, &mut d).unwrap();
    assert_eq!(d[0] as u32 as i32, (i32::MIN as i64 - 128 * 255 * 32) as i32); // wraps
    assert!(mma(&args, 64, &a[..10], &b, &mut d).is_err());
}

/// A 64 x 16 f16 A (K-major, 128-byte swizzle) and a 16 x 16 f16 B
/// (MN-major, 128-byte swizzle) placed in shared memory by CuTe's
/// canonical layouts; the four warps' shares of D = C + A * B equal the
/// exact product, and A from registers gives the same as A from memory.
#[test]
fn four_warps_compute_the_whole_product() {
    let (n, k) = (16usize, 16usize);
    let av = |r: usize, c: usize| ((r * 3 + c * 5) % 7) as f64 - 3.0;
    let bv = |r: usize, c: usize| ((r * 2 + c) % 5) as f64 - 2.0;
    let cv = |r: usize, c: usize| r as f64 + c as f64 / 2.0;
    let mut sm = vec![0u8; 0x4000];
    for r in 0..64 {
        for c in 0..k {
            let at = canonical(Major::K, 3, 2, 16, 1024, 0, r as u64, c as u64) as usize;
            sm[at..at + 2].copy_from_slice(&(h(av(r, c)) as u16).to_le_bytes());
        }
    }
    for r in 0..k {
        for c in 0..n {
            let at = canonical(Major::MN, 3, 2, 8192, 1024, 0x2000, c as u64, r as u64) as usize;
            sm[at..at + 2].copy_from_slice(&(h(bv(r, c)) as u16).to_le_bytes());
        }
    }
    let adesc = MatrixDesc { start: 0, lbo: 16, sbo: 1024, base_offset: 0, swizzle: Swizzle::B128 };
    let bdesc = MatrixDesc { start: 0x2000, lbo: 8192, sbo: 1024, base_offset: 0, swizzle: Swizzle::B128 };
    // The descriptors survive their 64-bit encoding.
    let (adesc, bdesc) = (MatrixDesc::decode(adesc.encode()), MatrixDesc::decode(bdesc.encode()));
    let args = MmaArgs { shape: Shape { n: n as u32, d: DType::F32, a: AType::F16, b: AType::F16 }, scale_d: true, neg_a: false, neg_b: false, satfinite: false };
    let mut smem = |addr: u64, size: u32| -> Result<u64, String> {
        let a = addr as usize;
        sm.get(a..a + size as usize).map(|b| b.iter().rev().fold(0u64, |x, &y| x << 8 | y as u64)).ok_or_else(|| format!("{addr:#x} out of bounds"))
    };
    for w in 0..4u32 {
        let mut d = vec![[0u64; 32]; n / 2];
        for l in 0..32 {
            for i in 0..n as u32 / 2 {
                let (r, c) = d_pos(32 * w + l, i);
                d[i as usize][l as usize] = (cv(r as usize, c as usize) as f32).to_bits() as u64;
            }
        }
        let mut d2 = d.clone();
        warp_mma(&args, w, ASrc::Desc(adesc, Major::K), (bdesc, Major::MN), &mut d, &mut smem).unwrap();
        // A in registers, packed by the fragment layout.
        let mut regs = vec![[0u64; 32]; 4];
        for l in 0..32u32 {
            for i in 0..8u32 {
                let (r, c) = a_pos(AType::F16, 32 * w + l, i);
                regs[(i / 2) as usize][l as usize] |= h(av(r as usize, c as usize)) << (16 * (i % 2));
            }
        }
        warp_mma(&args, w, ASrc::Regs(&regs), (bdesc, Major::MN), &mut d2, &mut smem).unwrap();
        assert_eq!(d, d2);
        for l in 0..32u32 {
            for i in 0..n as u32 / 2 {
                let (r, c) = d_pos(32 * w + l, i);
                let want = cv(r as usize, c as usize) + (0..k).map(|kk| av(r as usize, kk) * bv(kk, c as usize)).sum::<f64>();
                assert_eq!(f32::from_bits(d[i as usize][l as usize] as u32) as f64, want, "warp {w} lane {l} d{i}");
            }
        }
    }
    // A bad address is the reader's error.
    let bad = MatrixDesc { start: 0x3ff00, ..bdesc };
    let mut d = vec![[0u64; 32]; n / 2];
    assert!(warp_mma(&args, 0, ASrc::Desc(adesc, Major::K), (bad, Major::MN), &mut d, &mut smem).unwrap_err().contains("out of bounds"));
}
