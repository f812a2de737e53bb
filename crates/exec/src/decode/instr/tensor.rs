//! Decoding the sm_80 tensor path into [`Op`]s: `ldmatrix`, `stmatrix`,
//! `movmatrix` and `mma.sync.aligned` (semantics in `datapath/tensor.rs`),
//! reached from `typed.rs` by their typed rows. `wmma` is `wmma.rs`'s,
//! `mbarrier` `mbar.rs`'s and the asynchronous copies `acopy.rs`'s.

use super::{elems, full, unsupported, DecodeError, FuncDecoder, ImmKind};
use ptxsim_isa::grammar::MatShape;
use ptxsim_isa::{Insn, MatrixNum, MatrixSpace, MmaLayout, MmaRnd};
use ptxsim_sem::alu::{FTy, Rounding};
use crate::program::*;
use ptxsim_syntax::ast::{self, Operand, ScalarType};

type R<T> = Result<T, DecodeError>;

/// `ldmatrix`/`stmatrix`'s typed modifiers: shape, count, `.trans`, state
/// space, type.
pub(super) type MatrixForm = (Option<MatShape>, MatrixNum, bool, Option<MatrixSpace>, ScalarType);

/// The `.m8n8` shape of the matrix moves.
const M8N8: MatShape = MatShape { m: 8, n: 8, k: None };

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 d, [p]`
    /// and `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16 [p], r`
    /// (their typed rows; the `.m16n16`/`.m8n16` forms of sm_100a are refused by name).
    pub(super) fn ld_st_matrix(&mut self, i: &ast::Instruction<'_>, st: bool, (shape, num, trans, space, ty): MatrixForm) -> R<Op> {
        if shape != Some(M8N8) || ty != ScalarType::B16 {
            return Err(unsupported(i));
        }
        let (num, space) = (num.count(), if space.is_some() { Space::Shared } else { Space::Generic });
        let [first, second] = i.operands.as_slice() else { return Err(format!("`{}` takes two operands", full(i)).into()) };
        let (regs, addr) = if st { (second, first) } else { (first, second) };
        let regs = elems(regs);
        if regs.len() != num {
            return Err(format!("`{}` takes {num} registers", full(i)).into());
        }
        let (space, addr) = self.addr(addr, space)?;
        if st {
            let srcs = regs.iter().map(|o| self.src(o, ImmKind::Int(32))).collect::<Result<Vec<_>, _>>()?;
            Ok(Op::Stmatrix { trans, space, srcs, addr })
        } else {
            let ds = regs.iter().map(|o| self.dst(o)).collect::<Result<Vec<_>, _>>()?;
            Ok(Op::Ldmatrix { trans, space, ds, addr })
        }
    }

    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`.
    pub(super) fn movmatrix(&mut self, i: &ast::Instruction<'_>, shape: Option<MatShape>, trans: bool) -> R<Op> {
        if shape != Some(M8N8) || !trans {
            return Err(unsupported(i));
        }
        let [d, a] = i.operands.as_slice() else { return Err(format!("`{}` takes two operands", full(i)).into()) };
        Ok(Op::Movmatrix { d: self.dst(d)?, a: self.src(a, ImmKind::Int(32))? })
    }

    /// `mma.sync.aligned.shape.row.col{.rnd}{.satfinite}.dtype.atype.btype.ctype
    /// d, a, b, c` in the shapes and types of [`mma_form`].
    pub(super) fn mma(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let Insn::Mma { shape, layout, rnd, satfinite, dtype, atype, btype, ctype, .. } = insn else { return Err(unsupported(i)) };
        let shape = match shape.map(|s| (s.m, s.n, s.k)) {
            Some((16, 8, Some(16))) => MmaShape::M16N8K16,
            Some((16, 8, Some(8))) => MmaShape::M16N8K8,
            Some((16, 8, Some(4))) => MmaShape::M16N8K4,
            Some((16, 8, Some(32))) => MmaShape::M16N8K32,
            Some((8, 8, Some(4))) => MmaShape::M8N8K4,
            Some((8, 8, Some(16))) => MmaShape::M8N8K16,
            _ => return Err(unsupported(i)),
        };
        let rnd = rnd.map(|r| match r {
            MmaRnd::Rn => Rounding::Rn,
            MmaRnd::Rz => Rounding::Rz,
            MmaRnd::Rm => Rounding::Rm,
            MmaRnd::Rp => Rounding::Rp,
        });
        let (Some(dtype), Some(atype), Some(btype), Some(ctype)) = (mma_ty(dtype), mma_ty(atype), mma_ty(btype), mma_ty(ctype)) else { return Err(unsupported(i)) };
        if layout != [Some(MmaLayout::Row), Some(MmaLayout::Col)] {
            return Err(unsupported(i));
        }
        if !mma_form(shape, dtype, atype, btype, ctype) || rnd.is_some() && dtype != MmaTy::F64 || satfinite && dtype != MmaTy::S32 {
            return Err(unsupported(i));
        }
        let (m, n, k) = shape.mnk();
        let count = |elems: usize, t: MmaTy| elems / 32 / t.per_reg();
        let [d, a, b, c] = i.operands.as_slice() else { return Err(format!("`{}` takes four operands d, a, b, c", full(i)).into()) };
        let want = [(d, count(m * n, dtype)), (a, count(m * k, atype)), (b, count(k * n, btype)), (c, count(m * n, ctype))];
        for (o, w) in want {
            if elems(o).len() != w {
                return Err(format!("`{}`: an operand has {} registers, {w} expected", full(i), elems(o).len()).into());
            }
        }
        let imm = |t: MmaTy| match t {
            MmaTy::F32 => ImmKind::Float(FTy::F32),
            MmaTy::F64 => ImmKind::Float(FTy::F64),
            _ => ImmKind::Int(32),
        };
        let dregs = elems(d).iter().map(|o| self.dst(o)).collect::<Result<Vec<_>, _>>()?;
        let mut srcs = |o: &Operand<'_>, t: MmaTy| elems(o).iter().map(|o| self.src(o, imm(t))).collect::<Result<Vec<_>, _>>();
        let (a, b, c) = (srcs(a, atype)?, srcs(b, btype)?, srcs(c, ctype)?);
        Ok(Op::Mma(Box::new(Mma { shape, dtype, atype, btype, ctype, rnd: rnd.unwrap_or(Rounding::Rn), satfinite, d: dregs, a, b, c })))
    }
}


/// The element type of an `mma` type modifier.
fn mma_ty(t: ScalarType) -> Option<MmaTy> {
    Some(match t {
        ScalarType::F16 => MmaTy::F16,
        ScalarType::Bf16 => MmaTy::BF16,
        ScalarType::Tf32 => MmaTy::Tf32,
        ScalarType::F32 => MmaTy::F32,
        ScalarType::F64 => MmaTy::F64,
        ScalarType::S8 => MmaTy::S8,
        ScalarType::U8 => MmaTy::U8,
        ScalarType::S32 => MmaTy::S32,
        ScalarType::E4m3 => MmaTy::E4m3,
        ScalarType::E5m2 => MmaTy::E5m2,
        _ => return None,
    })
}

/// Whether the engine runs `mma` of this shape and types: f16 (f16 or f32
/// accumulators, D of C's type, as ptxas 12.9 requires) in m16n8k16 and m16n8k8, bf16 (f32) in m16n8k16 and
/// m16n8k8, tf32 (f32) in m16n8k8 and m16n8k4, s8/u8 (s32) in m16n8k32,
/// m16n8k16 and m8n8k16, f64 in m8n8k4.
pub(crate) fn mma_form(shape: MmaShape, d: MmaTy, a: MmaTy, b: MmaTy, c: MmaTy) -> bool {
    use MmaShape::*;
    use MmaTy::*;
    let acc_f = |x: MmaTy| matches!(x, F16 | F32);
    match (a, b) {
        (F16, F16) => matches!(shape, M16N8K16 | M16N8K8) && acc_f(d) && c == d,
        (BF16, BF16) => matches!(shape, M16N8K16 | M16N8K8) && d == F32 && c == F32,
        (Tf32, Tf32) => matches!(shape, M16N8K8 | M16N8K4) && d == F32 && c == F32,
        (S8 | U8, S8 | U8) => matches!(shape, M16N8K32 | M16N8K16 | M8N8K16) && d == S32 && c == S32,
        (F64, F64) => shape == M8N8K4 && d == F64 && c == F64,
        // sm_89's 8-bit floats (PTX ISA 8.4): m16n8k32 into f32.
        (E4m3 | E5m2, E4m3 | E5m2) => shape == M16N8K32 && d == F32 && c == F32,
        _ => false,
    }
}
