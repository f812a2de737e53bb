//! The PTX dispatch loop: runs one group of lanes (a mask at one pc in one
//! frame) straight through, one warp instruction per iteration, until an
//! event the scheduler must handle (divergence, call, return, exit,
//! barrier, sleep), a stop pc (the reconvergence point), or the end of the
//! slice of fuel. Both scheduling modes share it.
//!
//! Each arm of the dispatch is one line: data-flow instructions go to the
//! data path ([`crate::datapath::exec_data`]), control flow and
//! synchronisation to the handlers below, which say where the group goes
//! next ([`Flow`]).

use crate::datapath::{exec_data, fetch, guard_mask, Lanes};
use crate::error::{Trap, TrapKind};
use crate::lanemem::{LaneMem, Peers};
use crate::program::*;
use crate::sreg::SregEnv;
use crate::warp::{lanes, Frame, Stats, Warp};
use std::sync::atomic::AtomicU64;

pub(crate) use crate::datapath::{CtaEnv, Geom};

/// Launch-wide read-only context.
pub(crate) struct Ctx<'a> {
    pub prog: &'a Program,
    pub global: &'a crate::memory::GlobalMemory,
    pub kparams: &'a [u8],
    pub consts: &'a [u8],
    pub geom: &'a Geom,
    /// Bumped on every global store/atomic: spin detection uses it.
    pub write_epoch: &'a AtomicU64,
    /// Where `printf` and failed assertions write.
    pub stdout: &'a crate::stdout::Stdout,
    /// The module's compiling tier, if any ([`crate::tier`]).
    pub tier: Option<&'a dyn crate::tier::Tier>,
}

pub(crate) use crate::barrier::BarArgs;

/// Why the dispatch loop stopped. Operands the scheduler needs come
/// evaluated, or borrowed from the program (`'p`).
#[derive(Debug)]
pub(crate) enum Event<'p> {
    Stop,
    Yield,
    /// Taken branch while other lanes wait elsewhere (ITS rescheduling point);
    /// `pc` already holds the new pc.
    Branched,
    Diverge { taken: u32, target: u32 },
    Brx { groups: Vec<(u32, u32)> },
    /// A call: the lanes grouped by callee, the call's arguments and its
    /// number of return values.
    Call { groups: Vec<(FuncId, u32)>, args: &'p [CallArg], nrets: usize },
    Ret { mask: u32 },
    Exit { mask: u32 },
    Bar { mask: u32, args: BarArgs },
    ClusterArrive { mask: u32 },
    ClusterWait { mask: u32 },
    /// Lanes `mask` at the grid-wide barrier (`cudaCGSynchronize`).
    GridSync { mask: u32 },
    Sleep { ns: u64 },
    /// ITS: the group reached a whole-warp `.sync.aligned` instruction (or
    /// a membermask `.sync` one) without lanes it needs that are ready
    /// elsewhere; it waits
    /// there, unexecuted (the manual's `.sync`: the executing thread waits
    /// until all threads of the warp execute the same instruction).
    Converge,
    /// Stack mode: compiled code split the group as divergent branches
    /// with reconvergence point `rpc` would have: lanes `mask` go on at
    /// the group's pc, its other lanes wait at `rpc`.
    Split { rpc: u32, mask: u32 },
    /// Stack mode: compiled code ran divergent `bra`s and left inside
    /// their sides (see [`crate::tier::Side`]), outermost first; the
    /// group's pc is where the innermost side goes on.
    Side { sides: Vec<crate::tier::Side>, mask: u32 },
}

/// Where the group goes after a control-flow instruction.
enum Flow<'p> {
    /// The next instruction.
    Next,
    /// The whole group jumps.
    Goto(u32),
    /// The scheduler takes over (the pc stays at the instruction).
    Event(Event<'p>),
}

/// The value of a `Result`, or the loop of [`group_body`] ends with its
/// error (so the pc and the fuel still go back to the caller).
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(t) => break Err(t),
        }
    };
}

/// What a warp's turn runs on: its CTA (ids, shared memory, the cluster's
/// other CTAs), the warp, the fuel left and the statistics it adds to. The
/// scheduler builds one per turn (`policy::ptx_turn`, for an engine's `WarpEngine::turn`); every
/// group the turn runs ([`run_group`]) works on it.
pub(crate) struct Turn<'t, 'c> {
    pub env: &'t CtaEnv,
    /// The CTA's shared memory.
    pub shared: &'t mut [u8],
    /// The shared memories of the cluster's other CTAs.
    pub peers: &'t mut Peers<'c>,
    pub warp: &'t mut Warp,
    /// Warp instructions the turn may still execute.
    pub budget: u64,
    /// The launch statistics the turn adds to.
    pub stats: &'t mut Stats,
}

/// Where one group of lanes runs: frame, pc, lanes and stop pc.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    /// The frame the lanes run in.
    pub frame: u32,
    /// Where the group starts; after [`run_group`], where it stopped.
    pub pc: u32,
    /// The lanes of the group.
    pub mask: u32,
    /// The pc at which the group stops (its reconvergence point; `u32::MAX`:
    /// none).
    pub stop: u32,
    /// Whether a taken uniform branch ends the run ([`Event::Branched`]:
    /// independent thread scheduling with other groups waiting).
    pub yield_on_branch: bool,
    /// Whether the group runs under the reconvergence stack (compiled
    /// code may then split it: [`Event::Split`]).
    pub stack: bool,
    /// Out: thread instructions the group executed fewer than its warp
    /// instructions times its lanes (compiled loops run lane by lane).
    pub threads_less: u64,
    /// Whether the group, short of some live lanes of the warp that are
    /// ready elsewhere, stops before a whole-warp `.sync.aligned`
    /// instruction or a `.sync` one whose membermask names lanes it lacks
    /// ([`Event::Converge`]) rather than executing it (ITS).
    pub converge: bool,
}

/// Whether the group `mask` must wait at `op` for live lanes it lacks:
/// `op` is a whole-warp `.sync.aligned` instruction (all 32 lanes execute
/// it together, else `non_uniform`) short of live lanes, or a `.sync`
/// instruction with a membermask (`vote`, `match`, `redux`, `elect`) whose
/// mask, as the group's first lane passes it, names live lanes outside it.
fn must_converge(cx: &Lanes<'_>, fr: &Frame, op: &Op, mask: u32, live: u32) -> bool {
    match op {
        Op::Wgmma(_) | Op::Mma(_) | Op::Ldmatrix { .. } | Op::Stmatrix { .. } | Op::Movmatrix { .. } | Op::WmmaLoad { .. } | Op::WmmaStore { .. } | Op::WmmaMma(_) => mask & live != live,
        Op::Vote { membermask, .. } | Op::MatchSync { membermask, .. } | Op::ReduxSync { membermask, .. } | Op::ElectSync { membermask, .. } => {
            let v = crate::datapath::src_lanes(cx, &fr.regs, membermask);
            v[mask.trailing_zeros() as usize & 31] as u32 & live & !mask != 0
        }
        _ => false,
    }
}

/// Runs the group at `at` of turn `t`'s warp from `at.pc`, and leaves in
/// `at.pc` where it stopped and in `t.budget` the fuel left.
///
/// The pc and the fuel left are kept in locals while it runs, and the
/// instruction counters (the warp's clock, the launch statistics) are
/// settled once at the end from the fuel it used: one warp instruction per
/// unit of fuel.
pub(crate) fn run_group<'p>(ctx: &Ctx<'p>, t: &mut Turn<'_, '_>, at: &mut At) -> Result<Event<'p>, Trap> {
    let start = t.budget;
    let r = group_body(ctx, t, at);
    let n = start - t.budget;
    if let Some(tier) = ctx.tier {
        tier.observe(t.warp.frames[at.frame as usize].func, n);
    }
    t.warp.instrs += n;
    t.stats.warp_instructions += n;
    t.stats.thread_instructions += (n * at.mask.count_ones() as u64).saturating_sub(at.threads_less);
    r
}

/// The dispatch loop of [`run_group`]; the fuel counts down from what the
/// group started with, so the warp's clock is its instruction count before
/// the group plus what the group used, plus the time it slept.
#[inline(never)]
fn group_body<'p>(ctx: &Ctx<'p>, t: &mut Turn<'_, '_>, at: &mut At) -> Result<Event<'p>, Trap> {
    let (mask, stop, yield_on_branch, converge) = (at.mask, at.stop, at.yield_on_branch, at.converge);
    let warp = &mut *t.warp;
    let clock0 = warp.instrs + warp.sleep_ns + t.budget;
    let live = warp.valid & !warp.exited;
    let Warp { frames, local, local_top, tid, stores, id, span_cache, copies, .. } = warp;
    let fr = &mut frames[at.frame as usize];
    let code = &ctx.prog.functions[fr.func as usize].code;
    let mut cx = Lanes {
        mem: LaneMem { global: ctx.global, consts: ctx.consts, kparams: ctx.kparams, shared: &mut *t.shared, local, local_top, peers: t.peers.again() },
        sregs: SregEnv { geom: ctx.geom, cta: t.env, tid, warp_id: *id },
        local_base: fr.local_base as u64,
        clock: 0,
        stores,
        span_cache,
        live,
        copies,
        stdout: ctx.stdout,
    };
    // The function's compiled code, if its tier has it ready, and the pc
    // that code last handed back (the interpreter executes that one).
    let jit = ctx.tier.and_then(|t| t.compiled(fr.func));
    let entries = jit.map_or(&[][..], |j| j.entries());
    let mut handed = u32::MAX;
    // The pc and the fuel left live in locals (registers) while the loop
    // runs, and go back into the group once, whatever ends it.
    let (mut lpc, mut left) = (at.pc, t.budget);
    let r = loop {
        let p = lpc;
        if p == stop {
            break Ok(Event::Stop);
        }
        if p != handed && entries.get(p as usize).is_some_and(|e| e.load(std::sync::atomic::Ordering::Relaxed)) {
            if let Some(j) = jit {
                let mut g = crate::tier::Group { pc: p, mask, stop, yield_on_branch, left, stack: at.stack, threads_less: 0, diverged: Vec::new(), split: None, sides: Vec::new() };
                let s = &cx.sregs;
                let mut env = crate::tier::Env {
                    global: cx.mem.global,
                    kparams: cx.mem.kparams,
                    tid: s.tid,
                    ntid: s.geom.block,
                    ctaid: s.cta.ctaid,
                    nctaid: s.geom.grid,
                    mem_ready: cx.copies.idle(),
                    stores: &mut *cx.stores,
                    shared: &mut *cx.mem.shared,
                    consts: cx.mem.consts,
                };
                j.run(&mut fr.regs, &mut fr.preds, &mut g, &mut env);
                (lpc, left, handed) = (g.pc, g.left, g.pc);
                at.threads_less += g.threads_less;
                for &(pc, n) in &g.diverged {
                    t.stats.divergent_branches += n;
                    *t.stats.divergence.entry((fr.func, pc)).or_insert(0) += n;
                }
                if let Some((rpc, m)) = g.split {
                    break Ok(Event::Split { rpc, mask: m });
                }
                if !g.sides.is_empty() {
                    break Ok(Event::Side { sides: g.sides, mask: g.mask });
                }
                continue;
            }
        }
        let Some(ins) = code.get(p as usize) else {
            break Ok(Event::Ret { mask });
        };
        if left == 0 {
            break Ok(Event::Yield);
        }
        if converge && mask & live != live && must_converge(&cx, fr, &ins.op, mask, live) {
            break Ok(Event::Converge);
        }
        left -= 1;
        cx.clock = clock0 - left;
        let m = guard_mask(fr, ins.guard, mask);
        if tri!(exec_data(&mut cx, fr, &ins.op, p, mask, m)) {
            lpc = p + 1;
            continue;
        }
        let flow = match &ins.op {
            Op::Bra { target, uni } => tri!(bra(mask, m, *target, *uni)),
            Op::Brx { index, targets, table, uni } => tri!(brx(&cx, fr, p, (mask, m), index, (targets, table, *uni))),
            Op::Call { callee, uni, args, rets } => tri!(call::<0>(ctx.prog, &cx, fr, (mask, m), callee, *uni, (args, rets.len()))),
            Op::Ret { uni } => tri!(ret(mask, m, *uni)),
            Op::Exit => on_lanes(m, Event::Exit { mask: m }),
            Op::Trap => tri!(trap(m)),
            Op::Bar { kind, id, count, d, pred_in, .. } => tri!(bar::<0>(&cx, fr, m, *kind, (id, count.as_ref()), *d, *pred_in)),
            Op::ClusterArrive => on_lanes(m, Event::ClusterArrive { mask: m }),
            Op::ClusterWait => on_lanes(m, Event::ClusterWait { mask: m }),
            Op::GridSync { handle, ret } => {
                tri!(crate::datapath::sys::grid_sync(&mut cx, fr, m, handle, ret.as_ref()));
                on_lanes(m, Event::GridSync { mask: m })
            }
            Op::Nanosleep { t } => nanosleep(&cx, fr, m, t),
            // (An instruction no lane runs, its guard false everywhere, does nothing.)
            Op::Unsupported(msg) if m != 0 => break Err(Trap::new(TrapKind::Unsupported, msg.clone())),
            _ => Flow::Next, // data flow: run above
        };
        match flow {
            Flow::Next => lpc = p + 1,
            Flow::Goto(t) => {
                lpc = t;
                if yield_on_branch {
                    break Ok(Event::Branched);
                }
            }
            Flow::Event(e) => break Ok(e),
        }
    };
    at.pc = lpc;
    t.budget = left;
    r
}

/// `e` when some lane runs the instruction, else the next instruction.
#[inline(always)]
fn on_lanes(m: u32, e: Event<'_>) -> Flow<'_> {
    if m != 0 {
        Flow::Event(e)
    } else {
        Flow::Next
    }
}

/// `bra[.uni] target` with guard-true lanes `taken` of the running `mask`.
#[inline(always)]
fn bra(mask: u32, taken: u32, target: u32, uni: bool) -> Result<Flow<'static>, Trap> {
    if taken == mask {
        Ok(Flow::Goto(target))
    } else if taken == 0 {
        Ok(Flow::Next)
    } else if uni {
        Err(non_uniform("bra.uni", mask, taken))
    } else {
        Ok(Flow::Event(Event::Diverge { taken, target }))
    }
}

/// `brx.idx[.uni] index, table`: the lanes grouped by target.
fn brx(cx: &Lanes<'_>, fr: &Frame, p: u32, (mask, m): (u32, u32), index: &Src, (targets, table, uni): (&[u32], &str, bool)) -> Result<Flow<'static>, Trap> {
    if m == 0 {
        return Ok(Flow::Next);
    }
    let t0;
    let iv = fetch!(cx, fr.regs, index, t0);
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
        return Ok(Flow::Goto(groups[0].0));
    }
    if uni {
        let lanes_desc = groups.iter().map(|g| format!("{:#010x}→pc {}", g.1, g.0)).collect::<Vec<_>>().join(", ");
        return Err(Trap::new(
            TrapKind::NonUniform,
            format!("brx.idx.uni is not uniform: active lanes {mask:#010x} (guard-true {m:#010x}) go to different targets: {lanes_desc}"),
        ));
    }
    if m != mask {
        groups.push((p + 1, mask & !m));
    }
    Ok(Flow::Event(Event::Brx { groups }))
}

/// The lanes of `mask` on which the guard of the `call` `ins` holds,
/// grouped by the function they call (empty when none), with the checks of
/// the dispatch loop's handler: for executor loops other than the PTX one.
pub(crate) fn call_groups(prog: &Program, cx: &Lanes<'_>, fr: &Frame, ins: &Instr, mask: u32) -> Result<Vec<(FuncId, u32)>, Trap> {
    let Op::Call { callee, uni, args, rets } = &ins.op else {
        return Err(Trap::new(TrapKind::Unsupported, "internal: not a call instruction"));
    };
    match call::<1>(prog, cx, fr, (mask, guard_mask(fr, ins.guard, mask)), callee, *uni, (args, rets.len()))? {
        Flow::Event(Event::Call { groups, .. }) => Ok(groups),
        _ => Ok(Vec::new()),
    }
}

/// The lanes of `mask` on which the guard of the barrier instruction `ins`
/// holds and its operands evaluated, as the dispatch loop's handler does
/// (`None` when the guard holds on none): for executor loops other than
/// the PTX one.
pub(crate) fn bar_args(cx: &Lanes<'_>, fr: &Frame, ins: &Instr, mask: u32) -> Result<Option<(u32, BarArgs)>, Trap> {
    let Op::Bar { kind, id, count, d, pred_in, .. } = &ins.op else {
        return Err(Trap::new(TrapKind::Unsupported, "internal: not a barrier instruction"));
    };
    match bar::<1>(cx, fr, guard_mask(fr, ins.guard, mask), *kind, (id, count.as_ref()), *d, *pred_in)? {
        Flow::Event(Event::Bar { mask, args }) => Ok(Some((mask, args))),
        _ => Ok(None),
    }
}

/// `call[.uni]`: the lanes grouped by the function they call.
///
/// `SITE` makes one copy per caller (0: the dispatch loop, 1:
/// [`call_groups`]), so the dispatch loop's copy keeps one caller and is
/// inlined there as before (with a second caller of the same copy,
/// `group_body` ran up to 3.5 % more instructions: callgrind, engine
/// bench). Likewise [`bar`].
fn call<'p, const SITE: u8>(prog: &Program, cx: &Lanes<'_>, fr: &Frame, (mask, m): (u32, u32), callee: &Callee, uni: bool, (args, nrets): (&'p [CallArg], usize)) -> Result<Flow<'p>, Trap> {
    if m == 0 {
        return Ok(Flow::Next);
    }
    if uni && m != mask {
        return Err(non_uniform("call.uni", mask, m));
    }
    let groups = match callee {
        Callee::Direct(f) => vec![(*f, m)],
        Callee::Indirect { fptr, allowed, table, proto } => {
            let t0;
            let fv = fetch!(cx, fr.regs, fptr, t0);
            let mut groups: Vec<(FuncId, u32)> = Vec::new();
            for l in lanes(m) {
                let f = resolve_fptr(prog, fv[l], allowed.as_deref(), table.as_deref(), proto.as_ref(), l)?;
                match groups.iter_mut().find(|g| g.0 == f) {
                    Some(g) => g.1 |= 1 << l,
                    None => groups.push((f, 1 << l)),
                }
            }
            if uni && groups.len() > 1 {
                return Err(Trap::new(
                    TrapKind::NonUniform,
                    format!("call.uni is not uniform: active lanes {mask:#010x} call {} different functions", groups.len()),
                ));
            }
            groups
        }
    };
    Ok(Flow::Event(Event::Call { groups, args, nrets }))
}

#[inline(always)]
fn ret(mask: u32, m: u32, uni: bool) -> Result<Flow<'static>, Trap> {
    if uni && m != 0 && m != mask {
        return Err(non_uniform("ret.uni", mask, m));
    }
    Ok(on_lanes(m, Event::Ret { mask: m }))
}

/// `trap` executed by lanes `m`.
fn trap(m: u32) -> Result<Flow<'static>, Trap> {
    if m == 0 {
        return Ok(Flow::Next);
    }
    Err(Trap::lane(TrapKind::Trap, m.trailing_zeros(), format!("`trap` executed by lanes {m:#010x}")))
}

/// `nanosleep t`. PTX ISA 9.7.13: each thread sleeps within [0, 2t], at
/// most 1 ms, and "the implementation may reduce the sleep duration for
/// individual threads within a warp such that all sleeping threads in the
/// warp wake up together". The warp sleeps for its smallest request:
/// within [0, 2t] for every lane, and exactly t when the lanes agree.
fn nanosleep(cx: &Lanes<'_>, fr: &Frame, m: u32, t: &Src) -> Flow<'static> {
    if m == 0 {
        return Flow::Next;
    }
    let t0;
    let tv = fetch!(cx, fr.regs, t, t0);
    let ns = lanes(m).map(|l| tv[l] & 0xffff_ffff).min().unwrap_or(0).min(1_000_000);
    Flow::Event(Event::Sleep { ns })
}

/// `bar.{sync,arrive,red}` / `barrier.*`: the operands evaluated for the
/// scheduler. The barrier id must be below 16 and the same in every lane.
fn bar<const SITE: u8>(cx: &Lanes<'_>, fr: &Frame, m: u32, kind: BarKind, (id, count): (&Src, Option<&Src>), dst: Option<Dst>, pred_in: Option<PSrc>) -> Result<Flow<'static>, Trap> {
    if m == 0 {
        return Ok(Flow::Next);
    }
    let first = m.trailing_zeros() as usize;
    let t0;
    let iv = fetch!(cx, fr.regs, id, t0);
    let idv = iv[first];
    if idv >= 16 {
        // PTX ISA 9.7.13.1: "Operand a ... values 0 through 15"; another
        // value has no barrier: undefined, trapped as an access outside the
        // CTA's 16 barriers.
        return Err(Trap::lane(TrapKind::OutOfBounds, first as u32, format!("barrier id {idv} is out of range: a CTA has barriers 0 to 15")));
    }
    if let Some(l) = lanes(m).find(|&l| iv[l] != idv) {
        return Err(Trap::lane(TrapKind::NonUniform, l as u32, format!("barrier id differs across lanes ({} vs {idv})", iv[l])));
    }
    let count = count.map(|c| {
        let t1;
        fetch!(cx, fr.regs, c, t1)[first] as u32
    });
    let pred = pred_in.map(|p| crate::datapath::psrc(&fr.preds, p));
    let args = BarArgs { kind, id: idv as u32, count, pred, dst };
    Ok(Flow::Event(Event::Bar { mask: m, args }))
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

