//! `cargo bench -p ptxsim-jit --bench engine`: launches in process on one
//! worker, interpreted (`Mode::Off`) beside compiled (`Mode::On`, compiled
//! when attached, outside the timing) and ptoxide, in one run: thread
//! instructions per second, best of 3 launches each from fresh inputs
//! (`PTXSIM_BENCH_REPS=N`: best of N).
//! Each compiled launch's buffers are checked equal to the interpreted
//! one's, byte for byte. `-- WORD` runs only the kernels whose name
//! contains WORD; `--no-ptoxide` leaves ptoxide out (for profiles).
#![allow(clippy::print_stdout)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use ptxsim_jit::{attach, Mode};
use std::time::Instant;

const ESCAPE: &str = include_str!("../tests/data/escape.ptx");
const VADD: &str = include_str!("../../exec/benches/kernels/vadd.ptx");

/// Every thread iterates `(gid & 255) + 1` times (lanes leave one after
/// another), a linear congruential step per iteration.
const DIVLOOP: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry div_loop(.param .u64 out)
{
    .reg .pred %p1;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    and.b32 %r1, %r5, 255;
    add.s32 %r1, %r1, 1;
    mov.u32 %r6, 0;
    mov.u32 %r7, %r5;
$L_loop:
    mad.lo.s32 %r7, %r7, 1664525, 1013904223;
    add.s32 %r6, %r6, 1;
    setp.lt.u32 %p1, %r6, %r1;
    @%p1 bra $L_loop;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r7;
    ret;
}
"#;

/// Every thread iterates `n` times: xorshift-style integer mixing.
const UNIFORM: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry uniform_loop(.param .u64 out, .param .u32 n)
{
    .reg .pred %p1;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mov.u32 %r6, 0;
    add.u32 %r7, %r5, 1;
$L_loop:
    shl.b32 %r8, %r7, 13;
    xor.b32 %r7, %r7, %r8;
    shr.u32 %r8, %r7, 17;
    xor.b32 %r7, %r7, %r8;
    shl.b32 %r8, %r7, 5;
    xor.b32 %r7, %r7, %r8;
    add.s32 %r6, %r6, 1;
    setp.lt.u32 %p1, %r6, %r1;
    @%p1 bra $L_loop;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd1, %rd3;
    st.global.u32 [%rd2], %r7;
    ret;
}
"#;

/// `y[i] = a * x[i] + y[i]` with one fused multiply-add.
const SAXPY: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .u32 a, .param .u32 n)
{
    .reg .pred %p1;
    .reg .f32 %f<5>;
    .reg .b32 %r<7>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u32 %r6, [a];
    mov.b32 %f1, %r6;
    ld.param.u32 %r5, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    setp.ge.u32 %p1, %r4, %r5;
    @%p1 bra $L_end;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd1, %rd5;
    add.s64 %rd7, %rd2, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
$L_end:
    ret;
}
"#;

/// `out[i] = sum of x[i + j * nthreads]` over `iters` strides: a load,
/// an add and the address step per iteration.
const LOADLOOP: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry load_loop(.param .u64 x, .param .u64 out, .param .u32 iters)
{
    .reg .pred %p1;
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [iters];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %nctaid.x;
    mad.lo.s32 %r6, %r3, %r4, %r2;
    mul.lo.s32 %r7, %r4, %r5;
    mul.wide.u32 %rd5, %r6, 4;
    add.s64 %rd6, %rd3, %rd5;
    mul.wide.u32 %rd7, %r7, 4;
    mov.u32 %r8, 0;
    mov.u32 %r9, 0;
$L_loop:
    ld.global.u32 %r10, [%rd6];
    add.s32 %r8, %r8, %r10;
    add.s64 %rd6, %rd6, %rd7;
    add.s32 %r9, %r9, 1;
    setp.lt.u32 %p1, %r9, %r1;
    @%p1 bra $L_loop;
    add.s64 %rd8, %rd4, %rd5;
    st.global.u32 [%rd8], %r8;
    ret;
}
"#;

struct Case {
    name: &'static str,
    src: &'static str,
    kernel: &'static str,
    grid: u32,
    block: u32,
    bufs: Vec<Vec<u8>>,
    u32s: Vec<u32>,
    u64s: Vec<u64>,
    /// The argument list when it is not buffers, then `u32s`, then
    /// `u64s` (a framework's calling convention); ptoxide is not run then.
    args: Vec<A>,
    shared: u32,
}

/// One kernel argument of [`Case::args`].
#[derive(Clone, Copy)]
enum A {
    /// The address of buffer `i`.
    Buf(usize),
    U32(u32),
    U64(u64),
}

/// A Numba array argument: `meminfo, parent, nitems, itemsize, data,
/// shape, strides` (one dimension, strides in bytes).
fn nb_array(buf: usize, n: usize, item: usize) -> [A; 7] {
    [A::U64(0), A::U64(0), A::U64(n as u64), A::U64(item as u64), A::Buf(buf), A::U64(n as u64), A::U64(item as u64)]
}

/// The name of the first kernel of `src`.
fn entry(src: &str) -> &'static str {
    let at = src.find(".entry ").expect("a kernel") + 7;
    let end = at + src[at..].find('(').expect("a parameter list");
    Box::leak(src[at..end].trim().to_string().into_boxed_str())
}

const NB_MANDEL: &str = include_str!("../../../tests/corpus/numba/nb_mandel.ptx");
const NB_SAXPY: &str = include_str!("../../../tests/corpus/numba/nb_saxpy.ptx");
const NB_COLLATZ: &str = include_str!("../../../tests/corpus/numba/nb_collatz.ptx");
const TR_VADD: &str = include_str!("../../../tests/corpus/triton/tr_vector_add.ptx");
const TR_GELU: &str = include_str!("../../../tests/corpus/triton/tr_gelu.ptx");
const TR_SOFTMAX: &str = include_str!("../../../tests/corpus/triton/tr_softmax_row.ptx");

fn f32s(v: impl Iterator<Item = f32>) -> Vec<u8> {
    v.flat_map(|x| x.to_le_bytes()).collect()
}

fn iota(n: usize) -> Vec<u8> {
    (0..n as u32).flat_map(|i| i.to_le_bytes()).collect()
}

/// Best time, thread instructions and the buffers after the run.
fn run(c: &Case, mode: Mode) -> (f64, u64, Vec<Vec<u8>>) {
    let mut dev = Device::new();
    let mut m = dev.load(c.src).expect("load");
    attach(&mut m, mode);
    let mut args = Vec::new();
    let mut ptrs = Vec::new();
    for b in &c.bufs {
        let p = dev.alloc(b.len() as u64).expect("alloc");
        ptrs.push(p);
        args.push(KernelArg::Ptr(p));
    }
    args.extend(c.u32s.iter().map(|v| KernelArg::U32(*v)));
    args.extend(c.u64s.iter().map(|v| KernelArg::U64(*v)));
    if !c.args.is_empty() {
        args = c
            .args
            .iter()
            .map(|a| match *a {
                A::Buf(i) => KernelArg::Ptr(ptrs[i]),
                A::U32(v) => KernelArg::U32(v),
                A::U64(v) => KernelArg::U64(v),
            })
            .collect();
    }
    let mut cfg = LaunchConfig::new(c.grid, c.block);
    cfg.dynamic_shared_bytes = c.shared;
    cfg.threads = Some(1);
    cfg.scheduling = Scheduling::Stack;
    let (mut best, mut ti) = (f64::MAX, 0);
    for _ in 0..reps() {
        for (p, b) in ptrs.iter().zip(&c.bufs) {
            dev.write(*p, b).expect("write");
        }
        let t = Instant::now();
        let s = dev.launch(&m, c.kernel, &cfg, &args).expect("launch");
        best = best.min(t.elapsed().as_secs_f64());
        ti = s.thread_instructions;
    }
    let out = ptrs.iter().zip(&c.bufs).map(|(p, b)| dev.read(*p, b.len() as u64).expect("read")).collect();
    (best, ti, out)
}

/// Launches per measurement, the best kept (`PTXSIM_BENCH_REPS`, default 3).
fn reps() -> usize {
    std::env::var("PTXSIM_BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(3)
}

fn ptoxide(c: &Case) -> Option<f64> {
    use ptoxide::{Argument, Context, LaunchParams};
    if !c.args.is_empty() || std::env::args().any(|a| a == "--no-ptoxide") {
        return None;
    }
    let mut ctx = Context::new_with_module(c.src).ok()?;
    let ptrs: Vec<_> = c.bufs.iter().map(|b| ctx.alloc::<u8>(b.len())).collect();
    let mut args: Vec<Argument> = ptrs.iter().map(|p| Argument::ptr(*p)).collect();
    args.extend(c.u32s.iter().map(|v| Argument::U32(*v)));
    args.extend(c.u64s.iter().map(|v| Argument::U64(*v)));
    let mut best = f64::MAX;
    for _ in 0..reps() {
        for (p, b) in ptrs.iter().zip(&c.bufs) {
            ctx.write(*p, b);
        }
        let t = Instant::now();
        ctx.run(LaunchParams::func_id(0).grid1d(c.grid).block1d(c.block), &args).ok()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Some(best)
}

fn main() {
    let n = 65536usize;
    let vn = 1 << 20;
    let cases = vec![
        Case {
            name: "f32 escape loop (256x256, 256 iters)",
            src: ESCAPE,
            kernel: "escape",
            grid: 256,
            block: 256,
            bufs: vec![f32s((0..n).map(|i| -2.0 + (i % 256) as f32 * (2.6 / 256.0))), f32s((0..n).map(|i| -1.2 + (i / 256) as f32 * (2.4 / 256.0))), vec![0; 4 * n]],
            u32s: vec![n as u32, 256],
            u64s: vec![],
            args: vec![],
            shared: 0,
        },
        Case { name: "uniform int loop (16K threads x 1000)", src: UNIFORM, kernel: "uniform_loop", grid: 64, block: 256, bufs: vec![vec![0; 4 * 16384]], u32s: vec![1000], u64s: vec![], args: vec![], shared: 0 },
        Case { name: "divergent int loop (64K, 1-256 iters)", src: DIVLOOP, kernel: "div_loop", grid: 256, block: 256, bufs: vec![vec![0; 4 * n]], u32s: vec![], u64s: vec![], args: vec![], shared: 0 },
        Case { name: "vector add (1M elements)", src: VADD, kernel: "vec_add", grid: 4096, block: 256, bufs: vec![iota(vn), iota(vn), iota(vn)], u32s: vec![], u64s: vec![vn as u64], args: vec![], shared: 0 },
        Case {
            name: "f32 SAXPY fma (1M elements)",
            src: SAXPY,
            kernel: "saxpy",
            grid: (vn / 256) as u32,
            block: 256,
            bufs: vec![f32s((0..vn).map(|i| (i % 97) as f32 * 0.25 - 12.0)), f32s((0..vn).map(|i| (i % 89) as f32 * 0.5))],
            u32s: vec![1.5f32.to_bits(), vn as u32],
            u64s: vec![],
            args: vec![],
            shared: 0,
        },
        Case { name: "load loop (64K threads x 16 loads)", src: LOADLOOP, kernel: "load_loop", grid: 256, block: 256, bufs: vec![iota(16 * n), vec![0; 4 * n]], u32s: vec![16], u64s: vec![], args: vec![], shared: 0 },
        Case { name: "load loop (16K threads x 256 loads)", src: LOADLOOP, kernel: "load_loop", grid: 64, block: 256, bufs: vec![iota(256 * 16384), vec![0; 4 * 16384]], u32s: vec![256], u64s: vec![], args: vec![], shared: 0 },
        // Framework kernels (tests/corpus), their own calling conventions.
        Case {
            name: "Numba mandel (256x256, 256 iters)",
            src: NB_MANDEL,
            kernel: entry(NB_MANDEL),
            grid: 512,
            block: 128,
            bufs: vec![vec![0; 4 * n], f32s((0..n).map(|i| -2.0 + (i % 256) as f32 * (2.6 / 256.0))), f32s((0..n).map(|i| -1.2 + (i / 256) as f32 * (2.4 / 256.0)))],
            u32s: vec![],
            u64s: vec![],
            args: [nb_array(0, n, 4), nb_array(1, n, 4), nb_array(2, n, 4)].concat().into_iter().chain([A::U32(256)]).collect(),
            shared: 0,
        },
        Case {
            name: "Numba saxpy (1M elements)",
            src: NB_SAXPY,
            kernel: entry(NB_SAXPY),
            grid: (vn / 128) as u32,
            block: 128,
            bufs: vec![vec![0; 4 * vn], f32s((0..vn).map(|i| (i % 97) as f32 * 0.25 - 12.0)), f32s((0..vn).map(|i| (i % 89) as f32 * 0.5))],
            u32s: vec![],
            u64s: vec![],
            args: [&nb_array(0, vn, 4)[..], &[A::U32(1.5f32.to_bits())], &nb_array(1, vn, 4), &nb_array(2, vn, 4)].concat(),
            shared: 0,
        },
        Case {
            name: "Numba collatz (64K, 64-bit)",
            src: NB_COLLATZ,
            kernel: entry(NB_COLLATZ),
            grid: 512,
            block: 128,
            bufs: vec![vec![0; 4 * n], (0..n as u32).flat_map(|i| (i.wrapping_mul(2_654_435_761) % 100_000 + 1).to_le_bytes()).collect()],
            u32s: vec![],
            u64s: vec![],
            args: [nb_array(0, n, 4), nb_array(1, n, 4)].concat(),
            shared: 0,
        },
        Case {
            name: "Triton vector_add (1M elements)",
            src: TR_VADD,
            kernel: "vector_add",
            grid: (vn / 1024) as u32,
            block: 128,
            bufs: vec![iota(vn), iota(vn), vec![0; 4 * vn]],
            u32s: vec![],
            u64s: vec![],
            args: vec![A::Buf(0), A::Buf(1), A::Buf(2), A::U32(vn as u32), A::U64(0)],
            shared: 0,
        },
        Case {
            name: "Triton gelu (1M elements, erf)",
            src: TR_GELU,
            kernel: "gelu",
            grid: (vn / 512) as u32,
            block: 128,
            bufs: vec![f32s((0..vn).map(|i| (i % 801) as f32 * 0.01 - 4.0)), vec![0; 4 * vn]],
            u32s: vec![],
            u64s: vec![],
            args: vec![A::Buf(0), A::Buf(1), A::U32(vn as u32), A::U64(0)],
            shared: 0,
        },
        Case {
            name: "Triton softmax_row (4096 x 200)",
            src: TR_SOFTMAX,
            kernel: "softmax_row",
            grid: 4096,
            block: 128,
            bufs: vec![vec![0; 4 * 4096 * 208], f32s((0..4096 * 256).map(|i| (i % 37) as f32 * 0.2 - 3.0))],
            u32s: vec![],
            u64s: vec![],
            args: vec![A::Buf(0), A::Buf(1), A::U32(256), A::U32(208), A::U32(200), A::U64(0)],
            shared: 16,
        },
    ];
    println!("one worker, thread instructions per second (G/s), best of {}", reps());
    println!("{:<40} {:>9} {:>9} {:>8} {:>9} {:>10}", "kernel", "interp", "jit", "jit/int", "ptoxide", "jit/ptox");
    // `-- WORD`: only the kernels whose name contains WORD.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    for c in cases.iter().filter(|c| only.is_empty() || only.iter().any(|w| c.name.contains(w.as_str()))) {
        let (t_off, ti, out_off) = run(c, Mode::Off);
        let (t_on, ti_on, out_on) = run(c, Mode::On);
        assert_eq!(ti, ti_on, "{}: the same instructions", c.name);
        assert!(out_off == out_on, "{}: the compiled launch wrote other bytes", c.name);
        let g = |t: f64| ti as f64 / t / 1e9;
        let px = ptoxide(c);
        println!(
            "{:<40} {:>9.3} {:>9.3} {:>7.2}x {:>9} {:>10}",
            c.name,
            g(t_off),
            g(t_on),
            t_off / t_on,
            px.map_or("-".into(), |t| format!("{:.4}", g(t))),
            px.map_or("-".into(), |t| format!("{:.1}x", t / t_on))
        );
    }
}
