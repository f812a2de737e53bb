//! Decoding the asynchronous copies from their typed rows (`cp.async`,
//! `cp`: [`Insn::CpAsync`], [`Insn::Cp`], the form [`CopyKind`]) into
//! [`Op`]s: `cp.async` with `commit_group`/`wait_group`/`wait_all` and
//! `cp.async.mbarrier.arrive` (semantics in `datapath/asynccopy.rs`), the
//! non-tensor bulk copies and reductions (`cp.async.bulk`,
//! `cp.reduce.async.bulk`, sm_90: [`Op::BulkCopy`], [`Op::BulkReduce`]) and
//! the tile- and im2col-mode tensor copies (`cp.async.bulk.tensor` in both
//! directions, `cp.reduce.async.bulk.tensor` shared to global:
//! [`Op::BulkTensor`], semantics in `datapath/hopper.rs`).
//!
//! `cp.async.bulk.prefetch.tensor` (a cache hint) checks its operands and
//! does nothing. Refused with their names: `.cp_mask`,
//! sm_100's load modes and CTA groups, `.min`/`.max` reductions on the
//! half types, and every combination the form does not take.

use super::{elems, full, unsupported, DecodeError, FuncDecoder, ImmKind, Sym};
use ptxsim_isa::{copy_stray, CopyCompletion, CopyKind, CopySpace, CpLevel, Insn, TensorLoadMode};
use ptxsim_sem::alu::FTy;
use crate::program::*;
use ptxsim_syntax::ast::{self, OperandKind, ScalarType};

type R<T> = Result<T, DecodeError>;

/// The engine's reduction of a `.redOp` of `cp.reduce.async.bulk{.tensor}`
/// (`.and .or .xor .add .inc .dec .min .max`; not `.cas`, `.exch`).
fn red_op(op: ptxsim_isa::AtomOp) -> Option<AtomOp> {
    use ptxsim_isa::AtomOp as A;
    Some(match op {
        A::And => AtomOp::And,
        A::Or => AtomOp::Or,
        A::Xor => AtomOp::Xor,
        A::Add => AtomOp::Add,
        A::Inc => AtomOp::Inc,
        A::Dec => AtomOp::Dec,
        A::Min => AtomOp::Min,
        A::Max => AtomOp::Max,
        A::Cas | A::Exch => return None,
    })
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// An instruction of the `cp.async` or `cp` row.
    pub(super) fn async_copy(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let kind = insn.copy_kind().ok_or_else(|| unsupported(i))?;
        if copy_stray(i, kind).is_some() {
            return Err(unsupported(i));
        }
        let ops = &i.operands;
        match (kind, insn) {
            (CopyKind::Commit, _) if ops.is_empty() => Ok(Op::CpAsyncCommit),
            (CopyKind::WaitAll, _) if ops.is_empty() => Ok(Op::CpAsyncWait { n: 0, all: true }),
            (CopyKind::Wait, _) => {
                let [n] = ops.as_slice() else { return Err("`cp.async.wait_group` takes one operand, an integer constant".into()) };
                let n = match &n.kind {
                    OperandKind::Int(v) => u32::try_from(v.value).map_err(|_| "`cp.async.wait_group`'s count is out of range".to_string())?,
                    _ => return Err("`cp.async.wait_group`'s operand must be an integer constant".into()),
                };
                Ok(Op::CpAsyncWait { n, all: false })
            }
            (CopyKind::MbarrierArrive, Insn::CpAsync { noinc, spaces, ty, .. }) => {
                let space = match (spaces, ty) {
                    ([Some(CopySpace::Shared | CopySpace::SharedCta), None], Some(ScalarType::B64)) => Space::SharedCta,
                    ([None, None], Some(ScalarType::B64)) => Space::Generic,
                    _ => return Err(unsupported(i)),
                };
                let [o] = ops.as_slice() else { return Err(format!("`{}` takes one operand, the mbarrier's address", full(i)).into()) };
                let (space, addr) = self.addr(o, space)?;
                Ok(Op::Mbarrier { op: MbarOp::CpAsyncArrive { noinc }, d: None, space, addr, a: Src::Imm(0) })
            }
            (CopyKind::CpAsync, Insn::CpAsync { level, spaces, hint, .. }) => self.cp_async(i, level, spaces, hint),
            (CopyKind::BulkCommit, _) if ops.is_empty() => Ok(Op::Nop),
            (CopyKind::BulkWait, _) => match ops.as_slice() {
                [n] if matches!(n.kind, OperandKind::Int(_)) => Ok(Op::Nop),
                _ => Err(format!("`{}` takes one operand, an integer constant", full(i)).into()),
            },
            (CopyKind::BulkPrefetch, Insn::CpAsync { l2: true, spaces: [Some(CopySpace::Global), None], hint, .. }) => {
                let want = 2 + hint as usize;
                if ops.len() != want {
                    return Err(format!("`{}` takes {want} operands", full(i)).into());
                }
                let _ = self.addr(&ops[0], Space::Global)?;
                let _ = self.src(&ops[1], ImmKind::Int(32))?;
                Ok(Op::Nop)
            }
            (CopyKind::BulkPrefetchTensor, Insn::CpAsync { dim: Some(dim), l2: true, spaces: [Some(CopySpace::Global), None], mode, wide: None, hint, .. }) => {
                self.prefetch_tensor(i, dim.count(), mode, hint)
            }
            (CopyKind::Bulk, Insn::CpAsync { spaces, completion, multicast, hint, cp_mask: false, .. }) => self.cp_async_bulk(i, spaces, completion, multicast, hint),
            (CopyKind::ReduceBulk, Insn::Cp { spaces, completion, op, hint, noftz, ty, .. }) => self.cp_reduce_bulk(i, spaces, completion, (op, ty), hint, noftz),
            (CopyKind::BulkTensor | CopyKind::ReduceBulkTensor, _) => self.bulk_tensor(i, insn),
            _ => Err(unsupported(i)),
        }
    }

    /// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}
    /// [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}` (the
    /// prefetch size and the cache policy only direct caches, which the
    /// engine does not model).
    fn cp_async(&mut self, i: &ast::Instruction<'_>, level: Option<CpLevel>, spaces: [Option<CopySpace>; 2], hint: bool) -> R<Op> {
        let ops = &i.operands;
        let (Some(level), [Some(CopySpace::Shared | CopySpace::SharedCta), Some(CopySpace::Global)]) = (level, spaces) else { return Err(unsupported(i)) };
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
        if level == CpLevel::Cg && cp_size != 16 {
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
    /// mask.
    fn cp_async_bulk(&mut self, i: &ast::Instruction<'_>, spaces: [Option<CopySpace>; 2], completion: Option<CopyCompletion>, multicast: bool, hint: bool) -> R<Op> {
        use CopySpace::*;
        let ops = &i.operands;
        let (mbar, group) = (completion == Some(CopyCompletion::Mbarrier), completion == Some(CopyCompletion::BulkGroup));
        let [Some(d), Some(s)] = spaces else { return Err(unsupported(i)) };
        let ok = match (d, s) {
            (Shared | SharedCta | SharedCluster, Global) => mbar && (!multicast || d == SharedCluster),
            // Into the shared memory of a CTA of the cluster.
            (SharedCluster, SharedCta) | (SharedCta, SharedCluster) => mbar && !hint && !multicast,
            (Global, Shared | SharedCta) => group,
            _ => false,
        };
        if !ok {
            return Err(unsupported(i));
        }
        let space = |c: CopySpace| if c.shared() { Space::Shared } else { Space::Global };
        let want = 3 + mbar as usize + multicast as usize + hint as usize;
        if ops.len() != want {
            return Err(format!("`{}` takes {want} operands", full(i)).into());
        }
        let (ds, dst) = self.addr(&ops[0], space(d))?;
        let (ss, src) = self.addr(&ops[1], space(s))?;
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
    fn cp_reduce_bulk(&mut self, i: &ast::Instruction<'_>, spaces: [Option<CopySpace>; 2], completion: Option<CopyCompletion>, (op, t): (Option<ptxsim_isa::AtomOp>, Option<ScalarType>), hint: bool, noftz: bool) -> R<Op> {
        use CopySpace::*;
        let ops = &i.operands;
        let (mbar, group) = (completion == Some(CopyCompletion::Mbarrier), completion == Some(CopyCompletion::BulkGroup));
        let (Some(op), Some(t)) = (op.and_then(red_op), t) else { return Err(unsupported(i)) };
        let to_cluster = match spaces {
            [Some(SharedCluster), Some(SharedCta)] if mbar && !hint => true,
            [Some(Global), Some(SharedCta)] if group => false,
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

    /// `cp.async.bulk.tensor.Nd.shared::cluster.global{.tile, .im2col}
    /// .mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}
    /// [dst], [tmap, {c...}], [mbar]{, {offsets}}{, mask}{, policy}` and
    /// `cp.async.bulk.tensor.Nd.global.shared::cta{.tile, .im2col_no_offs}
    /// .bulk_group{.L2::cache_hint} [tmap, {c...}], [src]{, policy}` (PTX
    /// ISA 9.7.9.25.5.1; `.im2col` takes N - 2 16-bit offsets), and
    /// `cp.reduce.async.bulk.tensor` shared to global (its element type is
    /// the tensor map's). The tensor map is a kernel parameter named
    /// directly or a generic address in a register.
    /// `cp.async.bulk.prefetch.tensor.dim.L2.global{.tile|.im2col}{.L2::cache_hint}
    /// [tensorMap, {coordinates}]{, {im2col offsets}}{, cache-policy}`: a
    /// hint to bring a box of the tensor into the L2 cache, which the
    /// engine does not model; it has no effect the program can see (PTX
    /// ISA 9.7.9.25.5.3), so its operands are checked and it does nothing.
    fn prefetch_tensor(&mut self, i: &ast::Instruction<'_>, dims: usize, mode: Option<TensorLoadMode>, hint: bool) -> R<Op> {
        let offsets = match mode {
            None | Some(TensorLoadMode::Tile) => false,
            Some(TensorLoadMode::Im2col) if dims >= 3 => true,
            Some(m) => return Err(format!("`{}`: the load mode `{}` does not prefetch a {dims}-d tensor (`.tile`, or `.im2col` on 3 to 5 dimensions)", full(i), m.as_str()).into()),
        };
        let ops = i.operands.as_slice();
        let want = 1 + offsets as usize + hint as usize;
        if ops.len() != want {
            return Err(format!("`{}` takes {want} operands", full(i)).into());
        }
        let OperandKind::Bracket(tm) = &ops[0].kind else { return Err(format!("`{}`: expected `[tensor-map, {{coordinates}}]`", full(i)).into()) };
        let [map, coords] = tm.as_slice() else { return Err(format!("`{}`: expected `[tensor-map, {{coordinates}}]`", full(i)).into()) };
        let coords = elems(coords);
        if coords.len() != dims {
            return Err(format!("`{}` takes {dims} coordinates, not {}", full(i), coords.len()).into());
        }
        self.src(map, ImmKind::Int(64))?;
        for c in coords {
            self.src(c, ImmKind::Int(32))?;
        }
        if offsets {
            let offs = elems(&ops[1]);
            if offs.len() != dims - 2 {
                return Err(format!("`{}` takes {} im2col offsets, not {}", full(i), dims - 2, offs.len()).into());
            }
            for o in offs {
                self.src(o, ImmKind::Int(16))?;
            }
        }
        if hint {
            self.src(&ops[want - 1], ImmKind::Int(64))?;
        }
        Ok(Op::Nop)
    }

    fn bulk_tensor(&mut self, i: &ast::Instruction<'_>, insn: Insn) -> R<Op> {
        let (reduce, dim, spaces, mode, completion, multicast, hint) = match insn {
            Insn::CpAsync { dim, spaces, mode, wide: None, completion, multicast, cta_group: None, hint, .. } => (None, dim, spaces, mode, completion, multicast, hint),
            Insn::Cp { dim, spaces, mode, wide: None, completion, op, hint, .. } => (Some(op.and_then(red_op).ok_or_else(|| unsupported(i))?), dim, spaces, mode, completion, false, hint),
            _ => return Err(unsupported(i)),
        };
        let dims = dim.ok_or_else(|| unsupported(i))?.count();
        let (mbar, group) = (completion == Some(CopyCompletion::Mbarrier), completion == Some(CopyCompletion::BulkGroup));
        let to_shared = match spaces {
            [Some(CopySpace::SharedCluster), Some(CopySpace::Global)] if mbar => true,
            [Some(CopySpace::Global), Some(CopySpace::SharedCta)] if group && !multicast => false,
            _ => return Err(unsupported(i)),
        };
        if reduce.is_some() && to_shared {
            return Err(unsupported(i));
        }
        // `.im2col` (with offsets) reads global memory; `.im2col_no_offs`
        // writes it.
        let im2col = match mode {
            None | Some(TensorLoadMode::Tile) => false,
            Some(TensorLoadMode::Im2col) if to_shared && dims >= 3 => true,
            Some(TensorLoadMode::Im2colNoOffs) if !to_shared && dims >= 3 => true,
            Some(m) => {
                let dir = if to_shared { "global to shared memory" } else { "shared to global memory" };
                return Err(format!("`{}`: the load mode `{}` does not copy {dir} on a {dims}-d tensor (`.im2col` is global to shared, `.im2col_no_offs` shared to global, each on 3 to 5 dimensions)", full(i), m.as_str()).into());
            }
        };
        let with_offsets = im2col && to_shared;
        let ops = i.operands.as_slice();
        let want = if to_shared { 3 + with_offsets as usize + multicast as usize + hint as usize } else { 2 + hint as usize };
        if ops.len() != want {
            return Err(format!("`{}` takes {want} operands", full(i)).into());
        }
        let (tm_op, smem_op) = if to_shared { (&ops[1], &ops[0]) } else { (&ops[0], &ops[1]) };
        let OperandKind::Bracket(tm) = &tm_op.kind else { return Err(format!("`{}`: expected `[tensor-map, {{coordinates}}]`", full(i)).into()) };
        let [map, coords] = tm.as_slice() else { return Err(format!("`{}`: expected `[tensor-map, {{coordinates}}]`", full(i)).into()) };
        let coords = elems(coords);
        if coords.len() != dims {
            return Err(format!("`{}` takes {dims} coordinates, not {}", full(i), coords.len()).into());
        }
        let coords = coords.iter().map(|o| self.src(o, ImmKind::Int(32))).collect::<Result<Vec<_>, _>>()?;
        let tmap = match &map.kind {
            OperandKind::Name { name, component: None } => match self.lookup(name.text) {
                Some(Sym::KernelParam(p)) => (Space::KernelParam, Addr { base: AddrBase::None, offset: p as i64 }),
                Some(Sym::Reg { slot, .. }) => (Space::Generic, Addr { base: AddrBase::Reg(slot), offset: 0 }),
                Some(Sym::Global(g)) => (Space::Global, Addr { base: AddrBase::None, offset: g as i64 }),
                Some(Sym::Const(c)) => (Space::Const, Addr { base: AddrBase::None, offset: c as i64 }),
                _ => return Err(format!("`{}`: the tensor map `{}` is not a kernel parameter, a variable or a register", full(i), name.text).into()),
            },
            _ => return Err(format!("`{}`: expected a tensor map name or register", full(i)).into()),
        };
        let smem = self.addr(smem_op, Space::Shared)?;
        let mbar = if to_shared { Some(self.addr(&ops[2], Space::Shared)?.1) } else { None };
        let im2col = match (im2col, with_offsets) {
            (false, _) => None,
            (true, false) => Some(Vec::new()),
            (true, true) => {
                let offs = elems(&ops[3]);
                if offs.len() != dims - 2 || !matches!(ops[3].kind, OperandKind::Vector(_)) {
                    return Err(format!("`{}` takes a vector of {} im2col offsets after the mbarrier", full(i), dims - 2).into());
                }
                Some(offs.iter().map(|o| self.src(o, ImmKind::Int(16))).collect::<Result<Vec<_>, _>>()?)
            }
        };
        let mask = if multicast { Some(self.src(&ops[3 + with_offsets as usize], ImmKind::Int(16))?) } else { None };
        Ok(Op::BulkTensor(Box::new(BulkTensor { to_shared, smem, tmap, coords, mbar, mask, reduce, im2col })))
    }
}
