//! `atom` / `red`: atomic read-modify-write in global (truly atomic across
//! CTAs running in parallel), shared and local memory, lanes of a warp
//! applied in increasing lane order. The memory side is
//! [`LaneMem::rmw`]; this file owns what each operation computes.

use ptxsim_sem::alu::{ftz32, sext, FTy};
use crate::error::Trap;
use crate::lanemem::LaneMem;
use crate::program::{AtomOp, ITyOrF, Space};

/// The new value of an atomic `op` on `old` with operands `b`, `c`;
/// `flush`: an `.f32` add flushes subnormal inputs and results to zeros of
/// their sign (PTX ISA 9.7.13.5: `atom.add.f32` does on global memory,
/// and keeps them on shared memory).
fn apply(op: AtomOp, ty: ITyOrF, old: u64, b: u64, c: u64, flush: bool) -> u64 {
    match ty {
        ITyOrF::F(FTy::F32) if flush => {
            let (o, v) = (ftz32(f32::from_bits(old as u32)), ftz32(f32::from_bits(b as u32)));
            ftz32(o + v).to_bits() as u64
        }
        ITyOrF::F(FTy::F32) => (f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits() as u64,
        ITyOrF::F(FTy::F64) => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
        // `.f16`/`.bf16` (`.noftz`: subnormals kept), rounded to nearest
        // even: the f64 sum of two f16 is exact; that of two bf16 is
        // inexact only when the smaller is far below half an ulp of the
        // larger, which the final rounding then ignores either way.
        ITyOrF::F(h) => h.from_f64(h.to_f64(old & 0xffff) + h.to_f64(b & 0xffff)),
        ITyOrF::I(t) => {
            let m = t.mask();
            let (o, b) = (old & m, b & m);
            (match op {
                AtomOp::AddHalf2(h) => {
                    let half = |k: u32| h.from_f64(h.to_f64((o >> k) & 0xffff) + h.to_f64((b >> k) & 0xffff)) & 0xffff;
                    half(0) | half(16) << 16
                }
                AtomOp::Add => o.wrapping_add(b),
                AtomOp::And => o & b,
                AtomOp::Or => o | b,
                AtomOp::Xor => o ^ b,
                AtomOp::Exch => b,
                AtomOp::Cas => {
                    if o == b {
                        c & m
                    } else {
                        o
                    }
                }
                AtomOp::Min | AtomOp::Max => {
                    let less = if t.signed { sext(o, t.bits) < sext(b, t.bits) } else { o < b };
                    if (op == AtomOp::Min) == less {
                        o
                    } else {
                        b
                    }
                }
                AtomOp::Inc => {
                    if o >= b {
                        0
                    } else {
                        o + 1
                    }
                }
                AtomOp::Dec => {
                    if o == 0 || o > b {
                        b
                    } else {
                        o - 1
                    }
                }
            }) & m
        }
    }
}

/// Applies `op` for lane `l` at address `a` of `space`: returns the old
/// value and whether the memory changed.
pub(crate) fn atom(mem: &mut LaneMem<'_>, space: Space, l: usize, (a, size): (u64, u32), (op, ty): (AtomOp, ITyOrF), [b, c]: [u64; 2]) -> Result<(u64, bool), Trap> {
    let mut changed = false;
    // Subnormals are flushed except in shared memory (a generic address
    // included).
    let flush = !matches!(crate::lanemem::place(space, a), crate::lanemem::Place::Shared(_));
    let old = mem.rmw(space, l, a, size, &mut |old| {
        let new = apply(op, ty, old, b, c, flush);
        changed = new != old;
        new
    })?;
    Ok((old, changed))
}
