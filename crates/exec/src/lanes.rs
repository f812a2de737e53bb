//! Lane kernels: the warp-wide loops behind the ALU instructions.
//!
//! An operation computes all 32 lanes into a local array from its operands
//! borrowed in place (a register of the frame, or a materialised array);
//! an immediate operand is captured by the lane function instead of being
//! splatted into an array first. Each loop is a plain 32-lane map the
//! compiler vectorises. The results are then stored into the destination
//! register under the active mask, 8 lanes at a time (a full byte of the
//! mask is a straight 64-byte copy). Computing first and storing after
//! makes a destination that is also a source safe.
//!
//! Every lane is computed, active or not (the operations are pure); only the
//! store is masked, so the result is the same as a lane-by-lane loop over
//! the active lanes.

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
            for i in 0..8 {
                if mb >> i & 1 != 0 {
                    d[i] = s[i];
                }
            }
        }
    }
}

#[inline(always)]
fn arr<'a>(o: Opnd<'a>, regs: &'a [[u64; 32]], tmp: &'a mut [u64; 32]) -> &'a [u64; 32] {
    match o {
        Opnd::Reg(s) => &regs[s],
        Opnd::Arr(a) => a,
        Opnd::Imm(v) => {
            *tmp = [v; 32];
            tmp
        }
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
        _ => {
            let mut t = [0u64; 32];
            map1(arr(a, regs, &mut t), f)
        }
    };
    store(&mut regs[d], &r, m);
}

/// `regs[d] = f(a, b)` on the lanes of `m`.
#[inline(always)]
pub(crate) fn apply2(regs: &mut [[u64; 32]], d: usize, m: u32, a: Opnd<'_>, b: Opnd<'_>, f: impl Fn(u64, u64) -> u64) {
    let r = match (a, b) {
        (Opnd::Reg(x), Opnd::Reg(y)) => map2(&regs[x], &regs[y], f),
        (a, Opnd::Imm(v)) => {
            let mut t = [0u64; 32];
            map1(arr(a, regs, &mut t), |x| f(x, v))
        }
        (Opnd::Imm(v), b) => {
            let mut t = [0u64; 32];
            map1(arr(b, regs, &mut t), |y| f(v, y))
        }
        _ => {
            let (mut t, mut u) = ([0u64; 32], [0u64; 32]);
            map2(arr(a, regs, &mut t), arr(b, regs, &mut u), f)
        }
    };
    store(&mut regs[d], &r, m);
}

/// `regs[d] = f(a, b, c)` on the lanes of `m`.
#[inline(always)]
pub(crate) fn apply3(regs: &mut [[u64; 32]], d: usize, m: u32, a: Opnd<'_>, b: Opnd<'_>, e: Opnd<'_>, f: impl Fn(u64, u64, u64) -> u64) {
    let r = match (a, b, e) {
        (a, Opnd::Imm(v), Opnd::Imm(w)) => {
            let mut t = [0u64; 32];
            map1(arr(a, regs, &mut t), |x| f(x, v, w))
        }
        (a, b, Opnd::Imm(w)) => {
            let (mut t, mut u) = ([0u64; 32], [0u64; 32]);
            map2(arr(a, regs, &mut t), arr(b, regs, &mut u), |x, y| f(x, y, w))
        }
        (a, Opnd::Imm(v), e) => {
            let (mut t, mut u) = ([0u64; 32], [0u64; 32]);
            map2(arr(a, regs, &mut t), arr(e, regs, &mut u), |x, z| f(x, v, z))
        }
        _ => {
            let (mut t, mut u, mut w) = ([0u64; 32], [0u64; 32], [0u64; 32]);
            let (x, y, z) = (arr(a, regs, &mut t), arr(b, regs, &mut u), arr(e, regs, &mut w));
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
        (a, Opnd::Imm(v)) => {
            let mut t = [0u64; 32];
            let x = arr(a, regs, &mut t);
            bits(|l| f(x[l], v))
        }
        _ => {
            let (mut t, mut u) = ([0u64; 32], [0u64; 32]);
            let (x, y) = (arr(a, regs, &mut t), arr(b, regs, &mut u));
            bits(|l| f(x[l], y[l]))
        }
    }
}

/// `regs[d] = v` (the same value) on the lanes of `m`.
#[inline(always)]
pub(crate) fn splat(regs: &mut [[u64; 32]], d: usize, m: u32, v: u64) {
    store(&mut regs[d], &[v; 32], m);
}
