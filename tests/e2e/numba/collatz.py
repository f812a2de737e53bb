"""A divergent loop: each thread counts the Collatz steps of its own n, so
the threads of a warp leave the loop at different iterations. Compared with
the same iteration done on whole NumPy arrays."""
import numpy as np
from numba import cuda

from e2e_check import assert_equal, check, finish


@cuda.jit
def steps(out):
    i = cuda.grid(1)
    if i < out.size:
        n = i + 1
        c = 0
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            c += 1
        out[i] = c


def numpy_steps(count):
    n = np.arange(1, count + 1, dtype=np.int64)
    c = np.zeros(count, dtype=np.int64)
    live = n != 1
    while live.any():
        odd = (n % 2 == 1) & live
        even = (n % 2 == 0) & live
        n[even] //= 2
        n[odd] = 3 * n[odd] + 1
        c[live] += 1
        live = n != 1
    return c


def run():
    count = 20000
    out = np.zeros(count, dtype=np.int64)
    steps[(count + 127) // 128, 128](out)
    want = numpy_steps(count)
    assert want[26] == 111  # n = 27 takes 111 steps (a well-known value)
    assert_equal(out, want, "Collatz step counts")
    return f"step counts of 1..{count} equal NumPy's (longest {out.max()} steps, n = {out.argmax() + 1})"


check("divergent loop (Collatz)", run)
finish()
