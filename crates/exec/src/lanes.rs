//! Lane kernels: the warp-wide loops behind the ALU instructions.
//!
//! An operation computes all 32 lanes into a local array from its operands
//! borrowed in place (a register of the frame, or a materialised array);
//! an immediate operand is captured by the lane function instead of being
//! splatted into an array first. Each loop is a plain 32-lane map the
//! compiler vectorises. The results are then stored into the destination
//! register under the active mask, 8 lanes at a time (a full byte of the
//! mask is a straight 64-byte copy, a partial one copies its set lanes
//! only). Computing first and storing after
//! makes a destination that is also a source safe.
//!
//! Every lane is computed, active or not (the operations are pure); only the
//! store is masked, so the result is the same as a lane-by-lane loop over
//! the active lanes.

/// Iterates over the set bits of a lane mask.
#[inline(always)]
pub fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

/// A source operand resolved for a lane kernel.
#[derive(Clone, Copy)]
pub(crate) enum Opnd<'t> {
    /// A register slot of the frame.
    Reg(usize),
    /// The same value in every lane.
    Imm(u64),
    /// A materialised per-lane value (special registers and the like).
    Arr(&'t [u64; 32]),
}

/// Stores `r` into `dst` on the lanes of `m`.
#[inline(always)]
pub(crate) fn store(dst: &mut [u64; 32], r: &[u64; 32], m: u32) {
    if m == u32::MAX {
        *dst = *r;
        return;
    }
    for c in 0..4 {
        let mb = (m >> (c * 8)) as u8;
        let (d, s) = (&mut dst[c * 8..c * 8 + 8], &r[c * 8..c * 8 + 8]);
        if mb == 0xff {
            d.copy_from_slice(s);
        } else if mb != 0 {
            // Only the set bits: one iteration per stored lane, and no
            // branch on each bit (a divergent warp's masks are irregular).
            let mut b = mb;
            while b != 0 {
                let i = b.trailing_zeros() as usize;
                d[i] = s[i];
                b &= b - 1;
            }
        }
    }
}

/// An operand that is not an immediate, as an array borrowed in place.
/// (An immediate is handled by the callers before they get here; it reads
/// as zeros if one does.)
#[inline(always)]
fn view<'a>(o: Opnd<'a>, regs: &'a [[u64; 32]]) -> &'a [u64; 32] {
    const NONE: [u64; 32] = [0; 32];
    match o {
        Opnd::Reg(s) => &regs[s],
        Opnd::Arr(a) => a,
        Opnd::Imm(_) => &NONE,
    }
}

#[inline(always)]
fn map1(x: &[u64; 32], f: impl Fn(u64) -> u64) -> [u64; 32] {
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = f(x[l]);
    }
    r
}

#[inline(always)]
fn map2(x: &[u64; 32], y: &[u64; 32], f: impl Fn(u64, u64) -> u64) -> [u64; 32] {
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = f(x[l], y[l]);
    }
    r
}

/// `regs[d] = f(a)` on the lanes of `m`.
#[inline(always)]
pub(crate) fn apply1(regs: &mut [[u64; 32]], d: usize, m: u32, a: Opnd<'_>, f: impl Fn(u64) -> u64) {
    let r = match a {
        Opnd::Imm(v) => [f(v); 32],
        _ => map1(view(a, regs), f),
    };
    store(&mut regs[d], &r, m);
}

/// `regs[d] = f(a, b)` on the lanes of `m`.
#[inline(always)]
pub(crate) fn apply2(regs: &mut [[u64; 32]], d: usize, m: u32, a: Opnd<'_>, b: Opnd<'_>, f: impl Fn(u64, u64) -> u64) {
    let r = match (a, b) {
        (Opnd::Reg(x), Opnd::Reg(y)) => map2(&regs[x], &regs[y], f),
        (Opnd::Imm(u), Opnd::Imm(v)) => [f(u, v); 32],
        (a, Opnd::Imm(v)) => map1(view(a, regs), |x| f(x, v)),
        (Opnd::Imm(v), b) => map1(view(b, regs), |y| f(v, y)),
        _ => map2(view(a, regs), view(b, regs), f),
    };
    store(&mut regs[d], &r, m);
}

/// `regs[d] = f(a, b, c)` on the lanes of `m`.
#[inline(always)]
pub(crate) fn apply3(regs: &mut [[u64; 32]], d: usize, m: u32, a: Opnd<'_>, b: Opnd<'_>, e: Opnd<'_>, f: impl Fn(u64, u64, u64) -> u64) {
    let r = match (a, b, e) {
        (Opnd::Imm(u), Opnd::Imm(v), Opnd::Imm(w)) => [f(u, v, w); 32],
        (a, Opnd::Imm(v), Opnd::Imm(w)) => map1(view(a, regs), |x| f(x, v, w)),
        (Opnd::Imm(u), b, Opnd::Imm(w)) => map1(view(b, regs), |y| f(u, y, w)),
        (Opnd::Imm(u), Opnd::Imm(v), e) => map1(view(e, regs), |z| f(u, v, z)),
        (a, b, Opnd::Imm(w)) => map2(view(a, regs), view(b, regs), |x, y| f(x, y, w)),
        (a, Opnd::Imm(v), e) => map2(view(a, regs), view(e, regs), |x, z| f(x, v, z)),
        (Opnd::Imm(u), b, e) => map2(view(b, regs), view(e, regs), |y, z| f(u, y, z)),
        _ => {
            let (x, y, z) = (view(a, regs), view(b, regs), view(e, regs));
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = f(x[l], y[l], z[l]);
            }
            r
        }
    };
    store(&mut regs[d], &r, m);
}

/// The lane mask of `f(a, b)` over all 32 lanes.
#[inline(always)]
pub(crate) fn test2(regs: &[[u64; 32]], a: Opnd<'_>, b: Opnd<'_>, f: impl Fn(u64, u64) -> bool) -> u32 {
    #[inline(always)]
    fn bits(f: impl Fn(usize) -> bool) -> u32 {
        let mut t = 0u32;
        for l in 0..32 {
            t |= (f(l) as u32) << l;
        }
        t
    }
    match (a, b) {
        (Opnd::Imm(u), Opnd::Imm(v)) => {
            if f(u, v) {
                u32::MAX
            } else {
                0
            }
        }
        (a, Opnd::Imm(v)) => {
            let x = view(a, regs);
            bits(|l| f(x[l], v))
        }
        (Opnd::Imm(u), b) => {
            let y = view(b, regs);
            bits(|l| f(u, y[l]))
        }
        _ => {
            let (x, y) = (view(a, regs), view(b, regs));
            bits(|l| f(x[l], y[l]))
        }
    }
}

/// `regs[d] = v` (the same value) on the lanes of `m`.
#[inline(always)]
pub(crate) fn splat(regs: &mut [[u64; 32]], d: usize, m: u32, v: u64) {
    store(&mut regs[d], &[v; 32], m);
}

#[cfg(test)]
mod tests {
    use super::{apply2, apply3, store, test2, Opnd};
    use proptest::prelude::*;

    proptest! {
        /// The masked store and the operand forms of the lane loops against
        /// a lane-by-lane model.
        #[test]
        fn lane_loops_equal_lane_by_lane(d in proptest::array::uniform32(any::<u64>()), r in proptest::array::uniform32(any::<u64>()), m in prop_oneof![any::<u32>(), Just(0u32), Just(u32::MAX), Just(0x00ff_ff00)], v in any::<u64>(), w in any::<u64>()) {
            let mut got = d;
            store(&mut got, &r, m);
            for l in 0..32 {
                prop_assert_eq!(got[l], if m >> l & 1 == 1 { r[l] } else { d[l] });
            }
            let regs = vec![d, r, [0; 32]];
            let f2 = |x: u64, y: u64| x.wrapping_mul(3) ^ y;
            let f3 = |x: u64, y: u64, z: u64| x.wrapping_mul(3) ^ y.wrapping_add(z);
            let forms = [Opnd::Reg(0), Opnd::Imm(v), Opnd::Arr(&r), Opnd::Imm(w)];
            let val = |o: &Opnd<'_>, l: usize| match o {
                Opnd::Reg(s) => regs[*s][l],
                Opnd::Imm(x) => *x,
                Opnd::Arr(a) => a[l],
            };
            for a in &forms {
                for b in &forms {
                    let mut out = regs.clone();
                    apply2(&mut out, 2, m, *a, *b, f2);
                    let t = test2(&regs, *a, *b, |x, y| x < y);
                    for l in 0..32 {
                        prop_assert_eq!(out[2][l], if m >> l & 1 == 1 { f2(val(a, l), val(b, l)) } else { 0 });
                        prop_assert_eq!(t >> l & 1 == 1, val(a, l) < val(b, l));
                    }
                    for c in &forms {
                        let mut out = regs.clone();
                        apply3(&mut out, 2, m, *a, *b, *c, f3);
                        for l in 0..32 {
                            prop_assert_eq!(out[2][l], if m >> l & 1 == 1 { f3(val(a, l), val(b, l), val(c, l)) } else { 0 });
                        }
                    }
                }
            }
        }
    }
}
