"""Host memory a kernel dereferences: mapped (cuMemHostAlloc with DEVICEMAP),
managed (cuMemAllocManaged) and registered (cuMemHostRegister, through
cuda.mapped) arrays. The host writes each one, a kernel reads and writes it
in place, and after cuda.synchronize() the host must see exactly what the
kernel stored: integer arithmetic, so NumPy's result is exact."""
import numpy as np
from numba import cuda

from e2e_check import assert_equal, check, finish


@cuda.jit
def step(a, k):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * 3 + k + i


def want(x, k):
    return x * 3 + k + np.arange(x.size, dtype=x.dtype)


def mapped():
    n = 10_000
    h = cuda.mapped_array(n, dtype=np.int64)
    h[:] = np.arange(n) * 7 - 5
    before = h.copy()
    step[(n + 127) // 128, 128](h, 11)
    cuda.synchronize()
    assert_equal(h, want(before, 11), "mapped array after the kernel")
    # A second launch sees the host's change made between the two.
    h[0] = 1000
    step[(n + 127) // 128, 128](h, 0)
    cuda.synchronize()
    assert h[0] == 3000, h[0]
    return f"{n} int64 written by the host, updated in place by two kernels, seen by the host"


def managed():
    n = 4096
    m = cuda.managed_array(n, dtype=np.int32)
    m[:] = np.arange(n, dtype=np.int32) ^ 0x55
    before = m.copy()
    step[n // 256, 256](m, -2)
    cuda.synchronize()
    assert_equal(m, want(before, -2), "managed array after the kernel")
    return f"{n} int32 through a managed allocation"


def registered():
    x = (np.arange(3000, dtype=np.int64) - 1500) * 13
    before = x.copy()
    with cuda.mapped(x) as d:
        step[(x.size + 63) // 64, 64](d, 5)
        cuda.synchronize()
    assert_equal(x, want(before, 5), "registered NumPy array after the kernel")
    return f"a NumPy array of {x.size} int64 registered with cuMemHostRegister, updated in place"


check("mapped host array", mapped)
check("managed array", managed)
check("registered host array", registered)
finish()
