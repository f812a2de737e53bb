"""float64 math.sin and math.exp, which Numba takes from libdevice, against
NumPy. The CUDA C++ Programming Guide bounds the device's double-precision
sin at 2 ulp and exp at 1 ulp from the exact result; NumPy (glibc) is within
1 ulp of it, so the two may differ by at most 3 ulp (sin) and 2 ulp (exp)."""
import math

import numpy as np
from numba import cuda

from e2e_check import check, finish, ulp_distance


@cuda.jit
def sin_exp(x, y, s, e):
    i = cuda.grid(1)
    if i < x.size:
        s[i] = math.sin(x[i])
        e[i] = math.exp(y[i])


def run():
    rng = np.random.default_rng(3)
    # sin: small and large arguments (the large ones take the slow argument
    # reduction path); exp: the whole finite range, plus underflow to 0 and
    # overflow to inf.
    x = np.concatenate([rng.uniform(-10, 10, 20000), rng.uniform(-1e6, 1e6, 4000),
                        [0.0, -0.0, 1e-300, math.pi, 1e22]])
    y = np.concatenate([rng.uniform(-745, 709, x.size - 4), [0.0, -800.0, 710.0, 1e-20]])
    s = np.empty_like(x)
    e = np.empty_like(y)
    sin_exp[(x.size + 127) // 128, 128](x, y, s, e)
    ds = ulp_distance(s, np.sin(x))
    de = ulp_distance(e, np.exp(y))
    assert ds.max() <= 3, f"sin differs by {ds.max()} ulp at x={x[ds.argmax()]!r}: {s[ds.argmax()]!r} vs {np.sin(x[ds.argmax()])!r}"
    assert de.max() <= 2, f"exp differs by {de.max()} ulp at y={y[de.argmax()]!r}: {e[de.argmax()]!r} vs {np.exp(y[de.argmax()])!r}"
    return f"{x.size} values each: sin within {ds.max()} ulp (bound 3), exp within {de.max()} ulp (bound 2) of NumPy"


check("float64 sin and exp", run)
finish()
