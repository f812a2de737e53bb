//! Diagnostics: one type for every stage's errors, warnings and notes, rendered
//! like rustc's (codespan-reporting) or serialised as JSON for tools.
//!
//! A diagnostic names the rule it enforces (`code`), points at a primary span,
//! and may point at related spans ("`.branchtargets` declared here").

use crate::span::{LineIndex, Span};
use codespan_reporting::diagnostic as cr;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The rule's name, e.g. `syntax/expected-token` or `check/brx-index-type`.
    pub code: &'static str,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, span, message)
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, span, message)
    }

    pub fn note(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, code, span, message)
    }

    pub fn new(
        severity: Severity,
        code: &'static str,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            primary: Label { span, message: String::new() },
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Sets the text shown under the primary span.
    pub fn with_label(mut self, message: impl Into<String>) -> Diagnostic {
        self.primary.message = message.into();
        self
    }

    /// Points at a related span.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label { span, message: message.into() });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// One source file, for rendering diagnostics against.
pub struct SourceFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
    index: LineIndex,
}

impl<'a> SourceFile<'a> {
    pub fn new(name: &'a str, text: &'a str) -> SourceFile<'a> {
        SourceFile { name, text, index: LineIndex::new(text) }
    }

    pub fn line_col(&self, span: Span) -> (u32, u32) {
        self.index.line_col(span.start)
    }

    /// Renders diagnostics as rustc-style text with source snippets.
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        let file = SimpleFile::new(self.name, self.text);
        let mut buf = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let config = term::Config::default();
        for d in diags {
            let sev = match d.severity {
                Severity::Error => cr::Severity::Error,
                Severity::Warning => cr::Severity::Warning,
                Severity::Note => cr::Severity::Note,
            };
            let mut labels = vec![cr::Label::primary((), self.clamp(d.primary.span))
                .with_message(d.primary.message.clone())];
            for l in &d.secondary {
                labels.push(cr::Label::secondary((), self.clamp(l.span)).with_message(l.message.clone()));
            }
            let cd = cr::Diagnostic::new(sev)
                .with_message(d.message.clone())
                .with_code(d.code)
                .with_labels(labels)
                .with_notes(d.notes.clone());
            // Writing to an in-memory buffer cannot fail unless a span is out of range,
            // which `clamp` prevents; fall back to a plain line if it does.
            if term::emit(&mut buf, &config, &file, &cd).is_err() {
                let (l, c) = self.line_col(d.primary.span);
                let line = format!("{}: {}:{}:{}: {}\n", d.code, self.name, l, c, d.message);
                buf_write(&mut buf, &line);
            }
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }

    fn clamp(&self, span: Span) -> std::ops::Range<usize> {
        let len = self.text.len();
        let mut start = (span.start as usize).min(len);
        let mut end = (span.end as usize).clamp(start, len);
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        start..end
    }

    /// One JSON object per diagnostic, with file, 1-based line and column.
    pub fn to_json(&self, diags: &[Diagnostic]) -> Vec<serde_json::Value> {
        diags
            .iter()
            .map(|d| {
                let (line, column) = self.line_col(d.primary.span);
                let (end_line, end_column) = self.index.line_col(d.primary.span.end);
                serde_json::json!({
                    "file": self.name,
                    "severity": d.severity,
                    "code": d.code,
                    "message": d.message,
                    "line": line,
                    "column": column,
                    "end_line": end_line,
                    "end_column": end_column,
                    "label": d.primary.message,
                    "related": d.secondary.iter().map(|l| {
                        let (line, column) = self.line_col(l.span);
                        serde_json::json!({"line": line, "column": column, "message": l.message})
                    }).collect::<Vec<_>>(),
                    "notes": d.notes,
                })
            })
            .collect()
    }
}

fn buf_write(buf: &mut termcolor::Buffer, s: &str) {
    use std::io::Write;
    let _ = buf.write_all(s.as_bytes());
}
