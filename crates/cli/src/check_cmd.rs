//! `ptxsim check` and `ptxsim fmt`.

use crate::common::{read_text, use_color, Color, EXIT_INPUT, EXIT_USAGE};
use ptxsim_syntax::{Diagnostic, SourceFile};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// PTX files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Colour the text output (auto: when standard output is a terminal).
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
}

#[derive(clap::Args)]
pub struct FmtArgs {
    file: PathBuf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Parses and checks one module's text: syntax errors first; the checker runs
/// only on a module that parsed cleanly.
pub fn diagnose(text: &str) -> Vec<Diagnostic> {
    let parsed = ptxsim_syntax::parse(text);
    let mut diags = parsed.diagnostics;
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(ptxsim_check::check_module(&parsed.module));
    }
    diags
}

pub fn run(a: Args) -> ExitCode {
    let mut any_error = false;
    let mut io_error = false;
    let mut json = Vec::new();
    for path in &a.files {
        let text = match read_text(path) {
            Ok(t) => t,
            Err(_) => {
                io_error = true;
                continue;
            }
        };
        let name = path.display().to_string();
        let diags = diagnose(&text);
        any_error |= diags.iter().any(Diagnostic::is_error);
        let file = SourceFile::new(&name, &text);
        match a.format {
            Format::Text => print!("{}", file.render(&diags, use_color(a.color))),
            Format::Json => json.extend(file.to_json(&diags)),
        }
    }
    match a.format {
        Format::Json => println!("{}", serde_json::json!({ "diagnostics": json })),
        Format::Text => {
            if !any_error && !io_error {
                eprintln!("ok: {} file(s) checked, no errors", a.files.len());
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

pub fn fmt(a: FmtArgs) -> ExitCode {
    let text = match read_text(&a.file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let parsed = ptxsim_syntax::parse(&text);
    if parsed.has_errors() {
        let name = a.file.display().to_string();
        eprint!("{}", SourceFile::new(&name, &text).render(&parsed.diagnostics, false));
        return ExitCode::from(EXIT_INPUT);
    }
    print!("{}", ptxsim_syntax::print_module(&parsed.module));
    ExitCode::SUCCESS
}
