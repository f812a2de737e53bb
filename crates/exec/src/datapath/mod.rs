//! The data path: executing one decoded data-flow instruction (integer and
//! float arithmetic, comparisons, moves and conversions, loads, stores,
//! atomics, warp-wide votes and shuffles) for a warp under a lane mask.
//!
//! It is shared by every loop that runs a [`Program`]: the engine's PTX
//! dispatch loop (`exec.rs`) calls [`exec_data`] for every instruction that
//! is not control flow or synchronisation, and another executor (the sm_50
//! machine-form loop, a test loop) uses the public API below, which needs no
//! scheduler:
//!
//! - [`Setup::new`] (in `launch.rs`, beside the launch it mirrors)
//!   validates a launch and lays out its parameters, as
//!   [`crate::Device::launch`] does; [`Setup::cta`] / [`Setup::ctas`] give the
//!   CTAs, [`Setup::new_warp`] a warp of a CTA with its thread ids and the
//!   kernel's entry frame (index 0), [`Setup::shared`] a CTA's shared memory,
//!   [`Setup::env`] the [`DataEnv`] the instructions read.
//! - [`op_class`] says which instructions are data flow ([`OpClass::Data`]):
//!   those [`step_data`] runs; control flow and synchronisation belong to the
//!   calling loop.
//! - [`guard_mask`] evaluates an instruction's guard predicate per lane.
//! - [`step_data`] executes one data-flow instruction for the lanes of an
//!   active mask (its guard applied) and advances the warp's clock by one.
//!
//! Inside the crate, family handlers live in `arith.rs` (lane-wise ALU,
//! with the float lane kernels of `flanes.rs`),
//! `mem.rs` (loads, stores, atomics, with the whole-warp fast paths) and
//! `warpops.rs` (`activemask`, `vote`, `shfl`); every lane-wise result is
//! computed by the functions of [`ptxsim_sem::alu`] / [`ptxsim_sem::cvt`], or by a
//! fast path property-tested against them (`arith.rs`'s tests).

mod arith;
mod asynccopy;
mod flanes;
mod heapcall;
mod hopper;
mod ilanes;
mod mbarrier;
mod mem;
mod space;
mod tensor;
pub(crate) mod sys;
mod warpops;
mod wmma;

use crate::error::{RunError, Trap, TrapKind};
use crate::lanemem::LaneMem;
use crate::memory::GlobalMemory;
use crate::program::*;
pub use crate::config::{CtaEnv, Geom};
use crate::sreg::SregEnv;
use flanes::Path;
use crate::warp::SPAN_CACHE;
pub use crate::warp::{Frame, Warp};
pub use crate::copies::AsyncCopies;
pub use crate::program::CopySrcSize;
use std::sync::Arc;

/// What a data-flow instruction reads besides its warp and its CTA's
/// shared memory: global memory, the launch's parameters and constant
/// bank, the geometry and the CTA.
#[derive(Clone, Copy)]
pub struct DataEnv<'a> {
    pub global: &'a GlobalMemory,
    pub kparams: &'a [u8],
    pub consts: &'a [u8],
    pub geom: &'a Geom,
    pub cta: &'a CtaEnv,
    /// Where `printf` and failed assertions write ([`Setup::stdout`]).
    pub stdout: &'a crate::stdout::Stdout,
}

/// What kind of work an instruction is, for the loop that runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// Lane-wise data flow, memory and warp operations: [`step_data`] runs it.
    Data,
    /// Changes the pc or the set of running lanes: `bra`, `brx.idx`, `call`,
    /// `ret`, `exit`, `trap`, and an instruction the engine cannot run.
    Control,
    /// Waits for other warps or time: `bar*`, `barrier.cluster.*`, `nanosleep`.
    Sync,
}

/// The class of `op`.
pub fn op_class(op: &Op) -> OpClass {
    match op {
        Op::Bra { .. } | Op::Brx { .. } | Op::Call { .. } | Op::Ret { .. } | Op::Exit | Op::Trap | Op::Unsupported(_) => OpClass::Control,
        Op::Bar { .. } | Op::ClusterArrive | Op::ClusterWait | Op::GridSync { .. } | Op::Nanosleep { .. } => OpClass::Sync,
        _ => OpClass::Data,
    }
}

/// Chooses the lane kernel ([`Kern`]) of every instruction of `prog` that
/// has one: loading a module calls it once, after decoding, so executing
/// an instruction never matches on its modifiers again. The kernels run
/// the CPU's hardware-FMA copy where it has one (`flanes::Path::detect`).
pub(crate) fn attach_kernels(prog: &mut Program) {
    let p = Path::detect();
    for f in &mut prog.functions {
        for i in &mut f.code {
            attach_kernel(p, &mut i.op);
        }
    }
}

/// `op`'s lane kernel for the CPU path `p`.
fn attach_kernel(p: Path, op: &mut Op) {
    match op {
        Op::AccGuard(g) => attach_kernel(p, &mut g.op),
        Op::FBin { op, ty, ftz, sat, rnd, d, a, b, k } => *k = Kern::new(kops(*d, &[a, b]).and_then(|(sh, o)| Some((flanes::select_fbin(p, *op, *ty, *ftz, *sat, *rnd, sh)?, o)))),
        Op::FUn { op, ty, ftz, rnd, d, a, k } => *k = Kern::new(kops(*d, &[a]).and_then(|(sh, o)| Some((flanes::select_fun(p, *op, *ty, *ftz, *rnd, sh)?, o)))),
        Op::Fma { ty, ftz, sat, rnd, d, a, b, c, k } => *k = Kern::new(kops(*d, &[a, b, c]).and_then(|(sh, o)| Some((flanes::select_fma(p, *ty, *ftz, *sat, *rnd, sh)?, o)))),
        Op::Setp { cmp, ty, ftz, a, b, k, .. } | Op::Set { cmp, ty, ftz, a, b, k, .. } => *k = Kern::new(kops(0, &[a, b]).and_then(|(sh, o)| Some((arith::select_cmp(p, *cmp, *ty, *ftz, sh)?, o)))),
        Op::IBin { op, ty, d, a, b, k } => *k = Kern::new(kops(*d, &[a, b]).and_then(|(sh, o)| Some((ilanes::select_ibin(p, *op, *ty, sh)?, o)))),
        Op::Mad { hi, wide, sat, ty, d, a, b, c, k } => *k = Kern::new(kops(*d, &[a, b, c]).and_then(|(sh, o)| Some((ilanes::select_mad(p, (*hi, *wide, *sat), *ty, sh)?, o)))),
        Op::Cvt { dst, src, rnd, sat, ftz, d, a, k } => *k = Kern::new(kops(*d, &[a]).and_then(|(sh, o)| Some((flanes::select_cvt(p, *dst, *src, *rnd, *sat, *ftz, sh)?, o)))),
        _ => {}
    }
}

/// The shape and operands of a lane kernel with destination `d` and
/// sources `srcs`: bit i of the shape says source i is an immediate (the
/// unused ones count as immediates), the operands hold `d`, then each
/// source's register index or immediate value. `None` when a source is
/// neither (a special register, a frame address): such an instruction
/// runs lane by lane.
fn kops(d: u32, srcs: &[&mut Src]) -> Option<(u8, KOps)> {
    let mut sh = 0u8;
    let mut o = [d as u64, 0, 0, 0];
    for i in 0..3 {
        match srcs.get(i).map(|s| &**s) {
            Some(Src::Reg(r)) => o[i + 1] = *r as u64,
            Some(Src::Imm(v)) => {
                sh |= 1 << i;
                o[i + 1] = *v;
            }
            None => sh |= 1 << i,
            Some(_) => return None,
        }
    }
    Some((sh, flanes::with_aliases(o, sh)))
}

/// The lanes of `active` on which guard `g` holds (all of them without one).
#[inline(always)]
pub fn guard_mask(frame: &Frame, g: Option<Guard>, active: u32) -> u32 {
    match g {
        None => active,
        Some(g) => {
            let v = frame.preds[g.slot as usize];
            if g.neg {
                active & !v
            } else {
                active & v
            }
        }
    }
}

/// A validated launch: the program, the kernel, its parameter buffer and
/// the geometry, with which a loop builds CTAs and warps.
pub struct Setup {
    pub program: Arc<Program>,
    pub kernel: FuncId,
    pub kparams: Vec<u8>,
    pub consts: Arc<Vec<u8>>,
    pub geom: Geom,
    /// Local memory bytes per thread.
    pub local_limit: u32,
    /// Where `printf` and failed assertions write: `cfg.stdout`, or a
    /// collector of its own (read it with [`crate::Stdout::take`]).
    pub stdout: Arc<crate::stdout::Stdout>,
}

impl Setup {
    /// The CTA at `ctaid` (which must lie inside the grid).
    pub fn cta(&self, ctaid: [u32; 3]) -> CtaEnv {
        let cl = self.geom.cluster.map(|c| c.max(1));
        let cluster_id = [ctaid[0] / cl[0], ctaid[1] / cl[1], ctaid[2] / cl[2]];
        let cluster_ctaid = [ctaid[0] % cl[0], ctaid[1] % cl[1], ctaid[2] % cl[2]];
        let rank = cluster_ctaid[0] + cl[0] * (cluster_ctaid[1] + cl[1] * cluster_ctaid[2]);
        CtaEnv { ctaid, cluster_id, cluster_ctaid, rank }
    }

    /// Every CTA of the grid, x fastest.
    pub fn ctas(&self) -> impl Iterator<Item = CtaEnv> + '_ {
        let g = self.geom.grid;
        (0..g[2]).flat_map(move |z| (0..g[1]).flat_map(move |y| (0..g[0]).map(move |x| self.cta([x, y, z]))))
    }

    /// A CTA's shared memory, zeroed.
    pub fn shared(&self) -> Vec<u8> {
        vec![0; self.geom.total_smem as usize]
    }

    /// Warp `index` of a CTA: its lanes' thread ids, and the kernel's entry
    /// frame (frame 0) with zeroed registers. Lanes past the end of the
    /// block are not in [`Warp::valid`].
    pub fn new_warp(&self, index: u32) -> Result<Warp, RunError> {
        let b = self.geom.block;
        let threads = b[0] * b[1] * b[2];
        let t0 = index.checked_mul(32).filter(|t| *t < threads).ok_or_else(|| RunError::new(TrapKind::InvalidLaunch, format!("a CTA has {} warps; there is no warp {index}", self.geom.nwarps)))?;
        let n = (threads - t0).min(32);
        let valid = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut w = Warp::new(index, valid, [[0; 32]; 3], self.local_limit);
        w.fill_tid(b, t0);
        w.push_frame(&self.program, self.kernel, valid, crate::warp::NO_FRAME, 0, 0).map_err(|t| RunError::new(t.kind, t.message))?;
        Ok(w)
    }
}

/// Executes the data-flow instruction `ins` for the lanes of `active` (its
/// guard applied) in frame `frame` of `warp`, whose CTA's shared memory is
/// `shared`, and counts one instruction on the warp's clock.
///
/// An instruction that is not [`OpClass::Data`] is an error: the calling
/// loop runs control flow and synchronisation itself. A trap (an
/// out-of-bounds access, a division by zero) is a [`RunError`] with the
/// lane it happened in.
pub fn step_data(env: &DataEnv<'_>, shared: &mut [u8], warp: &mut Warp, frame: u32, ins: &Instr, active: u32) -> Result<(), RunError> {
    if op_class(&ins.op) != OpClass::Data {
        return Err(RunError::new(TrapKind::Unsupported, "not a data-flow instruction: the calling loop runs control flow and synchronisation"));
    }
    let r = with_lanes(env, shared, warp, frame, |cx, fr| {
        let m = guard_mask(fr, ins.guard, active);
        exec_data(cx, fr, &ins.op, 0, active, m)
    });
    warp.instrs += 1;
    r.map(|_| ())
}

/// Runs `f` on live frame `frame` of `warp` and the data path's view of
/// everything else the instruction may reach (`env`'s memories, the CTA's
/// `shared` memory, the warp's local memory, special registers and
/// clock), for an executor loop other than the PTX one. A trap becomes a
/// [`RunError`] with its lane.
pub(crate) fn with_lanes<R>(env: &DataEnv<'_>, shared: &mut [u8], warp: &mut Warp, frame: u32, f: impl FnOnce(&mut Lanes<'_>, &mut Frame) -> Result<R, Trap>) -> Result<R, RunError> {
    let clock = warp.instrs + warp.sleep_ns;
    let live = warp.valid & !warp.exited;
    let Warp { frames, local, local_top, tid, stores, id, span_cache, copies, .. } = warp;
    let fr = frames.get_mut(frame as usize).filter(|f| f.alive).ok_or_else(|| RunError::new(TrapKind::Unsupported, format!("frame {frame} is not a live frame of the warp")))?;
    let mut cx = Lanes {
        mem: LaneMem { global: env.global, consts: env.consts, kparams: env.kparams, shared, local, local_top, peers: crate::lanemem::Peers::none() },
        sregs: SregEnv { geom: env.geom, cta: env.cta, tid, warp_id: *id },
        local_base: fr.local_base as u64,
        clock,
        stores,
        span_cache,
        live,
        copies,
        stdout: env.stdout,
    };
    f(&mut cx, fr).map_err(|t| RunError::new(t.kind, t.message).with_lane(t.lane))
}

/// The state a data-flow instruction works on besides its frame's
/// registers: memory, special-register inputs, the frame's local base, the
/// clock, and the warp's store counter and whole-warp access cache.
pub(crate) struct Lanes<'a> {
    pub mem: LaneMem<'a>,
    pub sregs: SregEnv<'a>,
    pub local_base: u64,
    /// The warp's virtual clock at this instruction.
    pub clock: u64,
    /// Stores and changing atomics of the warp (spin detection).
    pub stores: &'a mut u64,
    pub span_cache: &'a mut [usize; SPAN_CACHE],
    /// The warp's lanes that have not exited (inside the block): the lanes
    /// a `.sync` collective's membermask may name.
    pub live: u32,
    /// The warp's `cp.async` copies not yet waited for.
    pub copies: &'a mut AsyncCopies,
    /// Where `printf` and failed assertions write.
    pub stdout: &'a crate::stdout::Stdout,
}

/// A source operand (`&Src`) as a 32-lane array: borrows a register in place, or
/// materialises an immediate, frame address or special register into the
/// scratch array `$t` (left unset until needed: zeroing costs stores).
macro_rules! fetch {
    ($cx:expr, $regs:expr, $s:expr, $t:ident) => {
        match $s {
            Src::Reg(r) => &$regs[*r as usize],
            Src::Imm(v) => {
                $t = [*v; 32];
                &$t
            }
            Src::LocalAddr(o) => {
                $t = [$cx.local_base + *o as u64; 32];
                &$t
            }
            Src::Sreg(s) => {
                $t = crate::sreg::lanes(*s, &$cx.sregs, $cx.clock);
                &$t
            }
        }
    };
}

/// A source operand (`&Src`) for the lane kernels of `lanes.rs`: registers by slot,
/// immediates, frame addresses and warp-uniform special registers as
/// values, `%tid` borrowed, other special registers materialised in `$t`.
macro_rules! opnd {
    ($cx:expr, $s:expr, $t:ident) => {
        match $s {
            Src::Reg(r) => Opnd::Reg(*r as usize),
            Src::Imm(v) => Opnd::Imm(*v),
            Src::LocalAddr(o) => Opnd::Imm($cx.local_base + *o as u64),
            Src::Sreg(Sreg::Tid(d)) => Opnd::Arr(&$cx.sregs.tid[*d as usize]),
            Src::Sreg(s) => match crate::sreg::uniform(*s, &$cx.sregs) {
                Some(v) => Opnd::Imm(v),
                None => {
                    $t = crate::sreg::lanes(*s, &$cx.sregs, $cx.clock);
                    Opnd::Arr(&$t)
                }
            },
        }
    };
}
pub(crate) use {fetch, opnd};

/// One source operand's per-lane values (for loops outside the hot path).
#[inline]
pub(crate) fn src_lanes(cx: &Lanes<'_>, regs: &[[u64; 32]], s: &Src) -> [u64; 32] {
    let t;
    *fetch!(cx, regs, s, t)
}

/// The lanes on which predicate source `p` is true.
#[inline(always)]
pub(crate) fn psrc(preds: &[u32], p: PSrc) -> u32 {
    match p {
        PSrc::Reg { slot, neg } => {
            let v = preds[slot as usize];
            if neg {
                !v
            } else {
                v
            }
        }
        PSrc::Const(b) => {
            if b {
                u32::MAX
            } else {
                0
            }
        }
    }
}

/// Sets predicate `slot` to `val` on the lanes of `m`.
#[inline(always)]
pub(crate) fn set_pred(preds: &mut [u32], slot: u32, val: u32, m: u32) {
    let p = &mut preds[slot as usize];
    *p = (*p & !m) | (val & m);
}

/// Executes data-flow instruction `op` at `pc` of frame `fr` on the lanes of
/// `m` (guard-true lanes of the running lanes `active`); `Ok(false)` when
/// `op` is not data flow (the caller runs it). One match serves both, so
/// the PTX loop dispatches a data-flow instruction with one jump.
#[inline(always)]
pub(crate) fn exec_data(cx: &mut Lanes<'_>, fr: &mut Frame, op: &Op, pc: u32, active: u32, m: u32) -> Result<bool, Trap> {
    match op {
        Op::Mov { d, a, bits } => arith::mov(cx, fr, m, *d, a, *bits),
        Op::IBin { op, ty, d, a, b, k } => arith::ibin(cx, fr, m, k, (*op, *ty), *d, [a, b])?,
        Op::IUn { op, ty, d, a } => arith::iun(cx, fr, m, *op, *ty, *d, a),
        Op::Mad { hi, wide, sat, ty, d, a, b, c, k } => arith::mad(cx, fr, m, k, ((*hi, *wide, *sat), *ty), *d, [a, b, c]),
        Op::Bfe { ty, d, a, b, c } => arith::bfe(cx, fr, m, *ty, *d, [a, b, c]),
        Op::Bits { op, d, a, b, c } => arith::bits(cx, fr, m, *op, *d, [a, b, c]),
        Op::Lop3P { lut, or, d, p, a, b, c, q } => arith::lop3_pred(cx, fr, m, (*lut, *or), (*d, *p), [a, b, c], *q),
        Op::Carry { kind, ty, cin, cout, cf, d, a, b, c } => arith::carry(cx, fr, m, (*kind, *ty), (*cin, *cout, *cf), *d, [a, b, c]),
        Op::Lane3 { op, d, a, b, c } => arith::lane3(cx, fr, m, *op, *d, [a, b, c])?,
        Op::Testp { op, f64, p, a } => arith::testp(cx, fr, m, (*op, *f64), *p, a),
        Op::Isspacep { space, cluster, p, a, off } => space::isspacep(cx, fr, m, (*space, *cluster), *p, (a, *off)),
        Op::Mapa { generic, bits, d, a, off, b } => space::mapa(cx, fr, m, (*generic, *bits), *d, (a, *off), b)?,
        Op::Getctarank { generic, bits, d, a, off } => space::getctarank(cx, fr, m, (*generic, *bits), *d, (a, *off))?,
        Op::Half2 { op, ty, ftz, sat, d, a, b, c } => arith::half2(cx, fr, m, (*op, *ty, *ftz, *sat), *d, [a, b, c]),
        Op::FmaRelu { ty, ftz, d, a, b, c } => arith::fma_relu(cx, fr, m, (*ty, *ftz), *d, [a, b, c]),
        Op::CreatePolicy { d } => arith::mov(cx, fr, m, *d, &Src::Imm(ptxsim_sem::alu::ext::CACHE_POLICY), 64),
        Op::Bfi { bits, d, f, b, c, e } => arith::bfi(cx, fr, m, *bits, *d, [f, b, c, e]),
        Op::Prmt { d, a, b, c } => arith::prmt(cx, fr, m, *d, [a, b, c]),
        Op::PrmtMode { mode, d, a, b, c } => arith::prmt_mode(cx, fr, m, *mode, *d, [a, b, c]),
        Op::CvtTf32 { satfinite, d, a } => arith::cvt_tf32(cx, fr, m, *satfinite, *d, a),
        Op::FBin { op, ty, ftz, sat, rnd, d, a, b, k } => arith::fbin(cx, fr, m, k, (*op, *ty, (*ftz, *sat, *rnd)), *d, [a, b]),
        Op::FUn { op, ty, ftz, rnd, d, a, k } => arith::fun(cx, fr, m, k, (*op, *ty, *ftz, *rnd), *d, a),
        Op::Fma { ty, ftz, sat, rnd, d, a, b, c, k } => arith::fma(cx, fr, m, k, (*ty, (*ftz, *sat, *rnd)), *d, [a, b, c]),
        Op::Setp { cmp, ty, ftz, p, q, a, b, comb, k } => arith::setp(cx, fr, m, k, ((*cmp, *ty, *ftz), *comb), (*p, *q), [a, b]),
        Op::Set { cmp, ty, ftz, one, d, a, b, comb, k } => arith::set(cx, fr, m, k, ((*cmp, *ty, *ftz), *comb), (*one, *d), [a, b]),
        Op::SetpX2 { cmp, ty, ftz, p, q, a, b, comb } => arith::setp_x2(cx, fr, m, ((*cmp, *ty, *ftz), *comb), (*p, *q), [a, b]),
        Op::SetX2 { cmp, ty, ftz, one, d, a, b, comb } => arith::set_x2(cx, fr, m, ((*cmp, *ty, *ftz), *comb), (*one, *d), [a, b]),
        Op::Selp { bits, d, a, b, c } => arith::selp(cx, fr, m, *bits, *d, ([a, b], *c)),
        Op::Slct { bits, cf, d, a, b, c } => arith::slct(cx, fr, m, *bits, *cf, *d, [a, b, c]),
        Op::PredLogic { op, d, a, b } => arith::pred_logic(fr, m, *op, *d, *a, *b),
        Op::Pack { d, parts, part_bits } => arith::pack(cx, fr, m, *d, parts, *part_bits),
        Op::Unpack { ds, a, part_bits } => arith::unpack(cx, fr, m, ds, a, *part_bits),
        Op::Cvt { dst, src, rnd, sat, ftz, d, a, k } => arith::cvt(cx, fr, m, k, ((*dst, *src), (*rnd, *sat, *ftz)), *d, a),
        Op::Cvta { to, space, bits, d, a } => arith::cvta(cx, fr, m, (*to, *space, *bits), *d, a),
        Op::Ld { space, size, signed, ds, addr } if !cx.copies.idle() => {
            asynccopy::check_access(cx, fr, m, *space, *addr, *size as u64 * ds.len() as u64, false)?;
            mem::ld(cx, fr, m, pc, (*space, *size, *signed), ds, *addr)?
        }
        Op::St { space, size, srcs, addr } if !cx.copies.idle() => {
            asynccopy::check_access(cx, fr, m, *space, *addr, *size as u64 * srcs.len() as u64, true)?;
            mem::st(cx, fr, m, pc, (*space, *size), srcs, *addr)?
        }
        Op::Atom { space, op, ty, d, addr, b, c } if !cx.copies.idle() => {
            let bytes = ty.bytes();
            asynccopy::check_access(cx, fr, m, *space, *addr, bytes as u64, true)?;
            mem::atom(cx, fr, m, (*space, *op, *ty), *d, *addr, [b, c])?
        }
        Op::AtomVec { space, op, ty, ds, addr, bs } if !cx.copies.idle() => {
            let bytes = ty.bytes();
            asynccopy::check_access(cx, fr, m, *space, *addr, bytes as u64 * bs.len() as u64, true)?;
            mem::atom_vec(cx, fr, m, (*space, *op, *ty), ds, *addr, bs)?
        }
        Op::CpAsync { dst, src, cp_size, size } => asynccopy::cp_async(cx, fr, m, *dst, *src, *cp_size, *size)?,
        Op::BulkReduce { dst, src, size, mbar, op, ty } => mem::bulk_reduce(cx, fr, m, *dst, (*src, size), *mbar, (*op, *ty))?,
        Op::BulkCopy { dst, src, size, mbar, mask } => mem::bulk_copy(cx, fr, m, *dst, *src, size, (*mbar, mask.as_ref()))?,
        Op::StAsync { size, srcs, addr, mbar } => mem::st_async(cx, fr, m, pc, (*size, srcs), (*addr, *mbar))?,
        Op::RedAsync { op, ty, addr, b, mbar } => mem::red_async(cx, fr, m, (*op, *ty), (*addr, b), *mbar)?,
        Op::CpAsyncCommit => cx.copies.commit(m),
        Op::CpAsyncWait { n, all } => {
            if *all {
                cx.copies.commit(m);
            }
            cx.copies.wait(m, *n as u64)
        }
        Op::Ldmatrix { trans, space, ds, addr } => tensor::ldmatrix(cx, fr, m, *trans, *space, ds, *addr)?,
        Op::Stmatrix { trans, space, srcs, addr } => tensor::stmatrix(cx, fr, m, *trans, *space, srcs, *addr)?,
        Op::Movmatrix { d, a } => tensor::movmatrix(cx, fr, m, *d, a)?,
        Op::Mma(x) => tensor::mma(cx, fr, m, x)?,
        Op::Wgmma(x) => {
            hopper::wgmma(cx, fr, m, x)?;
            if m != 0 {
                cx.copies.wgmma_issue(&x.d);
            }
        }
        Op::WgmmaCommit => cx.copies.wgmma_commit(),
        Op::WgmmaWait { n } => cx.copies.wgmma_wait(*n as u64),
        Op::AccGuard(g) => {
            if m != 0 {
                cx.copies.acc_check(m, &g.regs, &g.names)?;
            }
            return exec_data(cx, fr, &g.op, pc, active, m);
        }
        Op::BulkTensor(x) => hopper::bulk_tensor(cx, fr, m, x)?,
        Op::TensormapReplace(x) => hopper::tensormap_replace(cx, fr, m, x)?,
        Op::TensormapCopy { dst, src } => hopper::tensormap_copy(cx, fr, m, *dst, *src)?,
        Op::WmmaLoad { f, space, ds, addr, stride } => wmma::load(cx, fr, m, f, ds, (*space, *addr, stride))?,
        Op::WmmaStore { f, space, srcs, addr, stride } => wmma::store_d(cx, fr, m, f, srcs, (*space, *addr, stride))?,
        Op::WmmaMma(x) => wmma::mma(cx, fr, m, x)?,
        Op::Mbarrier { op, d, space, addr, a } => mbarrier::mbarrier(cx, fr, m, (*op, *d), (*space, *addr), a)?,
        Op::Ld { space, size, signed, ds, addr } => mem::ld(cx, fr, m, pc, (*space, *size, *signed), ds, *addr)?,
        Op::St { space, size, srcs, addr } => mem::st(cx, fr, m, pc, (*space, *size), srcs, *addr)?,
        Op::Atom { space, op, ty, d, addr, b, c } => mem::atom(cx, fr, m, (*space, *op, *ty), *d, *addr, [b, c])?,
        Op::AtomVec { space, op, ty, ds, addr, bs } => mem::atom_vec(cx, fr, m, (*space, *op, *ty), ds, *addr, bs)?,
        Op::Activemask { d } => warpops::activemask(fr, active, m, *d),
        Op::Vote { mode, d, a, membermask } => warpops::vote(cx, fr, m, *mode, *d, *a, membermask),
        Op::Shfl { mode, d, p, a, b, c, .. } => warpops::shfl(cx, fr, m, *mode, (*d, *p), [a, b, c]),
        Op::MatchSync { all, bits, d, p, a, membermask } => warpops::match_sync(cx, fr, m, (*all, *bits), (*d, *p), [a, membermask])?,
        Op::ReduxSync { op, d, a, membermask } => warpops::redux_sync(cx, fr, m, *op, *d, a, membermask)?,
        Op::ElectSync { d, p, membermask } => warpops::elect_sync(cx, fr, m, (*d, *p), membermask)?,
        Op::Printf { fmt, args, ret } => sys::printf(cx, fr, m, fmt, args, ret.as_ref())?,
        Op::AssertFail { args } => sys::assert_fail(cx, fr, m, args)?,
        Op::DevRt { f, args, ret } => sys::devrt(cx, fr, m, *f, args, ret.as_ref())?,
        Op::Malloc { size, ret } => heapcall::malloc(cx, fr, m, size, ret.as_ref())?,
        Op::Free { ptr } => heapcall::free(cx, fr, m, ptr)?,
        Op::Nop => {}
        Op::Fence => std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst),
        Op::Bra { .. }
        | Op::Brx { .. }
        | Op::Call { .. }
        | Op::Ret { .. }
        | Op::Exit
        | Op::Trap
        | Op::Bar { .. }
        | Op::ClusterArrive
        | Op::ClusterWait
        | Op::GridSync { .. }
        | Op::Nanosleep { .. }
        | Op::Unsupported(_) => return Ok(false),
    }
    Ok(true)
}
