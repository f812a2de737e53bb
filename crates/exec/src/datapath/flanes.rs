//! Float lane kernels: the common float instructions (and the integer
//! comparisons) as straight loops over the 32 lanes of a warp, one kernel
//! per (operation, type, `.ftz`, `.sat`, rounding, operand shape), chosen
//! once per instruction by the `select_*` functions.
//!
//! The shape says which sources are immediates (bit i for source i); a
//! kernel takes the frame's register file with its operands
//! ([`KOps`]: the destination, then each source's register or immediate)
//! and the lane mask, and writes the destination in place ([`k32`],
//! [`k64`]); a comparison kernel returns the lanes where it holds
//! ([`mask2`]).
//!
//! Division, square root and reciprocal (`.rn`) and `rsqrt.approx` have
//! kernels too: the vector units compute them correctly rounded.
//!
//! Each kernel computes all 32 lanes with no data-dependent branch: `.ftz`
//! is a mask on the bits, NaN canonicalisation and `.sat` are selects, so
//! the compiler vectorises the loop. Forms without a kernel here (other
//! roundings, f16/bf16, `.sat` on f64, a special-register source) return
//! `None` and run through [`ptxsim_sem::alu`] lane by lane.
//!
//! Fused multiply-add is exact on every path. Where the CPU has FMA (x86-64
//! checked at run time, [`Path::detect`]) the kernels run in a copy compiled
//! with `avx2,fma`, where `mul_add` is the hardware instruction; elsewhere
//! `mul_add` is the exact software `fma` of the C library. The tests below
//! compare every kernel with the `alu`/`cvt` function it stands for, on both
//! paths, NaN payloads, subnormals and signed zeros included.

use ptxsim_sem::alu::{f64_result, CmpOp, FBinOp, FTy, FUnOp, Rounding, F32_CANON_NAN};
use crate::program::CvtTy;

/// The 32 lanes of a register.
pub(crate) use crate::program::L;
pub(crate) use crate::program::{KCmp, KOp, KOps};

/// Which copy of a kernel runs: the hardware-FMA one (only constructed
/// where the CPU has it) or the portable one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Path {
    hw: bool,
}

impl Path {
    /// The portable copy (software `fma`), on every CPU.
    #[cfg(test)]
    pub(crate) const SOFTWARE: Path = Path { hw: false };

    /// The hardware-FMA copy where this CPU has FMA and AVX2, else the
    /// portable one. (The check is a cached load in the standard library.)
    #[inline(always)]
    pub(crate) fn detect() -> Path {
        #[cfg(target_arch = "x86_64")]
        {
            Path { hw: std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Path { hw: false }
        }
    }

    /// Whether this is the hardware-FMA copy.
    pub(crate) fn is_hw(self) -> bool {
        self.hw
    }
}

/// Whether lane `l` is in mask `m`, written as the sign of `m` shifted so
/// that bit `l` lands in bit 63: with AVX2 a vector shift by a constant
/// per-lane amount, whose sign bits a masked store (`vpmaskmov`) uses.
#[inline(always)]
fn on(m: u32, l: usize) -> bool {
    (((m as u64) << (63 - l)) as i64) < 0
}

/// [`on`] for a 32-bit half of lane `l`.
#[inline(always)]
fn on32(m: u32, l: usize) -> bool {
    ((m << (31 - l)) as i32) < 0
}

/// Where the low half of a 64-bit lane lies in the register's `[u32; 64]`
/// view.
const LO: usize = if cfg!(target_endian = "little") { 0 } else { 1 };

/// An unused operand's lanes (an immediate's register entry).
static NONE: L = [0; 32];

/// Bit 32 + i of a kernel's `o[0]`: source i is a register and it is the
/// destination (set once, when the kernel is chosen: [`with_aliases`]).
const ALIAS_SHIFT: u32 = 32;

/// `o` with the destination's aliases recorded in `o[0]` above the
/// destination's index (bit 32 + i: source i, a register by shape `sh`, is
/// the destination), so a kernel knows how its destination overlaps its
/// sources without comparing them each time it runs.
pub(crate) fn with_aliases(mut o: KOps, sh: u8) -> KOps {
    let d = o[0] as u32 as u64;
    let mut bits = 0u64;
    for i in 0..3 {
        if sh >> i & 1 == 0 && o[i + 1] == d {
            bits |= 1 << i;
        }
    }
    o[0] = d | bits << ALIAS_SHIFT;
    o
}

/// The destination register of kernel operands `o`.
#[inline(always)]
fn dst(o: &KOps) -> usize {
    o[0] as u32 as usize
}

/// The register sources of shape `SH` that are the destination ([`with_aliases`]).
#[inline(always)]
fn aliases<const SH: u8>(o: &KOps) -> u8 {
    (o[0] >> ALIAS_SHIFT) as u8 & !SH & 7
}

/// Runs `body` on a kernel's destination register and its sources that
/// are registers (those whose shape bit is clear; an immediate's entry is
/// [`NONE`]), the register file split around the destination. A source
/// that is the destination reads a copy taken before, except the sources
/// of `IN` (bit i: source i, which the caller knows is the destination):
/// their entry is [`NONE`] and `body` reads them from the destination
/// itself, lane by lane before it writes the lane. Nothing runs when a
/// register is out of range (the decoder only makes registers that exist).
#[inline(always)]
fn split<const SH: u8, const IN: u8>(regs: &mut [L], o: &KOps, body: impl FnOnce(&mut L, [&L; 3])) {
    let d = dst(o);
    let reg = |i: usize| SH >> i & 1 == 0 && IN >> i & 1 == 0;
    // A copy only where a source read from a register is the destination.
    let old;
    let old: &L = if aliases::<SH>(o) & !IN != 0 {
        let Some(v) = regs.get(d) else {
            return;
        };
        old = *v;
        &old
    } else {
        &NONE
    };
    let Some((lo, rest)) = regs.split_at_mut_checked(d) else {
        return;
    };
    let Some((dst, hi)) = rest.split_first_mut() else {
        return;
    };
    let pick = |i: usize| -> Option<&L> {
        let r = o[i + 1] as usize;
        if !reg(i) {
            Some(&NONE)
        } else if r < d {
            lo.get(r)
        } else if r > d {
            hi.get(r - d - 1)
        } else {
            Some(old)
        }
    };
    let (Some(a), Some(b), Some(c)) = (pick(0), pick(1), pick(2)) else {
        return;
    };
    body(dst, [a, b, c])
}

/// Half `k` (of 64) of source `i`: of its register, or of the immediate
/// `o[i + 1]` (shape bit `i` set) in every lane.
#[inline(always)]
fn half<const SH: u8>(src: &[u32; 64], o: &KOps, i: usize, k: usize) -> u32 {
    if SH >> i & 1 != 0 {
        let v = o[i + 1];
        if k % 2 == LO {
            v as u32
        } else {
            (v >> 32) as u32
        }
    } else {
        src[k]
    }
}

/// Lane `l` of source `i`: of its register, or the immediate `o[i + 1]`.
#[inline(always)]
fn lane<const SH: u8>(src: &L, o: &KOps, i: usize, l: usize) -> u64 {
    if SH >> i & 1 != 0 {
        o[i + 1]
    } else {
        src[l]
    }
}

/// Runs an f32 operation `f` on the lanes of `m`: `regs[o[0]] = f(a, b,
/// c)`, each source a register or an immediate as the shape `SH` says
/// (bit i set: source i is the immediate `o[i + 1]`; unused sources are
/// immediates).
///
/// It works on the registers' `[u32; 64]` views: `f` runs on both halves
/// of every lane (so the loop is a plain 8-wide one, with no packing of
/// the low halves), and the high half of each lane is cleared after. `f`
/// sees only a 32-bit value (a lane's low half, or a high half whose
/// result is dropped) and must be a pure float function.
///
/// A destination that is one of the sources (`fma %f6, %f10, %f6, %f4`)
/// is read and written in the same loop, with no copy of the source: the
/// loop is elementwise, so each half is read before it is written. A
/// destination that is two or three sources reads a copy ([`split`]).
#[inline(always)]
pub(super) fn k32<const SH: u8>(regs: &mut [L], o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
    match aliases::<SH>(o) {
        1 => k32_in::<SH, 1>(regs, o, m, f),
        2 => k32_in::<SH, 2>(regs, o, m, f),
        4 => k32_in::<SH, 4>(regs, o, m, f),
        _ => k32_in::<SH, 0>(regs, o, m, f),
    }
}

/// [`k32`] with the sources of `IN` read from the destination in place.
#[inline(always)]
fn k32_in<const SH: u8, const IN: u8>(regs: &mut [L], o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
    split::<SH, IN>(regs, o, |d, [x, y, z]| k32_lanes::<SH, IN>(bytemuck::cast_mut(d), bytemuck::cast_ref(x), bytemuck::cast_ref(y), bytemuck::cast_ref(z), o, m, f))
}

/// The loops of [`k32`], on distinct registers (arguments, so the
/// compiler knows they do not overlap).
// The lane index also picks the mask bit and the immediate's half.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn k32_lanes<const SH: u8, const IN: u8>(d: &mut [u32; 64], x: &[u32; 64], y: &[u32; 64], z: &[u32; 64], o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
    // Half k of source i: of the destination as it was (sources of `IN`).
    let src = |s: &[u32; 64], i: usize, k: usize, old: u32| if IN >> i & 1 != 0 { old } else { half::<SH>(s, o, i, k) } as u64;
    // The full mask and the others in two loops: a select against the
    // mask in the one loop would let the compiler branch per lane.
    if m == u32::MAX {
        for k in 0..64 {
            let old = d[k];
            let v = f(src(x, 0, k, old), src(y, 1, k, old), src(z, 2, k, old)) as u32;
            d[k] = if k % 2 == LO { v } else { 0 };
        }
    } else {
        for k in 0..64 {
            let old = d[k];
            let v = f(src(x, 0, k, old), src(y, 1, k, old), src(z, 2, k, old)) as u32;
            let v = if k % 2 == LO { v } else { 0 };
            d[k] = if on32(m, k / 2) { v } else { old };
        }
    }
}

/// Runs a lane operation `f` on 64-bit lanes (f64, the f32 operations
/// that are cheaper packed, conversions), as [`k32`] does.
#[inline(always)]
pub(super) fn k64<const SH: u8>(regs: &mut [L], o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
    split::<SH, 0>(regs, o, |d, [x, y, z]| k64_lanes::<SH>(d, x, y, z, o, m, f))
}

/// The loops of [`k64`], on distinct registers.
// The lane index also picks the mask bit and the immediate's half.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn k64_lanes<const SH: u8>(d: &mut L, x: &L, y: &L, z: &L, o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
    if m == u32::MAX {
        for l in 0..32 {
            d[l] = f(lane::<SH>(x, o, 0, l), lane::<SH>(y, o, 1, l), lane::<SH>(z, o, 2, l));
        }
    } else {
        for l in 0..32 {
            let v = f(lane::<SH>(x, o, 0, l), lane::<SH>(y, o, 1, l), lane::<SH>(z, o, 2, l));
            d[l] = if on(m, l) { v } else { d[l] };
        }
    }
}

/// `f(a, b)` per lane as all ones or zero, `a` a register and `b` a
/// register or (shape bit 1) the immediate `o[2]`. A register out of range
/// reads as zeros (the decoder only makes registers that exist).
// The lane index also picks the mask bit and the immediate's half.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn truth<const SH: u8>(regs: &[L], o: &KOps, f: impl Fn(u64, u64) -> bool) -> L {
    let reg = |i: usize| regs.get(o[i + 1] as usize).unwrap_or(&NONE);
    let (x, y) = (reg(0), if SH & 2 != 0 { &NONE } else { reg(1) });
    let mut c = [0u64; 32];
    for l in 0..32 {
        c[l] = (f(x[l], lane::<SH>(y, o, 1, l)) as u64).wrapping_neg();
    }
    c
}

/// The lanes where `f(a, b)` holds ([`truth`]).
// The lane index also picks the mask bit and the immediate's half.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn mask2<const SH: u8>(regs: &[L], o: &KOps, f: impl Fn(u64, u64) -> bool) -> u32 {
    let c = truth::<SH>(regs, o, f);
    let mut t = 0u32;
    for l in 0..32 {
        t |= ((c[l] >> 63) as u32) << l;
    }
    t
}

/// The same loops compiled for CPUs with AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
pub(super) mod hw {
    use super::{KOps, L};

    #[target_feature(enable = "avx2,fma")]
    pub(crate) fn k32<const SH: u8>(regs: &mut [L], o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
        super::k32::<SH>(regs, o, m, f)
    }

    #[target_feature(enable = "avx2,fma")]
    pub(crate) fn k64<const SH: u8>(regs: &mut [L], o: &KOps, m: u32, f: impl Fn(u64, u64, u64) -> u64) {
        super::k64::<SH>(regs, o, m, f)
    }

    /// [`super::mask2`], the lanes' truths narrowed to bytes in lane
    /// order and gathered by one `vpmovmskb`. (A scalar gather of eight
    /// 4-bit `vmovmskpd` results was vectorised by the compiler into a
    /// serial chain of inserts, on the path from `setp` to its `bra`.)
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn mask2<const SH: u8>(regs: &[L], o: &KOps, f: impl Fn(u64, u64) -> bool) -> u32 {
        use std::arch::x86_64::*;
        let c = super::truth::<SH>(regs, o, f);
        let quad = |q: usize| _mm256_castsi256_ps(_mm256_set_epi64x(c[4 * q + 3] as i64, c[4 * q + 2] as i64, c[4 * q + 1] as i64, c[4 * q] as i64));
        // Lanes 8j..8j+8 as 32-bit truths in order: the low halves of two
        // quads ([0, 1, 4, 5 | 2, 3, 6, 7] in-lane), their middle pairs swapped.
        let eight = |j: usize| _mm256_permute4x64_epi64::<0xd8>(_mm256_castps_si256(_mm256_shuffle_ps::<0x88>(quad(2 * j), quad(2 * j + 1))));
        // Saturating packs keep 0 and -1 and work within 128-bit halves:
        // the dwords come out as lanes 0-3, 8-11, 16-19, 24-27, 4-7, 12-15,
        // 20-23, 28-31, put back in order by one dword permutation.
        let w0 = _mm256_packs_epi32(eight(0), eight(1));
        let w1 = _mm256_packs_epi32(eight(2), eight(3));
        let b = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(w0, w1), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_movemask_epi8(b) as u32
    }
}

/// Runs loop `$map` of shape `SH` ([`k32`], [`k64`], [`mask2`]) in the
/// copy kernel parameter `H` names: the `avx2,fma` one when `H` is true.
macro_rules! runk {
    ($map:ident, $($arg:expr),+) => {{
        #[cfg(target_arch = "x86_64")]
        if H {
            // SAFETY: a kernel with `H` true is only handed out by the
            // `select_*` functions for a `Path` with `hw` set, which only
            // `Path::detect` makes, after the CPU reported AVX2 and FMA.
            #[allow(unsafe_code)]
            return unsafe { hw::$map::<SH>($($arg),+) };
        }
        $map::<SH>($($arg),+)
    }};
}

/// The kernel `$f::<$g.., SH>` for the shape `$sh` of an operation with
/// 1, 2 or 3 sources (the unused ones count as immediates).
macro_rules! shapes {
    (1, $sh:expr, $f:ident $(, $g:tt)*) => {
        if $sh & 1 == 0 { $f::<$($g,)* 6> as KOp } else { $f::<$($g,)* 7> as KOp }
    };
    (2, $sh:expr, $f:ident $(, $g:tt)*) => {
        match $sh & 3 {
            0 => $f::<$($g,)* 4> as KOp,
            1 => $f::<$($g,)* 5>,
            2 => $f::<$($g,)* 6>,
            _ => $f::<$($g,)* 7>,
        }
    };
    (3, $sh:expr, $f:ident $(, $g:tt)*) => {
        match $sh & 7 {
            0 => $f::<$($g,)* 0> as KOp,
            1 => $f::<$($g,)* 1>,
            2 => $f::<$($g,)* 2>,
            3 => $f::<$($g,)* 3>,
            4 => $f::<$($g,)* 4>,
            5 => $f::<$($g,)* 5>,
            6 => $f::<$($g,)* 6>,
            _ => $f::<$($g,)* 7>,
        }
    };
}
pub(super) use {runk, shapes};

/// The comparison kernel `$f::<$g.., SH>` for shape `$sh` (`a` a
/// register, `b` a register or an immediate).
macro_rules! cshapes {
    ($sh:expr, $f:ident $(, $g:tt)*) => {
        if $sh & 2 == 0 { $f::<$($g,)* 4> as KCmp } else { $f::<$($g,)* 6> as KCmp }
    };
}

/// An f32 subnormal flushed to a zero of the same sign, on the bits,
/// without a branch (`alu::ftz32`).
#[inline(always)]
pub(crate) fn ftz_bits(b: u32) -> u32 {
    // All ones unless the exponent field is zero (zero or subnormal).
    let keep = (((b & 0x7f80_0000) != 0) as u32).wrapping_neg();
    b & (keep | 0x8000_0000)
}

#[inline(always)]
fn f32in<const Z: bool>(x: u64) -> f32 {
    let b = x as u32;
    f32::from_bits(if Z { ftz_bits(b) } else { b })
}

/// An f32 result: flushed with `.ftz`, clamped to [+0, 1] with `.sat` (NaN
/// and -0 to +0), NaN canonicalised (`alu`'s `f32_out`).
#[inline(always)]
fn out32<const Z: bool, const S: bool>(r: f32) -> u64 {
    let r = if Z { f32::from_bits(ftz_bits(r.to_bits())) } else { r };
    let r = if S {
        let r = if r.is_nan() { 0.0 } else { r };
        let r = if r <= 0.0 { 0.0 } else { r };
        if r > 1.0 {
            1.0
        } else {
            r
        }
    } else {
        r
    };
    (if r.is_nan() { F32_CANON_NAN } else { r.to_bits() }) as u64
}


fn add32<const Z: bool, const S: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, b, _| out32::<Z, S>(f32in::<Z>(a) + f32in::<Z>(b)))
}

fn sub32<const Z: bool, const S: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, b, _| out32::<Z, S>(f32in::<Z>(a) - f32in::<Z>(b)))
}

fn mul32<const Z: bool, const S: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, b, _| out32::<Z, S>(f32in::<Z>(a) * f32in::<Z>(b)))
}

fn fma32<const Z: bool, const S: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, b, c| out32::<Z, S>(f32in::<Z>(a).mul_add(f32in::<Z>(b), f32in::<Z>(c))))
}

/// `min`/`max.f32`: a NaN operand gives the other one, two NaNs the
/// canonical NaN, and -0 is below +0.
#[inline(always)]
fn minmax32<const Z: bool, const MAX: bool>(a: u64, b: u64) -> u64 {
    let (x, y) = (f32in::<Z>(a), f32in::<Z>(b));
    let tie = (x == y) & (x.is_sign_negative() != MAX);
    let wins = if MAX { x > y } else { x < y };
    let pick_x = wins | tie | y.is_nan();
    let r = if pick_x { x } else { y };
    if x.is_nan() & y.is_nan() {
        F32_CANON_NAN as u64
    } else {
        r.to_bits() as u64
    }
}

fn min32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, b, _| minmax32::<Z, false>(a, b))
}

fn max32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, b, _| minmax32::<Z, true>(a, b))
}

fn div32<const Z: bool, const S: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, b, _| out32::<Z, S>(f32in::<Z>(a) / f32in::<Z>(b)))
}

fn div64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, b, _| f64_result(f64::from_bits(a) / f64::from_bits(b), &[a, b]))
}

fn add64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, b, _| f64_result(f64::from_bits(a) + f64::from_bits(b), &[b, a]))
}

fn sub64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, b, _| f64_result(f64::from_bits(a) - f64::from_bits(b), &[b, a]))
}

fn mul64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, b, _| f64_result(f64::from_bits(a) * f64::from_bits(b), &[b, a]))
}

fn fma64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, b, c| f64_result(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)), &[b, c, a]))
}

/// Round to nearest even, the only rounding these kernels implement.
fn is_rn(rnd: Option<Rounding>) -> bool {
    matches!(rnd, None | Some(Rounding::Rn))
}

/// The kernel of `add/sub/mul/div/min/max` with these modifiers on path
/// `p` for operand shape `sh` (bit i: source i is an immediate), if there
/// is one.
pub(crate) fn select_fbin(p: Path, op: FBinOp, ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, sh: u8) -> Option<KOp> {
    if p.hw {
        fbin_on::<true>(op, ty, ftz, sat, rnd, sh)
    } else {
        fbin_on::<false>(op, ty, ftz, sat, rnd, sh)
    }
}

fn fbin_on<const H: bool>(op: FBinOp, ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, sh: u8) -> Option<KOp> {
    if !is_rn(rnd) {
        return None;
    }
    macro_rules! zs {
        ($f:ident) => {
            match (ftz, sat) {
                (false, false) => shapes!(2, sh, $f, false, false, H),
                (true, false) => shapes!(2, sh, $f, true, false, H),
                (false, true) => shapes!(2, sh, $f, false, true, H),
                (true, true) => shapes!(2, sh, $f, true, true, H),
            }
        };
    }
    Some(match (ty, op) {
        (FTy::F32, FBinOp::Add) => zs!(add32),
        (FTy::F32, FBinOp::Sub) => zs!(sub32),
        (FTy::F32, FBinOp::Mul) => zs!(mul32),
        (FTy::F32, FBinOp::Div) => zs!(div32),
        (FTy::F32, FBinOp::Min) if !sat => if ftz { shapes!(2, sh, min32, true, H) } else { shapes!(2, sh, min32, false, H) },
        (FTy::F32, FBinOp::Max) if !sat => if ftz { shapes!(2, sh, max32, true, H) } else { shapes!(2, sh, max32, false, H) },
        (FTy::F64, FBinOp::Add) if !sat => shapes!(2, sh, add64, H),
        (FTy::F64, FBinOp::Sub) if !sat => shapes!(2, sh, sub64, H),
        (FTy::F64, FBinOp::Mul) if !sat => shapes!(2, sh, mul64, H),
        (FTy::F64, FBinOp::Div) if !sat => shapes!(2, sh, div64, H),
        _ => return None,
    })
}

/// The kernel of `fma` with these modifiers on path `p` for operand shape
/// `sh`, if there is one.
pub(crate) fn select_fma(p: Path, ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, sh: u8) -> Option<KOp> {
    if p.hw {
        fma_on::<true>(ty, ftz, sat, rnd, sh)
    } else {
        fma_on::<false>(ty, ftz, sat, rnd, sh)
    }
}

fn fma_on<const H: bool>(ty: FTy, ftz: bool, sat: bool, rnd: Option<Rounding>, sh: u8) -> Option<KOp> {
    if !is_rn(rnd) {
        return None;
    }
    Some(match (ty, ftz, sat) {
        (FTy::F32, false, false) => shapes!(3, sh, fma32, false, false, H),
        (FTy::F32, true, false) => shapes!(3, sh, fma32, true, false, H),
        (FTy::F32, false, true) => shapes!(3, sh, fma32, false, true, H),
        (FTy::F32, true, true) => shapes!(3, sh, fma32, true, true, H),
        (FTy::F64, _, false) => shapes!(3, sh, fma64, H),
        _ => return None,
    })
}

/// (A NaN operand gives the canonical NaN, for `abs32` too, as on an H100:
/// `tests/gpu/nan_bits`, `special_f32`.)
fn neg32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, _, _| {
        let v = f32in::<Z>(a).to_bits();
        (if v & 0x7fff_ffff > 0x7f80_0000 { F32_CANON_NAN } else { v ^ 0x8000_0000 }) as u64
    })
}

fn abs32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k32, regs, o, m, |a, _, _| {
        let v = f32in::<Z>(a).to_bits() & 0x7fff_ffff;
        (if v > 0x7f80_0000 { F32_CANON_NAN } else { v }) as u64
    })
}

/// `sqrt.rn.f32`, `rcp.rn.f32` (correctly rounded in f32) and
/// `rsqrt.approx.f32` (1/sqrt in f64, rounded once to f32: well inside the
/// manual's error bound).
fn sqrt32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>(f32in::<Z>(a).sqrt()))
}

fn rcp32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>(1.0 / f32in::<Z>(a)))
}

fn rsqrt32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>((1.0 / (f32in::<Z>(a) as f64).sqrt()) as f32))
}

/// The approximate f32 functions, as [`ptxsim_sem::alu::fun`] computes them: the
/// operand widened to f64, the f64 function, one rounding to f32 (within
/// the manual's error bounds for `.approx`). A straight loop: the
/// per-lane call is the only work left.
/// (`sin`/`cos.approx` take a subnormal operand as a zero of its sign, as
/// an H100 does: tests/gpu/special_f32.)
fn sin32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>((f32in::<true>(a) as f64).sin() as f32))
}

fn cos32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>((f32in::<true>(a) as f64).cos() as f32))
}

fn lg2_32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>((f32in::<Z>(a) as f64).log2() as f32))
}

fn ex2_32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>((f32in::<Z>(a) as f64).exp2() as f32))
}

fn tanh32<const Z: bool, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| out32::<Z, false>((f32in::<Z>(a) as f64).tanh() as f32))
}

fn sqrt64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| f64_result(f64::from_bits(a).sqrt(), &[a]))
}

fn rcp64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| f64_result(1.0 / f64::from_bits(a), &[a]))
}

/// (A NaN operand is passed on quieted, its sign unchanged, as on an H100:
/// `tests/gpu/nan_bits`; the same for `abs64`.)
fn neg64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| if a & !(1 << 63) > 0x7ff0_0000_0000_0000 { a | 1 << 51 } else { a ^ (1 << 63) })
}

fn abs64<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| if a & !(1 << 63) > 0x7ff0_0000_0000_0000 { a | 1 << 51 } else { a & !(1 << 63) })
}

/// The kernel of a float unary operation (`neg`, `abs`, `sqrt`, `rcp`,
/// `rsqrt`, and on f32 `sin`, `cos`, `lg2`, `ex2`, `tanh`) on path `p`, if
/// there is one, for operand shape `sh`.
pub(crate) fn select_fun(p: Path, op: FUnOp, ty: FTy, ftz: bool, rnd: Option<Rounding>, sh: u8) -> Option<KOp> {
    if p.hw {
        fun_on::<true>(op, ty, ftz, rnd, sh)
    } else {
        fun_on::<false>(op, ty, ftz, rnd, sh)
    }
}

fn fun_on<const H: bool>(op: FUnOp, ty: FTy, ftz: bool, rnd: Option<Rounding>, sh: u8) -> Option<KOp> {
    if !is_rn(rnd) {
        return None;
    }
    macro_rules! z {
        ($f:ident) => {
            if ftz {
                shapes!(1, sh, $f, true, H)
            } else {
                shapes!(1, sh, $f, false, H)
            }
        };
    }
    Some(match (op, ty) {
        (FUnOp::Neg, FTy::F32) => z!(neg32),
        (FUnOp::Abs, FTy::F32) => z!(abs32),
        (FUnOp::Sqrt, FTy::F32) => z!(sqrt32),
        (FUnOp::Rcp, FTy::F32) => z!(rcp32),
        (FUnOp::Rsqrt, FTy::F32) => z!(rsqrt32),
        (FUnOp::Sin, FTy::F32) => z!(sin32),
        (FUnOp::Cos, FTy::F32) => z!(cos32),
        (FUnOp::Lg2, FTy::F32) => z!(lg2_32),
        (FUnOp::Ex2, FTy::F32) => z!(ex2_32),
        (FUnOp::Tanh, FTy::F32) => z!(tanh32),
        (FUnOp::Sqrt, FTy::F64) => shapes!(1, sh, sqrt64, H),
        (FUnOp::Rcp, FTy::F64) if !ftz => shapes!(1, sh, rcp64, H),
        (FUnOp::Neg, FTy::F64) => shapes!(1, sh, neg64, H),
        (FUnOp::Abs, FTy::F64) => shapes!(1, sh, abs64, H),
        _ => return None,
    })
}

/// The manual's float comparison table: ordered operators are false when
/// an operand is NaN, unordered ones (`...u`) true.
#[inline(always)]
fn fcmp<T: PartialOrd>(op: CmpOp, x: T, y: T, nan: bool) -> bool {
    match op {
        CmpOp::Eq => !nan & (x == y),
        CmpOp::Ne => !nan & (x != y),
        CmpOp::Lt => !nan & (x < y),
        CmpOp::Le => !nan & (x <= y),
        CmpOp::Gt => !nan & (x > y),
        CmpOp::Ge => !nan & (x >= y),
        CmpOp::Equ => nan | (x == y),
        CmpOp::Neu => nan | (x != y),
        CmpOp::Ltu => nan | (x < y),
        CmpOp::Leu => nan | (x <= y),
        CmpOp::Gtu => nan | (x > y),
        CmpOp::Geu => nan | (x >= y),
        CmpOp::Num => !nan,
        CmpOp::Nan => nan,
        _ => false,
    }
}

/// An f32 comparison kernel for operator `OP` (a `CmpOp` as `u8`).
fn cmp32<const Z: bool, const OP: u8, const H: bool, const SH: u8>(regs: &[L], o: &KOps) -> u32 {
    runk!(mask2, regs, o, |a, b| {
        let (u, v) = (f32in::<Z>(a), f32in::<Z>(b));
        fcmp(CMPS[OP as usize], u, v, u.is_nan() | v.is_nan())
    })
}

fn cmp64<const OP: u8, const H: bool, const SH: u8>(regs: &[L], o: &KOps) -> u32 {
    runk!(mask2, regs, o, |a, b| {
        let (u, v) = (f64::from_bits(a), f64::from_bits(b));
        fcmp(CMPS[OP as usize], u, v, u.is_nan() | v.is_nan())
    })
}

/// The float comparison operators, indexed by the kernels' `OP`.
const CMPS: [CmpOp; 14] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
    CmpOp::Equ,
    CmpOp::Neu,
    CmpOp::Ltu,
    CmpOp::Leu,
    CmpOp::Gtu,
    CmpOp::Geu,
    CmpOp::Num,
    CmpOp::Nan,
];

/// The kernel of `setp`/`set` on f32 or f64 with operator `cmp` on path
/// `p`, if there is one.
pub(crate) fn select_fcmp(p: Path, cmp: CmpOp, ty: FTy, ftz: bool, sh: u8) -> Option<KCmp> {
    if sh & 1 != 0 {
        return None;
    }
    if p.hw {
        fcmp_on::<true>(cmp, ty, ftz, sh)
    } else {
        fcmp_on::<false>(cmp, ty, ftz, sh)
    }
}

fn fcmp_on<const H: bool>(cmp: CmpOp, ty: FTy, ftz: bool, sh: u8) -> Option<KCmp> {
    let i = CMPS.iter().position(|c| *c == cmp)?;
    macro_rules! table {
        ($f:ident $(, $z:literal)?) => {
            [
                cshapes!(sh, $f $(, $z)?, 0, H), cshapes!(sh, $f $(, $z)?, 1, H), cshapes!(sh, $f $(, $z)?, 2, H),
                cshapes!(sh, $f $(, $z)?, 3, H), cshapes!(sh, $f $(, $z)?, 4, H), cshapes!(sh, $f $(, $z)?, 5, H),
                cshapes!(sh, $f $(, $z)?, 6, H), cshapes!(sh, $f $(, $z)?, 7, H), cshapes!(sh, $f $(, $z)?, 8, H),
                cshapes!(sh, $f $(, $z)?, 9, H), cshapes!(sh, $f $(, $z)?, 10, H), cshapes!(sh, $f $(, $z)?, 11, H),
                cshapes!(sh, $f $(, $z)?, 12, H), cshapes!(sh, $f $(, $z)?, 13, H),
            ]
        };
    }
    match (ty, ftz) {
        (FTy::F32, false) => Some(table!(cmp32, false)[i]),
        (FTy::F32, true) => Some(table!(cmp32, true)[i]),
        (FTy::F64, _) => Some(table!(cmp64)[i]),
        _ => None,
    }
}

/// `x op y` for the integer comparison operator `OP` (an index into
/// eq, ne, lt, le, gt, ge).
#[inline(always)]
fn ord<T: Ord, const OP: u8>(x: T, y: T) -> bool {
    match OP {
        0 => x == y,
        1 => x != y,
        2 => x < y,
        3 => x <= y,
        4 => x > y,
        _ => x >= y,
    }
}

/// An integer comparison kernel on `64 - W`-bit values: both operands
/// shifted left by `W` keep their order as unsigned numbers of that
/// width, and as `i64` their order as signed ones (`S`), whatever the bits
/// above the width hold.
fn icmp<const W: u32, const S: bool, const OP: u8, const H: bool, const SH: u8>(regs: &[L], o: &KOps) -> u32 {
    runk!(mask2, regs, o, |a, b| {
        let (u, v) = (a << W, b << W);
        if S {
            ord::<i64, OP>(u as i64, v as i64)
        } else {
            ord::<u64, OP>(u, v)
        }
    })
}

/// The kernel of an integer `setp`/`set` with operator `cmp` on type `ty`
/// on path `p`, if there is one (the ordered operators on 8- to 64-bit
/// types; `lo/ls/hi/hs` are the unsigned `lt/le/gt/ge`).
pub(crate) fn select_icmp(p: Path, cmp: CmpOp, ty: ptxsim_sem::alu::ITy, sh: u8) -> Option<KCmp> {
    if sh & 1 != 0 {
        return None;
    }
    if p.hw {
        icmp_on::<true>(cmp, ty, sh)
    } else {
        icmp_on::<false>(cmp, ty, sh)
    }
}

fn icmp_on<const H: bool>(cmp: CmpOp, ty: ptxsim_sem::alu::ITy, sh: u8) -> Option<KCmp> {
    let (op, signed) = match cmp {
        CmpOp::Eq => (0, false),
        CmpOp::Ne => (1, false),
        CmpOp::Lt => (2, ty.signed),
        CmpOp::Le => (3, ty.signed),
        CmpOp::Gt => (4, ty.signed),
        CmpOp::Ge => (5, ty.signed),
        CmpOp::Lo => (2, false),
        CmpOp::Ls => (3, false),
        CmpOp::Hi => (4, false),
        CmpOp::Hs => (5, false),
        _ => return None,
    };
    macro_rules! ops {
        ($sh:literal, $s:literal) => {
            [cshapes!(sh, icmp, $sh, $s, 0, H), cshapes!(sh, icmp, $sh, $s, 1, H), cshapes!(sh, icmp, $sh, $s, 2, H), cshapes!(sh, icmp, $sh, $s, 3, H), cshapes!(sh, icmp, $sh, $s, 4, H), cshapes!(sh, icmp, $sh, $s, 5, H)]
        };
    }
    let table = match (ty.bits, signed) {
        (8, false) => ops!(56, false),
        (8, true) => ops!(56, true),
        (16, false) => ops!(48, false),
        (16, true) => ops!(48, true),
        (32, false) => ops!(32, false),
        (32, true) => ops!(32, true),
        (64, false) => ops!(0, false),
        (64, true) => ops!(0, true),
        _ => return None,
    };
    Some(table[op])
}

fn s32_to_f32<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| (a as u32 as i32 as f32).to_bits() as u64)
}

fn u32_to_f32<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| (a as u32 as f32).to_bits() as u64)
}

/// f32 to a 32-bit integer with an integer rounding `R` (0 `.rzi`, 1 `.rni`,
/// 2 `.rmi`, 3 `.rpi`): Rust's `as` saturates and gives 0 for NaN, as PTX.
#[inline(always)]
fn f32_to_i<const Z: bool, const R: u8>(a: u64, signed: bool) -> u64 {
    let x = f32in::<Z>(a);
    let r = match R {
        0 => x.trunc(),
        1 => x.round_ties_even(),
        2 => x.floor(),
        _ => x.ceil(),
    };
    if signed {
        r as i32 as u32 as u64
    } else {
        r as u32 as u64
    }
}

fn f32_to_s32<const Z: bool, const R: u8, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| f32_to_i::<Z, R>(a, true))
}

fn f32_to_u32<const Z: bool, const R: u8, const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
    runk!(k64, regs, o, m, |a, _, _| f32_to_i::<Z, R>(a, false))
}

/// The kernel of `cvt` between f32 and 32-bit integers on path `p`, if
/// there is one, for operand shape `sh`.
pub(crate) fn select_cvt(p: Path, dst: CvtTy, src: CvtTy, rnd: Option<Rounding>, sat: bool, ftz: bool, sh: u8) -> Option<KOp> {
    if p.hw {
        cvt_on::<true>(dst, src, rnd, sat, ftz, sh)
    } else {
        cvt_on::<false>(dst, src, rnd, sat, ftz, sh)
    }
}

fn cvt_on<const H: bool>(dst: CvtTy, src: CvtTy, rnd: Option<Rounding>, sat: bool, ftz: bool, sh: u8) -> Option<KOp> {
    match (dst, src) {
        // Integer to f32 rounds to nearest; `.ftz` cannot apply (no integer
        // converts to a subnormal), `.sat` can (values above 1).
        (CvtTy::F(FTy::F32), CvtTy::I(s)) if s.bits == 32 && is_rn(rnd) && !sat => Some(if s.signed { shapes!(1, sh, s32_to_f32, H) } else { shapes!(1, sh, u32_to_f32, H) }),
        // f32 to integer saturates whatever `.sat` says.
        (CvtTy::I(d), CvtTy::F(FTy::F32)) if d.bits == 32 => {
            let r = match rnd {
                None | Some(Rounding::Rzi) => 0,
                Some(Rounding::Rni) => 1,
                Some(Rounding::Rmi) => 2,
                Some(Rounding::Rpi) => 3,
                _ => return None,
            };
            Some(cvt_table::<H>(d.signed, sh)[r + 4 * ftz as usize])
        }
        _ => None,
    }
}

/// f32 → 32-bit integer kernels of shape `sh`, without and with `.ftz`,
/// by rounding.
fn cvt_table<const H: bool>(signed: bool, sh: u8) -> [KOp; 8] {
    macro_rules! row {
        ($f:ident) => {
            [
                shapes!(1, sh, $f, false, 0, H),
                shapes!(1, sh, $f, false, 1, H),
                shapes!(1, sh, $f, false, 2, H),
                shapes!(1, sh, $f, false, 3, H),
                shapes!(1, sh, $f, true, 0, H),
                shapes!(1, sh, $f, true, 1, H),
                shapes!(1, sh, $f, true, 2, H),
                shapes!(1, sh, $f, true, 3, H),
            ]
        };
    }
    if signed {
        row!(f32_to_s32)
    } else {
        row!(f32_to_u32)
    }
}

#[cfg(test)]
mod tests {
    //! Every kernel against the `alu` / `cvt` function it stands for, lane
    //! by lane, on the portable path and (where the CPU has FMA) the
    //! hardware one: random bits, NaNs with payloads of both signs,
    //! subnormals, signed zeros, infinities and values around 1.
    use super::*;
    use ptxsim_sem::alu;
    use ptxsim_sem::alu::ITy;
    use proptest::prelude::*;

    fn f32bits() -> impl Strategy<Value = u64> {
        prop_oneof![
            any::<u32>().prop_map(|b| b as u64),
            // NaNs with any payload and sign, infinities.
            (any::<bool>(), 0u32..0x80_0000).prop_map(|(s, m)| ((s as u32) << 31 | 0x7f80_0000 | m) as u64),
            // Subnormals and zeros.
            (any::<bool>(), 0u32..0x80_0000).prop_map(|(s, m)| ((s as u32) << 31 | m) as u64),
            // Smallest normals, around 1, integers near the i32/u32 limits.
            prop_oneof![Just(0x0080_0000u32), Just(0x8080_0000), Just(0x3f80_0000), Just(0xbf80_0000), Just(0x3f7f_ffff), Just(0x4f00_0000), Just(0xcf00_0000), Just(0x4f80_0000), Just(0x3f00_0000), Just(0x3fc0_0000), Just(0x4020_0000)].prop_map(|b| b as u64),
            (-3.0e9f32..3.0e9).prop_map(|f| f.to_bits() as u64),
            (-4.0f32..4.0).prop_map(|f| f.to_bits() as u64),
            // Bits above the low 32 that the f32 operations ignore (the
            // kernels compute on them too, then clear them).
            (any::<u32>(), -4.0f32..4.0).prop_map(|(h, f)| (h as u64) << 32 | f.to_bits() as u64),
            (any::<u64>()),
        ]
    }

    fn f64bits() -> impl Strategy<Value = u64> {
        prop_oneof![
            any::<u64>(),
            (any::<bool>(), 0u64..1 << 52).prop_map(|(s, m)| (s as u64) << 63 | 0x7ff0_0000_0000_0000 | m),
            (any::<bool>(), 0u64..1 << 52).prop_map(|(s, m)| (s as u64) << 63 | m),
            (-4.0f64..4.0).prop_map(f64::to_bits),
        ]
    }

    fn lanes(s: impl Strategy<Value = u64>) -> impl Strategy<Value = L> {
        proptest::array::uniform32(s)
    }

    /// Masks a kernel runs under in the tests besides the full one: none,
    /// single lanes, bytes, and irregular patterns.
    const MASKS: [u32; 6] = [0, 1, 0x8000_0000, 0x00ff_ff00, 0x5a5a_c3f0, 0xffff_fffe];

    /// What a kernel leaves in its destination register before it runs:
    /// lane `l` holds a value no kernel computes here.
    fn old() -> L {
        std::array::from_fn(|l| 0xdead_0000_0000_0000 | l as u64)
    }

    /// Runs the kernels `sel` chooses for every operand shape on sources
    /// `srcs` (one to three), and returns the all-register, full-mask
    /// results. On the way it checks that under each mask of [`MASKS`]
    /// the set lanes get the same results and the others keep their
    /// values, that a destination that is also the first source gives the
    /// same results, and that a shape with immediates gives, for the
    /// immediate value of lane 0, the results of the all-register shape on
    /// a register holding that value in every lane.
    fn call(sel: impl Fn(u8) -> Option<KOp>, srcs: &[&L]) -> Option<L> {
        let n = srcs.len();
        let unused = (0b111u8 << n) & 0b111;
        sel(unused)?;
        // `alias` bit i: source i is the destination register (holding
        // the value of the lowest such source).
        let run = |sh: u8, vals: &[L], m: u32, alias: u8| -> L {
            let k = sel(sh | unused).expect("every shape has a kernel");
            // Register 0 is the destination, 1.. the sources.
            let mut regs = vec![old()];
            regs.extend(vals.iter().copied());
            let mut o = [0u64; 4];
            for i in 0..n {
                o[i + 1] = if sh >> i & 1 != 0 { vals[i][0] } else { (i + 1) as u64 };
            }
            if let Some(first) = (0..n).find(|i| alias >> i & 1 != 0) {
                regs[0] = vals[first];
                for i in (0..n).filter(|i| alias >> i & 1 != 0) {
                    o[i + 1] = 0;
                }
            }
            k(&mut regs, &with_aliases(o, sh | unused), m);
            regs[0]
        };
        let vals: Vec<L> = srcs.iter().map(|s| **s).collect();
        let full = run(0, &vals, u32::MAX, 0);
        for m in MASKS.into_iter().chain([u32::MAX]) {
            let got = run(0, &vals, m, 0);
            for l in 0..32 {
                let on = m >> l & 1 == 1;
                assert_eq!(got[l], if on { full[l] } else { old()[l] }, "mask {m:#x} lane {l}");
            }
            // The destination as each set of sources (read in place when it
            // is one source, from a copy when more): the results of
            // distinct registers holding the same values.
            for alias in 1..(1u8 << n) {
                let first = alias.trailing_zeros() as usize;
                let same: Vec<L> = vals.iter().enumerate().map(|(i, v)| if alias >> i & 1 != 0 { vals[first] } else { *v }).collect();
                let want = run(0, &same, u32::MAX, 0);
                let aliased = run(0, &vals, m, alias);
                for l in 0..32 {
                    let on = m >> l & 1 == 1;
                    assert_eq!(aliased[l], if on { want[l] } else { vals[first][l] }, "destination as sources {alias:#b}, mask {m:#x} lane {l}");
                }
            }
        }
        for sh in 1..(1u8 << n) {
            let splat: Vec<L> = vals.iter().enumerate().map(|(i, v)| if sh >> i & 1 != 0 { [v[0]; 32] } else { *v }).collect();
            assert_eq!(run(sh, &splat, u32::MAX, 0), run(0, &splat, u32::MAX, 0), "shape {sh:#b}");
            // A destination that is a register source of an immediate shape.
            for alias in (0..n).map(|i| 1u8 << i).filter(|a| a & sh == 0) {
                let first = alias.trailing_zeros() as usize;
                let aliased = run(sh, &splat, 0x5a5a_c3f0, alias);
                let want = run(sh, &splat, u32::MAX, 0);
                for l in 0..32 {
                    let on = 0x5a5a_c3f0u32 >> l & 1 == 1;
                    assert_eq!(aliased[l], if on { want[l] } else { splat[first][l] }, "shape {sh:#b}, destination as source {first}, lane {l}");
                }
            }
        }
        Some(full)
    }

    /// The lanes where the comparison kernel `sel` chooses for two
    /// registers holds on `x` and `y`; checks on the way that the shape
    /// with an immediate `b` gives, for lane 0's value of `y`, the result
    /// of two registers with that value in every lane of `b`.
    fn callc(sel: impl Fn(u8) -> Option<KCmp>, x: &L, y: &L) -> Option<u32> {
        let k = sel(0b100)?;
        let regs = [*x, *y, [y[0]; 32]];
        let t = k(&regs, &[0, 0, 1, 0]);
        let imm = sel(0b110).expect("a kernel for an immediate b")(&regs, &[0, 0, y[0], 0]);
        assert_eq!(imm, k(&regs, &[0, 0, 2, 0]), "immediate b");
        Some(t)
    }

    /// The portable path, and the hardware one where this CPU has it.
    fn paths() -> Vec<Path> {
        let d = Path::detect();
        if d.is_hw() {
            vec![Path::SOFTWARE, d]
        } else {
            vec![Path::SOFTWARE]
        }
    }

    const BINS: [FBinOp; 6] = [FBinOp::Add, FBinOp::Sub, FBinOp::Mul, FBinOp::Div, FBinOp::Min, FBinOp::Max];
    const UNS: [FUnOp; 10] = [FUnOp::Neg, FUnOp::Abs, FUnOp::Sqrt, FUnOp::Rcp, FUnOp::Rsqrt, FUnOp::Sin, FUnOp::Cos, FUnOp::Lg2, FUnOp::Ex2, FUnOp::Tanh];

    fn check_bin(ty: FTy, x: &L, y: &L) -> Result<(), TestCaseError> {
        for op in BINS {
            for (ftz, sat) in [(false, false), (true, false), (false, true), (true, true)] {
                for rnd in [None, Some(Rounding::Rn)] {
                    for p in paths() {
                        let Some(r) = call(|sh| select_fbin(p, op, ty, ftz, sat, rnd, sh), &[x, y]) else { continue };
                        for l in 0..32 {
                            let want = alu::fbin(op, ty, ftz, sat, x[l], y[l]);
                            prop_assert_eq!(r[l], want, "{:?} {:?} ftz={} sat={} {:?} {:#x} {:#x}", op, ty, ftz, sat, p, x[l], y[l]);
                        }
                    }
                }
            }
        }
        for cmp in CMPS {
            for ftz in [false, true] {
                for p in paths() {
                    let Some(t) = callc(|sh| select_fcmp(p, cmp, ty, ftz, sh), x, y) else { continue };
                    for l in 0..32 {
                        prop_assert_eq!(t >> l & 1 == 1, alu::fcmp(cmp, ty, ftz, x[l], y[l]), "{:?} {:?} ftz={} {:#x} {:#x}", cmp, ty, ftz, x[l], y[l]);
                    }
                }
            }
        }
        for op in UNS {
            for ftz in [false, true] {
                for rnd in [None, Some(Rounding::Rn)] {
                    for p in paths() {
                        let Some(r) = call(|sh| select_fun(p, op, ty, ftz, rnd, sh), &[x]) else { continue };
                        for l in 0..32 {
                            prop_assert_eq!(r[l], alu::fun_rnd(op, ty, ftz, rnd, x[l]), "{:?} {:?} ftz={} {:#x}", op, ty, ftz, x[l]);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn check_fma(ty: FTy, x: &L, y: &L, z: &L) -> Result<(), TestCaseError> {
        for (ftz, sat) in [(false, false), (true, false), (false, true), (true, true)] {
            for p in paths() {
                let Some(r) = call(|sh| select_fma(p, ty, ftz, sat, None, sh), &[x, y, z]) else { continue };
                for l in 0..32 {
                    prop_assert_eq!(r[l], alu::fma(ty, ftz, sat, x[l], y[l], z[l]), "fma {:?} ftz={} sat={} {:?} {:#x} {:#x} {:#x}", ty, ftz, sat, p, x[l], y[l], z[l]);
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn f32_kernels_equal_alu(x in lanes(f32bits()), y in lanes(f32bits()), z in lanes(f32bits())) {
            check_bin(FTy::F32, &x, &y)?;
            check_fma(FTy::F32, &x, &y, &z)?;
        }

        #[test]
        fn f64_kernels_equal_alu(x in lanes(f64bits()), y in lanes(f64bits()), z in lanes(f64bits())) {
            check_bin(FTy::F64, &x, &y)?;
            check_fma(FTy::F64, &x, &y, &z)?;
        }

        /// A product near the addend's magnitude, where an unfused
        /// multiply-add would round twice.
        #[test]
        fn fma_is_fused(a in -4.0f32..4.0, b in -4.0f32..4.0) {
            let c = -(a * b);
            let (x, y, z) = ([a.to_bits() as u64; 32], [b.to_bits() as u64; 32], [c.to_bits() as u64; 32]);
            check_fma(FTy::F32, &x, &y, &z)?;
            // The exact residual a*b - round(a*b), computed in f64.
            let want = (a as f64 * b as f64 + c as f64) as f32;
            for p in paths() {
                let r = call(|sh| select_fma(p, FTy::F32, false, false, None, sh), &[&x, &y, &z]).unwrap();
                prop_assert_eq!(r[0] as u32, if want.is_nan() { alu::F32_CANON_NAN } else { want.to_bits() });
            }
        }

        #[test]
        fn cvt_kernels_equal_cvt(x in lanes(f32bits()), i in lanes(any::<u32>().prop_map(|v| v as u64))) {
            use crate::program::CvtTy;
            let ints = [ITy { bits: 32, signed: true }, ITy { bits: 32, signed: false }];
            for it in ints {
                for rnd in [None, Some(Rounding::Rzi), Some(Rounding::Rni), Some(Rounding::Rmi), Some(Rounding::Rpi), Some(Rounding::Rn)] {
                    for (sat, ftz) in [(false, false), (true, false), (false, true), (true, true)] {
                        let cases = [(CvtTy::I(it), CvtTy::F(FTy::F32), &x), (CvtTy::F(FTy::F32), CvtTy::I(it), &i)];
                        for (dst, src, v) in cases {
                            for p in paths() {
                                let Some(r) = call(|sh| select_cvt(p, dst, src, rnd, sat, ftz, sh), &[v]) else { continue };
                                for l in 0..32 {
                                    prop_assert_eq!(r[l], ptxsim_sem::cvt::cvt(dst, src, rnd, sat, ftz, v[l]), "cvt {:?} {:?} {:?} sat={} ftz={} {:#x}", dst, src, rnd, sat, ftz, v[l]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn ints() -> impl Strategy<Value = u64> {
        prop_oneof![any::<u64>(), Just(0), Just(1), Just(u64::MAX), Just(0x80), Just(0x8000), Just(0x8000_0000), Just(0xffff_ffff), Just(1 << 63), Just(0x7fff_ffff)]
    }

    proptest! {
        /// The integer comparison kernels against `alu::icmp`, on operands
        /// whose bits above the type's width are arbitrary.
        #[test]
        fn icmp_kernels_equal_alu(x in lanes(ints()), y in lanes(ints())) {
            let ops = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge, CmpOp::Lo, CmpOp::Ls, CmpOp::Hi, CmpOp::Hs];
            for bits in [8, 16, 32, 64] {
                for signed in [false, true] {
                    let ty = ITy { bits, signed };
                    for cmp in ops {
                        for p in paths() {
                            let t = callc(|sh| select_icmp(p, cmp, ty, sh), &x, &y).expect("every ordered integer comparison has a kernel");
                            for l in 0..32 {
                                prop_assert_eq!(t >> l & 1 == 1, alu::icmp(cmp, ty, x[l], y[l]), "{:?} {:?} {:#x} {:#x}", cmp, ty, x[l], y[l]);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The distance from `got` to `exact` in units of `got`'s last place.
    fn ulps(got: f32, exact: f64) -> f64 {
        let ulp = (f32::from_bits(got.abs().to_bits() + 1) as f64 - got.abs() as f64).abs();
        (got as f64 - exact).abs() / ulp
    }

    proptest! {
        /// The approximate f32 kernels (straight lane loops) are within one
        /// ulp of the exact function, computed in f64, on normal inputs of
        /// the ranges kernels use; `rsqrt.approx` meets the manual's
        /// "maximum relative error 2^-22.9 over the entire positive finite
        /// range" (one ulp is at most 2^-23 relative).
        #[test]
        fn approx_kernels_are_within_one_ulp(e in lanes((-126.0f32..127.0).prop_map(|f| f.to_bits() as u64)), l in lanes((1.0e-30f32..1.0e30).prop_map(|f| f.to_bits() as u64)), t in lanes((-100.0f32..100.0).prop_map(|f| f.to_bits() as u64))) {
            let f = |b: u64| f32::from_bits(b as u32);
            for p in paths() {
                let k = |op, x: &L| call(|sh| select_fun(p, op, FTy::F32, false, None, sh), &[x]).expect("kernel");
                let (ex2, lg2, rsq, sin, cos) = (k(FUnOp::Ex2, &e), k(FUnOp::Lg2, &l), k(FUnOp::Rsqrt, &l), k(FUnOp::Sin, &t), k(FUnOp::Cos, &t));
                for i in 0..32 {
                    prop_assert!(ulps(f(ex2[i]), (f(e[i]) as f64).exp2()) <= 1.0, "ex2 {}", f(e[i]));
                    prop_assert!(ulps(f(lg2[i]), (f(l[i]) as f64).log2()) <= 1.0, "lg2 {}", f(l[i]));
                    let exact = 1.0 / (f(l[i]) as f64).sqrt();
                    prop_assert!(((f(rsq[i]) as f64 - exact) / exact).abs() <= 2f64.powf(-22.9), "rsqrt {}", f(l[i]));
                    prop_assert!(ulps(f(sin[i]), (f(t[i]) as f64).sin()) <= 1.0, "sin {}", f(t[i]));
                    prop_assert!(ulps(f(cos[i]), (f(t[i]) as f64).cos()) <= 1.0, "cos {}", f(t[i]));
                }
            }
        }
    }

    #[test]
    fn ftz_bits_flushes_only_subnormals() {
        for b in [0u32, 0x8000_0000, 1, 0x8000_0001, 0x007f_ffff, 0x807f_ffff, 0x0080_0000, 0x7f80_0001, 0xffc0_0000, 0x3f80_0000] {
            assert_eq!(ftz_bits(b), alu::ftz32(f32::from_bits(b)).to_bits(), "{b:#x}");
        }
    }

    /// The common forms all have a kernel (the engine's float speed rests
    /// on it).
    #[test]
    fn common_forms_have_kernels() {
        for p in paths() {
            for op in [FBinOp::Add, FBinOp::Sub, FBinOp::Mul, FBinOp::Min, FBinOp::Max] {
                assert!(select_fbin(p, op, FTy::F32, false, false, None, 0).is_some(), "{op:?}");
                assert!(select_fbin(p, op, FTy::F32, true, false, Some(Rounding::Rn), 1).is_some(), "{op:?}");
            }
            assert!(select_fma(p, FTy::F32, false, false, Some(Rounding::Rn), 4).is_some());
            assert!(select_fma(p, FTy::F64, false, false, Some(Rounding::Rn), 0).is_some());
            for cmp in CMPS {
                assert!(select_fcmp(p, cmp, FTy::F32, false, 0b100).is_some() && select_fcmp(p, cmp, FTy::F32, true, 0b110).is_some());
            }
            for op in [FUnOp::Ex2, FUnOp::Lg2, FUnOp::Sin, FUnOp::Cos, FUnOp::Rsqrt] {
                assert!(select_fun(p, op, FTy::F32, true, None, 6).is_some(), "{op:?}");
            }
            assert!(select_fma(p, FTy::F32, false, false, Some(Rounding::Rz), 0).is_none());
            assert!(select_fun(p, FUnOp::Sqrt, FTy::F32, false, Some(Rounding::Rz), 6).is_none());
        }
    }

}
