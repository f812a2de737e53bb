//! `cargo bench -p ptxsim-exec`: thread-instructions per second of the SIMT
//! engine on a uniform arithmetic loop, a divergent Collatz kernel (64K
//! threads), a divergent loop ptoxide can run, and vector add (1M elements),
//! on 1 and 2 worker threads, with
//! the same kernels run on `ptoxide` (a crates.io PTX emulator) side by side.
//! ptoxide's rate uses ptxsim's count of thread instructions for the same
//! launch (same PTX, same dynamic instruction stream).
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

const VADD: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry vec_add(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 n)
{
    .reg .pred %p1;
    .reg .f32 %f<4>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<13>;
    ld.param.u64 %rd2, [a];
    ld.param.u64 %rd3, [b];
    ld.param.u64 %rd4, [c];
    ld.param.u64 %rd5, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    cvt.u64.u32 %rd1, %r4;
    setp.ge.u64 %p1, %rd1, %rd5;
    @%p1 bra $L_end;
    cvta.to.global.u64 %rd6, %rd2;
    shl.b64 %rd7, %rd1, 2;
    add.s64 %rd8, %rd6, %rd7;
    cvta.to.global.u64 %rd9, %rd3;
    add.s64 %rd10, %rd9, %rd7;
    ld.global.f32 %f1, [%rd10];
    ld.global.f32 %f2, [%rd8];
    add.f32 %f3, %f2, %f1;
    cvta.to.global.u64 %rd11, %rd4;
    add.s64 %rd12, %rd11, %rd7;
    st.global.f32 [%rd12], %f3;
$L_end:
    ret;
}
"#;

struct Case {
    name: &'static str,
    src: &'static str,
    kernel: &'static str,
    grid: u32,
    block: u32,
    /// (buffer element counts, scalar u32 args, u64 scalar)
    bufs: Vec<usize>,
    u32s: Vec<u32>,
    u64s: Vec<u64>,
}

/// Best time, thread instructions, and the bytes of the last buffer argument
/// after the run (the kernel's output).
fn ptxsim_run(c: &Case, threads: usize) -> (f64, u64, Vec<u8>) {
    let mut dev = Device::new();
    let m = dev.load(c.src).expect("load");
    let mut args = Vec::new();
    for &n in &c.bufs {
        let p = dev.alloc(n as u64 * 4).expect("alloc");
        let init: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        dev.write(p, &init).expect("write");
        args.push(KernelArg::Ptr(p));
    }
    args.extend(c.u32s.iter().map(|v| KernelArg::U32(*v)));
    args.extend(c.u64s.iter().map(|v| KernelArg::U64(*v)));
    let mut cfg = LaunchConfig::new(c.grid, c.block);
    cfg.threads = Some(threads);
    cfg.scheduling = Scheduling::Stack;
    // warm-up and best of 3
    let mut best = f64::MAX;
    let mut ti = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let s = dev.launch(&m, c.kernel, &cfg, &args).expect("launch");
        best = best.min(t.elapsed().as_secs_f64());
        ti = s.thread_instructions;
    }
    let out = match args.iter().rev().find_map(|a| if let KernelArg::Ptr(p) = a { Some(*p) } else { None }) {
        Some(p) => dev.read(p, *c.bufs.last().unwrap_or(&0) as u64 * 4).expect("read"),
        None => Vec::new(),
    };
    (best, ti, out)
}

/// Best time and the bytes of the last buffer (to compare with ptxsim's).
fn ptoxide_run(c: &Case) -> Option<(f64, Vec<u8>)> {
    use ptoxide::{Argument, Context, LaunchParams};
    let mut ctx = match Context::new_with_module(c.src) { Ok(x) => x, Err(e) => { println!("  ptoxide load {}: {e:?}", c.kernel); return None; } };
    let mut ptrs = Vec::new();
    for &n in &c.bufs {
        let p = ctx.alloc::<f32>(n);
        let init: Vec<f32> = (0..n).map(|i| i as f32).collect();
        ctx.write(p, &init);
        ptrs.push(p);
    }
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
        let t = Instant::now();
        if let Err(e) = ctx.run(LaunchParams::func_id(0).grid1d(c.grid).block1d(c.block), &args) { println!("  ptoxide run {}: {e:?}", c.kernel); return None; }
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut out = vec![0f32; c.bufs.last().copied().unwrap_or(0)];
    if let Some(p) = ptrs.last() {
        ctx.read(*p, &mut out);
    }
    Some((best, out.iter().flat_map(|v| v.to_le_bytes()).collect()))
}

fn main() {
    // `--quick`: an eighth of each grid; any other non-flag argument keeps
    // only the cases whose name contains it (e.g. `-- vector`);
    // `--no-ptoxide` skips the comparison runs (for profiling).
    let quick = std::env::args().any(|a| a == "--quick");
    let no_ptoxide = std::env::args().any(|a| a == "--no-ptoxide");
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let scale = if quick { 8 } else { 1 };
    let cases = [Case { name: "uniform loop (16K threads x 1000 iters)", src: UNIFORM, kernel: "uniform_loop", grid: 64 / scale, block: 256, bufs: vec![16384], u32s: vec![1000], u64s: vec![] },
        Case { name: "divergent Collatz (64K threads)", src: COLLATZ, kernel: "collatz", grid: 256 / scale, block: 256, bufs: vec![65536], u32s: vec![], u64s: vec![] },
        Case { name: "divergent loop (64K threads, 1-256 iters)", src: DIVLOOP, kernel: "div_loop", grid: 256 / scale, block: 256, bufs: vec![65536], u32s: vec![], u64s: vec![] },
        Case { name: "vector add (1M elements)", src: VADD, kernel: "vec_add", grid: 4096 / scale, block: 256, bufs: vec![1 << 20, 1 << 20, 1 << 20], u32s: vec![], u64s: vec![1 << 20] }];
    println!("{:<42} {:>14} {:>14} {:>8} {:>14} {:>9}", "kernel", "1 core", "2 cores", "scaling", "ptoxide", "speedup");
    for c in cases.iter().filter(|c| filters.is_empty() || filters.iter().any(|f| c.name.contains(f.as_str()))) {
        let (t1, ti, out1) = ptxsim_run(c, 1);
        let (t2, _, out2) = ptxsim_run(c, 2);
        assert!(out1 == out2, "{}: 1- and 2-core runs differ", c.name);
        let r1 = ti as f64 / t1;
        let r2 = ti as f64 / t2;
        let pt = if no_ptoxide { None } else { ptoxide_run(c) };
        // Same work: both emulators must leave the same output buffer.
        if let Some((_, theirs)) = &pt {
            assert!(*theirs == out1, "{}: ptoxide's output differs from ptxsim's", c.name);
        }
        let (pr, sp) = match pt.map(|(t, _)| t) {
            Some(t) => (format!("{:.3e}", ti as f64 / t), format!("{:.0}x", t / t1)),
            None => ("unsupported".into(), "-".into()),
        };
        println!("{:<42} {:>14} {:>14} {:>7.2}x {:>14} {:>9}", c.name, format!("{r1:.3e}"), format!("{r2:.3e}"), r2 / r1, pr, sp);
    }
    println!("(thread-instructions per second; speedup = ptoxide time / ptxsim 1-core time)");
}
