//! Decoding the less common scalar instructions (`cvt.pack`, the packed
//! halves; see
//! [`ptxsim_sem::alu::ext`] for their semantics), and the cache hints
//! (`prefetch`, `prefetchu`, `applypriority`, `discard`, `createpolicy`),
//! into [`Op`]s. The main decoder
//! (`instr.rs`) asks [`ext_route`] first; `None` means the instruction is
//! not one of these.

use super::{FuncDecoder, ImmKind};

/// This file's instructions report errors as messages; the main decoder
/// turns them into [`super::DecodeError`]s.
type R<T> = Result<T, String>;
use ptxsim_sem::alu::ext::{H2Op, Lane3Op};
use ptxsim_sem::alu::FTy;
use crate::decode::MAX_REGS;
use crate::program::*;
use ptxsim_syntax::ast;

/// Which of this file's decoders reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ext {
    Lane3,
    Half2,
    Hint,
    CreatePolicy,
}

/// This file's decoder for an opcode whose modifiers change its family
/// (`cvt`'s packed halves, `cvt.pack`); the other opcodes' families are their rows of the instruction
/// description (`ptxsim_isa`).
pub(super) fn ext_route(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<Ext> {
    Some(match opc {
        "cvt" if has(".pack") || has(".e4m3x2") || has(".e5m2x2") => Ext::Lane3,
        "cvt" if has(".f16x2") || has(".bf16x2") => Ext::Half2,
        _ => return None,
    })
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn ext_instr(&mut self, r: Ext, i: &ast::Instruction<'_>) -> R<Op> {
        match r {
            Ext::Lane3 => self.lane3(i),
            Ext::Half2 => self.half2(i),
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

    /// The fp8 conversions (`fp8.rs`) and `cvt.pack.sat.ctype.s32{.b32} d,
    /// a, b{, c}`.
    fn lane3(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let opc = i.opcode.text;
        if opc == "cvt" && i.modifiers.iter().any(|m| m.text == ".e4m3x2" || m.text == ".e5m2x2") {
            return self.cvt_fp8(i);
        }
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let has = |m: &str| mods.contains(&m);
        let full = format!("{opc}{}", mods.concat());
        let unsupported = || format!("instruction `{full}` is not supported yet");
        // cvt.pack.sat.ctype.s32{.b32}
        if !has(".sat") {
            return Err(unsupported());
        }
        let (bits, signed, n) = match mods.iter().find(|m| matches!(**m, ".u16" | ".s16" | ".u8" | ".s8" | ".u4" | ".s4" | ".u2" | ".s2")) {
            Some(t) => (t[2..].parse::<u32>().map_err(|_| unsupported())?, t.starts_with(".s"), if t.ends_with("16") { 3 } else { 4 }),
            None => return Err(unsupported()),
        };
        let op = Lane3Op::CvtPack { bits, signed };
        if i.operands.len() != n {
            return Err(format!("`{full}` needs {n} operands"));
        }
        let k = ImmKind::Int(32);
        let d = self.dst(&i.operands[0])?;
        let a = self.src(&i.operands[1], k)?;
        let b = self.src(&i.operands[2], k)?;
        let c = if n == 4 { self.src(&i.operands[3], k)? } else { Src::Imm(0) };
        Ok(Op::Lane3 { op, d, a, b, c })
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

    /// `cvt.rn{.relu}.{f16x2,bf16x2}.f32 d, a, b` (PTX ISA 9.7.9.21).
    fn half2(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let opc = i.opcode.text;
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let has = |m: &str| mods.contains(&m);
        let full = format!("{opc}{}", mods.concat());
        let unsupported = || format!("instruction `{full}` is not supported yet");
        let ty = if has(".bf16x2") { FTy::BF16 } else { FTy::F16 };
        let (ftz, sat) = (has(".ftz"), has(".sat"));
        let allowed = |extra: &[&str]| mods.iter().all(|m| matches!(*m, ".f16x2" | ".bf16x2" | ".rn") || extra.contains(m));
        let (op, n) = match opc {
            "cvt" if has(".rn") && has(".f32") && allowed(&[".relu", ".f32"]) => (H2Op::FromF32 { relu: has(".relu") }, 3),
            _ => return Err(unsupported()),
        };
        if i.operands.len() != n {
            return Err(format!("`{full}` needs {n} operands"));
        }
        let k = if matches!(op, H2Op::FromF32 { .. }) { ImmKind::Float(FTy::F32) } else { ImmKind::Int(32) };
        let d = self.dst(&i.operands[0])?;
        let a = self.src(&i.operands[1], k)?;
        let b = if n >= 3 { self.src(&i.operands[2], k)? } else { Src::Imm(0) };
        let c = if n == 4 { self.src(&i.operands[3], k)? } else { Src::Imm(0) };
        Ok(Op::Half2 { op, ty, ftz, sat, d, a, b, c })
    }
}
