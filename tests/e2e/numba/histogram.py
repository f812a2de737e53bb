"""A 256-bin histogram: each block counts into shared memory with
cuda.atomic.add, then adds its counts to the global histogram atomically.
Compared with np.bincount exactly."""
import numpy as np
from numba import cuda, int32

from e2e_check import assert_equal, check, finish

BINS = 256


@cuda.jit
def histogram(data, hist):
    local = cuda.shared.array(BINS, dtype=int32)
    t = cuda.threadIdx.x
    local[t] = 0  # blockDim.x == BINS
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.size:
        cuda.atomic.add(local, data[i], 1)
        i += stride
    cuda.syncthreads()
    cuda.atomic.add(hist, t, local[t])


def run():
    n = 1 << 18
    # A skewed distribution, so that many threads hit the same bins at once.
    data = np.minimum(np.random.default_rng(2).exponential(40.0, n), BINS - 1).astype(np.uint8)
    hist = np.zeros(BINS, dtype=np.int32)
    histogram[32, BINS](data, hist)
    assert_equal(hist, np.bincount(data, minlength=BINS), "histogram")
    return f"{n} uint8 values into {BINS} bins, equal to np.bincount (largest bin {hist.max()})"


check("histogram with atomics", run)
finish()
