//! ptxsim-cuda: a drop-in CUDA driver library (`libcuda.so.1`) over the
//! ptxsim engine (`ptxsim-exec`), so that programs written against the
//! driver API run their PTX kernels on the CPU.
//!
//! Modules:
//! - `types`: `CUresult` codes, their names and descriptions, C types.
//! - `state`: the registries, the engine device, the per-thread context
//!   stack, handle encoding and [`state::entry`], the guard every exported
//!   function runs in.
//! - `report`: everything the library writes to stdout/stderr.
//! - `device`: `cuInit`, the version, device queries and attributes,
//!   `cuGetErrorName/String`.
//! - `context`: primary and created contexts, the context stack.
//! - `memory`: allocation, copies, memsets, memory queries.
//! - `fatbin`: nvcc's fatbins (wrapper, header, LZ4/Zstd entries) and the
//!   choice of the PTX entry a device runs.
//! - `module`: modules, kernels, `cuLaunchKernel`, streams.
//! - `module_cache`: decoded modules kept by the hash of their text, so
//!   loading the same PTX again costs a lookup.
//! - `library`: the PTX linker (`cuLink*`), libraries, kernels, function
//!   attributes, `cuLaunchKernelEx`.
//! - `host`: page-locked host memory (allocated or registered).
//! - `hostmap`: host memory kernels dereference at the host's address
//!   (mapped, registered, managed blocks), copied in and out around launches.
//! - `managed`: `cuMemAllocManaged`, `cuMemAdvise`, `cuMemPrefetchAsync`.
//! - `occupancy`: settable function attributes, the occupancy calculator.
//! - `event`: events, stream priorities.
//! - `pointer`: `cuPointerGetAttribute(s)`.
//! - `stream`: stream queries, waits and host callbacks (run at once),
//!   cache configuration, the profiler switches.
//! - `tensormap`: `cuTensorMapEncodeTiled`/`Im2col` and
//!   `cuTensorMapReplaceAddress`, writing `ptxsim_sem::tma`'s 128-byte
//!   layout after checking every documented rule.
//! - `ipc`: inter-process handles (`cuIpc*`), refused with
//!   CUDA_ERROR_NOT_SUPPORTED.
//! - `proc`: `cuGetProcAddress(_v2)` and the list of exported functions.
//! - `runtime_api`: what the CUDA runtime 13.x resolves beyond that: the
//!   13.0 `_v2` context forms, primary-context state, stream queries,
//!   kernel names, `cuLibraryGetManaged`.
//! - `export`: `cuGetExportTable`, the private tables the CUDA runtime
//!   needs (runtime interface, tools, context-local storage, integrity
//!   check, ...), one file per table.
//! - `proc_table`: the driver API's versioned names, generated from
//!   `cudaTypedefs.h` by `scripts/gen_proc_table.py`.
//!
//! Invariants of every exported function: `extern "C"`, `#[no_mangle]`, its
//! body inside [`state::entry`] (a panic returns CUDA_ERROR_UNKNOWN and
//! never unwinds into C; a call before `cuInit` returns
//! CUDA_ERROR_NOT_INITIALIZED), every pointer checked for null, every
//! handle looked up in its registry (a foreign or freed handle is an error
//! code, never a dereference). Only the `_v2` forms are exported where the
//! plain name has the old 32-bit ABI (`cuMemAlloc`, `cuMemcpyHtoD`, ...).

#![allow(non_snake_case)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod context;
pub mod device;
pub mod event;
pub mod export;
pub mod fatbin;
pub mod host;
pub mod ipc;
pub mod hostmap;
pub mod library;
pub mod managed;
pub mod memory;
pub mod memory2d;
pub mod module;
pub mod module_cache;
pub mod occupancy;
pub mod pointer;
pub mod proc;
#[rustfmt::skip]
pub mod proc_table;
pub mod report;
pub mod runtime_api;
pub mod state;
pub mod stream;
pub mod tensormap;
pub mod types;
