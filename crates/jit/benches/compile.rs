//! Compile time of the tier: a generated straight-line function of 1,000
//! compiled instructions (integer, f32, comparisons, selects, guards) and
//! the escape kernel, best of several compilations each, with the full
//! and the quick code generator (`Quality`).
//! `cargo bench -p ptxsim-jit --bench compile`.

use std::time::{Duration, Instant};

fn big_kernel(n: usize) -> String {
    let mut s = String::from(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry big(.param .u64 p)\n{\n.reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .f32 %f<32>;\n.reg .b64 %rd<4>;\n\
         ld.param.u64 %rd0, [p];\n",
    );
    for i in 0..n {
        let (a, b, c) = ((i * 7 + 1) % 32, (i * 13 + 5) % 32, (i * 3 + 2) % 32);
        let line = match i % 10 {
            0 => format!("add.s32 %r{a}, %r{b}, %r{c};"),
            1 => format!("fma.rn.f32 %f{a}, %f{b}, %f{c}, %f{a};"),
            2 => format!("mul.f32 %f{a}, %f{b}, %f{c};"),
            3 => format!("setp.lt.f32 %p{}, %f{b}, %f{c};", a % 8),
            4 => format!("@%p{} add.f32 %f{a}, %f{b}, %f{c};", b % 8),
            5 => format!("selp.b32 %r{a}, %r{b}, %r{c}, %p{};", a % 8),
            6 => format!("xor.b32 %r{a}, %r{b}, %r{c};"),
            7 => format!("mad.lo.s32 %r{a}, %r{b}, %r{c}, %r{a};"),
            8 => format!("cvt.rn.f32.s32 %f{a}, %r{b};"),
            _ => format!("setp.ne.s32 %p{}, %r{b}, %r{c};", c % 8),
        };
        s += &line;
        s.push('\n');
    }
    s + "st.global.u32 [%rd0], %r0;\nret;\n}\n"
}

fn best(src: &str, runs: usize, q: ptxsim_jit::Quality) -> (Duration, usize) {
    let mut dev = ptxsim_exec::Device::new();
    let m = dev.load(src).expect("the generated kernel loads");
    let f = &m.program.functions[0];
    let mut best = Duration::MAX;
    let mut n = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let c = ptxsim_jit::compile_function_as(f, q).expect("compiles");
        best = best.min(t.elapsed());
        n = c.compiled;
    }
    (best, n)
}

fn main() {
    use ptxsim_jit::Quality::{Full, Quick};
    for q in [Full, Quick] {
        let (t, n) = best(&big_kernel(1000), 20, q);
        println!("compile ({q:?}): {n} instructions compiled in {:.2} ms (best of 20)", t.as_secs_f64() * 1e3);
        let (t, n) = best(include_str!("../tests/data/escape.ptx"), 10, q);
        println!("compile ({q:?}): escape kernel, {n} instructions compiled in {:.2} ms (best of 10)", t.as_secs_f64() * 1e3);
    }
}
