//! The PTX lexer: turns source text into a stream of tokens with byte spans.
//!
//! Tokens carry no data; the parser slices the source with the token's span.
//! Comments and whitespace are skipped here. Anything that is not a PTX token
//! becomes [`Tok::Error`] (one character), [`Tok::BadNumber`],
//! [`Tok::UnterminatedStr`] or [`Tok::UnterminatedComment`], which the parser
//! reports with its position.
//!
//! The lexer is hand-written (a byte-class dispatch) for speed. Its token
//! classes are the regular expressions given on each [`Tok`] variant, with
//! longest-match semantics and ties going to the valid literal over
//! [`Tok::BadNumber`]; `tests/lexer_reference.rs` checks it token for token
//! against a `logos` lexer generated from those same expressions.
//!
//! | token | expression |
//! |---|---|
//! | skipped | `[ \t\r\n\f]+`, `//[^\n]*`, `/\*` .. `\*/` |
//! | `Dot` | `\.[A-Za-z0-9_$]+(::[A-Za-z0-9_$]+)*` |
//! | `Ident` | `[A-Za-z][A-Za-z0-9_$]*`, `[_$%][A-Za-z0-9_$]*` |
//! | `Int` | `[1-9][0-9]*U?`, `0[0-7]*U?`, `0[xX][0-9A-Fa-f]+U?`, `0[bB][01]+U?` |
//! | `Float` | `[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?`, `[0-9]+[eE][+-]?[0-9]+` |
//! | `HexF32` / `HexF64` | `0[fF][0-9A-Fa-f]{8}` / `0[dD][0-9A-Fa-f]{16}` |
//! | `Str` | `"([^"\\\n]\|\\[^\n])*"` |
//! | `UnterminatedStr` | `"([^"\\\n]\|\\[^\n])*` |
//! | `BadNumber` | `[0-9][0-9A-Za-z_$]*(\.[0-9A-Za-z_$]*)?` (lowest priority) |

use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tok {
    /// `.name`: directives, type and state-space keywords, opcode modifiers,
    /// vector components. Digits may come first (`.2d`, `.1d`). Qualified
    /// modifiers such as `.shared::cta`, `.L2::cache_hint` and
    /// `.mbarrier::complete_tx::bytes` are one token.
    Dot,
    /// Identifiers, including `%`-prefixed registers and `$`-prefixed labels.
    Ident,
    /// Integer literals: decimal, hex, octal, binary, each with an optional `U`.
    Int,
    /// Decimal floating-point literals.
    Float,
    /// `0fXXXXXXXX`: the bits of an IEEE single.
    HexF32,
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an IEEE double.
    HexF64,
    Str,
    /// Something that starts like a number but is none of the forms above:
    /// `08`, `0x`, `12abc`, `0f3F80` (too few digits), `1.5f`. The longest match
    /// wins, so a valid literal followed by letters is caught whole.
    BadNumber,
    Comma,
    Semi,
    Colon,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Lt,
    Gt,
    Plus,
    Minus,
    Star,
    Slash,
    Bang,
    Pipe,
    Amp,
    Caret,
    Tilde,
    At,
    Eq,
    Question,
    /// `/*` with no closing `*/`: the token runs to the end of the input.
    UnterminatedComment,
    /// A string with no closing quote on its line.
    UnterminatedStr,
    /// A character that starts no PTX token.
    Error,
    /// End of input (returned again and again once the input is used up).
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

/// Byte classes: bit 0 = identifier character `[A-Za-z0-9_$]`.
const IDENT: u8 = 1;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            t[c] = IDENT;
        }
        c += 1;
    }
    t
};

#[inline(always)]
fn is_ident(b: u8) -> bool {
    CLASS[b as usize] & IDENT != 0
}

// ---- eight bytes at a time (SWAR) ----
//
// Identifier and whitespace runs are found a word at a time: each byte of the
// word gets its high bit set when it belongs to the class, and the first byte
// that does not is found with `trailing_zeros`. This takes the per-byte loop
// exit (a branch mispredicted once per token) out of the common case.

const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HI: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

/// High bit of each byte set where `lo <= byte <= hi`; `x` holds 7-bit bytes.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let ge = x.wrapping_add(ONES * (0x80 - lo as u64));
    let gt = x.wrapping_add(ONES * (0x7F - hi as u64));
    ge & !gt & HI
}

#[inline(always)]
fn load8(b: &[u8], i: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(a)
}

/// High bit set on the bytes of `w` that are `[A-Za-z0-9_$]`.
#[inline(always)]
fn ident_mask(w: u64) -> u64 {
    let x = w & LO7;
    let ascii = !w & HI;
    let alpha = in_range(x | (ONES * 0x20), b'a', b'z');
    let digit = in_range(x, b'0', b'9');
    let under = in_range(x, b'_', b'_');
    let dollar = in_range(x, b'$', b'$');
    ascii & (alpha | digit | under | dollar)
}

/// High bit set on the bytes of `w` that are `[ \t\r\n\f]`.
#[inline(always)]
fn space_mask(w: u64) -> u64 {
    let x = w & LO7;
    let ascii = !w & HI;
    ascii & (in_range(x, b'\t', b'\n') | in_range(x, 0x0C, b'\r') | in_range(x, b' ', b' '))
}

/// End of the run of identifier characters starting at `i`. Nearly all runs
/// end within the first word: that case is inline, without a loop (so that
/// its constants need no registers kept across iterations).
#[inline(always)]
fn ident_end(b: &[u8], i: usize) -> usize {
    if i + 8 <= b.len() {
        let stop = !ident_mask(load8(b, i)) & HI;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        return ident_end_long(b, i + 8);
    }
    ident_end_long(b, i)
}

#[inline(never)]
fn ident_end_long(b: &[u8], mut i: usize) -> usize {
    while i + 8 <= b.len() {
        let stop = !ident_mask(load8(b, i)) & HI;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    i
}

/// End of the run of whitespace starting at `i`.
#[inline(never)]
fn space_end(b: &[u8], mut i: usize) -> usize {
    while i + 8 <= b.len() {
        let stop = !space_mask(load8(b, i)) & HI;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | b'\n' | 0x0C) {
        i += 1;
    }
    i
}

/// End of the run of bytes satisfying `f` starting at `i`.
#[inline(always)]
fn run(b: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < b.len() && f(b[i]) {
        i += 1;
    }
    i
}

/// A token stream over one source text, ending in an endless run of [`Tok::Eof`].
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src: src.as_bytes(), pos: 0 }
    }

    /// A lexer over `src` that starts at byte `pos` (a token's start: the
    /// lexer keeps no state but its position, so it reads from there what it
    /// would have read from the start).
    pub fn at(src: &'a str, pos: usize) -> Lexer<'a> {
        Lexer { src: src.as_bytes(), pos: pos.min(src.len()) }
    }

    #[inline(always)]
    pub fn next_token(&mut self) -> (Tok, Span) {
        let b = self.src;
        let len = b.len();
        let mut i = self.pos;
        loop {
            let Some(&c) = b.get(i) else {
                self.pos = len;
                return (Tok::Eof, Span::new(len, len));
            };
            let (tok, end) = match START[c as usize] {
                S_IDENT => (Tok::Ident, ident_end(b, i + 1)),
                S_PUNCT => (PUNCT[c as usize], i + 1),
                S_SPACE => {
                    // At the start of the text and after a comment (the
                    // whitespace after a token is skipped with the token).
                    // Nearly all runs are one or two bytes (`, ` and `\n\t`):
                    // look at those before scanning a word at a time.
                    i += 1;
                    if i < len && is_space(b[i]) {
                        i += 1;
                        if i < len && is_space(b[i]) {
                            i = space_end(b, i + 1);
                        }
                    }
                    continue;
                }
                S_DOT => {
                    let mut j = ident_end(b, i + 1);
                    if j == i + 1 {
                        (Tok::Error, i + 1)
                    } else {
                        while j + 2 < len && b[j] == b':' && b[j + 1] == b':' && is_ident(b[j + 2]) {
                            j = ident_end(b, j + 2);
                        }
                        (Tok::Dot, j)
                    }
                }
                S_DIGIT => number(b, i),
                S_SLASH => match b.get(i + 1) {
                    Some(b'/') => {
                        i = match b[i + 2..].iter().position(|&c| c == b'\n') {
                            Some(k) => i + 2 + k,
                            None => len,
                        };
                        continue;
                    }
                    Some(b'*') => match find_comment_end(&b[i + 2..]) {
                        Some(k) => {
                            i = i + 2 + k + 2;
                            continue;
                        }
                        None => (Tok::UnterminatedComment, len),
                    },
                    _ => (Tok::Slash, i + 1),
                },
                S_QUOTE => string(b, i),
                _ => (Tok::Error, (i + utf8_len(c)).min(len)),
            };
            // Skip the whitespace after the token now, while its first byte
            // is at hand: the next call then starts on a token.
            self.pos = skip_space(b, end);
            return (tok, Span::new(i, end));
        }
    }
}

/// The comments of `src` (`// ...` to the end of the line, `/* ... */`), in
/// order, as spans: found in the gaps between the tokens the lexer returns,
/// so text inside a string is never taken for a comment.
pub fn comments(src: &str) -> Vec<Span> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut lx = Lexer::new(src);
    let mut gap_start = 0usize;
    loop {
        let (tok, span) = lx.next_token();
        let gap_end = (span.start as usize).min(b.len());
        let mut i = gap_start;
        while i + 1 < gap_end {
            if b[i] == b'/' && b[i + 1] == b'/' {
                let end = b[i..gap_end].iter().position(|&c| c == b'\n').map_or(gap_end, |k| i + k);
                let end = if end > i && b[end - 1] == b'\r' { end - 1 } else { end };
                out.push(Span::new(i, end));
                i = end;
            } else if b[i] == b'/' && b[i + 1] == b'*' {
                let end = find_comment_end(&b[i + 2..gap_end]).map_or(gap_end, |k| i + 2 + k + 2);
                out.push(Span::new(i, end));
                i = end;
            } else {
                i += 1;
            }
        }
        if tok == Tok::Eof || tok == Tok::UnterminatedComment {
            break;
        }
        gap_start = span.end as usize;
    }
    out
}

// Classes of a token's first byte.
const S_ERROR: u8 = 0;
const S_IDENT: u8 = 1;
const S_PUNCT: u8 = 2;
const S_SPACE: u8 = 3;
const S_DOT: u8 = 4;
const S_DIGIT: u8 = 5;
const S_SLASH: u8 = 6;
const S_QUOTE: u8 = 7;

/// The one-byte tokens, by byte (`Error` where the byte is none).
static PUNCT: [Tok; 256] = {
    let mut t = [Tok::Error; 256];
    t[b',' as usize] = Tok::Comma;
    t[b';' as usize] = Tok::Semi;
    t[b':' as usize] = Tok::Colon;
    t[b'{' as usize] = Tok::LBrace;
    t[b'}' as usize] = Tok::RBrace;
    t[b'[' as usize] = Tok::LBracket;
    t[b']' as usize] = Tok::RBracket;
    t[b'(' as usize] = Tok::LParen;
    t[b')' as usize] = Tok::RParen;
    t[b'<' as usize] = Tok::Lt;
    t[b'>' as usize] = Tok::Gt;
    t[b'+' as usize] = Tok::Plus;
    t[b'-' as usize] = Tok::Minus;
    t[b'*' as usize] = Tok::Star;
    t[b'!' as usize] = Tok::Bang;
    t[b'|' as usize] = Tok::Pipe;
    t[b'&' as usize] = Tok::Amp;
    t[b'^' as usize] = Tok::Caret;
    t[b'~' as usize] = Tok::Tilde;
    t[b'@' as usize] = Tok::At;
    t[b'=' as usize] = Tok::Eq;
    t[b'?' as usize] = Tok::Question;
    t
};

/// What a token starting with each byte is.
static START: [u8; 256] = {
    let mut t = [S_ERROR; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b == b'%' {
            S_IDENT
        } else if b.is_ascii_digit() {
            S_DIGIT
        } else if matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0C) {
            S_SPACE
        } else if b == b'.' {
            S_DOT
        } else if b == b'/' {
            S_SLASH
        } else if b == b'"' {
            S_QUOTE
        } else if !matches!(PUNCT[c], Tok::Error) {
            S_PUNCT
        } else {
            S_ERROR
        };
        c += 1;
    }
    t
};

/// Past the whitespace starting at `i` (nearly always zero to two bytes).
#[inline(always)]
fn skip_space(b: &[u8], mut i: usize) -> usize {
    if i < b.len() && is_space(b[i]) {
        i += 1;
        if i < b.len() && is_space(b[i]) {
            i += 1;
            if i < b.len() && is_space(b[i]) {
                i = space_end(b, i + 1);
            }
        }
    }
    i
}

#[inline(always)]
fn is_space(c: u8) -> bool {
    START[c as usize] == S_SPACE
}

/// Length of the UTF-8 character starting with byte `c` (1 for a stray byte).
fn utf8_len(c: u8) -> usize {
    match c {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// The offset just past the `}` that closes a `{` whose inside starts at
/// byte `from`, reading the text as [`Lexer`] does: a brace inside a
/// comment or a string does not count (no other token can hold a brace, a
/// quote or a slash). `None` when the text ends first. This is what
/// matching the braces of the tokens gives, without making the tokens.
pub fn skip_braced(src: &str, from: usize) -> Option<usize> {
    const fn marks() -> [bool; 256] {
        let mut t = [false; 256];
        t[b'{' as usize] = true;
        t[b'}' as usize] = true;
        t[b'"' as usize] = true;
        t[b'/' as usize] = true;
        t
    }
    static MARK: [bool; 256] = marks();
    const ONES: u64 = 0x0101_0101_0101_0101;
    /// The high bit of each byte of `w` equal to `c`; exact up to the
    /// lowest such byte (a borrow may flag a byte above a match).
    #[inline(always)]
    fn eq(w: u64, c: u8) -> u64 {
        let x = w ^ (ONES * c as u64);
        x.wrapping_sub(ONES) & !x & (ONES << 7)
    }
    let b = src.as_bytes();
    let mut depth = 1u64;
    let mut i = from;
    loop {
        // Eight bytes at a time to the next brace, quote or slash.
        while let Some(c) = b.get(i..i + 8) {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            let m = eq(w, b'{') | eq(w, b'}') | eq(w, b'"') | eq(w, b'/');
            if m != 0 {
                i += (m.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        while i < b.len() && !MARK[b[i] as usize] {
            i += 1;
        }
        let c = *b.get(i)?;
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' => {
                i = string(b, i).1;
                continue;
            }
            _ => match b.get(i + 1) {
                Some(b'/') => {
                    i = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k);
                    continue;
                }
                Some(b'*') => {
                    i = i + 2 + find_comment_end(&b[i + 2..])? + 2;
                    continue;
                }
                _ => {}
            },
        }
        i += 1;
    }
}

/// Offset of the first `*/` in `b`.
fn find_comment_end(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = b[from..].iter().position(|&c| c == b'*') {
        let at = from + k;
        if b.get(at + 1) == Some(&b'/') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// A string from its opening quote: `Str` up to the closing quote, or
/// `UnterminatedStr` up to (not including) the end of the line.
fn string(b: &[u8], start: usize) -> (Tok, usize) {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'"' => return (Tok::Str, i + 1),
            b'\n' => return (Tok::UnterminatedStr, i),
            b'\\' => {
                if i + 1 < b.len() && b[i + 1] != b'\n' {
                    i += 2;
                } else {
                    return (Tok::UnterminatedStr, i);
                }
            }
            _ => i += 1,
        }
    }
    (Tok::UnterminatedStr, b.len())
}

/// A token starting with a digit: the longest of the valid literal forms, or
/// a `BadNumber` when the number-like run is longer than any of them.
fn number(b: &[u8], i: usize) -> (Tok, usize) {
    let len = b.len();
    // Fast path: a decimal integer (`4`, `1024`, a lone `0`) that ends at a
    // byte no other number form could continue with.
    let mut j = i + 1;
    while j < len && b[j].is_ascii_digit() {
        j += 1;
    }
    if (b[i] != b'0' || j == i + 1) && (j == len || !(is_ident(b[j]) || b[j] == b'.')) {
        return (Tok::Int, j);
    }
    let at = |k: usize| if k < len { b[k] } else { 0 };
    let u = |k: usize| if at(k) == b'U' { k + 1 } else { k };
    let mut best = (Tok::Int, i + 1);
    let mut consider = |t: Tok, end: usize| {
        if end > best.1 {
            best = (t, end);
        }
    };
    let c0 = b[i];
    let c1 = at(i + 1);
    if c0 == b'0' {
        match c1 {
            b'x' | b'X' => {
                let j = run(b, i + 2, |c| c.is_ascii_hexdigit());
                if j > i + 2 {
                    consider(Tok::Int, u(j));
                }
            }
            b'b' | b'B' => {
                let j = run(b, i + 2, |c| c == b'0' || c == b'1');
                if j > i + 2 {
                    consider(Tok::Int, u(j));
                }
            }
            b'f' | b'F' if run(b, i + 2, |c| c.is_ascii_hexdigit()) >= i + 10 => {
                consider(Tok::HexF32, i + 10);
            }
            b'd' | b'D' if run(b, i + 2, |c| c.is_ascii_hexdigit()) >= i + 18 => {
                consider(Tok::HexF64, i + 18);
            }
            _ => {}
        }
        consider(Tok::Int, u(run(b, i + 1, |c| (b'0'..=b'7').contains(&c))));
    } else {
        consider(Tok::Int, u(run(b, i + 1, |c| c.is_ascii_digit())));
    }
    // Floats: digits, then `.digits*` and/or a complete exponent.
    let d = run(b, i, |c| c.is_ascii_digit());
    let exponent = |k: usize| -> Option<usize> {
        if at(k) != b'e' && at(k) != b'E' {
            return None;
        }
        let s = if at(k + 1) == b'+' || at(k + 1) == b'-' { k + 2 } else { k + 1 };
        let e = run(b, s, |c| c.is_ascii_digit());
        (e > s).then_some(e)
    };
    if at(d) == b'.' {
        let f = run(b, d + 1, |c| c.is_ascii_digit());
        consider(Tok::Float, exponent(f).unwrap_or(f));
    } else if let Some(e) = exponent(d) {
        consider(Tok::Float, e);
    }
    // The malformed-number catch-all, which wins only when strictly longer.
    let mut j = ident_end(b, i + 1);
    if at(j) == b'.' {
        j = ident_end(b, j + 1);
    }
    if j > best.1 {
        best = (Tok::BadNumber, j);
    }
    best
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time classifiers agree with the byte classes on every byte
    /// value in every position of the word.
    #[test]
    fn swar_masks_match_byte_classes() {
        for v in 0u16..256 {
            let c = v as u8;
            for pos in 0..8 {
                let mut bytes = [b'a'; 8];
                bytes[pos] = c;
                let w = u64::from_le_bytes(bytes);
                let id = ident_mask(w) >> (pos * 8 + 7) & 1 == 1;
                assert_eq!(id, is_ident(c), "ident {c:#x} at {pos}");
                let mut bytes = [b' '; 8];
                bytes[pos] = c;
                let w = u64::from_le_bytes(bytes);
                let sp = space_mask(w) >> (pos * 8 + 7) & 1 == 1;
                assert_eq!(sp, matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0C), "space {c:#x} at {pos}");
            }
        }
    }
}
