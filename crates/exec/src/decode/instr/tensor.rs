//! Decoding the sm_80 tensor and asynchronous-copy path into [`Op`]s:
//! `cp.async` with `commit_group`/`wait_group`/`wait_all` (semantics in
//! `datapath/asynccopy.rs`), `ldmatrix`, `stmatrix`, `movmatrix` and
//! `mma.sync.aligned` (semantics in `datapath/tensor.rs`). The main decoder (`instr.rs`) asks
//! [`tensor_route`] first; `None` means the instruction is not one of these.
//! The non-tensor bulk copies (`cp.async.bulk`, sm_90) decode here too.
//! A form outside what the engine runs (`cp.async.bulk.tensor`, ...) is
//! refused with its name.

use super::{DecodeError, FuncDecoder, ImmKind, Sym};
use ptxsim_isa::grammar::MatShape;
use ptxsim_isa::{Insn, MatrixNum, MatrixSpace, MmaLayout, MmaRnd};
use ptxsim_sem::alu::{FTy, Rounding};
use crate::program::*;
use ptxsim_syntax::ast::{self, Operand, OperandKind, ScalarType};

type R<T> = Result<T, DecodeError>;

/// `ldmatrix`/`stmatrix`'s typed modifiers: shape, count, `.trans`, state
/// space, type.
pub(super) type MatrixForm = (Option<MatShape>, MatrixNum, bool, Option<MatrixSpace>, ScalarType);

/// The `.m8n8` shape of the matrix moves.
const M8N8: MatShape = MatShape { m: 8, n: 8, k: None };

/// Which of this file's decoders reads an instruction.
#[derive(Clone, Copy, Debug)]
pub(super) enum Tensor {
    CpAsync,
    /// `cp.async.bulk` without `.tensor` (and not `cp.reduce.async.bulk`).
    CpAsyncBulk,
    /// `cp.reduce.async.bulk` without `.tensor`.
    CpReduceBulk,
    /// `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor` (`hopper.rs`).
    BulkTensor,
}

/// The refinement of an opcode's family by its modifiers that this file
/// reads: `cp` with `.async`, with or without `.bulk` (the tensor and
/// reducing bulk copies are not supported yet). The other instructions of this file are routed
/// by their rows of the instruction description (`ptxsim_isa`: families
/// `AsyncCopy`; `wmma` (`wmma.rs`), `ldmatrix`, `stmatrix`, `movmatrix`,
/// `mma`, `wgmma`, `setmaxnreg` and `mbarrier` are typed rows, decoded from `typed.rs`).
pub(super) fn tensor_route(opc: &str, has: &dyn Fn(&str) -> bool) -> Option<Tensor> {
    match opc {
        "cp" if has(".async") && !has(".bulk") => Some(Tensor::CpAsync),
        "cp" if has(".async") && has(".bulk") && !has(".tensor") && !has(".reduce") => Some(Tensor::CpAsyncBulk),
        "cp" if has(".reduce") && has(".async") && has(".bulk") && !has(".tensor") => Some(Tensor::CpReduceBulk),
        "cp" if has(".async") && has(".bulk") && has(".tensor") => Some(Tensor::BulkTensor),
        _ => None,
    }
}

/// The instruction as written, without operands.
fn full(i: &ast::Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

fn unsupported(i: &ast::Instruction<'_>) -> DecodeError {
    DecodeError::Unsupported(full(i))
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// The instruction `i` decoded by this file's decoder `r`.
    pub(super) fn tensor_instr(&mut self, r: Tensor, i: &ast::Instruction<'_>) -> R<Op> {
        match r {
            Tensor::CpAsync => self.cp_async(i),
            Tensor::CpAsyncBulk => self.cp_async_bulk(i),
            Tensor::CpReduceBulk => self.cp_reduce_bulk(i),
            Tensor::BulkTensor => self.bulk_tensor(i),
        }
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}
    /// [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}`,
    /// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
    /// `cp.async.bulk` (PTX ISA 9.7.9.25.4, sm_90), the non-tensor forms:
    /// global to shared with `.mbarrier::complete_tx::bytes`
    /// (`.shared::cluster` or `.shared::cta` destination), shared to global
    /// with `.bulk_group`, each with an optional `.L2::cache_hint` (and its
    /// policy operand, a hint the engine does not need), and from this
    /// CTA's shared memory into a cluster CTA's (`.shared::cluster.shared::cta`,
    /// the mbarrier in the destination CTA); `commit_group`,
    /// `wait_group{.read}` (the copies are complete when issued) and
    /// `prefetch.L2` (no caches) do nothing. With `.multicast::cluster`
    /// (global to `.shared::cluster`) the copy goes to every CTA of its
    /// mask. `.cp_mask` is not supported yet.
    fn cp_async_bulk(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let ops = &i.operands;
        let rest = mods.get(2..).unwrap_or(&[]);
        match rest {
            [".commit_group"] if ops.is_empty() => return Ok(Op::Nop),
            [".wait_group"] | [".wait_group", ".read"] => {
                return match ops.as_slice() {
                    [n] if matches!(n.kind, OperandKind::Int(_)) => Ok(Op::Nop),
                    _ => Err(format!("`{}` takes one operand, an integer constant", full(i)).into()),
                };
            }
            [".prefetch", ".L2", ".global", hint @ ..] if hint.is_empty() || hint == [".L2::cache_hint"] => {
                let want = 2 + hint.len();
                if ops.len() != want {
                    return Err(format!("`{}` takes {want} operands", full(i)).into());
                }
                let _ = self.addr(&ops[0], Space::Global)?;
                let _ = self.src(&ops[1], ImmKind::Int(32))?;
                return Ok(Op::Nop);
            }
            _ => {}
        }
        let (mut spaces, mut mbar, mut group, mut hint, mut multicast) = (Vec::new(), false, false, false, false);
        for m in rest {
            match *m {
                ".multicast::cluster" => multicast = true,
                ".global" => spaces.push(Space::Global),
                ".shared::cta" | ".shared::cluster" | ".shared" => spaces.push(Space::Shared),
                ".mbarrier::complete_tx::bytes" => mbar = true,
                ".bulk_group" => group = true,
                ".L2::cache_hint" => hint = true,
                _ => return Err(unsupported(i)),
            }
        }
        let ok = match spaces.as_slice() {
            [Space::Shared, Space::Global] => mbar && !group && (!multicast || mods.contains(&".shared::cluster")),
            // Into the shared memory of a CTA of the cluster.
            [Space::Shared, Space::Shared] => mbar && !group && !hint && !multicast && mods.contains(&".shared::cluster") && mods.contains(&".shared::cta"),
            [Space::Global, Space::Shared] => group && !mbar && !mods.contains(&".shared::cluster"),
            _ => false,
        };
        if !ok {
            return Err(unsupported(i));
        }
        let want = 3 + mbar as usize + multicast as usize + hint as usize;
        if ops.len() != want {
            return Err(format!("`{}` takes {want} operands", full(i)).into());
        }
        let (ds, dst) = self.addr(&ops[0], spaces[0])?;
        let (ss, src) = self.addr(&ops[1], spaces[1])?;
        let size = self.src(&ops[2], ImmKind::Int(32))?;
        let mbar = if mbar { Some(self.addr(&ops[3], Space::Shared)?.1) } else { None };
        let mask = if multicast { Some(self.src(&ops[4], ImmKind::Int(16))?) } else { None };
        Ok(Op::BulkCopy { dst: (ds, dst), src: (ss, src), size, mbar, mask })
    }

    /// `cp.reduce.async.bulk` (PTX ISA 9.7.9.25.4.2, sm_90), the non-tensor
    /// forms: into a cluster CTA's shared memory completing on its mbarrier
    /// (`.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`), or into
    /// global memory (`.global.shared::cta.bulk_group{.L2::cache_hint}`),
    /// with `.and .or .xor .add .inc .dec .min .max` on the manual's integer
    /// types, `.add` on `.f32`/`.f64` and `.add.noftz` on `.f16`/`.bf16`;
    /// `min`/`max` on the half types are not supported yet.
    fn cp_reduce_bulk(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let ops = &i.operands;
        let (mut spaces, mut mbar, mut group, mut hint, mut noftz) = (Vec::new(), false, false, false, false);
        let (mut op, mut ty) = (None, None);
        for m in mods.get(3..).unwrap_or(&[]) {
            match *m {
                ".global" => spaces.push((Space::Global, *m)),
                ".shared::cta" | ".shared::cluster" => spaces.push((Space::Shared, *m)),
                ".mbarrier::complete_tx::bytes" => mbar = true,
                ".bulk_group" => group = true,
                ".L2::cache_hint" => hint = true,
                ".noftz" => noftz = true,
                x if op.is_none() && red_op(x).is_some() => op = red_op(x),
                t if ty.is_none() && ScalarType::from_str(t).is_some() => ty = ScalarType::from_str(t),
                _ => return Err(unsupported(i)),
            }
        }
        let (Some(op), Some(t)) = (op, ty) else { return Err(unsupported(i)) };
        let to_cluster = match spaces.as_slice() {
            [(Space::Shared, ".shared::cluster"), (Space::Shared, ".shared::cta")] if mbar && !group && !hint => true,
            [(Space::Global, _), (Space::Shared, ".shared::cta")] if group && !mbar => false,
            _ => return Err(unsupported(i)),
        };
        let ty = match (t, op) {
            (ScalarType::F32 | ScalarType::F64, AtomOp::Add) if !noftz => ITyOrF::F(if t == ScalarType::F32 { FTy::F32 } else { FTy::F64 }),
            (ScalarType::F16 | ScalarType::Bf16, AtomOp::Add) if noftz => ITyOrF::F(if t == ScalarType::F16 { FTy::F16 } else { FTy::BF16 }),
            _ if !noftz && matches!(t.bits(), 32 | 64) && crate::decode::ity(t).is_some() => ITyOrF::I(crate::decode::ity(t).ok_or_else(|| unsupported(i))?),
            _ => return Err(unsupported(i)),
        };
        let want = 3 + mbar as usize + hint as usize;
        if ops.len() != want {
            return Err(format!("`{}` takes {want} operands", full(i)).into());
        }
        let (ds, dst) = self.addr(&ops[0], if to_cluster { Space::Shared } else { Space::Global })?;
        let (_, src) = self.addr(&ops[1], Space::Shared)?;
        let size = self.src(&ops[2], ImmKind::Int(32))?;
        let mbar = if mbar { Some(self.addr(&ops[3], Space::Shared)?.1) } else { None };
        Ok(Op::BulkReduce { dst: (ds, dst), src, size, mbar, op, ty })
    }

    fn cp_async(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        let ops = &i.operands;
        match mods.as_slice() {
            [".async", ".commit_group"] if ops.is_empty() => return Ok(Op::CpAsyncCommit),
            [".async", ".wait_all"] if ops.is_empty() => return Ok(Op::CpAsyncWait { n: 0, all: true }),
            [".async", ".mbarrier", ".arrive", rest @ ..] => {
                let noinc = rest.first() == Some(&".noinc");
                let rest = if noinc { &rest[1..] } else { rest };
                let space = match rest {
                    [".shared" | ".shared::cta", ".b64"] => Space::SharedCta,
                    [".b64"] => Space::Generic,
                    _ => return Err(unsupported(i)),
                };
                let [o] = ops.as_slice() else { return Err(format!("`{}` takes one operand, the mbarrier's address", full(i)).into()) };
                let (space, addr) = self.addr(o, space)?;
                return Ok(Op::Mbarrier { op: MbarOp::CpAsyncArrive { noinc }, d: None, space, addr, a: Src::Imm(0) });
            }
            [".async", ".wait_group"] => {
                let [n] = ops.as_slice() else { return Err("`cp.async.wait_group` takes one operand, an integer constant".into()) };
                let n = match &n.kind {
                    OperandKind::Int(v) => u32::try_from(v.value).map_err(|_| "`cp.async.wait_group`'s count is out of range".to_string())?,
                    _ => return Err("`cp.async.wait_group`'s operand must be an integer constant".into()),
                };
                return Ok(Op::CpAsyncWait { n, all: false });
            }
            _ => {}
        }
        let mut level = None;
        let mut dst_shared = false;
        let mut src_global = false;
        let mut hint = false;
        for m in &mods[1..] {
            match *m {
                ".ca" | ".cg" if level.is_none() => level = Some(*m),
                ".shared" | ".shared::cta" if !dst_shared => dst_shared = true,
                ".global" if dst_shared && !src_global => src_global = true,
                ".L2::cache_hint" => hint = true,
                ".L2::64B" | ".L2::128B" | ".L2::256B" => {}
                _ => return Err(unsupported(i)),
            }
        }
        let (Some(level), true, true) = (level, dst_shared, src_global) else { return Err(unsupported(i)) };
        let n_fixed = 3 + hint as usize;
        if ops.len() != n_fixed && ops.len() != n_fixed + 1 {
            return Err(format!("`{}` takes {} or {} operands", full(i), n_fixed, n_fixed + 1).into());
        }
        let (_, dst) = self.addr(&ops[0], Space::Shared)?;
        let (_, src) = self.addr(&ops[1], Space::Global)?;
        let cp_size = match &ops[2].kind {
            OperandKind::Int(v) if matches!(v.value, 4 | 8 | 16) => v.value as u32,
            _ => return Err(format!("`{}`: cp-size must be 4, 8 or 16", full(i)).into()),
        };
        if level == ".cg" && cp_size != 16 {
            return Err(format!("`{}`: cp-size must be 16 with .cg", full(i)).into());
        }
        let size = if ops.len() == n_fixed + 1 {
            let o = &ops[3];
            let is_pred = match &o.kind {
                OperandKind::Not(_) => true,
                OperandKind::Name { name, component: None } => matches!(self.lookup(name.text), Some(Sym::Pred(_))),
                _ => false,
            };
            if is_pred {
                CopySrcSize::Ignore(self.psrc(o)?)
            } else {
                CopySrcSize::Size(self.src(o, ImmKind::Int(32))?)
            }
        } else {
            CopySrcSize::Full
        };
        Ok(Op::CpAsync { dst, src, cp_size, size })
    }

    /// The operands of a vector operand `{a, b, ...}` (or a single operand).
    fn elems<'o>(o: &'o Operand<'o>) -> &'o [Operand<'o>] {
        match &o.kind {
            OperandKind::Vector(v) => v,
            _ => std::slice::from_ref(o),
        }
    }

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
        let regs = Self::elems(regs);
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
            if Self::elems(o).len() != w {
                return Err(format!("`{}`: an operand has {} registers, {w} expected", full(i), Self::elems(o).len()).into());
            }
        }
        let imm = |t: MmaTy| match t {
            MmaTy::F32 => ImmKind::Float(FTy::F32),
            MmaTy::F64 => ImmKind::Float(FTy::F64),
            _ => ImmKind::Int(32),
        };
        let dregs = Self::elems(d).iter().map(|o| self.dst(o)).collect::<Result<Vec<_>, _>>()?;
        let mut srcs = |o: &Operand<'_>, t: MmaTy| Self::elems(o).iter().map(|o| self.src(o, imm(t))).collect::<Result<Vec<_>, _>>();
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
/// m16n8k8, tf32 (f32) in m16n8k8 and m16n8k4, s8/u8 (s32) in m16n8k32
/// and m16n8k16, f64 in m8n8k4.
pub(crate) fn mma_form(shape: MmaShape, d: MmaTy, a: MmaTy, b: MmaTy, c: MmaTy) -> bool {
    use MmaShape::*;
    use MmaTy::*;
    let acc_f = |x: MmaTy| matches!(x, F16 | F32);
    match (a, b) {
        (F16, F16) => matches!(shape, M16N8K16 | M16N8K8) && acc_f(d) && c == d,
        (BF16, BF16) => matches!(shape, M16N8K16 | M16N8K8) && d == F32 && c == F32,
        (Tf32, Tf32) => matches!(shape, M16N8K8 | M16N8K4) && d == F32 && c == F32,
        (S8 | U8, S8 | U8) => matches!(shape, M16N8K32 | M16N8K16) && d == S32 && c == S32,
        (F64, F64) => shape == M8N8K4 && d == F64 && c == F64,
        // sm_89's 8-bit floats (PTX ISA 8.4): m16n8k32 into f32.
        (E4m3 | E5m2, E4m3 | E5m2) => shape == M16N8K32 && d == F32 && c == F32,
        _ => false,
    }
}

/// The reduction of a `.redOp` modifier of `cp.reduce.async.bulk{.tensor}`
/// (`.and .or .xor .add .inc .dec .min .max`).
pub(super) fn red_op(m: &str) -> Option<AtomOp> {
    Some(match m {
        ".and" => AtomOp::And,
        ".or" => AtomOp::Or,
        ".xor" => AtomOp::Xor,
        ".add" => AtomOp::Add,
        ".inc" => AtomOp::Inc,
        ".dec" => AtomOp::Dec,
        ".min" => AtomOp::Min,
        ".max" => AtomOp::Max,
        _ => return None,
    })
}
