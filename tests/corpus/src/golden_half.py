"""Half-precision kernels of nvcc/half2.ptx (source half2.cu, cuda_fp16.h
and cuda_bf16.h): `half_ops` (__half2) and `bf16_ops` (__nv_bfloat162).
Exactly rounded operations (add, sub, mul, fma, conversions with a named
rounding, floor/rint/trunc/ceil, min/max, comparisons) are computed with
exact rationals rounded once to binary16 / bfloat16; the functions that
cuda_fp16.h builds on approximate instructions (h2sqrt, h2exp, h2log,
h2rcp, h2sin, h2cos, the bf16 h2div) get a tolerance in units of the
format's last place, stated at each row."""
import math
from fractions import Fraction
import numpy as np
from golden_lib import *

F16_MAX = 65504.0
BF16_MAX = 3.3895313892515355e38


def rnd16(q, mode="rn"):
    return round_to(q, mode, 10, -14, F16_MAX)


def rndbf(q, mode="rn"):
    return round_to(q, mode, 7, -126, BF16_MAX)


def ulpbf(x):
    x = abs(x)
    if x < 2.0**-126 or not math.isfinite(x):
        return 2.0**-133
    return 2.0 ** (math.frexp(x)[1] - 1 - 7)


def exact_op(f, rnd):
    """f on exact rationals for finite operands, IEEE float semantics
    (infinities, NaN) otherwise, rounded once with `rnd`."""
    def g(*a):
        if all(math.isfinite(v) for v in a):
            q = f(*[Fraction(v) for v in a])
            if q == 0:
                # an exact zero: the same operation on the floats gives its
                # IEEE sign (x + -x = +0, products by the signs); the
                # operands' products are exact in double
                return float(f(*a))
            return rnd(q)
        with np.errstate(all="ignore"):
            return float(f(*[np.float64(v) for v in a]))
    return g


def fmax(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0:
        return a if math.copysign(1, a) > 0 else b
    return max(a, b)


def fmin(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0:
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


def fmax_nan(a, b):
    return math.nan if math.isnan(a) or math.isnan(b) else fmax(a, b)


def sat(v):
    if math.isnan(v) or v <= 0:
        return 0.0
    return min(v, 1.0)


def f32div(a, b):
    """a / b in f32 (div.rn.f32), a and b exact in f32."""
    if a == 0 and b != 0 and not math.isnan(b):
        return math.copysign(0.0, a) * math.copysign(1.0, b)
    if b == 0 or not (math.isfinite(a) and math.isfinite(b)):
        with np.errstate(all="ignore"):
            return float(np.float32(a) / np.float32(b))
    return round_f32(Fraction(a) / Fraction(b))


def rint(v):
    if not math.isfinite(v):
        return v
    return math.copysign(float(round(v)), v)


def special_halves(rng, n, bf16):
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.5, math.inf, -math.inf, math.nan, 1.5, -0.75]
    vals += [2.0**-24 if not bf16 else 2.0**-133, 60000.0 if not bf16 else BF16_MAX, 1.0 / 3, 7.0]
    out = list(vals)
    while len(out) < n:
        out.append(float(rng.integers(-8 * 64, 8 * 64)) / 64)
    arr = np.array(out[:n])
    if bf16:
        return np.array([rndbf(Fraction(v)) if math.isfinite(v) and v != 0 else v for v in arr])
    return arr.astype(np.float16).astype(np.float64)


def bf16_bits(v):
    """bfloat16 bits of a value exact in bfloat16."""
    b = np.array([v], np.float32).view(np.uint32)[0]
    assert b & 0xffff == 0 or math.isnan(v), v
    return int(b >> 16) if not math.isnan(v) else 0x7fc0


def bf16_val(bits):
    return float(np.array([bits << 16], np.uint32).view(np.float32)[0])


def half_ops():
    rng = np.random.default_rng(21)
    n = 128
    xs = special_halves(rng, 2 * n, False)
    ys = special_halves(rng, 2 * n, False)
    rng.shuffle(ys)
    x16 = xs.astype(np.float16)
    y16 = ys.astype(np.float16)
    R = 28
    case = Case("half_ops", "nvcc/half2.ptx", "half_ops", (n // 64, 1, 1), (64, 1, 1),
                note="nvcc half2.cu: __half2 arithmetic, conversions, math and comparisons on 128 pairs")
    case.buf(x16)
    case.buf(y16)
    k_out = case.buf(np.full(R * 2 * n, np.nan, np.float16))
    k_flags = case.buf(np.zeros(n, np.uint32))
    case.val("s32", n)
    X = [float(v) for v in xs]
    Y = [float(v) for v in ys]
    add = exact_op(lambda a, b: a + b, rnd16)
    sub = exact_op(lambda a, b: a - b, rnd16)
    mul = exact_op(lambda a, b: a * b, rnd16)
    fma = exact_op(lambda a, b, c: a * b + c, rnd16)
    div = exact_op(lambda a, b: a / b if b != 0 else None, rnd16)
    W = [[0.0] * (2 * n) for _ in range(R)]
    T = [[0.0] * (2 * n) for _ in range(R)]

    def ulp_tol(k, j, v, u, absolute=0.0):
        if v is not None and math.isfinite(v) and abs(v) > F16_MAX * (1 + 2.0**-11):
            v = math.copysign(math.inf, v)
        W[k][j] = v
        T[k][j] = SKIP if v is None else (0.0 if not math.isfinite(v) else u * ulp16(v) + absolute)

    def hdiv(a, b):
        if a == 0 and b != 0 and not math.isnan(b):
            return math.copysign(0.0, a) * math.copysign(1.0, b)
        if b == 0 or not (math.isfinite(a) and math.isfinite(b)):
            with np.errstate(all="ignore"):
                return float(np.float64(a) / np.float64(b))
        return rnd16(Fraction(a) / Fraction(b))

    for i in range(n):
        lo, hi = 2 * i, 2 * i + 1
        for j in (lo, hi):
            a, b = X[j], Y[j]
            W[0][j] = add(a, b)
            W[1][j] = sub(a, b)
            W[2][j] = mul(a, b)
            W[3][j] = fma(a, b, a)
            W[4][j] = hdiv(a, b)
            W[5][j] = fmax(a, b)
            W[6][j] = fmin(a, b)
            W[7][j] = -a
            W[8][j] = abs(a)
            W[9][j] = sat(add(a, b))
            W[10][j] = sat(fma(a, b, b))
            W[11][j] = fmax_nan(a, b)
            ulp_tol(17, j, math.sqrt(abs(a)) if not math.isnan(a) else math.nan, 1)
            e = rnd16(Fraction(a) * Fraction(1, 8)) if math.isfinite(a) else a * 0.125
            ulp_tol(18, j, math.exp(e) if e < 12 else (math.inf if e >= 12 else math.nan), 2)
            la = abs(a)
            ulp_tol(19, j, (math.log(la) if la > 0 and math.isfinite(la) else (-math.inf if la == 0 else la)), 2, 2.0**-13)
            ulp_tol(20, j, (1 / a if a != 0 else math.copysign(math.inf, a)) if not math.isnan(a) else math.nan, 1)
            W[21][j] = math.copysign(float(math.floor(a)), a) if math.isfinite(a) else a
            W[22][j] = rint(a)
            W[23][j] = math.copysign(float(math.trunc(a)), a) if math.isfinite(a) else a
            W[24][j] = math.copysign(float(math.ceil(a)), a) if math.isfinite(a) else a
            # sin.approx/cos.approx.f32 (abs error 2^-20.5) then rounded to f16
            ulp_tol(25, j, math.sin(a) if math.isfinite(a) and abs(a) < 100 else None, 1, 2.0**-20)
            ulp_tol(26, j, math.cos(a) if math.isfinite(a) and abs(a) < 100 else None, 1, 2.0**-20)
        W[12][lo] = add(X[lo], Y[hi])
        W[12][hi] = mul(X[hi], Y[lo])
        W[13][lo] = hdiv(X[lo], Y[lo])
        W[13][hi] = sub(X[hi], Y[hi])
        # float math then one conversion to f16 (rn)
        p = exact_op(lambda a: a * 3, round_f32)(X[lo])
        W[14][lo] = exact_op(lambda a: a, rnd16)(p) if math.isfinite(p) else p
        s_ = exact_op(lambda a: a + Fraction(np.float32(0.1).item()), round_f32)(Y[hi])
        W[14][hi] = exact_op(lambda a: a, rnd16)(s_) if math.isfinite(s_) else s_
        q1 = f32div(X[lo], 3.0)
        q2 = f32div(X[hi], 3.0)
        W[15][lo] = rnd16(Fraction(q1), "rz") if math.isfinite(q1) and q1 != 0 else q1
        W[15][hi] = rnd16(Fraction(q2), "ru") if math.isfinite(q2) and q2 != 0 else q2
        W[16][lo] = rnd16(Fraction(i * 37 - 1000)) if i * 37 != 1000 else 0.0
        W[16][hi] = rnd16(Fraction(i * 1001)) if i else 0.0
        W[27][lo], W[27][hi] = X[hi], X[lo]
    want, tol = [], []
    approx_rows = {17, 18, 19, 20, 25, 26}
    for k in range(R):
        for j in range(2 * n):
            v = W[k][j]
            want.append(0.0 if v is None else v)
            if k in approx_rows:
                tol.append(T[k][j])
            else:
                tol.append(SKIP if v is None else 0.0)
    names = ("hadd2,hsub2,hmul2,hfma2,h2div,hmax2,hmin2,hneg2,habs2,hadd2_sat,hfma2_sat,hmax2_nan,hadd_hmul,"
             "hdiv_hsub,floats2half2_rn,float2half_rz_ru,int2half_rn,h2sqrt,h2exp,h2log,h2rcp,h2floor,h2rint,"
             "h2trunc,h2ceil,h2sin,h2cos,lowhigh2highlow")
    case.approx(k_out, want, tol, names)
    flags = []
    for i in range(n):
        lo, hi = 2 * i, 2 * i + 1
        xl, xh, yl, yh = X[lo], X[hi], Y[lo], Y[hi]
        f = 0
        f |= int(xl == yl and xh == yh) << 0
        f |= int(xl < yl and xh < yh) << 1
        geu = lambda a, b: math.isnan(a) or math.isnan(b) or a >= b
        f |= int(geu(xl, yl) and geu(xh, yh)) << 2
        f |= int(math.isnan(xl)) << 3
        f |= int(math.isinf(xh)) << 4
        f |= int(xl > yh) << 5
        f |= int(xl != yl and not math.isnan(xl) and not math.isnan(yl)) << 6
        f |= int(xl < yl) << 7
        f |= int(xh < yh) << 8
        f |= int(xh <= yh) << 9
        if math.isnan(xl):
            f = None
        else:
            # __half2int_rn: nearest even, saturating; inf saturates
            r = rint(xl) if math.isfinite(xl) else math.copysign(2.0**31, xl)
            r = int(max(min(r, 2**31 - 1), -2**31))
            f |= (r << 12) & 0xffffffff
        flags.append(f)
    case.exact(k_flags, flags, "flags")
    return case


def bf16_ops():
    rng = np.random.default_rng(22)
    n = 128
    xs = special_halves(rng, 2 * n, True)
    ys = special_halves(rng, 2 * n, True)
    rng.shuffle(ys)
    xb = np.array([bf16_bits(v) for v in xs], np.uint16)
    yb = np.array([bf16_bits(v) for v in ys], np.uint16)
    X = [bf16_val(int(b)) for b in xb]
    Y = [bf16_val(int(b)) for b in yb]
    R = 15
    case = Case("bf16_ops", "nvcc/half2.ptx", "bf16_ops", (n // 64, 1, 1), (64, 1, 1),
                note="nvcc half2.cu: __nv_bfloat162 arithmetic, conversions and math on 128 pairs")
    case.buf(xb, "bf16")
    case.buf(yb, "bf16")
    k_out = case.buf(np.full(R * 2 * n, 0x7fff, np.uint16), "bf16")
    k_f = case.buf(np.full(2 * n, np.nan, np.float32))
    case.val("s32", n)
    add = exact_op(lambda a, b: a + b, rndbf)
    sub = exact_op(lambda a, b: a - b, rndbf)
    mul = exact_op(lambda a, b: a * b, rndbf)
    fma = exact_op(lambda a, b, c: a * b + c, rndbf)
    W = [[None] * (2 * n) for _ in range(R)]
    for i in range(n):
        lo, hi = 2 * i, 2 * i + 1
        for j in (lo, hi):
            a, b = X[j], Y[j]
            W[0][j] = add(a, b)
            W[1][j] = sub(a, b)
            W[2][j] = mul(a, b)
            W[3][j] = fma(a, b, a)
            W[4][j] = fmax(a, b)
            W[5][j] = fmin(a, b)
            W[6][j] = -a
            W[7][j] = abs(a)
            W[13][j] = math.copysign(float(math.floor(a)), a) if math.isfinite(a) else a
            W[14][j] = rint(a)
        p = exact_op(lambda a: a * 3, round_f32)(X[lo])
        W[9][lo] = rndbf(Fraction(p)) if math.isfinite(p) and p != 0 else p
        s_ = exact_op(lambda a: a + Fraction(np.float32(0.1).item()), round_f32)(Y[hi])
        W[9][hi] = rndbf(Fraction(s_)) if math.isfinite(s_) and s_ != 0 else s_
        q1, q2 = f32div(X[lo], 3.0), f32div(X[hi], 3.0)
        W[10][lo] = rndbf(Fraction(q1), "rz") if math.isfinite(q1) and q1 != 0 else q1
        W[10][hi] = rndbf(Fraction(q2), "ru") if math.isfinite(q2) and q2 != 0 else q2
    # exact rows as bfloat16 bits; approximate rows (h2div, h2sqrt, h2exp) as values
    want, tol = [], []
    for k in range(R):
        for j in range(2 * n):
            a, b = X[j], Y[j]
            if k == 8:
                # __h2div: f32 division (approximate reciprocal refined) rounded to bf16: 1 ulp
                v = (a / b if b != 0 else (math.copysign(math.inf, a) * math.copysign(1, b) if a != 0 and not math.isnan(a) else math.nan)) if math.isfinite(a) and math.isfinite(b) else None
                if v is not None and math.isfinite(v) and abs(v) > BF16_MAX * (1 + 2.0**-8):
                    v = math.copysign(math.inf, v)
                want.append(0.0 if v is None else v)
                tol.append(SKIP if v is None else (0.0 if not math.isfinite(v) else ulpbf(v)))
            elif k == 11:
                v = math.sqrt(abs(a)) if not math.isnan(a) else math.nan
                want.append(v)
                tol.append(0.0 if not math.isfinite(v) else ulpbf(v))
            elif k == 12:
                e = rndbf(Fraction(a) * Fraction(1, 8)) if math.isfinite(a) and a != 0 else a * 0.125
                v = math.exp(e) if e < 80 else (math.inf if e >= 80 else math.nan)
                if math.isfinite(v) and v > BF16_MAX * (1 + 2.0**-8):
                    v = math.inf
                want.append(v)
                tol.append(0.0 if not math.isfinite(v) else 2 * ulpbf(v))
            else:
                v = W[k][j]
                want.append(0.0 if v is None else v)
                tol.append(SKIP if v is None else 0.0)
    names = "hadd2,hsub2,hmul2,hfma2,hmax2,hmin2,hneg2,habs2,h2div,floats2bfloat162_rn,float2bfloat16_rz_ru,h2sqrt,h2exp,h2floor,h2rint"
    case.approx(k_out, want, tol, names)
    fw, ft = [], []
    for i in range(n):
        s = add(X[2 * i], Y[2 * i + 1])
        d = rndbf(Fraction(i, 7)) if i else 0.0
        v = exact_op(lambda a, b: a + b, round_f32)(s, d) if math.isfinite(s) else s
        fw.append(v)
        ft.append(0.0)
    for i in range(n):
        xl, yh = X[2 * i], Y[2 * i + 1]
        eq2 = X[2 * i] == Y[2 * i] and X[2 * i + 1] == Y[2 * i + 1]
        fw.append(float(xl < yh) + 2.0 * float(eq2))
        ft.append(0.0)
    case.approx(k_f, fw, ft, "hadd_plus_double2bf16,hlt_hbeq2")
    return case


CASES = [half_ops, bf16_ops]
