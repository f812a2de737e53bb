//! Helpers shared by the subcommands: exit codes, reading input files,
//! choosing colour, printing diagnostics, and keeping text from the input
//! safe and short in messages (control characters escaped, long names and
//! lists cut).

use std::path::Path;
use std::process::ExitCode;

/// Exit status for errors in the input (the PTX, or a kernel trap).
pub const EXIT_INPUT: u8 = 1;
/// Exit status for usage and I/O problems.
pub const EXIT_USAGE: u8 = 2;

/// Inputs larger than this are refused before reading (1 GiB).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

pub fn use_color(c: Color) -> bool {
    use std::io::IsTerminal;
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

/// Reads a UTF-8 text file, printing the reason on failure.
pub fn read_text(path: &Path) -> Result<String, ExitCode> {
    read_text_msg(path).map_err(|m| {
        eprintln!("error: {}", escape_controls(&m));
        ExitCode::from(EXIT_USAGE)
    })
}

/// Reads a UTF-8 text file of at most [`MAX_INPUT_BYTES`]; the error says
/// why not, naming the file cut as [`cut`] does.
/// The size is checked on the open file, and the read is bounded, so a file
/// that grows (or a device like `/dev/zero`) cannot make it read more.
pub fn read_text_msg(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path, MAX_INPUT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 text (invalid byte at offset {})", cut(&path.display().to_string()), e.utf8_error().valid_up_to()))
}

/// Reads at most `max` bytes of a file; more is an error, reported before
/// anything is read when the file's size is known.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let shown = cut(&path.display().to_string());
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let known = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if let Some(n) = known {
        if n > max {
            return Err(format!("{shown}: {n} bytes, larger than the {max}-byte limit"));
        }
    }
    let mut bytes = Vec::with_capacity(known.unwrap_or(0) as usize);
    f.take(max + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("{shown}: larger than the {max}-byte limit"));
    }
    Ok(bytes)
}

/// Escapes the control characters of `s` for a terminal: C0 controls other
/// than newline and tab (ESC as `\x1b`, CR as `\r`, BEL as `\x07`, ...),
/// DEL (`\x7f`) and the C1 controls U+0080 to U+009F (`\u{9b}`), so text
/// taken from the input (a quoted source line, an assertion's message, a
/// file name) cannot move the cursor, retitle the window or recolour the
/// terminal. Text without them is returned as it is.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| (c.is_control() && c != '\n' && c != '\t') || c == '\u{7f}';
    if !s.contains(bad) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\r' => out.push_str("\\r"),
            c if bad(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if bad(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Renders diagnostics for a terminal as the renderer does, with the
/// control characters of the input (a quoted source line, a name, the file
/// name) escaped as [`escape_controls`] does. Colour is the renderer's own
/// escape sequences, so a diagnostic whose text has control characters of
/// its own is rendered without colour (and escaped); the others keep it.
pub fn render_diags(file: &ptxsim_syntax::SourceFile<'_>, diags: &[ptxsim_syntax::Diagnostic], color: bool) -> Vec<u8> {
    use codespan_reporting::term::termcolor::Buffer;
    let mut out = Vec::new();
    let mut plain = Buffer::no_color();
    for d in diags {
        plain.clear();
        file.render_one(&mut plain, d);
        let text = String::from_utf8_lossy(plain.as_slice());
        match escape_controls(&text) {
            std::borrow::Cow::Owned(escaped) => out.extend_from_slice(escaped.as_bytes()),
            std::borrow::Cow::Borrowed(_) if color => {
                let mut c = Buffer::ansi();
                file.render_one(&mut c, d);
                out.extend_from_slice(c.as_slice());
            }
            std::borrow::Cow::Borrowed(t) => out.extend_from_slice(t.as_bytes()),
        }
    }
    out
}

/// A name or other text from the input, cut for a message as the checker
/// cuts backquoted names ([`ptxsim_syntax::diag::bound_text`]): longer than
/// [`ptxsim_syntax::diag::MAX_NAME`] bytes, it keeps its first bytes and
/// says `…(N bytes)`.
pub fn cut(s: &str) -> String {
    ptxsim_syntax::diag::cut_name(s)
}

/// Most entries of a list a message names (kernels, parameters).
pub const MAX_LISTED: usize = 8;

/// The first [`MAX_LISTED`] of `items` joined by `, `, then `… and N more`.
pub fn cut_list(items: impl IntoIterator<Item = String>) -> String {
    ptxsim_syntax::diag::cut_list(items, MAX_LISTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_names_cut() {
        assert_eq!(escape_controls("a\x1b[2Jb\r\x07\x7f\u{9b}c\n\td"), "a\\x1b[2Jb\\r\\x07\\x7f\\u{9b}c\n\td");
        assert!(matches!(escape_controls("plain é"), std::borrow::Cow::Borrowed(_)));
        let long = "n".repeat(1000);
        assert_eq!(cut(&long), format!("{}…(1000 bytes)", "n".repeat(48)));
        assert_eq!(cut("short"), "short");
        assert!(cut(&format!("`{long}`")).ends_with("…(1002 bytes)"));
        assert_eq!(cut_list((0..3).map(|i| i.to_string())), "0, 1, 2");
        assert_eq!(cut_list((0..10).map(|i| i.to_string())), "0, 1, 2, 3, 4, 5, 6, 7, … and 2 more");
    }
}
