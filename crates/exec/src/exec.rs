//! The dispatch loop: runs one group of lanes (a mask at one pc in one
//! frame) straight through, one warp instruction per iteration, until an
//! event the scheduler must handle (divergence, call, return, exit,
//! barrier, sleep), a stop pc (the reconvergence point), or the end of the
//! slice of fuel. Both scheduling modes share it.
//!
//! Dispatch costs once per warp instruction: operands are fetched as
//! 32-lane arrays and each operation is a lane loop the compiler can
//! vectorise; results are blended into the destination under the mask.

use crate::alu::{self, FTy, IBinOp, ITy};
use crate::error::{Trap, TrapKind};
use crate::lanes::{apply1, apply2, apply3, splat, test2, Opnd};
use crate::memory::{classify, GlobalMemory, Window, CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
use crate::program::*;
use crate::warp::{lanes, Stats, Warp, FULL, SPAN_CACHE};
use std::sync::atomic::AtomicU64;

/// Launch-wide read-only context.
pub(crate) struct Ctx<'a> {
    pub prog: &'a Program,
    pub global: &'a GlobalMemory,
    pub kparams: &'a [u8],
    pub consts: &'a [u8],
    pub geom: &'a Geom,
    /// Bumped on every global store/atomic: spin detection uses it.
    pub write_epoch: &'a AtomicU64,
}

/// Launch geometry.
#[derive(Clone, Debug)]
pub(crate) struct Geom {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub cluster: [u32; 3],
    pub explicit_cluster: bool,
    pub dyn_smem: u32,
    pub total_smem: u32,
    pub max_depth: u32,
    pub nwarps: u32,
}

/// Per-CTA facts for special registers.
#[derive(Clone, Debug)]
pub(crate) struct CtaEnv {
    pub ctaid: [u32; 3],
    pub cluster_id: [u32; 3],
    pub cluster_ctaid: [u32; 3],
    pub rank: u32,
}

/// Why the dispatch loop stopped.
#[derive(Debug)]
pub(crate) enum Event {
    Stop,
    Yield,
    /// Taken branch while other lanes wait elsewhere (ITS rescheduling point);
    /// `pc` already holds the new pc.
    Branched,
    Diverge { taken: u32, target: u32 },
    Brx { groups: Vec<(u32, u32)> },
    Call { groups: Vec<(FuncId, u32)> },
    Ret { mask: u32 },
    Exit { mask: u32 },
    Bar { mask: u32 },
    ClusterArrive { mask: u32 },
    ClusterWait { mask: u32 },
    Sleep { ns: u64 },
}

#[inline(always)]
fn write_masked(dst: &mut [u64; 32], r: &[u64; 32], m: u32) {
    if m == FULL {
        *dst = *r;
    } else {
        for l in 0..32 {
            if m >> l & 1 != 0 {
                dst[l] = r[l];
            }
        }
    }
}

#[inline(always)]
fn map1(a: &[u64; 32], f: impl Fn(u64) -> u64) -> [u64; 32] {
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = f(a[l]);
    }
    r
}

#[inline(always)]
fn map2(a: &[u64; 32], b: &[u64; 32], f: impl Fn(u64, u64) -> u64) -> [u64; 32] {
    let mut r = [0u64; 32];
    for l in 0..32 {
        r[l] = f(a[l], b[l]);
    }
    r
}

#[inline(always)]
fn ib(op: IBinOp, ty: ITy, a: u64, b: u64) -> u64 {
    alu::ibin(op, ty, a, b).unwrap_or(0)
}

#[inline(always)]
fn psrc(preds: &[u32], p: PSrc) -> u32 {
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
                FULL
            } else {
                0
            }
        }
    }
}

#[inline(always)]
fn set_pred(preds: &mut [u32], slot: u32, val: u32, m: u32) {
    let p = &mut preds[slot as usize];
    *p = (*p & !m) | (val & m);
}

const LANE_IDS: [u64; 32] = {
    let mut a = [0u64; 32];
    let mut i = 0;
    while i < 32 {
        a[i] = i as u64;
        i += 1;
    }
    a
};

/// Runs lanes `mask` of `warp` in frame `fi` from `*pc`.
///
/// The pc and the fuel left are kept in locals while it runs, and the
/// instruction counters (the warp's clock, the launch statistics) are
/// settled once at the end from the fuel it used: one warp instruction per
/// unit of fuel.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_group(
    ctx: &Ctx<'_>,
    env: &CtaEnv,
    shared: &mut [u8],
    warp: &mut Warp,
    fi: u32,
    pc: &mut u32,
    mask: u32,
    stop: u32,
    budget: &mut u64,
    stats: &mut Stats,
    yield_on_branch: bool,
) -> Result<Event, Trap> {
    let start = *budget;
    let (mut left, mut lpc) = (start, *pc);
    let instrs0 = warp.instrs;
    let r = group_body(ctx, env, shared, warp, fi, &mut lpc, mask, stop, &mut left, instrs0, yield_on_branch);
    *pc = lpc;
    *budget = left;
    let n = start - left;
    warp.instrs += n;
    stats.warp_instructions += n;
    stats.thread_instructions += n * mask.count_ones() as u64;
    r
}

/// The dispatch loop of [`run_group`]; `*budget` counts down from the fuel
/// it started with, so the warp's clock is `instrs0` plus what it used.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn group_body(
    ctx: &Ctx<'_>,
    env: &CtaEnv,
    shared: &mut [u8],
    warp: &mut Warp,
    fi: u32,
    pc: &mut u32,
    mask: u32,
    stop: u32,
    budget: &mut u64,
    instrs0: u64,
    yield_on_branch: bool,
) -> Result<Event, Trap> {
    let start = *budget;
    let Warp { frames, local, local_top, tid, sleep_ns, stores, id: warp_id, span_cache, .. } = warp;
    let fr = &mut frames[fi as usize];
    let func = fr.func;
    let code = &ctx.prog.functions[func as usize].code;
    let local_base = fr.local_base as u64;
    let geom = ctx.geom;
    let warp_id = *warp_id;

    // Operands are read in place: a register operand borrows the frame's
    // 32-lane array; only immediates, frame addresses and special registers
    // are materialised, into one of four scratch arrays (one per operand
    // position of an instruction).
    // (Left unset until an operand needs one: zeroing them would cost a
    // kilobyte of stores per call.)
    let (mut t0, mut t1, mut t2, mut t3): ([u64; 32], [u64; 32], [u64; 32], [u64; 32]);
    // The base of an address operand, borrowed like `fetch!` (scratch `t3`).
    macro_rules! abase {
        ($addr:expr) => {
            match $addr.base {
                AddrBase::Reg(r) => &fr.regs[r as usize],
                AddrBase::None => {
                    t3 = [0; 32];
                    &t3
                }
                AddrBase::Frame => {
                    t3 = [local_base; 32];
                    &t3
                }
            }
        };
    }
    macro_rules! fetch {
        ($s:expr, $t:ident) => {
            match $s {
                Src::Reg(r) => &fr.regs[r as usize],
                Src::Imm(v) => {
                    $t = [v; 32];
                    &$t
                }
                Src::LocalAddr(o) => {
                    $t = [local_base + o as u64; 32];
                    &$t
                }
                Src::Sreg(s) => {
                    $t = sreg(s, env, geom, tid, warp_id, instrs0 + (start - *budget) + *sleep_ns);
                    &$t
                }
            }
        };
    }

    // A source resolved for the lane kernels: registers by slot, immediates
    // and frame addresses as splats; special registers materialised.
    macro_rules! opnd {
        ($s:expr, $t:ident) => {
            match $s {
                Src::Reg(r) => Opnd::Reg(r as usize),
                Src::Imm(v) => Opnd::Imm(v),
                Src::LocalAddr(o) => Opnd::Imm(local_base + o as u64),
                Src::Sreg(Sreg::Tid(d)) => Opnd::Arr(&tid[d as usize]),
                Src::Sreg(s) if uniform_sreg(s) => Opnd::Imm(sreg_uniform(s, env, geom, warp_id)),
                Src::Sreg(s) => {
                    $t = sreg(s, env, geom, tid, warp_id, instrs0 + (start - *budget) + *sleep_ns);
                    Opnd::Arr(&$t)
                }
            }
        };
    }

    loop {
        let p = *pc;
        if p == stop {
            return Ok(Event::Stop);
        }
        let Some(ins) = code.get(p as usize) else {
            return Ok(Event::Ret { mask });
        };
        if *budget == 0 {
            return Ok(Event::Yield);
        }
        *budget -= 1;
        let m = match ins.guard {
            None => mask,
            Some(g) => {
                let v = fr.preds[g.slot as usize];
                if g.neg {
                    mask & !v
                } else {
                    mask & v
                }
            }
        };
        match &ins.op {
            Op::Mov { d, a, bits } => {
                let mk = if *bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                match opnd!(*a, t0) {
                    Opnd::Imm(v) => splat(&mut fr.regs, *d as usize, m, v & mk),
                    a => apply1(&mut fr.regs, *d as usize, m, a, |x| x & mk),
                }
            }
            Op::IBin { op, ty, d, a, b } if !matches!(op, IBinOp::Div | IBinOp::Rem) => {
                let (ty, av, bv) = (*ty, opnd!(*a, t0), opnd!(*b, t1));
                let mk = ty.mask();
                let (regs, d) = (&mut fr.regs, *d as usize);
                match op {
                    IBinOp::Add => apply2(regs, d, m, av, bv, |x, y| x.wrapping_add(y) & mk),
                    IBinOp::Sub => apply2(regs, d, m, av, bv, |x, y| x.wrapping_sub(y) & mk),
                    // Operands cut to 32 bits first: the product of two
                    // zero-extended halves vectorises as one `pmuludq`.
                    IBinOp::MulLo if ty.bits <= 32 => apply2(regs, d, m, av, bv, |x, y| (x & 0xffff_ffff).wrapping_mul(y & 0xffff_ffff) & mk),
                    IBinOp::MulLo => apply2(regs, d, m, av, bv, |x, y| x.wrapping_mul(y) & mk),
                    IBinOp::MulWide if ty.bits <= 32 && !ty.signed => apply2(regs, d, m, av, bv, |x, y| (x & mk) * (y & mk)),
                    IBinOp::MulWide => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::MulWide, ty, x, y)),
                    IBinOp::MulHi => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::MulHi, ty, x, y)),
                    IBinOp::And => apply2(regs, d, m, av, bv, |x, y| x & y & mk),
                    IBinOp::Or => apply2(regs, d, m, av, bv, |x, y| (x | y) & mk),
                    IBinOp::Xor => apply2(regs, d, m, av, bv, |x, y| (x ^ y) & mk),
                    IBinOp::Shl => match bv {
                        Opnd::Imm(s) if s < ty.bits as u64 => apply1(regs, d, m, av, |x| (x << s) & mk),
                        _ => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::Shl, ty, x, y)),
                    },
                    IBinOp::Shr => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::Shr, ty, x, y)),
                    IBinOp::Min => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::Min, ty, x, y)),
                    IBinOp::Max => apply2(regs, d, m, av, bv, |x, y| ib(IBinOp::Max, ty, x, y)),
                    other => apply2(regs, d, m, av, bv, |x, y| ib(*other, ty, x, y)),
                }
            }
            Op::IBin { op, ty, d, a, b } => {
                let (ty, av, bv) = (*ty, fetch!(*a, t0), fetch!(*b, t1));
                let r = match op {
                    IBinOp::Div | IBinOp::Rem if ty.bits <= 64 => {
                        // Native-width division (no 128-bit arithmetic): the
                        // same values as `alu::ibin`, wrapping MIN / -1 included.
                        let (mk, div) = (ty.mask(), *op == IBinOp::Div);
                        let mut r = [0u64; 32];
                        for l in lanes(m) {
                            let (x, y) = (av[l], bv[l]);
                            if y & mk == 0 {
                                return Err(Trap::lane(
                                    TrapKind::DivideByZero,
                                    l as u32,
                                    format!("integer {} by zero (the result is unspecified in PTX)", if div { "division" } else { "remainder" }),
                                ));
                            }
                            r[l] = if ty.signed {
                                let (x, y) = (alu::sext(x, ty.bits), alu::sext(y, ty.bits));
                                (if div { x.wrapping_div(y) } else { x.wrapping_rem(y) }) as u64 & mk
                            } else {
                                let (x, y) = (x & mk, y & mk);
                                if div {
                                    x / y
                                } else {
                                    x % y
                                }
                            };
                        }
                        r
                    }
                    IBinOp::Div | IBinOp::Rem => {
                        let mut r = [0u64; 32];
                        for l in lanes(m) {
                            r[l] = alu::ibin(*op, ty, av[l], bv[l]).map_err(|_| {
                                Trap::lane(
                                    TrapKind::DivideByZero,
                                    l as u32,
                                    format!("integer {} by zero (the result is unspecified in PTX)", if *op == IBinOp::Div { "division" } else { "remainder" }),
                                )
                            })?;
                        }
                        r
                    }
                    other => map2(av, bv, |x, y| ib(*other, ty, x, y)),
                };
                write_masked(&mut fr.regs[*d as usize], &r, m);
            }
            Op::IUn { op, ty, d, a } => {
                let av = opnd!(*a, t0);
                apply1(&mut fr.regs, *d as usize, m, av, |x| alu::iun(*op, *ty, x));
            }
            Op::Mad { hi, wide, sat, ty, d, a, b, c } => {
                let (av, bv, cv) = (opnd!(*a, t0), opnd!(*b, t1), opnd!(*c, t2));
                let (regs, d, mk) = (&mut fr.regs, *d as usize, ty.mask());
                if !*hi && !*wide && ty.bits <= 32 {
                    apply3(regs, d, m, av, bv, cv, |x, y, z| (x & 0xffff_ffff).wrapping_mul(y & 0xffff_ffff).wrapping_add(z) & mk)
                } else if !*hi && !*wide {
                    apply3(regs, d, m, av, bv, cv, |x, y, z| x.wrapping_mul(y).wrapping_add(z) & mk)
                } else {
                    apply3(regs, d, m, av, bv, cv, |x, y, z| alu::mad(*hi, *wide, *sat, *ty, x, y, z))
                }
            }
            Op::Bfe { ty, d, a, b, c } => {
                let (av, bv, cv) = (opnd!(*a, t0), opnd!(*b, t1), opnd!(*c, t2));
                apply3(&mut fr.regs, *d as usize, m, av, bv, cv, |x, y, z| alu::bfe(*ty, x, y, z));
            }
            Op::Bfi { bits, d, f, b, c, e } => {
                let (fv, bv, cv, ev) = (fetch!(*f, t0), fetch!(*b, t1), fetch!(*c, t2), fetch!(*e, t3));
                let mut r = [0u64; 32];
                for l in 0..32 {
                    r[l] = alu::bfi(*bits, fv[l], bv[l], cv[l], ev[l]);
                }
                write_masked(&mut fr.regs[*d as usize], &r, m);
            }
            Op::Prmt { d, a, b, c } => {
                let (av, bv, cv) = (opnd!(*a, t0), opnd!(*b, t1), opnd!(*c, t2));
                apply3(&mut fr.regs, *d as usize, m, av, bv, cv, alu::prmt);
            }
            Op::FBin { op, ty, ftz, sat, rnd, d, a, b } => {
                let (av, bv) = (opnd!(*a, t0), opnd!(*b, t1));
                let (regs, d) = (&mut fr.regs, *d as usize);
                match (op, ty, ftz, sat) {
                    _ if !matches!(rnd, None | Some(alu::Rounding::Rn)) => apply2(regs, d, m, av, bv, |x, y| alu::fbin_rnd(*op, *ty, *ftz, *sat, *rnd, x, y)),
                    (alu::FBinOp::Add, FTy::F32, false, false) => {
                        apply2(regs, d, m, av, bv, |x, y| alu::fbin(alu::FBinOp::Add, FTy::F32, false, false, x, y))
                    }
                    (alu::FBinOp::Mul, FTy::F32, false, false) => {
                        apply2(regs, d, m, av, bv, |x, y| alu::fbin(alu::FBinOp::Mul, FTy::F32, false, false, x, y))
                    }
                    _ => apply2(regs, d, m, av, bv, |x, y| alu::fbin(*op, *ty, *ftz, *sat, x, y)),
                }
            }
            Op::FUn { op, ty, ftz, rnd, d, a } => {
                let av = opnd!(*a, t0);
                apply1(&mut fr.regs, *d as usize, m, av, |x| alu::fun_rnd(*op, *ty, *ftz, *rnd, x));
            }
            Op::Fma { ty, ftz, sat, rnd, d, a, b, c } => {
                let (av, bv, cv) = (opnd!(*a, t0), opnd!(*b, t1), opnd!(*c, t2));
                apply3(&mut fr.regs, *d as usize, m, av, bv, cv, |x, y, z| alu::fma_rnd(*ty, *ftz, *sat, *rnd, x, y, z));
            }
            Op::Setp { cmp, ty, ftz, p, q, a, b, comb } => {
                let (av, bv) = (opnd!(*a, t0), opnd!(*b, t1));
                let regs = &fr.regs;
                let t: u32;
                match ty {
                    ITyOrF::I(it) => {
                        let it = *it;
                        let mk = it.mask();
                        macro_rules! cmpu {
                            ($op:tt) => {
                                t = test2(regs, av, bv, |x, y| (x & mk) $op (y & mk))
                            };
                        }
                        macro_rules! cmps {
                            ($op:tt) => {
                                t = test2(regs, av, bv, |x, y| alu::sext(x, it.bits) $op alu::sext(y, it.bits))
                            };
                        }
                        use alu::CmpOp as C;
                        match (cmp, it.signed) {
                            (C::Eq, _) => cmpu!(==),
                            (C::Ne, _) => cmpu!(!=),
                            (C::Lt, true) => cmps!(<),
                            (C::Le, true) => cmps!(<=),
                            (C::Gt, true) => cmps!(>),
                            (C::Ge, true) => cmps!(>=),
                            (C::Lt, false) | (C::Lo, _) => cmpu!(<),
                            (C::Le, false) | (C::Ls, _) => cmpu!(<=),
                            (C::Gt, false) | (C::Hi, _) => cmpu!(>),
                            (C::Ge, false) | (C::Hs, _) => cmpu!(>=),
                            _ => t = test2(regs, av, bv, |x, y| alu::icmp(*cmp, it, x, y)),
                        }
                    }
                    ITyOrF::F(f) => t = test2(regs, av, bv, |x, y| alu::fcmp(*cmp, *f, *ftz, x, y)),
                }
                let (pv, qv) = match comb {
                    None => (t, !t),
                    Some((op, c)) => {
                        let cv = psrc(&fr.preds, *c);
                        match op {
                            BoolOp::And => (t & cv, !t & cv),
                            BoolOp::Or => (t | cv, !t | cv),
                            BoolOp::Xor => (t ^ cv, !t ^ cv),
                        }
                    }
                };
                if let Some(p) = p {
                    set_pred(&mut fr.preds, *p, pv, m);
                }
                if let Some(q) = q {
                    set_pred(&mut fr.preds, *q, qv, m);
                }
            }
            Op::Set { cmp, ty, ftz, float_dst, d, a, b, comb } => {
                let (av, bv) = (fetch!(*a, t0), fetch!(*b, t1));
                let cv = comb.map(|(_, c)| psrc(&fr.preds, c)).unwrap_or(0);
                let mut r = [0u64; 32];
                for l in 0..32 {
                    let mut t = match ty {
                        ITyOrF::I(it) => alu::icmp(*cmp, *it, av[l], bv[l]),
                        ITyOrF::F(f) => alu::fcmp(*cmp, *f, *ftz, av[l], bv[l]),
                    };
                    if let Some((op, _)) = comb {
                        let c = cv >> l & 1 == 1;
                        t = match op {
                            BoolOp::And => t && c,
                            BoolOp::Or => t || c,
                            BoolOp::Xor => t ^ c,
                        };
                    }
                    r[l] = match (t, float_dst) {
                        (true, true) => 1.0f32.to_bits() as u64,
                        (false, true) => 0,
                        (true, false) => 0xffff_ffff,
                        (false, false) => 0,
                    };
                }
                write_masked(&mut fr.regs[*d as usize], &r, m);
            }
            Op::Selp { bits, d, a, b, c } => {
                let (av, bv) = (fetch!(*a, t0), fetch!(*b, t1));
                let cv = psrc(&fr.preds, *c);
                let mk = if *bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                let mut r = [0u64; 32];
                for l in 0..32 {
                    r[l] = if cv >> l & 1 == 1 { av[l] } else { bv[l] } & mk;
                }
                write_masked(&mut fr.regs[*d as usize], &r, m);
            }
            Op::Slct { bits, cf, d, a, b, c } => {
                let (av, bv, cv) = (opnd!(*a, t0), opnd!(*b, t1), opnd!(*c, t2));
                let mk = if *bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                apply3(&mut fr.regs, *d as usize, m, av, bv, cv, |x, y, z| {
                    let ge = match cf {
                        Some(ftz) => {
                            let mut f = f32::from_bits(z as u32);
                            if *ftz {
                                f = alu::ftz32(f);
                            }
                            f >= 0.0
                        }
                        None => (z as u32 as i32) >= 0,
                    };
                    if ge {
                        x & mk
                    } else {
                        y & mk
                    }
                });
            }
            Op::PredLogic { op, d, a, b } => {
                let av = psrc(&fr.preds, *a);
                let bv = psrc(&fr.preds, *b);
                let v = match op {
                    PredOp::And => av & bv,
                    PredOp::Or => av | bv,
                    PredOp::Xor => av ^ bv,
                    PredOp::Not => !av,
                    PredOp::Mov => av,
                };
                set_pred(&mut fr.preds, *d, v, m);
            }
            Op::Pack { d, parts, part_bits } => {
                let mut r = [0u64; 32];
                let mk = if *part_bits >= 64 { u64::MAX } else { (1u64 << part_bits) - 1 };
                for (k, s) in parts.iter().enumerate() {
                    let v = fetch!(*s, t0);
                    for l in 0..32 {
                        r[l] |= (v[l] & mk) << (k as u32 * part_bits);
                    }
                }
                write_masked(&mut fr.regs[*d as usize], &r, m);
            }
            Op::Unpack { ds, a, part_bits } => {
                let v = *fetch!(*a, t0);
                let mk = if *part_bits >= 64 { u64::MAX } else { (1u64 << part_bits) - 1 };
                for (k, d) in ds.iter().enumerate() {
                    if let Some(d) = d {
                        let r = map1(&v, |x| (x >> (k as u32 * part_bits)) & mk);
                        write_masked(&mut fr.regs[*d as usize], &r, m);
                    }
                }
            }
            Op::Cvt { dst, src, rnd, sat, ftz, d, a } => {
                let av = opnd!(*a, t0);
                match (dst, src, sat) {
                    // Integer to integer without saturation: sign- or
                    // zero-extend by the source type, cut to the destination.
                    (CvtTy::I(dt), CvtTy::I(st), false) => {
                        let (dm, sm, sb) = (dt.mask(), st.mask(), st.bits);
                        if st.signed {
                            apply1(&mut fr.regs, *d as usize, m, av, |x| alu::sext(x, sb) as u64 & dm)
                        } else {
                            apply1(&mut fr.regs, *d as usize, m, av, |x| x & sm & dm)
                        }
                    }
                    _ => apply1(&mut fr.regs, *d as usize, m, av, |x| crate::cvt::cvt(*dst, *src, *rnd, *sat, *ftz, x)),
                }
            }
            Op::Cvta { to, space, bits, d, a } => {
                let av = opnd!(*a, t0);
                let win = match space {
                    Space::Shared => SHARED_WINDOW,
                    Space::Local => LOCAL_WINDOW,
                    Space::Const => CONST_WINDOW,
                    Space::KernelParam => PARAM_WINDOW,
                    _ => 0,
                };
                let mk = if *bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                if *to {
                    apply1(&mut fr.regs, *d as usize, m, av, |x| x.wrapping_sub(win) & mk);
                } else {
                    apply1(&mut fr.regs, *d as usize, m, av, |x| x.wrapping_add(win) & mk);
                }
            }
            Op::Ld { space, size, signed, ds, addr } if ds.len() == 1 && matches!(space, Space::Global | Space::Generic) => {
                // Fast path: scalar global loads through a cached allocation.
                let base = abase!(addr);
                let mut r = [0u64; 32];
                let sz = *size as u64;
                let off = addr.offset as u64;
                if let Some((al, dense)) = crate::span::warp_span(ctx.global, base, off, m, sz, &mut span_cache[p as usize % SPAN_CACHE]) {
                    // Every lane inside one allocation, aligned: no per-lane
                    // checks. Two neighbouring lanes that read the halves of
                    // one aligned word with 4-byte loads read it once.
                    let ab = al.base;
                    let mut rest = m;
                    if let Some(w0) = dense {
                        // A whole warp of consecutive elements: whole words.
                        rest = 0;
                        if sz == 4 {
                            for (k, w) in al.words[w0..w0 + 16].iter().enumerate() {
                                let w = w.load(std::sync::atomic::Ordering::Relaxed);
                                r[2 * k] = w & 0xffff_ffff;
                                r[2 * k + 1] = w >> 32;
                            }
                        } else {
                            for (k, w) in al.words[w0..w0 + 32].iter().enumerate() {
                                r[k] = w.load(std::sync::atomic::Ordering::Relaxed);
                            }
                        }
                    }
                    while rest != 0 {
                        let l = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let o = base[l].wrapping_add(off) - ab;
                        if sz == 4 && o & 7 == 0 && l < 31 && rest >> (l + 1) & 1 != 0 && base[l + 1].wrapping_add(off) - ab == o + 4 {
                            let w = al.read(o, 8);
                            r[l] = w & 0xffff_ffff;
                            r[l + 1] = w >> 32;
                            rest &= !(1u32 << (l + 1));
                        } else {
                            r[l] = al.read(o, *size);
                        }
                    }
                    if *signed {
                        for v in r.iter_mut() {
                            *v = alu::sext(*v, size * 8) as u64;
                        }
                    }
                    if let Some(d) = ds[0] {
                        crate::lanes::store(&mut fr.regs[d as usize], &r, m);
                    }
                    *pc = p + 1;
                    continue;
                }
                let mut cache = usize::MAX;
                for l in lanes(m) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    if a & (sz - 1) != 0 {
                        check_align(a, *size, l)?;
                    }
                    let v = match ctx.global.allocs.get(cache) {
                        Some(al) if a >= al.base && a - al.base + sz <= al.size => al.read(a - al.base, *size),
                        _ => mem_read(ctx, shared, local, local_top, *space, l, a, *size, &mut cache)?,
                    };
                    r[l] = if *signed { alu::sext(v, size * 8) as u64 } else { v };
                }
                if let Some(d) = ds[0] {
                    write_masked(&mut fr.regs[d as usize], &r, m);
                }
            }
            Op::Ld { space, size, signed, ds, addr }
                if ds.len() == 1 && m != 0 && matches!(space, Space::KernelParam | Space::Const) && matches!(addr.base, AddrBase::None) =>
            {
                // A kernel parameter or constant at a fixed address: the same
                // value for every lane, read once.
                let a = addr.offset as u64;
                let l = m.trailing_zeros() as usize;
                check_align(a, *size, l)?;
                let bytes = if *space == Space::KernelParam { ctx.kparams } else { ctx.consts };
                let v = match crate::memory::read_le(bytes, a, *size) {
                    Some(v) => v,
                    None => {
                        let mut cache = usize::MAX;
                        mem_read(ctx, shared, local, local_top, *space, l, a, *size, &mut cache)?
                    }
                };
                let v = if *signed { alu::sext(v, size * 8) as u64 } else { v };
                if let Some(d) = ds[0] {
                    write_masked(&mut fr.regs[d as usize], &[v; 32], m);
                }
            }
            Op::Ld { space, size, signed, ds, addr } if ds.len() == 1 => {
                let base = abase!(addr);
                let mut r = [0u64; 32];
                let mut cache = usize::MAX;
                for l in lanes(m) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    check_align(a, *size, l)?;
                    let v = mem_read(ctx, shared, local, local_top, *space, l, a, *size, &mut cache)?;
                    r[l] = if *signed { alu::sext(v, size * 8) as u64 } else { v };
                }
                if let Some(d) = ds[0] {
                    write_masked(&mut fr.regs[d as usize], &r, m);
                }
            }
            Op::Ld { space, size, signed, ds, addr } => {
                let base = abase!(addr);
                let n = ds.len() as u32;
                let total = size * n;
                let mut vals = vec![[0u64; 32]; ds.len()];
                let mut cache = usize::MAX;
                for l in lanes(m) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    check_align(a, total, l)?;
                    for k in 0..n {
                        let ea = a + (k * size) as u64;
                        let v = mem_read(ctx, shared, local, local_top, *space, l, ea, *size, &mut cache)?;
                        vals[k as usize][l] = if *signed { alu::sext(v, size * 8) as u64 } else { v };
                    }
                }
                for (k, d) in ds.iter().enumerate() {
                    if let Some(d) = d {
                        write_masked(&mut fr.regs[*d as usize], &vals[k], m);
                    }
                }
            }
            Op::St { space, size, srcs, addr } if srcs.len() == 1 && matches!(space, Space::Global | Space::Generic) => {
                // Fast path: scalar global stores through a cached allocation;
                // two neighbouring lanes that fill one aligned 8-byte word
                // with 4-byte stores write it at once.
                let base = abase!(addr);
                let v = fetch!(srcs[0], t0);
                let sz = *size as u64;
                *stores += 1;
                let off = addr.offset as u64;
                if let Some((al, dense)) = crate::span::warp_span(ctx.global, base, off, m, sz, &mut span_cache[p as usize % SPAN_CACHE]) {
                    // Every lane inside one allocation, aligned: no per-lane checks.
                    let ab = al.base;
                    let mut rest = m;
                    if let Some(w0) = dense {
                        // A whole warp of consecutive elements: whole words.
                        rest = 0;
                        if sz == 4 {
                            for (k, w) in al.words[w0..w0 + 16].iter().enumerate() {
                                w.store((v[2 * k] & 0xffff_ffff) | (v[2 * k + 1] << 32), std::sync::atomic::Ordering::Relaxed);
                            }
                        } else {
                            for (k, w) in al.words[w0..w0 + 32].iter().enumerate() {
                                w.store(v[k], std::sync::atomic::Ordering::Relaxed);
                            }
                        }
                    }
                    while rest != 0 {
                        let l = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let o = base[l].wrapping_add(off) - ab;
                        let pair = l < 31 && rest >> (l + 1) & 1 != 0;
                        if sz == 4 && o & 7 == 0 && pair && o + 8 <= al.size && base[l + 1].wrapping_add(off) - ab == o + 4 {
                            al.write(o, 8, (v[l] & 0xffff_ffff) | (v[l + 1] << 32));
                            rest &= !(1u32 << (l + 1));
                        } else {
                            al.write(o, *size, v[l]);
                        }
                    }
                    *pc = p + 1;
                    continue;
                }
                let mut cache = usize::MAX;
                let mut rest = m;
                while rest != 0 {
                    let l = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let a = base[l].wrapping_add(addr.offset as u64);
                    if a & (sz - 1) != 0 {
                        check_align(a, *size, l)?;
                    }
                    match ctx.global.allocs.get(cache) {
                        Some(al) if a >= al.base && a - al.base + sz <= al.size => {
                            let off = a - al.base;
                            let pair = l < 31 && rest >> (l + 1) & 1 != 0;
                            if sz == 4 && off & 7 == 0 && off + 8 <= al.size && pair && base[l + 1].wrapping_add(addr.offset as u64) == a + 4 {
                                al.write(off, 8, (v[l] & 0xffff_ffff) | (v[l + 1] << 32));
                                rest &= !(1u32 << (l + 1));
                            } else {
                                al.write(off, *size, v[l]);
                            }
                        }
                        _ => mem_write(ctx, shared, local, local_top, *space, l, a, *size, v[l], &mut cache)?,
                    }
                }
            }
            Op::St { space, size, srcs, addr } if srcs.len() == 1 => {
                let base = abase!(addr);
                let v = fetch!(srcs[0], t0);
                let mut cache = usize::MAX;
                *stores += 1;
                for l in lanes(m) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    check_align(a, *size, l)?;
                    mem_write(ctx, shared, local, local_top, *space, l, a, *size, v[l], &mut cache)?;
                }
            }
            Op::St { space, size, srcs, addr } => {
                let base = abase!(addr);
                let n = srcs.len() as u32;
                let total = size * n;
                let mut vals = Vec::with_capacity(srcs.len());
                for s in srcs {
                    vals.push(*fetch!(*s, t0));
                }
                let mut cache = usize::MAX;
                *stores += 1;
                for l in lanes(m) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    check_align(a, total, l)?;
                    for k in 0..n {
                        let ea = a + (k * size) as u64;
                        mem_write(ctx, shared, local, local_top, *space, l, ea, *size, vals[k as usize][l], &mut cache)?;
                    }
                }
            }
            Op::Atom { space, op, ty, d, addr, b, c } => {
                let base = abase!(addr);
                let (bv, cv) = (fetch!(*b, t0), fetch!(*c, t1));
                let size = match ty {
                    ITyOrF::I(t) => t.bits / 8,
                    ITyOrF::F(f) => f.bits() / 8,
                };
                let mut r = [0u64; 32];
                for l in lanes(m) {
                    let a = base[l].wrapping_add(addr.offset as u64);
                    check_align(a, size, l)?;
                    let (old, changed) = crate::atomics::atom(ctx, shared, local, local_top, *space, l, a, size, *op, *ty, bv[l], cv[l])?;
                    r[l] = old;
                    if changed {
                        *stores += 1;
                    }
                }
                if let Some(d) = d {
                    write_masked(&mut fr.regs[*d as usize], &r, m);
                }
            }
            Op::Bra { target, uni } => {
                let taken = m;
                if taken == mask {
                    *pc = *target;
                    if yield_on_branch {
                        return Ok(Event::Branched);
                    }
                    continue;
                } else if taken == 0 {
                } else {
                    if *uni {
                        return Err(non_uniform("bra.uni", mask, taken));
                    }
                    return Ok(Event::Diverge { taken, target: *target });
                }
            }
            Op::Brx { index, targets, table, uni } => {
                if m != 0 {
                    let iv = fetch!(*index, t0);
                    let mut groups: Vec<(u32, u32)> = Vec::new();
                    for l in lanes(m) {
                        let i = iv[l] as u32;
                        let Some(&t) = targets.get(i as usize) else {
                            return Err(Trap::lane(
                                TrapKind::BrxIndexOutOfRange,
                                l as u32,
                                format!("brx.idx index {i} is out of range for `{table}` ({} targets) in lane {l}", targets.len()),
                            ));
                        };
                        match groups.iter_mut().find(|g| g.0 == t) {
                            Some(g) => g.1 |= 1 << l,
                            None => groups.push((t, 1 << l)),
                        }
                    }
                    if groups.len() == 1 && m == mask {
                        *pc = groups[0].0;
                        if yield_on_branch {
                            return Ok(Event::Branched);
                        }
                        continue;
                    }
                    if *uni {
                        let lanes_desc = groups.iter().map(|g| format!("{:#010x}→pc {}", g.1, g.0)).collect::<Vec<_>>().join(", ");
                        return Err(Trap::new(
                            TrapKind::NonUniform,
                            format!("brx.idx.uni is not uniform: active lanes {mask:#010x} (guard-true {m:#010x}) go to different targets: {lanes_desc}"),
                        ));
                    }
                    if m != mask {
                        groups.push((p + 1, mask & !m));
                    }
                    return Ok(Event::Brx { groups });
                }
            }
            Op::Call { callee, uni, .. } => {
                if m != 0 {
                    if *uni && m != mask {
                        return Err(non_uniform("call.uni", mask, m));
                    }
                    let groups = match callee {
                        Callee::Direct(f) => vec![(*f, m)],
                        Callee::Indirect { fptr, allowed, table, proto } => {
                            let fv = fetch!(*fptr, t0);
                            let mut groups: Vec<(FuncId, u32)> = Vec::new();
                            for l in lanes(m) {
                                let f = resolve_fptr(ctx.prog, fv[l], allowed.as_deref(), table.as_deref(), proto.as_ref(), l)?;
                                match groups.iter_mut().find(|g| g.0 == f) {
                                    Some(g) => g.1 |= 1 << l,
                                    None => groups.push((f, 1 << l)),
                                }
                            }
                            if *uni && groups.len() > 1 {
                                return Err(Trap::new(
                                    TrapKind::NonUniform,
                                    format!("call.uni is not uniform: active lanes {mask:#010x} call {} different functions", groups.len()),
                                ));
                            }
                            groups
                        }
                    };
                    return Ok(Event::Call { groups });
                }
            }
            Op::Ret { uni } => {
                if m != 0 {
                    if *uni && m != mask {
                        return Err(non_uniform("ret.uni", mask, m));
                    }
                    return Ok(Event::Ret { mask: m });
                }
            }
            Op::Exit => {
                if m != 0 {
                    return Ok(Event::Exit { mask: m });
                }
            }
            Op::Trap => {
                if m != 0 {
                    return Err(Trap::lane(TrapKind::Trap, m.trailing_zeros(), format!("`trap` executed by lanes {m:#010x}")));
                }
            }
            Op::Bar { .. } => {
                if m != 0 {
                    return Ok(Event::Bar { mask: m });
                }
            }
            Op::ClusterArrive => {
                if m != 0 {
                    return Ok(Event::ClusterArrive { mask: m });
                }
            }
            Op::ClusterWait => {
                if m != 0 {
                    return Ok(Event::ClusterWait { mask: m });
                }
            }
            Op::Nanosleep { t } => {
                if m != 0 {
                    let tv = fetch!(*t, t0);
                    // PTX ISA 9.7.13 nanosleep: each thread sleeps within [0, 2t],
                    // at most 1 ms, and "the implementation may reduce the sleep
                    // duration for individual threads within a warp such that all
                    // sleeping threads in the warp wake up together". The warp
                    // sleeps for its smallest request: within [0, 2t] for every
                    // lane, and exactly t when the lanes agree.
                    let ns = lanes(m).map(|l| tv[l] & 0xffff_ffff).min().unwrap_or(0).min(1_000_000);
                    return Ok(Event::Sleep { ns });
                }
            }
            Op::Activemask { d } => {
                write_masked(&mut fr.regs[*d as usize], &[mask as u64; 32], m);
            }
            Op::Vote { mode, d, a, .. } => {
                let av = psrc(&fr.preds, *a) & m;
                match mode {
                    VoteMode::Ballot => write_masked(&mut fr.regs[*d as usize], &[av as u64; 32], m),
                    _ => {
                        let v = match mode {
                            VoteMode::All => av == m,
                            VoteMode::Any => av != 0,
                            _ => av == m || av == 0,
                        };
                        set_pred(&mut fr.preds, d & 0x7fff_ffff, if v { FULL } else { 0 }, m);
                    }
                }
            }
            Op::Shfl { mode, d, p: pd, a, b, c, .. } => {
                let (av, bv, cv) = (fetch!(*a, t0), fetch!(*b, t1), fetch!(*c, t2));
                let mut r = [0u64; 32];
                let mut pv = 0u32;
                for l in lanes(m) {
                    let lane = l as i64;
                    let bval = (bv[l] & 31) as i64;
                    let cval = (cv[l] & 31) as i64;
                    let seg = ((cv[l] >> 8) & 31) as i64;
                    let max_lane = (lane & seg) | (cval & !seg);
                    let min_lane = lane & seg;
                    let (j, ok) = match mode {
                        ShflMode::Up => (lane - bval, lane - bval >= max_lane),
                        ShflMode::Down => (lane + bval, lane + bval <= max_lane),
                        ShflMode::Bfly => (lane ^ bval, (lane ^ bval) <= max_lane),
                        ShflMode::Idx => {
                            let j = min_lane | (bval & !seg);
                            (j, j <= max_lane)
                        }
                    };
                    let j = if ok && (0..32).contains(&j) { j } else { lane };
                    r[l] = av[j as usize] & 0xffff_ffff;
                    if ok {
                        pv |= 1 << l;
                    }
                }
                write_masked(&mut fr.regs[*d as usize], &r, m);
                if let Some(pd) = pd {
                    set_pred(&mut fr.preds, *pd, pv, m);
                }
            }
            Op::Nop => {}
            Op::Unsupported(msg) => {
                return Err(Trap::new(TrapKind::Unsupported, msg.clone()));
            }
        }
        *pc = p + 1;
    }
}

fn non_uniform(what: &str, active: u32, agree: u32) -> Trap {
    let dis = active & !agree;
    Trap::lane(
        TrapKind::NonUniform,
        dis.trailing_zeros().min(agree.trailing_zeros()),
        format!(
            "{what} is not uniform: of the active lanes {active:#010x}, lanes {agree:#010x} take it and lanes {dis:#010x} do not",
        ),
    )
}

fn resolve_fptr(
    prog: &Program,
    v: u64,
    allowed: Option<&[FuncId]>,
    table: Option<&str>,
    proto: Option<&Signature>,
    l: usize,
) -> Result<FuncId, Trap> {
    let id = crate::memory::func_id(v, prog.functions.len());
    let Some(id) = id else {
        return Err(Trap::lane(TrapKind::BadCallTarget, l as u32, format!("lane {l} calls through {v:#x}, which is not the address of a function")));
    };
    let f = &prog.functions[id as usize];
    if let Some(list) = allowed {
        if !list.contains(&id) {
            return Err(Trap::lane(
                TrapKind::BadCallTarget,
                l as u32,
                format!("lane {l} calls `{}`, which is not in `{}`", f.name, table.unwrap_or("the call-target list")),
            ));
        }
    }
    if let Some(sig) = proto {
        if f.is_kernel || f.signature() != *sig {
            return Err(Trap::lane(
                TrapKind::PrototypeMismatch,
                l as u32,
                format!(
                    "lane {l} calls `{}` whose signature (returns {:?} bytes, params {:?} bytes) does not match the .callprototype (returns {:?}, params {:?})",
                    f.name,
                    f.signature().rets,
                    f.signature().params,
                    sig.rets,
                    sig.params
                ),
            ));
        }
    }
    if f.is_kernel {
        return Err(Trap::lane(TrapKind::BadCallTarget, l as u32, format!("lane {l} calls the kernel `{}`", f.name)));
    }
    Ok(id)
}

#[inline(always)]
fn check_align(a: u64, size: u32, l: usize) -> Result<(), Trap> {
    if size.is_power_of_two() && a & (size as u64 - 1) != 0 {
        return Err(Trap::lane(TrapKind::Misaligned, l as u32, format!("lane {l}: address {a:#x} is not a multiple of the access size {size}")));
    }
    Ok(())
}

pub(crate) fn oob(l: usize, space: &str, a: u64, size: u32) -> Trap {
    Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: {size}-byte access at {space} address {a:#x} is outside every allocation"))
}

/// Reads `size` bytes at address `a` of `space` for lane `l`.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn mem_read(
    ctx: &Ctx<'_>,
    shared: &[u8],
    local: &[Vec<u8>],
    local_top: &[u32; 32],
    space: Space,
    l: usize,
    a: u64,
    size: u32,
    cache: &mut usize,
) -> Result<u64, Trap> {
    let r = match space {
        Space::Global => return global_read(ctx.global, l, a, size, cache),
        Space::Shared => crate::memory::read_le(shared, a, size),
        Space::Local | Space::FrameParam => {
            if a + size as u64 > local_top[l] as u64 {
                None
            } else {
                crate::memory::read_le(&local[l], a, size)
            }
        }
        Space::Const => crate::memory::read_le(ctx.consts, a, size),
        Space::KernelParam => crate::memory::read_le(ctx.kparams, a, size),
        Space::Generic => match classify(a) {
            Window::Global => return global_read(ctx.global, l, a, size, cache),
            Window::Shared(o) => crate::memory::read_le(shared, o, size),
            Window::Local(o) => {
                if o + size as u64 > local_top[l] as u64 {
                    None
                } else {
                    crate::memory::read_le(&local[l], o, size)
                }
            }
            Window::Const(o) => crate::memory::read_le(ctx.consts, o, size),
            Window::Param(o) => crate::memory::read_le(ctx.kparams, o, size),
        },
    };
    r.ok_or_else(|| oob(l, space_name(space), a, size))
}

#[inline(always)]
fn global_read(g: &GlobalMemory, l: usize, a: u64, size: u32, cache: &mut usize) -> Result<u64, Trap> {
    if let Some(al) = g.allocs.get(*cache) {
        if a >= al.base && a - al.base + size as u64 <= al.size {
            return Ok(al.read(a - al.base, size));
        }
    }
    match g.find(a, size as u64) {
        Some(i) => {
            *cache = i;
            let al = &g.allocs[i];
            Ok(al.read(a - al.base, size))
        }
        None => Err(oob(l, "global", a, size)),
    }
}

#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn mem_write(
    ctx: &Ctx<'_>,
    shared: &mut [u8],
    local: &mut [Vec<u8>],
    local_top: &[u32; 32],
    space: Space,
    l: usize,
    a: u64,
    size: u32,
    v: u64,
    cache: &mut usize,
) -> Result<(), Trap> {
    let ok = match space {
        Space::Global => return global_write(ctx, l, a, size, v, cache),
        Space::Shared => crate::memory::write_le(shared, a, size, v),
        Space::Local | Space::FrameParam => a + size as u64 <= local_top[l] as u64 && crate::memory::write_le(&mut local[l], a, size, v),
        Space::Const | Space::KernelParam => {
            return Err(Trap::lane(TrapKind::OutOfBounds, l as u32, format!("lane {l}: store to read-only {} space at {a:#x}", space_name(space))))
        }
        Space::Generic => match classify(a) {
            Window::Global => return global_write(ctx, l, a, size, v, cache),
            Window::Shared(o) => crate::memory::write_le(shared, o, size, v),
            Window::Local(o) => o + size as u64 <= local_top[l] as u64 && crate::memory::write_le(&mut local[l], o, size, v),
            Window::Const(_) | Window::Param(_) => false,
        },
    };
    if ok {
        Ok(())
    } else {
        Err(oob(l, space_name(space), a, size))
    }
}

#[inline(always)]
fn global_write(ctx: &Ctx<'_>, l: usize, a: u64, size: u32, v: u64, cache: &mut usize) -> Result<(), Trap> {
    let g = ctx.global;
    let i = match g.allocs.get(*cache) {
        Some(al) if a >= al.base && a - al.base + size as u64 <= al.size => *cache,
        _ => match g.find(a, size as u64) {
            Some(i) => {
                *cache = i;
                i
            }
            None => return Err(oob(l, "global", a, size)),
        },
    };
    let al = &g.allocs[i];
    al.write(a - al.base, size, v);
    Ok(())
}

pub(crate) fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Const => "const",
        Space::KernelParam => "kernel param",
        Space::FrameParam => "param",
        Space::Generic => "generic",
    }
}

/// Whether a special register has the same value in every lane of a warp
/// (and does not read the clock).
fn uniform_sreg(s: Sreg) -> bool {
    !matches!(
        s,
        Sreg::Tid(_)
            | Sreg::LaneId
            | Sreg::Clock
            | Sreg::Clock64
            | Sreg::GlobalTimer
            | Sreg::LaneMaskEq
            | Sreg::LaneMaskLe
            | Sreg::LaneMaskLt
            | Sreg::LaneMaskGe
            | Sreg::LaneMaskGt
    )
}

/// The value of a special register that [`uniform_sreg`] says is the same
/// in every lane.
#[inline]
fn sreg_uniform(s: Sreg, env: &CtaEnv, g: &Geom, warp_id: u32) -> u64 {
    let v = match s {
        Sreg::Ntid(d) => g.block[d as usize],
        Sreg::Ctaid(d) => env.ctaid[d as usize],
        Sreg::Nctaid(d) => g.grid[d as usize],
        Sreg::WarpId => warp_id,
        Sreg::NWarpId => g.nwarps,
        Sreg::SmId | Sreg::GridId => 0,
        Sreg::NSmId => 1,
        Sreg::ClusterId(d) => env.cluster_id[d as usize],
        Sreg::NClusterId(d) => g.grid[d as usize] / g.cluster[d as usize].max(1),
        Sreg::ClusterCtaId(d) => env.cluster_ctaid[d as usize],
        Sreg::ClusterNCtaId(d) => g.cluster[d as usize],
        Sreg::ClusterCtaRank => env.rank,
        Sreg::ClusterNCtaRank => g.cluster[0] * g.cluster[1] * g.cluster[2],
        Sreg::IsExplicitCluster => g.explicit_cluster as u32,
        Sreg::DynamicSmemSize => g.dyn_smem,
        Sreg::TotalSmemSize => g.total_smem,
        // Per-lane or clock registers never come here.
        _ => return sreg(s, env, g, &[[0; 32]; 3], warp_id, 0)[0],
    };
    v as u64
}

fn sreg(s: Sreg, env: &CtaEnv, g: &Geom, tid: &[[u64; 32]; 3], warp_id: u32, clock: u64) -> [u64; 32] {
    let b = |v: u32| [v as u64; 32];
    match s {
        Sreg::Tid(d) => tid[d as usize],
        Sreg::Ntid(d) => b(g.block[d as usize]),
        Sreg::Ctaid(d) => b(env.ctaid[d as usize]),
        Sreg::Nctaid(d) => b(g.grid[d as usize]),
        Sreg::LaneId => LANE_IDS,
        Sreg::WarpId => b(warp_id),
        Sreg::NWarpId => b(g.nwarps),
        Sreg::SmId => b(0),
        Sreg::NSmId => b(1),
        Sreg::GridId => b(0),
        Sreg::Clock => [clock & 0xffff_ffff; 32],
        Sreg::Clock64 | Sreg::GlobalTimer => [clock; 32],
        Sreg::LaneMaskEq => map1(&LANE_IDS, |l| 1u64 << l),
        Sreg::LaneMaskLe => map1(&LANE_IDS, |l| ((2u64 << l) - 1) & 0xffff_ffff),
        Sreg::LaneMaskLt => map1(&LANE_IDS, |l| (1u64 << l) - 1),
        Sreg::LaneMaskGe => map1(&LANE_IDS, |l| !((1u64 << l) - 1) & 0xffff_ffff),
        Sreg::LaneMaskGt => map1(&LANE_IDS, |l| !((2u64 << l) - 1) & 0xffff_ffff),
        Sreg::ClusterId(d) => b(env.cluster_id[d as usize]),
        Sreg::NClusterId(d) => b(g.grid[d as usize] / g.cluster[d as usize].max(1)),
        Sreg::ClusterCtaId(d) => b(env.cluster_ctaid[d as usize]),
        Sreg::ClusterNCtaId(d) => b(g.cluster[d as usize]),
        Sreg::ClusterCtaRank => b(env.rank),
        Sreg::ClusterNCtaRank => b(g.cluster[0] * g.cluster[1] * g.cluster[2]),
        Sreg::IsExplicitCluster => b(g.explicit_cluster as u32),
        Sreg::DynamicSmemSize => b(g.dyn_smem),
        Sreg::TotalSmemSize => b(g.total_smem),
    }
}
