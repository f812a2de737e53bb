//! Initialisation, the driver version, the one device (ordinal 0, named
//! "ptxsim") and its attributes, and the error-name queries.
//!
//! `cuInit` reads the library's settings from the environment (what
//! `ptxsim exec` sets): `PTXSIM_CC=X.Y`, the compute capability reported
//! (default 8.0); `PTXSIM_SCHEDULING=stack|its`, the engine's scheduling
//! for every launch (default: ITS from 7.0 on, else the stack);
//! `PTXSIM_THREADS=N`, engine worker threads per launch (default one per
//! core); `PTXSIM_TIMEOUT=SECONDS`, each launch's wall-clock limit
//! (default 60, 0 for none: a GPU has none, and a big grid can take
//! minutes on the engine); `PTXSIM_FUEL=N`, each launch's budget of warp
//! instructions (default 10^9); `PTXSIM_JIT=on|off|auto`, the compiling
//! tier of every module (default auto; read at the first module load,
//! `module.rs`); `PTXSIM_SUMMARY=1`, a summary on stderr at exit (`report`). A
//! value that does not parse is ignored (and logged with `PTXSIM_LOG=1`).
//! In the child of a `fork` after `cuInit`, every call fails with
//! CUDA_ERROR_NOT_INITIALIZED, as with NVIDIA's driver (`state::FORKED`).
//! Attributes this library does not know
//! return CUDA_ERROR_INVALID_VALUE rather than a guess.

use crate::report;
use crate::state::{self, entry, put, INITIALIZED};
use ptxsim_exec::Scheduling;
use crate::types::*;
use std::os::raw::{c_char, c_int, c_uint};
use std::sync::atomic::Ordering;

/// Parses `X.Y` into a compute capability.
fn parse_cc(s: &str) -> Option<(i32, i32)> {
    let (a, b) = s.trim().split_once('.')?;
    let (a, b) = (a.parse().ok()?, b.parse().ok()?);
    ((1..=20).contains(&a) && (0..=9).contains(&b)).then_some((a, b))
}

/// Parses `stack` or `its`.
fn parse_scheduling(s: &str) -> Option<Scheduling> {
    match s.trim() {
        "stack" => Some(Scheduling::Stack),
        "its" => Some(Scheduling::Its),
        _ => None,
    }
}

/// Parses a worker count, 1 to [`ptxsim_exec::MAX_WORKERS`].
fn parse_threads(s: &str) -> Option<usize> {
    s.trim().parse().ok().filter(|n| (1..=ptxsim_exec::MAX_WORKERS).contains(n))
}

/// `PTXSIM_TIMEOUT`: seconds (a decimal number) up to 10^9; 0 for none.
fn parse_timeout(s: &str) -> Option<Option<std::time::Duration>> {
    let v: f64 = s.trim().parse().ok()?;
    if !v.is_finite() || !(0.0..=1e9).contains(&v) {
        return None;
    }
    Some(if v == 0.0 { None } else { Some(std::time::Duration::from_secs_f64(v)) })
}

/// `PTXSIM_FUEL`: warp instructions, at least 1.
fn parse_fuel(s: &str) -> Option<u64> {
    s.trim().parse().ok().filter(|&n| n > 0)
}

/// The `pthread_atfork` child handler: the driver initialised in the
/// parent is unusable in the child (`state::FORKED`).
extern "C" fn forked_child() {
    state::FORKED.store(true, Ordering::Relaxed);
}

/// Reads `name` and parses it; a set value that does not parse is logged.
fn setting<T>(name: &str, parse: impl Fn(&str) -> Option<T>) -> Option<T> {
    let v = std::env::var(name).ok()?;
    let r = parse(&v);
    if r.is_none() {
        report::log(&format!("cuInit: ignoring {name}={v:?} (not a valid value)"));
    }
    r
}

/// The scheduling a launch uses at compute capability `cc`.
pub fn scheduling_for(forced: Option<Scheduling>, cc: (i32, i32)) -> Scheduling {
    forced.unwrap_or(if cc.0 >= 7 { Scheduling::Its } else { Scheduling::Stack })
}

fn check_device(dev: CUdevice) -> Result<(), CUresult> {
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

#[no_mangle]
pub extern "C" fn cuInit(flags: c_uint) -> CUresult {
    entry("cuInit", false, || {
        if flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if state::FORKED.load(Ordering::Relaxed) {
            return Err(CUDA_ERROR_NOT_INITIALIZED);
        }
        let mut st = state::state();
        if !INITIALIZED.load(Ordering::Acquire) {
            // SAFETY: registers a handler that only stores to an atomic
            // (async-signal-safe, as a child handler must be).
            unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
            st.cc = setting("PTXSIM_CC", parse_cc).unwrap_or((8, 0));
            st.scheduling = setting("PTXSIM_SCHEDULING", parse_scheduling);
            st.threads = setting("PTXSIM_THREADS", parse_threads);
            st.timeout = setting("PTXSIM_TIMEOUT", parse_timeout);
            st.fuel = setting("PTXSIM_FUEL", parse_fuel);
            let sched = match scheduling_for(st.scheduling, st.cc) {
                Scheduling::Stack => "stack",
                Scheduling::Its => "its",
            };
            let threads = st.threads.map_or("auto".to_string(), |n| n.to_string());
            let timeout = match st.timeout {
                None => format!("{} s", ptxsim_exec::DEFAULT_TIMEOUT.as_secs()),
                Some(None) => "none".to_string(),
                Some(Some(t)) => format!("{} s", t.as_secs_f64()),
            };
            let fuel = st.fuel.unwrap_or(ptxsim_exec::DEFAULT_FUEL);
            report::init_summary(format!("cc {}.{}, scheduling {sched}, threads {threads}, timeout {timeout}, fuel {fuel}", st.cc.0, st.cc.1));
            INITIALIZED.store(true, Ordering::Release);
        }
        Ok(())
    })
}

/// # Safety
/// `version` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    entry("cuDriverGetVersion", false, || put(version, DRIVER_VERSION))
}

/// # Safety
/// `count` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    entry("cuDeviceGetCount", true, || put(count, 1))
}

/// # Safety
/// `device` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    entry("cuDeviceGet", true, || {
        check_device(ordinal)?;
        put(device, 0)
    })
}

/// # Safety
/// `name` is null or valid for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetName", true, || {
        check_device(dev)?;
        if name.is_null() || len <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let text = b"ptxsim";
        let n = text.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(text.as_ptr(), name as *mut u8, n);
        *name.add(n) = 0;
        Ok(())
    })
}

/// The value of attribute `attr`, if this library knows it.
fn attribute(attr: c_int, cc: (i32, i32)) -> Option<c_int> {
    Some(match attr {
        1 => 1024,                        // max threads per block
        2 | 3 => 1024,                    // max block dim x, y
        4 => 64,                          // max block dim z
        5 => i32::MAX,                    // max grid dim x
        6 | 7 => 65535,                   // max grid dim y, z
        8 => 48 * 1024,                   // max shared memory per block
        9 => 64 * 1024,                   // total constant memory
        10 => 32,                         // warp size
        11 => i32::MAX,                   // max pitch
        12 => 65536,                      // max registers per block
        13 => 1_410_000,                  // clock rate (kHz)
        14 => 512,                        // texture alignment
        15 => 1,                          // gpu overlap
        16 => 1,                          // multiprocessor count
        17 => 0,                          // kernel exec timeout
        18 => 0,                          // integrated
        19 => 1,                          // can map host memory (at the host's address)
        20 => 0,                          // compute mode: default
        31 => 0,                          // concurrent kernels: launches run one by one
        32 => 0,                          // ECC
        33 | 34 | 50 => 0,                // PCI bus, device, domain id
        35 => 0,                          // TCC driver
        36 => 1_215_000,                  // memory clock rate (kHz)
        37 => 5120,                       // global memory bus width (bits)
        38 => 40 * 1024 * 1024,           // L2 cache size
        39 => 2048,                       // max threads per multiprocessor
        40 => 0,                          // async engine count
        41 => 1,                          // unified addressing
        75 => cc.0,                       // compute capability major
        76 => cc.1,                       // compute capability minor
        78 => 0,                          // stream priorities supported
        81 => 228 * 1024,                 // max shared memory per multiprocessor
        82 => 65536,                      // max registers per multiprocessor
        83 => 1,                          // managed memory
        84 => 0,                          // multi-GPU board
        86 => 0,                          // host native atomics
        87 => 2,                          // single/double precision perf ratio
        88 | 89 => 0,                     // pageable / concurrent managed access
        91 => 1,                          // host pointer usable for registered memory
        95 => 1,                          // cooperative launch
        96 => 0,                          // cooperative multi-device launch
        120 => (cc.0 >= 9) as i32,        // cluster launch (sm_90+)
        97 => 227 * 1024,                 // max shared memory per block (opt-in)
        115 => 0,                         // memory pools: not yet
        // Textures and surfaces (A100's limits; no texture API exists yet).
        21 => 131072,                     // max texture 1D width
        22 => 131072,                     // max texture 2D width
        23 => 65536,                      // max texture 2D height
        24..=26 => 16384,                 // max texture 3D width, height, depth
        27 | 28 => 32768,                 // max texture 2D layered width, height
        29 => 2048,                       // max texture 2D layers
        30 => 512,                        // surface alignment
        42 => 32768,                      // max texture 1D layered width
        43 => 2048,                       // max texture 1D layers
        44 => 1,                          // texture 2D gather (deprecated)
        45 | 46 => 32768,                 // max texture 2D gather width, height
        47 | 48 => 8192,                  // max texture 3D alternate width, height
        49 => 32768,                      // max texture 3D alternate depth
        51 => 32,                         // texture pitch alignment
        52 | 53 => 32768,                 // max cubemap (layered) width
        54 => 2046,                       // max cubemap layers
        55 => 32768,                      // max surface 1D width
        56 => 131072,                     // max surface 2D width
        57 => 65536,                      // max surface 2D height
        58..=60 => 16384,                 // max surface 3D width, height, depth
        61 => 32768,                      // max surface 1D layered width
        62 => 2048,                       // max surface 1D layers
        63 | 64 => 32768,                 // max surface 2D layered width, height
        65 => 2048,                       // max surface 2D layers
        66 | 67 => 32768,                 // max surface cubemap (layered) width
        68 => 2046,                       // max surface cubemap layers
        69 => 1 << 28,                    // max texture 1D linear width
        70 => 131072,                     // max texture 2D linear width
        71 => 65000,                      // max texture 2D linear height
        72 => 2_097_120,                  // max texture 2D linear pitch
        73 | 74 => 32768,                 // max mipmapped texture 2D width, height
        77 => 32768,                      // max mipmapped texture 1D width
        79 | 80 => 1,                     // globals and locals cached in L1
        85 => 0,                          // multi-GPU board group id
        90 => 1,                          // compute preemption
        92..=94 => 0,                     // stream memory operations (v1): none
        98 => 0,                          // flush remote writes
        99 => 1,                          // host memory registration
        100 | 101 => 0,                   // host page tables, direct managed access
        102..=105 => 0,                   // virtual memory management, shareable handles
        106 => 32,                        // max blocks per multiprocessor
        107 => 0,                         // generic compression
        108 | 109 => 0,                   // persisting L2, access policy window: none
        110 => 0,                         // GPUDirect RDMA with VMM
        111 => 1024,                      // shared memory reserved per block
        112 => 0,                         // sparse arrays
        113 => 1,                         // read-only host registration
        114 => 0,                         // timeline semaphore interop
        116..=119 => 0,                   // GPUDirect RDMA, mempool handle types
        121..=125 => 0,                   // deferred mapping, stream mem ops, dma-buf, IPC events
        126 => 1,                         // memory sync domains
        127 => (cc.0 >= 9) as i32,        // tensor map access (sm_90+)
        128..=130 => 0,                   // fabric handles, unified function pointers, NUMA config
        131 => -1,                        // NUMA id of device memory: none
        132 | 133 => 0,                   // multicast, MPS
        134 => -1,                        // host NUMA id: none
        135..=139 => 0,                   // CIG, memory decompression, PCI device/vendor id (none)
        140..=148 => 0,                   // PCI subsystem id, host NUMA/host pools, dma-buf, partial atomics, reductions
        149 => 1,                         // locality domains
        150 => 0,                         // oversized shared memory per block
        151..=161 => 0,                   // CIG streams, dma-buf mmap, logical endpoints, ...
        _ => return None,
    })
}

/// # Safety
/// `pi` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(pi: *mut c_int, attrib: c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceGetAttribute", true, || {
        check_device(dev)?;
        let cc = state::state().cc;
        let v = attribute(attrib, cc).ok_or_else(|| {
            crate::report::log(&format!("cuDeviceGetAttribute: attribute {attrib} is unknown"));
            CUDA_ERROR_INVALID_VALUE
        })?;
        put(pi, v)
    })
}

/// # Safety
/// `bytes` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    entry("cuDeviceTotalMem_v2", true, || {
        check_device(dev)?;
        let cap = state::device_read().limits.global_cap();
        put(bytes, cap as usize)
    })
}

/// # Safety
/// `major` and `minor` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, dev: CUdevice) -> CUresult {
    entry("cuDeviceComputeCapability", true, || {
        check_device(dev)?;
        if major.is_null() || minor.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let cc = state::state().cc;
        put(major, cc.0)?;
        put(minor, cc.1)
    })
}

/// The device's UUID: fixed, so a process sees the same one every run.
const UUID: [u8; 16] = *b"ptxsim-device-00";

/// The device's PCI (domain, bus, device), as attributes 50, 33 and 34 say.
pub fn pci_location() -> (i32, i32, i32) {
    let cc = (8, 0);
    let a = |n| attribute(n, cc).unwrap_or(0);
    (a(50), a(33), a(34))
}

unsafe fn get_uuid(name: &str, uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    entry(name, true, || {
        check_device(dev)?;
        put(uuid, UUID)
    })
}

/// # Safety
/// `uuid` is null or valid for a 16-byte write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    get_uuid("cuDeviceGetUuid", uuid, dev)
}

/// # Safety
/// `uuid` is null or valid for a 16-byte write.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut [u8; 16], dev: CUdevice) -> CUresult {
    get_uuid("cuDeviceGetUuid_v2", uuid, dev)
}

/// # Safety
/// `s` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(error: CUresult, s: *mut *const c_char) -> CUresult {
    entry("cuGetErrorName", false, || {
        if s.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match error_name(error) {
            Some(n) => put(s, n.as_ptr()),
            None => {
                put(s, std::ptr::null())?;
                Err(CUDA_ERROR_INVALID_VALUE)
            }
        }
    })
}

/// # Safety
/// `s` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(error: CUresult, s: *mut *const c_char) -> CUresult {
    entry("cuGetErrorString", false, || {
        if s.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match error_string(error) {
            Some(n) => put(s, n.as_ptr()),
            None => {
                put(s, std::ptr::null())?;
                Err(CUDA_ERROR_INVALID_VALUE)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    //! Parsing of the `PTXSIM_*` settings; the attribute table.
    use super::*;

    /// cudart's `cudaGetDeviceProperties` asks for every attribute of
    /// CUDA 13.5's `CUdevice_attribute` (1 to 161): each has a value, and
    /// the ones it derives sizes from are consistent with each other.
    #[test]
    fn every_cuda_13_5_attribute_has_a_value() {
        for cc in [(8, 0), (9, 0)] {
            for a in 1..=161 {
                assert!(attribute(a, cc).is_some(), "attribute {a} at cc {cc:?}");
            }
            assert_eq!(attribute(162, cc), None);
            let v = |a| attribute(a, cc).unwrap();
            assert!(v(97) <= v(81), "opt-in shared memory per block within the multiprocessor's");
            assert!(v(8) <= v(97));
            assert!(v(1) <= v(39), "threads per block within threads per multiprocessor");
            assert_eq!(v(12), v(82), "registers per block and per multiprocessor (A100: 64K each)");
            assert_eq!(v(127), (cc.0 >= 9) as i32);
        }
    }

    #[test]
    fn scheduling_and_threads_parse() {
        assert_eq!(parse_scheduling("its"), Some(Scheduling::Its));
        assert_eq!(parse_scheduling(" stack"), Some(Scheduling::Stack));
        assert_eq!(parse_scheduling("ITS"), None);
        assert_eq!(parse_threads("4"), Some(4));
        assert_eq!(parse_threads("0"), None);
        assert_eq!(parse_threads("-1"), None);
        assert_eq!(scheduling_for(None, (7, 5)), Scheduling::Its);
        assert_eq!(scheduling_for(None, (6, 1)), Scheduling::Stack);
        assert_eq!(scheduling_for(Some(Scheduling::Its), (6, 1)), Scheduling::Its);
    }

    #[test]
    fn cc_parses() {
        assert_eq!(parse_cc("8.0"), Some((8, 0)));
        assert_eq!(parse_cc(" 9.0 "), Some((9, 0)));
        assert_eq!(parse_cc("7"), None);
        assert_eq!(parse_cc("x.y"), None);
    }
}
