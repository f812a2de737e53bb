"""Numba CUDA kernels for the PTX corpus.

Run with a Python that has numba-cuda and NVVM (PyPI: numba-cuda,
nvidia-cuda-nvcc-cu12, nvidia-cuda-runtime-cu12, cuda-bindings<13):
    python nb_kernels.py OUTDIR PENDING_DIR
Each kernel is compiled with numba.cuda.compile_ptx for sm_80 (no GPU needed)
and written to OUTDIR/nb_<name>.ptx, or PENDING_DIR/nb_<name>.ptx for the
kernels in PENDING (the engine cannot run them yet).
"""
import cmath
import math
import sys
from numba import cuda, float32, float64, int32, uint32, int64, uint64, int8, uint16

KERNELS = {}


def kernel(sig):
    def wrap(f):
        KERNELS[f.__name__] = (f, sig)
        return f
    return wrap


@kernel("void(float32[:], float32, float32[:], float32[:])")
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@kernel("void(int32[:], float32[:], float32[:], int32)")
def mandel(out, cx, cy, max_iter):
    i = cuda.grid(1)
    if i >= out.size:
        return
    zr = float32(0.0)
    zi = float32(0.0)
    n = 0
    while n < max_iter and zr * zr + zi * zi <= float32(4.0):
        t = zr * zr - zi * zi + cx[i]
        zi = float32(2.0) * zr * zi + cy[i]
        zr = t
        n += 1
    out[i] = n


@kernel("void(float32[:], float32[:])")
def block_sum(out, x):
    buf = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


@kernel("void(int32[:], int32[:])")
def histogram(bins, data):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % bins.size, 1)


@kernel("void(float64[:], float64[:])")
def dmath(out, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.exp(v) * math.sin(v) + math.sqrt(abs(v)) - math.log1p(abs(v))


@kernel("void(float32[:], float32[:])")
def fmath(out, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = math.exp(v) + math.tanh(v) + math.pow(abs(v), float32(1.5)) + math.floor(v)


@kernel("void(uint32[:], int32[:])")
def warp_ops(out, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        b = cuda.ballot_sync(0xffffffff, v > 0)
        s = cuda.shfl_down_sync(0xffffffff, v, 1)
        out[i] = b + uint32(s) + uint32(cuda.popc(b)) + uint32(cuda.clz(v))


@kernel("void(float32[:,:], float32[:,:], float32[:,:])")
def matmul(c, a, b):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = float32(0.0)
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


@kernel("void(int32[:], int32[:])")
def collatz(out, x):
    i = cuda.grid(1)
    if i < x.size:
        n = x[i]
        steps = 0
        while n > 1 and steps < 1000:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i] = steps


@kernel("void(int64[:], int64[:], int64[:])")
def int64_ops(out, a, b):
    i = cuda.grid(1)
    if i < out.size:
        x = a[i]
        y = b[i]
        q = x // y if y != 0 else int64(0)
        r = x % y if y != 0 else int64(0)
        out[i] = q * 3 + r - (x >> 3) + (x * y)


@kernel("void(float32[:], int32[:], int32[:], float32[:])")
def atomics(fstats, istats, slots, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.max(fstats, 0, v)
        cuda.atomic.min(fstats, 1, v)
        cuda.atomic.add(fstats, 2, float32(0.25))
        cuda.atomic.min(istats, 0, int32(v * float32(16.0)))
        cuda.atomic.max(istats, 1, int32(v * float32(16.0)))
        cuda.atomic.add(istats, 2, 1)
        # The first thread to arrive claims slot i % 8 (compare-and-swap).
        cuda.atomic.compare_and_swap(slots[i % 8:], -1, i % 8 + 100)


@kernel("void(int32[:], int32[:])")
def local_sort(out, x):
    # Each thread sorts its own 8 values in a local array (insertion sort).
    i = cuda.grid(1)
    if (i + 1) * 8 <= x.size:
        buf = cuda.local.array(8, int32)
        for k in range(8):
            buf[k] = x[i * 8 + k]
        for k in range(1, 8):
            v = buf[k]
            j = k - 1
            while j >= 0 and buf[j] > v:
                buf[j + 1] = buf[j]
                j -= 1
            buf[j + 1] = v
        for k in range(8):
            out[i * 8 + k] = buf[k]


@kernel("void(int32[:], int32[:])")
def block_vote(out, x):
    # Block-wide votes: how many threads see a positive value, whether all or
    # any do.
    i = cuda.grid(1)
    v = int32(1) if i < x.size and x[i] > 0 else int32(0)
    n = cuda.syncthreads_count(v)
    a = cuda.syncthreads_and(v)
    o = cuda.syncthreads_or(v)
    if cuda.threadIdx.x == 0:
        b = cuda.blockIdx.x
        out[3 * b] = n
        out[3 * b + 1] = a
        out[3 * b + 2] = o


@kernel("void(uint32[:], int32[:])")
def warp_match(out, x):
    # Lanes holding equal values (match.any) and whether all lanes agree
    # (match.all).
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        m = cuda.match_any_sync(0xffffffff, v)
        a, p = cuda.match_all_sync(0xffffffff, v % 2)
        out[i] = m ^ (a if p else uint32(0x80000000))


@kernel("void(float64[:], float64[:])")
def special(out, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.hypot(v, 3.0) + math.expm1(v * 0.1) + math.atan2(v, 1.5)
                  + math.log2(abs(v) + 1.0) + math.asinh(v))


@kernel("void(uint64[:], uint64[:])")
def bits64(out, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        r = cuda.brev(v) ^ uint64(cuda.popc(v))
        r += uint64(cuda.clz(v)) + uint64(cuda.ffs(v))
        out[i] = r + v // uint64(7) + v % uint64(1000003)


@kernel("void(uint32[:])")
def lanes(out):
    # Outside any branch: every launched thread is active.
    m = cuda.activemask()
    lt = cuda.lanemask_lt()
    lane = cuda.laneid
    i = cuda.grid(1)
    out[3 * i] = m
    out[3 * i + 1] = lt
    out[3 * i + 2] = lane


@kernel("void(float32[:], float32[:])")
def shared_reverse(out, x):
    # Dynamic shared memory: reverse each block's slice.
    buf = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    i = cuda.grid(1)
    buf[t] = x[i]
    cuda.syncthreads()
    out[i] = buf[n - 1 - t]


@kernel("void(float32[:], float32[:], uint32[:], float32[:])")
def last_block_sum(total, partial, counter, x):
    # Each block stores its partial sum; the last block to finish (found
    # with threadfence + an atomic ticket) adds the partial sums.
    buf = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    s = 64
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    is_last = cuda.shared.array(1, int32)
    if t == 0:
        partial[cuda.blockIdx.x] = buf[0]
        cuda.threadfence()
        ticket = cuda.atomic.inc(counter, 0, uint32(0xffffffff))
        is_last[0] = 1 if ticket == cuda.gridDim.x - 1 else 0
    cuda.syncthreads()
    if is_last[0] == 1 and t == 0:
        acc = float32(0.0)
        for b in range(cuda.gridDim.x):
            acc += partial[b]
        total[0] = acc


# Kernels the engine cannot run yet: written to PENDING_DIR.
PENDING = set()


# fmath2, complex_ops and small_ints are checked against the golden
# references of golden_numba.py (tests/corpus/golden/nb_*).
@kernel("void(float32[:,:], float32[:], float32[:])")
def fmath2(out, x, y):
    i = cuda.grid(1)
    if i >= x.size:
        return
    a = x[i]
    b = y[i]
    out[0, i] = math.erf(a)
    out[1, i] = math.erfc(a)
    out[2, i] = math.gamma(a)
    out[3, i] = math.lgamma(a)
    out[4, i] = math.atan2(a, b)
    out[5, i] = math.fmod(a, b)
    out[6, i] = math.copysign(a, b)
    out[7, i] = math.hypot(a, b)
    out[8, i] = math.expm1(a)
    out[9, i] = math.log1p(math.fabs(a))
    out[10, i] = math.ldexp(a, int32(b))
    out[11, i] = math.trunc(a)
    out[12, i] = math.asinh(a)
    out[13, i] = math.degrees(a)


@kernel("void(complex64[:], complex64[:], complex64[:], float32[:])")
def complex_ops(out, x, y, mag):
    i = cuda.grid(1)
    if i >= x.size:
        return
    z = x[i]
    w = y[i]
    out[4 * i] = z * w
    out[4 * i + 1] = z / w
    out[4 * i + 2] = cmath.exp(z)
    out[4 * i + 3] = cmath.sqrt(z)
    mag[i] = abs(z)


@kernel("void(int8[:], uint16[:], int8[:], uint16[:], int32[:])")
def small_ints(o8, o16, a, b, wide):
    i = cuda.grid(1)
    if i >= a.size:
        return
    x = a[i]
    y = b[i]
    o8[i] = x * int8(3) + int8(y)
    o16[i] = y * uint16(7) - uint16(x)
    wide[i] = int32(x) * int32(y) // 5 + (int32(x) % 7)


def main():
    outdir, pending_dir = sys.argv[1], sys.argv[2]
    for name, (f, sig) in KERNELS.items():
        ptx, _ = cuda.compile_ptx(f, sig, cc=(8, 0))
        d = pending_dir if name in PENDING else outdir
        with open(f"{d}/nb_{name}.ptx", "w") as fh:
            fh.write(ptx)
        print(name, len(ptx))


if __name__ == "__main__":
    main()
