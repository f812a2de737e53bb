"""One Numba CUDA program, run once and checked against NumPy; what
scripts/bench_python.sh times as a whole process, under `ptxsim exec` and
under NUMBA_ENABLE_CUDASIM=1.

    python scripts/bench_numba.py PROGRAM THREADS

PROGRAM: vadd (c = a + b, float32), reduce (a block tree reduction in
shared memory, then one atomic add per block, int64 sums of int32 values),
divergent (each thread steps a linear congruential generator
(i mod 256) + 1 times, so the lanes of a warp leave the loop one by one),
math (sin, exp, sqrt, log1p, fma-shaped float32 arithmetic). THREADS: the
number of threads launched (a multiple of 256).

With BENCH_PHASES=1 it prints the time of each phase to stderr (import,
compile and first launch, the copies back and the check), to show where a
small program's time goes. Exits 1 when the result is wrong.
"""

import os
import sys
import time

T0 = time.perf_counter()
import math  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

T_IMPORT = time.perf_counter()
# Quiet: the simulator's NumPy scalars warn when uint32 wraps, and Numba
# warns about small grids and the absent nvJitLink.
warnings.simplefilter("ignore")
BLOCK = 256


@cuda.jit
def vadd(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def reduce(a, out):
    s = cuda.shared.array(BLOCK, dtype=np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.size else 0
    cuda.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, s[0])


@cuda.jit
def divergent(out):
    i = cuda.grid(1)
    if i < out.size:
        x = np.uint32(i)
        for _ in range((i & 255) + 1):
            x = x * np.uint32(1103515245) + np.uint32(12345)
        out[i] = x


@cuda.jit
def fmath(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.sin(v) * math.exp(-v) + math.sqrt(v) * np.float32(0.5) + math.log1p(v)


def check(ok, what):
    if not ok:
        print(f"bench_numba: wrong result: {what}", file=sys.stderr)
        sys.exit(1)


def main():
    prog, n = sys.argv[1], int(sys.argv[2])
    grid = (n + BLOCK - 1) // BLOCK
    rng = np.random.default_rng(1)
    if prog == "vadd":
        a = rng.random(n, dtype=np.float32)
        b = rng.random(n, dtype=np.float32)
        da, db, dc = cuda.to_device(a), cuda.to_device(b), cuda.device_array(n, np.float32)
        vadd[grid, BLOCK](da, db, dc)
        t = time.perf_counter()
        got = dc.copy_to_host()
        check(np.array_equal(got, a + b), "vadd")
    elif prog == "reduce":
        a = rng.integers(-1000, 1000, n, dtype=np.int32)
        out = cuda.to_device(np.zeros(1, np.int64))
        reduce[grid, BLOCK](cuda.to_device(a), out)
        t = time.perf_counter()
        got = out.copy_to_host()[0]
        check(got == int(a.astype(np.int64).sum()), f"reduce {got}")
    elif prog == "divergent":
        out = cuda.device_array(n, np.uint32)
        divergent[grid, BLOCK](out)
        t = time.perf_counter()
        got = out.copy_to_host()
        idx = np.arange(n, dtype=np.uint64)
        x = idx.copy()
        steps = (idx & 255) + 1
        for k in range(256):
            live = steps > k
            x[live] = (x[live] * 1103515245 + 12345) & 0xFFFFFFFF
        check(np.array_equal(got, x.astype(np.uint32)), "divergent")
    elif prog == "math":
        x = rng.random(n, dtype=np.float32) * np.float32(4.0)
        out = cuda.device_array(n, np.float32)
        fmath[grid, BLOCK](cuda.to_device(x), out)
        t = time.perf_counter()
        got = out.copy_to_host()
        xd = x.astype(np.float64)
        want = np.sin(xd) * np.exp(-xd) + np.sqrt(xd) * 0.5 + np.log1p(xd)
        check(np.allclose(got, want, rtol=1e-5, atol=1e-5), "math")
    else:
        print(f"bench_numba: unknown program {prog}", file=sys.stderr)
        sys.exit(2)
    t_end = time.perf_counter()
    if os.environ.get("BENCH_PHASES"):
        print(
            f"phases {prog} {n}: import {T_IMPORT - T0:.3f} s, compile+copies+launch {t - T_IMPORT:.3f} s, "
            f"copy back+check {t_end - t:.3f} s",
            file=sys.stderr,
        )


main()
