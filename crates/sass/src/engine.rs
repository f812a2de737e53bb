//! The executor of the machine form: warps on the CRS token stack, one warp
//! engine ([`ptxsim_exec::shell::WarpEngine`]) of exec's launch shell. This
//! file owns only a warp's turn on its CRS stack; the CTA loop, barrier
//! counting and release, deadlock and spin detection, fuel and the time
//! limit are the shell's, as for the PTX engine (a turn stops at a barrier
//! with its evaluated operands, and when lanes exit).
//!
//! Each warp has one execution context (pc, active mask, PTX frame) and a
//! stack of tokens (DIV, SSY, PBK, PCNT, CAL, PRET, PEXIT), each with a
//! target, a mask and a frame. Data-flow instructions run on the engine's
//! data path (`ptxsim_exec::datapath::step_data`); only control flow is
//! decided here.
//!
//! The rules (the seed and `sass-sm50-control-flow.md` §2):
//! - push-only instructions push a token with the current active mask;
//! - a divergent BRA/JMP pushes a DIV token (the not-taken lanes and pc) and
//!   runs the taken side; a divergent BRX/JMX runs its lowest target first
//!   and pushes a DIV token per other target (and one for the lanes that did
//!   not branch);
//! - SYNC parks the lanes that execute it (they wait in the nearest SSY
//!   token, which still holds them); BRK/CONT park them and remove them from
//!   every token above the nearest PBK/PCNT (the "disable mask"), RET from
//!   every token above the nearest CAL/PRET, EXIT from every token but PEXIT;
//! - when no lane is left active, the stack unwinds: the top token is popped
//!   and, if any of its lanes is still live, execution resumes at its target
//!   with its mask and frame; a popped CAL/PRET token ends its callee frames.
//! - `.U`: the branch is taken only if every active lane takes it, otherwise
//!   by none (likely, undocumented); `.LMT`: a NOP while the warp's LMT bit is
//!   set. A PRET that would pass the ApiCallLimit sets the LMT bit and pushes
//!   nothing; a CAL past it is a NOP.
//!
//! Hardware errors ([`HwError`]) are reported with warp, CTA, pc and reason.
//! PTX-level traps (memory bounds, `brx.idx` range, fuel, ...) keep their
//! engine kinds and name the PTX source line.

use crate::cc::{bm_flags, float_flags, iadd_flags, CcMasks};
use crate::isa::*;
use crate::layout::{self, HwError};
use ptxsim_exec::datapath::{op_class, step_data, DataEnv, OpClass, Setup, Warp};
use ptxsim_exec::program::{FuncId, Op};
use ptxsim_exec::shell::{self, Cta, Located, SpinState, StateHash, Stats, Stop, Wait, WarpEngine, WarpStatus, WarpTurn};
use ptxsim_exec::{Device, KernelArg, LaunchConfig, Module, RunError, TrapKind};
use std::collections::HashMap;
use std::fmt;

/// Token kinds of the CRS stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Div,
    Ssy,
    Pbk,
    Pcnt,
    Cal,
    Pret,
    Pexit,
}

#[derive(Clone, Debug)]
struct Token {
    kind: TokenKind,
    target: usize,
    mask: u32,
    frame: u32,
    /// Callee frames a CAL/PRET token ends when it is popped.
    callees: Vec<u32>,
    counted: bool,
}

/// Limits of the machine model.
#[derive(Clone, Debug)]
pub struct MachineConfig {
    /// CRS tokens per warp before STACK_ERROR.
    pub crs_capacity: usize,
    /// The ApiCallLimit that PRET/CAL count against (`None`: no limit).
    pub api_call_limit: Option<u32>,
}

impl Default for MachineConfig {
    fn default() -> MachineConfig {
        MachineConfig { crs_capacity: 4096, api_call_limit: None }
    }
}

/// An error of a machine-form run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SassError {
    /// A hardware warp error.
    Hardware { error: HwError, reason: String, cta: [u32; 3], warp: u32, pc: u64, function: String, line: u32 },
    /// An error of the data path or the launch (engine trap kinds).
    Run(RunError),
}

impl fmt::Display for SassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SassError::Hardware { error, reason, cta, warp, pc, function, line } => {
                write!(f, "{error}: {reason} (warp {warp} of CTA ({},{},{}), pc {pc:#06x} in `{function}`", cta[0], cta[1], cta[2])?;
                if *line != 0 {
                    write!(f, ", PTX line {line}")?;
                }
                write!(f, ")")
            }
            SassError::Run(e) => write!(f, "{e}"),
        }
    }
}

impl From<RunError> for SassError {
    fn from(e: RunError) -> SassError {
        SassError::Run(e)
    }
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct MachineStats {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub divergent_branches: u64,
    /// Deepest CRS stack seen.
    pub max_crs_depth: usize,
}

/// The final state of one warp, for tests of machine-only programs.
#[derive(Clone, Debug)]
pub struct WarpEnd {
    pub cta: [u32; 3],
    pub warp: u32,
    /// Scratch registers R0..R15, per lane.
    pub scratch: Vec<[u32; 32]>,
    pub cc: CcMasks,
    pub lmt: bool,
    pub exited: u32,
}

/// A warp of the machine form: the engine's warp (frames, exited lanes,
/// scheduling status) and the CRS state beside it.
pub struct MWarp {
    w: Warp,
    pc: usize,
    active: u32,
    frame: u32,
    crs: Vec<Token>,
    cc: CcMasks,
    scratch: Vec<[u32; 32]>,
    lmt: bool,
    api_depth: u32,
    /// No lane is left to run (the CRS stack unwound completely).
    done: bool,
    /// Deepest CRS stack seen.
    max_crs: usize,
    /// The last turn used its whole slice of fuel.
    spun: bool,
}

impl AsRef<Warp> for MWarp {
    fn as_ref(&self) -> &Warp {
        &self.w
    }
}

impl AsMut<Warp> for MWarp {
    fn as_mut(&mut self) -> &mut Warp {
        &mut self.w
    }
}

/// The machine form as a warp engine of exec's launch shell
/// ([`ptxsim_exec::shell`]): the CTA loop, barriers, deadlock and spin
/// detection and fuel are the shell's; a turn runs the CRS stack.
struct Engine<'a> {
    dev: &'a Device,
    mp: &'a MProgram,
    setup: &'a Setup,
    cfg: &'a MachineConfig,
    /// The machine function of each instruction.
    func_of: Vec<usize>,
    /// The machine function of each PTX function (the first one listed).
    entry_of: HashMap<u32, usize>,
    /// The jump table read at each bank-2 offset (the first one listed).
    table_at: HashMap<i64, TableRef>,
}

/// One turn of one warp: the engine's tables, the CTA's data environment,
/// the fuel left and the statistics.
struct Run<'a> {
    mp: &'a MProgram,
    setup: &'a Setup,
    env: DataEnv<'a>,
    cfg: &'a MachineConfig,
    func_of: &'a [usize],
    entry_of: &'a HashMap<u32, usize>,
    table_at: &'a HashMap<i64, TableRef>,
    /// Warp instructions the turn may still execute.
    budget: u64,
    stats: &'a mut Stats,
    /// Fuel set aside when the turn ends early ([`Run::end_turn`]).
    kept: u64,
}

/// Runs `kernel` of a machine program over the grid. `module` is the engine
/// module its data instructions belong to.
pub fn launch(
    dev: &Device,
    module: &Module,
    mp: &MProgram,
    kernel: &str,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    mcfg: &MachineConfig,
) -> Result<(MachineStats, Vec<WarpEnd>), SassError> {
    let setup = Setup::new(dev, module, kernel, cfg, args)?;
    let Some(kf) = mp.functions.iter().find(|f| f.ptx == setup.kernel && f.is_kernel) else {
        return Err(RunError::new(TrapKind::InvalidLaunch, format!("the machine program has no kernel `{kernel}`")).into());
    };
    let mut func_of = vec![0usize; mp.code.len()];
    for (fi, f) in mp.functions.iter().enumerate() {
        for x in func_of.iter_mut().skip(f.start).take(f.len) {
            *x = fi;
        }
    }
    let mut entry_of: HashMap<u32, usize> = HashMap::with_capacity(mp.functions.len());
    for (fi, f) in mp.functions.iter().enumerate() {
        entry_of.entry(f.ptx).or_insert(fi);
    }
    let mut table_at: HashMap<i64, TableRef> = HashMap::with_capacity(mp.tables.len());
    for t in &mp.tables {
        table_at.entry(t.offset as i64).or_insert(*t);
    }
    let eng = Engine { dev, mp, setup: &setup, cfg: mcfg, func_of, entry_of, table_at };
    let mut ends = Vec::new();
    let mut max_crs_depth = 0;
    let make = |env| {
        let mut warps = Vec::with_capacity(setup.geom.nwarps as usize);
        for i in 0..setup.geom.nwarps {
            let w = setup.new_warp(i)?;
            let active = w.valid;
            warps.push(MWarp { w, pc: kf.start, active, frame: 0, crs: Vec::new(), cc: CcMasks::default(), scratch: vec![[0; 32]; 16], lmt: false, api_depth: 0, done: false, max_crs: 0, spun: false });
        }
        Ok(Cta::new(env, setup.shared(), warps))
    };
    let done = |cta: Cta<MWarp>| {
        for mw in cta.warps {
            max_crs_depth = max_crs_depth.max(mw.max_crs);
            ends.push(WarpEnd { cta: cta.env.ctaid, warp: mw.w.id, scratch: mw.scratch, cc: mw.cc, lmt: mw.lmt, exited: mw.w.exited });
        }
    };
    let s = shell::run(&eng, &setup, cfg, make, done)?;
    let stats = MachineStats { warp_instructions: s.warp_instructions, thread_instructions: s.thread_instructions, divergent_branches: s.divergent_branches, max_crs_depth };
    Ok((stats, ends))
}

impl WarpEngine for Engine<'_> {
    type Warp = MWarp;
    type Fault = Fault;
    type Error = SassError;

    fn turn(&self, t: &mut WarpTurn<'_, MWarp>) -> Result<Stop, Fault> {
        let Cta { env, shared, warps, live, .. } = &mut *t.cta;
        let mut run = Run {
            mp: self.mp,
            setup: self.setup,
            env: self.setup.env(self.dev, env),
            cfg: self.cfg,
            func_of: &self.func_of,
            entry_of: &self.entry_of,
            table_at: &self.table_at,
            budget: t.budget,
            stats: &mut *t.stats,
            kept: 0,
        };
        let mw = &mut warps[t.warp];
        let before = mw.w.exited;
        let r = run.turn(mw, shared);
        t.budget = run.budget + run.kept;
        mw.spun = t.budget == 0;
        // Lanes PEXIT brought back are live threads again; lanes that
        // exited, or that a finished warp leaves behind, are not.
        *live += (before & !mw.w.exited).count_ones();
        let mut gone = mw.w.exited & !before;
        if mw.done {
            gone |= mw.w.valid & !mw.w.exited;
            mw.w.status = WarpStatus::Done;
        }
        match r? {
            _ if gone != 0 => Ok(Stop::Exited { mask: gone }),
            stop => Ok(stop),
        }
    }

    fn current(&self, mw: &MWarp) -> (FuncId, u32) {
        (self.func_of.get(mw.pc).copied().unwrap_or(0) as FuncId, mw.pc as u32)
    }

    fn advance(&self, mw: &mut MWarp, _mask: u32) {
        mw.pc += 1;
    }

    /// The whole warp waits at the barrier.
    fn block(&self, mw: &mut MWarp, _mask: u32, _waiting: u32, on: Wait) {
        mw.w.status = on.status();
    }

    fn release(&self, mw: &mut MWarp, on: Wait, _mask: u32) {
        if mw.w.status == on.status() {
            mw.pc += 1;
            mw.w.status = WarpStatus::Runnable;
        }
    }

    /// The running lanes, and those the CRS stack holds for later; only
    /// after a turn that used its whole slice (a warp that spins never
    /// stops otherwise: the machine form's `nanosleep` does not end a
    /// turn), so that a turn that stops at a barrier or an exit does not
    /// hash the warp's registers.
    fn spin_state(&self, mw: &MWarp) -> Option<SpinState> {
        if mw.done || !mw.spun {
            return None;
        }
        let parked: u32 = mw.crs.iter().fold(0, |a, t| a | t.mask) & !mw.active;
        Some(SpinState { hash: state_hash(mw), running: mw.active, parked, nested: parked != 0, at: self.current(mw), why: "wait on the CRS stack (a spin lock?)" })
    }

    fn locate(&self, cta: &Cta<MWarp>, warp: u32, f: Fault) -> SassError {
        let mw = &cta.warps[warp as usize];
        locate(f, &cta.env.ctaid, mw, mw.pc, self.mp)
    }
}

/// A problem inside a warp's turn, before the CTA and warp are attached.
enum Fault {
    Hw(HwError, String),
    Run(RunError),
    /// A trap of the launch shell (deadlock, spin, fuel, time).
    Shell(Located),
}

impl From<RunError> for Fault {
    fn from(e: RunError) -> Fault {
        Fault::Run(e)
    }
}

impl From<Located> for Fault {
    fn from(l: Located) -> Fault {
        Fault::Shell(l)
    }
}

/// The error of `f` in warp `mw` of CTA `cta`, at machine pc `pc`.
fn locate(f: Fault, cta: &[u32; 3], mw: &MWarp, pc: usize, mp: &MProgram) -> SassError {
    let ins = mp.code.get(pc);
    let function = mp.function_at(pc).map(|f| mp.functions[f].name.clone()).unwrap_or_default();
    match f {
        Fault::Hw(error, reason) => SassError::Hardware {
            error,
            reason,
            cta: *cta,
            warp: mw.w.id,
            pc: layout::addr_of(pc),
            function,
            line: ins.map(|i| i.line).unwrap_or(0),
        },
        Fault::Run(mut e) => {
            e.cta = e.cta.or(Some(*cta));
            e.warp = e.warp.or(Some(mw.w.id));
            if e.function.is_none() && !function.is_empty() {
                e.function = Some(function);
            }
            if e.line.is_none() {
                e.line = ins.map(|i| i.line).filter(|&l| l != 0);
            }
            SassError::Run(e)
        }
        // The shell's traps come with the machine pc they name.
        Fault::Shell(l) => locate(Fault::Run(RunError::new(l.trap.kind, l.trap.message).with_lane(l.trap.lane)), cta, mw, l.pc as usize, mp),
    }
}

fn hw<T>(e: HwError, reason: impl Into<String>) -> Result<T, Fault> {
    Err(Fault::Hw(e, reason.into()))
}

fn lanes(m: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| m >> l & 1 != 0)
}

impl Run<'_> {
    fn target_index(&self, addr: Result<u64, HwError>, what: &str) -> Result<usize, Fault> {
        let a = match addr {
            Ok(a) => a,
            Err(e) => return hw(e, format!("{what}: the target is outside 0..4 GiB")),
        };
        match layout::index_of(a, self.mp.code.len()) {
            Ok(i) => Ok(i),
            Err(HwError::MisalignedPc) => hw(HwError::MisalignedPc, format!("{what}: target {a:#x} is not on an 8-byte slot")),
            Err(e) => hw(e, format!("{what}: target {a:#x} is past the end of the code ({:#x})", layout::addr_of(self.mp.code.len()))),
        }
    }

    fn push(&mut self, mw: &mut MWarp, t: Token) -> Result<(), Fault> {
        if mw.crs.len() >= self.cfg.crs_capacity {
            return hw(HwError::StackError, format!("the CRS stack is full ({} tokens)", self.cfg.crs_capacity));
        }
        mw.crs.push(t);
        mw.max_crs = mw.max_crs.max(mw.crs.len());
        Ok(())
    }

    fn token(kind: TokenKind, target: usize, mask: u32, frame: u32) -> Token {
        Token { kind, target, mask, frame, callees: Vec::new(), counted: false }
    }

    /// The nearest token of `kind` above the nearest call token.
    fn find(mw: &MWarp, kinds: &[TokenKind]) -> Option<usize> {
        for (i, t) in mw.crs.iter().enumerate().rev() {
            if kinds.contains(&t.kind) {
                return Some(i);
            }
            if matches!(t.kind, TokenKind::Cal | TokenKind::Pret) {
                return None;
            }
        }
        None
    }

    /// Pops tokens until one has live lanes, and resumes there.
    fn unwind(&mut self, mw: &mut MWarp) -> Result<bool, Fault> {
        while let Some(t) = mw.crs.pop() {
            if matches!(t.kind, TokenKind::Cal | TokenKind::Pret) {
                if t.counted {
                    mw.api_depth = mw.api_depth.saturating_sub(1);
                }
                for &f in &t.callees {
                    mw.w.free_frame(f);
                }
            }
            let live = if t.kind == TokenKind::Pexit { t.mask } else { t.mask & !mw.w.exited };
            if live != 0 {
                if t.kind == TokenKind::Pexit && mw.w.exited & live != 0 {
                    mw.w.exited &= !live;
                    self.end_turn();
                }
                mw.active = live;
                mw.pc = t.target;
                mw.frame = t.frame;
                return Ok(true);
            }
        }
        mw.done = true;
        mw.active = 0;
        Ok(false)
    }

    fn reg(mw: &MWarp, r: &AnyReg, l: usize) -> u32 {
        match r {
            AnyReg::R(n) => mw.scratch.get(*n as usize).map(|x| x[l]).unwrap_or(0),
            AnyReg::Ptx { slot, .. } => mw.w.frames[mw.frame as usize].regs.get(*slot as usize).map(|x| x[l] as u32).unwrap_or(0),
        }
    }

    fn set(mw: &mut MWarp, d: MReg, l: usize, v: u32) {
        let d = d as usize;
        if mw.scratch.len() <= d {
            mw.scratch.resize(d + 1, [0; 32]);
        }
        mw.scratch[d][l] = v;
    }

    fn src(mw: &MWarp, s: &MSrc, l: usize) -> u32 {
        match s {
            MSrc::R(r) => Self::reg(mw, &AnyReg::R(*r), l),
            MSrc::Imm(v) => *v,
        }
    }

    fn guard(mw: &MWarp, g: &Option<Guard>) -> u32 {
        match g {
            None => mw.active,
            Some(g) => {
                let v = if g.slot == u32::MAX { u32::MAX } else { mw.w.frames[mw.frame as usize].preds.get(g.slot as usize).copied().unwrap_or(0) };
                mw.active & if g.neg { !v } else { v }
            }
        }
    }

    /// Takes `m` of the active lanes to `t` (DIV token for the rest).
    fn branch(&mut self, mw: &mut MWarp, m: u32, t: usize) -> Result<(), Fault> {
        if m == 0 {
            mw.pc += 1;
        } else if m == mw.active {
            mw.pc = t;
        } else {
            let tok = Self::token(TokenKind::Div, mw.pc + 1, mw.active & !m, mw.frame);
            self.push(mw, tok)?;
            self.stats.divergent_branches += 1;
            mw.active = m;
            mw.pc = t;
        }
        Ok(())
    }

    /// Per-lane targets (BRX/JMX): lowest target first, DIV tokens for the others.
    fn branch_lanes(&mut self, mw: &mut MWarp, m: u32, targets: &[(usize, u32)]) -> Result<(), Fault> {
        let rest = mw.active & !m;
        let mut groups: Vec<(usize, u32)> = targets.to_vec();
        groups.sort_by_key(|g| g.0);
        if rest != 0 {
            let tok = Self::token(TokenKind::Div, mw.pc + 1, rest, mw.frame);
            self.push(mw, tok)?;
        }
        if groups.len() + usize::from(rest != 0) > 1 {
            self.stats.divergent_branches += 1;
        }
        for &(t, gm) in groups.iter().skip(1).rev() {
            let tok = Self::token(TokenKind::Div, t, gm, mw.frame);
            self.push(mw, tok)?;
        }
        match groups.first() {
            Some(&(t, gm)) => {
                mw.active = gm;
                mw.pc = t;
                Ok(())
            }
            None => {
                mw.pc += 1;
                Ok(())
            }
        }
    }

    fn park(&mut self, mw: &mut MWarp, m: u32) -> Result<(), Fault> {
        mw.active &= !m;
        if mw.active == 0 {
            self.unwind(mw)?;
        } else {
            mw.pc += 1;
        }
        Ok(())
    }

    fn bank2(&self, off: i64) -> Option<u32> {
        let o = usize::try_from(off).ok()?;
        let b = self.mp.bank2.get(o..o.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn const_word(&self, bank: u8, offset: u16) -> Result<u32, Fault> {
        if bank != 2 {
            return Err(Fault::Run(RunError::new(TrapKind::Unsupported, format!("constant bank {bank} is not modelled by the machine form (only bank 2, the jump tables)"))));
        }
        self.bank2(offset as i64).ok_or_else(|| Fault::Run(RunError::new(TrapKind::OutOfBounds, format!("c[0x2][{offset:#x}] is past the end of bank 2 ({} bytes)", self.mp.bank2.len()))))
    }

    /// Lanes exited, or exited lanes came back (PEXIT): the turn ends after
    /// this instruction so that the shell counts the CTA's live threads
    /// again (its fuel is set aside, so the loop's one fuel test ends it).
    fn end_turn(&mut self) {
        self.kept += self.budget;
        self.budget = 0;
    }

    /// Runs the warp until its fuel is spent, it stops at a barrier, or
    /// lanes exit.
    fn turn(&mut self, mw: &mut MWarp, shared: &mut [u8]) -> Result<Stop, Fault> {
        loop {
            if mw.done {
                return Ok(Stop::Done);
            }
            if self.budget == 0 {
                return Ok(Stop::Yield);
            }
            self.budget -= 1;
            self.stats.warp_instructions += 1;
            self.stats.thread_instructions += mw.active.count_ones() as u64;
            let Some(ins) = self.mp.code.get(mw.pc) else {
                return hw(HwError::PcOverflow, "the pc ran past the end of the code");
            };
            let pc_addr = layout::addr_of(mw.pc);
            match &ins.op {
                MOp::Data { pc, .. } => {
                    if let Some(stop) = self.data_line(mw, shared, *pc)? {
                        return Ok(stop);
                    }
                }
                MOp::Nop => mw.pc += 1,
                MOp::Ssy { .. } | MOp::Pbk { .. } | MOp::Pcnt { .. } | MOp::Pexit { .. } | MOp::Pret { .. } => self.push_line(mw, ins, pc_addr)?,
                MOp::Sync { .. } | MOp::Brk { .. } | MOp::Cont { .. } | MOp::Ret { .. } | MOp::Exit { .. } => self.pop_line(mw, ins)?,
                MOp::Bra { .. } | MOp::Jmp { .. } | MOp::Brx { call: None, .. } | MOp::Jmx { .. } => self.branch_line(mw, ins, pc_addr)?,
                MOp::Brx { call: Some(c), .. } | MOp::Cal { call: Some(c), .. } | MOp::Jcal { call: Some(c), .. } => {
                    let k = c.pc;
                    let m = Self::guard(mw, &ins.guard);
                    self.ptx_call(mw, shared, ins, k, m)?;
                }
                MOp::Cal { call: None, .. } | MOp::Jcal { call: None, .. } => self.call_line(mw, ins, pc_addr)?,
                MOp::Mov32i { .. } | MOp::Iadd { .. } | MOp::Fadd { .. } | MOp::Iset { .. } | MOp::Fset { .. } | MOp::Shl { .. } | MOp::Ldc { .. } => self.register_line(mw, ins)?,
            }
        }
    }

    /// SSY, PBK, PCNT, PEXIT, PRET: push a token for the active lanes.
    #[inline]
    fn push_line(&mut self, mw: &mut MWarp, ins: &MInstr, pc_addr: u64) -> Result<(), Fault> {
        match &ins.op {
            MOp::Ssy { off } | MOp::Pbk { off } | MOp::Pcnt { off } | MOp::Pexit { off } => {
                let kind = match &ins.op {
                    MOp::Ssy { .. } => TokenKind::Ssy,
                    MOp::Pbk { .. } => TokenKind::Pbk,
                    MOp::Pcnt { .. } => TokenKind::Pcnt,
                    _ => TokenKind::Pexit,
                };
                let t = self.target_index(layout::relative(pc_addr, *off, 0), "push")?;
                self.push(mw, Self::token(kind, t, mw.active, mw.frame))?;
                mw.pc += 1;
            }
            MOp::Pret { off } => {
                let t = self.target_index(layout::relative(pc_addr, *off, 0), "PRET")?;
                match self.cfg.api_call_limit {
                    Some(lim) if mw.api_depth >= lim => mw.lmt = true,
                    _ => {
                        let mut tok = Self::token(TokenKind::Pret, t, mw.active, mw.frame);
                        tok.counted = true;
                        self.push(mw, tok)?;
                        mw.api_depth += 1;
                    }
                }
                mw.pc += 1;
            }
            _ => {}
        }
        Ok(())
    }

    /// SYNC, BRK, CONT, RET, EXIT: the lanes of the guard and CC test leave
    /// for their token (or exit).
    #[inline]
    fn pop_line(&mut self, mw: &mut MWarp, ins: &MInstr) -> Result<(), Fault> {
        match &ins.op {
            MOp::Sync { cc } | MOp::Brk { cc } | MOp::Cont { cc } => {
                let m = Self::guard(mw, &ins.guard) & cc.eval(&mw.cc);
                if m == 0 {
                    mw.pc += 1;
                    return Ok(());
                }
                let (kind, name) = match &ins.op {
                    MOp::Sync { .. } => (TokenKind::Ssy, "SYNC"),
                    MOp::Brk { .. } => (TokenKind::Pbk, "BRK"),
                    _ => (TokenKind::Pcnt, "CONT"),
                };
                let Some(at) = Self::find(mw, &[kind]) else {
                    return hw(HwError::StackError, format!("{name} with no matching {kind:?} token on the CRS stack"));
                };
                if kind != TokenKind::Ssy {
                    for t in &mut mw.crs[at + 1..] {
                        t.mask &= !m;
                    }
                }
                self.park(mw, m)?;
            }
            MOp::Ret { cc } => {
                let m = Self::guard(mw, &ins.guard) & cc.eval(&mw.cc);
                if m == 0 {
                    mw.pc += 1;
                    return Ok(());
                }
                if mw.crs.is_empty() {
                    // RET on an empty stack acts as EXIT (SPA opRET).
                    self.exit(mw, m)?;
                    return Ok(());
                }
                let Some(at) = mw.crs.iter().rposition(|t| matches!(t.kind, TokenKind::Cal | TokenKind::Pret)) else {
                    return hw(HwError::RetEmptyStackError, "RET with no CAL/PRET token on the CRS stack (only reconvergence tokens)");
                };
                for t in &mut mw.crs[at + 1..] {
                    t.mask &= !m;
                }
                if m != mw.active {
                    self.check_uni(mw, ins)?;
                }
                if mw.crs[at].frame != mw.frame {
                    // Returning from a PTX call: its return values go back now.
                    calls::leave(self.setup, &mut mw.w, mw.frame, m).map_err(Fault::Run)?;
                }
                self.park(mw, m)?;
            }
            MOp::Exit { cc } => {
                let m = Self::guard(mw, &ins.guard) & cc.eval(&mw.cc);
                if m == 0 {
                    mw.pc += 1;
                    return Ok(());
                }
                self.exit(mw, m)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// BRA, JMP, and BRX, JMX without a PTX call binding.
    #[inline]
    fn branch_line(&mut self, mw: &mut MWarp, ins: &MInstr, pc_addr: u64) -> Result<(), Fault> {
        match &ins.op {
            MOp::Bra { cc, u, lmt, dest } | MOp::Jmp { cc, u, lmt, dest } => {
                if *lmt && mw.lmt {
                    mw.pc += 1;
                    return Ok(());
                }
                let is_bra = matches!(ins.op, MOp::Bra { .. });
                let mut m = Self::guard(mw, &ins.guard) & cc.eval(&mw.cc);
                if *u {
                    m = if m == mw.active { m } else { 0 };
                }
                if m == 0 {
                    mw.pc += 1;
                    return Ok(());
                }
                let addr = match (dest, is_bra) {
                    (Dest::Imm(off), true) => layout::relative(pc_addr, *off, 0),
                    (Dest::Imm(a), false) => layout::absolute(0, *a),
                    (Dest::Const { bank, offset }, true) => layout::relative(pc_addr, self.const_word(*bank, *offset)? as i32 as i64, 0),
                    (Dest::Const { bank, offset }, false) => layout::absolute(self.const_word(*bank, *offset)? as u64, 0),
                };
                let t = self.target_index(addr, if is_bra { "BRA" } else { "JMP" })?;
                if m != mw.active {
                    self.check_uni(mw, ins)?;
                }
                self.branch(mw, m, t)?;
            }
            MOp::Brx { cc, lmt, ra, imm, call: None } | MOp::Jmx { cc, lmt, ra, imm } => {
                if *lmt && mw.lmt {
                    mw.pc += 1;
                    return Ok(());
                }
                let is_brx = matches!(ins.op, MOp::Brx { .. });
                let m = Self::guard(mw, &ins.guard) & cc.eval(&mw.cc);
                let mut groups: Vec<(usize, u32)> = Vec::new();
                for l in lanes(m) {
                    let v = Self::reg(mw, ra, l);
                    let a = if is_brx { layout::relative(pc_addr, v as i32 as i64, *imm) } else { layout::absolute(v as u64, *imm) };
                    let t = self.target_index(a, if is_brx { "BRX" } else { "JMX" }).map_err(|f| match f {
                        Fault::Hw(e, r) => Fault::Hw(e, format!("{r} (lane {l})")),
                        o => o,
                    })?;
                    match groups.iter_mut().find(|g| g.0 == t) {
                        Some(g) => g.1 |= 1 << l,
                        None => groups.push((t, 1 << l)),
                    }
                }
                if groups.len() > 1 || (m != mw.active && m != 0) {
                    self.check_uni(mw, ins)?;
                }
                self.branch_lanes(mw, m, &groups)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// CAL, JCAL to machine code (no PTX call binding): push a CAL token
    /// and jump.
    #[inline]
    fn call_line(&mut self, mw: &mut MWarp, ins: &MInstr, pc_addr: u64) -> Result<(), Fault> {
        match &ins.op {
            MOp::Cal { call: None, .. } | MOp::Jcal { call: None, .. } => {
                let t = match &ins.op {
                    MOp::Cal { off, .. } => self.target_index(layout::relative(pc_addr, *off, 0), "CAL")?,
                    MOp::Jcal { addr, .. } => self.target_index(layout::absolute(*addr as u64, 0), "JCAL")?,
                    _ => unreachable_target()?,
                };
                if let Some(lim) = self.cfg.api_call_limit {
                    if mw.api_depth >= lim {
                        mw.pc += 1;
                        return Ok(());
                    }
                }
                if mw.api_depth >= self.setup.geom.max_depth {
                    return hw(HwError::ApiStackError, format!("call depth past the hardware limit of {}", self.setup.geom.max_depth));
                }
                let mut tok = Self::token(TokenKind::Cal, mw.pc + 1, mw.active, mw.frame);
                tok.counted = true;
                self.push(mw, tok)?;
                mw.api_depth += 1;
                mw.pc = t;
            }
            _ => {}
        }
        Ok(())
    }

    /// A data line: the PTX instruction at index `pc` of the current
    /// function through the engine's data path, or a barrier through the
    /// shared barrier bookkeeping. `Some` when the warp stops its turn.
    fn data_line(&mut self, mw: &mut MWarp, shared: &mut [u8], pc: u32) -> Result<Option<Stop>, Fault> {
        let f = &self.mp.functions[self.func_of[mw.pc]];
        let frame_func = mw.w.frames[mw.frame as usize].func;
        if frame_func != f.ptx {
            return Err(Fault::Run(RunError::new(TrapKind::Unsupported, format!("a data instruction of `{}` runs in a frame of another function (reached without a CAL)", f.name))));
        }
        let Some(pi) = self.setup.program.functions[f.ptx as usize].code.get(pc as usize) else {
            return Err(Fault::Run(RunError::new(TrapKind::Unsupported, "internal: data instruction index out of range")));
        };
        match op_class(&pi.op) {
            OpClass::Data => {
                step_data(&self.env, shared, &mut mw.w, mw.frame, pi, mw.active).map_err(|mut e| {
                    e.line = e.line.or(Some(pi.line));
                    Fault::Run(e)
                })?;
                mw.pc += 1;
            }
            OpClass::Sync => match &pi.op {
                Op::Bar { .. } => {
                    let at = calls::barrier_args(self.setup, &self.env, shared, &mut mw.w, mw.frame, pc, mw.active).map_err(|mut e| {
                        e.line = e.line.or(Some(pi.line));
                        Fault::Run(e)
                    })?;
                    let Some((m, args)) = at else {
                        mw.pc += 1;
                        return Ok(None);
                    };
                    // The shell counts the arrival, parks the warp or moves
                    // it past the barrier.
                    return Ok(Some(Stop::Bar { frame: mw.frame, pc: mw.pc as u32, mask: m, args }));
                }
                Op::Nanosleep { .. } => mw.pc += 1,
                Op::GridSync { .. } => return Err(Fault::Run(RunError::new(TrapKind::Unsupported, "the grid-wide barrier (cudaCGSynchronize) is not supported by the sass engine yet"))),
                _ => return Err(Fault::Run(RunError::new(TrapKind::Unsupported, "cluster barriers are not supported by the sass engine yet"))),
            },
            OpClass::Control => {
                let m = ptxsim_exec::datapath::guard_mask(&mw.w.frames[mw.frame as usize], pi.guard, mw.active);
                return Err(Fault::Run(match &pi.op {
                    Op::Trap if m != 0 => RunError::new(TrapKind::Trap, "the kernel executed `trap`"),
                    Op::Trap => {
                        mw.pc += 1;
                        return Ok(None);
                    }
                    Op::Unsupported(name) if m != 0 => RunError::new(TrapKind::Unsupported, name.clone()),
                    Op::Unsupported(_) => {
                        mw.pc += 1;
                        return Ok(None);
                    }
                    _ => RunError::new(TrapKind::Unsupported, format!("PTX control flow in a data line at {:#06x}: write it as machine instructions", layout::addr_of(mw.pc))),
                }));
            }
        }
        Ok(None)
    }

    /// The flag- and register-writing machine instructions (MOV32I, IADD,
    /// FADD, ISET, FSET, SHL, LDC) for the lanes of their guard.
    fn register_line(&mut self, mw: &mut MWarp, ins: &MInstr) -> Result<(), Fault> {
        match &ins.op {
        MOp::Mov32i { d, imm } => {
            for l in lanes(Self::guard(mw, &ins.guard)) {
                Self::set(mw, *d, l, *imm);
            }
            mw.pc += 1;
        }
        MOp::Iadd { x, cc, d, a, b } => {
            for l in lanes(Self::guard(mw, &ins.guard)) {
                let old = mw.cc.lane(l as u32);
                let (r, fl) = iadd_flags(Self::reg(mw, &AnyReg::R(*a), l), Self::src(mw, b, l), *x && old.c, *x, old.z);
                Self::set(mw, *d, l, r);
                if *cc {
                    mw.cc.set_lane(l as u32, fl);
                }
            }
            mw.pc += 1;
        }
        MOp::Fadd { cc, d, a, b } => {
            for l in lanes(Self::guard(mw, &ins.guard)) {
                let r = f32::from_bits(Self::reg(mw, &AnyReg::R(*a), l)) + f32::from_bits(Self::src(mw, b, l));
                Self::set(mw, *d, l, r.to_bits());
                if *cc {
                    mw.cc.set_lane(l as u32, float_flags(r));
                }
            }
            mw.pc += 1;
        }
        MOp::Iset { cmp, unsigned, cc, d, a, b } => {
            for l in lanes(Self::guard(mw, &ins.guard)) {
                let (x, y) = (Self::reg(mw, &AnyReg::R(*a), l), Self::src(mw, b, l));
                let r = if *unsigned { cmp.eval(x, y) } else { cmp.eval(x as i32, y as i32) };
                Self::set(mw, *d, l, if r { u32::MAX } else { 0 });
                if *cc {
                    mw.cc.set_lane(l as u32, bm_flags(r));
                }
            }
            mw.pc += 1;
        }
        MOp::Fset { test, cc, d, a, b } => {
            for l in lanes(Self::guard(mw, &ins.guard)) {
                let (x, y) = (f32::from_bits(Self::reg(mw, &AnyReg::R(*a), l)), f32::from_bits(Self::src(mw, b, l)));
                // The comparison's flags are those of x - y's sign and
                // zero, with NaN setting Z and S: the CC test then decides.
                let fl = if x.is_nan() || y.is_nan() { float_flags(f32::NAN) } else { float_flags(if x == y { 0.0 } else if x < y { -1.0 } else { 1.0 }) };
                let r = test.holds(fl);
                Self::set(mw, *d, l, if r { u32::MAX } else { 0 });
                if *cc {
                    mw.cc.set_lane(l as u32, bm_flags(r));
                }
            }
            mw.pc += 1;
        }
        MOp::Shl { d, a, sh } => {
            for l in lanes(Self::guard(mw, &ins.guard)) {
                let v = Self::reg(mw, a, l) << sh;
                Self::set(mw, *d, l, v);
            }
            mw.pc += 1;
        }
        MOp::Ldc { d, bank, a, imm } => {
            let table = self.table_at.get(&(*imm as i64)).copied();
            for l in lanes(Self::guard(mw, &ins.guard)) {
                let off = Self::reg(mw, a, l) as i32 as i64 + *imm as i64;
                if let Some(t) = table {
                    let end = t.offset as i64 + 4 * t.len as i64;
                    if off < t.offset as i64 || off >= end {
                        let idx = (off - t.offset as i64) / 4;
                        return Err(Fault::Run(RunError::new(TrapKind::BrxIndexOutOfRange, format!("brx.idx index {idx} is outside its .branchtargets list of {} labels", t.len)).with_lane(Some(l as u32))));
                    }
                }
                if *bank != 2 {
                    return Err(Fault::Run(RunError::new(TrapKind::Unsupported, format!("constant bank {bank} is not modelled by the machine form"))));
                }
                let v = self.bank2(off).ok_or_else(|| Fault::Run(RunError::new(TrapKind::OutOfBounds, format!("c[0x2][{off:#x}] is outside bank 2 ({} bytes)", self.mp.bank2.len())).with_lane(Some(l as u32))))?;
                Self::set(mw, *d, l, v);
            }
            mw.pc += 1;
        }
            _ => return Err(Fault::Run(RunError::new(TrapKind::Unsupported, "internal: not a register instruction"))),
        }
        Ok(())
    }

    /// A CAL/JCAL/BRX that performs the PTX `call` at index `k` of the
    /// current function for lanes `m`: the engine's call path resolves the
    /// callees (with its traps), creates their frames and passes the
    /// arguments; the lanes go to each callee's machine entry, lowest address
    /// first, the other groups waiting in DIV tokens. A CAL pushes its return
    /// token; an indirect call's PRET pushed it already, and the new frames
    /// end when that token is popped.
    fn ptx_call(&mut self, mw: &mut MWarp, shared: &mut [u8], ins: &MInstr, k: u32, m: u32) -> Result<(), Fault> {
        if m == 0 {
            mw.pc += 1;
            return Ok(());
        }
        // The engine's handler applies the call's guard to the active lanes
        // itself (and checks `.uni` against them).
        let groups = calls::groups(self.setup, &self.env, shared, &mut mw.w, mw.frame, k, mw.active).map_err(Fault::Run)?;
        if groups.is_empty() {
            mw.pc += 1;
            return Ok(());
        }
        let m = groups.iter().fold(0, |a, g| a | g.1);
        let mut entries = Vec::with_capacity(groups.len());
        for &(f, gm) in &groups {
            let Some(mf) = self.entry_of.get(&f).map(|&fi| &self.mp.functions[fi]) else {
                return Err(Fault::Run(RunError::new(TrapKind::Unsupported, format!("the machine program has no code for `{}`", self.setup.program.functions[f as usize].name))));
            };
            let nf = calls::enter(self.setup, &mut mw.w, mw.frame, k, f, gm).map_err(Fault::Run)?;
            entries.push((mf.start, gm, nf));
        }
        entries.sort_by_key(|e| e.0);
        let frames: Vec<u32> = entries.iter().map(|e| e.2).collect();
        let rest = mw.active & !m;
        match &ins.op {
            MOp::Cal { .. } | MOp::Jcal { .. } => {
                if rest != 0 {
                    let tok = Self::token(TokenKind::Div, mw.pc + 1, rest, mw.frame);
                    self.push(mw, tok)?;
                }
                let mut tok = Self::token(TokenKind::Cal, mw.pc + 1, m, mw.frame);
                tok.callees = frames;
                tok.counted = true;
                self.push(mw, tok)?;
                mw.api_depth += 1;
            }
            _ => {
                match mw.crs.iter_mut().rev().find(|t| t.kind == TokenKind::Pret) {
                    Some(t) => t.callees.extend(frames),
                    None => return hw(HwError::RetEmptyStackError, "an indirect call (BRX to a function) with no PRET token to return to"),
                }
                if rest != 0 {
                    let tok = Self::token(TokenKind::Div, mw.pc + 1, rest, mw.frame);
                    self.push(mw, tok)?;
                }
            }
        }
        if entries.len() > 1 || rest != 0 {
            self.stats.divergent_branches += 1;
        }
        for &(start, gm, nf) in entries.iter().skip(1).rev() {
            let tok = Self::token(TokenKind::Div, start, gm, nf);
            self.push(mw, tok)?;
        }
        let (start, gm, nf) = entries[0];
        mw.pc = start;
        mw.active = gm;
        mw.frame = nf;
        Ok(())
    }

    /// A machine branch lowered from a PTX `.uni` branch that splits the warp:
    /// the PTX-level trap `non_uniform` at the PTX line.
    fn check_uni(&self, mw: &MWarp, ins: &MInstr) -> Result<(), Fault> {
        let Origin::Ptx(k) = ins.origin else { return Ok(()) };
        let f = &self.mp.functions[self.func_of[mw.pc]];
        let uni = match self.setup.program.functions[f.ptx as usize].code.get(k as usize).map(|i| &i.op) {
            Some(Op::Bra { uni, .. }) | Some(Op::Brx { uni, .. }) | Some(Op::Ret { uni }) => *uni,
            _ => false,
        };
        if uni {
            let what = match ins.op {
                MOp::Brx { .. } => "brx.idx.uni",
                MOp::Ret { .. } => "ret.uni",
                _ => "bra.uni",
            };
            return Err(Fault::Run(RunError::new(TrapKind::NonUniform, format!("{what} is not uniform: the active lanes {:#010x} do not all go the same way", mw.active))));
        }
        Ok(())
    }

    fn exit(&mut self, mw: &mut MWarp, m: u32) -> Result<(), Fault> {
        mw.w.exited |= m;
        self.end_turn();
        for t in mw.crs.iter_mut() {
            if t.kind != TokenKind::Pexit {
                t.mask &= !m;
            }
        }
        self.park(mw, m)
    }
}

fn unreachable_target() -> Result<usize, Fault> {
    Err(Fault::Run(RunError::new(TrapKind::Unsupported, "internal: call form")))
}

/// The architectural state of a warp: pc, masks, tokens, flags and the
/// registers of its active lanes.
fn state_hash(mw: &MWarp) -> u64 {
    let mut h = StateHash::new();
    h.mix(((mw.pc as u64) << 32) | mw.active as u64);
    for t in &mw.crs {
        h.mix(((t.target as u64) << 32) | t.mask as u64);
        h.mix(((t.kind as u64) << 32) | t.frame as u64);
    }
    h.mix(((mw.cc.z as u64) << 32) | mw.cc.s as u64);
    h.mix(((mw.cc.c as u64) << 32) | mw.cc.o as u64);
    h.frame(&mw.w.frames[mw.frame as usize], mw.active);
    for r in &mw.scratch {
        for l in lanes(mw.active) {
            h.mix(r[l] as u64);
        }
    }
    h.finish()
}

/// The engine's call path (argument passing, callee frames, function-pointer
/// resolution and their traps), shared with the PTX engine.
use ptxsim_exec::callpath as calls;
