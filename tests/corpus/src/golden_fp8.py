"""Triton's 8-bit float conversions (triton/tr_to_fp8_sm89.ptx and
tr_to_fp8_sm90.ptx, kernel to_fp8 of tr_kernels.py): float32 to
float8e4nv (e4m3) and float8e5 (e5m2) and back. The references round with
exact rationals: at sm_90 the PTX converts f32 straight to e4m3/e5m2
(cvt.rn.satfinite: nearest even, beyond the largest finite value, or
infinite, to that value; NaN to NaN); at sm_89 it first converts to f16
toward zero (cvt.rz.f16.f32), then to e4m3 (cvt.rn.satfinite), and builds
e5m2 from the f16 bits in integer arithmetic (the upper byte of
(h & 0xfffe) + 0x80)."""
import math
from fractions import Fraction
import numpy as np
from golden_lib import *

E4M3_MAX, E5M2_MAX = 448.0, 57344.0


def f8(x, mant, emin, mx, nan):
    """x rounded to nearest even into an 8-bit float, satfinite: the bits."""
    if math.isnan(x):
        return nan
    sign = 0x80 if math.copysign(1, x) < 0 else 0
    if x == 0:
        return sign
    a = abs(x)
    if a > mx:
        a = mx
    else:
        a = round_to(Fraction(a), "rn", mant, emin, mx)
    # encode a (exact in the format)
    if a == 0:
        return sign
    e = math.frexp(a)[1] - 1
    bias = 1 - emin
    if e < emin:  # subnormal
        m = int(Fraction(a) / Fraction(2) ** (emin - mant))
        return sign | m
    m = int((Fraction(a) / Fraction(2) ** e - 1) * 2**mant)
    return sign | (e + bias) << mant | m


def e4m3(x):
    return f8(x, 3, -6, E4M3_MAX, 0x7f)


def e5m2(x):
    return f8(x, 2, -14, E5M2_MAX, 0x7f)


def dec(b, mant, emin, e4):
    s = -1.0 if b & 0x80 else 1.0
    e = (b & 0x7f) >> mant
    m = b & ((1 << mant) - 1)
    if e4 and b & 0x7f == 0x7f:
        return math.nan
    if not e4 and e == 31:
        return math.nan if m else s * math.inf
    if e == 0:
        return s * m * 2.0 ** (emin - mant)
    return s * (1 + m / 2**mant) * 2.0 ** (e - (1 - emin))


def rz_f16_bits(x):
    """cvt.rz.f16.f32: the f16 bits of x rounded toward zero."""
    if math.isnan(x):
        return 0x7fff
    if math.isinf(x):
        return 0x7c00 | (0x8000 if x < 0 else 0)
    v = round_to(Fraction(x), "rz", 10, -14, 65504.0) if x != 0 else x
    h = np.array([v], np.float16).view(np.uint16)[0]
    return int(h) | (0x8000 if math.copysign(1, x) < 0 else 0)


def to_fp8(cc):
    def make():
        rng = np.random.default_rng(81 + cc)
        n = 512
        sp = [0.0, -0.0, 1.0, -2.0, 448.0, 449.0, 480.0, 500.0, -1e6, math.inf, -math.inf, math.nan, 1.0625, 1.1875,
              2.0**-9, 2.0**-10, 3 * 2.0**-10, 57344.0, 61440.0, 70000.0, 1e-8, 0.3, -0.7, 240.0, 232.0, 1.125 + 2.0**-12]
        x = np.array(sp + list(rng.standard_normal(n - len(sp)) * np.exp(rng.uniform(-8, 8, n - len(sp)))), np.float32)
        case = Case(f"tr_to_fp8_sm{cc}", f"triton/tr_to_fp8_sm{cc}.ptx", "to_fp8", (n // 256, 1, 1), (128, 1, 1),
                    note=f"Triton to_fp8 at sm_{cc}: float32 to float8e4nv and float8e5 and back")
        case.buf(x)
        k4 = case.buf(np.zeros(n, np.uint8))
        k5 = case.buf(np.zeros(n, np.uint8))
        kb = case.buf(np.full(2 * n, np.nan, np.float32))
        case.val("s32", n)
        case.val("u64", 0)
        X = [float(v) for v in x]
        if cc >= 90:
            w4 = [e4m3(v) for v in X]
            w5 = [e5m2(v) for v in X]
        else:
            hs = [rz_f16_bits(v) for v in X]
            w4 = [e4m3(float(np.array([h], np.uint16).view(np.float16)[0])) for h in hs]
            w5 = [(((h & 0xfffe) + 0x80) >> 8) & 0xff for h in hs]
        case.exact(k4, w4, "e4m3")
        case.exact(k5, w5, "e5m2")
        back = [dec(b, 3, -6, True) for b in w4] + [dec(b, 2, -14, False) for b in w5]
        case.approx(kb, back, [0.0] * len(back), "e4m3_to_f32,e5m2_to_f32")
        return case
    return make


CASES = [to_fp8(89), to_fp8(90)]


def matmul_fp8():
    rng = np.random.default_rng(111)
    # e4m3 multiples of 1/4 up to 2, e5m2 values with two mantissa bits
    a = rng.integers(-8, 9, (32, 32)) / 4
    b = rng.choice([-2.0, -1.5, -1.25, -1.0, -0.5, 0.0, 0.5, 1.0, 1.25, 1.5, 2.0], (32, 32))
    case = Case("tr_matmul_fp8_sm89", "triton/tr_matmul_fp8_sm89.ptx", "matmul_small", (1, 1, 1), (128, 1, 1), shared=4224,
                note="Triton matmul_small on float8e4nv x float8e5 at sm_89: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32")
    case.buf(np.array([e4m3(v) for v in a.reshape(-1)], np.uint8))
    case.buf(np.array([e5m2(v) for v in b.reshape(-1)], np.uint8))
    k = case.buf(np.full(32 * 32, np.nan, np.float32))
    case.val("u64", 0)
    case.approx(k, (a @ b).reshape(-1), np.zeros(1024), "c")
    return case


CASES = [to_fp8(89), to_fp8(90), matmul_fp8]
