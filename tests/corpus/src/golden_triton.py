"""Triton kernels of triton/tr_math_ops.ptx, tr_scans.ptx and
tr_softmax_f16.ptx (source tr_kernels.py): exactly rounded operations
(sqrt_rn, div_rn, fma, floor, ceil, clamp, where, integer division with C
semantics, umulhi) compared exactly; the approximate instructions Triton
emits (ex2.approx, lg2.approx, rsqrt.approx, div.full) within the relative
or absolute errors the PTX ISA manual gives for them; scans on inputs whose
sums are exact in any order. Triton appends one .u64 parameter (its global
scratch buffer), passed as 0."""
import math
from fractions import Fraction
import numpy as np
from golden_lib import *


def math_ops():
    rng = np.random.default_rng(71)
    n = 512
    x = rng.uniform(-20, 20, n).astype(np.float32)
    y = rng.uniform(-6, 6, n).astype(np.float32)
    x[:8] = [0.5, -0.5, 1.0, 2.5, -2.5, 7.0, -7.0, 0.25]
    y[:8] = [0.25, 3.0, -1.0, 1.0, 2.0, -3.0, 2.0, 0.1]
    y[np.abs(y) < 1e-3] = 1.5
    u = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    s = u.view(np.int32)
    bad = ((s >> 3) + 7) == 0
    u[bad] = 12345
    case = Case("tr_math_ops", "triton/tr_math_ops.ptx", "math_ops", (2, 1, 1), (128, 1, 1),
                note="Triton math_ops: sqrt_rn, div_rn, fma, rsqrt, exp2, log2, cos, sin, floor, ceil, clamp, where, %, exp, log, /, umulhi, integer // and %")
    case.buf(x)
    case.buf(y)
    case.buf(u)
    k = case.buf(np.full(16 * n, np.nan, np.float32))
    ki = case.buf(np.zeros(4 * n, np.uint32))
    case.val("s32", n)
    case.val("u64", 0)
    X = [float(v) for v in x]
    Y = [float(v) for v in y]
    W, T = [], []

    def row(f, tol):
        for a, b in zip(X, Y):
            v = f(a, b)
            W.append(v)
            T.append(tol(a, b, v))

    exact = lambda a, b, v: 0.0
    rel = lambda r: (lambda a, b, v: abs(v) * r)
    row(lambda a, b: f32(math.sqrt(abs(a))), exact)
    row(lambda a, b: round_f32(Fraction(a) / Fraction(b)), exact)
    row(lambda a, b: round_f32(Fraction(a) * Fraction(b) + Fraction(a)), exact)
    # rsqrt.approx.f32: maximum relative error 2^-22.9 (PTX ISA)
    row(lambda a, b: 1 / math.sqrt(abs(a)), rel(2.0**-22.9))
    # ex2.approx.ftz.f32: maximum relative error 2^-22.5 (plus the reference's rounding)
    row(lambda a, b: 2.0**a, lambda a, b, v: abs(v) * 2.0**-22)
    # lg2.approx.f32: maximum absolute error 2^-22.6 for x in (0.5, 2), else relative 2^-22.4
    row(lambda a, b: math.log2(abs(a)), lambda a, b, v: 2.0**-22 if 0.5 < abs(a) < 2 else abs(v) * 2.0**-22)
    # libdevice cosf/sinf: 2 ulp (CUDA C++ Programming Guide)
    row(lambda a, b: math.cos(a), lambda a, b, v: 2 * ulp32(v) + 2.0**-24)
    row(lambda a, b: math.sin(a), lambda a, b, v: 2 * ulp32(v) + 2.0**-24)
    row(lambda a, b: math.copysign(float(math.floor(a)), a), exact)
    row(lambda a, b: math.copysign(float(math.ceil(a)), a), exact)
    row(lambda a, b: min(max(a, -1.0), 1.0), exact)
    row(lambda a, b: a if a > b else b, exact)
    # float % in Triton: the remainder with the sign of the dividend (fmod),
    # computed through a rounded quotient: within an ulp of |x|
    row(lambda a, b: math.fmod(a, b), lambda a, b, v: 2 * ulp32(a))
    # tl.exp = ex2.approx(x * log2(e)): relative 2^-22 plus |x log2 e| 2^-24 from the product's rounding
    row(lambda a, b: math.exp(a), lambda a, b, v: abs(v) * (2.0**-22 + abs(a * 1.4426950408889634) * 2.0**-23))
    row(lambda a, b: math.log(abs(a)), lambda a, b, v: 2.0**-22 if 0.5 < abs(a) < 2 else abs(v) * 2.0**-21)
    # div.full.f32: maximum 2 ulp
    row(lambda a, b: a / b, lambda a, b, v: 2 * ulp32(v))
    case.approx(k, W, T, "sqrt_rn,div_rn,fma,rsqrt,exp2,log2,cos,sin,floor,ceil,clamp,where,fmod,exp,log,div_full")
    U = [int(v) for v in u]
    S = [int(v) for v in s]
    tq = lambda a, b: int(a / b) if a * b >= 0 else -(abs(a) // abs(b))
    iw = []
    iw += [(v * (v + 12345 & 0xffffffff)) >> 32 for v in U]
    ts = [(v >> 3) + 7 for v in S]
    iw += [(abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1) for a, b in zip(S, ts)]
    iw += [(abs(a) % abs(b)) * (1 if a >= 0 else -1) for a, b in zip(S, ts)]
    iw += [int(a * 1000.0 if abs(a * 1000) < 2**31 else 0) for a in [float(np.float32(v) * np.float32(1000.0)) / 1000.0 for v in x]]
    case.exact(ki, iw, "umulhi,idiv,irem,f2i_rz")
    return case


def scans():
    rng = np.random.default_rng(72)
    R, B = 3, 128
    x = (rng.integers(-400, 400, R * B) / 4).astype(np.float32)
    v = rng.integers(-1000, 1000, R * B).astype(np.int32)
    x[B + 5] = x[B + 9] = -200.0  # a tie for argmin: the first index
    case = Case("tr_scans", "triton/tr_scans.ptx", "scans", (R, 1, 1), (128, 1, 1), shared=1024,
                note="Triton scans: cumsum (float, reverse int), cumprod, flip, argmin, max, sum")
    case.buf(x)
    case.buf(v)
    k = case.buf(np.full(R * B, np.nan, np.float32))
    ki = case.buf(np.zeros(4 * R * B, np.int32))
    case.val("u64", 0)
    W, IW = [], []
    for r in range(R):
        xs = [float(t) for t in x[r * B:(r + 1) * B]]
        vs = [int(t) for t in v[r * B:(r + 1) * B]]
        acc = 0.0
        for t in xs:
            acc += t
            W.append(acc)
        p = 1
        for t in vs:
            rem = abs(t) % 3 * (1 if t >= 0 else -1)
            p = (p * (rem + 1)) & 0xffffffff
            IW.append(p)
        IW += [sum(vs[i:]) for i in range(B)]
        IW += list(reversed(vs))
        amin = xs.index(min(xs))
        IW += [amin, max(vs)] + [sum(vs)] * (B - 2)
    case.approx(k, W, [0.0] * len(W), "cumsum_f32")
    case.exact(ki, IW, "scan_rows")
    return case


def softmax_f16():
    rng = np.random.default_rng(73)
    R, C = 4, 100
    x = rng.uniform(-6, 6, R * C).astype(np.float16)
    case = Case("tr_softmax_f16", "triton/tr_softmax_f16.ptx", "softmax_f16", (R, 1, 1), (128, 1, 1), shared=16,
                note="Triton softmax_f16: fp16 rows, f32 max/exp/sum, fp16 result")
    k = case.buf(np.full(R * C, np.nan, np.float16))
    case.buf(x)
    case.val("s32", C)
    case.val("u64", 0)
    W, T = [], []
    for r in range(R):
        row = [float(t) for t in x[r * C:(r + 1) * C]]
        m = max(row)
        e = [math.exp(t - m) for t in row]
        s = sum(e)
        for t in e:
            W.append(t / s)
            # the f32 computation is far more precise than f16: one f16 ulp
            T.append(ulp16(t / s))
    case.approx(k, W, T, "softmax")
    return case


CASES = [math_ops, scans, softmax_f16]
