//! The separately compiled pair of `tests/corpus/nvcc_rdc` (`nvcc
//! -rdc=true`, sources `tests/corpus/src/rdc/`): `rdc_main.ptx` calls two
//! `.extern .func`s and reads an `.extern .global` that `rdc_lib.ptx`
//! defines. ptxas accepts each module with `-c` and nvlink links them
//! (`verdicts.txt`). Loaded alone, `rdc_main.ptx` is a whole program, as
//! `ptxas` without `-c` sees it, and does not load; linked with
//! `rdc_lib.ptx` (`Device::load_linked`, in either order) the kernel runs
//! and computes what the sources say, computed here independently.


use crate::corpus_launch::*;
use ptxsim_exec::{Device, KernelArg, LaunchConfig, TrapKind};

const DIR: &str = "corpus/nvcc_rdc";

#[test]
fn rdc_library_module_loads_alone() {
    let mut dev = Device::new();
    let text = tests_text(&format!("{DIR}/rdc_lib.ptx"));
    let m = dev.load_named("rdc_lib.ptx", &text).unwrap_or_else(|e| panic!("rdc_lib.ptx should load on its own: {e}"));
    assert!(m.kernels().is_empty(), "rdc_lib.ptx defines device functions only");
}

/// As whole-program ptxas: "Unresolved extern function" for both callees.
#[test]
fn rdc_kernel_module_alone_is_an_incomplete_program() {
    let mut dev = Device::new();
    let text = tests_text(&format!("{DIR}/rdc_main.ptx"));
    let e = dev.load_named("rdc_main.ptx", &text).expect_err("rdc_main.ptx calls functions it does not define");
    assert_eq!(e.kind, TrapKind::LoadError, "{e}");
    for f in ["_Z8rdc_polyf", "_Z9rdc_counti"] {
        assert!(e.message.contains(&format!("`{f}` is called but never defined in this module")), "{e}");
    }
    // Linked with nothing else, the same calls are undefined references.
    let e = Device::new().load_linked(&[("rdc_main.ptx", &text)]).expect_err("nothing defines the callees");
    for f in ["_Z8rdc_polyf", "_Z9rdc_counti", "rdc_scale"] {
        assert!(e.message.contains(&format!("`{f}`")) && e.message.contains("no module given defines it"), "{e}");
    }
}

#[test]
fn rdc_pair_links_and_runs_in_either_order() {
    let main = tests_text(&format!("{DIR}/rdc_main.ptx"));
    let lib = tests_text(&format!("{DIR}/rdc_lib.ptx"));
    let n = 1000usize;
    let mut r = Rng::new(77);
    // Multiples of 1/64 in [-8, 8): the polynomial's terms are exact or
    // rounded once each, as the fma below computes them.
    let x: Vec<f32> = (0..n).map(|_| r.i64_in(-512, 511) as f32 / 64.0).collect();
    let v: Vec<i32> = (0..n).map(|_| r.next() as i32).collect();
    // rdc_poly(x) = (3x - 2) x + 1 as two fmas (fma.rn.f32), times
    // rdc_scale = 2.5 (mul.rn.f32); rdc_count(v) = popc(v) + (v & 7).
    let want_out: Vec<f32> = x.iter().map(|&x| x.mul_add(3.0, -2.0).mul_add(x, 1.0) * 2.5).collect();
    let want_cnt: Vec<i32> = v.iter().map(|&v| v.count_ones() as i32 + (v & 7)).collect();
    for order in [[("rdc_main.ptx", &main), ("rdc_lib.ptx", &lib)], [("rdc_lib.ptx", &lib), ("rdc_main.ptx", &main)]] {
        let mut dev = Device::new();
        let refs: Vec<(&str, &str)> = order.iter().map(|(n, t)| (*n, t.as_str())).collect();
        let m = dev.load_linked(&refs).unwrap_or_else(|e| panic!("the pair links: {e}"));
        assert_eq!(m.kernels(), ["rdc_apply"]);
        let bytes = |b: Vec<u8>| b;
        let out = dev.alloc(4 * n as u64).expect("alloc");
        let xb = dev.alloc(4 * n as u64).expect("alloc");
        dev.write(xb, &bytes(x.iter().flat_map(|f| f.to_le_bytes()).collect())).expect("write");
        let cnt = dev.alloc(4 * n as u64).expect("alloc");
        let vb = dev.alloc(4 * n as u64).expect("alloc");
        dev.write(vb, &bytes(v.iter().flat_map(|f| f.to_le_bytes()).collect())).expect("write");
        let args = [KernelArg::Ptr(out), KernelArg::Ptr(xb), KernelArg::Ptr(cnt), KernelArg::Ptr(vb), KernelArg::S32(n as i32)];
        dev.launch(&m, "rdc_apply", &LaunchConfig::new(4, 256), &args).unwrap_or_else(|e| panic!("{e}"));
        let got_out: Vec<f32> = dev.read(out, 4 * n as u64).expect("read").chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let got_cnt: Vec<i32> = dev.read(cnt, 4 * n as u64).expect("read").chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        for i in 0..n {
            assert_eq!(got_out[i].to_bits(), want_out[i].to_bits(), "out[{i}] for x = {}", x[i]);
            assert_eq!(got_cnt[i], want_cnt[i], "cnt[{i}] for v = {}", v[i]);
        }
        // rdc_count's atomicAdd on the library's rdc_calls: once per thread below n.
        let calls = m.globals.iter().find(|g| g.0 == "rdc_calls").expect("rdc_calls is a global of the linked program").1;
        let c = dev.read(calls, 4).expect("read");
        assert_eq!(u32::from_le_bytes([c[0], c[1], c[2], c[3]]), n as u32);
    }
}
