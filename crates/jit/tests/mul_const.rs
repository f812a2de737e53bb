//! Multiplications by an immediate that the tier runs as shifts and an
//! add (an immediate of at most two set bits, `emit::few_bits`), and the
//! ones it leaves to the vector multiply: every product is checked
//! against Rust's wrapping multiplication of the same operands, with the
//! tier forced on and off, in straight-line code and inside a loop run
//! lane by lane (a Collatz-style `x * 3 + 1` whose trip count differs per
//! lane).

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};

/// 64-bit immediates, then 32-bit ones, in the order the kernel stores them.
const K64: [u64; 10] = [0, 1, 2, 3, 5, 8, 0x8000_0000_0000_0001, 6, 7, u64::MAX];
const K32: [u32; 5] = [3, 0x8000_0001, 0x0001_0001, 12, 0xffff_ffff];

fn kernel() -> String {
    let mut body = String::new();
    for (j, k) in K64.iter().enumerate() {
        body += &format!("    mul.lo.u64 %rd9, %rd5, {k};\n    st.global.u64 [%rd8+{}], %rd9;\n", 8 * j);
    }
    for (j, k) in K32.iter().enumerate() {
        body += &format!("    mul.lo.s32 %r9, %r5, {k};\n    cvt.u64.u32 %rd9, %r9;\n    st.global.u64 [%rd8+{}], %rd9;\n", 8 * (K64.len() + j));
    }
    // mad.lo.s32 with an immediate multiplier of two bits, and of one.
    let o = 8 * (K64.len() + K32.len());
    body += &format!("    mad.lo.s32 %r9, %r5, 10, %r4;\n    cvt.u64.u32 %rd9, %r9;\n    st.global.u64 [%rd8+{o}], %rd9;\n");
    body += &format!("    mad.lo.s32 %r9, %r5, 4, 7;\n    cvt.u64.u32 %rd9, %r9;\n    st.global.u64 [%rd8+{}], %rd9;\n", o + 8);
    format!(
        r#".version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r4, %tid.x;
    mul.wide.u32 %rd3, %r4, 8;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u64 %rd5, [%rd4];
    cvt.u32.u64 %r5, %rd5;
    mul.wide.u32 %rd6, %r4, {stride};
    add.s64 %rd8, %rd2, %rd6;
{body}
    // A loop of x = x * 3 + 1 (64-bit), tid % 7 + 1 times.
    rem.u32 %r6, %r4, 7;
    mov.u64 %rd10, %rd5;
    mov.u32 %r7, 0;
L:
    mul.lo.s64 %rd10, %rd10, 3;
    add.s64 %rd10, %rd10, 1;
    mul.lo.s32 %r5, %r5, 5;
    add.u32 %r7, %r7, 1;
    setp.le.u32 %p1, %r7, %r6;
    @%p1 bra L;
    st.global.u64 [%rd8+{lo}], %rd10;
    cvt.u64.u32 %rd9, %r5;
    st.global.u64 [%rd8+{lo2}], %rd9;
    ret;
}}
"#,
        stride = 8 * (K64.len() + K32.len() + 4),
        lo = 8 * (K64.len() + K32.len() + 2),
        lo2 = 8 * (K64.len() + K32.len() + 3),
    )
}

fn inputs() -> Vec<u64> {
    (0..64u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 61) ^ 0xffff_0000_0000_0003).collect()
}

/// The products the PTX defines (wrapping, low half), per thread.
fn expected(x: u64, tid: u32) -> Vec<u64> {
    let x32 = x as u32;
    let mut v: Vec<u64> = K64.iter().map(|&k| x.wrapping_mul(k)).collect();
    v.extend(K32.iter().map(|&k| x32.wrapping_mul(k) as u64));
    v.push(x32.wrapping_mul(10).wrapping_add(tid) as u64);
    v.push(x32.wrapping_mul(4).wrapping_add(7) as u64);
    let (mut y, mut z) = (x, x32);
    for _ in 0..tid % 7 + 1 {
        y = y.wrapping_mul(3).wrapping_add(1);
        z = z.wrapping_mul(5);
    }
    v.push(y);
    v.push(z as u64);
    v
}

fn run(mode: Mode, sched: Scheduling) -> Vec<u64> {
    let mut dev = Device::new();
    let mut m = dev.load(&kernel()).expect("the kernel loads");
    if let Some(t) = attach(&mut m, mode) {
        if mode == Mode::On {
            let rep = t.report();
            let compiled = rep.iter().any(|(_, r)| matches!(r, Some(Ok(c)) if c.compiled > 20 && c.lane_loops == 1));
            assert!(compiled, "the tier compiles the kernel with its loop lane by lane: {rep:?}");
        }
    }
    let x = inputs();
    let per = K64.len() + K32.len() + 4;
    let pin = dev.alloc(8 * x.len() as u64).expect("alloc");
    dev.write(pin, &x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).expect("write");
    let pout = dev.alloc((8 * per * x.len()) as u64).expect("alloc");
    let mut cfg = LaunchConfig::new(1, x.len() as u32);
    cfg.scheduling = sched;
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(pin), KernelArg::Ptr(pout)]).expect("the launch completes");
    let bytes = dev.read(pout, (8 * per * x.len()) as u64).expect("read");
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

#[test]
fn products_by_immediates_are_the_wrapping_products() {
    let x = inputs();
    let want: Vec<u64> = x.iter().enumerate().flat_map(|(t, &v)| expected(v, t as u32)).collect();
    for sched in [Scheduling::Stack, Scheduling::Its] {
        for mode in [Mode::On, Mode::Off] {
            let got = run(mode, sched);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{mode:?} {sched:?}: thread {}, value {}", i / (K64.len() + K32.len() + 4), i % (K64.len() + K32.len() + 4));
            }
        }
    }
}
