"""One Triton 3.3.1 program, run once and checked against NumPy; what
scripts/bench_python.sh times as a whole process, under `ptxsim exec` and
under TRITON_INTERPRET=1.

    python scripts/bench_triton.py PROGRAM THREADS

PROGRAM: vadd (out = x + y, float32) or math (sin, exp, sqrt, log of
float32). THREADS: elements, one per program lane (blocks of 256).

Under TRITON_INTERPRET=1 the arrays are CPU torch tensors (the interpreter
needs torch). Otherwise the kernel is compiled and launched through
libcuda.so.1 (`ptxsim exec` provides it) without torch, as
scripts/triton_smoke.py does: a driver subclass answers the device,
stream and capability queries, and device memory comes from ctypes calls.
Each run compiles into a fresh Triton cache, as a first run does. Exits 1
when the result is wrong.
"""

import os
import shutil
import sys
import tempfile

import numpy as np

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
CACHE = tempfile.mkdtemp(prefix="bench-triton-")
os.environ["TRITON_CACHE_DIR"] = CACHE

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

BLOCK = 256


@triton.jit
def vadd_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.sin(x) * tl.exp(-x) + tl.sqrt(x) * 0.5 + tl.log(x + 1.0)
    tl.store(out_ptr + offs, y, mask=mask)


if INTERPRET:
    import torch

    def to_dev(a):
        return torch.from_numpy(a.copy())

    def empty(n):
        return torch.empty(n, dtype=torch.float32)

    def to_host(t):
        return t.numpy()

else:
    import ctypes

    from triton.backends.nvidia.driver import CudaDriver, CudaLauncher, CudaUtils

    cuda = ctypes.CDLL("libcuda.so.1")

    def ok(r, what):
        if r != 0:
            raise RuntimeError(f"{what} failed: {r}")

    ok(cuda.cuInit(0), "cuInit")
    ctx = ctypes.c_void_p()
    ok(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0), "cuDevicePrimaryCtxRetain")
    ok(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    cc = [ctypes.c_int(), ctypes.c_int()]
    for v, attr in zip(cc, (75, 76)):
        ok(cuda.cuDeviceGetAttribute(ctypes.byref(v), attr, 0), "cuDeviceGetAttribute")

    class NoTorchCudaDriver(CudaDriver):
        def __init__(self):
            self.utils = CudaUtils()
            self.launcher_cls = CudaLauncher
            self.get_device_capability = lambda _dev=0: (cc[0].value, cc[1].value)
            self.get_current_stream = lambda _dev=0: 0
            self.get_current_device = lambda: 0
            self.set_current_device = lambda _dev: None

        @staticmethod
        def is_active():
            return True

    triton.runtime.driver.set_active(NoTorchCudaDriver())

    class DevArray:
        """float32 device memory from cuMemAlloc_v2, passed as a pointer."""

        dtype = "float32"

        def __init__(self, n):
            self.n = n
            p = ctypes.c_uint64()
            ok(cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(4 * n)), "cuMemAlloc_v2")
            self.ptr = p.value

        def data_ptr(self):
            return self.ptr

    def to_dev(a):
        d = DevArray(a.size)
        ok(cuda.cuMemcpyHtoD_v2(ctypes.c_uint64(d.ptr), a.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(a.nbytes)), "HtoD")
        return d

    def empty(n):
        return DevArray(n)

    def to_host(d):
        a = np.empty(d.n, np.float32)
        ok(cuda.cuMemcpyDtoH_v2(a.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(d.ptr), ctypes.c_size_t(a.nbytes)), "DtoH")
        return a


def main():
    prog, n = sys.argv[1], int(sys.argv[2])
    grid = (triton.cdiv(n, BLOCK),)
    rng = np.random.default_rng(1)
    if prog == "vadd":
        x = rng.random(n, dtype=np.float32)
        y = rng.random(n, dtype=np.float32)
        out = empty(n)
        vadd_kernel[grid](to_dev(x), to_dev(y), out, n, BLOCK=BLOCK)
        good = np.array_equal(to_host(out), x + y)
    elif prog == "math":
        x = rng.random(n, dtype=np.float32) * np.float32(3.0)
        out = empty(n)
        math_kernel[grid](to_dev(x), out, n, BLOCK=BLOCK)
        xd = x.astype(np.float64)
        want = np.sin(xd) * np.exp(-xd) + np.sqrt(xd) * 0.5 + np.log(xd + 1.0)
        # Triton lowers sin, exp and log to the .approx instructions.
        good = np.allclose(to_host(out), want, rtol=1e-4, atol=1e-4)
    else:
        print(f"bench_triton: unknown program {prog}", file=sys.stderr)
        sys.exit(2)
    shutil.rmtree(CACHE, ignore_errors=True)
    if not good:
        print(f"bench_triton: wrong result: {prog}", file=sys.stderr)
        sys.exit(1)


main()
