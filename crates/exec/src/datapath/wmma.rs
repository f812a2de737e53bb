//! The warp matrix functions `wmma.load`, `wmma.store` and `wmma.mma`
//! (PTX ISA 9.7.14.4), which nvcc emits for CUDA's `nvcuda::wmma`
//! (`mma.h`): f16 and bf16 inputs with f32 or f16 accumulators, and
//! `.s8`/`.u8` inputs with `.s32` accumulators, in the shapes m16n16k16,
//! m32n8k16 and m8n32k16; `.tf32` inputs (the low 13 bits of each 32-bit
//! element ignored) with f32 accumulators in m16n16k8.
//!
//! The manual leaves the distribution of a fragment's elements over the
//! warp's threads unspecified. ptxsim's: a fragment of an `R x C` matrix
//! with `E` elements per thread holds, in element `e` of lane `l`, the
//! matrix element of row-major index `(l * E + e) mod (R * C)`; fragments
//! with more slots than elements (the f16 A and B fragments: 16 per thread)
//! hold each element more than once. Loads and stores address element
//! `(r, c)` at `r * stride + c` (row major) or `c * stride + r` (column
//! major) elements from the base; `mma` computes `D = A * B + C` on the
//! exact values with one rounding to the accumulator type (`alu::dot`),
//! reading each element from its first slot. Like `mma.sync`, each needs
//! all 32 lanes of the warp.

use super::{fetch, Lanes};
use ptxsim_sem::alu::dot::{self, dot};
use ptxsim_sem::alu::Rounding;
use crate::error::Trap;
use crate::lanemem::check_align;
use crate::lanes::store;
use crate::program::*;
use crate::warp::Frame;

/// The (row, column) of element `e` of lane `l` in a fragment.
fn pos(f: &WmmaFrag, l: usize, e: usize, per_thread: usize) -> (usize, usize) {
    let (rows, cols) = f.dims();
    let idx = (l * per_thread + e) % (rows * cols);
    (idx / cols, idx % cols)
}

fn bits(ty: MmaTy) -> u32 {
    super::tensor::elem_bits(ty)
}


/// Each lane's base address of `addr`.
fn bases(cx: &Lanes<'_>, fr: &Frame, addr: Addr) -> [u64; 32] {
    match addr.base {
        AddrBase::Reg(r) => fr.regs[r as usize],
        AddrBase::None => [0; 32],
        AddrBase::Frame => [cx.local_base; 32],
    }
}

/// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type d, [addr]{, stride}`.
pub(crate) fn load(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, f: &WmmaFrag, ds: &[u32], (space, addr, stride): (Space, Addr, &Src)) -> Result<(), Trap> {
    if !super::tensor::whole_warp(m, "wmma.load")? {
        return Ok(());
    }
    let t1;
    let base = bases(cx, fr, addr);
    let sv = fetch!(cx, fr.regs, stride, t1);
    let (b, per) = (bits(f.ty), super::tensor::per_reg(f.ty));
    let per_thread = ds.len() * per;
    let size = b / 8;
    let mut out = vec![[0u64; 32]; ds.len()];
    let mut cache = usize::MAX;
    for l in 0..32 {
        let a0 = base[l].wrapping_add(addr.offset as u64);
        check_align(a0, size, l)?;
        for e in 0..per_thread {
            let (r, c) = pos(f, l, e, per_thread);
            let idx = if f.col_major { c as u64 * sv[l] + r as u64 } else { r as u64 * sv[l] + c as u64 };
            let v = cx.mem.read(space, l, a0.wrapping_add(idx.wrapping_mul(size as u64)), size, &mut cache)?;
            out[e / per][l] |= v << ((e % per) as u32 * b);
        }
    }
    for (d, v) in ds.iter().zip(&out) {
        store(&mut fr.regs[*d as usize], v, m);
    }
    Ok(())
}

/// `wmma.store.d.sync.aligned.layout.shape{.space}.type [addr], d{, stride}`.
pub(crate) fn store_d(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, f: &WmmaFrag, srcs: &[Src], (space, addr, stride): (Space, Addr, &Src)) -> Result<(), Trap> {
    if !super::tensor::whole_warp(m, "wmma.store")? {
        return Ok(());
    }
    let t1;
    let base = bases(cx, fr, addr);
    let sv = *fetch!(cx, fr.regs, stride, t1);
    let vals: Vec<[u64; 32]> = srcs.iter().map(|s| super::src_lanes(cx, &fr.regs, s)).collect();
    let (b, per) = (bits(f.ty), super::tensor::per_reg(f.ty));
    let per_thread = srcs.len() * per;
    let size = b / 8;
    let mask = (1u64 << b) - 1;
    let mut cache = usize::MAX;
    for l in 0..32 {
        let a0 = base[l].wrapping_add(addr.offset as u64);
        check_align(a0, size, l)?;
        for e in 0..per_thread {
            let (r, c) = pos(f, l, e, per_thread);
            let idx = if f.col_major { c as u64 * sv[l] + r as u64 } else { r as u64 * sv[l] + c as u64 };
            let v = (vals[e / per][l] >> ((e % per) as u32 * b)) & mask;
            cx.mem.write(space, l, a0.wrapping_add(idx.wrapping_mul(size as u64)), size, v, &mut cache)?;
        }
    }
    *cx.stores += 1;
    Ok(())
}

/// A fragment operand gathered into a row-major matrix (first slot wins),
/// each element's value exact: a float's, or an integer's.
fn gather(cx: &Lanes<'_>, fr: &Frame, f: &WmmaFrag, regs: &[Src]) -> Vec<(f64, i64)> {
    let (rows, cols) = f.dims();
    let (b, per) = (bits(f.ty), super::tensor::per_reg(f.ty));
    let per_thread = regs.len() * per;
    let mask = (1u64 << b) - 1;
    let vals: Vec<[u64; 32]> = regs.iter().map(|s| super::src_lanes(cx, &fr.regs, s)).collect();
    let mut out = vec![(0.0, 0); rows * cols];
    for s in 0..(rows * cols).min(32 * per_thread) {
        let (l, e) = (s / per_thread, s % per_thread);
        out[s] = super::tensor::value(f.ty, (vals[e / per][l] >> ((e % per) as u32 * b)) & mask);
    }
    out
}

/// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype d, a, b, c`.
pub(crate) fn mma(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, x: &WmmaMma) -> Result<(), Trap> {
    if !super::tensor::whole_warp(m, "wmma.mma")? {
        return Ok(());
    }
    let (mm, nn, kk) = x.shape;
    let a = gather(cx, fr, &x.fa, &x.a);
    let b = gather(cx, fr, &x.fb, &x.b);
    let c = gather(cx, fr, &x.fc, &x.c);
    let fmt = if x.fd.ty == MmaTy::F16 { dot::F16 } else { dot::F32 };
    let d: Vec<u64> = (0..mm * nn)
        .map(|i| {
            let (r, col) = (i / nn, i % nn);
            let pairs = (0..kk).map(|k| (a[r * kk + k], b[k * nn + col]));
            if x.fd.ty == MmaTy::S32 {
                // Exact products and sum, wrapped to 32 bits (clamped with
                // `.satfinite`), as `mma.sync` does.
                dot::dot_int(pairs.map(|(p, q)| (p.1, q.1)), c[i].1 as i32, x.satfinite) as u64
            } else {
                dot(fmt, Rounding::Rn, pairs.map(|(p, q)| (p.0, q.0)), c[i].0)
            }
        })
        .collect();
    let (bd, per) = (bits(x.fd.ty), super::tensor::per_reg(x.fd.ty));
    let per_thread = x.d.len() * per;
    let mut out = vec![[0u64; 32]; x.d.len()];
    for l in 0..32 {
        for e in 0..per_thread {
            let (r, col) = pos(&x.fd, l, e, per_thread);
            out[e / per][l] |= d[r * nn + col] << ((e % per) as u32 * bd);
        }
    }
    for (reg, v) in x.d.iter().zip(&out) {
        store(&mut fr.regs[*reg as usize], v, m);
    }
    Ok(())
}
