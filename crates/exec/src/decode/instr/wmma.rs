//! Decoding the typed row `wmma` from its [`Insn`] ([`WmmaForm`]):
//! `wmma.load`, `wmma.store` and `wmma.mma` (semantics and the fragment
//! distribution in `datapath/wmma.rs`): f16 and bf16 inputs with f32 and
//! f16 accumulators, and `.s8`/`.u8` inputs with `.s32` accumulators
//! (`.satfinite` too), in shapes m16n16k16, m32n8k16, m8n32k16; `.tf32`
//! inputs with f32 accumulators in m16n16k8. The other forms the manual
//! has (`.f64`, the sub-byte ones, `.rnd`, the `.b1` operations) are
//! refused by name; a form the manual
//! does not have (`WmmaForm::misfit`) is refused with its reason.

use super::{DecodeError, FuncDecoder, ImmKind};

type R<T> = Result<T, DecodeError>;
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{Insn, MmaLayout, WmmaElem, WmmaForm, WmmaOp, WmmaSpace};
use ptxsim_syntax::ast::{self, Operand, OperandKind, ScalarType};

/// The engine's type of a fragment element, for the types it runs.
fn mma_ty(t: WmmaElem) -> Option<MmaTy> {
    Some(match t {
        WmmaElem::Ty(ScalarType::F16) => MmaTy::F16,
        WmmaElem::Ty(ScalarType::Bf16) => MmaTy::BF16,
        WmmaElem::Ty(ScalarType::F32) => MmaTy::F32,
        WmmaElem::Ty(ScalarType::S8) => MmaTy::S8,
        WmmaElem::Ty(ScalarType::U8) => MmaTy::U8,
        WmmaElem::Ty(ScalarType::S32) => MmaTy::S32,
        WmmaElem::Ty(ScalarType::Tf32) => MmaTy::Tf32,
        _ => return None,
    })
}

/// The shapes the engine runs.
fn shape_of(f: &WmmaForm) -> Option<(usize, usize, usize)> {
    match f.mnk()? {
        s @ ((16, 16, 16) | (32, 8, 16) | (8, 32, 16) | (16, 16, 8)) => Some((s.0 as usize, s.1 as usize, s.2 as usize)),
        _ => None,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    fn reg_list(&mut self, o: &Operand<'_>, k: ImmKind) -> R<Vec<Src>> {
        match &o.kind {
            OperandKind::Vector(items) => items.iter().map(|x| self.src(x, k)).collect(),
            _ => Err("a `wmma` fragment operand must be a vector `{...}` of registers".into()),
        }
    }

    fn dst_list(&mut self, o: &Operand<'_>) -> R<Vec<u32>> {
        match &o.kind {
            OperandKind::Vector(items) => items.iter().map(|x| self.dst(x)).collect(),
            _ => Err("a `wmma` fragment operand must be a vector `{...}` of registers".into()),
        }
    }

    /// `wmma` (typed row).
    pub(super) fn wmma(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let full = opname(i);
        let unsupported = || DecodeError::Unsupported(full.clone());
        let f = insn.wmma().ok_or_else(unsupported)?;
        if let Some(m) = f.misfit() {
            return Err(DecodeError::Operand(format!("`{full}`: {}", m.why)));
        }
        let shape = shape_of(&f).ok_or_else(unsupported)?;
        // (`.satfinite` on a floating-point `mma`, which the checker takes
        // before PTX ISA 6.5 as ptxas does, is not run: the manual no
        // longer says what it computes.)
        if f.rnd.is_some() || f.bitop.is_some() || f.popc || f.float_satfinite() {
            return Err(unsupported());
        }
        match f.op {
            WmmaOp::Load | WmmaOp::Store => {
                let (Some(which), [Some(lay), _], Some(t)) = (f.which(), f.layout, f.types[0]) else { return Err(unsupported()) };
                let ty = mma_ty(t).ok_or_else(unsupported)?;
                let col_major = lay == MmaLayout::Col;
                let space = match f.space {
                    Some(WmmaSpace::Shared | WmmaSpace::SharedCta) => Space::Shared,
                    Some(WmmaSpace::Global) => Space::Global,
                    None => Space::Generic,
                };
                let load = f.op == WmmaOp::Load;
                let frag = WmmaFrag { which, shape, col_major, ty };
                let (n, _) = f.regs(which, t);
                let (frag_op, mem) = if load { (0, 1) } else { (1, 0) };
                let (Some(frag_o), Some(mem_o)) = (i.operands.get(frag_op), i.operands.get(mem)) else {
                    return Err(format!("`{full}` takes a fragment and an address").into());
                };
                let stride = match i.operands.get(2) {
                    Some(o) => self.src(o, ImmKind::Int(32))?,
                    None => return Err(format!("`{full}`: the stride operand is not supported absent yet").into()),
                };
                let (space, addr) = self.addr(mem_o, space)?;
                if load {
                    let ds = self.dst_list(frag_o)?;
                    if ds.len() != n {
                        return Err(format!("`{full}` needs {n} destination registers, not {}", ds.len()).into());
                    }
                    Ok(Op::WmmaLoad { f: frag, space, ds, addr, stride })
                } else {
                    let srcs = self.reg_list(frag_o, ImmKind::Int(32))?;
                    if srcs.len() != n {
                        return Err(format!("`{full}` needs {n} source registers, not {}", srcs.len()).into());
                    }
                    Ok(Op::WmmaStore { f: frag, space, srcs, addr, stride })
                }
            }
            WmmaOp::Mma => {
                let (Some(types), [Some(la), Some(lb)]) = (f.mma_types(), f.layout) else { return Err(unsupported()) };
                let [dty, aty, bty, cty] = types.map(mma_ty);
                let (Some(dty), Some(aty), Some(bty), Some(cty)) = (dty, aty, bty, cty) else { return Err(unsupported()) };
                let [d_o, a_o, b_o, c_o] = i.operands.as_slice() else { return Err(format!("`{full}` needs 4 operands").into()) };
                let fa = WmmaFrag { which: b'a', shape, col_major: la == MmaLayout::Col, ty: aty };
                let fb = WmmaFrag { which: b'b', shape, col_major: lb == MmaLayout::Col, ty: bty };
                let fc = WmmaFrag { which: b'c', shape, col_major: false, ty: cty };
                let fd = WmmaFrag { which: b'c', shape, col_major: false, ty: dty };
                let k = ImmKind::Int(32);
                let d = self.dst_list(d_o)?;
                let a = self.reg_list(a_o, k)?;
                let b = self.reg_list(b_o, k)?;
                let c = self.reg_list(c_o, k)?;
                for (frag, t, n) in [(fa, types[1], a.len()), (fb, types[2], b.len()), (fc, types[3], c.len()), (fd, types[0], d.len())] {
                    let (want, _) = f.regs(frag.which, t);
                    if n != want {
                        return Err(format!("`{full}` needs {want} registers for its {} fragment, not {n}", frag.which as char).into());
                    }
                }
                // Integer inputs go with an integer accumulator, float
                // ones with a float accumulator (the manual's rows).
                let int = |t: MmaTy| matches!(t, MmaTy::S8 | MmaTy::U8 | MmaTy::S32);
                if int(aty) != int(dty) || int(aty) != int(cty) || (f.satfinite && !int(dty)) {
                    return Err(unsupported());
                }
                Ok(Op::WmmaMma(Box::new(WmmaMma { shape, satfinite: f.satfinite, fa, fb, fc, fd, d, a, b, c })))
            }
        }
    }
}
