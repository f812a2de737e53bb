//! Diagnostics: one type for every stage's errors, warnings and notes, rendered
//! like rustc's (codespan-reporting) or serialised as JSON for tools.
//!
//! A diagnostic names the rule it enforces (`code`), points at a primary span,
//! and may point at related spans ("`.branchtargets` declared here").
//!
//! Output is bounded whatever the input: messages, labels and notes are cut
//! to [`MAX_MESSAGE`] bytes (long backquoted names first, see [`bound_text`]),
//! and a snippet shows a window of at most [`SNIPPET_WINDOW`] bytes of each
//! source line it quotes, so a diagnostic on a 40 MB line costs a few hundred
//! bytes, not a copy of the line.

use crate::span::{LineIndex, Span};
use codespan_reporting::diagnostic as cr;
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

/// Longest message, label or note kept, in bytes.
pub const MAX_MESSAGE: usize = 512;
/// Longest backquoted name kept in a message, in bytes.
pub const MAX_NAME: usize = 64;
/// Most bytes of a source line shown in a snippet.
pub const SNIPPET_WINDOW: usize = 160;

/// Bounds a message: every backquoted part longer than [`MAX_NAME`] is cut to
/// its first bytes plus `…(N bytes)`, and the whole to [`MAX_MESSAGE`] bytes.
/// Short texts are returned as they are.
pub fn bound_text(s: String) -> String {
    if s.len() <= MAX_NAME {
        return s;
    }
    let mut out = String::with_capacity(s.len().min(MAX_MESSAGE + 16));
    let mut rest = s.as_str();
    let mut quoted = false;
    while !rest.is_empty() {
        let (part, tail) = match rest.find('`') {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        if quoted && part.len() > MAX_NAME {
            out.push_str(&part[..floor_char(part, MAX_NAME - 16)]);
            out.push_str(&format!("…({} bytes)", part.len()));
        } else {
            out.push_str(part);
        }
        if out.len() > MAX_MESSAGE {
            break;
        }
        match tail {
            Some(t) => {
                out.push('`');
                quoted = !quoted;
                rest = t;
            }
            None => break,
        }
    }
    if out.len() > MAX_MESSAGE {
        let cut = floor_char(&out, MAX_MESSAGE);
        out.truncate(cut);
        out.push('…');
    }
    out
}

/// One name as a message quotes it, cut as [`bound_text`] cuts a
/// backquoted name: longer than [`MAX_NAME`] bytes, its first bytes and
/// `…(N bytes)`.
pub fn cut_name(s: &str) -> String {
    if s.len() <= MAX_NAME {
        return s.to_string();
    }
    format!("{}…({} bytes)", &s[..floor_char(s, MAX_NAME - 16)], s.len())
}

/// The first `max` of `items` joined by `, `, then `… and N more`.
pub fn cut_list(items: impl IntoIterator<Item = String>, max: usize) -> String {
    let mut it = items.into_iter();
    let mut out: Vec<String> = it.by_ref().take(max).collect();
    let more = it.count();
    if more > 0 {
        out.push(format!("… and {more} more"));
    }
    out.join(", ")
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `s` at or above `i`.
fn ceil_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
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
            message: bound_text(message.into()),
            primary: Label { span, message: String::new() },
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Sets the text shown under the primary span.
    pub fn with_label(mut self, message: impl Into<String>) -> Diagnostic {
        self.primary.message = bound_text(message.into());
        self
    }

    /// Points at a related span.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label { span, message: bound_text(message.into()) });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(bound_text(note.into()));
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
        let mut buf = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        for d in diags {
            self.render_one(&mut buf, d);
        }
        String::from_utf8_lossy(buf.as_slice()).into_owned()
    }

    /// Renders one diagnostic into `buf`, quoting only a window of each line.
    pub fn render_one(&self, buf: &mut termcolor::Buffer, d: &Diagnostic) {
        let config = term::Config::default();
        let sev = match d.severity {
            Severity::Error => cr::Severity::Error,
            Severity::Warning => cr::Severity::Warning,
            Severity::Note => cr::Severity::Note,
        };
        let spans: Vec<Span> = std::iter::once(d.primary.span).chain(d.secondary.iter().map(|l| l.span)).collect();
        let (file, ranges) = Excerpt::build(self, &spans);
        let mut labels = Vec::with_capacity(ranges.len());
        for (k, r) in ranges.into_iter().enumerate() {
            labels.push(if k == 0 {
                cr::Label::primary((), r).with_message(d.primary.message.clone())
            } else {
                cr::Label::secondary((), r).with_message(d.secondary[k - 1].message.clone())
            });
        }
        let cd = cr::Diagnostic::new(sev)
            .with_message(d.message.clone())
            .with_code(d.code)
            .with_labels(labels)
            .with_notes(d.notes.clone());
        // Writing to an in-memory buffer cannot fail unless a range is out of
        // bounds, which `Excerpt` prevents; fall back to a plain line if it does.
        if term::emit(buf, &config, &file, &cd).is_err() {
            let (l, c) = self.line_col(d.primary.span);
            let line = format!("{}: {}:{}:{}: {}\n", d.code, self.name, l, c, d.message);
            buf_write(buf, &line);
        }
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

/// The part of a source file one diagnostic quotes: for each line it points
/// at, a window of at most [`SNIPPET_WINDOW`] bytes (with `…` where the line
/// was cut), joined by newlines. It answers codespan's questions with the
/// real file name, line numbers and (byte) columns.
struct Excerpt<'s> {
    name: &'s str,
    text: String,
    /// Per quoted line, in line order: (0-based line index, start of the
    /// piece in `text`, end of it, the original offset its first byte maps to
    /// (after any leading `…`), the original start of the line).
    pieces: Vec<(usize, usize, usize, usize, usize)>,
}

impl<'s> Excerpt<'s> {
    /// Builds the excerpt for `spans` (primary first) and maps each span into
    /// it: a span is cut to its first line and to the window.
    fn build(src: &SourceFile<'s>, spans: &[Span]) -> (Excerpt<'s>, Vec<std::ops::Range<usize>>) {
        let text = src.text;
        let len = text.len();
        // The window of each quoted line, centred on its first span.
        let mut lines: Vec<(usize, usize, usize, usize)> = Vec::new(); // (line, line_start, win_start, win_end)
        let mut cut: Vec<(usize, usize, usize)> = Vec::new(); // (line, start, end) in original offsets
        for sp in spans {
            let start = (sp.start as usize).min(len);
            let li = src.index.line(start as u32) as usize - 1;
            let line_start = src.index.line_start(li).unwrap_or(len).min(len);
            let line_end = src.index.line_start(li + 1).map(|e| e.saturating_sub(1)).unwrap_or(len).clamp(line_start, len);
            let line_end = if line_end > line_start && text.as_bytes()[line_end - 1] == b'\r' { line_end - 1 } else { line_end };
            let start = start.min(line_end);
            let end = (sp.end as usize).clamp(start, line_end);
            if !lines.iter().any(|l| l.0 == li) {
                let (ws, we) = if line_end - line_start <= SNIPPET_WINDOW {
                    (line_start, line_end)
                } else {
                    let ws = start.saturating_sub(SNIPPET_WINDOW / 3).max(line_start);
                    let we = (ws + SNIPPET_WINDOW).min(line_end);
                    let ws = we.saturating_sub(SNIPPET_WINDOW).max(line_start);
                    (floor_char(text, ws), ceil_char(text, we))
                };
                lines.push((li, line_start, ws, we));
            }
            cut.push((li, start, end));
        }
        lines.sort_by_key(|l| l.0);
        // codespan shows the one line between two quoted lines two apart: quote it too.
        let gaps: Vec<usize> = lines.windows(2).filter(|w| w[1].0 == w[0].0 + 2).map(|w| w[0].0 + 1).collect();
        for li in gaps {
            let line_start = src.index.line_start(li).unwrap_or(len).min(len);
            let line_end = src.index.line_start(li + 1).map(|e| e.saturating_sub(1)).unwrap_or(len).clamp(line_start, len);
            let line_end = if line_end > line_start && text.as_bytes()[line_end - 1] == b'\r' { line_end - 1 } else { line_end };
            let we = ceil_char(text, (line_start + SNIPPET_WINDOW).min(line_end));
            lines.push((li, line_start, line_start, we));
        }
        lines.sort_by_key(|l| l.0);
        let mut ex = Excerpt { name: src.name, text: String::new(), pieces: Vec::with_capacity(lines.len()) };
        for &(li, line_start, ws, we) in &lines {
            let p0 = ex.text.len();
            if ws > line_start {
                ex.text.push('…');
            }
            ex.text.push_str(&text[ws..we]);
            if we < len && text.as_bytes()[we] != b'\n' && text.as_bytes()[we] != b'\r' {
                ex.text.push('…');
            }
            ex.pieces.push((li, p0, ex.text.len(), ws, line_start));
            ex.text.push('\n');
        }
        let ranges = cut
            .iter()
            .map(|&(li, s, e)| {
                let Some(&(_, p0, _, ws, line_start)) = ex.pieces.iter().find(|p| p.0 == li) else { return 0..0 };
                let lead = if ws > line_start { '…'.len_utf8() } else { 0 };
                let body_end = p0 + lead + (lines.iter().find(|l| l.0 == li).map(|l| l.3 - l.2).unwrap_or(0));
                let map = |o: usize| {
                    if o < ws {
                        p0
                    } else {
                        (p0 + lead + (o - ws)).min(body_end)
                    }
                };
                let (a, b) = (map(s), map(e));
                a..b.max(a)
            })
            .collect();
        (ex, ranges)
    }

    fn piece(&self, byte: usize) -> Option<&(usize, usize, usize, usize, usize)> {
        self.pieces.iter().find(|p| byte >= p.1 && byte <= p.2).or(self.pieces.last())
    }
}

impl<'e, 's> codespan_reporting::files::Files<'e> for Excerpt<'s> {
    type FileId = ();
    type Name = &'e str;
    type Source = &'e str;

    fn name(&'e self, (): ()) -> Result<&'e str, codespan_reporting::files::Error> {
        Ok(self.name)
    }

    fn source(&'e self, (): ()) -> Result<&'e str, codespan_reporting::files::Error> {
        Ok(&self.text)
    }

    fn line_index(&'e self, (): (), byte_index: usize) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self.piece(byte_index).map(|p| p.0).unwrap_or(0))
    }

    fn line_range(&'e self, (): (), line_index: usize) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        match self.pieces.iter().find(|p| p.0 == line_index) {
            Some(p) => Ok(p.1..p.2),
            // A line between two quoted ones that is not itself quoted: empty.
            None => Ok(self.text.len()..self.text.len()),
        }
    }

    fn location(&'e self, (): (), byte_index: usize) -> Result<codespan_reporting::files::Location, codespan_reporting::files::Error> {
        let Some(&(li, p0, _, ws, line_start)) = self.piece(byte_index) else {
            return Ok(codespan_reporting::files::Location { line_number: 1, column_number: 1 });
        };
        let lead = if ws > line_start { '…'.len_utf8() } else { 0 };
        let col = (ws - line_start) + byte_index.saturating_sub(p0 + lead) + 1;
        Ok(codespan_reporting::files::Location { line_number: li + 1, column_number: col })
    }
}

fn buf_write(buf: &mut termcolor::Buffer, s: &str) {
    use std::io::Write;
    let _ = buf.write_all(s.as_bytes());
}
