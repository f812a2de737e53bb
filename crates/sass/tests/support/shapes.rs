//! Generated PTX modules of the three shapes whose lowering and machine-form
//! runs must scale near-linearly (issue 21, item 9), with the outputs each
//! computes, worked out here from the source's arithmetic (not from a run):
//!
//! - [`ifs`]: `n` sequential divergent `if`s, each `setp` on `%tid.x` then
//!   `@p bra` over a one-instruction block;
//! - [`switch`]: one `brx.idx` over a table of `n` cases;
//! - [`kernels`]: a module of `n` empty kernels.
//!
//! Each kernel (but the empty ones) takes one `.u64` output pointer and
//! stores one `u32` per thread of a single warp.

#![allow(dead_code)]

const HEAD: &str = ".version 7.0\n.target sm_50\n.address_size 64\n\n";

/// Stores `%r2` at `out[%tid.x]`.
const STORE: &str = "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd1, %rd1, %rd2;\nst.global.u32 [%rd1], %r2;\nret;\n}\n";

/// Kernel `ifs`: for each `i < n`, lane `t` adds `i` when `t == i % 32`.
pub fn ifs(n: usize) -> String {
    let mut s = String::with_capacity(64 * n + 512);
    s.push_str(HEAD);
    s.push_str(".visible .entry ifs(.param .u64 out)\n{\n.reg .pred %p<2>;\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, 0;\n");
    for i in 0..n {
        s.push_str(&format!("setp.ne.u32 %p1, %r1, {};\n@%p1 bra $L_{i};\nadd.u32 %r2, %r2, {i};\n$L_{i}:\n", i % 32));
    }
    s.push_str(STORE);
    s
}

/// What `ifs(n)` stores for lane `t`: the sum of the `i < n` with `i % 32 == t`.
pub fn ifs_expected(n: usize, t: u32) -> u32 {
    (0..n as u64).filter(|i| i % 32 == t as u64).sum::<u64>() as u32
}

/// Kernel `switch`: `brx.idx` on `%tid.x % n` over `n` cases; case `i` sets
/// `%r2 = 7 * i + 1` and jumps to the store.
pub fn switch(n: usize) -> String {
    let mut s = String::with_capacity(48 * n + 512);
    s.push_str(HEAD);
    s.push_str(".visible .entry switch(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\nmov.u32 %r1, %tid.x;\n");
    s.push_str(&format!("rem.u32 %r3, %r1, {n};\nmov.u32 %r2, 0;\n$T: .branchtargets "));
    for i in 0..n {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!("$C_{i}"));
    }
    s.push_str(";\nbrx.idx %r3, $T;\n");
    for i in 0..n {
        s.push_str(&format!("$C_{i}:\nmov.u32 %r2, {};\nbra.uni $END;\n", 7 * i as u64 + 1));
    }
    s.push_str("$END:\n");
    s.push_str(STORE);
    s
}

/// What `switch(n)` stores for lane `t`.
pub fn switch_expected(n: usize, t: u32) -> u32 {
    7 * (t % n as u32) + 1
}

/// A module of `n` empty kernels `k0 .. k{n-1}`.
pub fn kernels(n: usize) -> String {
    let mut s = String::with_capacity(40 * n + 64);
    s.push_str(HEAD);
    for i in 0..n {
        s.push_str(&format!(".visible .entry k{i}()\n{{\nret;\n}}\n"));
    }
    s
}
