//! Byte spans into a source text, and the line/column index used to report them.
//!
//! Spans never take part in AST equality: two ASTs are equal when they denote the
//! same program, wherever their text stood. That is what lets the round-trip test
//! compare `parse(print(ast))` with `ast`. Use [`Span::same_as`] to compare positions.

use std::ops::Range;

/// A half-open byte range `[start, end)` into one source text.
///
/// Aligned as one 8-byte word: the compiler then moves a span as a single
/// word instead of two halves, which parses measurably faster (a span written
/// as two 4-byte halves and read back as one word stalls the load).
#[derive(Clone, Copy, Default, Eq)]
#[repr(C, align(8))]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        // Sources are limited to u32::MAX bytes by `parse`, so this never truncates.
        Span { start: start as u32, end: end as u32 }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// Positional equality (the `==` operator ignores positions).
    pub fn same_as(self, other: Span) -> bool {
        self.start == other.start && self.end == other.end
    }
}

impl PartialEq for Span {
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}

/// Consistent with `==`: every span is equal to every other, so a span adds
/// nothing to a hash (a `Name` used as a map key hashes by its text only).
impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

impl std::fmt::Debug for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// Maps byte offsets to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        LineIndex { line_starts }
    }

    /// 1-based (line, column); the column counts bytes.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - self.line_starts[line] + 1)
    }

    /// The byte offset where the 0-based line `index` starts, if it exists.
    pub fn line_start(&self, index: usize) -> Option<usize> {
        self.line_starts.get(index).map(|&s| s as usize)
    }

    pub fn line(&self, offset: u32) -> u32 {
        self.line_col(offset).0
    }
}
