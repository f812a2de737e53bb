//! Where a CTA's `.shared` variables live (PTX ISA 5.1.6: each variable is
//! its own storage; `extern .shared` arrays are the dynamic memory given at
//! launch). A kernel's static array and the dynamic memory are distinct
//! (nvcc's `__shared__ int st[64]; extern __shared__ int dyn[];` in one
//! kernel), and the kernels of one module do not add their variables up:
//! one kernel runs per CTA, so each needs its own variables and those of
//! the module and of the device functions it names or may call (not the
//! ones it never reaches), as ptxas 12.9 reports them (`ptxas -v`: "40000
//! bytes smem" for each kernel of `six_kernels`, "40016" once one also
//! reads the 16-byte module variable) and a GPU in
//! `cudaFuncAttributes::sharedSizeBytes`. Expected values follow from the
//! kernels' source, never from a run.
#![allow(clippy::unwrap_used)]

use ptxsim_exec::{Device, KernelArg, LaunchConfig};

fn words(dev: &Device, p: u64, n: usize) -> Vec<u32> {
    dev.read(p, 4 * n as u64).unwrap().chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Thread i stores 1000 + i to the kernel's static array and 2000 + i to
/// the dynamic one, then reads both back after a barrier.
const STATIC_AND_DYNAMIC: &str = "
.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry mix(.param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<6>;
	.shared .align 4 .b8 st[256];
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, st;
	add.s32 %r4, %r3, %r2;
	add.s32 %r5, %r1, 1000;
	st.shared.u32 [%r4], %r5;
	mov.u32 %r6, dyn;
	add.s32 %r7, %r6, %r2;
	add.s32 %r8, %r1, 2000;
	st.shared.u32 [%r7], %r8;
	bar.sync 0;
	ld.shared.u32 %r9, [%r4];
	ld.shared.u32 %r10, [%r7];
	cvt.u64.u32 %rd2, %r2;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	st.global.u32 [%rd3+256], %r10;
	ret;
}
";

#[test]
fn a_kernels_static_array_and_the_dynamic_memory_are_distinct() {
    let mut dev = Device::new();
    let m = dev.load_named("mix.ptx", STATIC_AND_DYNAMIC).unwrap();
    let out = dev.alloc(512).unwrap();
    let mut cfg = LaunchConfig::new(1u32, 64u32);
    cfg.dynamic_shared_bytes = 256;
    dev.launch(&m, "mix", &cfg, &[KernelArg::Ptr(out)]).unwrap();
    let got = words(&dev, out, 128);
    let want: Vec<u32> = (0..64).map(|i| 1000 + i).chain((0..64).map(|i| 2000 + i)).collect();
    assert_eq!(got, want);
    let k = m.program.functions.iter().find(|f| f.name == "mix").unwrap();
    assert_eq!(k.shared_bytes, 256, "the kernel's static shared memory");
}

/// Six kernels, each with a 40,000-byte array (240,000 bytes together, more
/// than a CTA may have), a 16-byte module variable, and a device function
/// with an 8-byte array of its own.
fn six_kernels() -> String {
    let mut s = String::from(".version 8.0\n.target sm_80\n.address_size 64\n.shared .align 4 .b8 common[16];\n");
    s.push_str(".func (.reg .b32 r) helper()\n{\n\t.shared .align 8 .b8 h[8];\n\tmov.u32 r, 5;\n\tret;\n}\n");
    for n in 0..6 {
        s.push_str(&format!(
            ".visible .entry k{n}(.param .u64 out)\n{{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.shared .align 4 .b8 s[40000];\n\
\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, s;\n\tadd.s32 %r4, %r3, %r2;\n\
\tadd.s32 %r5, %r1, {n};\n\tst.shared.u32 [%r4+39872], %r5;\n\tbar.sync 0;\n\tld.shared.u32 %r6, [%r3+39872];\n\
\tld.shared.u32 %r7, [%r3+39996];\n\tadd.s32 %r6, %r6, %r7;\n\tst.global.u32 [%rd1+{off}], %r6;\n\tret;\n}}\n",
            off = 4 * n
        ));
    }
    s
}

#[test]
fn the_kernels_of_a_module_do_not_add_their_shared_memory_up() {
    let mut dev = Device::new();
    let src = six_kernels();
    let m = dev.load_named("six.ptx", &src).unwrap();
    let out = dev.alloc(24).unwrap();
    for n in 0..6 {
        dev.launch(&m, &format!("k{n}"), &LaunchConfig::new(1u32, 32u32), &[KernelArg::Ptr(out)]).unwrap_or_else(|e| panic!("k{n}: {e}"));
    }
    // s[39872/4 + 0] = n and s[39872/4 + 31] = 31 + n (thread 31's store).
    assert_eq!(words(&dev, out, 6), (0..6).map(|n| 31 + 2 * n).collect::<Vec<u32>>());
    // Each kernel's own 40,000 bytes: none names the module variable or
    // calls the device function (ptxas -v: "40000 bytes smem").
    for f in m.program.functions.iter().filter(|f| f.is_kernel) {
        assert_eq!(f.shared_bytes, 40_000, "{}", f.name);
    }
    // The CTA's layout still holds them all: 16 (module) + 8 (device
    // function, 8-aligned at 16) + 40,000 (own, at 24).
    assert_eq!(m.program.shared_static, 40_024);
    // A kernel that reads the module variable counts it: 16 + 40,000.
    let src = src.replacen("\tret;\n}\n", "\tld.shared.u32 %r7, [common];\n\tret;\n}\n", 2);
    let src = src.replacen("\tld.shared.u32 %r7, [common];\n\tret;\n}\n", "\tret;\n}\n", 1);
    let m = dev.load_named("six.ptx", &src).unwrap();
    let b: Vec<u32> = m.program.functions.iter().filter(|f| f.is_kernel).map(|f| f.shared_bytes).collect();
    assert_eq!(b, [40_016, 40_000, 40_000, 40_000, 40_000, 40_000]);
}
