//! Constant expressions (PTX ISA 4.5.5, 4.5.6): the grammar of C's integer
//! constant expressions, by precedence climbing, with the conditional operator
//! `?:`, the casts `(.s64)` and `(.u64)`, and the checks that need no symbol
//! values (division by zero, floats mixed with integers), reported where the
//! expression is written.
//!
//! Operators of two characters (`<<`, `<=`, `==`, `!=`, `&&`, `||`, ...) are
//! two adjacent one-character tokens: ptxas 13.5 refuses `< =` and `& &`. A
//! `%` followed by a name character is a register name (`%r1`, `%3`), as in
//! ptxas; otherwise it is the remainder operator.

use super::{parse_float, parse_int, PResult, Parser, Recover};
use crate::ast::*;
use crate::cexpr::{self, ConstError};
use crate::diag::Diagnostic;
use crate::lexer::Tok;

use super::stmts::{warp_sz, WARP_SZ};

impl<'a> Parser<'a> {
    /// A whole constant expression, checked.
    pub(crate) fn expr(&mut self) -> PResult<Expr<'a>> {
        let e = self.expr_inner()?;
        self.check_const(&e)?;
        Ok(e)
    }

    /// The rest of a constant expression whose first operand `lhs` was read, checked.
    pub(crate) fn expr_tail(&mut self, lhs: Expr<'a>, min_prec: u8) -> PResult<Expr<'a>> {
        let e = self.binary_tail(lhs, min_prec.max(1))?;
        let e = if min_prec == 0 { self.cond_tail(e)? } else { e };
        self.check_const(&e)?;
        Ok(e)
    }

    /// Reports a division by zero or a type error in `e` (with names taken as
    /// integers of unknown value).
    fn check_const(&mut self, e: &Expr<'a>) -> PResult<()> {
        if !cexpr::has_operator(e) {
            return Ok(());
        }
        match cexpr::check(e) {
            Ok(_) => Ok(()),
            Err(err) => {
                let span = err.span().unwrap_or(e.span());
                let (code, label, note) = match err {
                    ConstError::DivByZero(_) => (
                        "syntax/const-div-zero",
                        "this divisor is zero",
                        "PTX ISA 4.5.5: constant expressions are evaluated when the module is assembled; ptxas refuses a division or remainder by zero anywhere in one, also in a branch of `?:` that is not taken",
                    ),
                    ConstError::TypeMismatch(_) => (
                        "syntax/const-type",
                        "an integer and a floating-point value",
                        "PTX ISA 4.5.6: both operands of an operator are integers or both are floating-point; write `2.0`, not `2`, in a floating-point expression",
                    ),
                    _ => (
                        "syntax/const-type",
                        "a floating-point value here",
                        "PTX ISA 4.5.6: floating-point constant expressions take `+ - * /`, unary `-` and comparisons only",
                    ),
                };
                let msg = err.message();
                self.error(Diagnostic::error(code, span, msg).with_label(label).with_note(note));
                Err(Recover)
            }
        }
    }

    /// A conditional expression, unchecked (for the inside of parentheses and
    /// the branches of `?:`; the outermost expression is checked once).
    fn expr_inner(&mut self) -> PResult<Expr<'a>> {
        let lhs = self.unary()?;
        let e = self.binary_tail(lhs, 1)?;
        self.cond_tail(e)
    }

    /// `c ? a : b` when a `?` follows the condition `c`.
    fn cond_tail(&mut self, c: Expr<'a>) -> PResult<Expr<'a>> {
        if self.tok != Tok::Question {
            return Ok(c);
        }
        self.bump();
        self.enter()?;
        let r = (|| {
            let a = self.expr_inner()?;
            self.expect(Tok::Colon)?;
            let b = self.expr_inner()?;
            Ok((a, b))
        })();
        self.leave();
        let (a, b) = r?;
        let span = c.span().to(b.span());
        Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b), span))
    }

    fn binary_tail(&mut self, mut lhs: Expr<'a>, min_prec: u8) -> PResult<Expr<'a>> {
        // Each operator of a left-leaning chain (`1+1+1+...`) nests the tree one
        // level deeper, and dropping, printing or folding the tree recurses
        // that deep: count the chain against the depth bound too.
        let mut chain = 0u32;
        loop {
            let Some((op, width)) = self.peek_binop() else { return Ok(lhs) };
            let prec = op.prec();
            if prec < min_prec {
                return Ok(lhs);
            }
            chain += 1;
            if self.depth + chain > super::MAX_DEPTH {
                let d = Diagnostic::error(
                    "syntax/too-deep",
                    self.span,
                    format!("expression nested deeper than {} levels", super::MAX_DEPTH),
                );
                self.error(d);
                return Err(Recover);
            }
            for _ in 0..width {
                self.bump();
            }
            self.enter()?;
            let r = (|| {
                let mut rhs = self.unary()?;
                while let Some((op2, _)) = self.peek_binop() {
                    if op2.prec() <= prec {
                        break;
                    }
                    rhs = self.binary_tail(rhs, prec + 1)?;
                }
                Ok(rhs)
            })();
            self.leave();
            let rhs = r?;
            let span = lhs.span().to(rhs.span());
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs), span);
        }
    }

    /// The binary operator at the current token, with its width in tokens.
    #[inline]
    pub(crate) fn peek_binop(&self) -> Option<(BinOp, u8)> {
        // The next token touches this one: `<<`, not `< <`.
        let joined = |p: &Self, t: Tok| p.next == t && p.next_span.start == p.span.end;
        Some(match self.tok {
            Tok::Plus => (BinOp::Add, 1),
            Tok::Minus => (BinOp::Sub, 1),
            Tok::Star => (BinOp::Mul, 1),
            Tok::Slash => (BinOp::Div, 1),
            Tok::Ident if self.span.end == self.span.start + 1 && self.src.as_bytes()[self.span.start as usize] == b'%' => {
                (BinOp::Rem, 1)
            }
            Tok::Pipe if joined(self, Tok::Pipe) => (BinOp::LOr, 2),
            Tok::Pipe => (BinOp::Or, 1),
            Tok::Caret => (BinOp::Xor, 1),
            Tok::Amp if joined(self, Tok::Amp) => (BinOp::LAnd, 2),
            Tok::Amp => (BinOp::And, 1),
            Tok::Lt if joined(self, Tok::Lt) => (BinOp::Shl, 2),
            Tok::Lt if joined(self, Tok::Eq) => (BinOp::Le, 2),
            Tok::Lt => (BinOp::Lt, 1),
            Tok::Gt if joined(self, Tok::Gt) => (BinOp::Shr, 2),
            Tok::Gt if joined(self, Tok::Eq) => (BinOp::Ge, 2),
            Tok::Gt => (BinOp::Gt, 1),
            Tok::Eq if joined(self, Tok::Eq) => (BinOp::Eq, 2),
            Tok::Bang if joined(self, Tok::Eq) => (BinOp::Ne, 2),
            _ => return None,
        })
    }

    fn unary(&mut self) -> PResult<Expr<'a>> {
        let start = self.span;
        match self.tok {
            Tok::Minus | Tok::Bang | Tok::Tilde | Tok::Plus => {
                let op = match self.tok {
                    Tok::Minus => Some(UnOp::Neg),
                    Tok::Bang => Some(UnOp::Not),
                    Tok::Tilde => Some(UnOp::BitNot),
                    // Unary `+` keeps its operand as it is.
                    _ => None,
                };
                self.bump();
                self.enter()?;
                let r = self.unary();
                self.leave();
                let inner = r?;
                let span = self.since(start);
                // Fold negated literals so that `-1` is a literal, as written.
                Ok(match (op, inner) {
                    (None, inner) => inner,
                    (Some(UnOp::Neg), Expr::Int(l, _)) => {
                        Expr::Int(IntLit { value: l.value.wrapping_neg(), unsigned: l.unsigned }, span)
                    }
                    (Some(UnOp::Neg), Expr::Float(f, _)) => Expr::Float(negate_float(f), span),
                    (Some(op), inner) => Expr::Unary(op, Box::new(inner), span),
                })
            }
            Tok::LParen if self.next == Tok::Dot => {
                // A cast: `(.s64) e` or `(.u64) e`.
                self.bump();
                let ty = self.bump();
                let op = match self.text(ty) {
                    ".s64" => UnOp::CastS64,
                    ".u64" => UnOp::CastU64,
                    other => {
                        let d = Diagnostic::error(
                            "syntax/bad-cast",
                            ty,
                            format!("unsupported cast `({other})` in a constant expression"),
                        )
                        .with_label("not `.s64` or `.u64`")
                        .with_note("PTX ISA 4.5.5: constant expressions are cast with `(.s64)` and `(.u64)` only");
                        self.error(d);
                        return Err(Recover);
                    }
                };
                self.expect(Tok::RParen)?;
                self.enter()?;
                let r = self.unary();
                self.leave();
                let inner = r?;
                Ok(Expr::Unary(op, Box::new(inner), self.since(start)))
            }
            Tok::LParen => {
                self.bump();
                self.enter()?;
                let r = self.expr_inner();
                self.leave();
                let e = r?;
                self.expect(Tok::RParen)?;
                Ok(e)
            }
            Tok::Int => {
                let span = self.bump();
                match parse_int(self.text(span)) {
                    // `0xFF00(expr)`: the mask operator (a literal right
                    // before `(` is nothing else).
                    Some(l) if self.at(Tok::LParen) => {
                        self.bump();
                        self.enter()?;
                        let r = self.expr_inner();
                        self.leave();
                        let e = r?;
                        self.expect(Tok::RParen)?;
                        Ok(Expr::Mask(l.value, Box::new(e), self.since(span)))
                    }
                    Some(l) => Ok(Expr::Int(l, span)),
                    None => {
                        self.error(Diagnostic::error(
                            "syntax/bad-number",
                            span,
                            format!("integer `{}` does not fit in 64 bits", self.text(span)),
                        ));
                        Err(Recover)
                    }
                }
            }
            Tok::Float | Tok::HexF32 | Tok::HexF64 => {
                let tok = self.tok;
                let span = self.bump();
                match parse_float(tok, self.text(span)) {
                    Some(f) => Ok(Expr::Float(f, span)),
                    None => {
                        let d = Diagnostic::error(
                            "syntax/bad-number",
                            span,
                            format!("floating-point literal `{}` is out of range", self.text(span)),
                        )
                        .with_label("too large for a 64-bit double");
                        self.error(d);
                        Err(Recover)
                    }
                }
            }
            Tok::Ident => {
                let name = self.name("a name")?;
                self.expr_from_name(name)
            }
            _ => self.unexpected("a constant expression"),
        }
    }

    pub(crate) fn expr_from_name(&mut self, name: Name<'a>) -> PResult<Expr<'a>> {
        if name.text == WARP_SZ {
            return Ok(warp_sz(name.span));
        }
        if name.text == "generic" && self.at(Tok::LParen) {
            self.bump();
            let inner = self.name("a variable name inside `generic(...)`")?;
            self.expect(Tok::RParen)?;
            return Ok(Expr::Generic(inner, self.since(name.span)));
        }
        Ok(Expr::Name(name))
    }
}

fn negate_float(f: FloatLit) -> FloatLit {
    match f {
        FloatLit::F32Bits(b) => FloatLit::F32Bits(b ^ 0x8000_0000),
        FloatLit::F64Bits(b) => FloatLit::F64Bits(b ^ 0x8000_0000_0000_0000),
        FloatLit::Decimal(d) => FloatLit::Decimal(-d),
    }
}

/// Evaluates an integer constant expression by the rules of [`crate::cexpr`].
/// Returns `None` if it names a symbol, has a floating-point value, or
/// divides by zero.
pub fn eval_const(e: &Expr<'_>) -> Option<i64> {
    match cexpr::eval_with(e, &mut |_| Err(String::new())) {
        Ok(cexpr::CVal::Int { value, .. }) => Some(value as i64),
        _ => None,
    }
}
