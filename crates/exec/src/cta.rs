//! One CTA's state while it runs: its place in the grid, its shared
//! memory, its warps, how many of them are live, and its barriers. Machine
//! state: the scheduler (`sched.rs`) runs it, the lane memory
//! (`lanemem.rs`) lends the shared memory of a cluster's other CTAs.

use crate::barrier::Barriers;
use crate::config::CtaEnv;
use crate::warp::Warp;

pub(crate) struct Cta {
    pub env: CtaEnv,
    pub shared: Vec<u8>,
    pub warps: Vec<Warp>,
    pub live: u32,
    pub barriers: Barriers,
}

impl Cta {
    /// An empty CTA whose buffers the launch (`launch.rs`) fills and reuses.
    pub fn empty(env: CtaEnv) -> Cta {
        Cta { env, shared: Vec::new(), warps: Vec::new(), live: 0, barriers: Barriers::new() }
    }
}
