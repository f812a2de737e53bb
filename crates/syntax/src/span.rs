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

/// The number of `\n` bytes in `bytes`: 32 bytes at a time into byte-wide
/// counters (at most 255 steps before they are summed), which the compiler
/// turns into vector compares and subtractions.
pub fn count_newlines(bytes: &[u8]) -> usize {
    const W: usize = 32;
    let mut n = 0usize;
    let mut blocks = bytes.chunks_exact(W * 255);
    let count_words = |words: std::slice::ChunksExact<'_, u8>| {
        let mut lanes = [0u8; W];
        for w in words {
            for (l, b) in lanes.iter_mut().zip(w) {
                *l += (*b == b'\n') as u8;
            }
        }
        lanes.iter().map(|&l| l as usize).sum::<usize>()
    };
    for b in &mut blocks {
        n += count_words(b.chunks_exact(W));
    }
    let rest = blocks.remainder();
    let words = rest.chunks_exact(W);
    let tail = words.remainder();
    n += count_words(words);
    n + tail.iter().filter(|&&b| b == b'\n').count()
}

/// Maps byte offsets to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0u32];
        // Eight bytes at a time: a word with no newline (most of them) costs
        // a few operations; the bits the zero-byte test sets are checked
        // byte by byte (it may flag a byte after a newline too).
        const ONES: u64 = 0x0101_0101_0101_0101;
        let mut chunks = bytes.chunks_exact(8);
        let mut base = 0u32;
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ (ONES * b'\n' as u64);
            let mut z = w.wrapping_sub(ONES) & !w & (ONES << 7);
            while z != 0 {
                let k = z.trailing_zeros() / 8;
                if c[k as usize] == b'\n' {
                    line_starts.push(base + k + 1);
                }
                z &= z - 1;
            }
            base = base.wrapping_add(8);
        }
        for (k, b) in chunks.remainder().iter().enumerate() {
            if *b == b'\n' {
                line_starts.push(base + k as u32 + 1);
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

#[cfg(test)]
mod tests {
    use super::{count_newlines, LineIndex};

    /// The lane count equals a byte loop at every length and alignment,
    /// past the 255-step flush of the byte-wide counters.
    #[test]
    fn count_newlines_equals_a_byte_scan() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let text: Vec<u8> = (0..40_000)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Long runs of newlines too, so a lane would overflow unflushed.
                if (20_000..29_000).contains(&i) || s % 3 == 0 { b'\n' } else { [b'a', 0x0b, 0x8a][(s % 3) as usize] }
            })
            .collect();
        for start in 0..40 {
            for end in [start, start + 1, start + 31, start + 33, start + 8160, start + 8161, 30_000, 40_000] {
                let b = &text[start..end.min(text.len())];
                assert_eq!(count_newlines(b), b.iter().filter(|&&x| x == b'\n').count(), "{start}..{end}");
            }
        }
    }

    /// The word-at-a-time scan finds exactly the newlines a byte loop finds,
    /// at every alignment, next to bytes one above and below `\n`.
    #[test]
    fn line_starts_equal_a_byte_scan() {
        let alphabet = [b'\n', b'a', 0x0b, 0x09, 0x8a, b'\r'];
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for len in 0..80 {
            for _ in 0..200 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        s ^= s << 13;
                        s ^= s >> 7;
                        s ^= s << 17;
                        alphabet[(s % alphabet.len() as u64) as usize]
                    })
                    .collect();
                let text = String::from_utf8_lossy(&text).into_owned();
                let mut want = vec![0u32];
                want.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i as u32 + 1));
                assert_eq!(LineIndex::new(&text).line_starts, want, "{text:?}");
            }
        }
    }
}
