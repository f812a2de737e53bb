"""Layer normalisation forward (one program per row: mean, variance, 1/sqrt,
scale and shift) of 64 rows of 1000 float32, weight and bias, eps 1e-5,
compared with NumPy in float64; the kernel also stores each row's mean and
rstd.

Tolerance: the row statistics are f32 sums of 1000 terms (error at most
1000 * 2^-24 ~ 6e-5 relative in the worst case, ~1e-6 in practice for a tree
sum); 1/sqrt is within a few ulp. The outputs are O(1) to O(10) (|x - mean|
* rstd up to ~5, times |w| up to 2, plus b), so rtol 1e-5 with atol 1e-5
allows the realistic f32 error with margin, while a wrong mean, variance
(biased versus unbiased is 1e-3 relative here) or eps is outside it."""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import assert_close, check, finish


@triton.jit
def layer_norm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def run():
    rows, n, eps = 64, 1000, 1e-5
    rng = np.random.default_rng(12)
    x = (rng.standard_normal((rows, n)) * 3.0 + 0.5).astype(np.float32)
    w = rng.uniform(-2, 2, n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y, mean, rstd = DeviceArray((rows, n), np.float32), DeviceArray(rows, np.float32), DeviceArray(rows, np.float32)
    layer_norm_fwd[(rows,)](DeviceArray.of(x), y, DeviceArray.of(w), DeviceArray.of(b), mean, rstd, n, n, eps,
                            BLOCK=triton.next_power_of_2(n))
    x64 = x.astype(np.float64)
    m = x64.mean(axis=1, keepdims=True)
    r = 1.0 / np.sqrt(x64.var(axis=1, keepdims=True) + eps)  # biased variance, as layer norm defines it
    want = (x64 - m) * r * w + b
    err = assert_close(y.get(), want, atol=1e-5, rtol=1e-5, what="y")
    assert_close(mean.get(), m[:, 0], atol=1e-6, rtol=1e-5, what="mean")
    assert_close(rstd.get(), r[:, 0], atol=0, rtol=1e-5, what="rstd")
    return f"{rows}x{n} float32 within rtol 1e-5 of NumPy (max abs error {err:.1e}); means and rstd too"


check("layer norm forward", run)
finish()
