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
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.len() > MAX_INPUT_BYTES {
            eprintln!("error: {}: larger than {} bytes", path.display(), MAX_INPUT_BYTES);
            return Err(ExitCode::from(EXIT_USAGE));
        }
    }
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => {
                eprintln!(
                    "error: {}: not UTF-8 text (invalid byte at offset {})",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                Err(ExitCode::from(EXIT_USAGE))
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            Err(ExitCode::from(EXIT_USAGE))
        }
    }
}
