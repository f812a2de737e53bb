//! The machine form runs through exec's launch shell (`ptxsim_exec::shell`):
//! spin detection, exact fuel, the wall-clock limit and barriers released by
//! exiting threads behave as in the PTX engine's stack mode, which each case
//! also runs. Expected values come from the kernels' definitions: a spin
//! lock whose holder is parked on the reconvergence stack can never be
//! released (`stack_deadlock`); a launch needs exactly the warp
//! instructions it executes (a budget one short runs out); a barrier whose
//! missing threads exited completes (PTX ISA 9.7.13.1: exited threads are
//! not counted once they exit).

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling, TrapKind};
use ptxsim_sass::engine::{MachineConfig, SassError};
use std::time::Duration;

const SPIN: &str = r#"
.version 7.0
.target sm_50
.address_size 64
.visible .entry spin(.param .u64 out)
{
    .reg .pred %p;
    .reg .u32 %r<4>;
    .reg .u64 %o;
    ld.param.u64 %o, [out];
L:
    atom.global.cas.b32 %r1, [%o], 0, 1;
    setp.ne.u32 %p, %r1, 0;
@%p bra L;
    ld.global.u32 %r2, [%o+4];
    add.u32 %r2, %r2, 1;
    st.global.u32 [%o+4], %r2;
    atom.global.exch.b32 %r3, [%o], 0;
    ret;
}

// out[tid] = the sum 0 + 1 + ... + (n - 1), computed by a loop of n turns.
.visible .entry count(.param .u64 out, .param .u32 n)
{
    .reg .pred %p;
    .reg .u32 %r<6>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
L:
    setp.ge.u32 %p, %r2, %r1;
@%p bra DONE;
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    bra.uni L;
DONE:
    mov.u32 %r4, %tid.x;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}

// Warp 1 exits; warp 0 waits at a barrier for the whole CTA (64 threads):
// it completes once warp 1 has exited. out[tid] = tid + 1 for warp 0.
.visible .entry leave(.param .u64 out)
{
    .reg .pred %p;
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p, %r1, 32;
@%p bra END;
    bar.sync 0;
    add.u32 %r2, %r1, 1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
END:
    ret;
}
"#;

/// Launches `kernel` on one CTA of `block` threads with an output buffer of
/// `words` words and `extra` arguments, on the machine form (`sass`) or the
/// PTX engine in stack mode: the output, or the trap kind and warp
/// instructions executed.
fn launch(kernel: &str, block: u32, words: usize, extra: &[u32], sass: bool, tweak: impl Fn(&mut LaunchConfig)) -> Result<(Vec<u32>, u64), TrapKind> {
    let mut dev = Device::new();
    let (m, low) = ptxsim_sass::load_and_lower(&mut dev, "shell.ptx", SPIN).expect("the module lowers");
    let out = dev.alloc(4 * words as u64).unwrap();
    let mut args = vec![KernelArg::Ptr(out)];
    args.extend(extra.iter().map(|&v| KernelArg::U32(v)));
    let mut cfg = LaunchConfig::new(1, block);
    cfg.threads = Some(1);
    cfg.scheduling = Scheduling::Stack;
    tweak(&mut cfg);
    let winstr = if sass {
        match ptxsim_sass::engine::launch(&dev, &m, &low.prog, kernel, &cfg, &args, &MachineConfig::default()) {
            Ok((s, _)) => s.warp_instructions,
            Err(SassError::Run(e)) => return Err(e.kind),
            Err(e) => panic!("{kernel}: hardware error {e}"),
        }
    } else {
        dev.launch(&m, kernel, &cfg, &args).map_err(|e| e.kind)?.warp_instructions
    };
    let bytes = dev.read(out, 4 * words as u64).unwrap();
    Ok((bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect(), winstr))
}

#[test]
fn a_spin_lock_under_the_crs_stack_is_a_stack_deadlock() {
    for sass in [false, true] {
        let r = launch("spin", 32, 2, &[], sass, |_| {});
        assert_eq!(r.map(|r| r.0), Err(TrapKind::StackDeadlock), "sass: {sass}");
    }
}

#[test]
fn the_stack_deadlock_names_the_machine_function_and_the_ptx_line() {
    let mut dev = Device::new();
    let (m, low) = ptxsim_sass::load_and_lower(&mut dev, "shell.ptx", SPIN).unwrap();
    let out = dev.alloc(8).unwrap();
    let mut cfg = LaunchConfig::new(1, 32);
    cfg.threads = Some(1);
    let Err(SassError::Run(e)) = ptxsim_sass::engine::launch(&dev, &m, &low.prog, "spin", &cfg, &[KernelArg::Ptr(out)], &MachineConfig::default()) else {
        panic!("the spin lock must trap");
    };
    assert_eq!(e.kind, TrapKind::StackDeadlock);
    assert_eq!(e.function.as_deref(), Some("spin"));
    assert_eq!((e.cta, e.warp), (Some([0, 0, 0]), Some(0)));
    // The loop (lines 11 to 14 of the text: the label, the CAS, the setp
    // and the branch) holds every instruction the spinning lanes run.
    let line = e.line.expect("a PTX line");
    assert!((11..=14).contains(&line), "line {line}: {e}");
    assert!(e.message.contains("CRS stack"), "{e}");
}

#[test]
fn fuel_is_exact_on_the_machine_form() {
    let n = 100;
    let want: u32 = (0..n).sum();
    let (out, used) = launch("count", 64, 64, &[n], true, |_| {}).unwrap();
    assert_eq!(out, vec![want; 64]);
    // Exactly `used` warp instructions of fuel run it; one fewer runs out.
    let (out2, used2) = launch("count", 64, 64, &[n], true, |c| c.fuel = used).unwrap();
    assert_eq!((out2, used2), (vec![want; 64], used));
    assert_eq!(launch("count", 64, 64, &[n], true, |c| c.fuel = used - 1).map(|r| r.0), Err(TrapKind::FuelExhausted));
}

#[test]
fn the_time_limit_stops_the_machine_form() {
    // A loop of 2^32 - 1 turns per warp with unbounded fuel: only the
    // wall-clock limit ends it.
    let r = launch("count", 32, 32, &[u32::MAX], true, |c| {
        c.fuel = u64::MAX;
        c.timeout = Some(Duration::from_millis(50));
    });
    assert_eq!(r.map(|r| r.0), Err(TrapKind::Timeout));
}

#[test]
fn exited_threads_release_a_barrier_on_both_engines() {
    let want: Vec<u32> = (1..=32).chain(std::iter::repeat_n(0, 32)).collect();
    for sass in [false, true] {
        assert_eq!(launch("leave", 64, 64, &[], sass, |_| {}).map(|r| r.0), Ok(want.clone()), "sass: {sass}");
    }
}
