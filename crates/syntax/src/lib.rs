//! ptxsim-syntax: the PTX front end.
//!
//! It owns the lexer ([`lexer`]), the AST with spans ([`ast`]), the
//! recursive-descent parser with error recovery ([`parser`]), constant-expression
//! evaluation ([`cexpr`]), the printer
//! ([`printer`]) and the diagnostic type shared by every stage ([`diag`]).
//!
//! Invariants:
//! - `parse` never panics and always returns; every problem is a [`Diagnostic`]
//!   with a span.
//! - `parse(print(ast)) == ast` for any AST the parser produced (spans ignored).
//! - The library never prints; rendering produces strings.

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod ast;
pub mod cexpr;
pub mod diag;
pub mod hash;
pub mod lexer;
pub mod parser;
pub mod printer;
pub mod span;

pub use diag::{Diagnostic, Severity, SourceFile};
pub use parser::{parse, parse_body_at, parse_function_at, parse_outline, parse_with_limit, Parsed};
pub use printer::{print_module, print_module_with_comments};
pub use span::{LineIndex, Span};
