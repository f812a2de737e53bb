//! `cargo bench -p ptxsim-exec --bench matmul`: the same Triton `tl.dot`
//! matmul (`tests/corpus/triton`, source `tests/corpus/src/tr_kernels.py`)
//! on the tensor-core path (`ldmatrix` + `mma.sync`, f16 and tf32 inputs)
//! and on the scalar path (`input_precision="ieee"`: `fma.rn.f32` through
//! shared memory, with and without the 3-stage `cp.async` pipeline), timed
//! side by side in one run: FLOP/s (2·M·N·K per launch) and
//! thread-instructions/s, best of three launches on one worker thread.
//! Every output is checked bit for bit against an exact reference computed
//! here (the inputs are multiples of 1/4 in [-4, 4], so every product and
//! partial sum is exact in f32 and any order gives the same result).
#![allow(clippy::print_stdout)]

use ptxsim_exec::{Device, Dim3, KernelArg, LaunchConfig};
use std::time::Instant;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/triton")
}

/// (warps, dynamic shared bytes) of a kernel from `launch.tsv`.
fn launch_row(file: &str) -> (u32, u32) {
    let t = std::fs::read_to_string(root().join("launch.tsv")).expect("launch.tsv");
    let row: Vec<&str> = t.lines().map(|l| l.split('\t').collect::<Vec<_>>()).find(|c| c[0] == file).expect("row").to_vec();
    (row[2].parse().expect("warps"), row[3].parse().expect("shared"))
}

fn bytes<T: Copy>(v: &[T], f: impl Fn(T) -> Vec<u8>) -> Vec<u8> {
    v.iter().flat_map(|x| f(*x)).collect()
}

fn main() {
    let n = std::env::args().skip(1).find_map(|a| a.parse::<usize>().ok()).unwrap_or(256);
    let (m, k) = (n, n);
    let mut s = 0x1234_5678_9abc_def0u64;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s % 33) as i64 - 16) as f32 / 4.0
    };
    let a: Vec<f32> = (0..m * k).map(|_| rnd()).collect();
    let bt: Vec<f32> = (0..k * n).map(|_| rnd()).collect(); // b[k][j] at bt[j * k + k]
    let mut want = vec![0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (0..k).map(|kk| a[i * k + kk] as f64 * bt[j * k + kk] as f64).sum::<f64>() as f32;
        }
    }
    println!("matmul {m}x{n}x{k} ({} MFLOP per launch), one worker thread, best of 3", 2 * m * n * k / 1_000_000);
    println!("{:<48} {:>12} {:>16}", "kernel", "FLOP/s", "thread-instr/s");
    for (file, half, what) in [
        ("tr_matmul_f16.ptx", true, "tensor cores: ldmatrix + mma.m16n8k16 f16"),
        ("tr_matmul_tf32.ptx", false, "tensor cores: cp.async + mma.m16n8k8 tf32"),
        ("tr_matmul_f32_ieee.ptx", false, "scalar: fma.rn.f32"),
        ("tr_matmul_f32_ieee_pipelined.ptx", false, "scalar: cp.async + fma.rn.f32"),
    ] {
        let src = std::fs::read_to_string(root().join(file)).expect("kernel");
        let mut dev = Device::new();
        let module = dev.load(&src).expect("loads");
        let (warps, shared) = launch_row(file);
        let (ab, bb) = if half {
            let h = |x: f32| half::f16::from_f32(x).to_bits().to_le_bytes().to_vec();
            (bytes(&a, h), bytes(&bt, h))
        } else {
            let f = |x: f32| x.to_le_bytes().to_vec();
            (bytes(&a, f), bytes(&bt, f))
        };
        let pa = dev.alloc(ab.len() as u64).expect("alloc");
        dev.write(pa, &ab).expect("write");
        let pb = dev.alloc(bb.len() as u64).expect("alloc");
        dev.write(pb, &bb).expect("write");
        let pc = dev.alloc((m * n * 4) as u64).expect("alloc");
        let mut args = vec![KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pc)];
        for v in [m, n, k, k, 1, 1, k, n, 1] {
            args.push(KernelArg::S32(v as i32));
        }
        args.push(KernelArg::U64(0));
        let mut cfg = LaunchConfig::new(Dim3::new((m / 32) as u32, (n / 32) as u32, 1), 32 * warps);
        cfg.dynamic_shared_bytes = shared;
        cfg.threads = Some(1);
        let mut best = f64::MAX;
        let mut ti = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let st = dev.launch(&module, "matmul", &cfg, &args).expect("launch");
            best = best.min(t.elapsed().as_secs_f64());
            ti = st.thread_instructions;
        }
        let got: Vec<f32> = dev.read(pc, (m * n * 4) as u64).expect("read").chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()), "{file}: output differs from the exact reference");
        let flops = 2.0 * (m * n * k) as f64 / best;
        println!("{:<48} {:>12.3e} {:>16.3e}", format!("{what} ({file})"), flops, ti as f64 / best);
    }
}
