//! Lane-wise semantics of the less common scalar instructions, on raw bits
//! like the rest of [`crate::alu`]: the carry chain (`add.cc`, `addc`,
//! `sub.cc`, `subc`, `mad.cc`, `madc`), and the integer helpers `sad`,
//! `dp4a`, `dp2a`, `bmsk`, `szext`, `fns` and the float class test `testp`.
//!
//! Each function follows the semantics block of its PTX ISA section
//! (9.7.1 integer arithmetic, 9.7.2 extended-precision integer arithmetic,
//! 9.7.3 floating point); the tests in `crates/exec/tests/isa_scalar.rs`
//! check them against independent computations.

use super::ITy;

/// Which operation a carry-chain instruction performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryKind {
    /// `add.cc`, `addc`: `d = a + b + CF`.
    Add,
    /// `sub.cc`, `subc`: `d = a - (b + CF)`.
    Sub,
    /// `mad.lo.cc`, `madc.lo`: `d = (a*b)<n-1..0> + c + CF`.
    MadLo,
    /// `mad.hi.cc`, `madc.hi`: `d = (a*b)<2n-1..n> + c + CF`.
    MadHi,
}

/// One carry-chain step on `ty` (32 or 64 bits): the result and the
/// carry-out (for `Sub`, the borrow-out) written to CC.CF by `.cc`.
///
/// The carry of an addition is the carry out of the unsigned `n`-bit sum
/// (PTX ISA 9.7.2: "behaviour is the same for unsigned and signed
/// integers"); the borrow of a subtraction is 1 when `b + CF` exceeds `a`
/// as unsigned `n`-bit numbers. For `.hi` the product is signed or
/// unsigned per the type, and its high half is then added as `n` bits.
pub fn carry(kind: CarryKind, ty: ITy, a: u64, b: u64, c: u64, cf: bool) -> (u64, bool) {
    let mk = ty.mask();
    let (a, b, c) = (a & mk, b & mk, c & mk);
    let n = ty.bits;
    let cin = cf as u128;
    match kind {
        CarryKind::Add => add_n(a, b, cin, n),
        CarryKind::Sub => {
            let sub = b as u128 + cin;
            let d = (a as u128).wrapping_sub(sub) as u64 & mk;
            (d, sub > a as u128)
        }
        CarryKind::MadLo => add_n(a.wrapping_mul(b) & mk, c, cin, n),
        CarryKind::MadHi => {
            let hi = if ty.signed {
                let p = super::sext(a, n) as i128 * super::sext(b, n) as i128;
                (p >> n) as u64 & mk
            } else {
                ((a as u128 * b as u128) >> n) as u64 & mk
            };
            add_n(hi, c, cin, n)
        }
    }
}

fn add_n(x: u64, y: u64, cin: u128, n: u32) -> (u64, bool) {
    let s = x as u128 + y as u128 + cin;
    let mk = if n >= 64 { u64::MAX as u128 } else { (1u128 << n) - 1 };
    ((s & mk) as u64, s >> n != 0)
}
