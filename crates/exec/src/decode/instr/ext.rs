//! Decoding the less common scalar instructions (the carry chain,
//! `cvt.pack`, the packed halves; see
//! [`ptxsim_sem::alu::ext`] for their semantics) into [`Op`]s (the cache
//! hints are typed rows: `mem.rs`). The main decoder
//! (`instr.rs`) asks [`ext_route`] first; `None` means the instruction is
//! not one of these.

use super::{FuncDecoder, ImmKind};

/// This file's instructions report errors as messages; the main decoder
/// turns them into [`super::DecodeError`]s.
type R<T> = Result<T, String>;
use ptxsim_sem::alu::ext::{CarryKind, H2Op, Lane3Op};
use ptxsim_sem::alu::{FTy, FUnOp};
use crate::decode::{ity, MAX_REGS};
use crate::program::*;
use ptxsim_syntax::ast::{self, ScalarType};

/// Which of this file's decoders reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ext {
    CarryChain,
    Lane3,
    Half2,
    Ex2Half,
}

/// This file's decoder for an opcode whose modifiers change its family
/// (the carry chain's `.cc`, packed halves, `cvt.pack`, `ex2.approx` on a
/// half); the other opcodes' families are their rows of the instruction
/// description (`ptxsim_isa`).
pub(super) fn ext_route(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<Ext> {
    Some(match opc {
        "mad" if has(".cc") => Ext::CarryChain,
        "cvt" if has(".pack") || has(".e4m3x2") || has(".e5m2x2") => Ext::Lane3,
        "fma" | "ex2" | "tanh" | "cvt" if has(".f16x2") || has(".bf16x2") => Ext::Half2,
        "ex2" | "tanh" if has(".approx") && (has(".f16") || has(".bf16")) => Ext::Ex2Half,
        _ => return None,
    })
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn ext_instr(&mut self, r: Ext, i: &ast::Instruction<'_>) -> R<Op> {
        match r {
            Ext::CarryChain => self.carry_chain(i),
            Ext::Lane3 => self.lane3(i),
            Ext::Half2 => self.half2(i),
            Ext::Ex2Half => self.ex2_half(i),
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

    /// `addc{.cc}`, `subc{.cc}` `.type d, a, b` (`add.cc`, `sub.cc` are
    /// typed rows: `arith.rs`) and
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
            "addc" => CarryKind::Add,
            "subc" => CarryKind::Sub,
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

    /// `fma ex2` on `.f16x2`/`.bf16x2`, and
    /// `cvt.rn{.relu}.{f16x2,bf16x2}.f32 d, a, b` (PTX ISA 9.7.4, 9.7.9).
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
            "fma" if has(".rn") && has(".relu") && allowed(&[".ftz", ".relu"]) => (H2Op::FmaRelu, 4),
            "fma" if has(".rn") && allowed(&[".ftz", ".sat"]) => (H2Op::Fma, 4),
            "ex2" if has(".approx") && allowed(&[".approx", ".ftz"]) => (H2Op::Un(FUnOp::Ex2), 2),
            "tanh" if has(".approx") && allowed(&[".approx"]) => (H2Op::Un(FUnOp::Tanh), 2),
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

    /// `ex2.approx.f16 d, a` and `ex2.approx.ftz.bf16 d, a`: computed
    /// exactly rounded, inside the manual's error bound.
    fn ex2_half(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let opc = i.opcode.text;
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let full = format!("{opc}{}", mods.concat());
        let op = if opc == "tanh" { FUnOp::Tanh } else { FUnOp::Ex2 };
        if !mods.iter().all(|m| matches!(*m, ".approx" | ".ftz" | ".f16" | ".bf16")) || (op == FUnOp::Tanh && mods.contains(&".ftz")) {
            return Err(format!("instruction `{full}` is not supported yet"));
        }
        if i.operands.len() != 2 {
            return Err(format!("`{full}` needs 2 operands"));
        }
        let ty = if mods.contains(&".bf16") { FTy::BF16 } else { FTy::F16 };
        let d = self.dst(&i.operands[0])?;
        let a = self.src(&i.operands[1], ImmKind::Int(16))?;
        Ok(Op::FUn { op, ty, ftz: mods.contains(&".ftz"), rnd: None, d, a, k: Kern::NONE })
    }
}
