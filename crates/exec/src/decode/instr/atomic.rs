//! Decoding `atom` and `red` (PTX ISA 9.7.13.5, 9.7.13.6; semantics in
//! `crate::atomics` and `datapath/mem.rs`): the scalar forms on 16- to
//! 64-bit integers, `.f32`/`.f64` and the half types, and sm_90's vector
//! forms (`.v2`/`.v4`/`.v8`, one atomic operation per element).

use super::route::Ins;
use super::{fty, ity, ld_space, DecodeError, FuncDecoder, ImmKind, R};
use ptxsim_sem::alu::FTy;
use crate::program::*;
use ptxsim_syntax::ast::{Operand, OperandKind, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `atom{.sem}{.scope}{.space}.op{.vec}.type d, [a], b{, c}` and
    /// `red{...} [a], b`.
    pub(super) fn atom(&mut self, x: &Ins<'_>) -> R<Op> {
        let Ins { opc, ops, last_ty, .. } = *x;
        let mods = &x.mods;
        let has = |m: &str| x.has(m);
        let unsupported = || x.unsupported();
        let need = |k: usize| x.need(k);
        let is_red = opc == "red";
        need(if is_red { 2 } else { 3 })?;
        let space = ld_space(mods).ok_or_else(unsupported)?;
        let t = last_ty.ok_or_else(unsupported)?;
        let half2 = match t {
            ScalarType::F16x2 => Some(FTy::F16),
            ScalarType::Bf16x2 => Some(FTy::BF16),
            _ => None,
        };
        let noftz_ok = matches!(t, ScalarType::F32 | ScalarType::F16 | ScalarType::Bf16) || half2.is_some();
        if has(".noftz") && !noftz_ok {
            return Err(unsupported());
        }
        if let Some(n) = [(".v2", 2), (".v4", 4), (".v8", 8)].iter().find(|(v, _)| has(v)).map(|x| x.1) {
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
            if !has(".add") || !matches!(space, Space::Global | Space::Generic) {
                return Err(unsupported());
            }
            let base = if is_red { 0 } else { 1 };
            fn elems<'o, 'a>(o: &'o Operand<'a>, n: usize) -> Option<&'o [Operand<'a>]> {
                match &o.kind {
                    OperandKind::Vector(p) if p.len() == n => Some(p),
                    _ => None,
                }
            }
            let parts = |o| elems(o, n).ok_or_else(|| DecodeError::from(format!("`{}` needs a vector of {n} operands here", x.full())));
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
        let op = if let (true, Some(h)) = (has(".add"), half2) {
            AtomOp::AddHalf2(h)
        } else if half2.is_some() {
            return Err(unsupported());
        } else if has(".add") {
            AtomOp::Add
        } else if has(".min") {
            AtomOp::Min
        } else if has(".max") {
            AtomOp::Max
        } else if has(".and") {
            AtomOp::And
        } else if has(".or") {
            AtomOp::Or
        } else if has(".xor") {
            AtomOp::Xor
        } else if has(".exch") {
            AtomOp::Exch
        } else if has(".cas") {
            AtomOp::Cas
        } else if has(".inc") {
            AtomOp::Inc
        } else if has(".dec") {
            AtomOp::Dec
        } else {
            return Err(unsupported());
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
