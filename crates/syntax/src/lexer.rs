//! The PTX lexer: turns source text into a stream of tokens with byte spans.
//!
//! Tokens carry no data; the parser slices the source with the token's span.
//! Comments and whitespace are skipped here. Anything that is not a PTX token
//! becomes [`Tok::Error`], which the parser reports with its position.

use crate::span::Span;
use logos::Logos;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok {
    /// `.name`: directives, type and state-space keywords, opcode modifiers,
    /// vector components. Digits may come first (`.2d`, `.1d`). Qualified
    /// modifiers such as `.shared::cta`, `.L2::cache_hint` and
    /// `.mbarrier::complete_tx::bytes` are one token.
    #[regex(r"\.[A-Za-z0-9_$]+(::[A-Za-z0-9_$]+)*")]
    Dot,
    /// Identifiers, including `%`-prefixed registers and `$`-prefixed labels.
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*")]
    #[regex(r"[_$%][A-Za-z0-9_$]*")]
    Ident,
    /// Integer literals: decimal, hex, octal, binary, each with an optional `U`.
    #[regex(r"[1-9][0-9]*U?")]
    #[regex(r"0[0-7]*U?")]
    #[regex(r"0[xX][0-9A-Fa-f]+U?")]
    #[regex(r"0[bB][01]+U?")]
    Int,
    /// Decimal floating-point literals.
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    Float,
    /// `0fXXXXXXXX`: the bits of an IEEE single.
    #[regex(r"0[fF][0-9A-Fa-f]{8}")]
    HexF32,
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an IEEE double.
    #[regex(r"0[dD][0-9A-Fa-f]{16}")]
    HexF64,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    /// Something that starts like a number but is none of the forms above:
    /// `08`, `0x`, `12abc`, `0f3F80` (too few digits), `1.5f`. The longest match
    /// wins, so a valid literal followed by letters is caught whole.
    #[regex(r"[0-9][0-9A-Za-z_$]*(\.[0-9A-Za-z_$]*)?", priority = 1)]
    BadNumber,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("!")]
    Bang,
    #[token("|")]
    Pipe,
    #[token("&")]
    Amp,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("@")]
    At,
    #[token("=")]
    Eq,
    #[token("?")]
    Question,
    /// `/*` with no closing `*/` (a closed `/* ... */` is skipped by
    /// [`block_comment`] and never becomes a token).
    #[token("/*", block_comment)]
    UnterminatedComment,
    /// A string with no closing quote on its line.
    #[regex(r#""([^"\\\n]|\\[^\n])*"#)]
    UnterminatedStr,
    /// A character that starts no PTX token.
    Error,
    /// End of input (synthesised by [`Lexer`], never produced by logos).
    Eof,
}

impl Tok {
    /// How a token is named in "expected X, found Y" messages.
    pub fn describe(self) -> &'static str {
        match self {
            Tok::Dot => "a directive or modifier",
            Tok::Ident => "an identifier",
            Tok::Int => "an integer",
            Tok::Float | Tok::HexF32 | Tok::HexF64 => "a floating-point number",
            Tok::Str => "a string",
            Tok::BadNumber => "an invalid number",
            Tok::Comma => "`,`",
            Tok::Semi => "`;`",
            Tok::Colon => "`:`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::Lt => "`<`",
            Tok::Gt => "`>`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Bang => "`!`",
            Tok::Pipe => "`|`",
            Tok::Amp => "`&`",
            Tok::Caret => "`^`",
            Tok::Tilde => "`~`",
            Tok::At => "`@`",
            Tok::Eq => "`=`",
            Tok::Question => "`?`",
            Tok::Error => "an invalid character",
            Tok::UnterminatedComment => "an unterminated comment",
            Tok::UnterminatedStr => "an unterminated string",
            Tok::Eof => "the end of the file",
        }
    }
}

/// Skips a `/* ... */` comment, or, when it is never closed, consumes the rest
/// of the input and emits [`Tok::UnterminatedComment`] once.
fn block_comment(lex: &mut logos::Lexer<'_, Tok>) -> logos::FilterResult<(), ()> {
    let rest = lex.remainder();
    match rest.find("*/") {
        Some(i) => {
            lex.bump(i + 2);
            logos::FilterResult::Skip
        }
        None => {
            lex.bump(rest.len());
            logos::FilterResult::Emit(())
        }
    }
}

/// A token stream over one source text, ending in an endless run of [`Tok::Eof`].
pub struct Lexer<'a> {
    inner: logos::Lexer<'a, Tok>,
    len: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { inner: Tok::lexer(src), len: src.len() }
    }

    pub fn next_token(&mut self) -> (Tok, Span) {
        match self.inner.next() {
            Some(Ok(t)) => {
                let r = self.inner.span();
                (t, Span::new(r.start, r.end))
            }
            Some(Err(())) => {
                let r = self.inner.span();
                (Tok::Error, Span::new(r.start, r.end))
            }
            None => (Tok::Eof, Span::new(self.len, self.len)),
        }
    }
}

/// Lexes a whole text into tokens (for tests and the lexer benchmark).
pub fn tokenize(src: &str) -> Vec<(Tok, Span)> {
    let mut lx = Lexer::new(src);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token();
        if t.0 == Tok::Eof {
            return out;
        }
        out.push(t);
    }
}
