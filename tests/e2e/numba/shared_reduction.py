"""A tree reduction in shared memory: each block sums its 256 elements with
syncthreads between the halving steps. Integer sums are exact, so each
block's partial sum must equal NumPy's sum of the same slice."""
import numpy as np
from numba import cuda, int32

from e2e_check import assert_equal, check, finish

TPB = 256


@cuda.jit
def block_sums(x, out):
    s = cuda.shared.array(TPB, dtype=int32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = s[0]


def reduction():
    n = (1 << 16) + 123  # the last block is partly empty
    x = np.random.default_rng(1).integers(-1000, 1000, n, dtype=np.int32)
    blocks = (n + TPB - 1) // TPB
    out = np.zeros(blocks, dtype=np.int32)
    block_sums[blocks, TPB](x, out)
    want = np.add.reduceat(x.astype(np.int64), np.arange(0, n, TPB))
    assert_equal(out.astype(np.int64), want, "block sums")
    return f"{blocks} block sums of {n} int32 equal NumPy's (total {int(out.sum())})"


check("shared-memory reduction", reduction)
finish()
