//! CTA barriers on the sm_50 machine form, against values computed from the
//! PTX ISA's definitions (9.7.13.1 bar/barrier): `bar.red.popc` gives every
//! waiting thread the number of participating threads whose predicate is
//! true, `.and`/`.or` whether all/any are; a `bar.sync` whose thread count
//! is never reached is a barrier deadlock. Each case also runs on the PTX
//! engine, which must agree.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, TrapKind};
use ptxsim_sass::engine::{MachineConfig, SassError};

const SRC: &str = r#"
.version 7.0
.target sm_50
.address_size 64

// out[t] = popc(t % 3 == 0) | and(t != skip) << 8 | or(t == 5) << 9,
// reduced over the CTA on barriers 0, 1 and 2; then warp 1 arrives at
// barrier 3 (count 64) without waiting and warp 0 waits there.
.visible .entry red(.param .u64 out, .param .u32 skip)
{
	.reg .pred %p<6>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r9, [skip];
	mov.u32 %r1, %tid.x;
	rem.u32 %r2, %r1, 3;
	setp.eq.u32 %p1, %r2, 0;
	bar.red.popc.u32 %r3, 0, %p1;
	setp.ne.u32 %p2, %r1, %r9;
	bar.red.and.pred %p3, 1, %p2;
	setp.eq.u32 %p4, %r1, 5;
	bar.red.or.pred %p5, 2, %p4;
	selp.u32 %r4, 256, 0, %p3;
	selp.u32 %r5, 512, 0, %p5;
	or.b32 %r6, %r3, %r4;
	or.b32 %r6, %r6, %r5;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra WAIT;
	bar.arrive 3, 64;
	bra.uni STORE;
WAIT:
	bar.sync 3, 64;
STORE:
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}

// Only 64 threads: a barrier that waits for 96 can never complete.
.visible .entry stuck()
{
	bar.sync 1, 96;
	ret;
}
"#;

fn launch(kernel: &str, args: &[u32], sass: bool) -> Result<Vec<u32>, TrapKind> {
    let mut dev = Device::new();
    let (m, mp) = if sass {
        let (m, l) = ptxsim_sass::load_and_lower(&mut dev, "bar.ptx", SRC).unwrap();
        (m, Some(l.prog))
    } else {
        (dev.load(SRC).unwrap(), None)
    };
    let out = dev.alloc(64 * 4).unwrap();
    let mut kargs = vec![KernelArg::Ptr(out)];
    kargs.extend(args.iter().map(|&v| KernelArg::U32(v)));
    if kernel == "stuck" {
        kargs.clear();
    }
    let mut cfg = LaunchConfig::new(Dim3 { x: 1, y: 1, z: 1 }, Dim3 { x: 64, y: 1, z: 1 });
    cfg.threads = Some(1);
    let r = match &mp {
        Some(mp) => ptxsim_sass::engine::launch(
            &dev,
            &m,
            mp,
            kernel,
            &cfg,
            &kargs,
            &MachineConfig::default(),
        )
        .map(|_| ())
        .map_err(|e| match e {
            SassError::Run(e) => e.kind,
            _ => TrapKind::Trap,
        }),
        None => dev
            .launch(&m, kernel, &cfg, &kargs)
            .map(|_| ())
            .map_err(|e| e.kind),
    };
    r?;
    let b = dev.read(out, 64 * 4).unwrap();
    Ok(b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[test]
fn bar_red_and_arrive_give_the_isa_results_on_both_engines() {
    let popc = (0..64u32).filter(|t| t % 3 == 0).count() as u32;
    for skip in [64u32, 40] {
        let all = !(0..64).any(|t| t == skip);
        let want = vec![popc | (all as u32) << 8 | 1 << 9; 64];
        for sass in [false, true] {
            assert_eq!(
                launch("red", &[skip], sass),
                Ok(want.clone()),
                "skip {skip}, sass engine: {sass}"
            );
        }
    }
}

#[test]
fn a_count_never_reached_is_a_barrier_deadlock_on_both_engines() {
    for sass in [false, true] {
        assert_eq!(
            launch("stuck", &[], sass),
            Err(TrapKind::BarrierDeadlock),
            "sass engine: {sass}"
        );
    }
}
