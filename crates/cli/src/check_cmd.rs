//! `ptxsim check` and `ptxsim fmt`.

use crate::common::{escape_controls, read_text, render_diags, use_color, Color, EXIT_INPUT, EXIT_USAGE};
use ptxsim_syntax::{Diagnostic, Severity, SourceFile};
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
    /// Most errors (and, separately, warnings) shown per file; the rest are
    /// counted ("N more errors not shown").
    #[arg(long, default_value_t = DEFAULT_MAX_ERRORS, value_parser = clap::value_parser!(u32).range(1..))]
    max_errors: u32,
    /// Check each module as a whole program (`ptxas` without `-c`): a call
    /// to an `.extern` function needs its definition in the module. By
    /// default a module is relocatable code (`ptxas -c`, `nvcc -rdc`) and
    /// such calls are left to the linker (listed in the summary).
    #[arg(long)]
    whole_program: bool,
    /// Also link the files as nvlink would (`nvcc -rdc`): two `.visible`
    /// definitions of a name, a called `.extern` function or an `.extern`
    /// variable that no file defines, and a declaration that does not
    /// match its definition are `link/symbol` errors.
    #[arg(long, conflicts_with = "whole_program")]
    link: bool,
    /// Threads that parse and check function bodies (default: one per
    /// core). The output does not depend on it.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
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

/// Default of `--max-errors`.
pub const DEFAULT_MAX_ERRORS: u32 = 100;

/// The diagnostics kept for one module, and how many more were found.
pub struct Report {
    pub diags: Vec<Diagnostic>,
    pub errors_not_shown: usize,
    pub warnings_not_shown: usize,
    /// `.extern` functions called and not defined (relocatable mode), with
    /// the line of the first call.
    pub unresolved: Vec<(String, u32)>,
}

impl Report {
    pub fn errors(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count() + self.errors_not_shown
    }

    pub fn warnings(&self) -> usize {
        self.diags.iter().filter(|d| d.severity == Severity::Warning).count() + self.warnings_not_shown
    }
}

/// Parses and checks one module's text, keeping at most `max` errors and
/// `max` warnings: syntax errors first; the checker runs only on a module
/// that parsed cleanly. Function bodies are parsed and checked one at a
/// time on `threads` threads (`ptxsim_check::check_text`).
pub fn diagnose(text: &str, max: usize, mode: ptxsim_check::Mode, threads: usize) -> Report {
    let found = ptxsim_check::check_text(text, max, mode, threads);
    let mut r = Report { errors_not_shown: found.parse_errors_not_shown, warnings_not_shown: 0, diags: found.parse_diagnostics, unresolved: Vec::new() };
    if let Some(checked) = found.checked {
        r.unresolved = checked.unresolved.iter().map(|(n, s)| (n.clone(), s.start)).collect();
        lines_of(text, &mut r.unresolved);
        r.diags.extend(checked.diagnostics);
        r.errors_not_shown += checked.errors_not_shown;
        r.warnings_not_shown += checked.warnings_not_shown;
    }
    r
}

/// Replaces each byte offset with its 1-based line: one counting pass up
/// to the last offset (a module's line index costs a pass over all of it,
/// for what is usually a handful of names).
fn lines_of(text: &str, at: &mut [(String, u32)]) {
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&i| at[i].1);
    let (bytes, mut pos, mut line) = (text.as_bytes(), 0usize, 1u32);
    for i in order {
        let off = (at[i].1 as usize).min(bytes.len()).max(pos);
        line += ptxsim_syntax::span::count_newlines(&bytes[pos..off]) as u32;
        pos = off;
        at[i].1 = line;
    }
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// "N more errors and M more warnings not shown (--max-errors K)", if any.
fn not_shown(r: &Report, max: u32) -> Option<String> {
    let mut parts = Vec::new();
    if r.errors_not_shown > 0 {
        parts.push(format!("{} more {}", r.errors_not_shown, if r.errors_not_shown == 1 { "error" } else { "errors" }));
    }
    if r.warnings_not_shown > 0 {
        parts.push(format!("{} more {}", r.warnings_not_shown, if r.warnings_not_shown == 1 { "warning" } else { "warnings" }));
    }
    if parts.is_empty() {
        None
    } else {
        Some(format!("{} not shown (--max-errors {max})", parts.join(" and ")))
    }
}

pub fn run(a: Args) -> ExitCode {
    use std::io::Write;
    let max = a.max_errors as usize;
    let (mut errors, mut warnings, mut not_shown_total) = (0usize, 0usize, 0usize);
    let mut io_errors = 0usize;
    let color = use_color(a.color);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let threads = match a.jobs {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    let mode = if a.whole_program { ptxsim_check::Mode::WholeProgram } else { ptxsim_check::Mode::Relocatable };
    // (file, function, line of the first call) of every `.extern` function
    // called without a definition: what a linker must provide.
    let mut unresolved: Vec<(String, String, u32)> = Vec::new();
    // The texts, kept for --link.
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut json_first = true;
    if matches!(a.format, Format::Json) {
        let _ = write!(out, "{{\"diagnostics\":[");
    }
    let mut json_item = |out: &mut std::io::BufWriter<std::io::StdoutLock<'_>>, v: serde_json::Value| {
        let _ = write!(out, "{}{v}", if json_first { "" } else { "," });
        json_first = false;
    };
    for path in &a.files {
        let name = path.display().to_string();
        let text = match read_text_quiet(path) {
            Ok(t) => t,
            Err(msg) => {
                io_errors += 1;
                match a.format {
                    Format::Text => eprintln!("error: {}", escape_controls(&msg)),
                    Format::Json => json_item(
                        &mut out,
                        serde_json::json!({"file": name, "severity": "error", "code": "io/read", "message": msg, "line": null, "column": null}),
                    ),
                }
                continue;
            }
        };
        let report = diagnose(&text, max, mode, threads);
        unresolved.extend(report.unresolved.iter().map(|(f, l)| (name.clone(), f.clone(), *l)));
        if a.link {
            texts.push((name.clone(), text.clone()));
        }
        errors += report.errors();
        warnings += report.warnings();
        not_shown_total += report.errors_not_shown + report.warnings_not_shown;
        // The line index of the renderer is built only for a file with
        // something to show.
        if report.diags.is_empty() {
            if let (Format::Text, Some(m)) = (&a.format, not_shown(&report, a.max_errors)) {
                let _ = writeln!(out, "{}: {m}\n", escape_controls(&name));
            }
            continue;
        }
        let file = SourceFile::new(&name, &text);
        match a.format {
            Format::Text => {
                let _ = out.write_all(&render_diags(&file, &report.diags, color));
                if let Some(m) = not_shown(&report, a.max_errors) {
                    let _ = writeln!(out, "{}: {m}\n", escape_controls(&name));
                }
            }
            Format::Json => {
                for v in file.to_json(&report.diags) {
                    json_item(&mut out, v);
                }
            }
        }
    }
    if a.link {
        let refs: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        if let Err(m) = ptxsim_exec::Device::link_problems(&refs) {
            for line in m.lines() {
                errors += 1;
                match a.format {
                    Format::Text => {
                        let _ = writeln!(out, "error[link/symbol]: {}\n", escape_controls(line));
                    }
                    Format::Json => json_item(&mut out, serde_json::json!({"file": null, "severity": "error", "code": "link/symbol", "message": line, "line": null, "column": null})),
                }
            }
        }
        // Linked, what one file leaves to the linker another may define.
        unresolved.clear();
    }
    let files = a.files.len();
    match a.format {
        Format::Json => {
            let summary = serde_json::json!({
                "files": files,
                "errors": errors + io_errors,
                "warnings": warnings,
                "not_shown": not_shown_total,
                "unreadable_files": io_errors,
                "unresolved": unresolved.iter().map(|(file, f, l)| serde_json::json!({"file": file, "function": f, "line": l})).collect::<Vec<_>>(),
            });
            let _ = writeln!(out, "],\"summary\":{summary}}}");
            let _ = out.flush();
        }
        Format::Text => {
            let _ = out.flush();
            drop(out);
            if errors == 0 && io_errors == 0 {
                if warnings == 0 {
                    eprintln!("ok: {} checked, no errors", plural(files, "file"));
                } else {
                    eprintln!("ok: {} checked, no errors, {}", plural(files, "file"), plural(warnings, "warning"));
                }
            } else {
                let mut what = vec![plural(errors, "error"), plural(warnings, "warning")];
                if io_errors > 0 {
                    what.push(format!("{} not read", plural(io_errors, "file")));
                }
                eprintln!("{} checked: {}", plural(files, "file"), what.join(", "));
            }
            if !unresolved.is_empty() {
                eprintln!("left to the linker ({} called, declared `.extern` and not defined; --whole-program rejects them):", plural(unresolved.len(), "function"));
                for (file, f, l) in unresolved.iter().take(16) {
                    eprintln!("  {}", escape_controls(&format!("{} ({file}:{l})", ptxsim_syntax::diag::bound_text(format!("`{f}`")))));
                }
                if unresolved.len() > 16 {
                    eprintln!("  ... and {} more", unresolved.len() - 16);
                }
            }
        }
    }
    if io_errors > 0 {
        ExitCode::from(EXIT_USAGE)
    } else if errors > 0 {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads a file as text, returning the reason on failure instead of printing it.
fn read_text_quiet(path: &std::path::Path) -> Result<String, String> {
    crate::common::read_text_msg(path)
}

/// `ptxsim fmt`: prints the module back as normalised PTX, comments kept.
/// A module with syntax or check errors is not printed: its diagnostics go to
/// standard error and the exit status is 1.
pub fn fmt(a: FmtArgs) -> ExitCode {
    use std::io::Write;
    let text = match read_text(&a.file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let name = a.file.display().to_string();
    let report = diagnose(&text, DEFAULT_MAX_ERRORS as usize, ptxsim_check::Mode::Relocatable, 1);
    if report.errors() > 0 {
        let errors: Vec<Diagnostic> = report.diags.into_iter().filter(Diagnostic::is_error).collect();
        let _ = std::io::stderr().write_all(&render_diags(&SourceFile::new(&name, &text), &errors, false));
        let shown = escape_controls(&name);
        if report.errors_not_shown > 0 {
            eprintln!("{shown}: {} more not shown", plural(report.errors_not_shown, "error"));
        }
        eprintln!("error: `{shown}` has {}; not formatted", plural(errors.len() + report.errors_not_shown, "error"));
        return ExitCode::from(EXIT_INPUT);
    }
    drop(report);
    let parsed = ptxsim_syntax::parse(&text);
    let printed = ptxsim_syntax::print_module_with_comments(&parsed.module, &text);
    drop(parsed);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(printed.as_bytes());
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    /// `lines_of` gives the lines `LineIndex` gives, in any order of offsets.
    #[test]
    fn lines_of_equals_the_line_index() {
        let text = "a\nbb\n\nccc\nd";
        let idx = ptxsim_syntax::LineIndex::new(text);
        let offsets = [9u32, 0, 3, 1, 5, 6, 2, 10, 4, 8];
        let mut at: Vec<(String, u32)> = offsets.iter().map(|o| (o.to_string(), *o)).collect();
        super::lines_of(text, &mut at);
        for (o, (_, line)) in offsets.iter().zip(&at) {
            assert_eq!(*line, idx.line(*o), "offset {o}");
        }
    }
}
