//! Decoding Hopper's asynchronous data path (sm_90a) into [`Op`]s:
//! `wgmma.fence` / `commit_group` / `wait_group` (no-ops: every
//! `wgmma.mma_async` completes when issued) and `wgmma.mma_async`
//! ([`Op::Wgmma`], semantics in `datapath/hopper.rs` over
//! `ptxsim_sem::wgmma`); the tile-mode `cp.async.bulk.tensor` in both
//! directions ([`Op::BulkTensor`]); `setmaxnreg` (checked, otherwise
//! nothing: the engine has no register file to resize). The other forms
//! (`.im2col`, `cp.reduce.async.bulk.tensor`, `wgmma.mma_async.sp`,
//! `.b1`, `tensormap.replace`) are refused with their names.

use super::{FuncDecoder, ImmKind, Sym};
use crate::program::*;
use ptxsim_sem::wgmma::{self, AType, DType, Shape};
use ptxsim_syntax::ast::{self, Operand, OperandKind};

type R<T> = Result<T, String>;

fn full(i: &ast::Instruction<'_>) -> String {
    let mut s = i.opcode.text.to_string();
    for m in &i.modifiers {
        s.push_str(m.text);
    }
    s
}

fn unsupported(i: &ast::Instruction<'_>) -> String {
    format!("instruction `{}` is not supported yet", full(i))
}

/// The operands of a vector operand `{a, b, ...}` (or a single operand).
fn elems<'o>(o: &'o Operand<'o>) -> &'o [Operand<'o>] {
    match &o.kind {
        OperandKind::Vector(v) => v,
        _ => std::slice::from_ref(o),
    }
}

/// An integer-constant operand.
fn int(o: &Operand<'_>) -> Option<i64> {
    match &o.kind {
        OperandKind::Int(i) => Some(i.value as i64),
        _ => None,
    }
}

impl FuncDecoder<'_, '_, '_, '_, '_> {
    /// `wgmma.fence.sync.aligned`, `wgmma.commit_group.sync.aligned`,
    /// `wgmma.wait_group.sync.aligned N`, and
    /// `wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype
    /// d, a, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a,}
    /// imm-trans-b}` (PTX ISA 9.7.15.5.2): the immediates the manual gives
    /// each type (none for the integer types; the scales for the float
    /// ones; the transposes for `.f16`/`.bf16`, only B's with A in
    /// registers).
    pub(super) fn wgmma(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        match mods.as_slice() {
            [".fence", ".sync", ".aligned"] | [".commit_group", ".sync", ".aligned"] if i.operands.is_empty() => return Ok(Op::Nop),
            [".wait_group", ".sync", ".aligned"] => {
                return match i.operands.as_slice() {
                    [n] if int(n).is_some() => Ok(Op::Nop),
                    _ => Err(format!("`{}` takes one operand, an integer constant", full(i))),
                };
            }
            [".mma_async", ".sync", ".aligned", rest @ ..] => self.wgmma_mma(i, rest),
            _ => Err(unsupported(i)),
        }
    }

    fn wgmma_mma(&mut self, i: &ast::Instruction<'_>, rest: &[&str]) -> R<Op> {
        let (shape, rest) = rest.split_first().ok_or_else(|| unsupported(i))?;
        let (satfinite, rest) = match rest.first() {
            Some(&".satfinite") => (true, &rest[1..]),
            _ => (false, rest),
        };
        let [dt, at, bt] = rest else { return Err(unsupported(i)) };
        let (Some(d), Some(a), Some(b)) = (DType::from_name(dt), AType::from_name(at), AType::from_name(bt)) else { return Err(unsupported(i)) };
        let n = shape
            .strip_prefix(".m64n")
            .and_then(|s| s.split_once('k'))
            .filter(|(_, k)| k.parse::<u32>().ok() == Some(a.k()))
            .and_then(|(n, _)| n.parse::<u32>().ok())
            .ok_or_else(|| format!("`{}`: shape `{shape}` is not m64nNk{} for `{at}`", full(i), a.k()))?;
        let sh = Shape { n, d, a, b };
        let ops = i.operands.as_slice();
        let a_regs = matches!(ops.get(1).map(|o| &o.kind), Some(OperandKind::Vector(_)));
        let half = matches!(a, AType::F16 | AType::BF16);
        let imms = match (a.is_int(), half, a_regs) {
            (true, _, _) => 0,
            (false, false, _) => 2,
            (false, true, true) => 3,
            (false, true, false) => 4,
        };
        if ops.len() != 4 + imms {
            return Err(format!("`{}` takes {} operands", full(i), 4 + imms));
        }
        let imm = |k: usize, ok: &[i64], what: &str| -> R<i64> {
            let o = &ops[4 + k];
            int(o).filter(|v| ok.contains(v)).ok_or_else(|| format!("`{}`: {what} must be one of {ok:?}", full(i)))
        };
        let (neg_a, neg_b) = if imms >= 2 { (imm(0, &[1, -1], "imm-scale-a")? == -1, imm(1, &[1, -1], "imm-scale-b")? == -1) } else { (false, false) };
        let (trans_a, trans_b) = match imms {
            3 => (false, imm(2, &[0, 1], "imm-trans-b")? == 1),
            4 => (imm(2, &[0, 1], "imm-trans-a")? == 1, imm(3, &[0, 1], "imm-trans-b")? == 1),
            _ => (false, false),
        };
        wgmma::check(sh, satfinite, trans_a, trans_b).map_err(|e| format!("`{}`: {e}", full(i)))?;
        let dregs = elems(&ops[0]);
        if dregs.len() != d.regs(n) as usize {
            return Err(format!("`{}`: D has {} registers, {} expected", full(i), dregs.len(), d.regs(n)));
        }
        let dregs = dregs.iter().map(|o| self.dst(o)).collect::<Result<Vec<_>, _>>()?;
        let a_src = if a_regs {
            let r = elems(&ops[1]);
            if r.len() != 4 {
                return Err(format!("`{}`: A in registers takes 4 registers, not {}", full(i), r.len()));
            }
            WgmmaA::Regs(r.iter().map(|o| self.src(o, ImmKind::Int(32))).collect::<Result<Vec<_>, _>>()?)
        } else {
            WgmmaA::Desc(self.src(&ops[1], ImmKind::Int(64))?)
        };
        let b_src = self.src(&ops[2], ImmKind::Int(64))?;
        let scale_d = self.psrc(&ops[3])?;
        Ok(Op::Wgmma(Box::new(Wgmma { shape: sh, satfinite, d: dregs, a: a_src, b: b_src, scale_d, neg_a, neg_b, trans_a, trans_b })))
    }

    /// `cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}
    /// .mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint}
    /// [dst], [tmap, {c...}], [mbar]{, mask}{, policy}` and
    /// `cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group
    /// {.L2::cache_hint} [tmap, {c...}], [src]{, policy}` (PTX ISA
    /// 9.7.9.25.5.1). The tensor map is a kernel parameter named directly
    /// or a generic address in a register.
    pub(super) fn bulk_tensor(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        if mods.first() == Some(&".reduce") {
            return Err(unsupported(i));
        }
        let dims = mods
            .iter()
            .find_map(|m| m.strip_prefix('.').and_then(|x| x.strip_suffix('d')).and_then(|x| x.parse::<usize>().ok()))
            .filter(|d| (1..=5).contains(d))
            .ok_or_else(|| unsupported(i))?;
        let (mut spaces, mut mbar, mut group, mut hint, mut multicast) = (Vec::new(), false, false, false, false);
        for m in mods.iter().skip(3) {
            match *m {
                x if x == format!(".{dims}d") => {}
                ".tile" => {}
                ".global" => spaces.push(Space::Global),
                ".shared::cluster" | ".shared::cta" => spaces.push(Space::Shared),
                ".mbarrier::complete_tx::bytes" => mbar = true,
                ".bulk_group" => group = true,
                ".multicast::cluster" => multicast = true,
                ".L2::cache_hint" => hint = true,
                _ => return Err(unsupported(i)),
            }
        }
        let to_shared = match spaces.as_slice() {
            [Space::Shared, Space::Global] if mbar && !group && mods.contains(&".shared::cluster") => true,
            [Space::Global, Space::Shared] if group && !mbar && !multicast && mods.contains(&".shared::cta") => false,
            _ => return Err(unsupported(i)),
        };
        let ops = i.operands.as_slice();
        let want = if to_shared { 3 + multicast as usize + hint as usize } else { 2 + hint as usize };
        if ops.len() != want {
            return Err(format!("`{}` takes {want} operands", full(i)));
        }
        let (tm_op, smem_op) = if to_shared { (&ops[1], &ops[0]) } else { (&ops[0], &ops[1]) };
        let OperandKind::Bracket(tm) = &tm_op.kind else { return Err(format!("`{}`: expected `[tensor-map, {{coordinates}}]`", full(i))) };
        let [map, coords] = tm.as_slice() else { return Err(format!("`{}`: expected `[tensor-map, {{coordinates}}]`", full(i))) };
        let coords = elems(coords);
        if coords.len() != dims {
            return Err(format!("`{}` takes {dims} coordinates, not {}", full(i), coords.len()));
        }
        let coords = coords.iter().map(|o| self.src(o, ImmKind::Int(32))).collect::<Result<Vec<_>, _>>()?;
        let tmap = match &map.kind {
            OperandKind::Name { name, component: None } => match self.lookup(name.text) {
                Some(Sym::KernelParam(p)) => (Space::KernelParam, Addr { base: AddrBase::None, offset: p as i64 }),
                Some(Sym::Reg { slot, .. }) => (Space::Generic, Addr { base: AddrBase::Reg(slot), offset: 0 }),
                Some(Sym::Global(g)) => (Space::Global, Addr { base: AddrBase::None, offset: g as i64 }),
                Some(Sym::Const(c)) => (Space::Const, Addr { base: AddrBase::None, offset: c as i64 }),
                _ => return Err(format!("`{}`: the tensor map `{}` is not a kernel parameter, a variable or a register", full(i), name.text)),
            },
            _ => return Err(format!("`{}`: expected a tensor map name or register", full(i))),
        };
        let smem = self.addr(smem_op, Space::Shared)?;
        let mbar = if to_shared { Some(self.addr(&ops[2], Space::Shared)?.1) } else { None };
        let mask = if multicast { Some(self.src(&ops[3], ImmKind::Int(16))?) } else { None };
        Ok(Op::BulkTensor(Box::new(BulkTensor { to_shared, smem, tmap, coords, mbar, mask, reduce: None })))
    }

    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 imm` (PTX ISA 9.7.17.1): the
    /// count must be a multiple of 8 in 24..=256; the engine has nothing
    /// to resize.
    pub(super) fn setmaxnreg(&mut self, i: &ast::Instruction<'_>) -> R<Op> {
        let mods: Vec<&str> = i.modifiers.iter().map(|m| m.text).collect();
        if !matches!(mods.as_slice(), [".inc" | ".dec", ".sync", ".aligned", ".u32"]) {
            return Err(unsupported(i));
        }
        match i.operands.as_slice() {
            [n] => match int(n) {
                Some(v) if (24..=256).contains(&v) && v % 8 == 0 => Ok(Op::Nop),
                Some(v) => Err(format!("`{}`: the register count {v} must be a multiple of 8 in 24..=256", full(i))),
                None => Err(format!("`{}` takes an integer constant", full(i))),
            },
            _ => Err(format!("`{}` takes one operand", full(i))),
        }
    }
}
