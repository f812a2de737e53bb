//! Decoding the cache hints (`prefetch`, `prefetchu`, `applypriority`,
//! `discard`, `createpolicy`) into [`Op`]s, and the carry flag's hidden
//! register that the typed carry-chain rows share. The main decoder
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
    Hint,
    CreatePolicy,
}

/// This file's decoder for an opcode whose modifiers change its family:
/// none is left (the families are the rows of the instruction description,
/// `ptxsim_isa`).
pub(super) fn ext_route(_opc: &str, _has: &dyn Fn(&str) -> bool) -> Option<Ext> {
    None
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn ext_instr(&mut self, r: Ext, i: &ast::Instruction<'_>) -> R<Op> {
        match r {
            // Cache hints: the engine has no caches, so they do nothing
            // (`discard` leaves the line's data as it was, one of the
            // values the manual allows after it).
            Ext::Hint => Ok(Op::Nop),
            Ext::CreatePolicy => match i.operands.first() {
                Some(o) => self.dst(o).map(|d| Op::CreatePolicy { d }).map_err(String::from),
                None => Err("`createpolicy` needs a destination".into()),
            },
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
