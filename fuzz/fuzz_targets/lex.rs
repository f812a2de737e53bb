//! Fuzz target: the lexer on arbitrary text. Every token must lie inside the
//! input, tokens must not overlap or go backwards, and lexing must end.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxsim_syntax::lexer::tokenize;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let toks = tokenize(src);
    let mut prev_end = 0u32;
    for (_, span) in &toks {
        assert!(span.start >= prev_end, "tokens overlap or go backwards");
        assert!(span.start < span.end, "empty token");
        assert!(span.end as usize <= src.len(), "token past the end");
        assert!(src.is_char_boundary(span.start as usize) && src.is_char_boundary(span.end as usize));
        prev_end = span.end;
    }
    assert!(toks.len() <= src.len());
});
