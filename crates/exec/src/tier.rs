//! The compiling-tier seam: what a compiler of [`crate::program::Program`]
//! functions (the `ptxsim-jit` crate) supplies to the PTX dispatch loop
//! (`exec.rs`). Data and traits only, so it sits in the program layer and
//! the engine never depends on a compiler.
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
//!   reconvergence happen in the interpreter, at the same points.
//!
//! After every group the loop reports the warp instructions it ran in each
//! function ([`Tier::observe`]), from which a tier decides when to compile.

use crate::program::{FuncId, L};

/// The state of a group that compiled code runs and updates.
#[derive(Clone, Copy, Debug)]
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
}

/// A function's compiled code.
pub trait Compiled: Send + Sync {
    /// For each pc of the function, whether the code can start there.
    fn entries(&self) -> &[bool];
    /// Runs the group `g` from `g.pc` (an entry) on the frame's registers
    /// and predicates, as described in the module documentation.
    fn run(&self, regs: &mut [L], preds: &mut [u32], g: &mut Group);
}

/// A compiling tier for one module.
pub trait Tier: Send + Sync + std::fmt::Debug {
    /// The compiled code of function `func`, when it is ready.
    fn compiled(&self, func: FuncId) -> Option<&dyn Compiled>;
    /// `n` more warp instructions were executed in function `func`.
    fn observe(&self, func: FuncId, n: u64);
}
