//! Type classes and the PTX type-compatibility rules for instruction operands
//! (PTX ISA 6.4 "Operand type information", tables "Type checking rules" and
//! "Relaxed type-checking rules"), refined by what ptxas 12.9 accepts
//! (`tests/check/README.md`, "Operand types" and "call").
//!
//! - A bit-size instruction type `.bN` accepts any register of size N (`mov.b32`
//!   from `.f32`).
//! - An integer type `.uN`/`.sN` accepts `.bN`, `.uN`, `.sN` registers, never a
//!   float (`mov.u32` from `.f32` is rejected).
//! - A float type `.fN` accepts `.fN` and `.bN` registers.
//! - A predicate is never an integer and an integer never a predicate.
//! - `ld`, `st` and `cvt` let a data register be wider than the instruction type.

use ptxsim_syntax::ast::ScalarType;

/// The class of a scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Bits,
    Unsigned,
    Signed,
    Float,
    Pred,
    Opaque,
}

pub fn class(t: ScalarType) -> Class {
    use ScalarType::*;
    match t {
        B8 | B16 | B32 | B64 | B128 => Class::Bits,
        U8 | U16 | U32 | U64 => Class::Unsigned,
        S8 | S16 | S32 | S64 => Class::Signed,
        F16 | F16x2 | Bf16 | Bf16x2 | F32 | F64 | Tf32 | E4m3 | E5m2 | E4m3x2 | E5m2x2 => Class::Float,
        Pred => Class::Pred,
        Texref | Samplerref | Surfref => Class::Opaque,
    }
}

pub fn is_int(t: ScalarType) -> bool {
    matches!(class(t), Class::Unsigned | Class::Signed)
}

/// How strictly an operand's register size must match the instruction type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Exactly the instruction type's size.
    Exact,
    /// The register may be wider (`ld`, `st`, `cvt` data operands).
    AtLeast,
}

/// Whether a register of type `reg` may stand where the instruction type `ins`
/// is expected.
pub fn reg_fits(ins: ScalarType, reg: ScalarType, size: Size) -> bool {
    // Looked up once per register operand: read from a table of every
    // (instruction type, register type, size rule) filled by the rule below.
    static TABLE: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let n = ScalarType::ALL.len();
    let at = |i: ScalarType, r: ScalarType, s: Size| (i as usize * n + r as usize) * 2 + (s == Size::AtLeast) as usize;
    let t = TABLE.get_or_init(|| {
        let mut t = vec![false; n * n * 2];
        for &i in ScalarType::ALL {
            for &r in ScalarType::ALL {
                for s in [Size::Exact, Size::AtLeast] {
                    t[at(i, r, s)] = reg_fits_rule(i, r, s);
                }
            }
        }
        t
    });
    t.get(at(ins, reg, size)).copied().unwrap_or_else(|| reg_fits_rule(ins, reg, size))
}

/// The rule [`reg_fits`] tabulates.
fn reg_fits_rule(ins: ScalarType, reg: ScalarType, size: Size) -> bool {
    let (ci, cr) = (class(ins), class(reg));
    if ci == Class::Pred || cr == Class::Pred {
        return ci == cr;
    }
    if ci == Class::Opaque || cr == Class::Opaque {
        return ins == reg;
    }
    let size_ok = match size {
        Size::Exact => reg.bits() == ins.bits(),
        Size::AtLeast => reg.bits() >= ins.bits(),
    };
    if !size_ok {
        return false;
    }
    match ci {
        Class::Bits => true,
        Class::Unsigned | Class::Signed => matches!(cr, Class::Bits | Class::Unsigned | Class::Signed),
        Class::Float => {
            if size == Size::AtLeast && reg.bits() > ins.bits() {
                // A wider register for a float load or conversion must be a bit-size one.
                cr == Class::Bits || cr == Class::Unsigned || cr == Class::Signed || reg == ins
            } else {
                cr == Class::Bits || reg == ins || (cr == Class::Float && reg.bits() == ins.bits() && packed(reg) == packed(ins) && !half_mismatch(ins, reg))
            }
        }
        Class::Pred | Class::Opaque => false,
    }
}

fn packed(t: ScalarType) -> bool {
    matches!(t, ScalarType::F16x2 | ScalarType::Bf16x2 | ScalarType::E4m3x2 | ScalarType::E5m2x2)
}

fn half_mismatch(a: ScalarType, b: ScalarType) -> bool {
    // .f16 and .bf16 are both 16 bits but are different formats.
    a != b
}

/// Whether an argument of type `arg` may be passed for a formal parameter of
/// type `formal` (ptxas 12.9: `.b32` formal takes `.u32/.s32/.f32`; `.u32`
/// takes `.s32/.b32` but not `.f32` or `.u16`; `.f32` rejects `.u32`; `.b64`
/// takes `.f64`; `.f64` rejects `.f32`).
pub fn arg_fits(formal: ScalarType, arg: ScalarType) -> bool {
    if formal.bits() != arg.bits() {
        return false;
    }
    let (cf, ca) = (class(formal), class(arg));
    match cf {
        Class::Bits => ca != Class::Pred && ca != Class::Opaque,
        Class::Unsigned | Class::Signed => matches!(ca, Class::Bits | Class::Unsigned | Class::Signed),
        Class::Float => ca == Class::Bits || formal == arg,
        Class::Pred => ca == Class::Pred,
        Class::Opaque => formal == arg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::*;

    #[test]
    fn relaxed_rules() {
        assert!(reg_fits(B32, F32, Size::Exact));
        assert!(!reg_fits(U32, F32, Size::Exact));
        assert!(!reg_fits(F32, U32, Size::Exact));
        assert!(reg_fits(F32, B32, Size::Exact));
        assert!(reg_fits(S32, B32, Size::Exact));
        assert!(reg_fits(U32, S32, Size::Exact));
        assert!(!reg_fits(S32, S64, Size::Exact));
        assert!(reg_fits(U32, U64, Size::AtLeast));
        assert!(!reg_fits(U64, U32, Size::AtLeast));
        assert!(!reg_fits(U32, Pred, Size::Exact));
        assert!(!reg_fits(Pred, U32, Size::Exact));
        assert!(reg_fits(Pred, Pred, Size::Exact));
        assert!(reg_fits(F16, B16, Size::Exact));
        assert!(!reg_fits(F16, Bf16, Size::Exact));
    }

    #[test]
    fn call_arguments() {
        assert!(arg_fits(B32, U32) && arg_fits(B32, S32) && arg_fits(B32, F32));
        assert!(arg_fits(U32, S32) && arg_fits(U32, B32));
        assert!(!arg_fits(U32, F32) && !arg_fits(U32, U16));
        assert!(!arg_fits(F32, U32));
        assert!(arg_fits(U64, B64) && arg_fits(B64, F64) && arg_fits(S64, U64));
        assert!(!arg_fits(F64, F32));
    }
}

#[cfg(test)]
mod reg_fits_tests {
    use super::*;

    /// The table answers what the rule answers, and `ALL` lists the types in
    /// declaration order (the table's index).
    #[test]
    fn the_table_is_the_rule() {
        for (k, &i) in ScalarType::ALL.iter().enumerate() {
            assert_eq!(i as usize, k);
            for &r in ScalarType::ALL {
                for s in [Size::Exact, Size::AtLeast] {
                    assert_eq!(reg_fits(i, r, s), reg_fits_rule(i, r, s), "{i:?} {r:?}");
                }
            }
        }
    }
}
