"""Torch-free Triton 3.3.1 kernels (vector add, softmax, tl.dot matmuls), run under `ptxsim exec` by
scripts/triton_smoke.sh (manual; not in CI).

Triton's CUDA driver imports torch for the current device, stream and
capability and counts itself active only when torch.cuda is available; this
script installs a driver subclass that answers those itself (device 0,
stream 0, the capability from the library) and allocates device memory with
ctypes calls to libcuda.so.1. Pointer arguments are objects with
`data_ptr()` and `.dtype`, as Triton accepts."""
import ctypes
import os
import sys

import numpy as np

cuda = ctypes.CDLL("libcuda.so.1")


def check(r, what):
    if r != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(r, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: {r} {name.value}")


check(cuda.cuInit(0), "cuInit")
dev = ctypes.c_int()
check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p()
check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
major, minor = ctypes.c_int(), ctypes.c_int()
check(cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev), "cuDeviceGetAttribute(75)")
check(cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev), "cuDeviceGetAttribute(76)")
print(f"step: libcuda.so.1 loaded, device cc {major.value}.{minor.value}", flush=True)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.nvidia.driver import CudaDriver, CudaLauncher, CudaUtils  # noqa: E402


class NoTorchCudaDriver(CudaDriver):
    def __init__(self):
        self.utils = CudaUtils()
        self.launcher_cls = CudaLauncher
        self.get_device_capability = lambda _dev=0: (major.value, minor.value)
        self.get_current_stream = lambda _dev=0: 0
        self.get_current_device = lambda: 0
        self.set_current_device = lambda _dev: None

    @staticmethod
    def is_active():
        return True


triton.runtime.driver.set_active(NoTorchCudaDriver())
print("step: Triton driver utils built (CudaUtils)", flush=True)


class DevArray:
    """Device memory from cuMemAlloc_v2, passed to Triton as a pointer."""

    def __init__(self, n, dtype=np.float32):
        self.n = n
        self.np_dtype = np.dtype(dtype)
        self.dtype = str(self.np_dtype)  # "float32": Triton maps it to fp32
        self.nbytes = n * self.np_dtype.itemsize
        p = ctypes.c_uint64()
        check(cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(self.nbytes)), "cuMemAlloc_v2")
        self.ptr = p.value

    def data_ptr(self):
        return self.ptr

    def upload(self, a):
        a = np.ascontiguousarray(a, dtype=self.np_dtype)
        check(cuda.cuMemcpyHtoD_v2(ctypes.c_uint64(self.ptr), a.ctypes.data_as(ctypes.c_void_p),
                                   ctypes.c_size_t(self.nbytes)), "cuMemcpyHtoD_v2")

    def download(self):
        a = np.empty(self.n, dtype=self.np_dtype)
        check(cuda.cuMemcpyDtoH_v2(a.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(self.ptr),
                                   ctypes.c_size_t(self.nbytes)), "cuMemcpyDtoH_v2")
        return a


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def case_vadd():
    n = int(os.environ.get("N", "1000"))
    BLOCK = 256
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dx, dy, dout = DevArray(n), DevArray(n), DevArray(n)
    dx.upload(x)
    dy.upload(y)
    add_kernel[(triton.cdiv(n, BLOCK),)](dx, dy, dout, n, BLOCK=BLOCK)
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    got = dout.download()
    if not np.array_equal(got, x + y):
        bad = np.nonzero(got != x + y)[0]
        return f"{len(bad)} of {n} elements differ; first at {bad[0]}: {got[bad[0]]} != {(x + y)[bad[0]]}"
    return f"vector add of {n} float32 equals NumPy"


def case_softmax():
    rows, cols = 8, 100
    rng = np.random.default_rng(1)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    din, dout = DevArray(x.size), DevArray(x.size)
    din.upload(x.ravel())
    softmax_kernel[(rows,)](dout, din, cols, BLOCK=128)
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    got = dout.download().reshape(rows, cols)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    err = np.abs(got - want).max()
    if not err < 1e-6:
        return f"max error {err}"
    return f"softmax of {rows}x{cols} float32 within {err:.1e} of NumPy"


def features(kernel):
    """The notable instructions in a compiled kernel's PTX."""
    ptx = kernel.asm.get("ptx", "") if hasattr(kernel, "asm") else ""
    found = [w for w in ("wgmma", "mma.sync", "ldmatrix", "cp.async", "stmatrix", "cp.async.bulk") if w in ptx]
    return ", ".join(found) or "no mma"


def case_matmul(dtype, tile=32):
    M, N, K = 2 * tile, tile + 16, tile + 8
    rng = np.random.default_rng(2)
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    da, db, dc = DevArray(a.size, dtype), DevArray(b.size, dtype), DevArray(M * N, np.float32)
    da.upload(a.ravel())
    db.upload(b.ravel())
    k = matmul_kernel[(triton.cdiv(M, tile), triton.cdiv(N, tile))](da, db, dc, M, N, K, BM=tile, BN=tile, BK=tile // 2)
    check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    got = dc.download().reshape(M, N)
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(got - want).max()
    # 1% of the largest entry: an fp32 tl.dot rounds its inputs to tf32 by default.
    if not err < 1e-2 * np.abs(want).max():
        return f"max error {err}"
    return f"tl.dot matmul {M}x{K} @ {K}x{N} ({np.dtype(dtype)}, {tile}x{tile} tiles; PTX has {features(k)}) within {err:.1e} of NumPy"


failed = 0
for name, case in [("vadd", case_vadd), ("softmax", case_softmax),
                   ("matmul_fp16", lambda: case_matmul(np.float16)), ("matmul_fp32", lambda: case_matmul(np.float32)),
                   ("matmul_fp16_64", lambda: case_matmul(np.float16, 64))]:
    if os.environ.get("CASES") and name not in os.environ["CASES"].split(","):
        continue
    try:
        msg = case()
    except Exception as e:  # report and go on to the next case
        failed += 1
        first = str(e).strip().splitlines()
        print(f"FAIL {name}: {type(e).__name__}: {first[0] if first else ''}", flush=True)
        if os.environ.get("VERBOSE"):
            import traceback
            traceback.print_exc()
        continue
    if msg.startswith("max error") or " differ" in msg:
        failed += 1
        print(f"FAIL {name}: {msg}", flush=True)
    else:
        print(f"PASS {name}: {msg}", flush=True)
sys.exit(1 if failed else 0)
