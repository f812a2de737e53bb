//! Routing an instruction to its family decoder, from its row of the
//! instruction description (`ptxsim_isa`), and the view of an instruction
//! the family decoders read ([`Ins`], its modifiers decoded once by
//! `ptxsim_isa::decode`); the decoder's error type.

use ptxsim_isa::{Engine, Family};
use ptxsim_syntax::ast;

/// Why an instruction or a declaration could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecodeError {
    /// An instruction form (opcode, modifiers and types, as written) the
    /// engine does not run yet.
    #[error("instruction `{0}` is not supported yet")]
    Unsupported(String),
    /// An opcode the instruction description marks not supported yet, with
    /// the reason its row gives.
    #[error("instruction `{name}` is not supported yet ({why})")]
    NotYet { name: String, why: &'static str },
    /// An operand, or a modifier combination, this engine cannot use where
    /// it stands (after the checker, a form the engine does not run).
    #[error("{0}")]
    Operand(String),
    /// A decoder limit (registers, frame or shared bytes) exceeded.
    #[error("{0}")]
    Limit(String),
    /// The modifiers do not fit the row's grammar (after the checker, a
    /// module that was not checked).
    #[error("{0}")]
    Grammar(#[from] ptxsim_isa::DecodeError),
}

impl From<&str> for DecodeError {
    fn from(s: &str) -> DecodeError {
        DecodeError::Operand(s.to_string())
    }
}

impl From<String> for DecodeError {
    fn from(s: String) -> DecodeError {
        DecodeError::Operand(s)
    }
}

impl From<DecodeError> for String {
    fn from(e: DecodeError) -> String {
        e.to_string()
    }
}

/// Which family decoder reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Route {
    Memory,
    /// The row's grammar is written: the decoder matches on its
    /// [`ptxsim_isa::Insn`].
    Typed,
}

/// The family decoder of opcode `opc` with the modifiers `has` reports, or
/// `None` when the engine has none (the instruction is not supported yet).
/// The opcode's family is its row of the instruction description
/// (`ptxsim_isa`). The decoder
/// dispatches through this function alone, so [`decodes_opcode`] answers
/// what it does.
pub(super) fn route(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<Route> {
    let Engine::Runs(family) = row(opc, has)?.engine else { return None };
    Some(match family {
        Family::Memory => Route::Memory,
        Family::Typed => Route::Typed,
    })
}

/// The row of opcode `opc` with the modifiers `has` reports: a typed row
/// named by the opcode and one of its modifiers (`red.async`,
/// `cvt.pack`: `ptxsim_isa::compound_row`), else the opcode's.
fn row(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<&'static ptxsim_isa::OpInfo> {
    let compound = ptxsim_isa::OPS.iter().find(|r| r.typed && r.op.strip_prefix(opc).is_some_and(|m| m.starts_with('.') && has(m)));
    compound.or_else(|| ptxsim_isa::lookup(opc))
}

/// Whether the engine has a decoder for `opcode`, written as in the
/// checker's table: an opcode, optionally followed by dotted modifiers
/// (`mul.wide`). A decoder may still refuse some of an opcode's forms
/// (types, modifiers): those load as [`crate::program::Op::Unsupported`] naming the form.
pub fn decodes_opcode(opcode: &str) -> bool {
    let mut parts = opcode.split('.');
    let opc = parts.next().unwrap_or("");
    let mods: Vec<String> = parts.map(|m| format!(".{m}")).collect();
    route(opc, &|m: &str| mods.iter().any(|x| x == m)).is_some()
}

/// An instruction's opcode and modifiers as written, as the routing and
/// the family decoders' error messages read them (the typed rows read the
/// decoded [`ptxsim_isa::Insn`]).
pub(crate) struct Ins<'i> {
    pub(crate) opc: &'i str,
    /// Every modifier as written.
    pub(crate) mods: Vec<&'i str>,
}

impl<'i> Ins<'i> {
    pub(crate) fn new(i: &'i ast::Instruction<'_>) -> Ins<'i> {
        Ins { opc: i.opcode.text, mods: i.modifiers.iter().map(|m| m.text).collect() }
    }

    pub(crate) fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }

    /// The instruction as written: opcode and modifiers.
    pub(crate) fn full(&self) -> String {
        format!("{}{}", self.opc, self.mods.concat())
    }

    pub(crate) fn unsupported(&self) -> DecodeError {
        DecodeError::Unsupported(self.full())
    }

    /// The error of an opcode with no decoder: its row's reason, when it
    /// has one.
    pub(crate) fn no_decoder(&self) -> DecodeError {
        match row(self.opc, &|m| self.has(m)).map(|r| r.engine) {
            Some(Engine::NotYet(why)) => DecodeError::NotYet { name: self.full(), why },
            _ => self.unsupported(),
        }
    }
}
