//! The `ptxsim` command-line interface. The only crate that prints or exits.
//!
//! `main.rs` owns argument dispatch; each subcommand lives in its own module.

use clap::{Parser, Subcommand};
use ptxsim_syntax::{Diagnostic, SourceFile};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "ptxsim", version, about = "Parse, check, analyse and run NVIDIA PTX on the CPU")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and verify PTX modules; report problems with file:line:col and a snippet.
    Check {
        /// PTX files to check.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Colour the text output (auto: when standard output is a terminal).
        #[arg(long, value_enum, default_value = "auto")]
        color: Color,
    },
    /// Print a module back as normalised PTX (parse, then print).
    Fmt {
        file: std::path::PathBuf,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// Exit status: 0 clean, 1 errors in the input, 2 usage or I/O problems.
const EXIT_INPUT: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    match cli.command {
        None => demo(),
        Some(Command::Check { files, format, color }) => check(&files, format, color),
        Some(Command::Fmt { file }) => fmt(&file),
    }
}

fn read(path: &std::path::Path) -> Result<String, ExitCode> {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => {
                eprintln!("error: {}: not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to());
                Err(ExitCode::from(EXIT_USAGE))
            }
        },
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            Err(ExitCode::from(EXIT_USAGE))
        }
    }
}

fn use_color(c: Color) -> bool {
    use std::io::IsTerminal;
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

fn check(files: &[std::path::PathBuf], format: Format, color: Color) -> ExitCode {
    let mut any_error = false;
    let mut io_error = false;
    let mut json = Vec::new();
    for path in files {
        let text = match read(path) {
            Ok(t) => t,
            Err(_) => {
                io_error = true;
                continue;
            }
        };
        let name = path.display().to_string();
        let diags = check_text(&text);
        any_error |= diags.iter().any(Diagnostic::is_error);
        let file = SourceFile::new(&name, &text);
        match format {
            Format::Text => print!("{}", file.render(&diags, use_color(color))),
            Format::Json => json.extend(file.to_json(&diags)),
        }
    }
    match format {
        Format::Json => println!("{}", serde_json::json!({ "diagnostics": json })),
        Format::Text => {
            if !any_error && !io_error {
                eprintln!("ok: {} file(s) checked, no errors", files.len());
            }
        }
    }
    if io_error {
        ExitCode::from(EXIT_USAGE)
    } else if any_error {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

fn check_text(text: &str) -> Vec<Diagnostic> {
    ptxsim_syntax::parse(text).diagnostics
}

fn fmt(path: &std::path::Path) -> ExitCode {
    let text = match read(path) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let parsed = ptxsim_syntax::parse(&text);
    if parsed.has_errors() {
        let name = path.display().to_string();
        eprint!("{}", SourceFile::new(&name, &text).render(&parsed.diagnostics, false));
        return ExitCode::from(EXIT_INPUT);
    }
    print!("{}", ptxsim_syntax::print_module(&parsed.module));
    ExitCode::SUCCESS
}

fn demo() -> ExitCode {
    println!("ptxsim: run `ptxsim --help` for the commands.");
    ExitCode::SUCCESS
}
