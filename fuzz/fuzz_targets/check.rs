//! Fuzz target: the checker on arbitrary text. The text is parsed; when it
//! parses without errors (the CLI's rule: the checker runs only on a module
//! that parsed cleanly) the checker runs on the module. Neither may panic;
//! every diagnostic span (primary and secondary, of the parser and of the
//! checker) must lie inside the input and on character boundaries; and
//! rendering all of them as text and as JSON must work.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxsim_syntax::{parse, Diagnostic, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let parsed = parse(src);
    let mut diags = parsed.diagnostics;
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(ptxsim_check::check_module(&parsed.module));
    }
    for d in &diags {
        for s in std::iter::once(d.primary.span).chain(d.secondary.iter().map(|l| l.span)) {
            assert!(s.start <= s.end && s.end as usize <= src.len(), "{}: span {s:?} out of range", d.code);
            assert!(
                src.is_char_boundary(s.start as usize) && src.is_char_boundary(s.end as usize),
                "{}: span {s:?} not on a character boundary",
                d.code
            );
        }
    }
    let sf = SourceFile::new("fuzz.ptx", src);
    let _ = sf.render(&diags, false);
    let _ = sf.render(&diags, true);
    let _ = sf.to_json(&diags);
});
