//! An instruction the engine does not run yet traps, naming it, only when
//! a lane runs it: behind a guard false in every lane it does nothing, as
//! any guarded instruction (PTX ISA 9.3: an instruction whose guard is
//! false is not executed by that thread). Both schedulers.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

/// Lane `%tid.x == stop` reaches `brkpt` (which ptxsim does not run);
/// every lane then writes 1.
fn src(stop: u32) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n.reg .pred %p1;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd1, %rd1, %rd2;\nsetp.eq.u32 %p1, %r1, {stop};\n@%p1 brkpt;\nmov.u32 %r2, 1;\nst.global.u32 [%rd1], %r2;\nret;\n}}\n"
    )
}

#[test]
fn an_unsupported_instruction_no_lane_runs_does_nothing() {
    for sched in [Scheduling::Stack, Scheduling::Its] {
        for (stop, traps) in [(1000, false), (5, true)] {
            let mut dev = Device::new();
            let m = dev.load(&src(stop)).unwrap();
            let out = dev.alloc(128).unwrap();
            let mut cfg = LaunchConfig::new(1u32, 32u32);
            cfg.scheduling = sched;
            let r = dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]);
            match (r, traps) {
                (Ok(_), false) => assert_eq!(dev.read(out, 128).unwrap(), [1u8, 0, 0, 0].repeat(32), "{sched:?}"),
                (Err(e), true) => {
                    assert_eq!(format!("{:?}", e.kind), "Unsupported", "{sched:?}");
                    assert!(e.message.contains("brkpt"), "{sched:?}: {}", e.message);
                    assert_eq!(e.line, Some(15), "{sched:?}");
                }
                (r, _) => panic!("{sched:?} stop {stop}: {:?}", r.map(|_| ())),
            }
        }
    }
}
