"""CuPy elementwise operations on ptxsim: arithmetic with broadcasting,
ufuncs (exp, sqrt, where), an ElementwiseKernel, type promotion; each
compared with NumPy (exact where the operations are exact, else within
a few ulp)."""
import _cupy_env  # noqa: F401  (settings before import cupy)
import cupy as cp
import numpy as np
from e2e_check import assert_close, assert_equal, check, finish, ulp_distance

rng = np.random.default_rng(7)
a = rng.standard_normal((300, 7)).astype(np.float32)
b = rng.standard_normal((7,)).astype(np.float32)
da, db = cp.asarray(a), cp.asarray(b)


def arith():
    assert_equal((da * 2 + db).get(), a * 2 + b, "a*2+b")
    assert_equal((da - db).get(), a - b, "a-b")
    return f"{a.size} elements, broadcasting (300,7) with (7,)"


def ufuncs():
    e = cp.exp(da).get()
    d = assert_close(e, np.exp(a.astype(np.float64)), 0, 2e-6, "exp")
    assert_equal(cp.sqrt(cp.abs(da)).get(), np.sqrt(np.abs(a)), "sqrt|a|")
    assert_equal(cp.where(da > 0, da, 0).get(), np.where(a > 0, a, 0), "where")
    return f"exp within 2e-6 relative (largest difference {d:.2e}), sqrt and where exact"


def elementwise_kernel():
    k = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x + y", "sq_add")
    got = k(da, db).get()
    # NVRTC contracts x*x+y into one fma.rn.f32 (one rounding), as on a
    # GPU: compare with the exact result (x*x is exact in float64; the sum
    # rounds at most once more there) rounded to float32, within 1 ulp for
    # that possible double rounding. NumPy's a*a+b rounds twice.
    exact = (a.astype(np.float64) ** 2 + b.astype(np.float64)).astype(np.float32)
    d = int(ulp_distance(got, exact).max())
    assert d <= 1, f"{d} ulp from the fused result"
    fused = int((got != a * a + b).sum())
    return f"ElementwiseKernel x*x+y fused (within {d} ulp of the single-rounding result; {fused} of {got.size} differ from NumPy's two roundings)"


def promotion():
    i = cp.arange(10, dtype=cp.int32)
    got = (i * 1.5).get()
    assert got.dtype == np.float64, got.dtype
    assert_equal(got, np.arange(10, dtype=np.int32) * 1.5, "int32*1.5")
    return "int32 * float -> float64"


check("arith", arith)
check("ufuncs", ufuncs)
check("elementwise_kernel", elementwise_kernel)
check("promotion", promotion)
finish()
