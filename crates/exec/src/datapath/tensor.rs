//! The warp-level matrix instructions (PTX ISA 9.7.14): `ldmatrix`,
//! `stmatrix`, `movmatrix` and `mma.sync.aligned`, whose 32 lanes each
//! hold a fragment of a matrix.
//!
//! Fragment layouts are the manual's (9.7.14.5, "Matrix Fragments for
//! mma.mMnNkK"): with `g = %laneid >> 2` (the group) and `t = %laneid % 4`
//! (the thread in the group), element `i` of a lane's fragment sits at the
//! (row, column) that [`a_pos`], [`b_pos`] and [`c_pos`] compute for each
//! shape and type. A fragment's elements are packed into its registers low
//! to high: two per 32-bit register for 16-bit types, four for 8-bit
//! types, one per register otherwise.
//!
//! `ldmatrix.m8n8.xN{.trans}.b16`: lanes `8j .. 8j + 7` give the addresses
//! of rows 0..7 of matrix `j` (16 bytes each, 16-byte aligned, in shared
//! memory); lane `l` receives in register `j` row `g`, columns `2t` and
//! `2t + 1` of matrix `j` (of its transpose with `.trans`). `stmatrix` is
//! the inverse; `movmatrix.m8n8.trans` transposes a matrix held in that
//! same fragment layout.
//!
//! The `.sync.aligned` instructions need all 32 lanes of the warp to
//! execute them together (the manual leaves anything else undefined): a
//! lane that is missing, exited, or guarded off while others run is a
//! `non_uniform` trap. The arithmetic of `mma` is `alu::dot`'s: exact
//! products and sum, one rounding.

use super::{fetch, Lanes};
use ptxsim_sem::alu::dot::{self, dot, dot_int};
use ptxsim_sem::alu::FTy;
use crate::error::{Trap, TrapKind};
use crate::lanemem::{check_align, place, Place};
use crate::lanes::store;
use crate::program::*;
use crate::warp::Frame;
use ptxsim_isa::Opcode;

/// Traps unless all 32 lanes execute the instruction; `Ok(false)` when
/// none does (every lane guarded off).
pub(crate) fn whole_warp(m: u32, what: &str) -> Result<bool, Trap> {
    match m {
        0 => Ok(false),
        u32::MAX => Ok(true),
        _ => {
            let missing = !m;
            Err(Trap::lane(
                TrapKind::NonUniform,
                m.trailing_zeros(),
                format!("`{what}` needs all 32 lanes of the warp to execute it together; lanes {missing:#010x} do not (undefined in the manual)"),
            ))
        }
    }
}

/// Width in bits of an element type.
pub(crate) fn elem_bits(t: MmaTy) -> u32 {
    t.bits()
}

/// Elements of a fragment per register.
pub(crate) fn per_reg(t: MmaTy) -> usize {
    t.per_reg()
}

/// Row and column of element `i` of lane `(g, t)`'s fragment of A (M x K).
pub(crate) fn a_pos(s: MmaShape, ty: MmaTy, g: usize, t: usize, i: usize) -> (usize, usize) {
    match (s, elem_bits(ty)) {
        (MmaShape::M16N8K16, 16) => (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
        (MmaShape::M16N8K8, 16) => (g + 8 * (i >> 1), 2 * t + (i & 1)),
        (MmaShape::M16N8K8, _) => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        (MmaShape::M16N8K4, _) => (g + 8 * i, t),
        (MmaShape::M16N8K32, _) => (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
        (MmaShape::M16N8K16, _) => (g + 8 * (i >> 2), 4 * t + (i & 3)),
        (MmaShape::M8N8K4, _) => (g, t),
        (MmaShape::M8N8K16, _) => (g, 4 * t + i),
    }
}

/// Row and column of element `i` of lane `(g, t)`'s fragment of B (K x N).
pub(crate) fn b_pos(s: MmaShape, ty: MmaTy, g: usize, t: usize, i: usize) -> (usize, usize) {
    match (s, elem_bits(ty)) {
        (MmaShape::M16N8K16, 16) => (2 * t + (i & 1) + 8 * (i >> 1), g),
        (MmaShape::M16N8K8, 16) => (2 * t + (i & 1), g),
        (MmaShape::M16N8K8, _) => (t + 4 * i, g),
        (MmaShape::M16N8K4, _) => (t, g),
        (MmaShape::M16N8K32, _) => (4 * t + (i & 3) + 16 * (i >> 2), g),
        (MmaShape::M16N8K16, _) => (4 * t + i, g),
        (MmaShape::M8N8K4, _) => (t, g),
        (MmaShape::M8N8K16, _) => (4 * t + i, g),
    }
}

/// Row and column of element `i` of lane `(g, t)`'s fragment of C or D (M x N).
pub(crate) fn c_pos(s: MmaShape, g: usize, t: usize, i: usize) -> (usize, usize) {
    match s {
        MmaShape::M8N8K4 | MmaShape::M8N8K16 => (g, 2 * t + i),
        _ => (g + 8 * (i >> 1), 2 * t + (i & 1)),
    }
}

/// An element's value: exact as `f64` for floats (`.tf32` ignores the low
/// 13 bits of its 32-bit register), as `i64` for integers.
pub(super) fn value(ty: MmaTy, bits: u64) -> (f64, i64) {
    match ty {
        MmaTy::F16 => (FTy::F16.to_f64(bits), 0),
        MmaTy::BF16 => (FTy::BF16.to_f64(bits), 0),
        MmaTy::Tf32 => (f32::from_bits(bits as u32 & !0x1fff) as f64, 0),
        MmaTy::F32 => (f32::from_bits(bits as u32) as f64, 0),
        MmaTy::F64 => (f64::from_bits(bits), 0),
        MmaTy::E4m3 => (ptxsim_sem::alu::fp8::F8::E4m3.to_f64(bits as u8), 0),
        MmaTy::E5m2 => (ptxsim_sem::alu::fp8::F8::E5m2.to_f64(bits as u8), 0),
        MmaTy::S8 => (0.0, bits as u8 as i8 as i64),
        MmaTy::U8 => (0.0, bits as u8 as i64),
        MmaTy::S32 => (0.0, bits as u32 as i32 as i64),
    }
}

/// A matrix of `rows x cols` elements gathered from the lanes' fragments.
struct Mat {
    cols: usize,
    f: Vec<f64>,
    i: Vec<i64>,
}

/// Gathers a fragment operand (registers `regs`, element type `ty`) into a
/// `rows x cols` matrix placed by `pos`.
fn gather(cx: &Lanes<'_>, fr: &Frame, regs: &[Src], ty: MmaTy, rows: usize, cols: usize, pos: &dyn Fn(usize, usize, usize) -> (usize, usize)) -> Mat {
    let n = rows * cols / 32;
    let (per, bits) = (per_reg(ty), elem_bits(ty));
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let vals: Vec<[u64; 32]> = regs.iter().map(|s| super::src_lanes(cx, &fr.regs, s)).collect();
    let mut m = Mat { cols, f: vec![0.0; rows * cols], i: vec![0; rows * cols] };
    for l in 0..32 {
        for e in 0..n {
            let Some(r) = vals.get(e / per) else { continue };
            let b = (r[l] >> ((e % per) as u32 * bits)) & mask;
            let (row, col) = pos(l >> 2, l & 3, e);
            if row < rows && col < cols {
                let (f, i) = value(ty, b);
                m.f[row * cols + col] = f;
                m.i[row * cols + col] = i;
            }
        }
    }
    m
}

/// `mma.sync.aligned.shape.row.col{.rnd}{.satfinite}.dtype.atype.btype.ctype d, a, b, c`.
pub(crate) fn mma(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, x: &Mma) -> Result<(), Trap> {
    if !whole_warp(m, "mma.sync.aligned")? {
        return Ok(());
    }
    let (mm, nn, kk) = x.shape.mnk();
    let a = gather(cx, fr, &x.a, x.atype, mm, kk, &|g, t, i| a_pos(x.shape, x.atype, g, t, i));
    let b = gather(cx, fr, &x.b, x.btype, kk, nn, &|g, t, i| b_pos(x.shape, x.btype, g, t, i));
    let c = gather(cx, fr, &x.c, x.ctype, mm, nn, &|g, t, i| c_pos(x.shape, g, t, i));
    let int = matches!(x.atype, MmaTy::S8 | MmaTy::U8);
    let fmt = match x.dtype {
        MmaTy::F16 => dot::F16,
        MmaTy::F64 => dot::F64,
        _ => dot::F32,
    };
    let mut d = vec![0u64; mm * nn];
    for r in 0..mm {
        for col in 0..nn {
            d[r * nn + col] = if int {
                dot_int((0..kk).map(|k| (a.i[r * a.cols + k], b.i[k * b.cols + col])), c.i[r * c.cols + col] as i32, x.satfinite) as u64
            } else {
                dot(fmt, x.rnd, (0..kk).map(|k| (a.f[r * a.cols + k], b.f[k * b.cols + col])), c.f[r * c.cols + col])
            };
        }
    }
    // Scatter D into the destination registers (after every source was read:
    // Triton and CUTLASS pass C's registers as D).
    let (per, bits) = (per_reg(x.dtype), elem_bits(x.dtype));
    let n = mm * nn / 32;
    for (j, &reg) in x.d.iter().enumerate() {
        let mut out = [0u64; 32];
        for (l, o) in out.iter_mut().enumerate() {
            for s in 0..per {
                let e = j * per + s;
                if e >= n {
                    continue;
                }
                let (row, col) = c_pos(x.shape, l >> 2, l & 3, e);
                *o |= d[row * nn + col] << (s as u32 * bits);
            }
        }
        store(&mut fr.regs[reg as usize], &out, m);
    }
    Ok(())
}

/// The shared-memory offset of each lane's row address for `ldmatrix` /
/// `stmatrix` (lanes `0 .. 8 * num`), checked: in shared memory, 16-byte
/// aligned, 16 bytes in bounds.
fn row_offsets(cx: &Lanes<'_>, fr: &Frame, num: usize, space: Space, addr: Addr, what: &str) -> Result<[u64; 32], Trap> {
    let mut rows = [0u64; 32];
    for (l, row) in rows.iter_mut().enumerate().take(8 * num) {
        let base = match addr.base {
            AddrBase::Reg(r) => fr.regs[r as usize][l],
            AddrBase::None => 0,
            AddrBase::Frame => cx.local_base,
        };
        let a = base.wrapping_add(addr.offset as u64);
        let Place::Shared(o) = place(space, a) else {
            return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: `{what}` row address {a:#x} is not in shared memory")));
        };
        check_align(o, 16, l)?;
        if o.checked_add(16).is_none_or(|e| e > cx.mem.shared.len() as u64) {
            return Err(crate::lanemem::oob(l, "shared", o, 16));
        }
        *row = o;
    }
    Ok(rows)
}

/// The 16-bit element `c` of the 16-byte row at shared offset `o`.
fn half_at(shared: &[u8], o: u64, c: usize) -> u64 {
    let i = o as usize + 2 * c;
    u16::from_le_bytes([shared[i], shared[i + 1]]) as u64
}

/// `ldmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 {d...}, [addr]`.
pub(crate) fn ldmatrix(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, trans: bool, space: Space, ds: &[u32], addr: Addr) -> Result<(), Trap> {
    if !whole_warp(m, "ldmatrix.sync.aligned")? {
        return Ok(());
    }
    let num = ds.len();
    let rows = row_offsets(cx, fr, num, space, addr, Opcode::Ldmatrix.as_str())?;
    super::asynccopy::check_rows(cx, if num == 4 { u32::MAX } else { (1u32 << (8 * num)) - 1 }, &rows, 16, false)?;
    let sh = &*cx.mem.shared;
    for (j, &d) in ds.iter().enumerate() {
        let mut out = [0u64; 32];
        for (l, o) in out.iter_mut().enumerate() {
            let (g, t) = (l >> 2, l & 3);
            // Element (g, 2t + h) of matrix j, or of its transpose.
            let e = |h: usize| if trans { half_at(sh, rows[8 * j + 2 * t + h], g) } else { half_at(sh, rows[8 * j + g], 2 * t + h) };
            *o = e(0) | e(1) << 16;
        }
        store(&mut fr.regs[d as usize], &out, m);
    }
    Ok(())
}

/// `stmatrix.sync.aligned.m8n8.xN{.trans}{.shared}.b16 [addr], {r...}`.
pub(crate) fn stmatrix(cx: &mut Lanes<'_>, fr: &Frame, m: u32, trans: bool, space: Space, srcs: &[Src], addr: Addr) -> Result<(), Trap> {
    if !whole_warp(m, "stmatrix.sync.aligned")? {
        return Ok(());
    }
    let num = srcs.len();
    let rows = row_offsets(cx, fr, num, space, addr, Opcode::Stmatrix.as_str())?;
    super::asynccopy::check_rows(cx, if num == 4 { u32::MAX } else { (1u32 << (8 * num)) - 1 }, &rows, 16, true)?;
    let vals: Vec<[u64; 32]> = srcs.iter().map(|s| super::src_lanes(cx, &fr.regs, s)).collect();
    for (j, v) in vals.iter().enumerate() {
        // Lane l holds element (g, 2t + h) of matrix j in half h of its
        // register: stored at row g, column 2t + h (row 2t + h, column g
        // with .trans).
        for l in 0..32 {
            let (g, t) = (l >> 2, l & 3);
            for h in 0..2 {
                let (row, col) = if trans { (2 * t + h, g) } else { (g, 2 * t + h) };
                let i = rows[8 * j + row] as usize + 2 * col;
                let e = (v[l] >> (16 * h)) as u16;
                cx.mem.shared[i..i + 2].copy_from_slice(&e.to_le_bytes());
            }
        }
    }
    *cx.stores += 1;
    Ok(())
}

/// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: lane `l` receives
/// elements (g, 2t) and (g, 2t + 1) of the transpose of the matrix whose
/// element (r, c) lane `4r + c/2` holds in half `c % 2` of `a`.
pub(crate) fn movmatrix(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, d: u32, a: &Src) -> Result<(), Trap> {
    if !whole_warp(m, "movmatrix.sync.aligned")? {
        return Ok(());
    }
    let t0;
    let av = fetch!(cx, fr.regs, a, t0);
    let elem = |r: usize, c: usize| (av[4 * r + c / 2] >> (16 * (c % 2))) & 0xffff;
    let mut out = [0u64; 32];
    for (l, o) in out.iter_mut().enumerate() {
        let (g, t) = (l >> 2, l & 3);
        *o = elem(2 * t, g) | elem(2 * t + 1, g) << 16;
    }
    store(&mut fr.regs[d as usize], &out, m);
    Ok(())
}

