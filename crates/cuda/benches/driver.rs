//! `cargo bench -p ptxsim-cuda --bench driver`: the driver library's fixed
//! costs, each beside the engine doing the same work in the same run.
//!
//! - `launch/*`: an empty kernel (one thread, `ret`) launched with
//!   `cuLaunchKernel` through the library's C entry point, beside the
//!   engine's `Device::launch` of the same module with the same
//!   configuration (scheduling, workers). The difference is the driver's
//!   own cost: the guard, the registry lookups, copying the arguments.
//!   Also the empty kernel on 64 blocks of 32 threads, where the launch
//!   starts its worker threads.
//! - `load/*`: a generated module of about 100 kB (many `.func`s of f32
//!   math, as Numba and Triton emit for math-heavy code, and a kernel that
//!   calls them): `cuModuleLoadData` of a text never loaded before (each
//!   iteration's text differs in a leading comment, so the module cache
//!   misses), of the same text again (a cache hit), and the engine's
//!   `Device::load` of it (parse, check, decode) on one device.
//!
//! After criterion's report a summary prints the medians it measured the
//! same way (best of batches, in microseconds and milliseconds) beside the
//! issue's targets (an empty launch ≤ 20 µs, a first load of 100 kB ≤ 5 ms).
#![allow(clippy::print_stdout)]

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion};
use cuda::types::CUresult;
use ptxsim_exec::{Device, LaunchConfig, Scheduling};
use std::ffi::c_void;
use std::fmt::Write as _;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

const EMPTY: &str = "
.version 7.0
.target sm_80
.address_size 64
.visible .entry empty()
{
    ret;
}
\0";

/// One `.func` of f32 math: `f<i>(x, y)`, about 700 bytes of PTX.
fn math_func(out: &mut String, i: usize) {
    let _ = write!(
        out,
        "
.visible .func (.param .b32 r) f{i}(.param .b32 x, .param .b32 y)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .f32 %f<16>;
    ld.param.f32 %f1, [x];
    ld.param.f32 %f2, [y];
    mul.rn.f32 %f3, %f1, %f2;
    fma.rn.f32 %f4, %f3, 0f3F000000, %f2;
    abs.f32 %f5, %f4;
    sqrt.rn.f32 %f6, %f5;
    ex2.approx.ftz.f32 %f7, %f1;
    lg2.approx.f32 %f8, %f5;
    sin.approx.f32 %f9, %f2;
    div.rn.f32 %f10, %f6, %f7;
    max.f32 %f11, %f10, %f8;
    min.f32 %f12, %f11, %f9;
    setp.gt.f32 %p1, %f12, 0f00000000;
    selp.f32 %f13, %f12, %f3, %p1;
    cvt.rzi.s32.f32 %r1, %f13;
    add.s32 %r2, %r1, {i};
    cvt.rn.f32.s32 %f14, %r2;
    add.f32 %f15, %f14, %f13;
    st.param.f32 [r], %f15;
    ret;
}}
"
    );
}

/// A module of at least `bytes` of PTX: math functions and a kernel that
/// calls every eighth of them. `tag` goes into a leading comment, so two
/// tags give two texts that decode to the same program.
fn big_module(bytes: usize, tag: u64) -> String {
    let mut s = format!("// variant {tag}\n.version 7.8\n.target sm_80\n.address_size 64\n");
    let mut n = 0;
    while s.len() < bytes {
        math_func(&mut s, n);
        n += 1;
    }
    s.push_str(
        "
.visible .entry run(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    mov.f32 %f2, %f1;
",
    );
    for i in (0..n).step_by(8) {
        let _ = write!(
            s,
            "    {{
    .param .b32 a;
    .param .b32 b;
    .param .b32 r;
    st.param.f32 [a], %f1;
    st.param.f32 [b], %f2;
    call.uni (r), f{i}, (a, b);
    ld.param.f32 %f2, [r];
    }}
"
        );
    }
    s.push_str(
        "    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.f32 [%rd3], %f2;
    ret;
}
",
    );
    s.push('\0');
    s
}

type H = *mut c_void;

fn ok(r: CUresult, what: &str) {
    assert_eq!(r, 0, "{what} failed: {r}");
}

/// cuInit, the primary context made current.
fn init() {
    unsafe {
        ok(cuda::device::cuInit(0), "cuInit");
        let mut ctx: H = null_mut();
        ok(cuda::context::cuDevicePrimaryCtxRetain(&mut ctx as *mut H as _, 0), "cuDevicePrimaryCtxRetain");
        ok(cuda::context::cuCtxSetCurrent(ctx as _), "cuCtxSetCurrent");
    }
}

fn load(text: &str) -> H {
    let mut m: H = null_mut();
    unsafe { ok(cuda::module::cuModuleLoadData(&mut m as *mut H as _, text.as_ptr() as *const c_void), "cuModuleLoadData") };
    m
}

fn unload(m: H) {
    ok(cuda::module::cuModuleUnload(m as _), "cuModuleUnload");
}

/// The best mean time per call of `f` over `batches` batches of `n` calls.
fn best_per_call(batches: usize, n: usize, mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..batches {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        best = best.min(t.elapsed() / n as u32);
    }
    best
}

fn bench(c: &mut Criterion) {
    init();
    // --- launch: the empty kernel ---
    let m = load(EMPTY);
    let mut f: H = null_mut();
    unsafe { ok(cuda::module::cuModuleGetFunction(&mut f as *mut H as _, m as _, c"empty".as_ptr()), "cuModuleGetFunction") };
    let launch = || unsafe {
        ok(cuda::module::cuLaunchKernel(f as _, 1, 1, 1, 1, 1, 1, 0, null_mut(), null_mut(), null_mut()), "cuLaunchKernel");
    };
    let dev = Device::new();
    let mut scratch = Device::new();
    let em = scratch.load(&EMPTY[..EMPTY.len() - 1]).expect("load");
    let mut cfg = LaunchConfig::new(1u32, 1u32);
    // As the library launches by default: compute capability 8.0, ITS.
    cfg.scheduling = Scheduling::Its;
    let engine_launch = || {
        black_box(dev.launch(&em, "empty", &cfg, &[]).expect("launch"));
    };
    // 64 blocks of 32 threads: the workers are threads started per launch.
    let grid_launch = || unsafe {
        ok(cuda::module::cuLaunchKernel(f as _, 64, 1, 1, 32, 1, 1, 0, null_mut(), null_mut(), null_mut()), "cuLaunchKernel");
    };
    let mut g = c.benchmark_group("launch");
    g.measurement_time(Duration::from_secs(3));
    g.bench_function("empty cuLaunchKernel", |b| b.iter(launch));
    g.bench_function("empty Device::launch", |b| b.iter(engine_launch));
    g.bench_function("empty cuLaunchKernel 64x32", |b| b.iter(grid_launch));
    g.finish();

    // --- load: a 100 kB module ---
    let text = big_module(100_000, 0);
    let mut tag = 1u64;
    let mut g = c.benchmark_group("load");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    g.bench_function("100 kB cuModuleLoadData first", |b| {
        b.iter_batched(
            || {
                tag += 1;
                big_module(100_000, tag)
            },
            |t| unload(load(&t)),
            BatchSize::PerIteration,
        )
    });
    unload(load(&text));
    g.bench_function("100 kB cuModuleLoadData cached", |b| b.iter(|| unload(load(&text))));
    let plain = &text[..text.len() - 1];
    let mut ldev = Device::new();
    g.bench_function("100 kB Device::load", |b| b.iter(|| black_box(ldev.load(plain).expect("load"))));
    g.finish();

    // --- summary, measured again the same way for both sides ---
    let l_drv = best_per_call(20, 2000, launch);
    let l_eng = best_per_call(20, 2000, engine_launch);
    let l_grid = best_per_call(20, 200, grid_launch);
    let mut texts: Vec<String> = (0..30).map(|i| big_module(100_000, 1_000_000 + i)).collect();
    let mut first = Duration::MAX;
    for t in texts.drain(..) {
        let s = Instant::now();
        let m = load(&t);
        first = first.min(s.elapsed());
        unload(m);
    }
    let cached = best_per_call(10, 20, || unload(load(&text)));
    let engine = best_per_call(5, 3, || {
        black_box(ldev.load(plain).expect("load"));
    });
    let (entries, bytes, hits, misses) = cuda::module_cache::stats();
    println!();
    println!("summary (best of batches):");
    println!(
        "  empty launch: cuLaunchKernel {:.1} µs, Device::launch {:.1} µs, driver's own cost {:.1} µs (target: cuLaunchKernel ≤ 20 µs)",
        us(l_drv),
        us(l_eng),
        us(l_drv) - us(l_eng)
    );
    println!("  empty launch of 64 blocks of 32 threads (workers started per launch): cuLaunchKernel {:.1} µs", us(l_grid));
    println!(
        "  load of {} bytes of PTX: first {:.2} ms (target ≤ 5 ms), cached {:.1} µs, Device::load {:.2} ms",
        text.len() - 1,
        us(first) / 1000.0,
        us(cached),
        us(engine) / 1000.0
    );
    println!("  module cache: {entries} entries, ~{} kB, {hits} hits, {misses} misses", bytes / 1000);
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

criterion_group!(benches, bench);
criterion_main!(benches);
