//! Decoding the typed data-movement rows from their [`ptxsim_isa::Insn`]
//! fields: `mov` (into [`Op::Mov`], [`Op::Pack`], [`Op::Unpack`],
//! [`Op::PredLogic`]), `cvt` (into [`Op::Cvt`], [`Op::CvtTf32`],
//! [`Op::Half2`] for `cvt.rn{.relu}.{f16x2,bf16x2}.f32`, [`Op::Lane3`]
//! for the 8-bit float forms, semantics in [`ptxsim_sem::cvt`] and
//! [`ptxsim_sem::alu::fp8`]) and `cvt.pack` (into [`Op::Lane3`]). The
//! operand count was checked from the row's roles; a form the engine does
//! not run is [`DecodeError::Unsupported`], named as written.

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::decode::{fty, ity};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{Cvt, CvtRnd, CvtType, Insn, PackType};
use ptxsim_sem::alu::ext::{H2Op, Lane3Op};
use ptxsim_sem::alu::fp8::{Fp8Cvt, F8};
use ptxsim_sem::alu::{FTy, Rounding};
use ptxsim_syntax::ast::{self, OperandKind, ScalarType};

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `mov`, `cvt`, `cvt.pack`.
    pub(super) fn convert(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        if insn.misfit().is_some() {
            return Err(unsupported());
        }
        match insn {
            Insn::Mov { ty } => self.mov(i, ty),
            Insn::CvtPack { ctype, btype, .. } => self.cvt_pack(i, ctype, btype.is_some()),
            _ => match insn.cvt() {
                Some(x) => self.cvt(i, x),
                None => Err(unsupported()),
            },
        }
    }

    /// `mov.type d, a` and the packing forms (PTX ISA 9.7.9.1-2).
    fn mov(&mut self, i: &ast::Instruction<'_>, t: ScalarType) -> R<Op> {
        let ops = &i.operands;
        if t == ScalarType::Pred {
            let d = self.pdst(&ops[0])?.ok_or("sink destination")?;
            if let OperandKind::Name { name, component: None } = &ops[1].kind {
                if name.text == "%is_explicit_cluster" {
                    // The one `.pred` special register: its value
                    // (1 or 0) compared with 0.
                    let a = self.src(&ops[1], ImmKind::Int(32))?;
                    let ty = ITyOrF::I(ptxsim_sem::alu::ITy { bits: 32, signed: false });
                    return Ok(Op::Setp { cmp: ptxsim_sem::alu::CmpOp::Ne, ty, ftz: false, p: Some(d), q: None, a, b: Src::Imm(0), comb: None, k: Kern::NONE });
                }
            }
            let a = self.psrc(&ops[1])?;
            return Ok(Op::PredLogic { op: PredOp::Mov, d, a, b: PSrc::Const(false) });
        }
        let bits = t.bits();
        if let OperandKind::Vector(parts) = &ops[1].kind {
            let d = self.dst(&ops[0])?;
            let pb = bits / parts.len().max(1) as u32;
            let mut srcs = Vec::new();
            for p in parts {
                srcs.push(self.src(p, ImmKind::Int(pb))?);
            }
            return Ok(Op::Pack { d, parts: srcs, part_bits: pb });
        }
        if let OperandKind::Vector(parts) = &ops[0].kind {
            let pb = bits / parts.len().max(1) as u32;
            let mut ds = Vec::new();
            for p in parts {
                ds.push(if matches!(p.kind, OperandKind::Sink) { None } else { Some(self.dst(p)?) });
            }
            let a = self.src(&ops[1], ImmKind::Int(bits))?;
            return Ok(Op::Unpack { ds, a, part_bits: pb });
        }
        let d = self.dst(&ops[0])?;
        let k = match fty(t) {
            Some(f) => ImmKind::Float(f),
            None => ImmKind::Int(bits),
        };
        let a = self.src(&ops[1], k)?;
        Ok(Op::Mov { d, a, bits })
    }

    /// `cvt` (PTX ISA 9.7.9.21): the 8-bit float forms, the packing of two
    /// `.f32` into halves, `.tf32`, and the scalar conversions.
    fn cvt(&mut self, i: &ast::Instruction<'_>, x: Cvt) -> R<Op> {
        use CvtType::*;
        let unsupported = || DecodeError::Unsupported(opname(i));
        let ops = &i.operands;
        let need = |n: usize| if ops.len() == n { Ok(()) } else { Err(DecodeError::Operand(format!("`{}` needs {n} operands", opname(i)))) };
        let f8 = |t: CvtType| match t {
            E4m3x2 => Some(F8::E4m3),
            E5m2x2 => Some(F8::E5m2),
            _ => None,
        };
        if f8(x.dtype).is_some() || f8(x.atype).is_some() {
            // `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f32,f16x2}` and
            // `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}`.
            if x.rnd != Some(CvtRnd::Rn) || x.ftz || x.sat {
                return Err(unsupported());
            }
            let (op, n) = match (x.dtype, x.atype) {
                (d, F32) if x.satfinite => (Fp8Cvt::FromF32x2(f8(d).ok_or_else(unsupported)?), 3),
                (d, F16x2) if x.satfinite => (Fp8Cvt::FromF16x2(f8(d).ok_or_else(unsupported)?), 2),
                (F16x2, s) if !x.satfinite => (Fp8Cvt::ToF16x2(f8(s).ok_or_else(unsupported)?), 2),
                _ => return Err(unsupported()),
            };
            need(n)?;
            let k = match op {
                Fp8Cvt::FromF32x2(_) => ImmKind::Float(FTy::F32),
                _ => ImmKind::Int(32),
            };
            let d = self.dst(&ops[0])?;
            let a = self.src(&ops[1], k)?;
            let b = if n == 3 { self.src(&ops[2], k)? } else { Src::Imm(0) };
            return Ok(Op::Lane3 { op: Lane3Op::Fp8 { op, relu: x.relu }, d, a, b, c: Src::Imm(0) });
        }
        let frnd2 = matches!(x.rnd, Some(CvtRnd::Rn | CvtRnd::Rz));
        if matches!(x.dtype, F16x2 | Bf16x2) || matches!(x.atype, F16x2 | Bf16x2) {
            // `cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`.
            if !frnd2 || x.ftz || x.sat || x.atype != F32 {
                return Err(unsupported());
            }
            need(3)?;
            let ty = if x.dtype == Bf16x2 { FTy::BF16 } else { FTy::F16 };
            let k = ImmKind::Float(FTy::F32);
            let d = self.dst(&ops[0])?;
            let (a, b) = (self.src(&ops[1], k)?, self.src(&ops[2], k)?);
            let op = H2Op::FromF32 { relu: x.relu, rz: x.rnd == Some(CvtRnd::Rz), satfinite: x.satfinite };
            return Ok(Op::Half2 { op, ty, ftz: false, sat: false, d, a, b, c: Src::Imm(0) });
        }
        if (x.relu || x.satfinite) && matches!(x.dtype, F16 | Bf16) && x.atype == F32 && frnd2 && !x.ftz && !x.sat {
            // `cvt.frnd2{.relu}{.satfinite}.{f16,bf16}.f32 d, a`: the upper
            // half of the pair form with +0.0 there, which converts to 0.
            need(2)?;
            let ty = if x.dtype == Bf16 { FTy::BF16 } else { FTy::F16 };
            let d = self.dst(&ops[0])?;
            let b = self.src(&ops[1], ImmKind::Float(FTy::F32))?;
            let op = H2Op::FromF32 { relu: x.relu, rz: x.rnd == Some(CvtRnd::Rz), satfinite: x.satfinite };
            return Ok(Op::Half2 { op, ty, ftz: false, sat: false, d, a: Src::Imm(0), b, c: Src::Imm(0) });
        }
        if x.dtype == Tf32 {
            // `cvt.rna{.satfinite}.tf32.f32` (sm_80): the other `.tf32`
            // roundings (sm_90, sm_100) are not decoded yet.
            if x.atype != F32 || x.rnd != Some(CvtRnd::Rna) || x.ftz || x.sat || x.relu {
                return Err(unsupported());
            }
            let d = self.dst(&ops[0])?;
            let a = self.src(&ops[1], ImmKind::Float(FTy::F32))?;
            return Ok(Op::CvtTf32 { satfinite: x.satfinite, d, a });
        }
        if x.relu || x.satfinite || ops.len() != 2 {
            return Err(unsupported());
        }
        let conv = |t: CvtType| -> Option<CvtTy> {
            let s = t.scalar()?;
            match fty(s) {
                Some(f) => Some(CvtTy::F(f)),
                None => ity(s).map(CvtTy::I),
            }
        };
        let (Some(dt), Some(st)) = (conv(x.dtype), conv(x.atype)) else { return Err(unsupported()) };
        let rnd = match x.rnd {
            None => None,
            Some(r) => Some(match r {
                CvtRnd::Rn => Rounding::Rn,
                CvtRnd::Rz => Rounding::Rz,
                CvtRnd::Rm => Rounding::Rm,
                CvtRnd::Rp => Rounding::Rp,
                CvtRnd::Rni => Rounding::Rni,
                CvtRnd::Rzi => Rounding::Rzi,
                CvtRnd::Rmi => Rounding::Rmi,
                CvtRnd::Rpi => Rounding::Rpi,
                CvtRnd::Rna => Rounding::Rna,
                // Stochastic rounding needs its random bits.
                CvtRnd::Rs => return Err(unsupported()),
            }),
        };
        // Directed rounding into a float narrower than its source: not yet.
        if let (CvtTy::F(df), Some(r)) = (dt, rnd) {
            let narrowing = match st {
                CvtTy::F(sf) => sf.bits() > df.bits(),
                CvtTy::I(_) => true,
            };
            let same = matches!(st, CvtTy::F(sf) if sf == df);
            let soft = matches!(df, FTy::F32 | FTy::F64)
                && matches!(r, Rounding::Rz | Rounding::Rm | Rounding::Rp)
                && match st {
                    CvtTy::I(_) => true,
                    CvtTy::F(sf) => sf == FTy::F64 && df == FTy::F32,
                }
                // `cvt.{rz,rm,rp}.{f16,bf16}.*` (ptxsim_sem::cvt).
                || matches!(df, FTy::F16 | FTy::BF16) && matches!(r, Rounding::Rz | Rounding::Rm | Rounding::Rp);
            if !same && narrowing && r != Rounding::Rn && !soft {
                return Err(unsupported());
            }
        }
        let d = self.dst(&ops[0])?;
        let a = match st {
            CvtTy::F(f) => self.src(&ops[1], ImmKind::Float(f))?,
            CvtTy::I(t) => self.src(&ops[1], ImmKind::Int(t.bits))?,
        };
        Ok(Op::Cvt { dst: dt, src: st, rnd, sat: x.sat, ftz: x.ftz, d, a, k: Kern::NONE })
    }

    /// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (PTX ISA 9.7.9.22).
    fn cvt_pack(&mut self, i: &ast::Instruction<'_>, ctype: PackType, merge: bool) -> R<Op> {
        let (bits, signed) = ctype.bits_signed();
        let n = if bits == 16 { 3 } else { 4 };
        if merge != (n == 4) || i.operands.len() != n {
            return Err(DecodeError::Unsupported(opname(i)));
        }
        let k = ImmKind::Int(32);
        let ops = &i.operands;
        let d = self.dst(&ops[0])?;
        let a = self.src(&ops[1], k)?;
        let b = self.src(&ops[2], k)?;
        let c = if n == 4 { self.src(&ops[3], k)? } else { Src::Imm(0) };
        Ok(Op::Lane3 { op: Lane3Op::CvtPack { bits, signed }, d, a, b, c })
    }
}
