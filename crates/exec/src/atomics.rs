//! `atom` / `red`: atomic read-modify-write in global (truly atomic across
//! CTAs running in parallel), shared and local memory, lanes of a warp
//! applied in increasing lane order. The memory side is
//! [`LaneMem::rmw`]; this file owns what each operation computes.

use crate::alu::{ftz32, sext, FTy};
use crate::error::Trap;
use crate::lanemem::LaneMem;
use crate::program::{AtomOp, ITyOrF, Space};

fn apply(op: AtomOp, ty: ITyOrF, old: u64, b: u64, c: u64) -> u64 {
    match ty {
        ITyOrF::F(FTy::F32) => {
            let (o, v) = (ftz32(f32::from_bits(old as u32)), ftz32(f32::from_bits(b as u32)));
            ftz32(o + v).to_bits() as u64
        }
        ITyOrF::F(_) => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
        ITyOrF::I(t) => {
            let m = t.mask();
            let (o, b) = (old & m, b & m);
            (match op {
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
#[allow(clippy::too_many_arguments)]
pub(crate) fn atom(mem: &mut LaneMem<'_>, space: Space, l: usize, a: u64, size: u32, op: AtomOp, ty: ITyOrF, b: u64, c: u64) -> Result<(u64, bool), Trap> {
    let mut changed = false;
    let old = mem.rmw(space, l, a, size, &mut |old| {
        let new = apply(op, ty, old, b, c);
        changed = new != old;
        new
    })?;
    Ok((old, changed))
}
