//! Helpers shared by the subcommands: exit codes, reading input files,
//! choosing colour, printing diagnostics.

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
        eprintln!("error: {m}");
        ExitCode::from(EXIT_USAGE)
    })
}

/// Reads a UTF-8 text file of at most [`MAX_INPUT_BYTES`]; the error says why not.
/// The size is checked on the open file, and the read is bounded, so a file
/// that grows (or a device like `/dev/zero`) cannot make it read more.
pub fn read_text_msg(path: &Path) -> Result<String, String> {
    let bytes = read_bounded(path, MAX_INPUT_BYTES)?;
    String::from_utf8(bytes).map_err(|e| format!("{}: not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to()))
}

/// Reads at most `max` bytes of a file; more is an error, reported before
/// anything is read when the file's size is known.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let known = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
    if let Some(n) = known {
        if n > max {
            return Err(format!("{}: {n} bytes, larger than the {max}-byte limit", path.display()));
        }
    }
    let mut bytes = Vec::with_capacity(known.unwrap_or(0) as usize);
    f.take(max + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!("{}: larger than the {max}-byte limit", path.display()));
    }
    Ok(bytes)
}
