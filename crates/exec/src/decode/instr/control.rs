//! Decoding the control-flow rows (PTX ISA 9.7.12): `bra`, `brx.idx`,
//! `call` (direct, indirect, and the CUDA system calls the engine runs
//! itself), `ret`, `exit` and `trap`, from their typed [`Insn`].

use super::{DecodeError, FuncDecoder, ImmKind, R};
use super::super::Sym;
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::Insn;
use ptxsim_syntax::ast::{self, Operand, OperandKind};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// A control-flow instruction (its operand count is checked by the
    /// caller from the row's roles).
    pub(super) fn control(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let ops = &i.operands;
        match insn {
            Insn::Bra { uni } => Ok(Op::Bra { target: self.label(&ops[0])?, uni }),
            Insn::Brx { uni, .. } => {
                let index = self.src(&ops[0], ImmKind::Int(32))?;
                let OperandKind::Name { name, .. } = &ops[1].kind else { return Err(DecodeError::Operand("brx.idx needs a .branchtargets label".into())) };
                let list = self.branch_targets.get(name.text).ok_or_else(|| DecodeError::Operand(format!("`{}` is not a .branchtargets list", name.text)))?;
                let mut targets = Vec::new();
                for l in list {
                    targets.push(self.find_label(l).ok_or_else(|| DecodeError::Operand(format!("unknown label `{l}`")))?);
                }
                Ok(Op::Brx { index, targets, table: name.text.to_string(), uni })
            }
            Insn::Call { uni } => self.call(ops, uni),
            Insn::Ret { uni } => Ok(Op::Ret { uni }),
            Insn::Exit {} => Ok(Op::Exit),
            Insn::Trap {} => Ok(Op::Trap),
            _ => Err(DecodeError::Unsupported(opname(i))),
        }
    }

    /// `call{.uni} (rets), func, (args){, flist}`: a direct call, one of the
    /// system calls the engine runs itself, or an indirect call.
    fn call(&mut self, ops: &[Operand<'_>], uni: bool) -> R<Op> {
        let mut k = 0;
        let mut rets = Vec::new();
        if let Some(OperandKind::List(l)) = ops.first().map(|o| &o.kind) {
            for o in l {
                rets.push(self.call_arg(o)?);
            }
            k = 1;
        }
        let callee_op = ops.get(k).ok_or_else(|| DecodeError::Operand("call needs a target".into()))?;
        k += 1;
        let mut args = Vec::new();
        if let Some(OperandKind::List(l)) = ops.get(k).map(|o| &o.kind) {
            for o in l {
                args.push(self.call_arg(o)?);
            }
            k += 1;
        }
        let extra = match ops.get(k).map(|o| &o.kind) {
            Some(OperandKind::Name { name, .. }) => Some(name.text),
            _ => None,
        };
        let OperandKind::Name { name: callee_name, .. } = &callee_op.kind else { return Err(DecodeError::Operand("call target must be a name".into())) };
        let callee = match self.lookup(callee_name.text) {
            Some(Sym::Func(f)) => {
                // The CUDA system calls the engine runs itself (a declaration
                // without a body; a module's own definition wins).
                let bodiless = self.m.funcs.get(f as usize).and_then(|x| x.as_ref()).is_some_and(|d| d.body.is_none());
                match callee_name.text {
                    "vprintf" if bodiless && args.len() == 2 && rets.len() <= 1 => {
                        return Ok(Op::Printf { fmt: args[0], args: args[1], ret: rets.first().copied() });
                    }
                    "__assertfail" if bodiless && args.len() == 5 && rets.is_empty() => return Ok(Op::AssertFail { args }),
                    // libcudadevrt's cooperative-groups entry points.
                    "cudaCGSynchronize" | "cudaCGSynchronizeGrid" if bodiless && self.m.devrt && args.len() == 2 && rets.len() <= 1 => {
                        return Ok(Op::GridSync { handle: args[0], ret: rets.first().copied() });
                    }
                    "cudaCGGetIntrinsicHandle" if bodiless && self.m.devrt && args.len() == 1 && rets.len() == 1 => {
                        return Ok(Op::DevRt { f: DevRtFn::GetIntrinsicHandle, args, ret: rets.first().copied() });
                    }
                    "cudaCGGetSize" if bodiless && self.m.devrt && args.len() == 3 && rets.len() <= 1 => {
                        return Ok(Op::DevRt { f: DevRtFn::GetSize, args, ret: rets.first().copied() });
                    }
                    "cudaCGGetRank" if bodiless && self.m.devrt && args.len() == 3 && rets.len() <= 1 => {
                        return Ok(Op::DevRt { f: DevRtFn::GetRank, args, ret: rets.first().copied() });
                    }
                    "malloc" if bodiless && args.len() == 1 && rets.len() <= 1 => return Ok(Op::Malloc { size: args[0], ret: rets.first().copied() }),
                    "free" if bodiless && args.len() == 1 && rets.is_empty() => return Ok(Op::Free { ptr: args[0] }),
                    _ => Callee::Direct(f),
                }
            }
            Some(Sym::Reg { slot, .. }) => {
                let extra = extra.ok_or_else(|| DecodeError::Operand("indirect call needs a .calltargets list, a call table or a .callprototype".into()))?;
                if let Some(list) = self.call_targets.get(extra).cloned() {
                    let mut ids = Vec::new();
                    for f in &list {
                        ids.push(self.func_of(f)?);
                    }
                    Callee::Indirect { fptr: Src::Reg(slot), allowed: Some(ids), table: Some(extra.to_string()), proto: None }
                } else if let Some(sig) = self.prototypes.get(extra) {
                    Callee::Indirect { fptr: Src::Reg(slot), allowed: None, table: None, proto: Some(sig.clone()) }
                } else if let Some(tab) = self.m.tables.get(extra) {
                    Callee::Indirect { fptr: Src::Reg(slot), allowed: Some(tab.clone()), table: Some(extra.to_string()), proto: None }
                } else {
                    return Err(DecodeError::Operand(format!("`{extra}` is not a .calltargets list, call table or .callprototype")));
                }
            }
            _ => return Err(DecodeError::Operand(format!("call target `{}` is not a function or register", callee_name.text))),
        };
        let _ = self.id;
        Ok(Op::Call { callee, args, rets, uni })
    }
}
