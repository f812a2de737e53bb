//! Loads and stores that compiled code runs inline on dense warps (all
//! 32 lanes at consecutive, naturally aligned addresses inside one
//! allocation, found through a per-instruction cache of the allocation):
//! the values are those the PTX computes (checked against a computation
//! here, not against the emulator), with the tier forced on and off, in
//! both scheduling modes and on one and two workers; a partial last warp
//! takes the helper; and a buffer freed after the code cached it traps
//! out of bounds on its next use, as interpreted, instead of reaching
//! freed memory.

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};

/// `out32[i] = in32[i] * 3 + 1` (a global load and store of 4 bytes),
/// `out64[i] = in64[i] ^ 0x5555_0000_aaaa_0001` (8 bytes), and
/// `out32[n + i] = in32[i]` through generic addresses, for `i < n`.
const KERNEL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 in32, .param .u64 in64, .param .u64 out32, .param .u64 out64, .param .u32 n)
{
    .reg .pred %p1;
    .reg .b32 %r<10>;
    .reg .b64 %rd<20>;
    ld.param.u64 %rd1, [in32];
    ld.param.u64 %rd2, [in64];
    ld.param.u64 %rd3, [out32];
    ld.param.u64 %rd4, [out64];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra $L_end;
    cvta.to.global.u64 %rd5, %rd1;
    cvta.to.global.u64 %rd6, %rd2;
    cvta.to.global.u64 %rd7, %rd3;
    cvta.to.global.u64 %rd8, %rd4;
    mul.wide.u32 %rd9, %r5, 4;
    mul.wide.u32 %rd10, %r5, 8;
    add.s64 %rd11, %rd5, %rd9;
    ld.global.u32 %r6, [%rd11];
    mad.lo.s32 %r7, %r6, 3, 1;
    add.s64 %rd12, %rd7, %rd9;
    st.global.u32 [%rd12], %r7;
    add.s64 %rd13, %rd6, %rd10;
    ld.global.u64 %rd14, [%rd13];
    xor.b64 %rd15, %rd14, 0x55550000aaaa0001;
    add.s64 %rd16, %rd8, %rd10;
    st.global.u64 [%rd16], %rd15;
    ld.u32 %r8, [%rd11];
    mul.wide.u32 %rd17, %r1, 4;
    add.s64 %rd18, %rd12, %rd17;
    st.u32 [%rd18], %r8;
$L_end:
    ret;
}
"#;

struct Bufs {
    in32: u64,
    in64: u64,
    out32: u64,
    out64: u64,
}

fn alloc(dev: &mut Device, n: u32) -> Bufs {
    let n = n as u64;
    let in32: Vec<u8> = (0..n as u32).flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes()).collect();
    let in64: Vec<u8> = (0..n).flat_map(|i| (i << 40 | i * 977).to_le_bytes()).collect();
    let b = Bufs { in32: dev.alloc(4 * n).unwrap(), in64: dev.alloc(8 * n).unwrap(), out32: dev.alloc(8 * n).unwrap(), out64: dev.alloc(8 * n).unwrap() };
    dev.write(b.in32, &in32).unwrap();
    dev.write(b.in64, &in64).unwrap();
    b
}

fn launch(dev: &mut Device, m: &ptxsim_exec::Module, b: &Bufs, n: u32, sched: Scheduling, threads: usize) -> Result<(), String> {
    let mut cfg = LaunchConfig::new(Dim3::new(n.div_ceil(128), 1, 1), Dim3::new(128, 1, 1));
    cfg.scheduling = sched;
    cfg.threads = Some(threads);
    let args = [KernelArg::Ptr(b.in32), KernelArg::Ptr(b.in64), KernelArg::Ptr(b.out32), KernelArg::Ptr(b.out64), KernelArg::U32(n)];
    dev.launch(m, "k", &cfg, &args).map(|_| ()).map_err(|e| format!("{:?} {:?} line {:?} cta {:?} warp {:?} lane {:?}", e.kind, e.message, e.line, e.cta, e.warp, e.lane))
}

/// What the kernel computes, from its PTX: the two output buffers.
fn expected(n: u32) -> (Vec<u8>, Vec<u8>) {
    let in32: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let mut out32: Vec<u8> = in32.iter().flat_map(|x| x.wrapping_mul(3).wrapping_add(1).to_le_bytes()).collect();
    out32.extend(in32.iter().flat_map(|x| x.to_le_bytes()));
    let out64 = (0..n as u64).flat_map(|i| ((i << 40 | i * 977) ^ 0x5555_0000_aaaa_0001).to_le_bytes()).collect();
    (out32, out64)
}

#[test]
fn dense_loads_and_stores_give_the_values_the_kernel_computes() {
    // 1000 threads: the last warp has 8 lanes (the helper runs it).
    for n in [1024u32, 1000] {
        let (e32, e64) = expected(n);
        for mode in [Mode::Off, Mode::On] {
            for sched in [Scheduling::Stack, Scheduling::Its] {
                for threads in [1, 2] {
                    let mut dev = Device::new();
                    let mut m = dev.load(KERNEL).unwrap();
                    attach(&mut m, mode);
                    let b = alloc(&mut dev, n);
                    // Twice: the second launch finds the allocations cached.
                    for _ in 0..2 {
                        launch(&mut dev, &m, &b, n, sched, threads).unwrap();
                        let what = format!("n {n} {mode:?} {sched:?} {threads} workers");
                        assert!(dev.read(b.out32, 8 * n as u64).unwrap() == e32, "{what}: out32");
                        assert!(dev.read(b.out64, 8 * n as u64).unwrap() == e64, "{what}: out64");
                    }
                }
            }
        }
    }
}

#[test]
fn a_buffer_freed_after_the_code_cached_it_traps_out_of_bounds() {
    let n = 1024;
    let mut errs = Vec::new();
    for mode in [Mode::Off, Mode::On] {
        let mut dev = Device::new();
        let mut m = dev.load(KERNEL).unwrap();
        attach(&mut m, mode);
        let b = alloc(&mut dev, n);
        launch(&mut dev, &m, &b, n, Scheduling::Stack, 1).unwrap();
        dev.free(b.in32).unwrap();
        let e = launch(&mut dev, &m, &b, n, Scheduling::Stack, 1).expect_err("a load from a freed buffer");
        assert!(e.starts_with("OutOfBounds"), "{mode:?}: {e}");
        // Fresh buffers afterwards: the right values again.
        let b2 = alloc(&mut dev, n);
        launch(&mut dev, &m, &b2, n, Scheduling::Stack, 1).unwrap();
        assert!(dev.read(b2.out32, 8 * n as u64).unwrap() == expected(n).0, "{mode:?}: after the free");
        errs.push(e);
    }
    assert_eq!(errs[0], errs[1], "the same trap with the tier off and on");
}

/// Two compiled functions alternating on one thread share its scratch
/// buffer: each finds its own allocation caches again only when it ran
/// last there with the same allocations, and computes the right values
/// either way.
#[test]
fn two_modules_alternating_on_one_thread_keep_their_values() {
    let n = 1024;
    let (e32, e64) = expected(n);
    let mut dev = Device::new();
    let mut m1 = dev.load(KERNEL).unwrap();
    let mut m2 = dev.load(&KERNEL.replace("0x55550000aaaa0001", "0x55550000aaaa0001 ")).unwrap();
    attach(&mut m1, Mode::On);
    attach(&mut m2, Mode::On);
    let b1 = alloc(&mut dev, n);
    let b2 = alloc(&mut dev, n);
    for round in 0..3 {
        for (m, b) in [(&m1, &b1), (&m2, &b2), (&m1, &b2), (&m2, &b1)] {
            dev.write(b.out32, &vec![0; 8 * n as usize]).unwrap();
            launch(&mut dev, m, b, n, Scheduling::Stack, 1).unwrap();
            assert!(dev.read(b.out32, 8 * n as u64).unwrap() == e32, "round {round}: out32");
            assert!(dev.read(b.out64, 8 * n as u64).unwrap() == e64, "round {round}: out64");
        }
    }
}
