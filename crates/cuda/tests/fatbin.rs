//! Fatbins made by NVIDIA's nvcc 13.5 (tests/fatbin/, made by
//! tests/fatbin/make.sh): their entries as cuobjdump lists them, their PTX
//! as cuobjdump extracts it (uncompressed, LZ4, Zstd), the saxpy kernel run
//! from each through every entry point that takes a fatbin (with the sums
//! computed here), the PTX entry chosen by compute capability in a
//! multi-arch fatbin (a C program per capability, PTXSIM_CC set),
//! machine code only (CUDA_ERROR_NO_BINARY_FOR_GPU with the nvcc flag
//! named), and truncated or corrupted fatbins (errors, never a crash).

mod common;

use cuda::fatbin::{self, FLAG_LZ4, FLAG_ZSTD, KIND_ELF, KIND_PTX};
use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::process::Command;
use std::ptr::null_mut;

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_IMAGE: u32 = 200;
const NO_BINARY_FOR_GPU: u32 = 209;
const INVALID_PTX: u32 = 218;
const CU_JIT_INPUT_FATBINARY: c_int = 2;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fatbin");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The fatbins with the saxpy kernel's PTX, and how their entries are
/// compressed: (file, ELF flag, PTX flag).
const SAXPY: &[(&str, u64, u64)] = &[
    ("saxpy_plain.fatbin", 0, 0),
    ("saxpy_default.fatbin", 0, FLAG_ZSTD),
    ("saxpy_zstd.fatbin", FLAG_ZSTD, FLAG_ZSTD),
    ("saxpy_lz4.fatbin", FLAG_LZ4, FLAG_LZ4),
];

/// cuobjdump's listing of `file` in tests/fatbin/cuobjdump.txt: (kind,
/// target) per entry in order, `sm_80` style for both kinds.
fn cuobjdump_listing(file: &str) -> Vec<(u16, String)> {
    let text = std::fs::read_to_string(format!("{DIR}/cuobjdump.txt")).unwrap();
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            inside = name == file;
            continue;
        }
        if !inside {
            continue;
        }
        // "PTX file    1: arch_multi.1.sm_75.ptx"
        let kind = if line.starts_with("PTX file") { KIND_PTX } else { KIND_ELF };
        let target = line.rsplit('.').nth(1).unwrap().to_string();
        out.push((kind, target));
    }
    out
}

#[test]
fn entries_are_those_cuobjdump_lists() {
    let files = ["saxpy_plain", "saxpy_default", "saxpy_zstd", "saxpy_lz4", "saxpy_sass", "arch_multi", "arch_90a"];
    for f in files {
        let file = format!("{f}.fatbin");
        let bytes = read(&file);
        let entries = fatbin::parse_all(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let ours: Vec<(u16, String)> = entries.iter().map(|e| (e.kind, e.name().replace("compute_", "sm_"))).collect();
        let want = cuobjdump_listing(&file);
        assert!(!want.is_empty(), "{file} missing from cuobjdump.txt");
        assert_eq!(ours, want, "{file}");
        for e in &entries {
            assert_eq!(e.flags & fatbin::FLAG_64BIT, fatbin::FLAG_64BIT, "{file}: {}", e.name());
            // Every entry decompresses to its declared size.
            e.payload().unwrap_or_else(|err| panic!("{file}: {err}"));
            if e.kind == KIND_ELF {
                assert!(e.payload().unwrap().starts_with(b"\x7fELF"), "{file}: {} is not ELF", e.name());
            }
        }
    }
}

#[test]
fn ptx_is_what_cuobjdump_extracts_whatever_the_compression() {
    let want = std::fs::read_to_string(format!("{DIR}/saxpy.sm_80.ptx")).unwrap();
    for &(file, elf_flag, ptx_flag) in SAXPY {
        let bytes = read(file);
        let entries = fatbin::parse_all(&bytes).unwrap();
        let elf = entries.iter().find(|e| e.kind == KIND_ELF).unwrap();
        assert_eq!(elf.flags & (FLAG_LZ4 | FLAG_ZSTD), elf_flag, "{file}: ELF compression");
        let ptx = fatbin::select_ptx(&entries, (8, 0)).unwrap();
        assert_eq!(ptx.flags & (FLAG_LZ4 | FLAG_ZSTD), ptx_flag, "{file}: PTX compression");
        assert_eq!(ptx.version, (9, 5), "{file}: PTX ISA version");
        assert_eq!(ptx.ptx().unwrap(), want, "{file}");
    }
}

#[test]
fn multi_arch_selection_by_compute_capability() {
    let bytes = read("arch_multi.fatbin");
    let entries = fatbin::parse_all(&bytes).unwrap();
    let pick = |cc| fatbin::select_ptx(&entries, cc).map(|e| e.name());
    assert_eq!(pick((7, 5)).unwrap(), "compute_75");
    assert_eq!(pick((8, 0)).unwrap(), "compute_80");
    assert_eq!(pick((8, 9)).unwrap(), "compute_80");
    assert_eq!(pick((9, 0)).unwrap(), "compute_90");
    assert_eq!(pick((12, 0)).unwrap(), "compute_90");
    assert!(pick((7, 0)).is_err());
    // Each PTX entry names its own target.
    for e in entries.iter().filter(|e| e.kind == KIND_PTX) {
        assert!(e.ptx().unwrap().contains(&format!(".target sm_{}", e.arch)), "{}", e.name());
    }
}

/// A private instance of the library (its own driver state).
struct Cuda {
    lib: Library,
}

impl Cuda {
    fn new(name: &str) -> Cuda {
        let path = common::private_copy(name);
        // SAFETY: loading our own library; its initialisers do nothing.
        let lib = unsafe { Library::new(&path) }.expect("load libcuda copy");
        let cu = Cuda { lib };
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(u32) -> u32>("cuInit")(0) }, SUCCESS);
        let mut ctx = null_mut();
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(*mut H, i32) -> u32>("cuDevicePrimaryCtxRetain")(&mut ctx, 0) }, SUCCESS);
        assert_eq!(unsafe { cu.f::<unsafe extern "C" fn(H) -> u32>("cuCtxSetCurrent")(ctx) }, SUCCESS);
        cu
    }

    fn f<T: Copy>(&self, name: &str) -> T {
        let sym = format!("{name}\0");
        // SAFETY: the test declares each function with its C signature.
        unsafe { *self.lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
    }

    /// Loads `image` through entry point `how`; the module or library handle.
    fn load(&self, how: &str, image: *const c_void) -> (u32, H) {
        let mut h = null_mut();
        let r = unsafe {
            match how {
                "cuModuleLoadData" | "cuModuleLoadFatBinary" => self.f::<unsafe extern "C" fn(*mut H, *const c_void) -> u32>(how)(&mut h, image),
                "cuModuleLoadDataEx" => self.f::<unsafe extern "C" fn(*mut H, *const c_void, c_uint, *mut c_int, *mut *mut c_void) -> u32>(how)(&mut h, image, 0, null_mut(), null_mut()),
                "cuLibraryLoadData" => {
                    type F = unsafe extern "C" fn(*mut H, *const c_void, *mut c_int, *mut *mut c_void, c_uint, *mut c_int, *mut *mut c_void, c_uint) -> u32;
                    self.f::<F>(how)(&mut h, image, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0)
                }
                _ => unreachable!("{how}"),
            }
        };
        (r, h)
    }

    /// The kernel `name` of a module (or library, for `cuLibraryLoadData`).
    fn kernel(&self, how: &str, h: H, name: &str) -> H {
        let mut k = null_mut();
        let getter = if how == "cuLibraryLoadData" { "cuLibraryGetKernel" } else { "cuModuleGetFunction" };
        let name = format!("{name}\0");
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut H, H, *const c_char) -> u32>(getter)(&mut k, h, name.as_ptr() as *const c_char) };
        assert_eq!(r, SUCCESS, "{getter}");
        k
    }

    /// Links one fatbin input of `bytes`; the result code of the add and,
    /// when it succeeded, the linked image (copied out).
    fn link_fatbin(&self, bytes: &[u8]) -> (u32, Option<Vec<u8>>) {
        let mut state = null_mut();
        type Create = unsafe extern "C" fn(c_uint, *mut c_int, *mut *mut c_void, *mut H) -> u32;
        type Add = unsafe extern "C" fn(H, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void) -> u32;
        assert_eq!(unsafe { self.f::<Create>("cuLinkCreate_v2")(0, null_mut(), null_mut(), &mut state) }, SUCCESS);
        let r = unsafe { self.f::<Add>("cuLinkAddData_v2")(state, CU_JIT_INPUT_FATBINARY, bytes.as_ptr() as *mut c_void, bytes.len(), c"saxpy.fatbin".as_ptr(), 0, null_mut(), null_mut()) };
        let image = (r == SUCCESS).then(|| {
            let (mut p, mut n): (*mut c_void, usize) = (null_mut(), 0);
            assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H, *mut *mut c_void, *mut usize) -> u32>("cuLinkComplete")(state, &mut p, &mut n) }, SUCCESS);
            unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec()
        });
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(H) -> u32>("cuLinkDestroy")(state) }, SUCCESS);
        (r, image)
    }

    /// Runs `saxpy(a, x, y, n)` over 3 blocks of 32 on n = 90 and returns y.
    fn saxpy(&self, k: H, a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
        let n = x.len();
        let (dx, dy) = (self.alloc(n * 4), self.alloc(n * 4));
        self.htod(dx, x);
        self.htod(dy, y);
        let mut a = a;
        let (mut dx, mut dy, mut nn) = (dx, dy, n as i32);
        let mut params = [&mut a as *mut f32 as *mut c_void, &mut dx as *mut u64 as *mut c_void, &mut dy as *mut u64 as *mut c_void, &mut nn as *mut i32 as *mut c_void];
        type Launch = unsafe extern "C" fn(H, u32, u32, u32, u32, u32, u32, u32, H, *mut *mut c_void, *mut *mut c_void) -> u32;
        let r = unsafe { self.f::<Launch>("cuLaunchKernel")(k, n.div_ceil(32) as u32, 1, 1, 32, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut()) };
        assert_eq!(r, SUCCESS, "cuLaunchKernel");
        let mut out = vec![0f32; n];
        let r = unsafe { self.f::<unsafe extern "C" fn(*mut c_void, u64, usize) -> u32>("cuMemcpyDtoH_v2")(out.as_mut_ptr() as *mut c_void, dy, n * 4) };
        assert_eq!(r, SUCCESS);
        out
    }

    fn alloc(&self, n: usize) -> u64 {
        let mut p = 0u64;
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(*mut u64, usize) -> u32>("cuMemAlloc_v2")(&mut p, n) }, SUCCESS);
        p
    }

    fn htod(&self, dst: u64, src: &[f32]) {
        let r = unsafe { self.f::<unsafe extern "C" fn(u64, *const c_void, usize) -> u32>("cuMemcpyHtoD_v2")(dst, src.as_ptr() as *const c_void, src.len() * 4) };
        assert_eq!(r, SUCCESS);
    }

    fn error_string(&self, code: u32) -> String {
        let mut s: *const c_char = std::ptr::null();
        assert_eq!(unsafe { self.f::<unsafe extern "C" fn(u32, *mut *const c_char) -> u32>("cuGetErrorString")(code, &mut s) }, SUCCESS);
        unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
    }
}

/// 8-byte aligned bytes (as a fatbin in a host binary is), padded with
/// `pad` zero bytes after the data.
fn aligned(bytes: &[u8], pad: usize) -> Vec<u64> {
    let mut v = vec![0u64; (bytes.len() + pad).div_ceil(8)];
    // SAFETY: v holds at least bytes.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, bytes.len()) };
    v
}

/// A `__fatBinC_Wrapper_t` pointing to `data`.
#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    data: *const u64,
    filename: *const c_void,
}

/// saxpy's inputs and the sums, computed here: every value is exact in
/// f32, so fused or separate multiply-add give the same result.
fn saxpy_case() -> (f32, Vec<f32>, Vec<f32>, Vec<f32>) {
    let a = 2.5f32;
    let x: Vec<f32> = (0..90).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..90).map(|i| 1000.0 - 3.0 * i as f32).collect();
    let want = x.iter().zip(&y).map(|(x, y)| a * x + y).collect();
    (a, x, y, want)
}

#[test]
fn saxpy_runs_from_every_fatbin_through_every_entry_point() {
    let cu = Cuda::new("fatbin-saxpy");
    let (a, x, y, want) = saxpy_case();
    for &(file, _, _) in SAXPY {
        let bytes = aligned(&read(file), 0);
        let wrapper = Wrapper { magic: fatbin::WRAPPER_MAGIC, version: 1, data: bytes.as_ptr(), filename: std::ptr::null() };
        for how in ["cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary", "cuLibraryLoadData"] {
            for (image, form) in [(bytes.as_ptr() as *const c_void, "bare"), (&wrapper as *const Wrapper as *const c_void, "wrapped")] {
                let (r, h) = cu.load(how, image);
                assert_eq!(r, SUCCESS, "{how} of {form} {file}");
                let k = cu.kernel(how, h, "saxpy");
                assert_eq!(cu.saxpy(k, a, &x, &y), want, "{how} of {form} {file}");
            }
        }
        // Through the linker: its image is the chosen PTX.
        let raw = read(file);
        let (r, image) = cu.link_fatbin(&raw);
        assert_eq!(r, SUCCESS, "cuLinkAddData of {file}");
        let mut image = image.unwrap();
        let want_ptx = std::fs::read_to_string(format!("{DIR}/saxpy.sm_80.ptx")).unwrap();
        assert_eq!(std::str::from_utf8(&image[..image.len() - 1]).unwrap(), want_ptx, "linked image of {file}");
        image.push(0);
        let (r, m) = cu.load("cuModuleLoadData", image.as_ptr() as *const c_void);
        assert_eq!(r, SUCCESS);
        assert_eq!(cu.saxpy(cu.kernel("cuModuleLoadData", m, "saxpy"), a, &x, &y), want, "linked {file}");
    }
}

#[test]
fn machine_code_only_is_no_binary_for_gpu() {
    let cu = Cuda::new("fatbin-sass");
    let raw = read("saxpy_sass.fatbin");
    let bytes = aligned(&raw, 0);
    let wrapper = Wrapper { magic: fatbin::WRAPPER_MAGIC, version: 1, data: bytes.as_ptr(), filename: std::ptr::null() };
    for how in ["cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleLoadFatBinary", "cuLibraryLoadData"] {
        assert_eq!(cu.load(how, bytes.as_ptr() as *const c_void).0, NO_BINARY_FOR_GPU, "{how}");
        assert_eq!(cu.load(how, &wrapper as *const Wrapper as *const c_void).0, NO_BINARY_FOR_GPU, "{how} wrapped");
    }
    assert_eq!(cu.link_fatbin(&raw).0, NO_BINARY_FOR_GPU);
    // A bare ELF cubin (the sm_80 entry of the plain fatbin).
    let plain = read("saxpy_plain.fatbin");
    let entries = fatbin::parse_all(&plain).unwrap();
    let elf = entries.iter().find(|e| e.kind == KIND_ELF).unwrap().payload().unwrap().into_owned();
    let elf = aligned(&elf, 0);
    assert_eq!(cu.load("cuModuleLoadData", elf.as_ptr() as *const c_void).0, NO_BINARY_FOR_GPU);
    assert_eq!(cu.load("cuLibraryLoadData", elf.as_ptr() as *const c_void).0, NO_BINARY_FOR_GPU);
    let s = cu.error_string(NO_BINARY_FOR_GPU);
    assert!(s.starts_with("no kernel image is available for execution on the device"), "{s}");
    assert!(s.contains("-arch=sm_") && s.contains("-gencode arch=compute_"), "{s}");
}

#[test]
fn truncated_and_corrupt_fatbins_are_errors() {
    let cu = Cuda::new("fatbin-corrupt");
    for &(file, _, _) in SAXPY {
        let raw = read(file);
        // Through the linker the input's size bounds every read: any cut is
        // a malformed fatbin.
        for n in (0..raw.len()).step_by(7).chain([raw.len() - 1]) {
            let (r, _) = cu.link_fatbin(&raw[..n.max(1)]);
            assert_eq!(r, INVALID_IMAGE, "{file} cut to {n} bytes");
        }
        // Through a bare pointer the header's sizes bound the reads: a cut
        // fatbin in a zeroed buffer of the declared size reads zeros (the
        // same program when only padding and the PTX's last newlines were
        // cut).
        for n in (16..raw.len()).step_by(29).chain([raw.len() - 1]) {
            let bytes = aligned(&raw[..n], raw.len() - n);
            let r = cu.load("cuModuleLoadData", bytes.as_ptr() as *const c_void).0;
            if raw[n..].iter().all(|&b| b == 0 || b == b'\n') {
                assert_eq!(r, SUCCESS, "{file} without its last {} bytes", raw.len() - n);
            } else {
                assert!(matches!(r, INVALID_IMAGE | INVALID_PTX | NO_BINARY_FOR_GPU), "{file} cut to {n} bytes: {r}");
            }
        }
    }
    let raw = read("saxpy_zstd.fatbin");
    let load = |bytes: &[u8]| cu.load("cuModuleLoadData", aligned(bytes, 0).as_ptr() as *const c_void).0;
    // A declared size beyond the cap (never read).
    let mut bad = raw.clone();
    bad[8..16].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    assert_eq!(load(&bad), INVALID_IMAGE);
    // An entry whose payload runs past the fatbin.
    let mut bad = raw.clone();
    bad[16 + 8..16 + 16].copy_from_slice(&(1u64 << 30).to_le_bytes());
    assert_eq!(load(&bad), INVALID_IMAGE);
    // Corrupt compressed data: every byte of the PTX entry's Zstd frame
    // flipped in turn fails to decompress or gives other text; never a crash.
    let entries = fatbin::parse_all(&raw).unwrap();
    let ptx = fatbin::select_ptx(&entries, (8, 0)).unwrap();
    let start = ptx.offset + (ptx.stored.as_ptr() as usize - raw[ptx.offset..].as_ptr() as usize);
    for i in (start..start + ptx.compressed_size as usize).step_by(5) {
        let mut bad = raw.clone();
        bad[i] ^= 0x5a;
        let r = load(&bad);
        assert!(matches!(r, SUCCESS | INVALID_IMAGE | INVALID_PTX), "byte {i} flipped: {r}");
    }
    // The frame's magic broken: not Zstd at all.
    let mut bad = raw.clone();
    bad[start] ^= 0xff;
    assert_eq!(load(&bad), INVALID_IMAGE);
    // A wrapper of an unknown version, or pointing to nothing.
    let bytes = aligned(&raw, 0);
    for (version, data) in [(3, bytes.as_ptr()), (1, std::ptr::null())] {
        let w = Wrapper { magic: fatbin::WRAPPER_MAGIC, version, data, filename: std::ptr::null() };
        assert_eq!(cu.load("cuModuleLoadFatBinary", &w as *const Wrapper as *const c_void).0, INVALID_IMAGE);
    }
}

#[test]
fn a_fatbin_loaded_twice_is_decoded_once() {
    // In process: the library's own functions and its cache counters. The
    // Zstd fatbin's PTX is the same text as the plain one's, so it hits too.
    use cuda::context::{cuCtxSetCurrent, cuDevicePrimaryCtxRetain};
    use cuda::module::cuModuleLoadData;
    unsafe {
        assert_eq!(cuda::device::cuInit(0), SUCCESS);
        let mut ctx: H = null_mut();
        assert_eq!(cuDevicePrimaryCtxRetain(&mut ctx as *mut H as _, 0), SUCCESS);
        assert_eq!(cuCtxSetCurrent(ctx as _), SUCCESS);
        let load = |file: &str| {
            let bytes = aligned(&read(file), 0);
            let mut m: H = null_mut();
            assert_eq!(cuModuleLoadData(&mut m as *mut H as _, bytes.as_ptr() as *const c_void), SUCCESS, "{file}");
        };
        load("saxpy_plain.fatbin");
        let (_, _, hits, _) = cuda::module_cache::stats();
        load("saxpy_plain.fatbin");
        load("saxpy_zstd.fatbin");
        load("saxpy_lz4.fatbin");
        assert_eq!(cuda::module_cache::stats().2, hits + 3);
    }
}

/// Builds tests/c/fatbin_load.c against a private copy of the library.
fn c_program(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let lib = common::private_copy(name);
    let dir = lib.parent().unwrap().to_path_buf();
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/fatbin_load.c");
    let exe = dir.join("fatbin_load");
    let out = Command::new("cc").arg("-std=c99").arg("-Wall").arg("-o").arg(&exe).arg(src).arg(&lib).output().expect("run cc (a C compiler is needed for this test)");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    (exe, dir)
}

/// Runs the C program on `file` in `mode` at compute capability `cc`:
/// (stdout, stderr).
fn run_c(exe: &std::path::Path, dir: &std::path::Path, file: &str, mode: &str, cc: &str, log: bool) -> (String, String) {
    let mut cmd = Command::new(exe);
    cmd.arg(format!("{DIR}/{file}")).arg(mode).env("LD_LIBRARY_PATH", dir).env("PTXSIM_CC", cc);
    if log {
        cmd.env("PTXSIM_LOG", "1");
    } else {
        cmd.env_remove("PTXSIM_LOG");
    }
    let run = cmd.output().expect("run fatbin_load");
    let (stdout, stderr) = (String::from_utf8_lossy(&run.stdout).into_owned(), String::from_utf8_lossy(&run.stderr).into_owned());
    assert!(run.status.success(), "{file} {mode} at {cc}: {}\nstdout: {stdout}\nstderr: {stderr}", run.status);
    (stdout, stderr)
}

#[test]
fn c_program_runs_the_ptx_of_the_device_capability() {
    let (exe, dir) = c_program("fatbin-c-arch");
    // The tag is the __CUDA_ARCH__ the chosen PTX was compiled for.
    let cases = [("7.5", "OK tag=750"), ("8.0", "OK tag=800"), ("8.6", "OK tag=800"), ("9.0", "OK tag=900"), ("10.0", "OK tag=900")];
    for (cc, want) in cases {
        for mode in ["data", "wrapper", "library"] {
            let (stdout, stderr) = run_c(&exe, &dir, "arch_multi.fatbin", mode, cc, false);
            assert_eq!(stdout.trim_end(), want, "cc {cc} {mode}");
            assert!(stderr.is_empty(), "cc {cc} {mode}: stderr {stderr}");
        }
    }
    // compute_90a runs on 9.0 alone (and its tag says the arch-specific
    // PTX ran).
    assert_eq!(run_c(&exe, &dir, "arch_90a.fatbin", "data", "9.0", false).0.trim_end(), "OK tag=901");
    // nvcc 13.5's -arch=sm_90a: compute_90 PTX, sm_90a code and compute_90a
    // PTX. At 9.0 the arch-specific PTX runs (what the sm_90a code a GPU
    // runs was compiled from), elsewhere the plain compute_90.
    assert_eq!(run_c(&exe, &dir, "arch_sm90a.fatbin", "data", "9.0", false).0.trim_end(), "OK tag=901");
    assert_eq!(run_c(&exe, &dir, "arch_sm90a.fatbin", "data", "10.0", false).0.trim_end(), "OK tag=900");
    for cc in ["8.0", "10.0"] {
        let (stdout, stderr) = run_c(&exe, &dir, "arch_90a.fatbin", "data", cc, false);
        assert!(stdout.starts_with("ERR 209 CUDA_ERROR_NO_BINARY_FOR_GPU"), "cc {cc}: {stdout}");
        assert!(stderr.contains("compute_90a") && stderr.contains("PTXSIM_CC"), "cc {cc}: {stderr}");
    }
    // Older than every PTX entry.
    let (stdout, stderr) = run_c(&exe, &dir, "arch_multi.fatbin", "data", "7.0", false);
    assert!(stdout.starts_with("ERR 209"), "{stdout}");
    assert!(stderr.contains("compute_75, compute_80, compute_90") && stderr.contains("-gencode arch=compute_70,code=compute_70"), "{stderr}");
}

#[test]
fn c_program_told_which_nvcc_flag_embeds_ptx() {
    let (exe, dir) = c_program("fatbin-c-sass");
    for mode in ["data", "wrapper", "library"] {
        let (stdout, stderr) = run_c(&exe, &dir, "saxpy_sass.fatbin", mode, "8.0", false);
        assert!(stdout.starts_with("ERR 209 CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available"), "{mode}: {stdout}");
        // Once on stderr without the call log.
        assert_eq!(stderr.lines().count(), 1, "{mode}: {stderr}");
        assert!(stderr.contains("machine code only (sm_80)"), "{mode}: {stderr}");
        assert!(stderr.contains("-arch=sm_80") && stderr.contains("-gencode arch=compute_80,code=compute_80"), "{mode}: {stderr}");
    }
    let (_, stderr) = run_c(&exe, &dir, "saxpy_sass.fatbin", "data", "8.0", true);
    assert!(stderr.contains("cuModuleLoadData -> CUDA_ERROR_NO_BINARY_FOR_GPU"), "{stderr}");
    assert!(stderr.contains("-gencode arch=compute_80,code=compute_80"), "{stderr}");
}
