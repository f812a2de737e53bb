//! Fuzz target: the parser, the diagnostic renderer and the printer on
//! arbitrary text. Parsing must not panic; every diagnostic span must lie in
//! the input; and when the input parses cleanly, its printed form must parse
//! cleanly to the same text again (print is a fixed point).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxsim_syntax::{parse, print_module, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let parsed = parse(src);
    for d in &parsed.diagnostics {
        for s in std::iter::once(d.primary.span).chain(d.secondary.iter().map(|l| l.span)) {
            assert!(s.start <= s.end && s.end as usize <= src.len(), "span {s:?} out of range");
        }
    }
    let sf = SourceFile::new("fuzz.ptx", src);
    let _ = sf.render(&parsed.diagnostics, false);
    let _ = sf.to_json(&parsed.diagnostics);
    if !parsed.has_errors() {
        let printed = print_module(&parsed.module);
        let re = parse(&printed);
        assert!(!re.has_errors(), "printed module does not parse:\n{printed}");
        assert_eq!(print_module(&re.module), printed, "print is not a fixed point");
    }
});
