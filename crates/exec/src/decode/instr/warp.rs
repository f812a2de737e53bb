//! Decoding the typed warp rows from their [`ptxsim_isa::Insn`] fields
//! (PTX ISA 9.7.9.6 `shfl`, 9.7.13 `vote`, `match.sync`, `redux.sync`,
//! `elect.sync`, `bar`/`barrier`) into the engine's warp operations
//! ([`Op::Shfl`], [`Op::Vote`], [`Op::MatchSync`], [`Op::ReduxSync`],
//! [`Op::ElectSync`], [`Op::Bar`], [`Op::ClusterArrive`], [`Op::ClusterWait`];
//! their data path is `datapath/warpops.rs`). The row's grammar and
//! operand count are already checked; a combination the grammar lets
//! through but the manual does not list (`redux.sync.add.b32`) is
//! reported as unsupported by name.

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{BarOp, BarRedOp, BarScope, Insn, MatchMode, ReduxKind};
use ptxsim_sem::alu::ext::ReduxOp;
use ptxsim_sem::alu::FTy;
use ptxsim_syntax::ast::{self, Name, Operand, OperandKind, ScalarType};
use ptxsim_syntax::Span;

/// The membermask of the deprecated forms without `.sync`: every lane.
const ALL_LANES: Src = Src::Imm(0xffff_ffff);

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// A destination register or `_` (None) written as one half of `d|p`.
    pub(super) fn opt_dst(&mut self, n: Name<'_>, span: Span) -> R<Option<u32>> {
        if n.text == "_" {
            return Ok(None);
        }
        self.dst(&Operand { kind: OperandKind::Name { name: n, component: None }, span }).map(Some)
    }

    /// A predicate destination or `_` written as one half of `d|p`.
    pub(super) fn opt_pdst(&mut self, n: Name<'_>, span: Span) -> R<Option<u32>> {
        if n.text == "_" {
            return Ok(None);
        }
        self.pdst(&Operand { kind: OperandKind::Name { name: n, component: None }, span })
    }

    /// Operand `k` as a 32-bit integer source, or every lane when the
    /// deprecated form leaves the membermask out.
    fn membermask(&mut self, i: &ast::Instruction<'_>, k: usize) -> R<Src> {
        match i.operands.get(k) {
            Some(o) => self.src(o, ImmKind::Int(32)),
            None => Ok(ALL_LANES),
        }
    }

    /// `shfl{.sync}.mode.b32 d[|p], a, b, c{, membermask}`: either half of
    /// `d|p` may be the sink `_` here (the checker allows it for `p` only,
    /// as ptxas does).
    pub(super) fn shfl(&mut self, i: &ast::Instruction<'_>, mode: ptxsim_isa::ShflMode) -> R<Op> {
        let ops = &i.operands;
        let mode = match mode {
            ptxsim_isa::ShflMode::Up => ShflMode::Up,
            ptxsim_isa::ShflMode::Down => ShflMode::Down,
            ptxsim_isa::ShflMode::Bfly => ShflMode::Bfly,
            ptxsim_isa::ShflMode::Idx => ShflMode::Idx,
        };
        let (d, p) = match &ops[0].kind {
            OperandKind::PredPair(a, b) => {
                let d = match self.opt_dst(*a, ops[0].span)? {
                    Some(d) => d,
                    None => self.scratch()?,
                };
                (d, self.opt_pdst(*b, ops[0].span)?)
            }
            _ => (self.dst(&ops[0])?, None),
        };
        let membermask = self.membermask(i, 4)?;
        let a = self.src(&ops[1], ImmKind::Int(32))?;
        let b = self.src(&ops[2], ImmKind::Int(32))?;
        let c = self.src(&ops[3], ImmKind::Int(32))?;
        Ok(Op::Shfl { mode, d, p, a, b, c, membermask })
    }

    /// `vote{.sync}.mode.pred d, {!}a{, membermask}` and
    /// `vote{.sync}.ballot.b32 d, {!}a{, membermask}`.
    pub(super) fn vote(&mut self, i: &ast::Instruction<'_>, mode: ptxsim_isa::VoteMode) -> R<Op> {
        let ops = &i.operands;
        let mode = match mode {
            ptxsim_isa::VoteMode::All => VoteMode::All,
            ptxsim_isa::VoteMode::Any => VoteMode::Any,
            ptxsim_isa::VoteMode::Uni => VoteMode::Uni,
            ptxsim_isa::VoteMode::Ballot => VoteMode::Ballot,
        };
        let membermask = self.membermask(i, 2)?;
        let d = if mode == VoteMode::Ballot {
            Dst::Reg(self.dst(&ops[0])?)
        } else {
            Dst::Pred(self.pdst(&ops[0])?.ok_or("sink destination")?)
        };
        Ok(Op::Vote { mode, d, a: self.psrc(&ops[1])?, membermask })
    }

    /// `match.{any,all}.sync.{b32,b64} d{|p}, a, membermask`; `d` may be
    /// `_` in `d|p` (a scratch register takes it).
    pub(super) fn match_sync(&mut self, i: &ast::Instruction<'_>, mode: MatchMode, ty: ScalarType) -> R<Op> {
        let ops = &i.operands;
        let all = mode == MatchMode::All;
        let bits = match ty {
            ScalarType::B32 => 32,
            ScalarType::B64 => 64,
            _ => return Err(DecodeError::Unsupported(opname(i))),
        };
        let (d, p) = match &ops[0].kind {
            OperandKind::PredPair(d, p) if all => (self.opt_dst(*d, ops[0].span)?, self.opt_pdst(*p, ops[0].span)?),
            _ => (Some(self.dst(&ops[0])?), None),
        };
        let d = match d {
            Some(d) => d,
            None => self.scratch()?,
        };
        let a = self.src(&ops[1], ImmKind::Int(bits))?;
        let membermask = self.src(&ops[2], ImmKind::Int(32))?;
        Ok(Op::MatchSync { all, bits, d, p, a, membermask })
    }

    /// `redux.sync.op.type d, a, membermask`: `.add .min .max` on
    /// `.u32`/`.s32`, `.and .or .xor` on `.b32`, `.min .max` with `.abs`
    /// and `.NaN` on `.f32`.
    pub(super) fn redux(&mut self, i: &ast::Instruction<'_>, op: ReduxKind, abs: bool, nan: bool, ty: ScalarType) -> R<Op> {
        use ScalarType::{B32, F32, S32, U32};
        let ops = &i.operands;
        let op = match (ty, op) {
            (U32 | S32, ReduxKind::Add) if !abs && !nan => ReduxOp::Add,
            (U32 | S32, ReduxKind::Min) if !abs && !nan => ReduxOp::Min { signed: ty == S32 },
            (U32 | S32, ReduxKind::Max) if !abs && !nan => ReduxOp::Max { signed: ty == S32 },
            (B32, ReduxKind::And) if !abs && !nan => ReduxOp::And,
            (B32, ReduxKind::Or) if !abs && !nan => ReduxOp::Or,
            (B32, ReduxKind::Xor) if !abs && !nan => ReduxOp::Xor,
            (F32, ReduxKind::Min) => ReduxOp::FMin { abs, nan },
            (F32, ReduxKind::Max) => ReduxOp::FMax { abs, nan },
            _ => return Err(DecodeError::Unsupported(opname(i))),
        };
        let d = self.dst(&ops[0])?;
        let k = if ty == F32 { ImmKind::Float(FTy::F32) } else { ImmKind::Int(32) };
        let a = self.src(&ops[1], k)?;
        let membermask = self.src(&ops[2], ImmKind::Int(32))?;
        Ok(Op::ReduxSync { op, d, a, membermask })
    }

    /// `elect.sync d|p, membermask`.
    pub(super) fn elect(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let ops = &i.operands;
        let OperandKind::PredPair(d, p) = &ops[0].kind else {
            return Err(DecodeError::Operand(format!("`{}` writes `d|p`", opname(i))));
        };
        let (d, p) = (self.opt_dst(*d, ops[0].span)?, self.opt_pdst(*p, ops[0].span)?);
        let membermask = self.src(&ops[1], ImmKind::Int(32))?;
        Ok(Op::ElectSync { d, p, membermask })
    }

    /// `bar{.cta}.sync a{, b}` (and `bar a{, b}`), `.arrive a, b`,
    /// `.red.popc.u32 d, a{, b}, {!}c`, `.red.{and,or}.pred p, a{, b},
    /// {!}c`, the same with `barrier` (aligned only with `.aligned`),
    /// `bar.warp.sync membermask` (the engine's warps run their lanes in
    /// lockstep at a barrier already: nothing to do), and
    /// `barrier.cluster.{arrive,wait}`.
    pub(super) fn bar(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let b = insn.bar().ok_or_else(unsupported)?;
        match (b.scope, b.op) {
            (Some(BarScope::Warp), _) => return Ok(Op::Nop),
            (Some(BarScope::Cluster), Some(BarOp::Arrive)) => return Ok(Op::ClusterArrive),
            (Some(BarScope::Cluster), Some(BarOp::Wait)) => return Ok(Op::ClusterWait),
            (Some(BarScope::Cluster), _) => return Err(unsupported()),
            _ => {}
        }
        let ops = &i.operands;
        let n = ops.len();
        let need = |k: usize| if n < k { Err(DecodeError::Operand(format!("`{}` needs {k} operands", opname(i)))) } else { Ok(()) };
        let aligned = b.aligned || !b.barrier;
        let kind = match (b.op, b.red) {
            (Some(BarOp::Sync), _) => BarKind::Sync,
            // `bar a{, b}`: the form before `.sync` was written.
            (None, _) if !b.barrier && i.modifiers.is_empty() => BarKind::Sync,
            (Some(BarOp::Arrive), _) => BarKind::Arrive,
            (Some(BarOp::Red), Some(BarRedOp::Popc)) => BarKind::RedPopc,
            (Some(BarOp::Red), Some(BarRedOp::And)) => BarKind::RedAnd,
            (Some(BarOp::Red), Some(BarRedOp::Or)) => BarKind::RedOr,
            _ => return Err(unsupported()),
        };
        if matches!(kind, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr) {
            need(3)?;
            let d = if kind == BarKind::RedPopc { Some(Dst::Reg(self.dst(&ops[0])?)) } else { self.pdst(&ops[0])?.map(Dst::Pred) };
            let id = self.src(&ops[1], ImmKind::Int(32))?;
            let (count, c) = if n >= 4 { (Some(self.src(&ops[2], ImmKind::Int(32))?), &ops[3]) } else { (None, &ops[2]) };
            let pin = self.psrc(c)?;
            return Ok(Op::Bar { kind, id, count, d, pred_in: Some(pin), aligned });
        }
        need(1)?;
        let id = self.src(&ops[0], ImmKind::Int(32))?;
        let count = if n >= 2 { Some(self.src(&ops[1], ImmKind::Int(32))?) } else { None };
        Ok(Op::Bar { kind, id, count, d: None, pred_in: None, aligned })
    }
}
