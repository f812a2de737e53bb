"""A torch-free Triton 3.3.1 vector add, run under `ptxsim exec` by
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


n = int(os.environ.get("N", "1000"))
BLOCK = 256
rng = np.random.default_rng(0)
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
dx, dy, dout = DevArray(n), DevArray(n), DevArray(n)
dx.upload(x)
dy.upload(y)
print("step: device buffers allocated and uploaded", flush=True)
grid = (triton.cdiv(n, BLOCK),)
add_kernel[grid](dx, dy, dout, n, BLOCK=BLOCK)
print("step: kernel launched", flush=True)
check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
got = dout.download()
want = x + y
if not np.array_equal(got, want):
    bad = np.nonzero(got != want)[0]
    print(f"FAIL: {len(bad)} of {n} elements differ; first at {bad[0]}: {got[bad[0]]} != {want[bad[0]]}")
    sys.exit(1)
print(f"PASS: Triton vector add of {n} float32 matches NumPy")
