//! `ld.v2/.v4` when every lane reads the same address (read once for the
//! warp) and when the lanes read their own: global, shared, and a generic
//! address of each thread's local memory (the same address, a different
//! memory per thread), with values and traps the manual implies.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};

const SRC: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry vec(.param .u64 inp, .param .u64 out, .param .u32 shift)
{
    .reg .pred %p1;
    .reg .b32 %r<20>;
    .reg .b64 %rd<12>;
    .shared .align 16 .b32 sh[8];
    .local .align 16 .b32 loc[4];
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r9, [shift];
    mov.u32 %r1, %tid.x;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    // The same global address in every lane (plus the parameter).
    mul.wide.u32 %rd10, %r9, 1;
    add.s64 %rd5, %rd3, %rd10;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5+16];
    // Each lane its own global address.
    mul.wide.u32 %rd6, %r1, 16;
    add.s64 %rd7, %rd3, %rd6;
    ld.global.v2.u32 {%r6, %r7}, [%rd7+8];
    // Shared memory, the same address: lane 0 stores, all read.
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.v2.u32 [sh], {%r2, %r5};
    bar.sync 0;
    ld.shared.v2.u32 {%r10, %r11}, [sh];
    // Each thread's local memory through one generic address.
    add.u32 %r12, %r1, 1000;
    st.local.v2.u32 [loc], {%r12, %r1};
    mov.u64 %rd8, loc;
    cvta.local.u64 %rd9, %rd8;
    ld.v2.u32 {%r13, %r14}, [%rd9];
    add.u32 %r15, %r2, %r3;
    add.u32 %r15, %r15, %r4;
    add.u32 %r15, %r15, %r5;
    add.u32 %r15, %r15, %r6;
    add.u32 %r15, %r15, %r7;
    add.u32 %r16, %r10, %r11;
    mov.u32 %r17, %ctaid.x;
    mad.lo.u32 %r18, %r17, 32, %r1;
    mul.wide.u32 %rd11, %r18, 16;
    add.s64 %rd11, %rd4, %rd11;
    st.global.v4.u32 [%rd11], {%r15, %r16, %r13, %r14};
    ret;
}
"#;

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

#[test]
fn uniform_and_per_lane_vector_loads() {
    let mut dev = Device::new();
    let m = dev.load(SRC).expect("load");
    let n = 64u32;
    let input: Vec<u32> = (0..4 * n + 16).map(|i| i * 7 + 3).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let inp = dev.alloc(bytes.len() as u64).expect("alloc");
    dev.write(inp, &bytes).expect("write");
    let out = dev.alloc(16 * n as u64).expect("alloc");
    for threads in [Some(1), Some(2)] {
        let mut cfg = LaunchConfig::new(2, 32);
        cfg.threads = threads;
        dev.launch(&m, "vec", &cfg, &[KernelArg::Ptr(inp), KernelArg::Ptr(out), KernelArg::U32(0)]).expect("launch");
        let got = words(&dev.read(out, 16 * n as u64).expect("read"));
        for t in 0..32usize {
            for cta in 0..2usize {
                let g = cta * 32 + t;
                // Uniform: words 4..8 of the input; per lane: words 4t+2, 4t+3.
                let uni: u32 = (4..8).map(|i| input[i]).sum();
                let own = input[4 * t + 2] + input[4 * t + 3];
                assert_eq!(got[4 * g], uni + own, "thread {g}");
                assert_eq!(got[4 * g + 1], input[4] + input[7], "shared, thread {g}");
                assert_eq!(got[4 * g + 2], t as u32 + 1000, "local, thread {g}");
                assert_eq!(got[4 * g + 3], t as u32, "local, thread {g}");
            }
        }
    }
    // A uniform address misaligned for the vector: every lane's trap, the
    // first lane reported.
    let mut cfg = LaunchConfig::new(1, 32);
    cfg.threads = Some(1);
    let e = dev.launch(&m, "vec", &cfg, &[KernelArg::Ptr(inp), KernelArg::Ptr(out), KernelArg::U32(4)]).expect_err("misaligned");
    assert_eq!(e.kind, TrapKind::Misaligned, "{e}");
    assert_eq!(e.lane, Some(0), "{e}");
}
