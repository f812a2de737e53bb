"""cuda.reduce, Numba's generated reduction kernels: a float64 sum whose
partial sums are all integers below 2^53 (so exact in any order), an int64
maximum, and a sum with an initial value."""
import numpy as np
from numba import cuda

from e2e_check import check, finish


def run():
    add = cuda.reduce(lambda a, b: a + b)
    biggest = cuda.reduce(lambda a, b: max(a, b))
    n = 100000
    total = add(np.arange(n, dtype=np.float64))
    assert total == n * (n - 1) // 2, f"sum {total} != {n * (n - 1) // 2}"
    v = np.random.default_rng(5).integers(-(1 << 40), 1 << 40, 77777, dtype=np.int64)
    m = biggest(v)
    assert m == v.max(), f"max {m} != {v.max()}"
    init = add(np.ones(1000, dtype=np.float64), init=5.0)
    assert init == 1005.0, f"sum with init 5: {init}"
    return f"sum of arange({n}) = {int(total)}, max of {v.size} int64 = NumPy's, init honoured"


check("cuda.reduce", run)
finish()
