"""Numba kernels of numba/nb_fmath2.ptx, nb_complex_ops.ptx and
nb_small_ints.ptx (source nb_kernels.py): float32 math-module functions
(libdevice), complex64 arithmetic and cmath, and int8/uint16 arrays with
Python's integer semantics. Numba passes each array as meminfo, parent,
nitems, itemsize, data, shape[ndim], strides[ndim]."""
import cmath
import math
import numpy as np
from golden_lib import *


def nb_array(case, arr, shape=None, ty=None):
    """Appends a C-ordered Numba array argument; returns the data's index."""
    shape = shape or arr.shape
    strides = []
    acc = arr.itemsize
    for d in reversed(shape):
        strides.insert(0, acc)
        acc *= d
    case.val("u64", 0)
    case.val("u64", 0)
    case.val("s64", int(np.prod(shape)))
    case.val("s64", arr.itemsize)
    flat = arr.reshape(-1)
    if flat.dtype == np.complex64:  # stored as its float32 parts
        flat = flat.view(np.float32)
    k = case.buf(flat, ty)
    for s in shape:
        case.val("s64", s)
    for s in strides:
        case.val("s64", s)
    return k


def fmath2():
    rng = np.random.default_rng(61)
    n = 192
    sp = [0.0, -0.0, 0.5, -0.5, 1.0, 2.0, 3.5, -2.5, 10.0, 1e-3, -7.25, 20.0]
    x = np.array(sp + list(rng.uniform(-6, 6, n - len(sp))), np.float32)
    y = np.array(list(rng.uniform(-4, 4, n - 2)) + [0.0, -0.0], np.float32)
    R = 14
    case = Case("nb_fmath2", "numba/nb_fmath2.ptx", "*", ((n + 63) // 64, 1, 1), (64, 1, 1),
                note="Numba fmath2: float32 erf, erfc, gamma, lgamma, atan2, fmod, copysign, hypot, expm1, log1p, ldexp, trunc, asinh, degrees")
    k = nb_array(case, np.full((R, n), np.nan, np.float32))
    nb_array(case, x)
    nb_array(case, y)
    X = [float(v) for v in x]
    Y = [float(v) for v in y]
    W, T = [], []

    def row(f, ulps):
        for a, b in zip(X, Y):
            try:
                v = f(a, b)
            except (ValueError, OverflowError, ZeroDivisionError):
                v = None
            if v is None:
                W.append(0.0); T.append(SKIP)
            elif ulps == 0:
                W.append(f32(v)); T.append(0.0)
            else:
                if math.isfinite(v) and abs(v) > F32_MAX:
                    v = math.copysign(math.inf, v)
                W.append(v); T.append(0.0 if not math.isfinite(v) else ulps * ulp32(abs(v) * (1 + 2**-20)))

    def gamma(a, b):
        if a <= 0 and a == math.floor(a):
            return None
        return math.gamma(a)

    def lgamma(a, b):
        if a <= 0 and a == math.floor(a):
            return math.inf
        return math.lgamma(a) if not (-10.001 < a < -2.264) else None

    def fmod(a, b):
        return math.nan if b == 0 else math.fmod(a, b)

    row(lambda a, b: math.erf(a), 2)
    row(lambda a, b: math.erfc(a), 4)
    row(gamma, 5)
    row(lgamma, 6)
    row(lambda a, b: math.atan2(a, b), 3)
    row(fmod, 0)
    row(lambda a, b: math.copysign(a, b), 0)
    row(lambda a, b: math.hypot(a, b), 3)
    # expm1f: 1 ulp on the GPU, whose ex2.approx the algorithm was tuned
    # to; the PTX ISA bounds ex2.approx only to a relative 2^-22.5, and an
    # ex2.approx within that bound can move the result one ulp more
    row(lambda a, b: math.expm1(a), 2)
    row(lambda a, b: math.log1p(abs(a)), 1)
    row(lambda a, b: math.ldexp(a, int(b)), 0)
    # numba types math.trunc of a float32 as float32 (truncf): the sign of zero is kept
    row(lambda a, b: math.copysign(float(math.trunc(a)), a), 0)
    row(lambda a, b: math.asinh(a), 3)
    # degrees: a * (180 / pi) in float32 arithmetic, within 1 ulp of the exact product
    row(lambda a, b: math.degrees(a), 1)
    case.approx(k, W, T, "erf,erfc,gamma,lgamma,atan2,fmod,copysign,hypot,expm1,log1p,ldexp,trunc,asinh,degrees")
    return case


def complex_ops():
    rng = np.random.default_rng(62)
    n = 128
    x = (rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n)).astype(np.complex64)
    y = (rng.uniform(-4, 4, n) + 1j * rng.uniform(-4, 4, n)).astype(np.complex64)
    x[0] = 0
    x[1] = -2.0  # sqrt of a negative real
    x[2] = 1j
    case = Case("nb_complex_ops", "numba/nb_complex_ops.ptx", "*", (n // 64, 1, 1), (64, 1, 1),
                note="Numba complex_ops: complex64 multiply, divide, cmath.exp, cmath.sqrt, abs")
    k_out = nb_array(case, np.full(4 * n, np.nan, np.complex64))
    nb_array(case, x)
    nb_array(case, y)
    k_mag = nb_array(case, np.full(n, np.nan, np.float32))
    W, T = [], []
    for i in range(n):
        z, w = complex(x[i]), complex(y[i])
        # each part within 8 ulps of the result's magnitude (float32
        # arithmetic, possibly contracted to fma; libdevice exp/sin/cos/sqrt)
        for v in (z * w, z / w, cmath.exp(z), cmath.sqrt(z)):
            t = 8 * ulp32(abs(v))
            W += [v.real, v.imag]
            T += [t, t]
    case.approx(k_out, W, T, "parts")
    mags = [abs(complex(v)) for v in x]
    case.approx(k_mag, mags, [2 * ulp32(m) if m else 0.0 for m in mags], "abs")
    return case


def small_ints():
    rng = np.random.default_rng(63)
    n = 256
    a = rng.integers(-128, 128, n).astype(np.int8)
    b = rng.integers(0, 65536, n).astype(np.uint16)
    a[:4] = [-128, 127, 0, -1]
    b[:4] = [65535, 0, 32768, 1]
    case = Case("nb_small_ints", "numba/nb_small_ints.ptx", "*", (n // 64, 1, 1), (64, 1, 1),
                note="Numba small_ints: int8 and uint16 arrays, wrap-around stores, Python floor division and modulo")
    k8 = nb_array(case, np.zeros(n, np.int8))
    k16 = nb_array(case, np.zeros(n, np.uint16))
    nb_array(case, a)
    nb_array(case, b)
    kw = nb_array(case, np.zeros(n, np.int32))
    A = [int(v) for v in a]
    B = [int(v) for v in b]
    s8 = lambda v: ((v + 128) % 256) - 128
    case.exact(k8, [s8(x * 3 + s8(y)) for x, y in zip(A, B)], "o8")
    case.exact(k16, [(y * 7 - (x % 65536)) % 65536 for x, y in zip(A, B)], "o16")
    case.exact(kw, [(x * y) // 5 + x % 7 for x, y in zip(A, B)], "wide")
    return case


CASES = [fmath2, complex_ops, small_ints]
