"""Double-precision math library kernel of nvcc/mathd.ptx (source mathd.cu):
references from Python's math module (the C library's double functions,
themselves within about an ulp, so each tolerance is the CUDA C++
Programming Guide's maximum ulp error for the function plus one ulp for the
reference) and exact rationals for the exactly rounded operations (fmod,
remainder, rint, sqrt, division, fma, the directed-rounding intrinsics)."""
import math
from fractions import Fraction
import numpy as np
from golden_lib import *

M = math
F64_MAX = 1.7976931348623157e308


def mathd():
    rng = np.random.default_rng(91)
    n = 256
    sp = [0.5, -0.5, 1.5, 2.5, -2.5, -3.0, 10.0, 1e-300, 0.0, -0.0, 1.0, -1.0, 100.0, -100.0, 700.0, -745.0,
          math.inf, -math.inf, math.nan, 1e300, 0.1, 3.0, 1e-5, -7.5]
    x = np.array(sp + list(rng.uniform(-10, 10, n - len(sp))), np.float64)
    y = np.array(list(rng.uniform(-5, 5, n - 6)) + [0.0, -0.0, 2.0, math.inf, math.nan, 0.5], np.float64)
    R = 48
    case = Case("mathd", "nvcc/mathd.ptx", "mathd", (n // 64, 1, 1), (64, 1, 1),
                note="nvcc mathd.cu: 48 double-precision functions of 256 inputs")
    case.buf(x)
    case.buf(y)
    k = case.buf(np.full(R * n, np.nan, np.float64))
    ki = case.buf(np.zeros(n, np.int32))
    case.val("s32", n)
    X = [float(v) for v in x]
    Y = [float(v) for v in y]
    fin = math.isfinite
    W, T = [], []

    def row(f, ulps, slack=lambda a, b, v: 0.0):
        for a, b in zip(X, Y):
            try:
                v = f(a, b)
            except (ValueError, OverflowError, ZeroDivisionError):
                v = None
            if v is None:
                W.append(0.0); T.append(SKIP)
            elif ulps == 0:
                W.append(v); T.append(0.0)
            else:
                W.append(v); T.append(0.0 if not fin(v) else (ulps + 1) * ulp64(abs(v) * (1 + 2**-40)) + slack(a, b, v))

    def exact(op, mode="rn"):
        def g(a, b):
            if not (fin(a) and fin(b)):
                return None
            q = op(Fraction(a), Fraction(b))
            if q is None:
                return None
            if q == 0:
                return None  # the sign of an exact zero: left out
            return round_f64(q, mode)
        return g

    def guard(f, dom):
        return lambda a, b: f(a, b) if dom(a, b) else None

    finite = lambda a, b: fin(a) and fin(b)
    fa = lambda a, b: fin(a)

    def lg(a, b):
        if not fin(a) or (a <= 0 and a == math.floor(a)) or -23.0001 < a < -2.2637:
            return None
        return math.lgamma(a)

    def tg(a, b):
        if not fin(a) or (a <= 0 and a == math.floor(a)) or a > 171 or a < -170:
            return None
        return math.gamma(a)

    def rint(a, b):
        return math.copysign(float(round(a)), a) if fin(a) else None

    def roundaway(a, b):
        return math.copysign(math.floor(abs(a) + 0.5), a) if fin(a) else None

    def sinpi(a, b):
        if not fin(a):
            return None
        r = math.fmod(a, 2.0)
        if r == 0 or abs(r) == 1:
            return math.copysign(0.0, a)
        if r in (0.5, -1.5):
            return 1.0
        if r in (-0.5, 1.5):
            return -1.0
        return math.sin(math.pi * r)

    def erfinv(y):
        if not fin(y) or abs(y) >= 1:
            return None
        if abs(y) < 1e-8:
            return y * math.sqrt(math.pi) / 2 * (1 + math.pi * y * y / 12)
        lo, hi = -10.0, 10.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if math.erf(mid) < y:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    def ldexp_(a, b):
        if not fin(a) or not fin(b):
            return None
        r = math.ldexp(a, int(b))
        return r if r == 0 or abs(r) >= 2.0**-1022 else None

    div1 = lambda a, b: None if b == 0 else Fraction(1) / b
    row(guard(lambda a, b: abs(a) ** b if abs(a) > 0 else None, finite), 2)
    row(guard(math.atan2, finite), 2)
    row(guard(lambda a, b: math.asin(a / (1 + abs(a))), fa), 2)
    row(guard(lambda a, b: math.acos(a / (1 + abs(a))), fa), 2)
    row(guard(lambda a, b: math.acosh(abs(a) + 1), fa), 2)
    row(guard(lambda a, b: math.asinh(a), fa), 2)
    row(guard(lambda a, b: math.atanh(a / (1 + abs(a))), lambda a, b: fin(a) and abs(a) < 1e15), 2)
    row(guard(lambda a, b: math.erf(a), fa), 2)
    row(guard(lambda a, b: math.erfc(a), fa), 5)
    # log(|gamma(x)|) from math.gamma: near the zeros at 1 and 2 the
    # reference's own error is absolute (about an ulp of 1)
    row(lambda a, b: None if lg(a, b) is None or not 0 < a < 170 else math.log(abs(math.gamma(a))), 4, lambda a, b, v: 4 * 2.0**-52)
    row(tg, 10)
    row(guard(lambda a, b: math.cbrt(a), fa), 1)
    row(guard(lambda a, b: math.exp(a) if a < 709 else None, fa), 1)
    row(guard(lambda a, b: math.log(abs(a)) if a else None, fa), 1)
    row(guard(lambda a, b: math.sin(a), lambda a, b: fin(a) and abs(a) < 1e6), 2)
    row(guard(lambda a, b: math.cos(a), lambda a, b: fin(a) and abs(a) < 1e6), 2)
    row(guard(lambda a, b: math.tan(a), lambda a, b: fin(a) and abs(a) < 1e6), 2)
    row(exact(lambda a, b: None if b == 0 else a - b * int(a / b)), 0)
    row(exact(lambda a, b: None if b == 0 else a - b * round(a / b)), 0)
    row(guard(math.hypot, finite), 2)
    row(rint, 0)
    row(roundaway, 0)
    row(lambda a, b: math.copysign(float(math.trunc(a)), a) if fin(a) else None, 0)
    row(lambda a, b: math.frexp(a)[0] if fin(a) else None, 0)
    row(ldexp_, 0)
    row(guard(lambda a, b: 1 / math.sqrt(abs(a)) if a else None, fa), 1)
    # sin(pi r) in double: the product pi r carries up to an ulp of error
    row(sinpi, 2, lambda a, b, v: 2 * ulp64(math.pi * math.fmod(a, 2.0)) if fin(a) else 0.0)
    row(lambda a, b: float(np.nextafter(a, b)) if finite(a, b) else None, 0)
    row(guard(lambda a, b: math.expm1(a) if a < 709 else None, fa), 1)
    row(guard(lambda a, b: math.log1p(abs(a)), fa), 1)
    row(guard(lambda a, b: math.sqrt(abs(a)), fa), 0)
    row(exact(lambda a, b: None if b == 0 else a / b), 0)
    row(exact(lambda a, b: a * b + Fraction(1, 4)), 0)
    row(exact(lambda a, b: a + b, "rz"), 0)
    row(exact(lambda a, b: a * b, "ru"), 0)
    row(exact(lambda a, b: None if b == 0 else a / b, "rd"), 0)
    row(lambda a, b: round_f64(div1(Fraction(b), 0) if False else Fraction(1) / Fraction(b)) if fin(b) and b != 0 else None, 0)
    row(lambda a, b: None if not fin(a) or a == 0 else _sqrt_ru(abs(a)), 0)
    row(lambda a, b: round_to(Fraction(a), "rz", 23, -126, 3.4028234663852886e38) if fin(a) and a != 0 else None, 0)
    row(lambda a, b: float(round(a)) if fin(a) and abs(a) < 2**62 else None, 0)
    row(lambda a, b: float(math.trunc(a)) if fin(a) and abs(a) < 2**31 else None, 0)
    row(guard(lambda a, b: math.log2(abs(a)) if a else None, fa), 1)
    row(guard(lambda a, b: 2.0**a if a < 1023 else None, fa), 1)
    row(guard(lambda a, b: math.cosh(a) if abs(a) < 709 else None, fa), 1)
    row(guard(lambda a, b: math.tanh(a), fa), 1)
    row(guard(lambda a, b: math.atan(a), fa), 2)
    # the bisection finds x with erf(x) = y up to math.erf's own ulp, which
    # moves x by ulp(y) / erf'(x)
    row(lambda a, b: erfinv(a / (1 + abs(a))) if fin(a) else None, 5,
        lambda a, b, v: 2 * ulp64(a / (1 + abs(a))) / (2 / math.sqrt(math.pi) * math.exp(-v * v)) if fin(v) else 0.0)
    # erfc(-x / sqrt 2): the rounded argument moves the result by about
    # x^2 ulps of it in the lower tail
    row(guard(lambda a, b: 0.5 * math.erfc(-a / math.sqrt(2)), fa), 5, lambda a, b, v: abs(v) * (a * a + 2) * 2.0**-52)
    names = ("pow,atan2,asin,acos,acosh,asinh,atanh,erf,erfc,lgamma,tgamma,cbrt,exp,log,sin,cos,tan,fmod,remainder,"
             "hypot,rint,round,trunc,frexp,ldexp,rsqrt,sinpi,nextafter,expm1,log1p,sqrt,div,fma,dadd_rz,dmul_ru,"
             "ddiv_rd,drcp_rn,dsqrt_ru,double2float_rz,double2ll_rn,double2int_rz,log2,exp2,cosh,tanh,atan,erfinv,normcdf")
    assert len(names.split(",")) == R and len(W) == R * n
    case.approx(k, W, T, names)
    case.exact(ki, [math.frexp(a)[1] if fin(a) else None for a in X], "frexp.exp")
    return case


def _sqrt_ru(a):
    """sqrt(a) rounded up, for a finite positive double."""
    q = Fraction(a)
    r = Fraction(math.sqrt(a))
    # step to the smallest double whose square is >= a
    while r * r < q:
        r = Fraction(float(np.nextafter(float(r), math.inf)))
    while True:
        p = Fraction(float(np.nextafter(float(r), 0.0)))
        if p * p >= q:
            r = p
        else:
            break
    return float(r)


CASES = [mathd]
