//! `cargo bench -p ptxsim-exec`: thread-instructions per second of the SIMT
//! engine on integer kernels (a uniform arithmetic loop, a divergent Collatz
//! kernel, a divergent loop ptoxide can run, vector add) and float kernels
//! (SAXPY, a Mandelbrot escape loop, an n-body step with `rsqrt.approx.f32`,
//! a row softmax with `ex2.approx.f32`), on 1 and 2 worker threads, with the
//! same kernels run on `ptoxide` (a crates.io PTX emulator) side by side
//! where it can run them. ptoxide's rate uses ptxsim's count of thread
//! instructions for the same launch (same PTX, same dynamic instruction
//! stream). Every float kernel's output is checked against a reference
//! computed here in Rust (`f32::mul_add` for a fused multiply-add, `f64`
//! for the approximate functions, within their documented error).
#![allow(clippy::print_stdout)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Scheduling};
use std::time::Instant;

const UNIFORM: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry uniform_loop(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p1;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [iters];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    mov.u32 %r6, 0;
    mov.u32 %r7, %r5;
$L_loop:
    mad.lo.s32 %r7, %r7, 1664525, 1013904223;
    and.b32 %r8, %r7, %r6;
    add.s32 %r7, %r7, %r8;
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

const COLLATZ: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry collatz(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    add.s32 %r6, %r5, 1;
    mov.u32 %r7, 0;
$L_loop:
    setp.le.u32 %p1, %r6, 1;
    @%p1 bra $L_done;
    and.b32 %r8, %r6, 1;
    setp.eq.u32 %p2, %r8, 0;
    @%p2 bra $L_even;
    mad.lo.s32 %r6, %r6, 3, 1;
    bra.uni $L_next;
$L_even:
    div.u32 %r6, %r6, 2;
$L_next:
    add.s32 %r7, %r7, 1;
    bra.uni $L_loop;
$L_done:
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r7;
    ret;
}
"#;

/// A divergent loop that ptoxide can run (it has no `div` or `shr`, so it
/// cannot run the Collatz kernel): every thread iterates `(gid & 255) + 1`
/// times, so the lanes of a warp leave the loop one after another.
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

const VADD: &str = include_str!("kernels/vadd.ptx");

/// SAXPY with a fused multiply-add: `y[i] = a * x[i] + y[i]`.
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
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r4, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
$L_end:
    ret;
}
"#;

/// A Mandelbrot escape loop (`fma.rn.f32`, `add.f32`, `setp.gt.f32`): each
/// thread reads its point c from `c` (re, im), and writes the iteration
/// count to `count` and the last |z|^2 to `mag`. The squares are written
/// `fma x, x, -0` (the same value as `mul`), since ptoxide parses no
/// float `mul`.
const MANDEL: &str = include_str!("kernels/mandel.ptx");

/// One n-body step: the acceleration on body `i` from all `n` bodies
/// (`pos` holds x, y, z, mass per body), softened, with `rsqrt.approx.f32`.
const NBODY: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry nbody(.param .u64 pos, .param .u64 acc, .param .u32 n)
{
    .reg .pred %p1;
    .reg .f32 %f<24>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [pos];
    ld.param.u64 %rd2, [acc];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    cvta.to.global.u64 %rd3, %rd1;
    mul.wide.u32 %rd4, %r5, 16;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];
    mov.f32 %f5, 0f00000000;
    mov.f32 %f6, 0f00000000;
    mov.f32 %f7, 0f00000000;
    mov.u32 %r6, 0;
    mov.u64 %rd6, %rd3;
$L_loop:
    ld.global.v4.f32 {%f8, %f9, %f10, %f11}, [%rd6];
    sub.f32 %f12, %f8, %f1;
    sub.f32 %f13, %f9, %f2;
    sub.f32 %f14, %f10, %f3;
    fma.rn.f32 %f15, %f12, %f12, 0f3A83126F;
    fma.rn.f32 %f15, %f13, %f13, %f15;
    fma.rn.f32 %f15, %f14, %f14, %f15;
    rsqrt.approx.f32 %f16, %f15;
    mul.f32 %f17, %f16, %f16;
    mul.f32 %f17, %f17, %f16;
    mul.f32 %f17, %f17, %f11;
    fma.rn.f32 %f5, %f12, %f17, %f5;
    fma.rn.f32 %f6, %f13, %f17, %f6;
    fma.rn.f32 %f7, %f14, %f17, %f7;
    add.s64 %rd6, %rd6, 16;
    add.u32 %r6, %r6, 1;
    setp.lt.u32 %p1, %r6, %r1;
    @%p1 bra $L_loop;
    cvta.to.global.u64 %rd7, %rd2;
    add.s64 %rd8, %rd7, %rd4;
    st.global.v4.f32 [%rd8], {%f5, %f6, %f7, %f4};
    ret;
}
"#;

/// A softmax over each row of a column-major `rows x cols` matrix, one
/// thread per row: the row maximum (`max.f32`), `ex2.approx.f32` of
/// `(x - max) * log2(e)` and their sum, then one `div.rn.f32` per element.
const SOFTMAX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry softmax(.param .u64 inp, .param .u64 outp, .param .u32 rows, .param .u32 cols)
{
    .reg .pred %p<4>;
    .reg .f32 %f<12>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [outp];
    ld.param.u32 %r1, [rows];
    ld.param.u32 %r2, [cols];
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mad.lo.s32 %r6, %r4, %r5, %r3;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r6, 4;
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd3, %rd5;
    mov.f32 %f1, 0fFF800000;
    mov.u32 %r7, 0;
$L_max:
    ld.global.f32 %f2, [%rd7];
    max.f32 %f1, %f1, %f2;
    add.s64 %rd7, %rd7, %rd6;
    add.u32 %r7, %r7, 1;
    setp.lt.u32 %p1, %r7, %r2;
    @%p1 bra $L_max;
    add.s64 %rd7, %rd3, %rd5;
    add.s64 %rd8, %rd4, %rd5;
    mov.f32 %f3, 0f00000000;
    mov.u32 %r7, 0;
$L_exp:
    ld.global.f32 %f2, [%rd7];
    sub.f32 %f4, %f2, %f1;
    mul.f32 %f4, %f4, 0f3FB8AA3B;
    ex2.approx.f32 %f5, %f4;
    add.f32 %f3, %f3, %f5;
    st.global.f32 [%rd8], %f5;
    add.s64 %rd7, %rd7, %rd6;
    add.s64 %rd8, %rd8, %rd6;
    add.u32 %r7, %r7, 1;
    setp.lt.u32 %p2, %r7, %r2;
    @%p2 bra $L_exp;
    add.s64 %rd8, %rd4, %rd5;
    mov.u32 %r7, 0;
$L_div:
    ld.global.f32 %f5, [%rd8];
    div.rn.f32 %f6, %f5, %f3;
    st.global.f32 [%rd8], %f6;
    add.s64 %rd8, %rd8, %rd6;
    add.u32 %r7, %r7, 1;
    setp.lt.u32 %p3, %r7, %r2;
    @%p3 bra $L_div;
    ret;
}
"#;

struct Case {
    name: &'static str,
    src: &'static str,
    kernel: &'static str,
    grid: u32,
    block: u32,
    /// The buffers' initial contents, then scalar u32 and u64 arguments.
    bufs: Vec<Vec<u8>>,
    u32s: Vec<u32>,
    u64s: Vec<u64>,
    /// Checks the buffers after the run against a reference computed from
    /// the initial ones (float kernels).
    check: Option<fn(&Case, &[Vec<u8>])>,
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// `n` elements `0.0, 1.0, 2.0, ...` (the integer kernels' buffers).
fn iota(n: usize) -> Vec<u8> {
    bytes(&(0..n).map(|i| i as f32).collect::<Vec<_>>())
}

/// `n` pseudo-random floats in `[lo, hi)` (a fixed xorshift sequence).
fn noise(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (hi - lo) * ((s >> 40) as f32 / (1u64 << 24) as f32)
        })
        .collect()
}

const SAXPY_A: f32 = 1.7320508;

fn check_saxpy(c: &Case, out: &[Vec<u8>]) {
    let (x, y0, y) = (floats(&c.bufs[0]), floats(&c.bufs[1]), floats(&out[1]));
    for i in 0..x.len() {
        let want = SAXPY_A.mul_add(x[i], y0[i]);
        assert!(want.to_bits() == y[i].to_bits(), "saxpy[{i}]: {} != fused {}", y[i], want);
    }
}

fn check_mandel(c: &Case, out: &[Vec<u8>]) {
    let maxit = c.u32s[0];
    let (pts, count, mag) = (floats(&c.bufs[0]), &out[1], floats(&out[2]));
    for g in 0..mag.len() {
        let (x0, y0) = (pts[2 * g], pts[2 * g + 1]);
        let (mut x, mut y, mut it) = (0f32, 0f32, 0u32);
        let m = loop {
            let (x2, y2) = (x * x, y * y);
            let m = x2 + y2;
            if m > 4.0 {
                break m;
            }
            y = (x + x).mul_add(y, y0);
            x = (x2 - y2) + x0;
            it += 1;
            if it >= maxit {
                break m;
            }
        };
        let got = u32::from_le_bytes([count[4 * g], count[4 * g + 1], count[4 * g + 2], count[4 * g + 3]]);
        assert!(got == it && mag[g].to_bits() == m.to_bits(), "mandel[{g}]: {got} {} != {it} {m}", mag[g]);
    }
}

/// The points of a `w x h` grid over [-2, 0.5] x [-1.25, 1.25], (re, im) each.
fn mandel_points(w: usize, h: usize) -> Vec<f32> {
    (0..w * h).flat_map(|g| [-2.0 + 2.5 * (g % w) as f32 / w as f32, -1.25 + 2.5 * (g / w) as f32 / h as f32]).collect()
}

fn check_nbody(c: &Case, out: &[Vec<u8>]) {
    let pos = floats(&c.bufs[0]);
    let acc = floats(&out[1]);
    let n = pos.len() / 4;
    for i in 0..n {
        let (mut a, mut scale) = ([0f32; 3], [0f64; 3]);
        for j in 0..n {
            let d = [pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]];
            let d2 = d[2].mul_add(d[2], d[1].mul_add(d[1], d[0].mul_add(d[0], 0.001)));
            // rsqrt.approx.f32: within 2^-22.9 relative of 1/sqrt (PTX ISA).
            let r = (1.0 / (d2 as f64).sqrt()) as f32;
            let s = r * r * r * pos[4 * j + 3];
            for k in 0..3 {
                a[k] = d[k].mul_add(s, a[k]);
                scale[k] += (d[k] as f64 * s as f64).abs();
            }
        }
        for k in 0..3 {
            let got = acc[4 * i + k];
            assert!(((got - a[k]) as f64).abs() <= 1e-5 * scale[k] + 1e-30, "nbody[{i}].{k}: {got} vs {}", a[k]);
        }
        assert!(acc[4 * i + 3].to_bits() == pos[4 * i + 3].to_bits());
    }
}

fn check_softmax(c: &Case, out: &[Vec<u8>]) {
    let (rows, cols) = (c.u32s[0] as usize, c.u32s[1] as usize);
    let (inp, got) = (floats(&c.bufs[0]), floats(&out[1]));
    for r in 0..rows {
        let mx = (0..cols).map(|j| inp[j * rows + r] as f64).fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = (0..cols).map(|j| (inp[j * rows + r] as f64 - mx).exp()).sum();
        for j in 0..cols {
            let want = (inp[j * rows + r] as f64 - mx).exp() / sum;
            // ex2.approx.f32 has 2 ulp of error, the row sum adds rounding.
            let g = got[j * rows + r] as f64;
            assert!((g - want).abs() <= 1e-5 * want + 1e-12, "softmax[{r}][{j}]: {g} vs {want}");
        }
    }
}

/// Best time, thread instructions, and every buffer after the run.
fn ptxsim_run(c: &Case, threads: usize) -> (f64, u64, Vec<Vec<u8>>) {
    let mut dev = Device::new();
    let m = dev.load(c.src).expect("load");
    let mut args = Vec::new();
    let mut ptrs = Vec::new();
    for b in &c.bufs {
        let p = dev.alloc(b.len() as u64).expect("alloc");
        ptrs.push(p);
        args.push(KernelArg::Ptr(p));
    }
    args.extend(c.u32s.iter().map(|v| KernelArg::U32(*v)));
    args.extend(c.u64s.iter().map(|v| KernelArg::U64(*v)));
    let mut cfg = LaunchConfig::new(c.grid, c.block);
    cfg.threads = Some(threads);
    cfg.scheduling = Scheduling::Stack;
    // Best of 3, each from the initial buffers.
    let mut best = f64::MAX;
    let mut ti = 0;
    for _ in 0..3 {
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

/// Best time and the bytes of the last buffer (to compare with ptxsim's).
fn ptoxide_run(c: &Case) -> Option<(f64, Vec<u8>)> {
    use ptoxide::{Argument, Context, LaunchParams};
    let mut ctx = match Context::new_with_module(c.src) {
        Ok(x) => x,
        Err(e) => {
            println!("  ptoxide load {}: {e:?}", c.kernel);
            return None;
        }
    };
    let ptrs: Vec<_> = c.bufs.iter().map(|b| ctx.alloc::<u8>(b.len())).collect();
    let mut args: Vec<Argument> = ptrs.iter().map(|p| Argument::ptr(*p)).collect();
    for v in &c.u32s {
        args.push(Argument::U32(*v));
    }
    for v in &c.u64s {
        args.push(Argument::U64(*v));
    }
    // Best of 3, as for ptxsim.
    let mut best = f64::MAX;
    for _ in 0..3 {
        for (p, b) in ptrs.iter().zip(&c.bufs) {
            ctx.write(*p, b);
        }
        let t = Instant::now();
        if let Err(e) = ctx.run(LaunchParams::func_id(0).grid1d(c.grid).block1d(c.block), &args) {
            println!("  ptoxide run {}: {e:?}", c.kernel);
            return None;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut out = vec![0u8; c.bufs.last().map_or(0, |b| b.len())];
    if let Some(p) = ptrs.last() {
        ctx.read(*p, &mut out);
    }
    Some((best, out))
}

fn main() {
    // `--quick`: an eighth of each grid; any other non-flag argument keeps
    // only the cases whose name contains it (e.g. `-- vector`);
    // `--no-ptoxide` skips the comparison runs (for profiling);
    // `--one-core` skips the 2-thread runs.
    let quick = std::env::args().any(|a| a == "--quick");
    let no_ptoxide = std::env::args().any(|a| a == "--no-ptoxide");
    let one_core = std::env::args().any(|a| a == "--one-core");
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let scale = if quick { 8 } else { 1 };
    #[cfg(target_arch = "x86_64")]
    println!("CPU features: fma={} avx2={} avx512f={}", std::arch::is_x86_feature_detected!("fma"), std::arch::is_x86_feature_detected!("avx2"), std::arch::is_x86_feature_detected!("avx512f"));
    let vn = (1usize << 20) / scale as usize;
    let nb = 1024 / scale as usize;
    let (rows, cols) = (4096 / scale as usize, 256usize);
    let nbody_pos: Vec<f32> = noise(4 * nb, 7, -1.0, 1.0).chunks(4).flat_map(|p| [p[0], p[1], p[2], 0.5 + 0.25 * p[3]]).collect();
    let cases = [
        Case { name: "uniform loop (16K threads x 1000 iters)", src: UNIFORM, kernel: "uniform_loop", grid: 64 / scale, block: 256, bufs: vec![iota(16384)], u32s: vec![1000], u64s: vec![], check: None },
        Case { name: "divergent Collatz (64K threads)", src: COLLATZ, kernel: "collatz", grid: 256 / scale, block: 256, bufs: vec![iota(65536)], u32s: vec![], u64s: vec![], check: None },
        Case { name: "divergent loop (64K threads, 1-256 iters)", src: DIVLOOP, kernel: "div_loop", grid: 256 / scale, block: 256, bufs: vec![iota(65536)], u32s: vec![], u64s: vec![], check: None },
        Case { name: "vector add (1M elements)", src: VADD, kernel: "vec_add", grid: 4096 / scale, block: 256, bufs: vec![iota(1 << 20), iota(1 << 20), iota(1 << 20)], u32s: vec![], u64s: vec![1 << 20], check: None },
        Case { name: "f32 SAXPY fma (1M elements)", src: SAXPY, kernel: "saxpy", grid: (vn / 256) as u32, block: 256, bufs: vec![bytes(&noise(vn, 1, -4.0, 4.0)), bytes(&noise(vn, 2, -4.0, 4.0))], u32s: vec![SAXPY_A.to_bits(), vn as u32], u64s: vec![], check: Some(check_saxpy) },
        Case { name: "f32 Mandelbrot (256x256, 256 iters)", src: MANDEL, kernel: "mandel", grid: 256 / scale, block: 256, bufs: vec![bytes(&mandel_points(256, 256 / scale as usize)), vec![0; 65536 * 4 / scale as usize], vec![0; 65536 * 4 / scale as usize]], u32s: vec![256], u64s: vec![], check: Some(check_mandel) },
        Case { name: "f32 n-body step (1K bodies, rsqrt)", src: NBODY, kernel: "nbody", grid: (nb / 256).max(1) as u32, block: 256.min(nb as u32), bufs: vec![bytes(&nbody_pos), vec![0; 16 * nb]], u32s: vec![nb as u32], u64s: vec![], check: Some(check_nbody) },
        Case { name: "f32 row softmax (4K x 256, ex2)", src: SOFTMAX, kernel: "softmax", grid: (rows / 256) as u32, block: 256, bufs: vec![bytes(&noise(rows * cols, 3, -8.0, 8.0)), vec![0; 4 * rows * cols]], u32s: vec![rows as u32, cols as u32], u64s: vec![], check: Some(check_softmax) },
    ];
    println!("{:<42} {:>14} {:>14} {:>8} {:>14} {:>9}", "kernel", "1 core", "2 cores", "scaling", "ptoxide", "speedup");
    for c in cases.iter().filter(|c| filters.is_empty() || filters.iter().any(|f| c.name.contains(f.as_str()))) {
        let (t1, ti, out1) = ptxsim_run(c, 1);
        let t2 = if one_core {
            f64::NAN
        } else {
            let (t2, _, out2) = ptxsim_run(c, 2);
            assert!(out1 == out2, "{}: 1- and 2-core runs differ", c.name);
            t2
        };
        if let Some(check) = c.check {
            check(c, &out1);
        }
        let r1 = ti as f64 / t1;
        let r2 = ti as f64 / t2;
        let pt = if no_ptoxide { None } else { ptoxide_run(c) };
        // Same work: on the integer kernels both emulators must leave the
        // same output buffer. ptoxide splits fma.rn into a rounded multiply
        // and add, so on float kernels its answers may differ (marked `*`).
        let mut differs = "";
        if let Some((_, theirs)) = &pt {
            if c.check.is_none() {
                assert!(Some(theirs) == out1.last(), "{}: ptoxide's output differs from ptxsim's", c.name);
            } else if Some(theirs) != out1.last() {
                differs = "*";
            }
        }
        let (pr, sp) = match pt.map(|(t, _)| t) {
            Some(t) => (format!("{:.3e}{differs}", ti as f64 / t), format!("{:.0}x", t / t1)),
            None => ("unsupported".into(), "-".into()),
        };
        println!("{:<42} {:>14} {:>14} {:>7.2}x {:>14} {:>9}", c.name, format!("{r1:.3e}"), format!("{r2:.3e}"), r2 / r1, pr, sp);
    }
    println!("(thread-instructions per second; speedup = ptoxide time / ptxsim 1-core time; * = ptoxide's output differs)");
}
