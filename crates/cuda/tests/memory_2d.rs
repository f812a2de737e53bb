//! Pitched allocations, 2D copies and 2D memsets through the built library,
//! as the CUDA runtime's `cudaMallocPitch`, `cudaMemcpy2D` and
//! `cudaMemset2D` call them: `CUDA_MEMCPY2D` in `cuda.h`'s layout, rows
//! `Pitch` bytes apart starting at `(Y + y) * Pitch + XInBytes`, host,
//! device and unified sides. Expected bytes are computed here from those
//! definitions.

mod common;

use libloading::Library;
use std::ffi::{c_uint, c_void};
use std::ptr::{null, null_mut};

type H = *mut c_void;

const SUCCESS: u32 = 0;
const INVALID_VALUE: u32 = 1;
const NOT_SUPPORTED: u32 = 801;

const HOST: u32 = 1;
const DEVICE: u32 = 2;
const ARRAY: u32 = 3;
const UNIFIED: u32 = 4;

/// `CUDA_MEMCPY2D`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Memcpy2D {
    src_x_in_bytes: usize,
    src_y: usize,
    src_memory_type: u32,
    src_host: *const c_void,
    src_device: u64,
    src_array: H,
    src_pitch: usize,
    dst_x_in_bytes: usize,
    dst_y: usize,
    dst_memory_type: u32,
    dst_host: *mut c_void,
    dst_device: u64,
    dst_array: H,
    dst_pitch: usize,
    width_in_bytes: usize,
    height: usize,
}

impl Default for Memcpy2D {
    fn default() -> Self {
        Memcpy2D {
            src_x_in_bytes: 0,
            src_y: 0,
            src_memory_type: 0,
            src_host: null(),
            src_device: 0,
            src_array: null_mut(),
            src_pitch: 0,
            dst_x_in_bytes: 0,
            dst_y: 0,
            dst_memory_type: 0,
            dst_host: null_mut(),
            dst_device: 0,
            dst_array: null_mut(),
            dst_pitch: 0,
            width_in_bytes: 0,
            height: 0,
        }
    }
}

fn f<T: Copy>(lib: &Library, name: &str) -> T {
    let sym = format!("{name}\0");
    // SAFETY: each call site declares the function's C signature.
    unsafe { *lib.get::<T>(sym.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
}

fn setup() -> Library {
    // SAFETY: our own library; its initialisers do nothing.
    let lib = unsafe { Library::new(common::private_copy("memory-2d")) }.expect("load libcuda copy");
    let mut ctx = null_mut();
    unsafe {
        assert_eq!(f::<unsafe extern "C" fn(u32) -> u32>(&lib, "cuInit")(0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(*mut H, i32) -> u32>(&lib, "cuDevicePrimaryCtxRetain")(&mut ctx, 0), SUCCESS);
        assert_eq!(f::<unsafe extern "C" fn(H) -> u32>(&lib, "cuCtxSetCurrent")(ctx), SUCCESS);
    }
    lib
}

#[test]
fn pitched_copies_and_memsets() {
    let lib = setup();
    let pitch_alloc = f::<unsafe extern "C" fn(*mut u64, *mut usize, usize, usize, c_uint) -> u32>(&lib, "cuMemAllocPitch_v2");
    let copy = f::<unsafe extern "C" fn(*const Memcpy2D) -> u32>(&lib, "cuMemcpy2D_v2");
    let copy_async = f::<unsafe extern "C" fn(*const Memcpy2D, H) -> u32>(&lib, "cuMemcpy2DAsync_v2");
    let memset8 = f::<unsafe extern "C" fn(u64, usize, u8, usize, usize) -> u32>(&lib, "cuMemsetD2D8_v2");
    let memset32 = f::<unsafe extern "C" fn(u64, usize, u32, usize, usize) -> u32>(&lib, "cuMemsetD2D32_v2");
    let (w, h) = (100usize, 5usize);
    let (mut d, mut pitch) = (0u64, 0usize);
    unsafe {
        assert_eq!(pitch_alloc(&mut d, &mut pitch, w, h, 4), SUCCESS);
        assert!(pitch >= w && pitch % 256 == 0, "pitch {pitch}");
        assert_eq!(pitch_alloc(&mut d, &mut pitch, w, h, 3), INVALID_VALUE, "element size 3");
        assert_eq!(pitch_alloc(&mut d, &mut pitch, 0, h, 4), INVALID_VALUE, "no width");
        let (mut d, mut pitch) = (0u64, 0usize);
        assert_eq!(pitch_alloc(&mut d, &mut pitch, w, h, 4), SUCCESS);

        // Host rows of 100 bytes, 100 apart, into the pitched rows.
        let src: Vec<u8> = (0..w * h).map(|i| (i % 251) as u8).collect();
        let up = Memcpy2D { src_memory_type: HOST, src_host: src.as_ptr() as *const c_void, src_pitch: w, dst_memory_type: DEVICE, dst_device: d, dst_pitch: pitch, width_in_bytes: w, height: h, ..Default::default() };
        assert_eq!(copy(&up), SUCCESS);
        // Bytes 20..30 of rows 1..4 set to 0xAB.
        assert_eq!(memset8(d + pitch as u64 + 20, pitch, 0xAB, 10, 3), SUCCESS);
        let mut want = src.clone();
        for y in 1..4 {
            want[y * w + 20..y * w + 30].fill(0xAB);
        }
        // Back to a host buffer with rows 120 apart, from row 1, bytes
        // 8.. of each row (92 bytes, 4 rows), at column 4 of the host rows.
        let mut back = vec![0u8; 120 * 4];
        let down = Memcpy2D {
            src_x_in_bytes: 8,
            src_y: 1,
            src_memory_type: DEVICE,
            src_device: d,
            src_pitch: pitch,
            dst_x_in_bytes: 4,
            dst_memory_type: HOST,
            dst_host: back.as_mut_ptr() as *mut c_void,
            dst_pitch: 120,
            width_in_bytes: 92,
            height: 4,
            ..Default::default()
        };
        assert_eq!(copy_async(&down, null_mut()), SUCCESS);
        for y in 0..4 {
            assert_eq!(&back[y * 120 + 4..y * 120 + 96], &want[(y + 1) * w + 8..(y + 2) * w], "row {y}");
            assert!(back[y * 120..y * 120 + 4].iter().chain(&back[y * 120 + 96..(y + 1) * 120]).all(|&b| b == 0), "row {y}: bytes outside the copy");
        }

        // Device to device between two pitched blocks, unified on one side.
        let (mut e, mut pitch2) = (0u64, 0usize);
        assert_eq!(pitch_alloc(&mut e, &mut pitch2, 600, 2, 16), SUCCESS);
        assert!(pitch2 >= 600, "pitch {pitch2}");
        assert_eq!(memset32(e, pitch2, 0x0101_0101, 150, 2), SUCCESS);
        let dd = Memcpy2D { src_memory_type: UNIFIED, src_device: d, src_pitch: pitch, src_y: 3, dst_memory_type: DEVICE, dst_device: e, dst_pitch: pitch2, dst_x_in_bytes: 500, width_in_bytes: w, height: 2, ..Default::default() };
        assert_eq!(copy(&dd), SUCCESS);
        let mut rows = vec![0u8; 600 * 2];
        let read = Memcpy2D { src_memory_type: DEVICE, src_device: e, src_pitch: pitch2, dst_memory_type: UNIFIED, dst_device: rows.as_mut_ptr() as u64, dst_pitch: 600, width_in_bytes: 600, height: 2, ..Default::default() };
        assert_eq!(copy(&read), SUCCESS, "a unified side outside device memory is host memory");
        for y in 0..2 {
            assert!(rows[y * 600..y * 600 + 500].iter().all(|&b| b == 1), "row {y}: the memset's bytes");
            assert_eq!(&rows[y * 600 + 500..y * 600 + 600], &want[(3 + y) * w..(4 + y) * w], "row {y}: the copied bytes");
        }

        // Errors: a pitch below X + width, an array side, a device row
        // outside any allocation.
        let bad = Memcpy2D { src_pitch: 50, ..up };
        assert_eq!(copy(&bad), INVALID_VALUE);
        let arr = Memcpy2D { src_memory_type: ARRAY, ..up };
        assert_eq!(copy(&arr), NOT_SUPPORTED);
        let out = Memcpy2D { dst_y: 1000, ..up };
        assert_eq!(copy(&out), INVALID_VALUE);
        assert_eq!(memset8(d, 10, 0, 20, 2), INVALID_VALUE, "pitch below the width");
        // Sizes from the caller size no allocation: a huge height is refused
        // at the first row outside device memory.
        let huge = Memcpy2D { height: 1 << 60, ..up };
        assert_eq!(copy(&huge), INVALID_VALUE);
        assert_eq!(memset8(d, pitch, 0, w, 1 << 60), INVALID_VALUE);
    }
}
