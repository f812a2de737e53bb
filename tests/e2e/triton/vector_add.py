"""A masked vector add of 98,432 float32 elements (not a multiple of the
block). IEEE addition is correctly rounded: the result must equal NumPy's
exactly."""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import assert_equal, check, finish


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def run():
    n = 98432
    rng = np.random.default_rng(10)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = DeviceArray(n, np.float32)
    add_kernel[(triton.cdiv(n, 1024),)](DeviceArray.of(x), DeviceArray.of(y), out, n, BLOCK=1024)
    assert_equal(out.get(), x + y, "x + y")
    return f"{n} float32 sums equal NumPy's"


check("vector add", run)
finish()
