//! A Triton `tl.dot` matmul on the tensor path (`ldmatrix` +
//! `mma.sync.aligned.m16n8k16` on f16 inputs) from the command line, on both
//! engines: `ptxsim run` with the inputs as raw f16 files, its JSON output
//! compared with a reference computed here (multiples of 1/4 in [-4, 4], so
//! every product and partial sum is exact in f32).

mod common;

use common::{ptxsim_measured, temp_dir};
use std::time::Duration;

/// f16 bits of a value exact in f16 (a multiple of 1/4 in [-4, 4]).
fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if b << 1 == 0 {
        return (b >> 16) as u16;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    ((b >> 16) & 0x8000) as u16 | (e as u16) << 10 | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn triton_f16_matmul_runs_from_the_command_line() {
    let n = 64usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 37 + 11) % 33) as f32 / 4.0 - 4.0).collect();
    let bt: Vec<f32> = (0..n * n).map(|i| ((i * 53 + 7) % 33) as f32 / 4.0 - 4.0).collect(); // b[k][j] = bt[j * n + k]
    let dir = temp_dir("tensor_cli");
    let file = |name: &str, v: &[f32]| {
        let p = dir.join(name);
        std::fs::write(&p, v.iter().flat_map(|&x| f16_bits(x).to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        format!("b16[{}]=@{}", v.len(), p.display())
    };
    let (fa, fb) = (file("a.bin", &a), file("b.bin", &bt));
    let kernel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/triton/tr_matmul_f16.ptx");
    let kernel = kernel.to_str().unwrap();
    let c = format!("f32[{}]=zeros", n * n);
    let (m, s1, s0) = (format!("s32={n}"), "s32=1".to_string(), "u64=0".to_string());
    for engine in ["ptx", "sass"] {
        let mut args = vec!["run", kernel, "--kernel", "matmul", "--grid", "2,2", "--block", "128", "--shared", "4096", "--json", "--engine", engine];
        let scalars = [&fa, &fb, &c, &m, &m, &m, &m, &s1, &s1, &m, &m, &s1, &s0];
        for s in scalars {
            args.push("--arg");
            args.push(s);
        }
        let r = ptxsim_measured(&args, Duration::from_secs(120));
        assert_eq!(r.code, Some(0), "{engine}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("one JSON object");
        let got: Vec<f64> = v["buffers"][2]["values"].as_array().expect("buffer 2").iter().map(|x| x.as_f64().expect("a number")).collect();
        assert_eq!(got.len(), n * n);
        for i in 0..n {
            for j in 0..n {
                let want: f64 = (0..n).map(|k| a[i * n + k] as f64 * bt[j * n + k] as f64).sum();
                assert_eq!(got[i * n + j], want, "{engine}: c[{i}][{j}]");
            }
        }
    }
}
