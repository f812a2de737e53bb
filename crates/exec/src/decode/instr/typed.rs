//! Decoding the rows whose modifier grammar is written (the `Typed` family
//! of `ptxsim_isa`): the decoder matches on the typed instruction
//! [`Insn`] that [`ptxsim_isa::decode`] makes from the row, and reads the
//! operands by the row's roles. Today: `and`, `or`, `xor`, `not`, `shl`,
//! `shr`, `rem`, `copysign`, `neg`, `abs`, `add`, `sub`, `mul`, `min`, `max` (in `arith.rs`), `mad`,
//! `madc`, `addc`, `subc`, `fma` (in `fma.rs`), `div`, `rcp`, `sqrt`, `rsqrt`,
//! `sin`, `cos`, `lg2`, `ex2`, `tanh` (in `math.rs`), `mov`, `cvt`, `cvt.pack` (in `convert.rs`), `atom`, `red`, `red.async` (in `atomic.rs`), `lop3`, `shf` and the bit and
//! integer rows `popc` ... `sad`, `testp` (in `bits.rs`), the SIMD video
//! instructions `vadd2` ... `vset4` (in `video.rs`), the warp rows
//! `shfl`, `vote`, `match`, `redux`, `elect`, `bar`/`barrier` (in
//! `warp.rs`), `wmma` (in `wmma.rs`), `activemask`, `nanosleep` and `griddepcontrol`, and
//! the scalar video instructions (`vadd` ... `vset`, `vmad`; semantics in
//! [`ptxsim_sem::alu::vscalar`]).

use super::{DecodeError, FuncDecoder, ImmKind, R};
use crate::program::*;
use ptxsim_isa::modifiers::opname;
use ptxsim_isa::{grammar::Choice, Insn, VideoSel};
use ptxsim_sem::alu::ext::Lane3Op;
use ptxsim_sem::alu::vscalar::{VPrimary, VScalar, VSecond, Vmad};
use ptxsim_syntax::ast::{self, Name, Operand, OperandKind, ScalarType};

/// A video source: its value, selector and whether it is negated.
type VSrc = (Src, Option<VideoSel>, bool);

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// An instruction of a row whose grammar is written.
    pub(super) fn typed(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let insn = ptxsim_isa::decode(i)?;
        let row = insn.row();
        if let Some((min, max)) = row.operand_count() {
            if i.operands.len() < min || i.operands.len() > max {
                return Err(DecodeError::Operand(format!("`{}` takes {min} to {max} operands, not {}", opname(i), i.operands.len())));
            }
        }
        let s = |t: ScalarType| t == ScalarType::S32;
        let (op, signs, sat, op2) = match insn {
            Insn::Vadd { dtype, atype, btype, sat, op2 } => (VPrimary::Add, [s(dtype), s(atype), s(btype)], sat, op2),
            Insn::Vsub { dtype, atype, btype, sat, op2 } => (VPrimary::Sub, [s(dtype), s(atype), s(btype)], sat, op2),
            Insn::Vabsdiff { dtype, atype, btype, sat, op2 } => (VPrimary::Absdiff, [s(dtype), s(atype), s(btype)], sat, op2),
            Insn::Vmin { dtype, atype, btype, sat, op2 } => (VPrimary::Min, [s(dtype), s(atype), s(btype)], sat, op2),
            Insn::Vmax { dtype, atype, btype, sat, op2 } => (VPrimary::Max, [s(dtype), s(atype), s(btype)], sat, op2),
            Insn::Vshl { dtype, atype, btype, sat, mode, op2 } => (VPrimary::Shl(mode), [s(dtype), s(atype), s(btype)], sat, op2),
            Insn::Vshr { dtype, atype, btype, sat, mode, op2 } => (VPrimary::Shr(mode), [s(dtype), s(atype), s(btype)], sat, op2),
            // vset has no destination type: its 0 and 1 are unsigned.
            Insn::Vset { atype, btype, cmp, op2 } => (VPrimary::Set(cmp), [false, s(atype), s(btype)], false, op2),
            Insn::Vmad { atype, btype, po, sat, scale, .. } => {
                let (a, b, c) = (self.vsrc(i, 1)?, self.vsrc(i, 2)?, self.vsrc(i, 3)?);
                let bad = |what: &str| Err(DecodeError::Operand(format!("`{}`: {what}", opname(i))));
                if self.dsel(i)?.is_some() {
                    return bad("vmad takes no destination selector");
                }
                if c.1.is_some() {
                    return bad("vmad takes no selector on `c`");
                }
                let neg_ab = a.2 ^ b.2;
                if (neg_ab && c.2) || (po && (a.2 || b.2 || c.2)) {
                    return bad("operand negation is limited to the product or `c`, and `.po` takes none");
                }
                let v = Vmad { a_signed: s(atype), b_signed: s(btype), po, sat, scale, asel: a.1, bsel: b.1, neg_ab, neg_c: c.2 };
                let d = self.dst(&plain(&i.operands[0]))?;
                return Ok(Op::Lane3 { op: Lane3Op::Vmad(v), d, a: a.0, b: b.0, c: c.0 });
            }
            Insn::Lop3 { boolop, .. } => return self.lop3(i, boolop),
            Insn::Shf { dir, mode, .. } => return self.shf(i, dir, mode),
            Insn::Ldmatrix { shape, num, trans, space, ty, .. } => return self.ld_st_matrix(i, false, (shape, num, trans, space, ty)),
            Insn::Stmatrix { shape, num, trans, space, ty, .. } => return self.ld_st_matrix(i, true, (shape, num, trans, space, ty)),
            Insn::Movmatrix { shape, trans, .. } => return self.movmatrix(i, shape, trans),
            Insn::Mma { .. } => return self.mma(i, insn),
            Insn::Wmma { .. } => return self.wmma(i, insn),
            Insn::Wgmma { .. } => return self.wgmma(i, insn),
            Insn::Setmaxnreg { .. } => return self.setmaxnreg(i),
            Insn::Tensormap { .. } => return self.tensormap(i, insn),
            Insn::Cp { .. } | Insn::CpAsync { .. } => return self.async_copy(i, insn),
            Insn::And { .. } | Insn::Or { .. } | Insn::Xor { .. } | Insn::Not { .. } | Insn::Shl { .. }
            | Insn::Shr { .. } | Insn::Rem { .. } | Insn::Copysign { .. } => return self.logic(i, insn),
            Insn::Neg { .. } | Insn::Abs { .. } => return self.neg_abs(i, insn),
            Insn::Mov { .. } | Insn::Cvt { .. } | Insn::CvtPack { .. } => return self.convert(i, insn),
            Insn::Atom { .. } | Insn::Red { .. } | Insn::RedAsync { .. } => return self.atomic(i, insn),
            Insn::Add { .. } | Insn::Sub { .. } => return self.add_sub(i, insn),
            Insn::Mul { .. } => return self.mul(i, insn),
            Insn::Mad { .. } => return self.mad(i, insn),
            Insn::Addc { .. } | Insn::Subc { .. } | Insn::Madc { .. } => return self.carry(i, insn),
            Insn::Fma { .. } => return self.fma(i, insn),
            Insn::Div { .. } => return self.div(i, insn),
            Insn::Rcp { .. } | Insn::Sqrt { .. } | Insn::Rsqrt { .. } | Insn::Sin { .. } | Insn::Cos { .. }
            | Insn::Lg2 { .. } | Insn::Ex2 { .. } | Insn::Tanh { .. } => return self.math(i, insn),
            Insn::Min { .. } | Insn::Max { .. } => return self.min_max(i, insn),
            Insn::Popc { .. } | Insn::Clz { .. } | Insn::Bfind { .. } | Insn::Brev { .. } | Insn::Cnot { .. }
            | Insn::Prmt { .. } | Insn::Bfe { .. } | Insn::Bfi { .. } | Insn::Bmsk { .. } | Insn::Szext { .. }
            | Insn::Fns { .. } | Insn::Dp4a { .. } | Insn::Dp2a { .. } | Insn::Testp { .. } | Insn::Mul24 { .. }
            | Insn::Mad24 { .. } | Insn::Sad { .. } => return self.arith_bits(i, insn),
            Insn::Vadd2 { .. } | Insn::Vsub2 { .. } | Insn::Vavrg2 { .. } | Insn::Vabsdiff2 { .. } | Insn::Vmin2 { .. }
            | Insn::Vmax2 { .. } | Insn::Vset2 { .. } | Insn::Vadd4 { .. } | Insn::Vsub4 { .. } | Insn::Vavrg4 { .. }
            | Insn::Vabsdiff4 { .. } | Insn::Vmin4 { .. } | Insn::Vmax4 { .. } | Insn::Vset4 { .. } => return self.video(i, insn.simd().ok_or_else(|| DecodeError::Unsupported(opname(i)))?),
            Insn::Bra { .. } | Insn::Brx { .. } | Insn::Call { .. } | Insn::Ret { .. } | Insn::Exit {} | Insn::Trap {} => return self.control(i, insn),
            Insn::Setp { .. } | Insn::Set { .. } | Insn::Selp { .. } | Insn::Slct { .. } => return self.compare(i, insn),
            Insn::Bar { .. } | Insn::Barrier { .. } => return self.bar(i, insn),
            Insn::Shfl { mode, .. } => return self.shfl(i, mode),
            Insn::Vote { mode, .. } => return self.vote(i, mode),
            Insn::Match { mode, ty, .. } => return self.match_sync(i, mode, ty),
            Insn::Redux { op, abs, nan, ty, .. } => return self.redux(i, op, abs, nan, ty),
            Insn::Elect { .. } => return self.elect(i),
            Insn::Activemask { .. } => return Ok(Op::Activemask { d: self.dst(&i.operands[0])? }),
            Insn::Nanosleep { .. } => return Ok(Op::Nanosleep { t: self.src(&i.operands[0], ImmKind::Int(32))? }),
            // Launches run one after another, each to completion, so
            // `.wait` finds no prerequisite grid in flight and every
            // earlier grid's memory operations already performed, and
            // `.launch_dependents` (which only lets a dependent grid be
            // scheduled early) has nothing to start.
            Insn::Griddepcontrol { .. } => return Ok(Op::Nop),
            Insn::Ld { .. } | Insn::Ldu { .. } | Insn::St { .. } => return self.ld_st(i, insn),
            Insn::Mbarrier { .. } => return self.mbarrier(i, insn),
            Insn::Fence { .. } | Insn::Membar { .. } => return self.fence(i, insn),
            Insn::Cvta { to, space, ty } => return self.cvta(i, to, space, ty),
            // Cache hints: the engine has no caches, so they do nothing
            // (`discard` leaves the line's data as it was, one of the
            // values the manual allows after it).
            Insn::Prefetch { .. } | Insn::Prefetchu { .. } | Insn::Applypriority { .. } | Insn::Discard { .. } => {
                if let Some(m) = insn.misfit() {
                    return Err(DecodeError::Operand(format!("`{}`: {}", opname(i), m.why)));
                }
                return Ok(Op::Nop);
            }
            Insn::Createpolicy { .. } => {
                if let Some(m) = insn.misfit() {
                    return Err(DecodeError::Operand(format!("`{}`: {}", opname(i), m.why)));
                }
                return Ok(Op::CreatePolicy { d: self.dst(&i.operands[0])? });
            }
            Insn::Isspacep { space } => return self.isspacep(i, space),
            Insn::Mapa { space, ty } => return self.mapa_getctarank(i, true, space, ty),
            Insn::Getctarank { space, ty } => return self.mapa_getctarank(i, false, space, ty),
            _ => return Err(DecodeError::Unsupported(opname(i))),
        };
        let dsel = self.dsel(i)?;
        let second = match (dsel, op2) {
            (Some(_), Some(_)) => return Err(DecodeError::Operand(format!("`{}`: a destination selector and a secondary operation", opname(i)))),
            (Some(_), None) if i.operands.len() < 4 => return Err(DecodeError::Operand(format!("`{}`: a destination selector needs `c`", opname(i)))),
            (Some(sel), None) => VSecond::Merge(sel),
            (None, Some(o)) if i.operands.len() < 4 => return Err(DecodeError::Operand(format!("`{}`: `{}` needs `c`", opname(i), o.as_str()))),
            (None, Some(o)) => VSecond::Op(o),
            (None, None) => VSecond::None,
        };
        let (a, b) = (self.vsrc(i, 1)?, self.vsrc(i, 2)?);
        let c = if i.operands.len() > 3 { self.vsrc(i, 3)? } else { (Src::Imm(0), None, false) };
        if a.2 || b.2 || c.2 {
            return Err(DecodeError::Operand(format!("`{}` takes no negated operand", opname(i))));
        }
        if c.1.is_some() {
            return Err(DecodeError::Operand(format!("`{}` takes no selector on `c`", opname(i))));
        }
        let [d_signed, a_signed, b_signed] = signs;
        let v = VScalar { op, d_signed, a_signed, b_signed, sat, asel: a.1, bsel: b.1, second };
        let d = self.dst(&plain(&i.operands[0]))?;
        Ok(Op::Lane3 { op: Lane3Op::VScalar(v), d, a: a.0, b: b.0, c: c.0 })
    }

    /// The destination selector of a video instruction (`d.b1`), if any.
    fn dsel(&self, i: &ast::Instruction<'_>) -> R<Option<VideoSel>> {
        match &i.operands[0].kind {
            OperandKind::Name { component: Some(c), .. } => selector(i, c).map(Some),
            _ => Ok(None),
        }
    }

    /// Source `k` of a video instruction: a register with its selector
    /// and negation, or an immediate.
    fn vsrc(&mut self, i: &ast::Instruction<'_>, k: usize) -> R<VSrc> {
        let o = &i.operands[k];
        let (name, component, neg) = match &o.kind {
            OperandKind::Name { name, component } => (*name, *component, false),
            OperandKind::Neg { name, component } => (*name, *component, true),
            _ => return Ok((self.src(o, ImmKind::Int(32))?, None, false)),
        };
        let sel = component.map(|c| selector(i, &c)).transpose()?;
        let reg = Operand { span: o.span, kind: OperandKind::Name { name, component: None } };
        Ok((self.src(&reg, ImmKind::Int(32))?, sel, neg))
    }
}

/// The selector a component spells.
fn selector(i: &ast::Instruction<'_>, c: &Name<'_>) -> R<VideoSel> {
    VideoSel::from_modifier(c.text).ok_or_else(|| DecodeError::Operand(format!("`{}`: `{}` is not a video selector", opname(i), c.text)))
}

/// An operand without its selector.
fn plain<'a>(o: &Operand<'a>) -> Operand<'a> {
    match &o.kind {
        OperandKind::Name { name, .. } => Operand { span: o.span, kind: OperandKind::Name { name: *name, component: None } },
        _ => o.clone(),
    }
}
