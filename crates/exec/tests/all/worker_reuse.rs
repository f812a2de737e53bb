//! Launch workers keep their threads and their CTAs between launches
//! (`crates/exec/src/workers.rs`). A CTA refilled for another launch must
//! be a fresh CTA: a register the kernel reads before writing it reads 0
//! (ptxsim's registers start zeroed), whatever the last launch on that
//! thread left in the same register slot, in either scheduling mode and
//! with one worker or several; and launches from two host threads at once
//! (one of them finds the pool busy) both compute their own results.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};

/// Writes 0xdead0000 + tid into %r1..%r6 of every thread and stores %r6.
const DIRTY: &str = r#".version 7.0
.target sm_70
.address_size 64
.visible .entry dirty(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r7, %tid.x;
    or.b32 %r1, %r7, 0xdead0000;
    mov.u32 %r2, %r1;
    mov.u32 %r3, %r1;
    mov.u32 %r4, %r1;
    mov.u32 %r5, %r1;
    add.u32 %r6, %r5, %r4;
    mul.wide.u32 %rd2, %r7, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
    ret;
}"#;

/// Stores %r1 + 3 * %tid.x + %r4 per thread, %r1 and %r4 never written.
const READER: &str = r#".version 7.0
.target sm_70
.address_size 64
.visible .entry reader(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r7, %tid.x;
    mad.lo.u32 %r2, %r7, 3, %r1;
    add.u32 %r3, %r2, %r4;
    mov.u32 %r5, %ctaid.x;
    mov.u32 %r6, %ntid.x;
    mad.lo.u32 %r6, %r5, %r6, %r7;
    mul.wide.u32 %rd2, %r6, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
}"#;

fn words(dev: &Device, p: u64, n: usize) -> Vec<u32> {
    let b = dev.read(p, 4 * n as u64).expect("read");
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Dirties the worker threads' CTAs, then runs `reader` on `grid` CTAs of
/// `block` threads and checks every thread's word.
fn dirty_then_read(threads: usize, scheduling: Scheduling, grid: u32, block: u32) {
    let mut dev = Device::new();
    let d = dev.load(DIRTY).expect("load dirty");
    let r = dev.load(READER).expect("load reader");
    let scratch = dev.alloc(4 * 1024).expect("alloc");
    let mut cfg = LaunchConfig::new(8, 1024);
    cfg.threads = Some(threads);
    cfg.scheduling = scheduling;
    for _ in 0..3 {
        dev.launch(&d, "dirty", &cfg, &[KernelArg::Ptr(scratch)]).expect("dirty");
    }
    let w = words(&dev, scratch, 1024);
    assert_eq!(w[5], (0xdead0000u32 | 5).wrapping_mul(2), "the dirtying kernel ran");
    let n = (grid * block) as usize;
    let out = dev.alloc(4 * n as u64).expect("alloc");
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.threads = Some(threads);
    cfg.scheduling = scheduling;
    dev.launch(&r, "reader", &cfg, &[KernelArg::Ptr(out)]).expect("reader");
    let w = words(&dev, out, n);
    for (i, &x) in w.iter().enumerate() {
        let tid = i as u32 % block;
        assert_eq!(x, 3 * tid, "thread {i} ({threads} workers, {scheduling:?}): unwritten registers read 0");
    }
}

#[test]
fn refilled_ctas_are_fresh() {
    for threads in [1, 2, 3] {
        for scheduling in [Scheduling::Stack, Scheduling::Its] {
            dirty_then_read(threads, scheduling, 16, 1024);
            dirty_then_read(threads, scheduling, 5, 96);
            dirty_then_read(threads, scheduling, 3, 33);
        }
    }
}

#[test]
fn launches_from_two_host_threads_at_once() {
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..2u32)
            .map(|k| {
                s.spawn(move || {
                    for _ in 0..20 {
                        dirty_then_read(2, Scheduling::Stack, 8 + k, 64);
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().expect("a launching thread");
        }
    });
}
