//! Memory under hostile and careless use: `.global` variables cost no
//! resident memory until touched, one cap (`Limits::max_memory`) covers
//! global memory and each worker's CTA state, local storage has one limit
//! at load and run time, and out-of-bounds traps name the nearest
//! allocation. Resident memory is read from `/proc/self/status` (Linux).

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Limits, TrapKind};

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n";

/// A field of `/proc/self/status` in KiB (None off Linux).
fn status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Everything that measures resident memory runs in this one test, in
/// order, so no other test of this binary allocates meanwhile.
#[test]
fn resident_memory_stays_bounded() {
    // 1. Workers holding big `.local` frames: 64 KiB per thread, 1024
    //    threads, so 64 MiB per CTA in flight. Under a 200 MiB cap, 8
    //    requested workers shrink to what fits, and resident memory grows by
    //    no more than the cap.
    let src = format!(
        "{HEADER}.visible .entry k(.param .u64 out)\n{{\n.local .align 4 .b8 buf[65536];\n.reg .u32 %t;\n.reg .u64 %o;\n\
         mov.u32 %t, %tid.x;\nst.local.u32 [buf+65532], %t;\nld.local.u32 %t, [buf+65532];\nld.param.u64 %o, [out];\nst.global.u32 [%o], %t;\nret;\n}}\n"
    );
    let before = status_kib("VmRSS:");
    let mut dev = Device::with_limits(Limits { max_memory: 200 << 20, ..Limits::default() });
    let m = dev.load(&src).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    let mut cfg = LaunchConfig::new(16, 1024);
    cfg.threads = Some(8);
    let t0 = std::time::Instant::now();
    dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect("runs with fewer workers");
    assert!(t0.elapsed() < std::time::Duration::from_secs(30));
    if let (Some(b), Some(peak)) = (before, status_kib("VmHWM:")) {
        assert!(peak < b + 260 * 1024, "peak RSS {peak} KiB from {b} KiB");
    }
    // The same launch under a cap smaller than one CTA's frames.
    let mut dev = Device::with_limits(Limits { max_memory: 32 << 20, ..Limits::default() });
    let m = dev.load(&src).expect("loads");
    let out = dev.alloc(4).expect("alloc");
    let e = dev.launch(&m, "k", &cfg, &[KernelArg::Ptr(out)]).expect_err("does not fit");
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    assert!(e.message.contains("local frames") && e.message.contains("--max-memory") && e.message.contains(&format!("{}", 32u64 << 20)), "{e}");

    // 2. Three 1 GB `.global` variables: allocated, not resident.
    let src = format!(
        "{HEADER}.global .u8 a[1000000000];\n.global .u8 b[1000000000];\n.global .u8 c[1000000000];\n\
         .visible .entry k()\n{{\n.reg .u16 %v;\nld.global.u8 %v, [b+999999999];\nst.global.u8 [c+999999999], %v;\nret;\n}}\n"
    );
    let before = status_kib("VmRSS:");
    let mut dev = Device::with_limits(Limits { max_memory: 4 << 30, ..Limits::default() });
    let m = dev.load(&src).expect("3 GB fits under 4 GiB");
    dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[]).expect("runs");
    if let (Some(b), Some(a)) = (before, status_kib("VmRSS:")) {
        assert!(a < b + 64 * 1024, "RSS {a} KiB after load, {b} KiB before");
    }
    assert_eq!(m.globals.iter().map(|g| g.0.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);

    // 3. The same module under a 2 GiB cap: the third variable is refused,
    //    by name.
    let mut dev = Device::with_limits(Limits { max_memory: 2 << 30, ..Limits::default() });
    let e = dev.load(&src).expect_err("over the cap");
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    assert!(e.message.contains("`c`") && e.message.contains("--max-memory") && e.message.contains("line 6"), "{e}");
    // A host allocation past the cap names the limit too.
    let mut dev = Device::with_limits(Limits { max_memory: 1 << 20, ..Limits::default() });
    let e = dev.alloc(2 << 20).expect_err("over the cap");
    assert!(e.kind == TrapKind::OutOfMemory && e.message.contains("1048576") && e.message.contains("--max-memory"), "{e}");
}

#[test]
fn local_storage_has_one_limit_located_at_load_and_at_run_time() {
    // A frame over the per-thread limit is refused at load, with its line,
    // by the same limit and message whatever its size.
    for size in [600_000, 2_000_000, 100_000_000] {
        let src = format!("{HEADER}.visible .entry k()\n{{\n.local .align 4 .b8 buf[{size}];\n.reg .u32 %t;\nst.local.u32 [buf], %t;\nret;\n}}\n");
        let mut dev = Device::new();
        let e = dev.load(&src).expect_err("over 512 KiB");
        assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
        assert!(e.message.contains("limit of 524288 bytes per thread") && e.message.contains(&format!("`k` ({size} bytes")), "{e}");
        assert_eq!((e.function.as_deref(), e.line), (Some("k"), Some(4)), "{e:?}");
    }
    // The limit lowered after load: the launch reports it at the kernel.
    let src = format!("{HEADER}.visible .entry k()\n{{\n.local .align 4 .b8 buf[4096];\n.reg .u32 %t;\nst.local.u32 [buf], %t;\nret;\n}}\n");
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    dev.limits.local_bytes_per_thread = 1024;
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 32), &[]).expect_err("4096 > 1024");
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    assert!(e.message.contains("limit of 1024 bytes per thread"), "{e}");
    assert_eq!((e.function.as_deref(), e.line, e.cta), (Some("k"), Some(4), Some([0, 0, 0])), "{e:?}");
}

fn oob(body: &str, decls: &str, nargs: usize) -> ptxsim_exec::RunError {
    let params: Vec<String> = (0..nargs).map(|i| format!(".param .u64 p{i}")).collect();
    let src = format!("{HEADER}{decls}.visible .entry k({})\n{{\n.reg .u32 %v;\n.reg .u64 %a, %b;\n{body}\nret;\n}}\n", params.join(", "));
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let mut args = Vec::new();
    for _ in 0..nargs {
        args.push(KernelArg::Ptr(dev.alloc(400).expect("alloc")));
    }
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 1), &args).expect_err("out of bounds");
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    e
}

#[test]
fn out_of_bounds_traps_name_the_nearest_allocation() {
    // 400 bytes at p1: [p1+400] is 0 bytes past its end, [p1+408] 8.
    let e = oob("ld.param.u64 %a, [p1];\nst.global.u32 [%a+400], 1;", "", 3);
    assert!(e.message.contains("0 bytes past the end of kernel argument 1 (400 bytes"), "{e}");
    let e = oob("ld.param.u64 %a, [p2];\nld.global.u32 %v, [%a+408];", "", 3);
    assert!(e.message.contains("8 bytes past the end of kernel argument 2 (400 bytes"), "{e}");
    // A module variable, by name; a null pointer.
    let e = oob("mov.u64 %a, tab;\nld.global.u32 %v, [%a+64];", ".global .u32 tab[16];\n", 0);
    assert!(e.message.contains("0 bytes past the end of `.global` variable `tab` (64 bytes"), "{e}");
    let e = oob("mov.u64 %a, 0;\nld.global.u32 %v, [%a];", "", 1);
    assert!(e.message.contains("null pointer"), "{e}");
    // A store into the kernel's parameter window.
    let e = oob("mov.u64 %a, p0;\ncvta.param.u64 %b, %a;\nst.u32 [%b], 1;", "", 1);
    assert!(e.message.contains("parameter window, which is read-only"), "{e}");
    assert!(!e.message.contains("outside every allocation"), "{e}");
    // Dynamic shared memory used without any given.
    let e = oob("mov.u64 %a, dyn;\nld.shared.u32 %v, [%a];", ".extern .shared .align 4 .b8 dyn[];\n", 0);
    assert!(e.message.contains("0 bytes past the end of the CTA's shared memory (0 bytes)"), "{e}");
}

#[test]
fn host_copies_out_of_bounds_name_the_allocation() {
    let mut dev = Device::new();
    let p = dev.alloc(400).expect("alloc");
    let e = dev.read(p + 396, 8).expect_err("past the end");
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    assert!(e.message.contains("runs 4 bytes past the end of a device allocation (400 bytes"), "{e}");
    let e = dev.write(p + 410, &[1, 2]).expect_err("past the end");
    assert!(e.message.contains("10 bytes past the end of a device allocation (400 bytes"), "{e}");
    let m = dev.load(&format!("{HEADER}.global .u32 tab[4];\n.visible .entry k()\n{{\nret;\n}}\n")).expect("loads");
    let tab = m.globals[0].1;
    let e = dev.read(tab + 16, 4).expect_err("past the end");
    assert!(e.message.contains("0 bytes past the end of `.global` variable `tab` (16 bytes"), "{e}");
}

/// The printf buffer is device memory (CUDA reserves
/// `cudaLimitPrintfFifoSize` bytes of it): a buffer larger than the memory
/// cap left is refused at launch, before anything runs, instead of
/// growing past the cap while the kernel prints (`--printf-buffer 1T
/// --max-memory 256M` used to reach 2.7 GB).
#[test]
fn the_printf_buffer_counts_against_the_memory_cap() {
    let src = format!("{HEADER}.visible .entry k()\n{{\nret;\n}}\n");
    let mut dev = Device::with_limits(Limits { max_memory: 256 << 20, ..Limits::default() });
    let m = dev.load(&src).expect("loads");
    let mut cfg = LaunchConfig::new(1, 1);
    cfg.stdout_bytes = 1 << 40;
    let e = dev.launch(&m, "k", &cfg, &[]).expect_err("a 1 TiB printf buffer does not fit in 256 MiB");
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    assert!(e.message.contains("printf buffer"), "{e}");
    // With the buffer and an allocation together past the cap, too.
    let _big = dev.alloc(200 << 20).expect("alloc");
    cfg.stdout_bytes = 100 << 20;
    assert_eq!(dev.launch(&m, "k", &cfg, &[]).expect_err("200 + 100 MiB > 256 MiB").kind, TrapKind::OutOfMemory);
    cfg.stdout_bytes = 1 << 20;
    dev.launch(&m, "k", &cfg, &[]).expect("200 MiB + the default 1 MiB buffer fit");
}

/// An access just past a one-byte buffer names its size in the singular.
#[test]
fn a_one_byte_buffer_is_one_byte() {
    let src = format!("{HEADER}.visible .entry k(.param .u64 p)\n{{\n.reg .u64 %a;\n.reg .u16 %h;\nld.param.u64 %a, [p];\nld.global.u8 %h, [%a+1];\nret;\n}}\n");
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let p = dev.alloc(1).expect("alloc");
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(p)]).expect_err("out of bounds");
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    assert!(e.message.contains("(1 byte at") && !e.message.contains("1 bytes"), "{e}");
}

/// `Device::free`: freed bytes count against the cap no more (10,000 cycles
/// of 1 MiB under a 64 MiB cap), a double free, a foreign address and a
/// module variable are errors, and a kernel given a freed pointer traps
/// out of bounds rather than reaching a later allocation.
#[test]
fn freed_memory_is_given_back_and_stale_pointers_trap() {
    let src = format!("{HEADER}.visible .global .align 4 .u32 g;\n.visible .entry k(.param .u64 p)\n{{\n.reg .u64 %a;\n.reg .u32 %v;\nld.param.u64 %a, [p];\nld.global.u32 %v, [%a];\nret;\n}}\n");
    let mut dev = Device::with_limits(Limits { max_memory: 64 << 20, ..Limits::default() });
    let m = dev.load(&src).expect("loads");
    for _ in 0..10_000 {
        let p = dev.alloc(1 << 20).expect("the freed megabytes are available again");
        dev.free(p).expect("frees");
    }
    let p = dev.alloc(64).expect("alloc");
    dev.free(p).expect("frees");
    assert!(dev.free(p).is_err(), "double free");
    assert!(dev.free(p + 8).is_err(), "not the start of an allocation");
    assert!(dev.free(12345).is_err(), "foreign address");
    let g = m.globals.iter().find(|(n, _)| n == "g").expect("g").1;
    assert!(dev.free(g).is_err(), "a module variable");
    let _later = dev.alloc(64).expect("alloc");
    let e = dev.launch(&m, "k", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(p)]).expect_err("stale pointer");
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
}
