//! Decoding the less common scalar instructions (the carry chain; see
//! [`crate::alu::ext`] for their semantics) into [`Op`]s. The main decoder
//! (`instr.rs`) asks [`FuncDecoder::ext_instr`] first; `None` means the
//! instruction is not one of these.

use super::{FuncDecoder, ImmKind, R};
use crate::alu::ext::CarryKind;
use crate::decode::{ity, MAX_REGS};
use crate::program::*;
use ptxsim_syntax::ast::{self, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded, if it is one of this file's.
    pub(super) fn ext_instr(&mut self, i: &ast::Instruction<'_>) -> Option<R<Op>> {
        let opc = i.opcode.text;
        let has = |m: &str| i.modifiers.iter().any(|x| x.text == m);
        match opc {
            "add" | "sub" | "mad" if has(".cc") => Some(self.carry_chain(i)),
            "addc" | "subc" | "madc" => Some(self.carry_chain(i)),
            _ => None,
        }
    }

    /// The hidden predicate slot that holds the thread's CC.CF in this function.
    fn carry_flag(&mut self) -> R<u32> {
        if let Some(s) = self.carry {
            return Ok(s);
        }
        self.npreds += 1;
        if self.nregs + self.npreds > MAX_REGS {
            return Err(format!("more than {MAX_REGS} registers in one function"));
        }
        let s = (self.npreds - 1) as u32;
        self.carry = Some(s);
        Ok(s)
    }

    /// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}` `.type d, a, b` and
    /// `mad{.lo,.hi}.cc`, `madc{.lo,.hi}{.cc}` `.type d, a, b, c`, type
    /// `.u32 .s32 .u64 .s64` (PTX ISA 9.7.2).
    fn carry_chain(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let opc = i.opcode.text;
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let has = |m: &str| mods.contains(&m);
        let full = format!("{opc}{}", mods.concat());
        let unsupported = || format!("instruction `{full}` is not supported yet");
        let ty = mods.iter().filter_map(|m| ScalarType::from_str(m)).next_back().and_then(ity).ok_or_else(unsupported)?;
        if ty.bits < 16 || mods.iter().any(|m| !matches!(*m, ".cc" | ".lo" | ".hi" | ".u32" | ".s32" | ".u64" | ".s64")) {
            return Err(unsupported());
        }
        let cin = opc.ends_with('c');
        let cout = has(".cc");
        let kind = match opc {
            "add" | "addc" => CarryKind::Add,
            "sub" | "subc" => CarryKind::Sub,
            _ if has(".hi") && !has(".lo") => CarryKind::MadHi,
            _ if has(".lo") && !has(".hi") => CarryKind::MadLo,
            _ => return Err(unsupported()),
        };
        let is_mad = matches!(kind, CarryKind::MadLo | CarryKind::MadHi);
        let n = if is_mad { 4 } else { 3 };
        if i.operands.len() != n {
            return Err(format!("`{full}` needs {n} operands"));
        }
        let k = ImmKind::Int(ty.bits);
        let d = self.dst(&i.operands[0])?;
        let a = self.src(&i.operands[1], k)?;
        let b = self.src(&i.operands[2], k)?;
        let c = if is_mad { self.src(&i.operands[3], k)? } else { Src::Imm(0) };
        let cf = self.carry_flag()?;
        Ok(Op::Carry { kind, ty, cin, cout, cf, d, a, b, c })
    }
}
