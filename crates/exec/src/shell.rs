//! The launch shell for a warp engine other than the PTX engine's own (the
//! sm_50 machine form of `ptxsim-sass`): the engine implements
//! [`WarpEngine`] (a warp's turn, ending with a [`Stop`], and how its lanes
//! park and move past a barrier), and [`run`] runs the grid's CTAs with
//! the PTX engine's CTA loop (`sched.rs`): the same barrier bookkeeping and
//! release, deadlock and spin detection, exact fuel and the wall-clock
//! limit. The engine never re-implements any of it.

use crate::config::{CtaEnv, LaunchConfig};
use crate::datapath::Setup;
use crate::fuel::Fuel;
use crate::sched::{run_cluster, Shell};
use std::sync::atomic::AtomicU64;

pub use crate::cta::Cta;
pub use crate::error::Trap;
pub use crate::policy::{BarArgs, Located, SpinState, StateHash, Stop, Wait, WarpEngine, WarpTurn};
pub use crate::warp::{Stats, WarpStatus};

/// Runs every CTA of `setup`'s grid on engine `eng`, one at a time, x
/// fastest, with the launch's fuel and time limit (`cfg.fuel`,
/// `cfg.timeout`): `make` builds each CTA (its warps at their entry),
/// `done` receives it once every warp has finished. Returns the
/// statistics of the turns, or the first error.
pub fn run<E: WarpEngine>(
    eng: &E,
    setup: &Setup,
    cfg: &LaunchConfig,
    mut make: impl FnMut(CtaEnv) -> Result<Cta<E::Warp>, E::Error>,
    mut done: impl FnMut(Cta<E::Warp>),
) -> Result<Stats, E::Error> {
    let fuel = Fuel::new(cfg.fuel, 1, cfg.timeout);
    let mut tank = fuel.tank();
    let (abort, epoch) = (AtomicU64::new(u64::MAX), AtomicU64::new(0));
    let mut stats = Stats::default();
    for env in setup.ctas() {
        let mut cta = [make(env)?];
        let mut sh = Shell { tank: &mut tank, index: 0, abort: &abort, epoch: &epoch, units: None };
        stats.merge(&run_cluster(eng, &mut cta, 1, &mut sh)?);
        let [cta] = cta;
        done(cta);
    }
    Ok(stats)
}
