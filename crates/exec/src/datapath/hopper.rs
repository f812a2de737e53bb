//! Hopper's asynchronous data path in the engine: `wgmma.mma_async`
//! ([`Op::Wgmma`](crate::program::Op::Wgmma)) and the tile- and im2col-mode tensor
//! copies `cp.async.bulk.tensor` / `cp.reduce.async.bulk.tensor`
//! ([`Op::BulkTensor`](crate::program::Op::BulkTensor)), over the pure
//! semantics of `ptxsim_sem::wgmma` and `ptxsim_sem::tma`.
//!
//! Both are performed when issued: completing at once is one of the orders
//! the asynchronous proxy allows, and a program that waits as the manual
//! requires (`wgmma.wait_group`, the mbarrier, `cp.async.bulk.wait_group`)
//! sees the same values. Each warp of a warpgroup computes its own 16 rows
//! of D (they depend only on its rows of A and on B), so `wgmma` needs no
//! meeting of the four warps.
//!
//! Traps: a warp not executing `wgmma` whole (`non_uniform`), a descriptor
//! or `scale-d` that differs between lanes (`non_uniform`), an operand
//! outside shared memory (`out_of_bounds`), a malformed tensor map (a trap
//! naming the field), a mask bit past the cluster.

use super::{psrc, src_lanes, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanes::store;
use crate::lanemem::RANK_SHIFT;
use crate::program::*;
use crate::warp::{lanes, Frame};
use ptxsim_sem::tma::{CopyError, DataType, TensorMap, SIZE};
use ptxsim_sem::wgmma::{self, ASrc, Major, MatrixDesc, MmaArgs};

/// The one value of `s` over the lanes of `m` (a `wgmma` descriptor),
/// trapping when the lanes disagree.
fn uniform(cx: &Lanes<'_>, fr: &Frame, m: u32, s: &Src, what: &str) -> Result<u64, Trap> {
    let v = src_lanes(cx, &fr.regs, s);
    let first = m.trailing_zeros() as usize;
    if let Some(l) = lanes(m).find(|&l| v[l] != v[first]) {
        return Err(Trap::lane(TrapKind::NonUniform, l as u32, format!("lane {l}: the {what} of `wgmma.mma_async` ({:#x}) differs from lane {first}'s ({:#x})", v[l], v[first])));
    }
    Ok(v[first])
}

/// `wgmma.mma_async.sync.aligned`: this warp's 16 rows of D.
pub(crate) fn wgmma(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, x: &Wgmma) -> Result<(), Trap> {
    if !super::tensor::whole_warp(m, "wgmma.mma_async.sync.aligned")? {
        return Ok(());
    }
    let w = cx.sregs.warp_id % 4;
    let scale = psrc(&fr.preds, x.scale_d);
    if scale != 0 && scale != u32::MAX {
        let l = (scale ^ u32::MAX).trailing_zeros().min(scale.trailing_zeros());
        return Err(Trap::lane(TrapKind::NonUniform, l, "`scale-d` of `wgmma.mma_async` differs between the lanes of the warp".to_string()));
    }
    let args = MmaArgs { shape: x.shape, scale_d: scale != 0, neg_a: x.neg_a, neg_b: x.neg_b, satfinite: x.satfinite };
    let major = |t: bool| if t { Major::MN } else { Major::K };
    let bdesc = MatrixDesc::decode(uniform(cx, fr, m, &x.b, "B descriptor")?);
    let regs_a: Vec<[u64; 32]>;
    let a = match &x.a {
        WgmmaA::Regs(srcs) => {
            regs_a = srcs.iter().map(|s| src_lanes(cx, &fr.regs, s)).collect();
            ASrc::Regs(&regs_a)
        }
        WgmmaA::Desc(s) => ASrc::Desc(MatrixDesc::decode(uniform(cx, fr, m, s, "A descriptor")?), major(x.trans_a)),
    };
    let mut d: Vec<[u64; 32]> = x.d.iter().map(|&r| fr.regs[r as usize]).collect();
    let mut trap = None;
    let mut cache = usize::MAX;
    let mem = &cx.mem;
    let mut smem = |addr: u64, size: u32| -> Result<u64, String> {
        mem.read(Space::Shared, 0, addr, size, &mut cache).map_err(|t| {
            let s = t.message.clone();
            trap = Some(t);
            s
        })
    };
    let r = wgmma::warp_mma(&args, w, a, (bdesc, major(x.trans_b)), &mut d, &mut smem);
    if let Err(e) = r {
        return Err(trap.unwrap_or_else(|| Trap::lane(TrapKind::Unsupported, 0, format!("wgmma.mma_async: {e}"))));
    }
    for (&reg, v) in x.d.iter().zip(&d) {
        store(&mut fr.regs[reg as usize], v, m);
    }
    Ok(())
}

/// Lane `l`'s address of `a`.
fn addr_of(cx: &Lanes<'_>, fr: &Frame, a: Addr, l: usize) -> u64 {
    let base = match a.base {
        AddrBase::Reg(r) => fr.regs[r as usize][l],
        AddrBase::None => 0,
        AddrBase::Frame => cx.local_base,
    };
    base.wrapping_add(a.offset as u64)
}

/// The tensor map at `(space, at)` for lane `l`, decoded and validated.
fn tensor_map(cx: &Lanes<'_>, l: usize, space: Space, at: u64) -> Result<TensorMap, Trap> {
    let mut b = [0u8; SIZE];
    let mut cache = usize::MAX;
    for k in 0..SIZE / 8 {
        let v = cx.mem.read(space, l, at + 8 * k as u64, 8, &mut cache)?;
        b[8 * k..8 * k + 8].copy_from_slice(&v.to_le_bytes());
    }
    TensorMap::from_bytes(&b).map_err(|e| Trap::lane(TrapKind::Trap, l as u32, format!("lane {l}: the tensor map at {at:#x}: {e}")))
}

/// The copy's error as a trap for lane `l`.
fn copy_trap(l: usize, e: CopyError<Trap>) -> Trap {
    match e {
        CopyError::Map(e) => Trap::lane(TrapKind::Trap, l as u32, format!("lane {l}: {e}")),
        CopyError::Mem(t) => t,
    }
}

/// `tensormap.replace` on the lanes of `m`, in lane order: each reads the
/// 128 bytes at its address, rewrites the field, writes them back. A bad
/// ordinal or element-type code, or bytes that are not a map, is a
/// located trap naming the field.
pub(crate) fn tensormap_replace(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, x: &TensormapReplace) -> Result<(), Trap> {
    let vals = src_lanes(cx, &fr.regs, &x.val);
    let space = x.addr.0;
    for l in lanes(m) {
        let at = addr_of(cx, fr, x.addr.1, l);
        check_map_align(l, at)?;
        let mut b = [0u8; SIZE];
        let mut cache = usize::MAX;
        for k in 0..SIZE / 8 {
            let w = cx.mem.read(space, l, at + 8 * k as u64, 8, &mut cache)?;
            b[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
        ptxsim_sem::tma::replace(&mut b, x.field, x.ord, vals[l]).map_err(|e| {
            let kind = if e.field == "swizzle_atomicity" { TrapKind::Unsupported } else { TrapKind::Trap };
            Trap::lane(kind, l as u32, format!("lane {l}: tensormap.replace at {at:#x}: {e}"))
        })?;
        for k in 0..SIZE / 8 {
            let w = u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]));
            cx.mem.write(space, l, at + 8 * k as u64, 8, w, &mut cache)?;
        }
    }
    Ok(())
}

/// `tensormap.cp_fenceproxy`: each lane of `m` copies the 128 bytes at
/// shared `src` to global `dst`; then the worker's fence, which stands for
/// the release of the tensor-map proxy.
pub(crate) fn tensormap_copy(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, dst: Addr, src: Addr) -> Result<(), Trap> {
    for l in lanes(m) {
        let (d, s) = (addr_of(cx, fr, dst, l), addr_of(cx, fr, src, l));
        check_map_align(l, d)?;
        check_map_align(l, s)?;
        let (mut rc, mut wc) = (usize::MAX, usize::MAX);
        for k in 0..SIZE as u64 / 8 {
            let w = cx.mem.read(Space::Shared, l, s + 8 * k, 8, &mut rc)?;
            cx.mem.write(Space::Global, l, d + 8 * k, 8, w, &mut wc)?;
        }
        *cx.stores += 1;
    }
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    Ok(())
}

/// A tensor map's address must be 64-byte aligned (CUDA's `CUtensorMap`
/// alignment, which `tensormap.replace` and `cp_fenceproxy` keep).
fn check_map_align(l: usize, at: u64) -> Result<(), Trap> {
    if at % 64 != 0 {
        return Err(Trap::lane(TrapKind::Misaligned, l as u32, format!("lane {l}: a tensor map at {at:#x}, which is not 64-byte aligned")));
    }
    Ok(())
}

/// The element type of `cp.reduce.async.bulk.tensor .op` on a tensor map
/// of `dtype` elements, where the manual's table of reductions allows the
/// pair: `.add` on u32, s32, u64, f32, f16 and bf16; `.min`/`.max` on u32,
/// s32, u64 and s64 (and f16, bf16: not modelled yet, refused by name);
/// `.inc`/`.dec` on u32; `.and`/`.or`/`.xor` on u32, s32, u64 and s64.
/// Any other pair is a located trap naming both.
fn reduce_type(l: usize, op: AtomOp, dtype: DataType) -> Result<ITyOrF, Trap> {
    let int = |bits, signed| ITyOrF::I(ptxsim_sem::alu::ITy { bits, signed });
    let name = format!("{op:?}").to_lowercase();
    let ty = match (op, dtype) {
        (AtomOp::Add, DataType::F32 | DataType::F32Ftz) => ITyOrF::F(ptxsim_sem::alu::FTy::F32),
        (AtomOp::Add, DataType::F16) => ITyOrF::F(ptxsim_sem::alu::FTy::F16),
        (AtomOp::Add, DataType::BF16) => ITyOrF::F(ptxsim_sem::alu::FTy::BF16),
        (AtomOp::Min | AtomOp::Max, DataType::F16 | DataType::BF16) => {
            return Err(Trap::lane(
                TrapKind::Unsupported,
                l as u32,
                format!("lane {l}: cp.reduce.async.bulk.tensor .{name} on {dtype:?} elements is not modelled yet"),
            ))
        }
        (AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::Inc | AtomOp::Dec | AtomOp::And | AtomOp::Or | AtomOp::Xor, DataType::U32) => int(32, false),
        (AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor, DataType::I32) => int(32, true),
        (AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor, DataType::U64) => int(64, false),
        (AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor, DataType::I64) => int(64, true),
        _ => {
            return Err(Trap::lane(
                TrapKind::Trap,
                l as u32,
                format!("lane {l}: cp.reduce.async.bulk.tensor .{name} cannot reduce elements of the tensor map's type {dtype:?}: the manual allows add on u32/s32/u64/f32/f16/bf16, min and max on u32/s32/u64/s64/f16/bf16, inc and dec on u32, and/or/xor on u32/s32/u64/s64"),
            ))
        }
    };
    Ok(ty)
}

/// `cp.async.bulk.tensor` / `cp.reduce.async.bulk.tensor`, tile or im2col
/// mode, on the lanes of `m`, each lane its own copy.
pub(crate) fn bulk_tensor(cx: &mut Lanes<'_>, fr: &mut Frame, m: u32, x: &BulkTensor) -> Result<(), Trap> {
    let coords: Vec<[u64; 32]> = x.coords.iter().map(|s| src_lanes(cx, &fr.regs, s)).collect();
    let mask = x.mask.as_ref().map(|s| src_lanes(cx, &fr.regs, s));
    let offsets: Option<Vec<[u64; 32]>> = x.im2col.as_ref().map(|v| v.iter().map(|s| src_lanes(cx, &fr.regs, s)).collect());
    let (n_ctas, own) = (super::space::cluster_size(cx), u64::from(cx.sregs.cta.rank));
    for l in lanes(m) {
        let map = tensor_map(cx, l, x.tmap.0, addr_of(cx, fr, x.tmap.1, l))?;
        let c: Vec<i32> = coords.iter().map(|v| v[l] as u32 as i32).collect();
        // `.im2col_no_offs`: every offset 0.
        let offs: Option<Vec<u16>> = offsets.as_ref().map(|o| match o.is_empty() {
            true => vec![0; c.len().saturating_sub(2)],
            false => o.iter().map(|v| v[l] as u16).collect(),
        });
        let s = addr_of(cx, fr, x.smem.1, l);
        let mb = x.mbar.map(|a| addr_of(cx, fr, a, l));
        let (mut rc, mut wc) = (usize::MAX, usize::MAX);
        if !x.to_shared {
            let (sspace, dspace) = (x.smem.0, Space::Global);
            let mem = &mut cx.mem;
            let mut read_buf = Vec::new();
            // Read the box first (shared), then write (global): two passes
            // keep the two borrows of the memory apart.
            map.copy_from_shared(&c, offs.as_deref(), s, &mut |a, n| mem.read(sspace, l, a, n, &mut rc), &mut |a, n, v| {
                read_buf.push((a, n, v));
                Ok(())
            })
            .map_err(|e| copy_trap(l, e))?;
            let red = match x.reduce {
                Some(op) => Some((op, reduce_type(l, op, map.dtype)?)),
                None => None,
            };
            for (a, n, v) in read_buf {
                match red {
                    None => mem.write(dspace, l, a, n, v, &mut wc)?,
                    Some((op, ty)) => {
                        crate::atomics::atom(mem, dspace, l, (a, n), (op, ty), [v, 0])?;
                    }
                }
            }
            *cx.stores += 1;
            continue;
        }
        // Global to shared: to this CTA, or to each CTA of the mask.
        let mut targets: Vec<(u64, Option<u64>)> = Vec::new();
        match &mask {
            None => targets.push((s, mb)),
            Some(mv) => {
                let bits = mv[l] & 0xffff;
                let at = |r: u64, a: u64| {
                    let off = a & ((1 << RANK_SHIFT) - 1);
                    if r == own {
                        off
                    } else {
                        (r + 1) << RANK_SHIFT | off
                    }
                };
                for r in (0..16u64).filter(|r| bits >> r & 1 != 0) {
                    if r >= n_ctas {
                        return Err(super::space::bad_rank(l, "cp.async.bulk.tensor .multicast::cluster", r, n_ctas));
                    }
                    targets.push((at(r, s), mb.map(|b| at(r, b))));
                }
            }
        }
        for &(to, b) in &targets {
            let mut vals = Vec::new();
            let mem = &mut cx.mem;
            let bytes = map
                .copy_to_shared(&c, offs.as_deref(), to, &mut |a, n| mem.read(Space::Global, l, a, n, &mut rc), &mut |a, n, v| {
                    vals.push((a, n, v));
                    Ok(())
                })
                .map_err(|e| copy_trap(l, e))?;
            for (a, n, v) in vals {
                mem.write(x.smem.0, l, a, n, v, &mut wc)?;
            }
            *cx.stores += 1;
            if let Some(b) = b {
                super::mbarrier::complete_tx(cx, l, b, bytes)?;
            }
        }
    }
    Ok(())
}
