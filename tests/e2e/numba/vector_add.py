"""Vector add of 2^20 float32 elements. IEEE 754 addition is correctly
rounded, so every element must equal NumPy's a + b exactly."""
import numpy as np
from numba import cuda

from e2e_check import assert_equal, check, finish


@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def vector_add():
    n = 1 << 20
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    d_out = cuda.device_array_like(a)
    add[(n + 255) // 256, 256](cuda.to_device(a), cuda.to_device(b), d_out)
    assert_equal(d_out.copy_to_host(), a + b, "a + b")
    return f"{n} float32 sums equal NumPy's"


check("vector add 2^20", vector_add)
finish()
