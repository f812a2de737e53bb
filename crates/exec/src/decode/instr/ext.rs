//! Decoding the less common scalar instructions (the carry chain, the
//! packed halves; see
//! [`ptxsim_sem::alu::ext`] for their semantics), and the cache hints
//! (`prefetch`, `prefetchu`, `applypriority`, `discard`, `createpolicy`),
//! into [`Op`]s. The main decoder
//! (`instr.rs`) asks [`ext_route`] first; `None` means the instruction is
//! not one of these.

use super::{FuncDecoder, ImmKind};

/// This file's instructions report errors as messages; the main decoder
/// turns them into [`super::DecodeError`]s.
type R<T> = Result<T, String>;
use ptxsim_sem::alu::ext::{CarryKind, H2Op};
use ptxsim_sem::alu::{FTy, FUnOp};
use crate::decode::{ity, MAX_REGS};
use crate::program::*;
use ptxsim_syntax::ast::{self, Operand, OperandKind, ScalarType};

/// Which of this file's decoders reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ext {
    CarryChain,
    Half2,
    Ex2Half,
    Hint,
    CreatePolicy,
    Space,
}

/// This file's decoder for an opcode whose modifiers change its family
/// (the carry chain's `.cc`, packed halves, `ex2.approx` on a half); the other opcodes' families are their rows of the instruction
/// description (`ptxsim_isa`).
pub(super) fn ext_route(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<Ext> {
    Some(match opc {
        "mad" if has(".cc") => Ext::CarryChain,
        "fma" | "ex2" | "tanh" if has(".f16x2") || has(".bf16x2") => Ext::Half2,
        "ex2" | "tanh" if has(".approx") && (has(".f16") || has(".bf16")) => Ext::Ex2Half,
        _ => return None,
    })
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn ext_instr(&mut self, r: Ext, i: &ast::Instruction<'_>) -> R<Op> {
        match r {
            Ext::CarryChain => self.carry_chain(i),
            Ext::Space => self.space(i),
            Ext::Half2 => self.half2(i),
            Ext::Ex2Half => self.ex2_half(i),
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

    /// `isspacep.space p, a`, `mapa{.shared::cluster}.type d, a, b`,
    /// `getctarank{.shared::cluster}.type d, a` (PTX ISA 9.7.9.16-18).
    fn space(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let opc = i.opcode.text;
        let full = format!("{opc}{}", i.modifiers.iter().map(|m| m.text).collect::<String>());
        let unsupported = || format!("instruction `{full}` is not supported yet");
        let has = |m: &str| i.modifiers.iter().any(|x| x.text == m);
        let ops = &i.operands;
        if opc == "isspacep" {
            let space = match i.modifiers.as_slice() {
                [m] => match m.text {
                    ".global" => Space::Global,
                    ".shared" | ".shared::cta" | ".shared::cluster" => Space::Shared,
                    ".local" => Space::Local,
                    ".const" => Space::Const,
                    ".param" | ".param::entry" => Space::KernelParam,
                    _ => return Err(unsupported()),
                },
                _ => return Err(unsupported()),
            };
            if ops.len() != 2 {
                return Err(format!("`{full}` needs 2 operands"));
            }
            let p = self.pdst(&ops[0])?.ok_or("sink destination")?;
            let (a, off) = self.reg_plus(&ops[1], 64)?;
            let cluster = has(".shared::cluster");
            return Ok(Op::Isspacep { space, cluster, p, a, off });
        }
        let bits = match i.modifiers.iter().filter_map(|m| ScalarType::from_str(m.text)).next_back() {
            Some(ScalarType::U32 | ScalarType::S32) => 32,
            Some(ScalarType::U64 | ScalarType::S64) => 64,
            _ => return Err(unsupported()),
        };
        let generic = !has(".shared::cluster");
        let n = if opc == "mapa" { 3 } else { 2 };
        if ops.len() != n {
            return Err(format!("`{full}` needs {n} operands"));
        }
        let d = self.dst(&ops[0])?;
        let (a, off) = self.reg_plus(&ops[1], bits)?;
        if opc == "mapa" {
            let b = self.src(&ops[2], ImmKind::Int(32))?;
            Ok(Op::Mapa { generic, bits, d, a, off, b })
        } else {
            Ok(Op::Getctarank { generic, bits, d, a, off })
        }
    }

    /// An address operand: a value, or a register plus or minus a constant
    /// (`%rd1+4`), as the source and the constant to add.
    fn reg_plus(&mut self, o: &Operand<'_>, bits: u32) -> R<(Src, u64)> {
        if let OperandKind::Expr(ast::Expr::Binary(op @ (ast::BinOp::Add | ast::BinOp::Sub), a, b, _)) = &o.kind {
            if let ast::Expr::Name(n) = &**a {
                let reg = Operand { kind: OperandKind::Name { name: *n, component: None }, span: o.span };
                if let Ok(r @ Src::Reg(_)) = self.src(&reg, ImmKind::Int(bits)) {
                    let k = self.src(&Operand { kind: OperandKind::Expr((**b).clone()), span: o.span }, ImmKind::Int(64))?;
                    let Src::Imm(k) = k else { return Err(format!("the offset of `{}` is not a constant", n.text)) };
                    return Ok((r, if *op == ast::BinOp::Sub { k.wrapping_neg() } else { k }));
                }
            }
        }
        Ok((self.src(o, ImmKind::Int(bits))?, 0))
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

    /// `fma ex2 tanh` on `.f16x2`/`.bf16x2` (PTX ISA 9.7.4).
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
            _ => return Err(unsupported()),
        };
        if i.operands.len() != n {
            return Err(format!("`{full}` needs {n} operands"));
        }
        let k = ImmKind::Int(32);
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
