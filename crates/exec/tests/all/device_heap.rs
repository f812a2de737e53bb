//! Device-side `malloc` and `free` (the CUDA system calls, declared as nvcc
//! declares them) through the engine. What is checked is what the CUDA
//! Programming Guide ("Dynamic Global Memory Allocation and Operations")
//! and `cuCtxSetLimit` specify: blocks of at least the requested size,
//! 16-byte aligned, disjoint; NULL when the heap (8 MiB by default, or
//! `CU_LIMIT_MALLOC_HEAP_SIZE`) has no room; memory that outlives the launch
//! until freed; `free(NULL)` ignored; the heap's size fixed once a kernel
//! that uses it has run. A bad `free` (undefined in CUDA) is a located
//! `bad_free` trap here. Expected values are hand formulas over thread
//! indices.

use ptxsim_exec::{Device, KernelArg, LaunchConfig, Limits, Scheduling, TrapKind};

const HEADER: &str = ".version 7.8\n.target sm_70\n.address_size 64\n\
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);\n\
.extern .func free(.param .b64 free_param_0);\n";

/// `call malloc` as nvcc emits it: size in `%rd{size}`, result to `%rd{dst}`.
fn malloc(dst: u32, size: u32) -> String {
    format!(
        "  {{\n  .param .b64 param0;\n  st.param.b64 [param0], %rd{size};\n  .param .b64 retval0;\n  call.uni (retval0), malloc, (param0);\n  ld.param.b64 %rd{dst}, [retval0];\n  }}\n"
    )
}

/// `call free` with the pointer in `%rd{p}`.
fn free(p: u32) -> String {
    format!("  {{\n  .param .b64 param0;\n  st.param.b64 [param0], %rd{p};\n  call.uni free, (param0);\n  }}\n")
}

/// Kernels over `ptrs[gtid]` (one pointer per thread, gtid = ctaid.x *
/// ntid.x + tid.x):
/// - `alloc_write(ptrs, n)`: mallocs `n` bytes, fills its `n / 4` words
///   with `gtid * 1000 + k`, stores the pointer (0 if refused: nothing
///   written);
/// - `alloc_sized(ptrs)`: mallocs `tid + 1` bytes, stores the pointer;
/// - `read_free(ptrs, sums, n)`: sums the `n / 4` words of its block
///   into `sums[gtid]` (u64), then frees it;
/// - `free_each(ptrs)`: frees `ptrs[gtid]` (0 allowed);
/// - `big(out, n)`: thread 0 mallocs `n` bytes, stores the pointer, frees it.
/// - `poke(p, off)`: stores one byte at `p + off`.
fn module() -> String {
    let mut m = String::from(HEADER);
    let gtid = "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n  mad.lo.u32 %r4, %r1, %r2, %r3;\n  cvt.u64.u32 %rd20, %r4;\n  shl.b64 %rd21, %rd20, 3;\n";
    let decls = "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<32>;\n";
    m += &format!(
        ".visible .entry alloc_write(.param .u64 ptrs, .param .u64 n)\n{{\n{decls}  ld.param.u64 %rd1, [ptrs];\n  ld.param.u64 %rd2, [n];\n{gtid}{}\
  add.u64 %rd4, %rd1, %rd21;\n  st.global.u64 [%rd4], %rd3;\n  setp.eq.u64 %p1, %rd3, 0;\n  @%p1 bra DONE;\n\
  shr.u64 %rd5, %rd2, 2;\n  mul.lo.u32 %r5, %r4, 1000;\n  mov.u64 %rd6, 0;\n\
LOOP:\n  setp.ge.u64 %p2, %rd6, %rd5;\n  @%p2 bra DONE;\n  cvt.u32.u64 %r6, %rd6;\n  add.u32 %r7, %r5, %r6;\n\
  shl.b64 %rd7, %rd6, 2;\n  add.u64 %rd8, %rd3, %rd7;\n  st.u32 [%rd8], %r7;\n  add.u64 %rd6, %rd6, 1;\n  bra LOOP;\n\
DONE:\n  ret;\n}}\n",
        malloc(3, 2)
    );
    m += &format!(
        ".visible .entry alloc_sized(.param .u64 ptrs)\n{{\n{decls}  ld.param.u64 %rd1, [ptrs];\n{gtid}  add.u64 %rd2, %rd20, 1;\n  and.b64 %rd2, %rd2, 63;\n  add.u64 %rd2, %rd2, 1;\n{}\
  add.u64 %rd4, %rd1, %rd21;\n  st.global.u64 [%rd4], %rd3;\n  ret;\n}}\n",
        malloc(3, 2)
    );
    m += &format!(
        ".visible .entry read_free(.param .u64 ptrs, .param .u64 sums, .param .u64 n)\n{{\n{decls}  ld.param.u64 %rd1, [ptrs];\n  ld.param.u64 %rd9, [sums];\n  ld.param.u64 %rd2, [n];\n{gtid}\
  add.u64 %rd4, %rd1, %rd21;\n  ld.global.u64 %rd3, [%rd4];\n  shr.u64 %rd5, %rd2, 2;\n  mov.u64 %rd6, 0;\n  mov.u64 %rd10, 0;\n\
LOOP:\n  setp.ge.u64 %p2, %rd6, %rd5;\n  @%p2 bra DONE;\n  shl.b64 %rd7, %rd6, 2;\n  add.u64 %rd8, %rd3, %rd7;\n  ld.u32 %r7, [%rd8];\n\
  cvt.u64.u32 %rd11, %r7;\n  add.u64 %rd10, %rd10, %rd11;\n  add.u64 %rd6, %rd6, 1;\n  bra LOOP;\n\
DONE:\n  add.u64 %rd12, %rd9, %rd21;\n  st.global.u64 [%rd12], %rd10;\n{}  ret;\n}}\n",
        free(3)
    );
    m += &format!(
        ".visible .entry free_each(.param .u64 ptrs)\n{{\n{decls}  ld.param.u64 %rd1, [ptrs];\n{gtid}  add.u64 %rd4, %rd1, %rd21;\n  ld.global.u64 %rd3, [%rd4];\n{}  ret;\n}}\n",
        free(3)
    );
    m += &format!(
        ".visible .entry big(.param .u64 out, .param .u64 n)\n{{\n{decls}  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [n];\n  mov.u32 %r3, %tid.x;\n  setp.ne.u32 %p1, %r3, 0;\n  @%p1 bra DONE;\n{}\
  st.global.u64 [%rd1], %rd3;\n{}DONE:\n  ret;\n}}\n",
        malloc(3, 2),
        free(3)
    );
    m += &format!(".visible .entry poke(.param .u64 p, .param .u64 off)\n{{\n{decls}  ld.param.u64 %rd1, [p];\n  ld.param.u64 %rd2, [off];\n  add.u64 %rd3, %rd1, %rd2;\n  st.u8 [%rd3], 7;\n  ret;\n}}\n");
    m
}

fn u64s(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn read_u64s(dev: &Device, addr: u64, n: usize) -> Vec<u64> {
    u64s(&dev.read(addr, 8 * n as u64).expect("read"))
}

/// One block per thread, written in one launch, read back and freed in a
/// second: the values survive between launches, every block is 16-byte
/// aligned and disjoint from the others, and once all are freed the whole
/// 8 MiB heap is one free range again (a single `malloc` of all of it
/// succeeds, so the freed blocks were merged).
#[test]
fn blocks_outlive_the_launch_and_free_gives_all_of_the_heap_back() {
    for sched in [Scheduling::Stack, Scheduling::Its] {
        let mut dev = Device::new();
        let m = dev.load(&module()).expect("loads");
        assert!(m.uses_heap());
        let (ctas, block, n) = (4u32, 64u32, 40u64);
        let threads = (ctas * block) as usize;
        let ptrs = dev.alloc(8 * threads as u64).unwrap();
        let sums = dev.alloc(8 * threads as u64).unwrap();
        let cfg = LaunchConfig { scheduling: sched, ..LaunchConfig::new(ctas, block) };
        dev.launch(&m, "alloc_write", &cfg, &[KernelArg::Ptr(ptrs), KernelArg::U64(n)]).expect("alloc_write runs");
        let mut p = read_u64s(&dev, ptrs, threads);
        assert!(p.iter().all(|&a| a != 0 && a % 16 == 0), "{sched:?}: {p:x?}");
        p.sort_unstable();
        for w in p.windows(2) {
            assert!(w[0] + n <= w[1], "{sched:?}: blocks at {:#x} and {:#x} overlap ({n} bytes each)", w[0], w[1]);
        }
        dev.launch(&m, "read_free", &cfg, &[KernelArg::Ptr(ptrs), KernelArg::Ptr(sums), KernelArg::U64(n)]).expect("read_free runs");
        let words = n / 4;
        let want: Vec<u64> = (0..threads as u64).map(|g| words * g * 1000 + words * (words - 1) / 2).collect();
        assert_eq!(read_u64s(&dev, sums, threads), want, "{sched:?}");
        let out = dev.alloc(8).unwrap();
        dev.launch(&m, "big", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(out), KernelArg::U64(8 << 20)]).expect("big runs");
        assert_ne!(read_u64s(&dev, out, 1)[0], 0, "{sched:?}: the whole heap is free again");
        dev.launch(&m, "big", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(out), KernelArg::U64((8 << 20) + 1)]).expect("big runs");
        assert_eq!(read_u64s(&dev, out, 1)[0], 0, "{sched:?}: one byte more than the heap is refused");
    }
}

/// A 4 KiB heap holds 16 blocks of 256 bytes: of 64 threads asking, 16 get
/// one and 48 get NULL, and the launch succeeds. A request larger than
/// any address (`u64::MAX`) is NULL too.
#[test]
fn an_exhausted_heap_returns_null() {
    let mut dev = Device::new();
    dev.set_heap_size(4096).expect("before any load");
    assert_eq!(dev.heap_size(), 4096);
    let m = dev.load(&module()).expect("loads");
    let ptrs = dev.alloc(8 * 64).unwrap();
    dev.launch(&m, "alloc_write", &LaunchConfig::new(2, 32), &[KernelArg::Ptr(ptrs), KernelArg::U64(256)]).expect("runs");
    let p = read_u64s(&dev, ptrs, 64);
    assert_eq!(p.iter().filter(|&&a| a != 0).count(), 16, "{p:x?}");
    let out = dev.alloc(8).unwrap();
    dev.launch(&m, "big", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out), KernelArg::U64(u64::MAX)]).expect("runs");
    assert_eq!(read_u64s(&dev, out, 1)[0], 0);
    // Freeing the 16 (and NULL for the others) makes room for all 16 again.
    dev.launch(&m, "free_each", &LaunchConfig::new(2, 32), &[KernelArg::Ptr(ptrs)]).expect("free(NULL) is ignored");
    dev.launch(&m, "alloc_write", &LaunchConfig::new(2, 32), &[KernelArg::Ptr(ptrs), KernelArg::U64(256)]).expect("runs");
    assert_eq!(read_u64s(&dev, ptrs, 64).iter().filter(|&&a| a != 0).count(), 16);
}

/// Requests of 1 to 64 bytes: each result is a multiple of 16 and the
/// blocks (of at least the requested size) do not overlap.
#[test]
fn every_block_is_16_byte_aligned() {
    let mut dev = Device::new();
    let m = dev.load(&module()).expect("loads");
    let threads = 128usize;
    let ptrs = dev.alloc(8 * threads as u64).unwrap();
    dev.launch(&m, "alloc_sized", &LaunchConfig::new(1, threads as u32), &[KernelArg::Ptr(ptrs)]).expect("runs");
    let p = read_u64s(&dev, ptrs, threads);
    let mut blocks: Vec<(u64, u64)> = p.iter().enumerate().map(|(t, &a)| (a, (t as u64 + 1) % 64 + 1)).collect();
    assert!(blocks.iter().all(|&(a, _)| a != 0 && a % 16 == 0), "{p:x?}");
    blocks.sort_unstable();
    for w in blocks.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "{:x?} overlaps {:x?}", w[0], w[1]);
    }
}

/// The 1-based line of the first line of `src` containing `needle`.
fn line_of(src: &str, needle: &str, nth: usize) -> u32 {
    src.lines().enumerate().filter(|(_, l)| l.contains(needle)).nth(nth).map(|(i, _)| i as u32 + 1).expect("needle")
}

/// `free` of a pointer 16 bytes into a block (lane 5), of a `cuMemAlloc`
/// block (lane 9), and a second `free` of a freed block: each traps
/// `bad_free` at the `call free` line and the lane, saying which it is.
#[test]
fn a_bad_free_is_a_located_trap() {
    let src = module();
    let free_line = line_of(&src, "call.uni free", 1); // in `free_each`
    let mut dev = Device::new();
    let m = dev.load(&src).expect("loads");
    let ptrs = dev.alloc(8 * 32).unwrap();
    dev.launch(&m, "alloc_write", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(ptrs), KernelArg::U64(64)]).expect("runs");
    let good = read_u64s(&dev, ptrs, 32);

    let mut bad = good.clone();
    bad[5] += 16;
    dev.write(ptrs, &bad.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let e = dev.launch(&m, "free_each", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(ptrs)]).expect_err("lane 5 frees a non-block");
    assert_eq!(e.kind, TrapKind::BadFree, "{e}");
    assert_eq!((e.line, e.lane, e.function.as_deref()), (Some(free_line), Some(5), Some("free_each")), "{e}");
    assert!(e.message.contains(&format!("16 bytes into the block of 64 bytes at {:#x}", good[5])), "{e}");

    // Lanes 0-4 freed their blocks before the trap; freeing them again is a double free.
    let outside = dev.alloc(64).unwrap();
    let mut again = vec![0u64; 32];
    again[3] = good[3];
    again[9] = outside;
    dev.write(ptrs, &again.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let e = dev.launch(&m, "free_each", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(ptrs)]).expect_err("double free");
    assert_eq!((e.kind, e.line, e.lane), (TrapKind::BadFree, Some(free_line), Some(3)), "{e}");
    assert!(e.message.contains("double free"), "{e}");

    again[3] = 0;
    dev.write(ptrs, &again.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let e = dev.launch(&m, "free_each", &LaunchConfig::new(1, 32), &[KernelArg::Ptr(ptrs)]).expect_err("not from malloc");
    assert_eq!((e.kind, e.lane), (TrapKind::BadFree, Some(9)), "{e}");
    assert!(e.message.contains("outside the device heap"), "{e}");
}

/// An access past the end of the heap traps out of bounds, naming it.
#[test]
fn the_heap_is_bounds_checked() {
    let mut dev = Device::new();
    dev.set_heap_size(1024).unwrap();
    let m = dev.load(&module()).expect("loads");
    let out = dev.alloc(8).unwrap();
    dev.launch(&m, "big", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out), KernelArg::U64(16)]).expect("runs");
    let p = read_u64s(&dev, out, 1)[0];
    assert_ne!(p, 0);
    // The block was freed; the heap's memory is still the heap's.
    dev.launch(&m, "poke", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(p), KernelArg::U64(1023)]).expect("inside the heap");
    let e = dev.launch(&m, "poke", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(p), KernelArg::U64(1024)]).expect_err("past the heap");
    assert_eq!(e.kind, TrapKind::OutOfBounds, "{e}");
    assert!(e.message.contains("device heap"), "{e}");
}

/// `CU_LIMIT_MALLOC_HEAP_SIZE` may change until a kernel that uses the
/// heap is launched, then not; releasing the heap (a context going away)
/// allows it again. A heap larger than the memory cap fails the load.
#[test]
fn the_heap_size_is_fixed_once_a_kernel_uses_it() {
    let mut dev = Device::new();
    assert_eq!(dev.heap_size(), 8 << 20, "CUDA's default");
    let m = dev.load(&module()).expect("loads");
    dev.set_heap_size(2048).expect("loaded, not launched yet");
    let out = dev.alloc(8).unwrap();
    dev.launch(&m, "big", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out), KernelArg::U64(2048)]).expect("runs");
    assert_ne!(read_u64s(&dev, out, 1)[0], 0, "the new size is in effect");
    let e = dev.set_heap_size(4096).expect_err("in use");
    assert_eq!(e.kind, TrapKind::InvalidLaunch);
    assert_eq!(dev.heap_size(), 2048);
    dev.release_heap();
    dev.set_heap_size(4096).expect("released");
    let m = dev.load(&module()).expect("reserves again");
    dev.launch(&m, "big", &LaunchConfig::new(1, 1), &[KernelArg::Ptr(out), KernelArg::U64(4096)]).expect("runs");
    assert_ne!(read_u64s(&dev, out, 1)[0], 0);

    let mut small = Device::with_limits(Limits { max_memory: 4 << 20, ..Limits::default() });
    let e = small.load(&module()).expect_err("8 MiB heap over a 4 MiB cap");
    assert_eq!(e.kind, TrapKind::OutOfMemory, "{e}");
    small.set_heap_size(1 << 20).unwrap();
    small.load(&module()).expect("a 1 MiB heap fits");
}
