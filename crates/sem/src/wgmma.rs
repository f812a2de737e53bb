//! The pure parts of `wgmma.mma_async.sync.aligned.m64nNkK` (PTX ISA
//! 9.7.15, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"):
//! the 64-bit shared-memory matrix descriptor, the map from an operand
//! element to its shared-memory byte address (every swizzle mode, K-major
//! and MN-major), the register fragments of D and of A (which of the
//! warpgroup's 128 threads holds which element in which register), and
//! the multiply-accumulate of one instruction. Nothing here reads memory
//! or registers: the engine gathers the operands with these maps and calls
//! [`mma`].
//!
//! **Descriptor** (9.7.15.5.1): bits 0-13 the start address, 16-29 the
//! leading-dimension byte offset (LBO), 32-45 the stride-dimension byte
//! offset (SBO), each encoded as `(x & 0x3ffff) >> 4`; bits 49-51 the base
//! offset; bits 62-63 the swizzle mode (0 none, 1 128 B, 2 64 B, 3 32 B).
//!
//! **Layout.** An operand is made of core matrices of 8 rows of 16 bytes.
//! One instruction's K extent is always 32 bytes (`k16` for 16-bit types,
//! `k8` for tf32, `k32` for 8-bit types). Writing `T = 16 / size` for the
//! elements in 16 bytes, `W` for the swizzle span and `mn` for the row of A
//! (M) or the column of B (N), the byte offset from the start address is
//! (the canonical layouts the manual draws, as CUTLASS's `make_gmma_desc`
//! states them):
//!
//! | major | swizzle | offset of (mn, k) |
//! |---|---|---|
//! | K  | none | `(mn%8)*16 + (mn/8)*SBO + (k%T)*size + (k/T)*LBO` |
//! | K  | W    | `(mn%8)*W + (mn/8)*SBO + k*size` (LBO unused) |
//! | MN | none | `(mn%T)*size + (mn/T)*SBO + (k%8)*16 + (k/8)*LBO` |
//! | MN | W    | `(mn%(W/size))*size + (mn/(W/size))*LBO + (k%8)*W + (k/8)*SBO` |
//!
//! and a swizzled address then has its 16-byte chunk index XORed with its
//! row phase ([`crate::swizzle`]). The phase is address bits 7.. of the
//! unswizzled address, corrected by the base offset: `(addr >> 7) -
//! ((start >> 7) & 7) + base_offset`. When the base offset is set as the
//! manual prescribes (`(start >> 7) & 7` for a start not aligned to the
//! pattern's repeat, 0 otherwise) this is the absolute-address pattern that
//! TMA writes; the manual does not say what other values do, and this is
//! the reading that makes the base offset name the start's row in the
//! pattern.
//!
//! **Fragments.** Warp `w = tid / 32` of the warpgroup owns rows `16w ..
//! 16w + 15` of D and of a register A; inside a warp, with `g = lane / 4`
//! and `t = lane % 4`, the layouts are those of `mma.m16n8kK` (9.7.14.5)
//! repeated over the N/8 column blocks of D: element `i` of a thread's D
//! fragment is at row `16w + g + 8*((i/2)%2)`, column `8*(i/4) + 2t + i%2`.
//! A thread holds N/2 elements of D (N/2 registers of `.f32`/`.s32`, N/4 of
//! `.f16x2`) and 4 registers of A.
//!
//! **Arithmetic**: `D = A * B + (scale-d ? D : 0)`, with A or B negated for
//! `imm-scale-a/b = -1`; every element of D is `alu::dot`'s exact sum of
//! exact products rounded once (to nearest even), as `mma.sync`'s; `.tf32`
//! ignores the low 13 bits of its 32-bit elements; the integer forms are
//! exact, then wrapped to 32 bits or, with `.satfinite`, clamped.
//!
//! Not modelled (each reported by name by [`check`]): `.b1` (`k256`, the
//! AND/XOR population count), and the sparse form (`wgmma.mma_async.sp`).

use crate::alu::dot::{self, dot, dot_int};
use crate::alu::fp8::F8;
use crate::alu::{FTy, Rounding};
use crate::swizzle::Swizzle;

/// M of every `wgmma` shape.
pub const M: u32 = 64;

/// The element type of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AType {
    F16,
    BF16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
}

/// The element type of D (the accumulator).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F16,
    F32,
    S32,
}

impl AType {
    /// The type named by a PTX type suffix (`".f16"` or `"f16"`).
    pub fn from_name(s: &str) -> Option<AType> {
        Some(match s.trim_start_matches('.') {
            "f16" => AType::F16,
            "bf16" => AType::BF16,
            "tf32" => AType::Tf32,
            "e4m3" => AType::E4m3,
            "e5m2" => AType::E5m2,
            "s8" => AType::S8,
            "u8" => AType::U8,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> u32 {
        match self {
            AType::F16 | AType::BF16 => 2,
            AType::Tf32 => 4,
            _ => 1,
        }
    }

    /// K of the instruction: always 32 bytes of elements.
    pub fn k(self) -> u32 {
        32 / self.size()
    }

    /// Whether the elements are integers.
    pub fn is_int(self) -> bool {
        matches!(self, AType::S8 | AType::U8)
    }

    /// The N the manual allows: multiples of 8 up to 256 for the float
    /// types; 8, 16, 24 and the multiples of 16 up to 256 for the integer
    /// ones.
    pub fn valid_n(self, n: u32) -> bool {
        if self.is_int() {
            matches!(n, 8 | 16 | 24) || (32..=256).contains(&n) && n % 16 == 0
        } else {
            (8..=256).contains(&n) && n % 8 == 0
        }
    }

    /// Elements of A one thread holds in registers (4 registers' worth).
    pub fn a_elems(self) -> u32 {
        16 / self.size()
    }

    /// The exact value of an element of a float type.
    fn fval(self, bits: u64) -> f64 {
        match self {
            AType::F16 => FTy::F16.to_f64(bits & 0xffff),
            AType::BF16 => FTy::BF16.to_f64(bits & 0xffff),
            AType::Tf32 => f32::from_bits(bits as u32 & !0x1fff) as f64,
            AType::E4m3 => F8::E4m3.to_f64(bits as u8),
            AType::E5m2 => F8::E5m2.to_f64(bits as u8),
            AType::S8 => bits as u8 as i8 as f64,
            AType::U8 => bits as u8 as f64,
        }
    }

    /// The value of an element of an integer type.
    fn ival(self, bits: u64) -> i64 {
        match self {
            AType::S8 => bits as u8 as i8 as i64,
            _ => bits as u8 as i64,
        }
    }
}

impl DType {
    /// The type named by a PTX type suffix.
    pub fn from_name(s: &str) -> Option<DType> {
        Some(match s.trim_start_matches('.') {
            "f16" => DType::F16,
            "f32" => DType::F32,
            "s32" => DType::S32,
            _ => return None,
        })
    }

    /// Bits per element.
    pub fn bits(self) -> u32 {
        match self {
            DType::F16 => 16,
            _ => 32,
        }
    }

    /// Registers of D per thread for a given N (`.f16` packs two per
    /// register).
    pub fn regs(self, n: u32) -> u32 {
        match self {
            DType::F16 => n / 4,
            _ => n / 2,
        }
    }
}

/// What one `wgmma.mma_async` computes, as its modifiers give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub n: u32,
    pub d: DType,
    pub a: AType,
    pub b: AType,
}

/// The type combinations and shapes of 9.7.15.2 (without `.b1`): `Err`
/// names what the manual does not allow.
pub fn check(s: Shape, satfinite: bool, trans_a: bool, trans_b: bool) -> Result<(), String> {
    use AType::*;
    let ok_types = match (s.d, s.a, s.b) {
        (DType::F16 | DType::F32, F16, F16) => true,
        (DType::F32, BF16, BF16) | (DType::F32, Tf32, Tf32) => true,
        (DType::F16 | DType::F32, E4m3 | E5m2, E4m3 | E5m2) => true,
        (DType::S32, S8 | U8, S8 | U8) => true,
        _ => false,
    };
    if !ok_types {
        return Err(format!("wgmma does not take D `{:?}` with A `{:?}` and B `{:?}`", s.d, s.a, s.b).to_lowercase());
    }
    if !s.a.valid_n(s.n) {
        return Err(format!("wgmma with `{:?}` inputs has no shape m64n{}k{}", s.a, s.n, s.a.k()).to_lowercase());
    }
    if satfinite && s.d != DType::S32 {
        return Err("`.satfinite` is only for the integer wgmma (D `.s32`)".into());
    }
    if (trans_a || trans_b) && !matches!(s.a, F16 | BF16) {
        return Err("imm-trans-a/b (MN-major operands) are only for `.f16` and `.bf16` wgmma".into());
    }
    Ok(())
}

/// Which dimension of an operand is contiguous in shared memory: K
/// (`imm-trans = 0`) or M/N (`imm-trans = 1`, "transposed").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Major {
    K,
    MN,
}

/// A decoded shared-memory matrix descriptor; addresses and offsets in
/// bytes (the encoding's 16-byte units multiplied out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixDesc {
    pub start: u32,
    pub lbo: u32,
    pub sbo: u32,
    pub base_offset: u32,
    pub swizzle: Swizzle,
}

impl MatrixDesc {
    /// Decodes a descriptor (bits outside the fields are ignored).
    pub fn decode(d: u64) -> MatrixDesc {
        let f14 = |at: u32| (((d >> at) & 0x3fff) << 4) as u32;
        MatrixDesc {
            start: f14(0),
            lbo: f14(16),
            sbo: f14(32),
            base_offset: ((d >> 49) & 7) as u32,
            swizzle: match d >> 62 {
                0 => Swizzle::None,
                1 => Swizzle::B128,
                2 => Swizzle::B64,
                _ => Swizzle::B32,
            },
        }
    }

    /// Encodes a descriptor (addresses and offsets taken modulo 2^18 and
    /// rounded down to 16 bytes, as the encoding keeps them).
    pub fn encode(&self) -> u64 {
        let f14 = |x: u32, at: u32| (((x & 0x3ffff) >> 4) as u64) << at;
        let sw = match self.swizzle {
            Swizzle::None => 0u64,
            Swizzle::B128 => 1,
            Swizzle::B64 => 2,
            Swizzle::B32 => 3,
        };
        f14(self.start, 0) | f14(self.lbo, 16) | f14(self.sbo, 32) | ((self.base_offset as u64 & 7) << 49) | sw << 62
    }

    /// The shared-memory byte address of element `(mn, k)` of an operand
    /// with `size`-byte elements laid out `major`.
    pub fn addr(&self, major: Major, size: u32, mn: u32, k: u32) -> u64 {
        let (size, mn, k) = (size as u64, mn as u64, k as u64);
        let (lbo, sbo) = (self.lbo as u64, self.sbo as u64);
        let t = 16 / size;
        let off = match (major, self.swizzle) {
            (Major::K, Swizzle::None) => (mn % 8) * 16 + (mn / 8) * sbo + (k % t) * size + (k / t) * lbo,
            (Major::K, sw) => (mn % 8) * sw.span() as u64 + (mn / 8) * sbo + k * size,
            (Major::MN, Swizzle::None) => (mn % t) * size + (mn / t) * sbo + (k % 8) * 16 + (k / 8) * lbo,
            (Major::MN, sw) => {
                let w = sw.span() as u64;
                let per = w / size;
                (mn % per) * size + (mn / per) * lbo + (k % 8) * w + (k / 8) * sbo
            }
        };
        let start = self.start as u64;
        let a = start + off;
        let phase = (a >> 7).wrapping_sub((start >> 7) & 7).wrapping_add(self.base_offset as u64);
        self.swizzle.apply_phase(a, phase)
    }
}

/// The shared-memory address of A's element (row `m`, column `k`).
pub fn a_addr(desc: &MatrixDesc, a: AType, major: Major, m: u32, k: u32) -> u64 {
    desc.addr(major, a.size(), m, k)
}

/// The shared-memory address of B's element (row `k`, column `n`).
pub fn b_addr(desc: &MatrixDesc, b: AType, major: Major, k: u32, n: u32) -> u64 {
    desc.addr(major, b.size(), n, k)
}

/// Row and column of element `i` (`0 .. N/2`) of thread `tid`'s (`0 ..
/// 128`) fragment of D. Element `i` sits in register `i` (`.f32`,
/// `.s32`) or in half `i % 2` of register `i / 2` (`.f16`).
pub fn d_pos(tid: u32, i: u32) -> (u32, u32) {
    let (w, l) = (tid / 32, tid % 32);
    let (g, t) = (l / 4, l % 4);
    (16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1))
}

/// Row and column of element `i` (`0 .. a.a_elems()`) of thread `tid`'s
/// fragment of a register A; element `i` sits in register `i /
/// (4 / size)`, at bits `(i % (4 / size)) * 8 * size`.
pub fn a_pos(a: AType, tid: u32, i: u32) -> (u32, u32) {
    let (w, l) = (tid / 32, tid % 32);
    let (g, t) = (l / 4, l % 4);
    let (r, c) = match a.size() {
        2 => (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
        4 => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        _ => (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
    };
    (16 * w + r, c)
}

/// The modifiers of one multiply-accumulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaArgs {
    pub shape: Shape,
    /// `scale-d`: false makes D = A * B.
    pub scale_d: bool,
    /// `imm-scale-a = -1`.
    pub neg_a: bool,
    /// `imm-scale-b = -1`.
    pub neg_b: bool,
    pub satfinite: bool,
}

/// The rows `0 .. rows` of one `wgmma.mma_async` (64 for the whole
/// instruction, 16 for one warp's share): `a` holds those rows of A (rows
/// x K element bits, row by row), `b` B's K x N, `d` those rows of D (rows
/// x N, read as the accumulator, written with the result). Short slices
/// are an `Err`.
pub fn mma(x: &MmaArgs, rows: usize, a: &[u64], b: &[u64], d: &mut [u64]) -> Result<(), String> {
    let s = x.shape;
    let (m, n, k) = (rows, s.n as usize, s.a.k() as usize);
    if a.len() < m * k || b.len() < k * n || d.len() < m * n {
        return Err(format!("wgmma m64n{n}k{k}: operand slices too short ({}, {}, {})", a.len(), b.len(), d.len()));
    }
    if s.a.is_int() {
        for r in 0..m {
            for c in 0..n {
                let acc = if x.scale_d { d[r * n + c] as u32 as i32 } else { 0 };
                let pairs = (0..k).map(|kk| (s.a.ival(a[r * k + kk]), s.b.ival(b[kk * n + c])));
                d[r * n + c] = dot_int(pairs, acc, x.satfinite) as u64;
            }
        }
        return Ok(());
    }
    let (fmt, cty) = match s.d {
        DType::F16 => (dot::F16, FTy::F16),
        _ => (dot::F32, FTy::F32),
    };
    let sa = if x.neg_a { -1.0 } else { 1.0 };
    let sb = if x.neg_b { -1.0 } else { 1.0 };
    let av: Vec<f64> = a[..m * k].iter().map(|&e| sa * s.a.fval(e)).collect();
    let bv: Vec<f64> = b[..k * n].iter().map(|&e| sb * s.b.fval(e)).collect();
    let mask = if s.d == DType::F16 { 0xffff } else { 0xffff_ffff };
    for r in 0..m {
        for c in 0..n {
            let acc = if x.scale_d { cty.to_f64(d[r * n + c] & mask) } else { 0.0 };
            let pairs = (0..k).map(|kk| (av[r * k + kk], bv[kk * n + c]));
            d[r * n + c] = dot(fmt, Rounding::Rn, pairs, acc);
        }
    }
    Ok(())
}

/// Where A comes from: the warp's 4 registers (each `[lane]`, the low 32
/// bits used) or a shared-memory descriptor.
#[derive(Clone, Copy, Debug)]
pub enum ASrc<'a> {
    Regs(&'a [[u64; 32]]),
    Desc(MatrixDesc, Major),
}

/// One warp's share of a `wgmma.mma_async`: warp `w` (0-3, its rank in the
/// warpgroup) computes rows `16w .. 16w + 15` of D, which depend only on
/// the same rows of A and on all of B, so the four warps need not meet.
/// `d` holds the warp's D registers (`shape.d.regs(n)` of them, each
/// `[lane]`), read as the accumulator and overwritten with the result;
/// `smem(addr, size)` reads `size` bytes (1, 2 or 4) of shared memory
/// little-endian, its `Err` (a bad address) returned as is.
pub fn warp_mma(x: &MmaArgs, w: u32, a: ASrc<'_>, b: (MatrixDesc, Major), d: &mut [[u64; 32]], smem: &mut dyn FnMut(u64, u32) -> Result<u64, String>) -> Result<(), String> {
    let s = x.shape;
    let (n, k) = (s.n as usize, s.a.k() as usize);
    let nregs = s.d.regs(s.n) as usize;
    if d.len() < nregs {
        return Err(format!("wgmma m64n{n}: {} D registers given, {nregs} needed", d.len()));
    }
    let mut av = vec![0u64; 16 * k];
    match a {
        ASrc::Regs(regs) => {
            if regs.len() < 4 {
                return Err(format!("wgmma: {} A registers given, 4 needed", regs.len()));
            }
            let per = 4 / s.a.size();
            let bits = 8 * s.a.size();
            let mask = (1u64 << bits) - 1;
            for l in 0..32u32 {
                for i in 0..s.a.a_elems() {
                    let (r, c) = a_pos(s.a, 32 * w + l, i);
                    let v = (regs[(i / per) as usize][l as usize] >> ((i % per) * bits)) & mask;
                    av[(r - 16 * w) as usize * k + c as usize] = v;
                }
            }
        }
        ASrc::Desc(desc, major) => {
            for r in 0..16 {
                for c in 0..k {
                    av[r * k + c] = smem(a_addr(&desc, s.a, major, 16 * w + r as u32, c as u32), s.a.size())?;
                }
            }
        }
    }
    let mut bv = vec![0u64; k * n];
    for kk in 0..k {
        for c in 0..n {
            bv[kk * n + c] = smem(b_addr(&b.0, s.b, b.1, kk as u32, c as u32), s.b.size())?;
        }
    }
    let f16 = s.d == DType::F16;
    let mut dv = vec![0u64; 16 * n];
    for l in 0..32u32 {
        for i in 0..s.n / 2 {
            let (r, c) = d_pos(32 * w + l, i);
            let v = if f16 { (d[(i / 2) as usize][l as usize] >> (16 * (i % 2))) & 0xffff } else { d[i as usize][l as usize] & 0xffff_ffff };
            dv[(r - 16 * w) as usize * n + c as usize] = v;
        }
    }
    mma(x, 16, &av, &bv, &mut dv)?;
    for reg in d.iter_mut().take(nregs) {
        *reg = [0; 32];
    }
    for l in 0..32u32 {
        for i in 0..s.n / 2 {
            let (r, c) = d_pos(32 * w + l, i);
            let v = dv[(r - 16 * w) as usize * n + c as usize];
            if f16 {
                d[(i / 2) as usize][l as usize] |= v << (16 * (i % 2));
            } else {
                d[i as usize][l as usize] = v;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "wgmma_tests.rs"]
mod tests;
