"""CuPy reductions on ptxsim (its own reduction kernels, compiled by
NVRTC): sum, max/argmax, mean along an axis, a ReductionKernel; integer
results exact, float results within stated tolerances of NumPy's float64."""
import _cupy_env  # noqa: F401
import cupy as cp
import numpy as np
from e2e_check import assert_close, assert_equal, check, finish

rng = np.random.default_rng(3)
x = rng.standard_normal((257, 33)).astype(np.float32)
ix = rng.integers(-1000, 1000, size=100_000).astype(np.int64)
dx, dix = cp.asarray(x), cp.asarray(ix)


def int_sum():
    got = int(dix.sum())
    assert got == int(ix.sum()), (got, int(ix.sum()))
    return f"sum of {ix.size} int64 = {got}"


def max_argmax():
    assert float(dx.max()) == float(x.max())
    assert int(dx.argmax()) == int(x.argmax())
    assert_equal(dx.max(axis=0).get(), x.max(axis=0), "max axis 0")
    return "max, argmax, max(axis=0) exact"


def mean_axis():
    got = dx.mean(axis=1).get()
    d = assert_close(got, x.astype(np.float64).mean(axis=1), 1e-6, 1e-5, "mean axis 1")
    return f"mean(axis=1) within 1e-5 (largest difference {d:.2e})"


def reduction_kernel():
    l2 = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    got = float(l2(dx))
    want = float(np.sqrt((x.astype(np.float64) ** 2).sum()))
    assert abs(got - want) <= 1e-4 * want, (got, want)
    return f"ReductionKernel l2 norm {got:.4f} (NumPy {want:.4f})"


check("int_sum", int_sum)
check("max_argmax", max_argmax)
check("mean_axis", mean_axis)
check("reduction_kernel", reduction_kernel)
finish()
