//! CTA and cluster scheduling: the warps of the CTAs of one cluster run in
//! a deterministic round-robin on one core, each for a slice of fuel or
//! until it blocks. This file owns barriers (`bar.sync/arrive/red`,
//! `barrier.cluster.arrive/wait`), their release when threads exit,
//! deadlock detection and stack-mode spin detection. Fuel comes from
//! the worker's [`Tank`] (`fuel`).

use crate::error::{RunError, Trap, TrapKind};
use crate::exec::{CtaEnv, Ctx};
use crate::fuel::Tank;
use crate::program::*;
use crate::warp::{lanes, LaneState, Stats, Warp, WarpStatus, NO_FRAME};
use crate::{its, simt_stack, Scheduling};
use std::sync::atomic::{AtomicU64, Ordering};

/// Warp instructions a warp runs before the next warp gets a turn.
const SLICE: u64 = 4096;

/// A trap with the function and pc it happened at.
#[derive(Debug)]
pub(crate) struct Located {
    pub trap: Trap,
    pub func: FuncId,
    pub pc: u32,
}

/// How a warp's turn ended.
#[derive(Debug)]
pub(crate) enum TurnEnd {
    Yield,
    Sleep,
    Done,
    Exited { mask: u32 },
    Bar { frame: u32, pc: u32, mask: u32 },
    ClusterArrive { mask: u32 },
    ClusterWait { mask: u32 },
}

/// Creates the callee frame of a call group and passes the arguments.
pub(crate) fn call_setup(ctx: &Ctx<'_>, w: &mut Warp, caller: u32, pc: u32, f: FuncId, m: u32) -> Result<u32, Trap> {
    let prog = ctx.prog;
    let callee = &prog.functions[f as usize];
    let depth = w.frames[caller as usize].depth + 1;
    if depth > ctx.geom.max_depth {
        return Err(Trap::lane(
            TrapKind::CallDepth,
            m.trailing_zeros(),
            format!("call depth exceeds the limit of {} calling `{}`", ctx.geom.max_depth, callee.name),
        ));
    }
    if !callee.defined {
        return Err(Trap::new(TrapKind::Unsupported, format!("call to external function `{}` is not supported yet", callee.name)));
    }
    let cf = w.frames[caller as usize].func;
    let Op::Call { args, rets, .. } = &prog.functions[cf as usize].code[pc as usize].op else {
        return Err(Trap::new(TrapKind::Unsupported, "internal: call event at a non-call"));
    };
    if args.len() != callee.params.len() || rets.len() != callee.rets.len() {
        return Err(Trap::lane(
            TrapKind::PrototypeMismatch,
            m.trailing_zeros(),
            format!(
                "call passes {} arguments and {} return values but `{}` takes {} and returns {}",
                args.len(),
                rets.len(),
                callee.name,
                callee.params.len(),
                callee.rets.len()
            ),
        ));
    }
    let nf = w.push_frame(prog, f, m, caller, pc, depth)?;
    w.pass_args(prog, caller, nf, args, m)?;
    Ok(nf)
}

#[derive(Default, Clone, Debug)]
struct Waiter {
    warp: u32,
    frame: u32,
    pc: u32,
    mask: u32,
}

#[derive(Default, Clone, Debug)]
struct Barrier {
    arrived: u32,
    expected: Option<u32>,
    waiters: Vec<Waiter>,
    popc: u32,
    all: bool,
    any: bool,
    reduce: bool,
}

pub(crate) struct Cta {
    pub env: CtaEnv,
    pub shared: Vec<u8>,
    pub warps: Vec<Warp>,
    pub live: u32,
    barriers: Vec<Barrier>,
}

impl Cta {
    /// An empty CTA whose buffers [`crate::launch`] fills and reuses.
    pub fn empty(env: CtaEnv) -> Cta {
        Cta { env, shared: Vec::new(), warps: Vec::new(), live: 0, barriers: vec![Barrier::default(); 16] }
    }
}

impl Barrier {
    fn reset(&mut self) {
        self.arrived = 0;
        self.expected = None;
        self.waiters.clear();
        self.popc = 0;
        self.all = false;
        self.any = false;
        self.reduce = false;
    }
}

struct ClusterSync {
    phase: u64,
    arrived: u32,
    live: u32,
}

/// Runs one cluster of CTAs to completion.
pub(crate) fn run_cluster(
    ctx: &Ctx<'_>,
    ctas: &mut [Cta],
    mode: Scheduling,
    tank: &mut Tank<'_>,
    my_index: u64,
    abort: &AtomicU64,
) -> Result<Stats, RunError> {
    let mut stats = Stats::default();
    let mut cs = ClusterSync { phase: 0, arrived: 0, live: ctas.iter().map(|c| c.live).sum() };
    for c in ctas.iter_mut() {
        c.barriers.resize_with(16, Barrier::default);
        for b in &mut c.barriers {
            b.reset();
        }
    }
    let mut rounds: u64 = 0;
    loop {
        rounds += 1;
        if rounds.is_multiple_of(64) && abort.load(Ordering::Relaxed) < my_index {
            return Ok(stats);
        }
        let mut any_run = false;
        let mut all_done = true;
        for ci in 0..ctas.len() {
            for wi in 0..ctas[ci].warps.len() {
                let st = ctas[ci].warps[wi].status;
                if st == WarpStatus::Done {
                    continue;
                }
                all_done = false;
                if st != WarpStatus::Runnable {
                    continue;
                }
                any_run = true;
                let slice = match tank.slice(SLICE) {
                    Ok(s) => s,
                    Err(trap) => {
                        let (func, pc) = current(&ctas[ci].warps[wi], mode);
                        return Err(crate::fuel::out_of_budget(ctx, ctas, ci, wi, Located { trap, func, pc }));
                    }
                };
                let mut left = slice;
                let stores_before = ctas[ci].warps[wi].stores;
                let end = {
                    let cta = &mut ctas[ci];
                    let w = &mut cta.warps[wi];
                    let r = match mode {
                        Scheduling::Stack => simt_stack::turn(ctx, &cta.env, &mut cta.shared, w, &mut left, &mut stats),
                        Scheduling::Its => its::turn(ctx, &cta.env, &mut cta.shared, w, &mut left, &mut stats),
                    };
                    match r {
                        Ok(e) => e,
                        Err(l) => {
                            tank.refund(left);
                            return Err(locate(ctx, &ctas[ci], wi as u32, l));
                        }
                    }
                };
                tank.refund(left);
                if ctas[ci].warps[wi].stores != stores_before {
                    ctx.write_epoch.fetch_add(1, Ordering::Relaxed);
                }
                handle_end(ctx, ctas, &mut cs, ci, wi, end, mode).map_err(|(w, l)| locate(ctx, &ctas[ci], w, l))?;
                if mode == Scheduling::Stack {
                    spin_check(ctx, ctas, ci, wi)?;
                }
            }
        }
        if all_done {
            return Ok(stats);
        }
        if !any_run {
            return Err(deadlock(ctx, ctas, mode));
        }
    }
}

pub(crate) fn current(w: &Warp, mode: Scheduling) -> (FuncId, u32) {
    match mode {
        Scheduling::Stack => match w.stack.last() {
            Some(e) => (w.frames[e.frame as usize].func, e.pc),
            None => (0, 0),
        },
        Scheduling::Its => {
            for l in 0..32 {
                if w.lane_state[l] == LaneState::Ready && w.lane_frame[l] != NO_FRAME {
                    return (w.frames[w.lane_frame[l] as usize].func, w.pc[l]);
                }
            }
            (0, 0)
        }
    }
}

pub(crate) fn locate(ctx: &Ctx<'_>, cta: &Cta, warp: u32, l: Located) -> RunError {
    let f = ctx.prog.functions.get(l.func as usize);
    let ins = f.and_then(|f| f.code.get(l.pc as usize));
    RunError {
        kind: l.trap.kind,
        message: l.trap.message,
        function: f.map(|f| f.name.clone()),
        line: ins.map(|i| i.line).or(f.map(|f| f.line)),
        span: ins.map(|i| i.span),
        cta: Some(cta.env.ctaid),
        warp: Some(warp),
        lane: l.trap.lane,
    }
}

fn src_value(w: &Warp, frame: u32, s: Src, lane: usize) -> u64 {
    match s {
        Src::Reg(r) => w.frames[frame as usize].regs[r as usize][lane],
        Src::Imm(v) => v,
        _ => 0,
    }
}

type EndErr = (u32, Located);

fn handle_end(ctx: &Ctx<'_>, ctas: &mut [Cta], cs: &mut ClusterSync, ci: usize, wi: usize, end: TurnEnd, mode: Scheduling) -> Result<(), EndErr> {
    match end {
        TurnEnd::Yield | TurnEnd::Sleep | TurnEnd::Done => Ok(()),
        TurnEnd::Exited { mask } => {
            let n = mask.count_ones();
            let cta = &mut ctas[ci];
            cta.live = cta.live.saturating_sub(n);
            cs.live = cs.live.saturating_sub(n);
            let w = &cta.warps[wi];
            for l in lanes(mask) {
                if w.cluster_arrived[l] == cs.phase {
                    cs.arrived = cs.arrived.saturating_sub(1);
                }
            }
            for id in 0..16 {
                if ctas[ci].barriers[id].arrived != 0 {
                    check_barrier(ctx, &mut ctas[ci], id, mode);
                }
            }
            check_cluster(ctas, cs, mode);
            Ok(())
        }
        TurnEnd::Bar { frame, pc, mask } => {
            let cta = &mut ctas[ci];
            let w = &mut cta.warps[wi];
            let func = w.frames[frame as usize].func;
            let Op::Bar { kind, id, count, pred_in, .. } = ctx.prog.functions[func as usize].code[pc as usize].op.clone() else {
                return Ok(());
            };
            let first = mask.trailing_zeros() as usize;
            let idv = src_value(w, frame, id, first);
            let cnt = count.map(|c| src_value(w, frame, c, first) as u32);
            let err = |msg: String| (wi as u32, Located { trap: Trap::new(TrapKind::Unsupported, msg), func, pc });
            if idv >= 16 {
                return Err(err(format!("barrier id {idv} is out of range (0..15)")));
            }
            for l in lanes(mask) {
                if src_value(w, frame, id, l) != idv {
                    return Err((
                        wi as u32,
                        Located {
                            trap: Trap::lane(TrapKind::NonUniform, l as u32, format!("barrier id differs across lanes ({} vs {idv})", src_value(w, frame, id, l))),
                            func,
                            pc,
                        },
                    ));
                }
            }
            let pv = pred_in.map(|p| match p {
                PSrc::Reg { slot, neg } => {
                    let v = w.frames[frame as usize].preds[slot as usize];
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
            });
            let b = &mut cta.barriers[idv as usize];
            if b.arrived == 0 && b.waiters.is_empty() {
                b.all = true;
                b.any = false;
                b.popc = 0;
                b.reduce = false;
            }
            b.arrived += mask.count_ones();
            if let Some(c) = cnt {
                b.expected = Some(c);
            }
            if let Some(pv) = pv {
                b.reduce = true;
                b.popc += (pv & mask).count_ones();
                b.all &= pv & mask == mask;
                b.any |= pv & mask != 0;
            }
            if kind == BarKind::Arrive {
                advance(w, mode, mask);
            } else {
                b.waiters.push(Waiter { warp: wi as u32, frame, pc, mask });
                match mode {
                    Scheduling::Stack => w.status = WarpStatus::Barrier(idv as u32),
                    Scheduling::Its => {
                        for l in lanes(mask) {
                            w.lane_state[l] = LaneState::Barrier;
                        }
                        if its::ready_mask(w) == 0 {
                            w.status = WarpStatus::Barrier(idv as u32);
                        }
                    }
                }
            }
            check_barrier(ctx, cta, idv as usize, mode);
            Ok(())
        }
        TurnEnd::ClusterArrive { mask } => {
            let w = &mut ctas[ci].warps[wi];
            for l in lanes(mask) {
                if w.cluster_arrived[l] != cs.phase {
                    w.cluster_arrived[l] = cs.phase;
                    cs.arrived += 1;
                }
            }
            advance(w, mode, mask);
            check_cluster(ctas, cs, mode);
            Ok(())
        }
        TurnEnd::ClusterWait { mask } => {
            let w = &mut ctas[ci].warps[wi];
            let waiting: u32 = lanes(mask).filter(|&l| w.cluster_arrived[l] == cs.phase).fold(0, |a, l| a | 1 << l);
            if waiting == 0 {
                advance(w, mode, mask);
                return Ok(());
            }
            match mode {
                Scheduling::Stack => w.status = WarpStatus::ClusterWait(cs.phase),
                Scheduling::Its => {
                    for l in lanes(mask) {
                        if waiting >> l & 1 == 1 {
                            w.lane_state[l] = LaneState::ClusterWait(cs.phase);
                        } else {
                            w.pc[l] += 1;
                        }
                    }
                    if its::ready_mask(w) == 0 {
                        w.status = WarpStatus::ClusterWait(cs.phase);
                    }
                }
            }
            Ok(())
        }
    }
}

/// Moves lanes (ITS) or the warp (stack) past a non-blocking instruction.
fn advance(w: &mut Warp, mode: Scheduling, mask: u32) {
    match mode {
        Scheduling::Stack => {
            if let Some(t) = w.stack.last_mut() {
                t.pc += 1;
            }
        }
        Scheduling::Its => {
            for l in lanes(mask) {
                w.pc[l] += 1;
            }
        }
    }
}

fn check_barrier(ctx: &Ctx<'_>, cta: &mut Cta, id: usize, mode: Scheduling) {
    let b = &cta.barriers[id];
    if b.arrived == 0 {
        return;
    }
    let target = b.expected.unwrap_or(cta.live);
    if b.arrived < target {
        return;
    }
    let b = std::mem::take(&mut cta.barriers[id]);
    for wt in &b.waiters {
        let w = &mut cta.warps[wt.warp as usize];
        if b.reduce {
            let func = w.frames[wt.frame as usize].func;
            if let Op::Bar { kind, d: Some(d), .. } = &ctx.prog.functions[func as usize].code[wt.pc as usize].op {
                let fr = &mut w.frames[wt.frame as usize];
                if *kind == BarKind::RedPopc {
                    for l in lanes(wt.mask) {
                        fr.regs[*d as usize][l] = b.popc as u64;
                    }
                } else {
                    let v = if *kind == BarKind::RedAnd { b.all } else { b.any };
                    let slot = (*d & 0x7fff_ffff) as usize;
                    let p = &mut fr.preds[slot];
                    *p = if v { *p | wt.mask } else { *p & !wt.mask };
                }
            }
        }
        match mode {
            Scheduling::Stack => simt_stack::release(w),
            Scheduling::Its => its::release(w, wt.mask),
        }
    }
}

fn check_cluster(ctas: &mut [Cta], cs: &mut ClusterSync, mode: Scheduling) {
    if cs.arrived == 0 || cs.arrived < cs.live {
        return;
    }
    let done = cs.phase;
    cs.phase += 1;
    cs.arrived = 0;
    for c in ctas.iter_mut() {
        for w in c.warps.iter_mut() {
            match mode {
                Scheduling::Stack => {
                    if w.status == WarpStatus::ClusterWait(done) {
                        simt_stack::release(w);
                    }
                }
                Scheduling::Its => {
                    let m: u32 = (0..32).filter(|&l| w.lane_state[l] == LaneState::ClusterWait(done)).fold(0, |a, l| a | 1 << l);
                    if m != 0 {
                        its::release(w, m);
                    }
                }
            }
        }
    }
}

fn deadlock(ctx: &Ctx<'_>, ctas: &[Cta], mode: Scheduling) -> RunError {
    for cta in ctas {
        for (id, b) in cta.barriers.iter().enumerate() {
            if let Some(wt) = b.waiters.first() {
                let warps: Vec<String> = b.waiters.iter().map(|w| format!("warp {} (lanes {:#010x})", w.warp, w.mask)).collect();
                let target = b.expected.unwrap_or(cta.live);
                let func = cta.warps[wt.warp as usize].frames[wt.frame as usize].func;
                let mut e = locate(
                    ctx,
                    cta,
                    wt.warp,
                    Located {
                        trap: Trap::new(
                            TrapKind::BarrierDeadlock,
                            format!(
                                "barrier {id} can never complete: {} of {target} threads arrived; waiting: {}",
                                b.arrived,
                                warps.join(", ")
                            ),
                        ),
                        func,
                        pc: wt.pc,
                    },
                );
                e.lane = None;
                return e;
            }
        }
        for (wi, w) in cta.warps.iter().enumerate() {
            if let WarpStatus::ClusterWait(_) = w.status {
                let (func, pc) = current(w, mode);
                return locate(
                    ctx,
                    cta,
                    wi as u32,
                    Located {
                        trap: Trap::new(TrapKind::BarrierDeadlock, "barrier.cluster.wait can never complete: some threads of the cluster never arrive".to_string()),
                        func,
                        pc,
                    },
                );
            }
        }
    }
    let cta = &ctas[0];
    RunError {
        cta: Some(cta.env.ctaid),
        ..RunError::new(TrapKind::BarrierDeadlock, "no warp can make progress")
    }
}

/// Stack mode: detects a warp that spins forever while some of its lanes
/// are parked on the SIMT stack (the state repeats exactly with no memory
/// write anywhere, and no other warp of the cluster can run).
fn spin_check(ctx: &Ctx<'_>, ctas: &mut [Cta], ci: usize, wi: usize) -> Result<(), RunError> {
    let epoch = ctx.write_epoch.load(Ordering::Relaxed);
    {
        let w = &mut ctas[ci].warps[wi];
        if w.status != WarpStatus::Runnable {
            w.spin_same = 0;
            return Ok(());
        }
        let h = simt_stack::state_hash(w);
        if epoch != w.spin_epoch || w.stores != w.spin_stores {
            w.spin_epoch = epoch;
            w.spin_stores = w.stores;
            w.spin_hash = h;
            w.spin_count = 1;
            w.spin_same = 0;
            return Ok(());
        }
        if h == w.spin_hash {
            w.spin_same += 1;
        } else {
            // Brent-style checkpointing: move the checkpoint at powers of two.
            w.spin_count += 1;
            if w.spin_count.is_power_of_two() {
                w.spin_hash = h;
                w.spin_same = 0;
            }
            return Ok(());
        }
        if w.stack.len() < 2 || w.spin_same < 3 {
            return Ok(());
        }
    }
    // Every other runnable warp of the cluster must be cycling too, with no
    // store anywhere since: then nothing can ever change.
    let all_cycling = ctas.iter().enumerate().all(|(c, cta)| {
        cta.warps.iter().enumerate().all(|(i, w)| {
            (c, i) == (ci, wi) || w.status != WarpStatus::Runnable || (w.spin_same >= 1 && w.spin_epoch == epoch)
        })
    });
    if !all_cycling {
        return Ok(());
    }
    let w = &ctas[ci].warps[wi];
    let parked: u32 = w.stack[..w.stack.len() - 1].iter().fold(0, |a, e| a | e.mask) & !w.stack.last().map(|e| e.mask).unwrap_or(0);
    let top = *w.stack.last().unwrap_or(&crate::warp::Entry { pc: 0, mask: 0, rpc: 0, frame: 0 });
    let func = w.frames[top.frame as usize].func;
    let mut e = locate(
        ctx,
        &ctas[ci],
        wi as u32,
        Located {
            trap: Trap::new(
                TrapKind::StackDeadlock,
                format!(
                    "stack-mode scheduling cannot make progress: lanes {:#010x} loop forever waiting for lanes {parked:#010x}, which are parked at a reconvergence point (a spin lock?); --scheduling its runs it",
                    top.mask
                ),
            ),
            func,
            pc: top.pc,
        },
    );
    e.lane = Some(top.mask.trailing_zeros());
    Err(e)
}
