//! Deterministic generator of large PTX modules from the corpus, shared by the
//! 100 MB test (`tests/big.rs`) and the parse benchmark (`benches/parse.rs`).
//!
//! It concatenates the module items of real corpus files over and over, each
//! copy with its module-level names (functions, variables) renamed with a
//! `_cN` suffix so the result is a valid-looking module with unique names. One
//! `.version`/`.target`/`.address_size` header leads the module.

#![allow(dead_code)]

use ptxsim_syntax::ast::Item;
use ptxsim_syntax::lexer::{Lexer, Tok};
use ptxsim_syntax::parse;
use std::collections::HashSet;

/// One corpus file prepared for copying: its items' text and the names to rename.
pub struct Template {
    pub name: String,
    /// The file text from the first item after the module header.
    body: String,
    defined: HashSet<String>,
    /// How many functions the file defines (with a body).
    pub bodies: usize,
}

impl Template {
    /// The bytes one copy adds (before renaming).
    pub fn bytes(&self) -> usize {
        self.body.len()
    }

    /// Bytes per defined function (the whole copy when it defines none).
    pub fn bytes_per_body(&self) -> usize {
        self.body.len() / self.bodies.max(1)
    }
}

/// Prepares `text` as a template, or `None` if it does not parse cleanly,
/// carries debug sections (whose label references would need renaming too)
/// or targets a later architecture than the generated module's sm_80 (its
/// instructions may need it).
pub fn template(name: &str, text: &str) -> Option<Template> {
    let parsed = parse(text);
    if parsed.has_errors() {
        return None;
    }
    let mut defined = HashSet::new();
    let mut bodies = 0;
    let mut body_start = 0u32;
    for item in &parsed.module.items {
        match item {
            Item::Version(v) => body_start = body_start.max(v.span.end),
            Item::Target(t) => {
                let sm = text[t.span.range()].split(|c: char| !c.is_ascii_digit()).find_map(|d| d.parse::<u32>().ok());
                if sm.is_some_and(|sm| sm > 80) {
                    return None;
                }
                body_start = body_start.max(t.span.end)
            }
            Item::AddressSize(a) => body_start = body_start.max(a.span.end),
            Item::Section(_) | Item::File(_) => return None,
            Item::Function(f) => {
                defined.insert(f.name.text.to_string());
                bodies += usize::from(f.body.is_some());
            }
            Item::Var(v) => defined.extend(v.declarators.iter().map(|d| d.name.text.to_string())),
            Item::Alias { alias, .. } => {
                defined.insert(alias.text.to_string());
            }
            Item::Pragma(_) => {}
        }
    }
    let start = body_start as usize;
    Some(Template { name: name.to_string(), body: text[start..].to_string(), defined, bodies })
}

/// Appends one copy of `t` to `out`, renaming its module-level names with `_cN`.
pub fn append_copy(out: &mut String, t: &Template, n: usize) {
    let src = t.body.as_str();
    let mut lx = Lexer::new(src);
    let mut last = 0usize;
    loop {
        let (tok, span) = lx.next_token();
        if tok == Tok::Eof {
            break;
        }
        if tok == Tok::Ident && t.defined.contains(&src[span.range()]) {
            out.push_str(&src[last..span.end as usize]);
            out.push_str("_c");
            out.push_str(&n.to_string());
            last = span.end as usize;
        }
    }
    out.push_str(&src[last..]);
    out.push('\n');
}

/// Builds a module of at least `min_bytes` from `templates`, cycling through them.
pub fn generate(templates: &[Template], min_bytes: usize) -> String {
    generate_from(&templates.iter().collect::<Vec<_>>(), min_bytes)
}

/// [`generate`] from a selection of templates.
pub fn generate_from(templates: &[&Template], min_bytes: usize) -> String {
    assert!(!templates.is_empty(), "no templates");
    let mut out = String::with_capacity(min_bytes + 64 * 1024);
    out.push_str(".version 7.8\n.target sm_80\n.address_size 64\n\n");
    let mut n = 0;
    while out.len() < min_bytes {
        append_copy(&mut out, templates[n % templates.len()], n);
        n += 1;
    }
    out
}
