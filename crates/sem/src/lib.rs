//! ptxsim-sem: the pure semantics of PTX's lane-wise instructions.
//!
//! Every function here maps the raw bits of one lane's source registers
//! (the low part of a `u64`, as the engine's register file holds them) and
//! the instruction's modifiers, given as plain values, to the bits of its
//! result. Nothing here knows of warps, masks, frames, memory or programs;
//! it owns:
//!
//! - [`alu`]: integer and float arithmetic, comparisons, `bfe`/`bfi`/`prmt`,
//!   and its sub-modules: [`alu::bits`] (`lop3`, `shf`, `mul24`),
//!   [`alu::ext`] (carry chain, `szext`/`bmsk`/`fns`, packed halves,
//!   `testp`, `redux`), [`alu::dot`] (`dp4a`/`dp2a`), [`alu::fp8`] (8-bit
//!   floats), [`alu::video`] (the SIMD video instructions);
//! - [`softfloat`]: exactly rounded f32/f64 arithmetic in the directed
//!   rounding modes;
//! - [`cvt`]: `cvt` between integer and float types;
//! - [`swizzle`]: the shared-memory swizzle modes of Hopper's data path;
//! - [`wgmma`]: `wgmma.mma_async`'s matrix descriptor, shared-memory
//!   layouts, register fragments and multiply-accumulate;
//! - [`tma`]: the tensor map of `cp.async.bulk.tensor` (its 128-byte
//!   encoding, validation, and the map from a box element to its global
//!   address and shared-memory offset).
//!
//! **This crate is the reference.** The engine's lane kernels
//! (`ptxsim-exec`'s `datapath/ilanes.rs` and `datapath/flanes.rs`), the
//! machine-form engine (`ptxsim-sass`, which runs through the same data
//! path) and any future compiled tier are tested against these functions,
//! lane by lane; when a fast path and this crate disagree, the fast path is
//! wrong (or this crate is, and its own tests, against the PTX manual and
//! GPU recordings, say so).
//!
//! Invariants:
//! - Pure: no state, no I/O, no engine types; every function is total on
//!   its inputs (a result PTX leaves undefined or that traps, such as
//!   division by zero, is an `Err` or `None`, never a panic).
//! - Inputs are narrowed to the instruction's type first, so stale high
//!   bits of a register never leak into a result.
//! - The public functions of the common paths are `#[inline]` (or
//!   `#[inline(always)]`): the engine's lane loops call them across the
//!   crate boundary and must be able to inline them there, as when they
//!   lived in `ptxsim-exec` (without it the engine bench lost up to 6 %
//!   wall clock on the uniform loop). The large, rarely run ones (the
//!   directed-rounding soft float, the `.approx` functions, `mma`'s dot
//!   products, the video and fp8 conversions) are left to the compiler, so
//!   that they do not swell the dispatch loop they would be inlined into.

#![forbid(unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod alu;
pub mod cvt;
pub mod softfloat;
pub mod swizzle;
pub mod tma;
pub mod wgmma;
