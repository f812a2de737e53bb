//! Special registers (`%tid`, `%ctaid`, `%laneid`, `%clock`, ...): their
//! values for one warp, from the launch geometry, the CTA's place in the
//! grid and cluster, the warp's thread ids and its virtual clock.
//!
//! One definition: [`uniform`] gives the value of every register that is
//! the same in all lanes of a warp (and does not read the clock), and
//! [`lanes`] the per-lane ones, falling back to a splat of [`uniform`].

use crate::config::{CtaEnv, Geom};
use crate::program::Sreg;

/// 0, 1, ..., 31: the value of `%laneid` in each lane.
pub(crate) const LANE_IDS: [u64; 32] = {
    let mut a = [0u64; 32];
    let mut i = 0;
    while i < 32 {
        a[i] = i as u64;
        i += 1;
    }
    a
};

/// What a special register's value depends on, besides the register.
#[derive(Clone, Copy)]
pub(crate) struct SregEnv<'a> {
    pub geom: &'a Geom,
    pub cta: &'a CtaEnv,
    /// `%tid.{x,y,z}` of each lane.
    pub tid: &'a [[u64; 32]; 3],
    pub warp_id: u32,
}

/// The value of `s` when it is the same in every lane of a warp and does
/// not read the clock; `None` for the per-lane and clock registers.
#[inline]
pub(crate) fn uniform(s: Sreg, e: &SregEnv<'_>) -> Option<u64> {
    let (g, c) = (e.geom, e.cta);
    let v = match s {
        Sreg::Ntid(d) => g.block[d as usize],
        Sreg::Ctaid(d) => c.ctaid[d as usize],
        Sreg::Nctaid(d) => g.grid[d as usize],
        Sreg::WarpId => e.warp_id,
        Sreg::NWarpId => g.nwarps,
        Sreg::SmId | Sreg::GridId => 0,
        Sreg::NSmId => 1,
        Sreg::ClusterId(d) => c.cluster_id[d as usize],
        Sreg::NClusterId(d) => g.grid[d as usize] / g.cluster[d as usize].max(1),
        Sreg::ClusterCtaId(d) => c.cluster_ctaid[d as usize],
        Sreg::ClusterNCtaId(d) => g.cluster[d as usize],
        Sreg::ClusterCtaRank => c.rank,
        Sreg::ClusterNCtaRank => g.cluster[0] * g.cluster[1] * g.cluster[2],
        Sreg::IsExplicitCluster => g.explicit_cluster as u32,
        Sreg::DynamicSmemSize => g.dyn_smem,
        Sreg::TotalSmemSize | Sreg::AggrSmemSize => g.total_smem,
        // The grid workspace address, high word then low word.
        Sreg::EnvReg(1) => (g.grid_workspace >> 32) as u32,
        Sreg::EnvReg(2) => g.grid_workspace as u32,
        Sreg::EnvReg(_) => 0,
        Sreg::Tid(_)
        | Sreg::LaneId
        | Sreg::Clock
        | Sreg::Clock64
        | Sreg::ClockHi
        | Sreg::GlobalTimer
        | Sreg::GlobalTimerLo
        | Sreg::GlobalTimerHi
        | Sreg::LaneMaskEq
        | Sreg::LaneMaskLe
        | Sreg::LaneMaskLt
        | Sreg::LaneMaskGe
        | Sreg::LaneMaskGt => return None,
    };
    Some(v as u64)
}

/// The value of `s` in every lane; `clock` is the warp's virtual clock
/// (`%clock`, `%clock_hi`, `%clock64` and the `%globaltimer` registers read it).
#[inline]
pub(crate) fn lanes(s: Sreg, e: &SregEnv<'_>, clock: u64) -> [u64; 32] {
    let lane_fn = |f: fn(u64) -> u64| LANE_IDS.map(f);
    match s {
        Sreg::Tid(d) => e.tid[d as usize],
        Sreg::LaneId => LANE_IDS,
        Sreg::Clock | Sreg::GlobalTimerLo => [clock & 0xffff_ffff; 32],
        Sreg::ClockHi | Sreg::GlobalTimerHi => [clock >> 32; 32],
        Sreg::Clock64 | Sreg::GlobalTimer => [clock; 32],
        Sreg::LaneMaskEq => lane_fn(|l| 1u64 << l),
        Sreg::LaneMaskLe => lane_fn(|l| ((2u64 << l) - 1) & 0xffff_ffff),
        Sreg::LaneMaskLt => lane_fn(|l| (1u64 << l) - 1),
        Sreg::LaneMaskGe => lane_fn(|l| !((1u64 << l) - 1) & 0xffff_ffff),
        Sreg::LaneMaskGt => lane_fn(|l| !((2u64 << l) - 1) & 0xffff_ffff),
        _ => [uniform(s, e).unwrap_or(0); 32],
    }
}
