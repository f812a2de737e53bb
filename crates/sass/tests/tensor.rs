//! The tensor and asynchronous-copy instructions on the sm_50 machine-form
//! executor: the Triton `tl.dot` kernels of `tests/corpus/triton`
//! (`ldmatrix`, `mma.sync`, `cp.async` with its groups) and an `mbarrier`
//! producer/consumer kernel run under the PTX engine and as the lowered
//! machine form (whose data instructions go through the engine's data
//! path), on fresh devices with the same inputs; every output byte must
//! agree.

use ptxsim_exec::{Device, KernelArg, LaunchConfig};
use ptxsim_sass::engine::MachineConfig;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/triton")
}

/// Runs `kernel` of `src` with input buffers `bufs` (then an output buffer
/// of `out` bytes) and scalar `args`; returns every buffer's bytes.
fn run(src: &str, kernel: &str, grid: u32, block: u32, shared: u32, bufs: &[Vec<u8>], out: usize, args: &[KernelArg], sass: bool) -> Vec<Vec<u8>> {
    let mut dev = Device::new();
    let (m, mp) = if sass {
        let (m, l) = ptxsim_sass::load_and_lower(&mut dev, "k.ptx", src).unwrap();
        (m, Some(l.prog))
    } else {
        (dev.load(src).unwrap(), None)
    };
    let mut ptrs = Vec::new();
    let mut kargs = Vec::new();
    for b in bufs.iter().chain(std::iter::once(&vec![0x5au8; out])) {
        let p = dev.alloc(b.len().max(1) as u64).unwrap();
        dev.write(p, b).unwrap();
        ptrs.push((p, b.len() as u64));
        kargs.push(KernelArg::Ptr(p));
    }
    kargs.extend(args.iter().cloned());
    let mut cfg = LaunchConfig::new(grid, block);
    cfg.dynamic_shared_bytes = shared;
    cfg.threads = Some(1);
    match &mp {
        Some(mp) => ptxsim_sass::engine::launch(&dev, &m, mp, kernel, &cfg, &kargs, &MachineConfig::default()).map(|_| ()).unwrap_or_else(|e| panic!("sass: {e}")),
        None => dev.launch(&m, kernel, &cfg, &kargs).map(|_| ()).unwrap_or_else(|e| panic!("ptx: {e}")),
    }
    ptrs.iter().map(|&(p, n)| dev.read(p, n).unwrap()).collect()
}

/// f16 bits of a normal f32 value exact in f16 (or zero).
fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if b << 1 == 0 {
        return (b >> 16) as u16;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    ((b >> 16) & 0x8000) as u16 | (e as u16) << 10 | ((b >> 13) & 0x3ff) as u16
}

fn bytes_u16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn triton_tensor_kernels_agree_on_both_engines() {
    // Multiples of 1/4 in [-4, 4], as f32 and f16 bits.
    let vals: Vec<f32> = (0..64 * 64).map(|i| ((i * 37 + 11) % 33) as f32 / 4.0 - 4.0).collect();
    let f32b: Vec<u8> = vals.iter().flat_map(|x| x.to_le_bytes()).collect();
    let f16b = bytes_u16(&vals.iter().map(|&x| f16_bits(x)).collect::<Vec<_>>());
    let (m, n, k) = (64usize, 64usize, 64usize);
    let scalars: Vec<KernelArg> = [m, n, k, k, 1, 1, k, n, 1].iter().map(|&v| KernelArg::S32(v as i32)).chain([KernelArg::U64(0)]).collect();
    for (file, input, shared) in [
        ("tr_matmul_f16.ptx", &f16b, 4096),
        ("tr_matmul_tf32.ptx", &f32b, 16384),
        ("tr_matmul_f32_ieee_pipelined.ptx", &f32b, 8192),
    ] {
        let src = std::fs::read_to_string(root().join(file)).unwrap();
        let a = input[..m * k * input.len() / vals.len()].to_vec();
        let b = input[..k * n * input.len() / vals.len()].to_vec();
        let bufs = vec![a, b];
        let ptx = run(&src, "matmul", 4, 128, shared, &bufs, m * n * 4, &scalars, false);
        let sass = run(&src, "matmul", 4, 128, shared, &bufs, m * n * 4, &scalars, true);
        assert_eq!(ptx, sass, "{file}");
        assert!(ptx[2].chunks(4).any(|c| c != [0x5a; 4]), "{file} wrote its output");
    }
    for (file, input) in [("tr_matmul_i8.ptx", (0..1024).map(|i| (i * 7 + 3) as u8).collect::<Vec<u8>>()), ("tr_matmul_bf16.ptx", bytes_u16(&vals[..1024].iter().map(|&x| (x.to_bits() >> 16) as u16).collect::<Vec<_>>()))] {
        let src = std::fs::read_to_string(root().join(file)).unwrap();
        let bufs = vec![input.clone(), input];
        let ptx = run(&src, "matmul_small", 1, 128, 4224, &bufs, 32 * 32 * 4, &[KernelArg::U64(0)], false);
        let sass = run(&src, "matmul_small", 1, 128, 4224, &bufs, 32 * 32 * 4, &[KernelArg::U64(0)], true);
        assert_eq!(ptx, sass, "{file}");
    }
}

#[test]
fn mbarrier_producer_consumer_agrees_on_both_engines() {
    let src = ".version 7.1\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 pout)\n{\n    .shared .align 8 .b64 bar;\n    .shared .align 4 .b32 data[32];\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n    .reg .pred %p<4>;\n    ld.param.u64 %rd1, [pout];\n    mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd2, %r1, 4;\n    add.s64 %rd3, %rd1, %rd2;\n    setp.eq.u32 %p1, %r1, 0;\n    @%p1 mbarrier.init.shared.b64 [bar], 32;\n    bar.sync 0;\n    mov.u32 %r7, data;\n    and.b32 %r8, %r1, 31;\n    shl.b32 %r9, %r8, 2;\n    add.s32 %r10, %r7, %r9;\n    setp.lt.u32 %p2, %r1, 32;\n    @!%p2 bra WAIT;\n    mul.lo.u32 %r11, %r1, 7;\n    st.shared.u32 [%r10], %r11;\n    mbarrier.arrive.shared.b64 %rd4, [bar];\nWAIT:\n    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;\n    @!%p3 bra WAIT;\n    ld.shared.u32 %r12, [%r10];\n    st.global.u32 [%rd3], %r12;\n    ret;\n}\n";
    let ptx = run(src, "k", 1, 128, 0, &[], 128 * 4, &[], false);
    let sass = run(src, "k", 1, 128, 0, &[], 128 * 4, &[], true);
    assert_eq!(ptx, sass);
    let words: Vec<u32> = ptx[0].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert!(words.iter().enumerate().all(|(t, w)| *w == (t as u32 % 32) * 7), "{words:?}");
}
