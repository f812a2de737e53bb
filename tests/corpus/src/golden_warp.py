"""Warp-level kernels of nvcc/warp2.ptx and atomics of nvcc/atom2.ptx:
exact results from the CUDA C++ Programming Guide's definitions of the
warp shuffle, reduce and match functions and of cooperative_groups
thread_block_tile (tiles of consecutive thread ranks), and from the
atomic operations' definitions, with inputs whose sums are exact in any
order (multiples of 1/4, small integers)."""
import math
import numpy as np
from golden_lib import *


def warp_reduce():
    rng = np.random.default_rng(31)
    n = 128
    x = (rng.integers(-400, 400, n) / 4).astype(np.float32)
    v = rng.integers(-1000, 1000, n).astype(np.int32)
    v[5] = 0
    v[40:48] = 7  # a tile of 16 with repeated values
    case = Case("warp_reduce", "nvcc/warp2.ptx", "warp_reduce", (2, 1, 1), (64, 1, 1),
                note="nvcc warp2.cu: __shfl_xor_sync butterfly, __reduce_*_sync, __match_any_sync, width-limited shuffles, cooperative_groups tiles")
    case.buf(x)
    case.buf(v)
    k_f = case.buf(np.full(n, np.nan, np.float32))
    k_o = case.buf(np.zeros(16 * n, np.int32))
    case.val("s32", n)
    V = [int(a) for a in v]
    fs = []
    rows = [[0] * n for _ in range(16)]
    for i in range(n):
        w0 = i - i % 32
        warp = V[w0:w0 + 32]
        lane = i % 32
        fs.append(float(sum(float(t) for t in x[w0:w0 + 32])))
        u = [a & 0xffffffff for a in warp]
        rows[0][i] = sum(warp)
        rows[1][i] = min(warp)
        rows[2][i] = max(u)
        o = a_ = 0
        a_ = 0xffffffff
        xr = 0
        for t in u:
            o |= t
            a_ &= t
            xr ^= t
        rows[3][i], rows[4][i], rows[5][i] = o, a_, xr
        rows[6][i] = sum(1 << k for k in range(32) if warp[k] & 3 == V[i] & 3)
        rows[7][i] = warp[(lane - lane % 8) + ((lane + 3) & 7) % 8]
        rows[8][i] = warp[lane - 2] if lane % 16 >= 2 else V[i]
        rows[9][i] = warp[lane + 3] if lane % 16 + 3 < 16 else V[i]
        t0 = i - i % 16
        tile = V[t0:t0 + 16]
        rows[10][i] = sum(tile)
        rows[11][i] = max(tile)
        r4 = i % 4
        tid = i % 64
        rows[12][i] = (V[i + 1] if r4 + 1 < 4 else V[i]) + r4 * 1000 + (tid // 4) * 100000
        rows[13][i] = sum(V[t0:i + 1])
        rows[14][i] = sum(1 << k for k in range(16) if tile[k] > 0)
        rows[15][i] = int(any(t > 100 for t in tile)) + 2 * int(all(t > -100 for t in tile))
    case.approx(k_f, fs, [0.0] * n, "xor_butterfly_sum")
    names = "reduce_add,reduce_min,reduce_max_u,reduce_or,reduce_and,reduce_xor,match_any,shfl_w8,shfl_up_w16,shfl_down_w16,tile16_plus,tile16_greater,tile4_shfl_down,tile16_inclusive_scan,tile16_ballot,tile16_any_all"
    case.exact(k_o, [r for row in rows for r in row], names)
    return case


def atomics64():
    rng = np.random.default_rng(41)
    n = 256
    vals = (rng.integers(-400, 400, n) / 4).astype(np.float64)
    ivals = rng.integers(-2**62, 2**62, n).astype(np.int64)
    ivals[3] = -1
    ivals[9] = 2**63 - 1
    case = Case("atomics64", "nvcc/atom2.ptx", "atomics64", (4, 1, 1), (64, 1, 1),
                note="nvcc atom2.cu: atomics on double, 64-bit integers, wrapping inc/dec, scopes, __half2/__nv_bfloat162 atomicAdd, a 64-bit CAS loop")
    case.buf(vals)
    case.buf(ivals)
    k_dsum = case.buf(np.zeros(3, np.float64))
    k_dmax = case.buf(np.full(1, -1e300, np.float64))
    u0 = np.array([5, 2**64 - 1, 0, 2**64 - 1, 0, 0x0123456789abcdef, 1000, 0], np.uint64)
    k_u = case.buf(u0)
    k_s = case.buf(np.array([2**63 - 1, -2**63], np.int64))
    k_w = case.buf(np.array([0, 0, 7, 3, 0, 0, 0, 0], np.uint32))
    k_h = case.buf(np.zeros(2, np.float16))
    k_b = case.buf(np.zeros(2, np.uint16), "bf16")
    k_fx = case.buf(np.array([0.0, 1.0], np.float32))
    case.val("s32", n)
    V = [float(v) for v in vals]
    I = [int(v) for v in ivals]
    U = [v & (2**64 - 1) for v in I]
    M = 2**64 - 1
    case.approx(k_dsum, [sum(V), 0.5 * n, 2 * sum(V)], [0.0] * 3, "atomicAdd,atomicAdd_block,atomicAdd_system")
    case.approx(k_dmax, [max(V)], [0.0], "cas_max")
    u = [int(v) for v in u0]
    u[0] = (u[0] + sum(x & 0xffff for x in U)) & M
    u[1] = min([u[1]] + U)
    u[2] = max([u[2]] + U)
    for x in U:
        u[3] &= x | 0x8000000000000001
    for i in range(n):
        u[4] |= 1 << (i & 63)
    for x in U:
        u[5] ^= x
    u[6] = u[6] + sum(i + 1 for i in range(n))
    case.exact(k_u, u, "u64")
    case.exact(k_s, [min([2**63 - 1] + I), max([-2**63] + I)], "s64")
    w = [0, 0, 7, 3]
    for _ in range(n):
        w[0] = 0 if w[0] >= 17 else w[0] + 1
        w[1] = 13 if (w[1] == 0 or w[1] > 13) else w[1] - 1
        w[2] = 0 if w[2] >= 1000 else w[2] + 1
        w[3] = 5 if (w[3] == 0 or w[3] > 5) else w[3] - 1
    # atomicExch slots: the last writer wins, which depends on the order; each
    # slot k holds some i with i & 3 == k - 4 (checked loosely: not compared)
    case.exact(k_w, w + [0, 0, 0, 0], "wrap", mask=[1, 1, 1, 1, 0, 0, 0, 0])
    case.approx(k_h, [0.25 * n, float(sum(i & 3 for i in range(n)))], [0.0, 0.0], "half2_add")
    case.approx(k_b, [1.0 * n, -0.5 * n], [0.0, 0.0], "bf162_add")
    case.approx(k_fx, [2.5, 1.0 + 0.25 * n], [0.0, 0.0], "exch,add")
    return case


CASES = [warp_reduce, atomics64]
