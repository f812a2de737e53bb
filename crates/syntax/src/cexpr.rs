//! Constant-expression evaluation: the operators of PTX constant expressions
//! on typed 64-bit values (PTX ISA 4.5.5 "Integer Constant Expression
//! Evaluation" and 4.5.6 "Summary of Constant Expression Evaluation Rules").
//!
//! Every stage folds constant expressions through this module, so the parser's
//! checks, the address offsets it folds and the engine's immediates and
//! initialisers agree. The rules:
//!
//! - an integer is signed (`.s64`) or unsigned (`.u64`); a literal is unsigned
//!   when it has a `U` suffix or does not fit in `.s64`;
//! - unary `-` keeps the type, `!` gives a signed 0 or 1, `~` gives an
//!   unsigned result, `(.s64)` and `(.u64)` change only the type;
//! - `+ - * / & | ^` and the ordered comparisons first apply the usual
//!   conversions (both unsigned if either is); arithmetic wraps, `/` divides
//!   as signed only when both are signed (the quotient of
//!   `-9223372036854775808 / -1` wraps to itself: ptxas 13.5 crashes on it);
//! - `%` reads both operands as unsigned and gives an unsigned result
//!   (`-5 % 2` is 1), as the manual says and ptxas 13.5 does;
//! - `<<` and `>>` keep the type of the left operand, read the count as
//!   unsigned modulo 64 (ptxas 13.5: `1 << 64` is 1), and `>>` of a signed
//!   value is arithmetic;
//! - `< > <= >= == != && ||` give a signed 0 or 1;
//! - `c ? a : b` takes integers only; its value keeps the type of the operand
//!   chosen (ptxas 13.5: `(1 ? -1 : 0U) > 0` is 0; the manual's table would
//!   convert both to unsigned);
//! - floating-point values (`.f64`) take `+ - * /`, unary `-` and the
//!   comparisons; mixing an integer with a float is a type mismatch, and any
//!   other operator on a float wants an integer (both as ptxas 13.5 reports);
//! - dividing by zero, integer or float, is an error (ptxas 13.5: "Constant
//!   expression has division by zero"), wherever it occurs in the expression.

use crate::ast::{BinOp, Expr, UnOp};
use crate::span::Span;

/// The value of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CVal {
    Int { value: u64, unsigned: bool },
    Float(f64),
}

impl CVal {
    pub fn int(value: u64, unsigned: bool) -> CVal {
        CVal::Int { value, unsigned }
    }

    fn flag(b: bool) -> CVal {
        CVal::Int { value: b as u64, unsigned: false }
    }
}

/// Why a constant expression has no value.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstError {
    /// `/` or `%` by zero; the span is the divisor's.
    DivByZero(Span),
    /// An integer and a float meet in one operator; the span is the operator's expression.
    TypeMismatch(Span),
    /// An operator that takes integers only met a float.
    IntExpected(Span, &'static str),
    /// A name the caller could not resolve, with its own message.
    Leaf(String),
    /// A mask operator whose mask is not one byte (`0xFF << 8k`).
    BadMask(Span, u64),
}

impl ConstError {
    pub fn message(&self) -> String {
        match self {
            ConstError::DivByZero(_) => "constant expression has division by zero".to_string(),
            ConstError::TypeMismatch(_) => {
                "constant expression type mismatch: an integer and a floating-point value are mixed".to_string()
            }
            ConstError::IntExpected(_, op) => format!("integer constant expression expected: `{op}` takes integers only"),
            ConstError::Leaf(m) => m.clone(),
            ConstError::BadMask(_, m) => format!("invalid mask value `{m:#x}` in an initialiser: the mask operator takes one byte, `0xff`, `0xff00`, ... `0xff00000000000000`"),
        }
    }

    pub fn span(&self) -> Option<Span> {
        match self {
            ConstError::DivByZero(s) | ConstError::TypeMismatch(s) | ConstError::IntExpected(s, _) | ConstError::BadMask(s, _) => Some(*s),
            ConstError::Leaf(_) => None,
        }
    }
}

impl std::fmt::Display for ConstError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// Applies a unary operator; `span` is the whole expression's.
pub fn unop(op: UnOp, a: CVal, span: Span) -> Result<CVal, ConstError> {
    Ok(match (op, a) {
        (UnOp::Neg, CVal::Int { value, unsigned }) => CVal::int(value.wrapping_neg(), unsigned),
        (UnOp::Neg, CVal::Float(f)) => CVal::Float(-f),
        (UnOp::Not, CVal::Int { value, .. }) => CVal::flag(value == 0),
        (UnOp::BitNot, CVal::Int { value, .. }) => CVal::int(!value, true),
        (UnOp::CastS64, CVal::Int { value, .. }) => CVal::int(value, false),
        (UnOp::CastU64, CVal::Int { value, .. }) => CVal::int(value, true),
        (op, CVal::Float(_)) => return Err(ConstError::IntExpected(span, op.as_str())),
    })
}

/// Applies a binary operator; `span` is the whole expression's, `rhs` the
/// right operand's (where a division by zero is reported).
pub fn binop(op: BinOp, a: CVal, b: CVal, span: Span, rhs: Span) -> Result<CVal, ConstError> {
    use BinOp::*;
    match (a, b) {
        (CVal::Float(x), CVal::Float(y)) => Ok(match op {
            Add => CVal::Float(x + y),
            Sub => CVal::Float(x - y),
            Mul => CVal::Float(x * y),
            Div if y == 0.0 => return Err(ConstError::DivByZero(rhs)),
            Div => CVal::Float(x / y),
            Lt => CVal::flag(x < y),
            Gt => CVal::flag(x > y),
            Le => CVal::flag(x <= y),
            Ge => CVal::flag(x >= y),
            Eq => CVal::flag(x == y),
            Ne => CVal::flag(x != y),
            Rem | Shl | Shr | And | Or | Xor | LAnd | LOr => return Err(ConstError::IntExpected(span, op.as_str())),
        }),
        (CVal::Int { value: x, unsigned: ux }, CVal::Int { value: y, unsigned: uy }) => {
            let u = ux || uy;
            let (sx, sy) = (x as i64, y as i64);
            Ok(match op {
                Add => CVal::int(x.wrapping_add(y), u),
                Sub => CVal::int(x.wrapping_sub(y), u),
                Mul => CVal::int(x.wrapping_mul(y), u),
                Div | Rem if y == 0 => return Err(ConstError::DivByZero(rhs)),
                Div if u => CVal::int(x / y, true),
                Div => CVal::int(sx.wrapping_div(sy) as u64, false),
                Rem => CVal::int(x % y, true),
                Shl => CVal::int(x.wrapping_shl(y as u32), ux),
                Shr if ux => CVal::int(x.wrapping_shr(y as u32), true),
                Shr => CVal::int(sx.wrapping_shr(y as u32) as u64, false),
                And => CVal::int(x & y, u),
                Or => CVal::int(x | y, u),
                Xor => CVal::int(x ^ y, u),
                Lt => CVal::flag(if u { x < y } else { sx < sy }),
                Gt => CVal::flag(if u { x > y } else { sx > sy }),
                Le => CVal::flag(if u { x <= y } else { sx <= sy }),
                Ge => CVal::flag(if u { x >= y } else { sx >= sy }),
                Eq => CVal::flag(x == y),
                Ne => CVal::flag(x != y),
                LAnd => CVal::flag(x != 0 && y != 0),
                LOr => CVal::flag(x != 0 || y != 0),
            })
        }
        _ => Err(ConstError::TypeMismatch(span)),
    }
}

/// Chooses between the operands of `c ? a : b`; all three must be integers.
pub fn cond(c: CVal, a: CVal, b: CVal, span: Span) -> Result<CVal, ConstError> {
    match (c, a, b) {
        (CVal::Int { value, .. }, CVal::Int { .. }, CVal::Int { .. }) => Ok(if value != 0 { a } else { b }),
        _ => Err(ConstError::IntExpected(span, "?:")),
    }
}

/// The value of a literal.
pub fn literal(e: &Expr<'_>) -> Option<CVal> {
    match e {
        Expr::Int(l, _) => Some(CVal::int(l.value, l.unsigned)),
        Expr::Float(f, _) => Some(CVal::Float(f.as_f64())),
        _ => None,
    }
}

/// Folds `e`, asking `leaf` for the value of each name and `generic(name)`.
/// Both operands of every operator are folded before it is applied, so an
/// error in either is found wherever it is.
pub fn eval_with<'a>(
    e: &Expr<'a>,
    leaf: &mut dyn FnMut(&Expr<'a>) -> Result<CVal, String>,
) -> Result<CVal, ConstError> {
    match e {
        Expr::Int(..) | Expr::Float(..) => Ok(literal(e).unwrap_or(CVal::int(0, false))),
        Expr::Name(_) | Expr::Generic(..) => leaf(e).map_err(ConstError::Leaf),
        Expr::Unary(op, a, span) => unop(*op, eval_with(a, leaf)?, *span),
        Expr::Binary(op, a, b, span) => {
            let x = eval_with(a, leaf)?;
            let y = eval_with(b, leaf)?;
            binop(*op, x, y, *span, b.span())
        }
        Expr::Cond(c, a, b, span) => {
            let c = eval_with(c, leaf)?;
            let x = eval_with(a, leaf)?;
            let y = eval_with(b, leaf)?;
            cond(c, x, y, *span)
        }
        Expr::Mask(m, a, span) => mask(*m, eval_with(a, leaf)?, *span),
    }
}

/// Whether `m` is a mask the mask operator takes: `0xFF << 8k` (ptxas
/// 12.9: "Invalid mask value" otherwise).
pub fn valid_mask(m: u64) -> bool {
    m != 0 && m.trailing_zeros() % 8 == 0 && m >> m.trailing_zeros() == 0xFF
}

/// `m(x)`: the byte of the integer `x` that `m` selects, as a value of
/// 0..255 (an address's bytes, one per `.u8` element, as LLVM lays out a
/// packed aggregate holding a pointer).
fn mask(m: u64, x: CVal, span: Span) -> Result<CVal, ConstError> {
    match x {
        CVal::Int { value, .. } if valid_mask(m) => Ok(CVal::int((value & m) >> m.trailing_zeros(), false)),
        CVal::Int { .. } => Err(ConstError::BadMask(span, m)),
        CVal::Float(_) => Err(ConstError::IntExpected(span, "a mask")),
    }
}

/// Checks `e` as far as it is constant: a name stands for an integer whose
/// value is not known here (an address). Returns the value where it is known,
/// `None` where it depends on a name, or the first error (a division by a
/// known zero, a float mixed with an integer, a float where an integer is
/// wanted).
pub fn check(e: &Expr<'_>) -> Result<Option<CVal>, ConstError> {
    Ok(match e {
        Expr::Int(..) | Expr::Float(..) => literal(e),
        Expr::Name(_) | Expr::Generic(..) => None,
        Expr::Unary(op, a, span) => match check(a)? {
            Some(v) => Some(unop(*op, v, *span)?),
            None => None,
        },
        Expr::Binary(op, a, b, span) => {
            let x = check(a)?;
            let y = check(b)?;
            match (x, y) {
                (Some(x), Some(y)) => Some(binop(*op, x, y, *span, b.span())?),
                (_, Some(CVal::Int { value: 0, .. })) if matches!(op, BinOp::Div | BinOp::Rem) => {
                    return Err(ConstError::DivByZero(b.span()))
                }
                (Some(CVal::Float(_)), None) | (None, Some(CVal::Float(_))) => {
                    return Err(ConstError::TypeMismatch(*span))
                }
                _ => None,
            }
        }
        // (An invalid mask is the checker's to report, at the initialiser.)
        Expr::Mask(m, a, span) => match check(a)? {
            Some(v) if valid_mask(*m) => Some(mask(*m, v, *span)?),
            _ => None,
        },
        Expr::Cond(c, a, b, span) => {
            let c = check(c)?;
            let x = check(a)?;
            let y = check(b)?;
            match (c, x, y) {
                (Some(c), Some(x), Some(y)) => Some(cond(c, x, y, *span)?),
                _ if [c, x, y].iter().any(|v| matches!(v, Some(CVal::Float(_)))) => {
                    return Err(ConstError::IntExpected(*span, "?:"))
                }
                _ => None,
            }
        }
    })
}

/// Whether `e` holds an operator, so that [`check`] has anything to find.
pub fn has_operator(e: &Expr<'_>) -> bool {
    matches!(e, Expr::Unary(..) | Expr::Binary(..) | Expr::Cond(..) | Expr::Mask(..))
}
