//! Decoding Hopper's asynchronous data path (sm_90a) into [`Op`]s:
//! `wgmma.fence` / `commit_group` / `wait_group` (no-ops: every
//! `wgmma.mma_async` completes when issued) and `wgmma.mma_async`
//! ([`Op::Wgmma`], semantics in `datapath/hopper.rs` over
//! `ptxsim_sem::wgmma`); `setmaxnreg` (checked, otherwise
//! nothing: the engine has no register file to resize). The other forms
//! (`wgmma.mma_async.sp`, `.b1`) are refused with their names (the tensor
//! copies are `acopy.rs`'s); `tensormap.replace` rewrites a field of a
//! map in memory and `tensormap.cp_fenceproxy` copies one to global memory
//! ([`Op::TensormapReplace`], [`Op::TensormapCopy`]).

use super::{elems, full, unsupported, DecodeError, FuncDecoder, ImmKind, Sym};
use ptxsim_isa::grammar::MatShape;
use ptxsim_isa::{Insn, TensormapOp, TensormapSpace, WgmmaOp};
use crate::program::*;
use ptxsim_sem::wgmma::{self, AType, DType, Shape};
use ptxsim_syntax::ast::{self, Operand, OperandKind, ScalarType};

type R<T> = Result<T, DecodeError>;

/// The accumulator type of a `wgmma` type modifier.
fn d_type(t: ScalarType) -> Option<DType> {
    Some(match t {
        ScalarType::F16 => DType::F16,
        ScalarType::F32 => DType::F32,
        ScalarType::S32 => DType::S32,
        _ => return None,
    })
}

/// The multiplicand type of a `wgmma` type modifier.
fn a_type(t: ScalarType) -> Option<AType> {
    Some(match t {
        ScalarType::F16 => AType::F16,
        ScalarType::Bf16 => AType::BF16,
        ScalarType::Tf32 => AType::Tf32,
        ScalarType::E4m3 => AType::E4m3,
        ScalarType::E5m2 => AType::E5m2,
        ScalarType::S8 => AType::S8,
        ScalarType::U8 => AType::U8,
        _ => return None,
    })
}

/// An integer-constant operand.
fn int(o: &Operand<'_>) -> Option<i64> {
    match &o.kind {
        OperandKind::Int(i) => Some(i.value as i64),
        _ => None,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `wgmma.fence.sync.aligned`, `wgmma.commit_group.sync.aligned`,
    /// `wgmma.wait_group.sync.aligned N`, and
    /// `wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype
    /// d, a, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a,}
    /// imm-trans-b}` (PTX ISA 9.7.15.5.2): the immediates the manual gives
    /// each type (none for the integer types; the scales for the float
    /// ones; the transposes for `.f16`/`.bf16`, only B's with A in
    /// registers).
    pub(super) fn wgmma(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let Insn::Wgmma { op, sp, shape, satfinite, dtype, atype, btype, b1, bitop, popc, .. } = insn else { return Err(unsupported(i)) };
        let plain = !sp && b1[0].is_none() && bitop.is_none() && !popc;
        let bare = plain && shape.is_none() && !satfinite && dtype.is_none() && atype.is_none() && btype.is_none();
        match op {
            WgmmaOp::Fence if bare && i.operands.is_empty() => Ok(Op::Nop),
            WgmmaOp::CommitGroup if bare && i.operands.is_empty() => Ok(Op::WgmmaCommit),
            WgmmaOp::WaitGroup if bare => match i.operands.as_slice() {
                [n] => match int(n).map(u32::try_from) {
                    Some(Ok(n)) => Ok(Op::WgmmaWait { n }),
                    _ => Err(DecodeError::Operand(format!("`{}` takes a group count, an integer constant", full(i)))),
                },
                _ => Err(DecodeError::Operand(format!("`{}` takes one operand, an integer constant", full(i)))),
            },
            WgmmaOp::MmaAsync if plain => self.wgmma_mma(i, shape, satfinite, [dtype, atype, btype]),
            _ => Err(unsupported(i)),
        }
    }

    fn wgmma_mma(&mut self, i: &ast::Instruction<'_>, shape: Option<MatShape>, satfinite: bool, types: [Option<ScalarType>; 3]) -> R<Op> {
        let [Some(dt), Some(at), Some(bt)] = types else { return Err(unsupported(i)) };
        let (Some(d), Some(a), Some(b)) = (d_type(dt), a_type(at), a_type(bt)) else { return Err(unsupported(i)) };
        let n = match shape {
            Some(MatShape { m: 64, n, k: Some(k) }) if k == a.k() => n,
            _ => return Err(DecodeError::Operand(format!("`{}`: the shape is not m64nNk{} for `{}`", full(i), a.k(), at.as_str()))),
        };
        let sh = Shape { n, d, a, b };
        let ops = i.operands.as_slice();
        let a_regs = matches!(ops.get(1).map(|o| &o.kind), Some(OperandKind::Vector(_)));
        let half = matches!(a, AType::F16 | AType::BF16);
        let imms = match (a.is_int(), half, a_regs) {
            (true, _, _) => 0,
            (false, false, _) => 2,
            (false, true, true) => 3,
            (false, true, false) => 4,
        };
        if ops.len() != 4 + imms {
            return Err(format!("`{}` takes {} operands", full(i), 4 + imms).into());
        }
        let imm = |k: usize, ok: &[i64], what: &str| -> R<i64> {
            let o = &ops[4 + k];
            int(o).filter(|v| ok.contains(v)).ok_or_else(|| DecodeError::Operand(format!("`{}`: {what} must be one of {ok:?}", full(i))))
        };
        let (neg_a, neg_b) = if imms >= 2 { (imm(0, &[1, -1], "imm-scale-a")? == -1, imm(1, &[1, -1], "imm-scale-b")? == -1) } else { (false, false) };
        let (trans_a, trans_b) = match imms {
            3 => (false, imm(2, &[0, 1], "imm-trans-b")? == 1),
            4 => (imm(2, &[0, 1], "imm-trans-a")? == 1, imm(3, &[0, 1], "imm-trans-b")? == 1),
            _ => (false, false),
        };
        wgmma::check(sh, satfinite, trans_a, trans_b).map_err(|e| format!("`{}`: {e}", full(i)))?;
        let dregs = elems(&ops[0]);
        if dregs.len() != d.regs(n) as usize {
            return Err(format!("`{}`: D has {} registers, {} expected", full(i), dregs.len(), d.regs(n)).into());
        }
        let dregs = dregs.iter().map(|o| self.dst(o)).collect::<Result<Vec<_>, _>>()?;
        let a_src = if a_regs {
            let r = elems(&ops[1]);
            if r.len() != 4 {
                return Err(format!("`{}`: A in registers takes 4 registers, not {}", full(i), r.len()).into());
            }
            WgmmaA::Regs(r.iter().map(|o| self.src(o, ImmKind::Int(32))).collect::<Result<Vec<_>, _>>()?)
        } else {
            WgmmaA::Desc(self.src(&ops[1], ImmKind::Int(64))?)
        };
        let b_src = self.src(&ops[2], ImmKind::Int(64))?;
        let scale_d = self.psrc(&ops[3])?;
        Ok(Op::Wgmma(Box::new(Wgmma { shape: sh, satfinite, d: dregs, a: a_src, b: b_src, scale_d, neg_a, neg_b, trans_a, trans_b })))
    }

    /// `tensormap.replace.tile.field{.global,.shared::cta}.b1024.type
    /// [addr], {ord,} new_val` (PTX ISA 9.7.9.28; `ord` an integer
    /// constant) and `tensormap.cp_fenceproxy.global.shared::cta
    /// .tensormap::generic.release.scope.sync.aligned [dst], [src], 128`
    /// (9.7.9.29). The checker has typed both (`check/rules/hopper.rs`).
    pub(super) fn tensormap(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let Insn::Tensormap { op, field, spaces, .. } = insn else { return Err(unsupported(i)) };
        let ops = i.operands.as_slice();
        if op == TensormapOp::CpFenceproxy {
            let [dst, src, _size] = ops else { return Err(unsupported(i)) };
            let (_, dst) = self.addr(dst, Space::Global)?;
            let (_, src) = self.addr(src, Space::Shared)?;
            return Ok(Op::TensormapCopy { dst, src });
        }
        let Some(field) = field else { return Err(unsupported(i)) };
        let space = match spaces[0] {
            Some(TensormapSpace::Global) => Space::Global,
            Some(TensormapSpace::SharedCta) => Space::Shared,
            None => Space::Generic,
        };
        let (addr, ord, val) = match (field.ordinal(), ops) {
            (true, [a, o, v]) => (a, int(o).ok_or_else(|| DecodeError::from(format!("`{}`: the ordinal must be an integer constant", full(i))))?, v),
            (false, [a, v]) => (a, 0, v),
            _ => return Err(unsupported(i)),
        };
        let addr = self.addr(addr, space)?;
        let val = self.src(val, ImmKind::Int(field.bits()))?;
        Ok(Op::TensormapReplace(Box::new(TensormapReplace { field, ord: u32::try_from(ord).unwrap_or(u32::MAX), addr, val })))
    }

    /// Guards `op` (decoded from `i`) when it reads an accumulator register
    /// of a `wgmma.mma_async` decoded before it in the function
    /// ([`Op::AccGuard`]); records the accumulators of a `wgmma`. Another
    /// `wgmma` may read them (it accumulates in the asynchronous proxy),
    /// as may control flow. Registers read only before the function's
    /// first `wgmma` in the text are not guarded.
    pub(in crate::decode) fn guard_acc(&mut self, i: &ast::Instruction<'_>, op: Op) -> Op {
        if let Op::Wgmma(x) = &op {
            for r in &x.d {
                if !self.acc.contains(r) {
                    self.acc.push(*r);
                }
            }
            return op;
        }
        let seq = ptxsim_isa::lookup(i.opcode.text).map(|r| (r.flow, r.effect));
        let Some((ptxsim_isa::Flow::Seq, effect)) = seq else { return op };
        if self.acc.is_empty() || matches!(op, Op::Unsupported(_) | Op::Nanosleep { .. }) {
            return op;
        }
        let (mut regs, mut names) = (Vec::new(), Vec::new());
        for (k, o) in i.operands.iter().enumerate() {
            if k == 0 && effect.defines() && !matches!(o.kind, OperandKind::Address(_)) {
                continue;
            }
            self.acc_reads(o, &mut regs, &mut names);
        }
        if regs.is_empty() {
            return op;
        }
        Op::AccGuard(Box::new(AccGuard { regs, names, op }))
    }

    /// The accumulator registers operand `o` reads.
    fn acc_reads(&self, o: &Operand<'_>, regs: &mut Vec<u32>, names: &mut Vec<String>) {
        let name = match &o.kind {
            OperandKind::Name { name, .. } | OperandKind::Neg { name, .. } => Some(*name),
            OperandKind::Address(a) => a.base,
            OperandKind::Vector(v) | OperandKind::Bracket(v) | OperandKind::List(v) => {
                for e in v {
                    self.acc_reads(e, regs, names);
                }
                None
            }
            _ => None,
        };
        if let Some(n) = name {
            if let Some(Sym::Reg { slot, .. }) = self.lookup(n.text) {
                if self.acc.contains(&slot) && !regs.contains(&slot) {
                    regs.push(slot);
                    names.push(n.text.to_string());
                }
            }
        }
    }

    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 imm` (PTX ISA 9.7.17.1): the
    /// count must be a multiple of 8 in 24..=256; the engine has nothing
    /// to resize.
    pub(super) fn setmaxnreg(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        match i.operands.as_slice() {
            [n] => match int(n) {
                Some(v) if (24..=256).contains(&v) && v % 8 == 0 => Ok(Op::Nop),
                Some(v) => Err(format!("`{}`: the register count {v} must be a multiple of 8 in 24..=256", full(i)).into()),
                None => Err(format!("`{}` takes an integer constant", full(i)).into()),
            },
            _ => Err(format!("`{}` takes one operand", full(i)).into()),
        }
    }
}
