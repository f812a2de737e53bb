//! `atom` / `red`: atomic read-modify-write in global (truly atomic across
//! CTAs running in parallel), shared and local memory, lanes of a warp
//! applied in increasing lane order.

use crate::alu::{ftz32, sext, FTy};
use crate::error::Trap;
use crate::exec::{oob, space_name, Ctx};
use crate::memory::{classify, read_le, write_le, Window};
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

#[allow(clippy::too_many_arguments)]
pub(crate) fn atom(
    ctx: &Ctx<'_>,
    shared: &mut [u8],
    local: &mut [Vec<u8>],
    local_top: &[u32; 32],
    space: Space,
    l: usize,
    a: u64,
    size: u32,
    op: AtomOp,
    ty: ITyOrF,
    b: u64,
    c: u64,
) -> Result<(u64, bool), Trap> {
    let (win, off) = match space {
        Space::Global => (Window::Global, a),
        Space::Shared => (Window::Shared(a), a),
        Space::Local => (Window::Local(a), a),
        Space::Generic => {
            let w = classify(a);
            (w, a)
        }
        _ => return Err(oob(l, space_name(space), a, size)),
    };
    match win {
        Window::Global => {
            let g = ctx.global;
            let i = g.find(off, size as u64).ok_or_else(|| oob(l, "global", a, size))?;
            let al = &g.allocs[i];
            let mut changed = false;
            let old = al.rmw(off - al.base, size, &mut |old| {
                let new = apply(op, ty, old, b, c);
                changed = new != old;
                new
            });
            Ok((old, changed))
        }
        Window::Shared(o) => {
            let old = read_le(shared, o, size).ok_or_else(|| oob(l, "shared", a, size))?;
            let new = apply(op, ty, old, b, c);
            write_le(shared, o, size, new);
            Ok((old, new != old))
        }
        Window::Local(o) => {
            if o + size as u64 > local_top[l] as u64 {
                return Err(oob(l, "local", a, size));
            }
            let old = read_le(&local[l], o, size).ok_or_else(|| oob(l, "local", a, size))?;
            let new = apply(op, ty, old, b, c);
            write_le(&mut local[l], o, size, new);
            Ok((old, new != old))
        }
        _ => Err(oob(l, space_name(space), a, size)),
    }
}
