//! Whether the engine decodes an instruction, from its row of the
//! instruction description (`ptxsim_isa`: a row the engine runs is decoded
//! from its typed `Insn`, `typed.rs`), the opcode and modifiers as written
//! that error messages name ([`Ins`]), and the decoder's error type.

use ptxsim_isa::Engine;
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

/// Whether the engine decodes opcode `opc` with the modifiers `has`
/// reports: its row (of the instruction description, `ptxsim_isa`) is one
/// the engine runs, whose typed [`ptxsim_isa::Insn`] the decoder matches
/// on. The decoder asks this function alone, so [`decodes_opcode`] answers
/// what it does.
pub(super) fn decodes(opc: &str, has: &dyn Fn(&str) -> bool) -> bool {
    row(opc, has).is_some_and(|r| r.engine == Engine::Runs)
}

/// The row of opcode `opc` with the modifiers `has` reports: a row named
/// by the opcode and one of its modifiers (`red.async`, `cvt.pack`,
/// `cp.async`), else the opcode's.
fn row(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<&'static ptxsim_isa::OpInfo> {
    let compound = ptxsim_isa::OPS.iter().find(|r| r.op.strip_prefix(opc).is_some_and(|m| m.starts_with('.') && has(m)));
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
    decodes(opc, &|m: &str| mods.iter().any(|x| x == m))
}

/// An instruction's opcode and modifiers as written, as error messages
/// name them (the decoders read the typed [`ptxsim_isa::Insn`]).
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
