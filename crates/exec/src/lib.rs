//! ptxsim-exec: the SIMT engine.
//!
//! It owns the host API ([`Device`], [`Module`], [`LaunchConfig`],
//! [`KernelArg`], [`RunError`]), the decoder from the checked AST to a flat
//! register-machine [`program::Program`] (`decode/`), memory (`memory`),
//! warp and CTA state (`warp`, `cta`), the data path (`datapath`: one
//! data-flow instruction for a warp under a mask, public so another
//! executor loop can call it; every lane-wise result comes from the pure
//! semantics of `ptxsim-sem`, the reference its lane kernels are tested
//! against), the PTX dispatch loop (`exec`), the warp-engine seam
//! (`policy`: `WarpEngine`, a turn that ends with a `Stop`) and the PTX
//! engine's two engines (`simt_stack`: a reconvergence stack per warp;
//! `its`: independent thread scheduling), the one launch shell of every
//! engine: CTA/cluster scheduling (`sched`) with the barrier bookkeeping
//! (`barrier`), deadlock and spin detection and fuel (`fuel`), the
//! parallel launch (`launch`), and for another engine (the sm_50 machine
//! form) the shell's public face (`shell`) and the PTX engine's handlers
//! (`callpath`).
//!
//! Layers, bottom to top: the modules are declared below in that order, and
//! a module imports only from modules declared before it (never from one
//! declared after it, nor from the crate root, which is the top);
//! `tests/all/layers.rs` checks every `crate::` path of `src/` against
//! this order.
//!
//! 1. program: data only (the decoded program, errors, configuration,
//!    printed output);
//! 2. decode: the checked AST to a program;
//! 3. machine: memory, the compiling-tier seam `tier` (which hands
//!    compiled code the global memory), lane memory, warps, CTAs, barrier
//!    bookkeeping;
//! 4. datapath: one data-flow instruction for a warp under a mask;
//! 5. sched: the dispatch loop, the warp-engine seam, fuel, the
//!    scheduling modes, CTA scheduling (the launch shell);
//! 6. api: launches, the handlers and the shell for other engines,
//!    `Device` and `Module` (the crate root).
//!
//! Invariants:
//! - No input (module, launch, kernel behaviour) makes the engine panic;
//!   every problem is a [`RunError`] with a [`TrapKind`].
//! - Every run is bounded by fuel (warp instructions, exact whatever the
//!   number of workers), a wall-clock timeout and memory limits.
//! - The library never prints.
//! - No `unsafe` code, except the one call into the hardware-FMA copies of
//!   the float lane kernels after the CPU reported FMA
//!   (`datapath/flanes.rs`, `run!`).
//! - No import runs back up the layers (above).

#![deny(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

// layer: program (data only)
mod stdout;
mod error;
mod config;
pub mod program;
// layer: decode
mod decode;
pub mod unsupported;
// layer: machine
pub mod heap;
pub mod memory;
pub mod tier;
mod span;
mod lanes;
mod prefix;
pub use prefix::op_registers;
mod copies;
mod warp;
mod barrier;
mod cta;
mod lanemem;
// layer: datapath
pub mod printf;
mod atomics;
mod sreg;
pub mod datapath;
// layer: sched
mod exec;
mod policy;
mod fuel;
mod simt_stack;
mod its;
mod sched;
// layer: api
mod device;
mod workers;
mod launch;
pub mod callpath;
pub mod shell;

pub use config::{
    BranchStat, Dim3, KernelArg, LaunchConfig, LaunchStats, Limits, Progress, Scheduling, DEFAULT_FUEL, DEFAULT_LOCAL_BYTES_PER_THREAD, DEFAULT_MAX_CALL_DEPTH, DEFAULT_MAX_MEMORY,
    DEFAULT_TIMEOUT, GRID_WORKSPACE_BYTES, MAX_COOPERATIVE_CTAS,
};
pub use decode::decodes_opcode;
pub use device::{Device, Module};
pub use error::{RunError, TrapKind};
pub use launch::MAX_WORKERS;
pub use workers::keep_workers;
pub use memory::PlaceError;
pub use stdout::{Printed, Stdout, DEFAULT_STDOUT_BYTES};
