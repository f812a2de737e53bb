//! The compiling-tier seam: what a compiler of [`crate::program::Program`]
//! functions (the `ptxsim-jit` crate) supplies to the PTX dispatch loop
//! (`exec.rs`), and what that loop lends the compiled code ([`Env`]: the
//! global memory, the kernel parameters, the special registers' inputs).
//! Data and traits only, so the engine never depends on a compiler; it
//! sits in the machine layer, just above the global memory it names.
//!
//! A [`Tier`] is attached to a [`crate::Module`] ([`crate::Module::set_tier`])
//! and lives as long as it (its compiled code is cached per module). The
//! dispatch loop of a group asks it once for the [`Compiled`] code of the
//! group's function and, at every pc that code marks as an entry (and that
//! it did not just hand back), runs it: the code runs the same group (the
//! same lanes, stop pc and branch rule) from that pc as the interpreter
//! would, and leaves in [`Group`] the pc where the interpreter goes on and
//! the fuel left. Invariants the compiled code keeps:
//! - it executes exactly what the interpreter would, instruction by
//!   instruction, with the same register and predicate bits afterwards
//!   (inactive lanes untouched);
//! - it spends one unit of fuel per warp instruction it executes and hands
//!   back, without executing it, any instruction it has no fuel for, any
//!   instruction it does not compile, the stop pc, a branch that diverges
//!   (or that is taken while [`Group::yield_on_branch`]) and every other
//!   event the scheduler must see; so fuel exhaustion, traps, divergence and
//!   reconvergence happen in the interpreter, at the same points;
//! - a memory instruction it runs takes effect in every lane of the group
//!   or in none: when a lane's access would trap (misaligned, out of
//!   bounds), falls outside the global memory (another window of a
//!   generic address), or async copies are pending ([`Env::mem_ready`]),
//!   the instruction is handed back before any lane has taken effect, and
//!   the interpreter runs it (and traps exactly as it would have).
//!
//! In stack mode compiled code may also run a loop whose exits all lead
//! to one reconvergence point lane by lane (a lane's registers are its
//! own, and such a loop touches nothing else), provided it reports what
//! the interpreter would have: the divergent branches, the thread
//! instructions (`threads_less`), the fuel of the warp-wide run, and,
//! when the fuel ends the loop early, the lanes still in it
//! ([`Group::split`]: the stack entries the same divergences push).
//!
//! In stack mode compiled code may also run both sides of a divergent
//! `bra` itself, each under its side's lanes in the interpreter's order
//! (the taken side first) up to the branch's reconvergence point, where
//! the group's lanes go on together. It counts the divergence; when it
//! leaves inside a side it reports that side ([`Group::side`]), and the
//! scheduler rebuilds the stack that divergence pushed.
//!
//! After every group the loop reports the warp instructions it ran in each
//! function ([`Tier::observe`]), from which a tier decides when to compile.

use crate::memory::GlobalMemory;
use crate::program::{FuncId, L};

/// What compiled code reaches besides the frame's registers: lent by the
/// dispatch loop for one run.
pub struct Env<'a> {
    /// The global memory (loads acquire, stores release, as the data path's).
    pub global: &'a GlobalMemory,
    /// The kernel's parameter buffer (`ld.param` of a kernel parameter).
    pub kparams: &'a [u8],
    /// `%tid.{x,y,z}` of each lane of the warp.
    pub tid: &'a [[u64; 32]; 3],
    /// `%ntid`, `%ctaid` and `%nctaid`.
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    /// No `cp.async` copy of the warp is pending, so loads and stores need
    /// no check against them (else compiled code hands them back).
    pub mem_ready: bool,
    /// The warp's count of stores (spin detection): one per store
    /// instruction executed, as the data path counts.
    pub stores: &'a mut u64,
    /// The CTA's shared memory (`ld.shared`/`st.shared` at offsets inside it).
    pub shared: &'a mut [u8],
    /// The module's constant bank (`ld.const` at offsets inside it).
    pub consts: &'a [u8],
}

/// The state of a group that compiled code runs and updates.
#[derive(Clone, Debug)]
pub struct Group {
    /// Where the group is: on entry an entry pc of the code, on return the
    /// pc of the next instruction the interpreter executes.
    pub pc: u32,
    /// The lanes of the group.
    pub mask: u32,
    /// The group's stop pc (its reconvergence point; `u32::MAX`: none).
    pub stop: u32,
    /// Whether a taken branch ends the group's run (independent thread
    /// scheduling with other groups waiting).
    pub yield_on_branch: bool,
    /// Fuel left: warp instructions the group may still execute.
    pub left: u64,
    /// The group runs under the reconvergence stack (stack mode), so the
    /// code may run a loop lane by lane (see [`Group::split`]).
    pub stack: bool,
    /// Out: how many fewer thread instructions the code executed than
    /// its warp instructions times the group's lanes (lanes that left a
    /// loop early executed no more of it).
    pub threads_less: u64,
    /// Out: the divergent branches the code executed, as (pc, times).
    pub diverged: Vec<(u32, u64)>,
    /// Out (stack mode only): the group split as divergent branches with
    /// reconvergence point `.0` split it: lanes `.1` go on at [`Group::pc`],
    /// the group's other lanes wait at `.0`.
    pub split: Option<(u32, u32)>,
    /// Out (stack mode only): the code left inside sides of divergent
    /// `bra`s it ran itself ([`Side`]), outermost first (a divergence
    /// inside a side's lanes is the next).
    pub sides: Vec<Side>,
}

/// Compiled code diverged at a `bra` (it counted the divergence in
/// [`Group::diverged`]) and left while running one of its sides: the
/// stack the interpreter would have is that of the divergence at
/// `branch` with the `taken` lanes of the group (the taken side first),
/// with the taken side already run to the reconvergence point when
/// `second`; the group's current lanes are the side's, at [`Group::pc`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub branch: u32,
    pub taken: u32,
    pub second: bool,
}

impl Side {
    /// The branch's target and its reconvergence point in `f` (the point
    /// also as the target when the pc holds no `bra`; `PC_EXIT` when there
    /// is none).
    pub fn pcs(&self, f: &crate::program::Function) -> (u32, u32) {
        let r = f.reconv.get(self.branch as usize).copied().unwrap_or(crate::program::PC_EXIT);
        match f.code.get(self.branch as usize).map(|i| &i.op) {
            Some(crate::program::Op::Bra { target, .. }) => (*target, r),
            _ => (r, r),
        }
    }
}

/// A function's compiled code.
pub trait Compiled: Send + Sync {
    /// For each pc of the function, whether the code can start there.
    /// (A tier may switch an entry off while launches run: the flags are
    /// read with relaxed ordering, once per pc the interpreter passes.)
    fn entries(&self) -> &[std::sync::atomic::AtomicBool];
    /// Runs the group `g` from `g.pc` (an entry) on the frame's registers
    /// and predicates and what `env` lends, as described in the module
    /// documentation.
    fn run(&self, regs: &mut [L], preds: &mut [u32], g: &mut Group, env: &mut Env<'_>);
}

/// A compiling tier for one module.
pub trait Tier: Send + Sync + std::fmt::Debug {
    /// The compiled code of function `func`, when it is ready.
    fn compiled(&self, func: FuncId) -> Option<&dyn Compiled>;
    /// `n` more warp instructions were executed in function `func`.
    fn observe(&self, func: FuncId, n: u64);
}
