"""Fused row softmax (one program per row: load, subtract the row maximum,
exponentiate, normalise, store), 137 rows of 781 float32, compared with
NumPy in float64.

Tolerance: Triton computes exp(x) as ex2.approx(x * log2 e); the PTX manual
bounds ex2.approx.f32 at 2 ulp (2^-22 relative), and rounding x * log2 e
(|x| < 12 here after the max is subtracted) adds up to |x| * 2^-24 relative,
so each numerator is within ~1e-6 relative; the row sum of 781 terms in f32
adds at most 781 * 2^-24 ~ 5e-5 relative in the worst case (far less for
positive terms summed as a tree), and the division at most 2 ulp. rtol 1e-5
holds with margin for the realistic error (~1e-6) while a wrong max, a
missing mask or a wrong reduction is off by far more; atol 1e-9 covers
outputs that underflow to tiny values."""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import assert_close, check, finish


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=mask)


def run():
    rows, cols = 137, 781
    x = (np.random.default_rng(11).standard_normal((rows, cols)) * 2.0).astype(np.float32)
    out = DeviceArray((rows, cols), np.float32)
    softmax_kernel[(rows,)](out, DeviceArray.of(x), cols, cols, BLOCK=triton.next_power_of_2(cols))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    got = out.get()
    err = assert_close(got, want, atol=1e-9, rtol=1e-5, what="softmax")
    rows_sum = np.abs(got.astype(np.float64).sum(axis=1) - 1).max()
    return f"{rows}x{cols} float32 within rtol 1e-5 of NumPy (max abs error {err:.1e}; rows sum to 1 within {rows_sum:.1e})"


check("fused softmax", run)
finish()
