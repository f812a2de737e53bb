//! Decoding `atom` and `red` (PTX ISA 9.7.13.5, 9.7.13.6; semantics in
//! `crate::atomics` and `datapath/mem.rs`): the scalar forms on 16- to
//! 64-bit integers, `.f32`/`.f64` and the half types, and sm_90's vector
//! forms (`.v2`/`.v4`/`.v8`, one atomic operation per element).

use super::{fty, ity, DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{AtomSpace, Insn};
use ptxsim_sem::alu::FTy;
use ptxsim_syntax::ast::{self, Operand, OperandKind, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `atom{.sem}{.scope}{.space}.op{.vec}.type d, [a], b{, c}` and
    /// `red{...} [a], b` (the order and scope do not change a result in
    /// this engine, which runs one atomic at a time; the cache policy is a
    /// hint). `red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type
    /// [a], b, [mbar]` is [`Op::RedAsync`]; its form without a state space
    /// (generic addressing) is refused by name.
    pub(super) fn atomic(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let x = insn.atomic().ok_or_else(unsupported)?;
        if insn.misfit().is_some() || (x.is_async && (x.space != Some(AtomSpace::SharedCluster) || x.vec.is_some())) {
            return Err(unsupported());
        }
        let ops = &i.operands;
        let need = |k: usize| if ops.len() < k { Err(DecodeError::Operand(format!("`{}` needs {k} operands", opname(i)))) } else { Ok(()) };
        let is_red = x.red;
        need(if is_red { 2 } else { 3 })?;
        let space = match x.space {
            None => Space::Generic,
            Some(AtomSpace::Global) => Space::Global,
            Some(AtomSpace::Shared | AtomSpace::SharedCta) => Space::SharedCta,
            // A `.shared::cluster` address names the CTA it lies in
            // (`lanemem::RANK_SHIFT`).
            Some(AtomSpace::SharedCluster) => Space::Shared,
            Some(AtomSpace::Local) => Space::Local,
            Some(AtomSpace::Const) => Space::Const,
            Some(AtomSpace::Param) => Space::FrameParam,
        };
        let t = x.ty.ok_or_else(unsupported)?;
        let op = x.op.ok_or_else(unsupported)?;
        let has = |o: ptxsim_isa::AtomOp| op == o;
        let half2 = match t {
            ScalarType::F16x2 => Some(FTy::F16),
            ScalarType::Bf16x2 => Some(FTy::BF16),
            _ => None,
        };
        let noftz_ok = matches!(t, ScalarType::F32 | ScalarType::F16 | ScalarType::Bf16) || half2.is_some();
        if x.noftz && !noftz_ok {
            return Err(unsupported());
        }
        if let Some(n) = x.vec.map(|v| v.len()) {
            // Vector atomics (sm_90): `add` on `.f32` (`.v2`, `.v4`),
            // `.f16`/`.bf16` (up to `.v8`) and `.f16x2`/`.bf16x2`
            // (`.v2`, `.v4`); their `min`/`max` are not supported yet.
            let (op, ty) = match (t, half2) {
                (_, Some(h)) if n <= 4 => (AtomOp::AddHalf2(h), ITyOrF::I(ity(ScalarType::B32).ok_or_else(unsupported)?)),
                (ScalarType::F32, _) if n <= 4 => (AtomOp::Add, ITyOrF::F(FTy::F32)),
                (ScalarType::F16, _) => (AtomOp::Add, ITyOrF::F(FTy::F16)),
                (ScalarType::Bf16, _) => (AtomOp::Add, ITyOrF::F(FTy::BF16)),
                _ => return Err(unsupported()),
            };
            if !has(ptxsim_isa::AtomOp::Add) || !matches!(space, Space::Global | Space::Generic) {
                return Err(unsupported());
            }
            let base = if is_red { 0 } else { 1 };
            fn elems<'o, 'a>(o: &'o Operand<'a>, n: usize) -> Option<&'o [Operand<'a>]> {
                match &o.kind {
                    OperandKind::Vector(p) if p.len() == n => Some(p),
                    _ => None,
                }
            }
            let parts = |o| elems(o, n).ok_or_else(|| DecodeError::from(format!("`{}` needs a vector of {n} operands here", opname(i))));
            let mut ds = Vec::new();
            if !is_red {
                for p in parts(&ops[0])? {
                    ds.push(if matches!(p.kind, OperandKind::Sink) { None } else { Some(self.dst(p)?) });
                }
            }
            let k = match ty {
                ITyOrF::F(f) => ImmKind::Float(f),
                ITyOrF::I(t) => ImmKind::Int(t.bits),
            };
            let mut bs = Vec::new();
            for p in parts(&ops[base + 1])? {
                bs.push(self.src(p, k)?);
            }
            let (space, addr) = self.addr(&ops[base], space)?;
            return Ok(Op::AtomVec { space, op, ty, ds, addr, bs });
        }
        let op = match (op, half2) {
            (ptxsim_isa::AtomOp::Add, Some(h)) => AtomOp::AddHalf2(h),
            (_, Some(_)) => return Err(unsupported()),
            (ptxsim_isa::AtomOp::Add, None) => AtomOp::Add,
            (ptxsim_isa::AtomOp::Min, None) => AtomOp::Min,
            (ptxsim_isa::AtomOp::Max, None) => AtomOp::Max,
            (ptxsim_isa::AtomOp::And, None) => AtomOp::And,
            (ptxsim_isa::AtomOp::Or, None) => AtomOp::Or,
            (ptxsim_isa::AtomOp::Xor, None) => AtomOp::Xor,
            (ptxsim_isa::AtomOp::Exch, None) => AtomOp::Exch,
            (ptxsim_isa::AtomOp::Cas, None) => AtomOp::Cas,
            (ptxsim_isa::AtomOp::Inc, None) => AtomOp::Inc,
            (ptxsim_isa::AtomOp::Dec, None) => AtomOp::Dec,
        };
        let ty = if half2.is_some() {
            ITyOrF::I(ity(ScalarType::B32).ok_or_else(unsupported)?)
        } else if let Some(f) = fty(t) {
            if op != AtomOp::Add {
                return Err(unsupported());
            }
            ITyOrF::F(f)
        } else {
            let it = ity(t).ok_or_else(unsupported)?;
            // 16-bit: `atom.cas.b16` only (sm_70).
            if it.bits < 32 && !(it.bits == 16 && op == AtomOp::Cas && t == ScalarType::B16 && !is_red) {
                return Err(unsupported());
            }
            ITyOrF::I(it)
        };
        let k = match ty {
            ITyOrF::F(f) => ImmKind::Float(f),
            ITyOrF::I(t) => ImmKind::Int(t.bits),
        };
        let base = if is_red { 0 } else { 1 };
        if x.is_async {
            if ops.len() != 3 {
                return Err(DecodeError::Operand(format!("`{}` takes 3 operands: [a], b, [mbar]", opname(i))));
            }
            let (_, addr) = self.addr(&ops[0], Space::Shared)?;
            let b = self.src(&ops[1], k)?;
            let (_, mbar) = self.addr(&ops[2], Space::Shared)?;
            return Ok(Op::RedAsync { op, ty, addr, b, mbar });
        }
        let d = if is_red { None } else { Some(self.dst(&ops[0])?) };
        let (space, addr) = self.addr(&ops[base], space)?;
        let b = self.src(&ops[base + 1], k)?;
        let c = if op == AtomOp::Cas {
            need(base + 3)?;
            self.src(&ops[base + 2], k)?
        } else {
            Src::Imm(0)
        };
        Ok(Op::Atom { space, op, ty, d, addr, b, c })
    }
}
