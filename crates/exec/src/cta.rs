//! One CTA's state while it runs: its place in the grid, its shared
//! memory, its warps, how many of its threads are live, and its barriers.
//! Machine state: the scheduler (`sched.rs`) runs it, the lane memory
//! (`lanemem.rs`) lends the shared memory of a cluster's other CTAs.
//!
//! The warp type is the warp engine's (`policy.rs`): the PTX engine's
//! [`Warp`] itself, or another engine's warp that holds one
//! (`AsRef<Warp>`), whose base state (status, frames, exited lanes,
//! stores, spin checkpoints) the scheduler reads.

use crate::barrier::Barriers;
use crate::config::CtaEnv;
use crate::warp::Warp;

/// A CTA of warps of type `W`.
pub struct Cta<W = Warp> {
    pub env: CtaEnv,
    /// Its shared memory.
    pub shared: Vec<u8>,
    pub warps: Vec<W>,
    /// Its threads that have not exited.
    pub live: u32,
    pub barriers: Barriers,
}

impl<W> Cta<W> {
    /// An empty CTA whose buffers the launch (`launch.rs`) fills and reuses.
    pub(crate) fn empty(env: CtaEnv) -> Cta<W> {
        Cta { env, shared: Vec::new(), warps: Vec::new(), live: 0, barriers: Barriers::new() }
    }
}

impl<W: AsRef<Warp>> Cta<W> {
    /// CTA `env` with its shared memory and warps; every valid lane of the
    /// warps is a live thread.
    pub fn new(env: CtaEnv, shared: Vec<u8>, warps: Vec<W>) -> Cta<W> {
        let live = warps.iter().map(|w| w.as_ref().valid.count_ones()).sum();
        Cta { env, shared, warps, live, barriers: Barriers::new() }
    }
}
