//! Recursive-descent parser from tokens to the [`ast`](crate::ast).
//!
//! The parser never panics and never loops without consuming input. It recovers
//! at statement boundaries (`;` or the `}` closing the current block), so one run
//! reports many errors. Nesting depth and the number of diagnostics are bounded,
//! so hostile input cannot exhaust the stack or memory.
//!
//! `items.rs` parses module-level items, functions, parameters and declarations;
//! `stmts.rs` parses statements, instructions, operands and constant expressions.

mod expr;
mod items;
mod stmts;

pub use expr::eval_const;

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lexer::{Lexer, Tok};
use crate::span::Span;

/// Most nested `{}` blocks, initialiser lists or expression levels accepted.
pub const MAX_DEPTH: u32 = 200;
/// Most errors [`parse`] keeps; later ones are counted in
/// [`Parsed::errors_not_shown`] (see [`parse_with_limit`]).
pub const MAX_ERRORS: usize = 200;

/// The result of parsing: the module (with whatever could be recovered) and
/// the diagnostics kept. The module is trustworthy only when there are no errors.
#[derive(Debug)]
pub struct Parsed<'a> {
    pub module: Module<'a>,
    pub diagnostics: Vec<Diagnostic>,
    /// Errors found after the limit was reached: counted, not kept.
    pub errors_not_shown: usize,
}

impl<'a> Parsed<'a> {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Parses a whole PTX module, keeping at most [`MAX_ERRORS`] errors.
pub fn parse(src: &str) -> Parsed<'_> {
    parse_with_limit(src, MAX_ERRORS)
}

/// Parses a whole PTX module, keeping at most `max_errors` errors (at least
/// one); the parse goes on to the end, and later errors are only counted.
pub fn parse_with_limit(src: &str, max_errors: usize) -> Parsed<'_> {
    if src.len() > u32::MAX as usize {
        return Parsed {
            module: Module { items: Vec::new() },
            diagnostics: vec![Diagnostic::error(
                "syntax/too-large",
                Span::DUMMY,
                "the module is larger than 4 GiB, which ptxsim does not accept",
            )],
            errors_not_shown: 0,
        };
    }
    let mut p = Parser::new(src);
    p.max_errors = max_errors.max(1);
    let module = p.module();
    let errors_not_shown = p.errors.saturating_sub(p.max_errors);
    Parsed { module, diagnostics: p.diags, errors_not_shown }
}

/// Parses the module-level items of `src` without the statements of its
/// function bodies: each body is a [`Block`] with no statements and the
/// body's span, found by matching its braces. This is what checking a module
/// one function at a time starts from (`ptxsim_check::check_text`): the
/// declarations every function may see, in order, at the cost of lexing
/// the bodies. `None` when the parse reports anything (a skipped body is
/// not read for errors; [`parse_function_at`] reads each); then
/// [`parse_with_limit`] gives the diagnostics.
pub fn parse_outline(src: &str) -> Option<Module<'_>> {
    if src.len() > u32::MAX as usize {
        return None;
    }
    let mut p = Parser::new(src);
    p.outline = true;
    let module = p.module();
    if p.diags.is_empty() && p.errors == 0 {
        Some(module)
    } else {
        None
    }
}

/// Parses the one function item that starts at byte `start` of `src` (an
/// item of [`parse_outline`]'s module: its `span.start`), body included,
/// exactly as [`parse`] parses it in place. Its statements are stacked on
/// `stack` (emptied; pass the statements of the body checked before, so
/// that its capacity is reused, or an empty vector), and the body's
/// statement vector is the stack itself, not trimmed. `None` when the
/// parse reports anything, or the item is not a function.
pub fn parse_function_at<'a>(src: &'a str, start: u32, mut stack: Vec<Statement<'a>>) -> Option<Function<'a>> {
    if src.len() > u32::MAX as usize {
        return None;
    }
    stack.clear();
    let mut p = Parser::new_at(src, start as usize);
    p.scratch = stack;
    p.reuse_stack = true;
    let item = p.item();
    if !p.diags.is_empty() || p.errors != 0 {
        return None;
    }
    match item {
        Ok(Some(Item::Function(f))) => Some(*f),
        _ => None,
    }
}

/// Parses the function body (a `{ }` block) that starts at byte `open` of
/// `src` (the body of a function item of [`parse_outline`]'s module: its
/// `body.span.start`), exactly as [`parse`] parses it in place, without
/// parsing the function's header again. Its statements are stacked on
/// `stack` as in [`parse_function_at`], and the block's statement vector
/// is the stack itself. `None` when the parse reports anything, or no
/// block starts at `open`.
pub fn parse_body_at<'a>(src: &'a str, open: u32, mut stack: Vec<Statement<'a>>) -> Option<Block<'a>> {
    if src.len() > u32::MAX as usize {
        return None;
    }
    stack.clear();
    let mut p = Parser::new_at(src, open as usize);
    if !p.at(Tok::LBrace) {
        return None;
    }
    p.scratch = stack;
    p.reuse_stack = true;
    let block = p.block();
    if !p.diags.is_empty() || p.errors != 0 {
        return None;
    }
    block.ok()
}

/// Marks that an error was reported and the caller should recover.
pub(crate) struct Recover;
pub(crate) type PResult<T> = Result<T, Recover>;

pub(crate) struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    tok: Tok,
    span: Span,
    next: Tok,
    next_span: Span,
    prev_end: u32,
    depth: u32,
    /// Whether the instruction being parsed is a `call` (its parentheses are lists).
    in_call: bool,
    /// Statements of the blocks being parsed (see `block`).
    scratch: Vec<Statement<'a>>,
    pub(crate) diags: Vec<Diagnostic>,
    errors: usize,
    max_errors: usize,
    /// Where statement recovery should resume instead of skipping to the next
    /// `;`: the start of a line that begins a new statement, right after a
    /// statement whose `;` is missing (see [`Parser::expect_semi`]).
    resync_at: Option<u32>,
    /// Function bodies are skipped, not parsed (see [`parse_outline`]).
    outline: bool,
    /// An outermost block takes the statement stack without trimming it or
    /// allocating the next one (see [`parse_function_at`]).
    reuse_stack: bool,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Parser<'a> {
        Parser::new_at(src, 0)
    }

    /// A parser whose first token starts at byte `pos`.
    fn new_at(src: &'a str, pos: usize) -> Parser<'a> {
        let mut lexer = Lexer::at(src, pos);
        let (tok, span) = lexer.next_token();
        let (next, next_span) = lexer.next_token();
        Parser {
            src,
            lexer,
            tok,
            span,
            next,
            next_span,
            prev_end: 0,
            depth: 0,
            in_call: false,
            scratch: Vec::new(),
            diags: Vec::new(),
            errors: 0,
            max_errors: MAX_ERRORS,
            resync_at: None,
            outline: false,
            reuse_stack: false,
        }
    }

    /// Goes on lexing at byte `pos`, as if everything before it had been
    /// consumed.
    pub(crate) fn resume_at(&mut self, pos: usize) {
        self.lexer = Lexer::at(self.src, pos);
        self.prev_end = pos as u32;
        (self.tok, self.span) = self.lexer.next_token();
        (self.next, self.next_span) = self.lexer.next_token();
    }

    #[inline]
    pub(crate) fn text(&self, span: Span) -> &'a str {
        &self.src[span.range()]
    }

    pub(crate) fn cur_text(&self) -> &'a str {
        self.text(self.span)
    }

    #[inline]
    pub(crate) fn bump(&mut self) -> Span {
        let s = self.span;
        self.prev_end = s.end;
        self.tok = self.next;
        self.span = self.next_span;
        let (t, sp) = self.lexer.next_token();
        self.next = t;
        self.next_span = sp;
        s
    }

    #[inline]
    pub(crate) fn at(&self, t: Tok) -> bool {
        self.tok == t
    }

    pub(crate) fn at_dot(&self, text: &str) -> bool {
        self.tok == Tok::Dot && self.cur_text() == text
    }

    #[inline(always)]
    pub(crate) fn eat(&mut self, t: Tok) -> Option<Span> {
        if self.tok == t {
            Some(self.bump())
        } else {
            None
        }
    }

    pub(crate) fn eat_dot(&mut self, text: &str) -> Option<Span> {
        if self.at_dot(text) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// Span from `start` to the end of the last consumed token.
    pub(crate) fn since(&self, start: Span) -> Span {
        Span { start: start.start, end: self.prev_end.max(start.start) }
    }

    /// Reports an error; past `max_errors` errors, diagnostics are only counted.
    pub(crate) fn error(&mut self, d: Diagnostic) {
        if self.errors >= self.max_errors {
            if d.is_error() {
                self.errors += 1;
            }
            return;
        }
        if d.is_error() {
            self.errors += 1;
        }
        self.diags.push(d);
    }

    /// Reports "expected X, found Y" at the current token.
    pub(crate) fn unexpected<T>(&mut self, expected: &str) -> PResult<T> {
        if let Some(d) = self.lexical_error() {
            self.error(d);
            return Err(Recover);
        }
        let found = self.found();
        let d = Diagnostic::error(
            "syntax/unexpected-token",
            self.span,
            format!("expected {expected}, found {found}"),
        )
        .with_label(format!("expected {expected}"));
        self.error(d);
        Err(Recover)
    }

    /// A dedicated diagnostic when the current token is a lexical error (an
    /// invalid character, a malformed number, an unterminated string or comment):
    /// those say more than "expected X, found Y".
    pub(crate) fn lexical_error(&self) -> Option<Diagnostic> {
        let text = self.cur_text();
        Some(match self.tok {
            Tok::Error => {
                let c = text.chars().next().unwrap_or('?');
                Diagnostic::error(
                    "syntax/invalid-character",
                    self.span,
                    format!("invalid character `{}` (U+{:04X})", c.escape_debug(), c as u32),
                )
                .with_label("PTX has no token starting with this character")
            }
            Tok::BadNumber => bad_number(text, self.span),
            Tok::UnterminatedStr => {
                Diagnostic::error("syntax/unterminated-string", self.span, "this string has no closing `\"`")
                    .with_label("the string starts here and runs to the end of the line")
                    .with_note("strings cannot span lines")
            }
            Tok::UnterminatedComment => Diagnostic::error(
                "syntax/unterminated-comment",
                Span { start: self.span.start, end: self.span.start + 2 },
                "this `/*` comment is never closed",
            )
            .with_label("the comment starts here and runs to the end of the file"),
            _ => return None,
        })
    }

    pub(crate) fn found(&self) -> String {
        match self.tok {
            Tok::Eof => "the end of the file".to_string(),
            Tok::Error => format!("invalid character `{}`", self.cur_text().escape_debug()),
            Tok::UnterminatedComment => "an unterminated `/*` comment".to_string(),
            Tok::UnterminatedStr => "an unterminated string".to_string(),
            Tok::Str => "a string".to_string(),
            Tok::BadNumber => format!("the invalid number `{}`", self.cur_text()),
            _ => format!("`{}`", self.cur_text()),
        }
    }

    pub(crate) fn expect(&mut self, t: Tok) -> PResult<Span> {
        match self.eat(t) {
            Some(s) => Ok(s),
            None => self.unexpected(t.describe()),
        }
    }

    /// Expects the token closing a group opened at `open` (`)`, `]` or `}`),
    /// pointing back at the opener when it is missing.
    pub(crate) fn expect_close(&mut self, close: Tok, open: Span, what: &str) -> PResult<Span> {
        if let Some(s) = self.eat(close) {
            return Ok(s);
        }
        if let Some(d) = self.lexical_error() {
            self.error(d);
            return Err(Recover);
        }
        let found = self.found();
        let want = close.describe();
        let d = Diagnostic::error(
            "syntax/unclosed-group",
            self.span,
            format!("expected {want} to close the {what}, found {found}"),
        )
        .with_label(format!("expected {want} here"))
        .with_secondary(open, format!("the {what} starts here"));
        self.error(d);
        Err(Recover)
    }

    /// Skips a balanced `{ ... }` group whose `{` was just consumed (used when
    /// nesting is too deep to parse it), stopping at the end of the input.
    pub(crate) fn skip_braced_group(&mut self) {
        let mut depth = 1u64;
        loop {
            match self.tok {
                Tok::Eof => return,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    #[inline(always)]
    pub(crate) fn expect_semi(&mut self) -> PResult<Span> {
        if let Some(s) = self.eat(Tok::Semi) {
            return Ok(s);
        }
        self.missing_semi()
    }

    /// Reports the missing `;` that [`expect_semi`](Parser::expect_semi) did not find.
    #[cold]
    #[inline(never)]
    fn missing_semi(&mut self) -> PResult<Span> {
        if let Some(d) = self.lexical_error() {
            self.error(d);
            return Err(Recover);
        }
        // Point just after the previous token: that is where the `;` is missing.
        let at = Span { start: self.prev_end, end: self.prev_end };
        let found = self.found();
        let mut d = Diagnostic::error("syntax/missing-semicolon", at, format!("expected `;`, found {found}"))
            .with_label("expected `;` here");
        if self.tok != Tok::Eof {
            d = d.with_secondary(self.span, "found this");
        }
        self.error(d);
        // The `;` was most likely forgotten at the end of a line: when the next
        // line begins a new statement, recovery resumes there rather than
        // skipping that statement up to its own `;`.
        if self.starts_statement_on_new_line(true) {
            self.resync_at = Some(self.span.start);
        }
        Err(Recover)
    }

    /// Whether the current token is the first on its line and begins a
    /// statement: a guard `@`; a label `name:`; a directive (`.reg`,
    /// `.pragma`, `.global`, ...; not a vector component such as `.x`); or an
    /// instruction, that is a word starting with a letter directly followed by
    /// a modifier (`add.u32`) or followed by an operand (`bra L1`). With
    /// `after_operands` (the operand list of the statement before is
    /// complete), a bare `word;` (`ret;`, `exit;`) counts too; before the
    /// first operand it does not, since `bra` + newline + `L1;` is one
    /// instruction.
    ///
    /// None of these continues a statement that ended on the line before, so a
    /// statement that reaches one without a `;` is missing its `;`.
    pub(crate) fn starts_statement_on_new_line(&self, after_operands: bool) -> bool {
        let starts = match self.tok {
            Tok::At => true,
            Tok::Ident if self.next == Tok::Colon => true,
            Tok::Ident if self.cur_text().starts_with(|c: char| c.is_ascii_alphabetic()) => match self.next {
                Tok::Dot => {
                    self.next_span.start == self.span.end && !stmts::COMPONENTS.contains(&self.text(self.next_span))
                }
                Tok::Ident => true,
                Tok::Semi => after_operands,
                _ => false,
            },
            Tok::Dot => !stmts::COMPONENTS.contains(&self.cur_text()),
            _ => false,
        };
        starts && self.line_break_before_current()
    }

    pub(crate) fn line_break_before_current(&self) -> bool {
        let gap = &self.src[self.prev_end as usize..self.span.start as usize];
        gap.contains('\n')
    }

    #[inline(always)]
    pub(crate) fn name(&mut self, what: &str) -> PResult<Name<'a>> {
        if self.tok == Tok::Ident {
            let span = self.bump();
            Ok(Name { text: self.text(span), span })
        } else {
            self.unexpected(what)
        }
    }

    /// Enters one level of nesting, failing past [`MAX_DEPTH`].
    pub(crate) fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            let d = Diagnostic::error(
                "syntax/too-deep",
                self.span,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            );
            self.error(d);
            return Err(Recover);
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips to the end of the current statement: past the next `;` at this
    /// nesting level, or up to (not past) a `}` that closes the enclosing block.
    /// Balanced `{}` / `()` / `[]` groups in between are skipped whole.
    /// When [`expect_semi`](Parser::expect_semi) found a new statement on
    /// the next line, recovery resumes at it without skipping anything.
    pub(crate) fn recover_statement(&mut self) {
        if self.resync_at.take() == Some(self.span.start) {
            return;
        }
        let mut depth = 0u32;
        loop {
            match self.tok {
                Tok::Eof => return,
                Tok::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::LBrace | Tok::LParen | Tok::LBracket => {
                    depth += 1;
                }
                Tok::RBrace | Tok::RParen | Tok::RBracket => {
                    if depth == 0 {
                        if self.tok == Tok::RBrace {
                            return;
                        }
                    } else {
                        depth -= 1;
                        if depth == 0 && self.tok == Tok::RBrace {
                            self.bump();
                            return;
                        }
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Parses an unsigned integer literal that must fit in `u64`.
    pub(crate) fn uint(&mut self, what: &str) -> PResult<Spanned<u64>> {
        if self.tok != Tok::Int {
            return self.unexpected(what);
        }
        let span = self.bump();
        match parse_int(self.text(span)) {
            Some(lit) => Ok(Spanned { value: lit.value, span }),
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

    pub(crate) fn uint32(&mut self, what: &str) -> PResult<Spanned<u32>> {
        let v = self.uint(what)?;
        match u32::try_from(v.value) {
            Ok(value) => Ok(Spanned { value, span: v.span }),
            Err(_) => {
                self.error(Diagnostic::error(
                    "syntax/bad-number",
                    v.span,
                    format!("`{}` is too large: {what} must fit in 32 bits", self.text(v.span)),
                ));
                Err(Recover)
            }
        }
    }
}

/// Explains why the text of a [`Tok::BadNumber`] is not a PTX number.
fn bad_number(text: &str, span: Span) -> Diagnostic {
    let b = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let why = if b.len() > 1 && b[0] == b'0' && b[1].is_ascii_digit() && text.bytes().all(|c| c.is_ascii_digit()) {
        "a number starting with `0` is octal, and octal digits are 0-7".to_string()
    } else if lower.starts_with("0x") {
        "a hexadecimal integer is `0x` followed by hex digits, with an optional `U`".to_string()
    } else if lower.starts_with("0b") {
        "a binary integer is `0b` followed by 0s and 1s, with an optional `U`".to_string()
    } else if lower.starts_with("0f") {
        "a `0f` float literal is followed by exactly 8 hex digits (the bits of an IEEE single)".to_string()
    } else if lower.starts_with("0d") {
        "a `0d` float literal is followed by exactly 16 hex digits (the bits of an IEEE double)".to_string()
    } else if text.ends_with('u') && text[..text.len() - 1].bytes().all(|c| c.is_ascii_digit()) {
        "the unsigned suffix is an upper-case `U`".to_string()
    } else {
        "a number cannot be followed directly by letters".to_string()
    };
    Diagnostic::error("syntax/bad-number", span, format!("invalid number `{text}`"))
        .with_label(why)
        .with_note("PTX integers are decimal (`12`), hex (`0x1F`), octal (`017`) or binary (`0b101`), each with an optional `U`; floats are `1.5`, `1e-3`, `0f3F800000` or `0d3FF0000000000000`")
}

/// Parses the text of an integer token (decimal, hex, octal, binary; optional `U`).
pub fn parse_int(text: &str) -> Option<IntLit> {
    let (body, unsigned) = match text.strip_suffix('U') {
        Some(b) => (b, true),
        None => (text, false),
    };
    let value = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    // PTX ISA 4.5.5: a literal is signed unless it needs to be unsigned to
    // keep its value.
    Some(IntLit { value, unsigned: unsigned || value > i64::MAX as u64 })
}

/// Parses the text of a float token.
pub fn parse_float(tok: Tok, text: &str) -> Option<FloatLit> {
    match tok {
        Tok::HexF32 => u32::from_str_radix(&text[2..], 16).ok().map(FloatLit::F32Bits),
        Tok::HexF64 => u64::from_str_radix(&text[2..], 16).ok().map(FloatLit::F64Bits),
        // A decimal literal too large for a double is an error, not infinity.
        Tok::Float => text.parse::<f64>().ok().filter(|d| d.is_finite()).map(FloatLit::Decimal),
        _ => None,
    }
}
