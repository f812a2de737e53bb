//! Integer lane kernels: the common integer instructions (`add`, `sub`,
//! `mul.lo/.hi/.wide`, `min`, `max`, `add/sub.sat`, `and`, `or`, `xor`,
//! `shl`, `shr`, `mad.lo`) on 32- and 64-bit types as straight loops over
//! the 32 lanes of a warp, one kernel per (operation, width, signedness
//! where it matters, operand shape), chosen once per instruction by
//! [`select_ibin`] and [`select_mad`].
//!
//! The kernels use the loops of `flanes.rs` ([`flanes::k32`],
//! [`flanes::k64`]): the operands in `KOps`, the shape (bit i: source i is
//! an immediate), the destination written in place on the lanes of the
//! mask. A 32-bit operation runs on both 32-bit halves of every lane and
//! keeps the low one, so it sees only the operands' low 32 bits and its
//! result is zero-extended, as [`ptxsim_sem::alu::ibin`] masks to the type's
//! width. Shift amounts are the low 32 bits of `b`: `shl` and unsigned
//! `shr` by the width or more give 0, signed `shr` the sign. Other forms
//! (8- and 16-bit types, `div`/`rem`, `mad.hi/.wide`, a special-register
//! source) return `None` and run lane by lane. The tests below compare
//! every kernel with `alu::ibin`/`alu::mad` on random and boundary values,
//! all shapes, partial masks and a destination that is a source.

use super::flanes::{self, runk, shapes, Path};
use ptxsim_sem::alu::{IBinOp, ITy};
#[cfg(target_arch = "x86_64")]
use flanes::hw;
use flanes::{k32, k64};
use crate::program::{KOp, KOps, L};

/// Defines kernel `$name` running `|$a, $b, $c| $e` on loop `$map`
/// (`k32`: on 32-bit halves, `k64`: on 64-bit lanes).
macro_rules! kern {
    ($name:ident, $map:ident, |$a:ident, $b:ident, $c:ident| $e:expr) => {
        #[allow(unused_variables)]
        fn $name<const H: bool, const SH: u8>(regs: &mut [L], o: &KOps, m: u32) {
            runk!($map, regs, o, m, |$a: u64, $b: u64, $c: u64| -> u64 { $e })
        }
    };
}

kern!(add32, k32, |a, b, c| (a as u32).wrapping_add(b as u32) as u64);
kern!(sub32, k32, |a, b, c| (a as u32).wrapping_sub(b as u32) as u64);
kern!(mul32, k32, |a, b, c| (a as u32).wrapping_mul(b as u32) as u64);
kern!(and32, k32, |a, b, c| (a as u32 & b as u32) as u64);
kern!(or32, k32, |a, b, c| (a as u32 | b as u32) as u64);
kern!(xor32, k32, |a, b, c| (a as u32 ^ b as u32) as u64);
kern!(shl32, k32, |a, b, c| if (b as u32) < 32 { ((a as u32) << (b as u32 & 31)) as u64 } else { 0 });
kern!(shru32, k32, |a, b, c| if (b as u32) < 32 { ((a as u32) >> (b as u32 & 31)) as u64 } else { 0 });
kern!(shrs32, k32, |a, b, c| ((a as u32 as i32) >> (b as u32).min(31)) as u32 as u64);
kern!(minu32, k32, |a, b, c| (a as u32).min(b as u32) as u64);
kern!(maxu32, k32, |a, b, c| (a as u32).max(b as u32) as u64);
kern!(mins32, k32, |a, b, c| (a as u32 as i32).min(b as u32 as i32) as u32 as u64);
kern!(maxs32, k32, |a, b, c| (a as u32 as i32).max(b as u32 as i32) as u32 as u64);
kern!(addsat32, k32, |a, b, c| (a as u32 as i32).saturating_add(b as u32 as i32) as u32 as u64);
kern!(subsat32, k32, |a, b, c| (a as u32 as i32).saturating_sub(b as u32 as i32) as u32 as u64);
kern!(mad32, k32, |a, b, c| (a as u32).wrapping_mul(b as u32).wrapping_add(c as u32) as u64);
kern!(hiu32, k64, |a, b, c| (a as u32 as u64 * b as u32 as u64) >> 32);
kern!(his32, k64, |a, b, c| ((a as u32 as i32 as i64 * b as u32 as i32 as i64) >> 32) as u32 as u64);
kern!(wideu32, k64, |a, b, c| a as u32 as u64 * b as u32 as u64);
kern!(wides32, k64, |a, b, c| (a as u32 as i32 as i64 * b as u32 as i32 as i64) as u64);

kern!(add64, k64, |a, b, c| a.wrapping_add(b));
kern!(sub64, k64, |a, b, c| a.wrapping_sub(b));
kern!(mul64, k64, |a, b, c| a.wrapping_mul(b));
kern!(and64, k64, |a, b, c| a & b);
kern!(or64, k64, |a, b, c| a | b);
kern!(xor64, k64, |a, b, c| a ^ b);
kern!(shl64, k64, |a, b, c| if (b as u32) < 64 { a << (b as u32 & 63) } else { 0 });
kern!(shru64, k64, |a, b, c| if (b as u32) < 64 { a >> (b as u32 & 63) } else { 0 });
kern!(shrs64, k64, |a, b, c| ((a as i64) >> (b as u32).min(63)) as u64);
kern!(minu64, k64, |a, b, c| a.min(b));
kern!(maxu64, k64, |a, b, c| a.max(b));
kern!(mins64, k64, |a, b, c| (a as i64).min(b as i64) as u64);
kern!(maxs64, k64, |a, b, c| (a as i64).max(b as i64) as u64);
kern!(mad64, k64, |a, b, c| a.wrapping_mul(b).wrapping_add(c));

/// The kernel of integer `op` on type `ty` on path `p` for operand shape
/// `sh` (bit i: source i is an immediate), if there is one.
pub(crate) fn select_ibin(p: Path, op: IBinOp, ty: ITy, sh: u8) -> Option<KOp> {
    if p.is_hw() {
        ibin_on::<true>(op, ty, sh)
    } else {
        ibin_on::<false>(op, ty, sh)
    }
}

fn ibin_on<const H: bool>(op: IBinOp, ty: ITy, sh: u8) -> Option<KOp> {
    use IBinOp as B;
    Some(match (ty.bits, op, ty.signed) {
        (32, B::Add, _) => shapes!(2, sh, add32, H),
        (32, B::Sub, _) => shapes!(2, sh, sub32, H),
        (32, B::MulLo, _) => shapes!(2, sh, mul32, H),
        (32, B::And, _) => shapes!(2, sh, and32, H),
        (32, B::Or, _) => shapes!(2, sh, or32, H),
        (32, B::Xor, _) => shapes!(2, sh, xor32, H),
        (32, B::Shl, _) => shapes!(2, sh, shl32, H),
        (32, B::Shr, false) => shapes!(2, sh, shru32, H),
        (32, B::Shr, true) => shapes!(2, sh, shrs32, H),
        (32, B::Min, false) => shapes!(2, sh, minu32, H),
        (32, B::Max, false) => shapes!(2, sh, maxu32, H),
        (32, B::Min, true) => shapes!(2, sh, mins32, H),
        (32, B::Max, true) => shapes!(2, sh, maxs32, H),
        (32, B::AddSat, true) => shapes!(2, sh, addsat32, H),
        (32, B::SubSat, true) => shapes!(2, sh, subsat32, H),
        (32, B::MulHi, false) => shapes!(2, sh, hiu32, H),
        (32, B::MulHi, true) => shapes!(2, sh, his32, H),
        (32, B::MulWide, false) => shapes!(2, sh, wideu32, H),
        (32, B::MulWide, true) => shapes!(2, sh, wides32, H),
        (64, B::Add, _) => shapes!(2, sh, add64, H),
        (64, B::Sub, _) => shapes!(2, sh, sub64, H),
        (64, B::MulLo, _) => shapes!(2, sh, mul64, H),
        (64, B::And, _) => shapes!(2, sh, and64, H),
        (64, B::Or, _) => shapes!(2, sh, or64, H),
        (64, B::Xor, _) => shapes!(2, sh, xor64, H),
        (64, B::Shl, _) => shapes!(2, sh, shl64, H),
        (64, B::Shr, false) => shapes!(2, sh, shru64, H),
        (64, B::Shr, true) => shapes!(2, sh, shrs64, H),
        (64, B::Min, false) => shapes!(2, sh, minu64, H),
        (64, B::Max, false) => shapes!(2, sh, maxu64, H),
        (64, B::Min, true) => shapes!(2, sh, mins64, H),
        (64, B::Max, true) => shapes!(2, sh, maxs64, H),
        _ => return None,
    })
}

/// The kernel of `mad` on type `ty` on path `p` for operand shape `sh`, if
/// there is one (`mad.lo` on 32- and 64-bit types).
pub(crate) fn select_mad(p: Path, (hi, wide, sat): (bool, bool, bool), ty: ITy, sh: u8) -> Option<KOp> {
    if hi || wide || sat {
        return None;
    }
    if p.is_hw() {
        mad_on::<true>(ty, sh)
    } else {
        mad_on::<false>(ty, sh)
    }
}

fn mad_on<const H: bool>(ty: ITy, sh: u8) -> Option<KOp> {
    Some(match ty.bits {
        32 => shapes!(3, sh, mad32, H),
        64 => shapes!(3, sh, mad64, H),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxsim_sem::alu;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// A random value, a boundary value or a small one (shift amounts
        /// around the widths), with random upper bits now and then.
        fn value(&mut self) -> u64 {
            const EDGE: [u64; 12] = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1_0000_0000, i64::MAX as u64, 1 << 63, u64::MAX, 0xffff_ffff_8000_0000, 0x8000_0000_ffff_ffff];
            let r = self.next();
            match r % 4 {
                0 => EDGE[(r >> 8) as usize % EDGE.len()],
                1 => (r >> 8) % 70 | if r >> 40 & 1 != 0 { self.next() << 32 } else { 0 },
                _ => self.next(),
            }
        }

        fn lanes(&mut self) -> L {
            std::array::from_fn(|_| self.value())
        }
    }

    fn paths() -> Vec<Path> {
        let d = Path::detect();
        if d.is_hw() {
            vec![Path::SOFTWARE, d]
        } else {
            vec![Path::SOFTWARE]
        }
    }

    const TYPES: [ITy; 4] = [ITy { bits: 32, signed: false }, ITy { bits: 32, signed: true }, ITy { bits: 64, signed: false }, ITy { bits: 64, signed: true }];
    const OPS: [IBinOp; 16] = [
        IBinOp::Add,
        IBinOp::Sub,
        IBinOp::AddSat,
        IBinOp::SubSat,
        IBinOp::MulLo,
        IBinOp::MulHi,
        IBinOp::MulWide,
        IBinOp::Div,
        IBinOp::Rem,
        IBinOp::Min,
        IBinOp::Max,
        IBinOp::And,
        IBinOp::Or,
        IBinOp::Xor,
        IBinOp::Shl,
        IBinOp::Shr,
    ];

    /// Runs the kernel `sel` gives for each shape of sources `srcs` (an
    /// immediate source takes lane 0's value in every lane) with the
    /// destination a fresh register, then each register source, on mask
    /// `m`; checks every lane against `want` (the mask's lanes) or the
    /// destination's old value. Returns whether there was a kernel.
    fn check(sel: impl Fn(u8) -> Option<KOp>, srcs: &[L], old: &L, m: u32, want: impl Fn(&[u64]) -> u64, what: &str) -> bool {
        let n = srcs.len();
        let mut any = false;
        for sh in 0u8..1 << n {
            let Some(k) = sel(sh | (0b111 << n & 0b111)) else { continue };
            any = true;
            // The sources as they read: an immediate is lane 0's value.
            let eff: Vec<L> = (0..n).map(|i| if sh >> i & 1 != 0 { [srcs[i][0]; 32] } else { srcs[i] }).collect();
            // Destination register: 0 (fresh), or a register source's index.
            for d in std::iter::once(0).chain((0..n).filter(|&i| sh >> i & 1 == 0).map(|i| i + 1)) {
                let mut regs: Vec<L> = std::iter::once(*old).chain(srcs.iter().copied()).collect();
                let mut o: KOps = [d as u64, 0, 0, 0];
                for i in 0..n {
                    o[i + 1] = if sh >> i & 1 != 0 { srcs[i][0] } else { (i + 1) as u64 };
                }
                let before = regs[d];
                k(&mut regs, &super::flanes::with_aliases(o, sh | (0b111 << n & 0b111)), m);
                for l in 0..32 {
                    let args: Vec<u64> = eff.iter().map(|s| s[l]).collect();
                    let w = if m >> l & 1 != 0 { want(&args) } else { before[l] };
                    assert_eq!(regs[d][l], w, "{what} shape {sh:#b} d=r{d} lane {l} mask {m:#x} operands {args:#x?}");
                }
                // The other registers are untouched.
                for (r, v) in regs.iter().enumerate() {
                    if r != d {
                        let orig = if r == 0 { old } else { &srcs[r - 1] };
                        assert_eq!(v, orig, "{what}: r{r} changed");
                    }
                }
            }
        }
        any
    }

    fn masks(rng: &mut Rng) -> [u32; 4] {
        [u32::MAX, 0, rng.next() as u32, 0x8000_0001]
    }

    #[test]
    fn ibin_kernels_match_alu() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut had = std::collections::HashSet::new();
        for _ in 0..40 {
            let (x, y, old) = (rng.lanes(), rng.lanes(), rng.lanes());
            for m in masks(&mut rng) {
                for p in paths() {
                    for ty in TYPES {
                        for op in OPS {
                            let what = format!("{op:?} {ty:?} {p:?}");
                            let want = |v: &[u64]| alu::ibin(op, ty, v[0], v[1]).expect("no division here");
                            if check(|sh| select_ibin(p, op, ty, sh), &[x, y], &old, m, want, &what) {
                                had.insert(format!("{op:?} {ty:?}"));
                            }
                        }
                    }
                }
            }
        }
        // Every form the engine's common loops use has a kernel.
        for f in ["Add", "Sub", "MulLo", "And", "Or", "Xor", "Shl", "Shr", "Min", "Max"] {
            for ty in TYPES {
                assert!(had.contains(&format!("{f} {ty:?}")), "{f} {ty:?}");
            }
        }
        for f in ["MulHi", "MulWide"] {
            for signed in [false, true] {
                assert!(had.contains(&format!("{f} {:?}", ITy { bits: 32, signed })), "{f}");
            }
        }
    }

    #[test]
    fn no_kernel_for_division_or_narrow_types() {
        for p in paths() {
            for sh in 4..8 {
                for op in [IBinOp::Div, IBinOp::Rem] {
                    for ty in TYPES {
                        assert!(select_ibin(p, op, ty, sh).is_none());
                    }
                }
                for bits in [8, 16] {
                    assert!(select_ibin(p, IBinOp::Add, ITy { bits, signed: false }, sh).is_none());
                }
            }
            assert!(select_mad(p, (true, false, false), TYPES[0], 0).is_none());
            assert!(select_mad(p, (false, true, false), TYPES[0], 0).is_none());
        }
    }

    #[test]
    fn mad_kernels_match_alu() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for _ in 0..20 {
            let (x, y, z, old) = (rng.lanes(), rng.lanes(), rng.lanes(), rng.lanes());
            for m in masks(&mut rng) {
                for p in paths() {
                    for ty in TYPES {
                        let what = format!("mad.lo {ty:?} {p:?}");
                        let want = |v: &[u64]| alu::mad(false, false, false, ty, v[0], v[1], v[2]);
                        assert!(check(|sh| select_mad(p, (false, false, false), ty, sh), &[x, y, z], &old, m, want, &what));
                    }
                }
            }
        }
    }
}
