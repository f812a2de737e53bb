"""A cooperative kernel with grid-wide synchronisation
(cuda.cg.this_grid().sync(): Numba links libcudadevrt and launches it with
cuLaunchCooperativeKernel). In phase 1 each thread writes its own element;
after the grid barrier each thread reads elements that other blocks wrote.
Without a real grid barrier the second phase reads unwritten (zero or stale)
values."""
import numpy as np
from numba import cuda

from e2e_check import assert_equal, check, finish


@cuda.jit
def phases(a, b, rounds):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    for r in range(rounds):
        a[i] = a[i] + (i * 3 + r)
        g.sync()
        b[i] = a[(i + 97) % n] - a[n - 1 - i]
        g.sync()


def grid_sync():
    blocks, threads, rounds = 16, 64, 3
    n = blocks * threads
    a = np.zeros(n, dtype=np.int64)
    d_a = cuda.to_device(a)
    d_b = cuda.device_array(n, dtype=np.int64)
    phases[blocks, threads](d_a, d_b, rounds)
    i = np.arange(n, dtype=np.int64)
    ref = np.zeros(n, dtype=np.int64)
    for r in range(rounds):
        ref = ref + (i * 3 + r)
        b = ref[(i + 97) % n] - ref[n - 1 - i]
    assert_equal(d_a.copy_to_host(), ref, "a after the rounds")
    assert_equal(d_b.copy_to_host(), b, "b read across blocks after each grid sync")
    return f"{blocks} blocks x {threads} threads, {rounds} rounds of two grid syncs each"


check("grid-wide sync (cooperative launch)", grid_sync)
finish()
