//! Decoding the typed memory rows from their [`Insn`] fields: `ld`, `ldu`
//! and `st` (PTX ISA 9.7.9.8-11) into [`Op::Ld`] and [`Op::St`], `cvta`
//! (9.7.9.19) into [`Op::Cvta`], `fence` and `membar` (9.7.13.4) into
//! [`Op::Fence`], `isspacep`, `mapa`, `getctarank` (9.7.9.16-18) into
//! [`Op::Isspacep`], [`Op::Mapa`], [`Op::Getctarank`] (every access of this engine is performed at once and
//! seen by every proxy: each fence form orders no more than that).
//!
//! What the fields mean to this engine: the state space picks the window
//! ([`Space`]); the type the access size and a load's sign extension; the
//! vector width the registers. The memory-ordering qualifiers (`.weak`,
//! `.volatile`, `.relaxed`, `.acquire`, `.release`, `.mmio`) and their scope
//! need nothing more: every access of this engine is performed at once, in
//! program order, visible to every thread (stronger than any of them asks).
//! The cache operators, eviction priorities, `.L2::cache_hint` (and its
//! policy operand), the prefetch sizes and `.nc` only direct caches, which
//! the engine does not model; they change no value a program reads (PTX
//! ISA 9.7.9.1: cache operators are performance hints). The 256-bit
//! vectors (`.v8` of 32-bit elements, `.v4` of 64-bit ones: sm_100) are
//! read and written element by element like the narrower ones, aligned to
//! the whole vector. Refused, naming the form: `.b128`, `st.async` (its
//! mbarrier completion is not modelled), and a combination `Insn::misfit`
//! rejects.

use super::{fty, ity, DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{ClusterSpace, CvtaSpace, Insn, IsspacepSpace, LdSpace, LdVec};
use ptxsim_syntax::ast::{self, Operand, OperandKind, ScalarType};

/// The engine's window of a state space (none: generic addressing).
fn space_of(s: Option<LdSpace>) -> Space {
    match s {
        None => Space::Generic,
        Some(LdSpace::Global) => Space::Global,
        Some(LdSpace::Shared | LdSpace::SharedCta) => Space::SharedCta,
        // A `.shared::cluster` address names the CTA it lies in
        // (`lanemem::RANK_SHIFT`); one of this CTA's is its own.
        Some(LdSpace::SharedCluster) => Space::Shared,
        Some(LdSpace::Local) => Space::Local,
        Some(LdSpace::Const) => Space::Const,
        Some(LdSpace::Param | LdSpace::ParamEntry | LdSpace::ParamFunc) => Space::FrameParam,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `ld`, `ldu`, `st`.
    pub(super) fn ld_st(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let unsupported = || DecodeError::Unsupported(opname(i));
        let x = insn.ld_st().ok_or_else(unsupported)?;
        if let Some(m) = insn.misfit() {
            return Err(DecodeError::Operand(format!("`{}`: {}", opname(i), m.why)));
        }
        if x.asynchronous {
            return self.st_async(i, &x);
        }
        if x.space[1].is_some() {
            return Err(DecodeError::Operand(format!("`{}` names two state spaces", opname(i))));
        }
        let t = x.ty;
        if t.bits() > 64 || t == ScalarType::Pred {
            return Err(unsupported());
        }
        let size = (t.bits() / 8).max(1);
        let ops = &i.operands;
        let (regs_op, addr_op) = if x.store() { (&ops[1], &ops[0]) } else { (&ops[0], &ops[1]) };
        let (space, addr) = self.addr(addr_op, space_of(x.space()))?;
        if x.store() {
            let k = match fty(t) {
                Some(f) => ImmKind::Float(f),
                None => ImmKind::Int(t.bits()),
            };
            let srcs = match &regs_op.kind {
                OperandKind::Vector(v) => {
                    let mut s = Vec::new();
                    for p in v {
                        s.push(self.src(p, k)?);
                    }
                    s
                }
                _ => vec![self.src(regs_op, k)?],
            };
            Ok(Op::St { space, size, srcs, addr })
        } else {
            let ds = match &regs_op.kind {
                OperandKind::Vector(v) => {
                    let mut s = Vec::new();
                    for p in v {
                        s.push(if matches!(p.kind, OperandKind::Sink) { None } else { Some(self.dst(p)?) });
                    }
                    s
                }
                _ => vec![Some(self.dst(regs_op)?)],
            };
            let signed = ity(t).map(|x| x.signed).unwrap_or(false);
            Ok(Op::Ld { space, size, signed, ds, addr })
        }
    }

    /// `st.async{.weak}.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type
    /// [a], b, [mbar]` (PTX ISA 9.7.9.12): [`Op::StAsync`]. The form
    /// without a state space (generic addressing) is refused by name, as
    /// are those the checker refuses.
    fn st_async(&mut self, i: &ast::Instruction<'_>, x: &ptxsim_isa::LdSt) -> R<Op> {
        let t = x.ty;
        if x.space() != Some(LdSpace::SharedCluster) || !x.complete_tx || !matches!(t.bits(), 32 | 64) || x.vec == Some(LdVec::V8) {
            return Err(DecodeError::Unsupported(opname(i)));
        }
        let ops = &i.operands;
        if ops.len() != 3 {
            return Err(DecodeError::Operand(format!("`{}` takes 3 operands: [a], b, [mbar]", opname(i))));
        }
        let (_, addr) = self.addr(&ops[0], Space::Shared)?;
        let k = match fty(t) {
            Some(f) => ImmKind::Float(f),
            None => ImmKind::Int(t.bits()),
        };
        let srcs = match &ops[1].kind {
            OperandKind::Vector(v) => v.iter().map(|p| self.src(p, k)).collect::<Result<Vec<_>, _>>()?,
            _ => vec![self.src(&ops[1], k)?],
        };
        let (_, mbar) = self.addr(&ops[2], Space::Shared)?;
        Ok(Op::StAsync { size: t.bits() / 8, srcs, addr, mbar })
    }

    /// `fence`, `membar`: [`Op::Fence`] once the modifiers fit.
    pub(super) fn fence(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        if let Some(m) = insn.misfit() {
            return Err(DecodeError::Operand(format!("`{}`: {}", opname(i), m.why)));
        }
        Ok(Op::Fence)
    }

    /// `cvta{.to}.space.size d, a`.
    pub(super) fn cvta(&mut self, i: &ast::Instruction<'_>, to: bool, space: CvtaSpace, ty: ScalarType) -> R<Op> {
        let space = match space {
            CvtaSpace::Global => Space::Global,
            // A `.shared::cluster` address is an offset in the shared
            // window too (`lanemem::RANK_SHIFT`).
            CvtaSpace::Shared | CvtaSpace::SharedCta | CvtaSpace::SharedCluster => Space::Shared,
            CvtaSpace::Local => Space::Local,
            CvtaSpace::Const => Space::Const,
            CvtaSpace::Param | CvtaSpace::ParamEntry => Space::KernelParam,
        };
        let bits = ty.bits();
        let d = self.dst(&i.operands[0])?;
        let a = self.src(&i.operands[1], ImmKind::Int(bits))?;
        Ok(Op::Cvta { to, space, bits, d, a })
    }

    /// `isspacep.space p, a` (PTX ISA 9.7.9.16).
    pub(super) fn isspacep(&mut self, i: &ast::Instruction<'_>, space: IsspacepSpace) -> R<Op> {
        let cluster = space == IsspacepSpace::SharedCluster;
        let space = match space {
            IsspacepSpace::Global => Space::Global,
            IsspacepSpace::Shared | IsspacepSpace::SharedCta | IsspacepSpace::SharedCluster => Space::Shared,
            IsspacepSpace::Local => Space::Local,
            IsspacepSpace::Const => Space::Const,
            IsspacepSpace::Param | IsspacepSpace::ParamEntry => Space::KernelParam,
        };
        let p = self.pdst(&i.operands[0])?.ok_or("sink destination")?;
        let (a, off) = self.reg_plus(&i.operands[1], 64)?;
        Ok(Op::Isspacep { space, cluster, p, a, off })
    }

    /// `mapa{.shared::cluster}.type d, a, b`, `getctarank{.shared::cluster}.type
    /// d, a` (PTX ISA 9.7.9.17-18): without the state space, `a` is a
    /// generic address.
    pub(super) fn mapa_getctarank(&mut self, i: &ast::Instruction<'_>, mapa: bool, space: Option<ClusterSpace>, ty: ScalarType) -> R<Op> {
        let generic = space.is_none();
        let bits = ty.bits();
        let ops = &i.operands;
        let d = self.dst(&ops[0])?;
        let (a, off) = self.reg_plus(&ops[1], bits)?;
        if mapa {
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
                    let Src::Imm(k) = k else { return Err(DecodeError::Operand(format!("the offset of `{}` is not a constant", n.text))) };
                    return Ok((r, if *op == ast::BinOp::Sub { k.wrapping_neg() } else { k }));
                }
            }
        }
        Ok((self.src(o, ImmKind::Int(bits))?, 0))
    }
}
