//! The carry flag's hidden register that the typed carry-chain rows
//! share (the cache hints are typed rows: `mem.rs`). The main decoder
//! (`instr.rs`) asks [`ext_route`] first; `None` means the instruction is
//! not one of these (every opcode whose modifiers once changed its family
//! is a typed row now).

use super::FuncDecoder;

/// This file's instructions report errors as messages; the main decoder
/// turns them into [`super::DecodeError`]s.
type R<T> = Result<T, String>;
use crate::decode::MAX_REGS;
use crate::program::*;
use ptxsim_syntax::ast;

/// Which of this file's decoders reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ext {
}

/// This file's decoder for an opcode whose modifiers change its family:
/// none is left (the families are the rows of the instruction description,
/// `ptxsim_isa`).
pub(super) fn ext_route(_opc: &str, _has: &dyn Fn(&str) -> bool) -> Option<Ext> {
    None
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn ext_instr(&mut self, r: Ext, _i: &ast::Instruction<'_>) -> R<Op> {
        match r {
        }
    }

    /// The hidden predicate slot that holds the thread's CC.CF in this function.
    pub(super) fn carry_flag(&mut self) -> R<u32> {
        if let Some(s) = self.carry {
            return Ok(s);
        }
        let Some(crate::decode::Sym::Pred(s)) = self.slot(true) else {
            return Err(format!("more than {MAX_REGS} registers in one function"));
        };
        self.carry = Some(s);
        Ok(s)
    }
}
