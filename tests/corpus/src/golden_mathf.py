"""Single-precision math library kernels of nvcc/mathf.ptx (source mathf.cu):
references from Python's math module in double precision, tolerances from
the CUDA C++ Programming Guide's Mathematical Functions appendix (maximum
ulp error of each function, full-range); exactly rounded operations
(fmodf, rintf, __fadd_rz, ...) compared bit for bit."""
import math
from fractions import Fraction
import numpy as np
from golden_lib import *

M = math


def safe(f):
    def g(*a):
        try:
            return f(*a)
        except (ValueError, OverflowError, ZeroDivisionError):
            return None
    return g


def tolerances(want, ulps, ulpf=ulp32, rnd=f32):
    """want (double or None), ulps (None: skip, 0: exact) -> (want, tol) arrays."""
    w, t = [], []
    for v in want:
        if v is None or ulps is None:
            w.append(0.0); t.append(SKIP)
        elif ulps == 0:
            w.append(rnd(v)); t.append(0.0)
        elif ulpf is ulp32 and math.isfinite(v) and abs(v) > F32_MAX:
            # past the largest float: the result overflows to infinity (left
            # out right at the boundary, where the error bound decides)
            big = abs(v) > F32_MAX * (1 + ulps * 2**-22)
            w.append(math.copysign(math.inf, v) if big else 0.0); t.append(0.0 if big else SKIP)
        else:
            w.append(v)
            t.append(0.0 if not math.isfinite(v) else ulps * ulpf(abs(v) * (1 + 2**-20)))
    return w, t


def unary():
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.5, 0.25, 1e-3, -3.0, -2.0, 10.0, 30.0, -30.0, 88.0, 100.0, -100.0,
               1e-30, -1e-30, 1e-40, 3e38, -3e38, math.inf, -math.inf, math.nan, 0.75, -0.75, 4.0, -4.5, 1e6, 123456.5, 8388609.0]
    vals = special + list(rng.uniform(-10, 10, 160)) + list(rng.uniform(-1, 1, 40)) + list(np.exp(rng.uniform(-20, 20, 21)) * rng.choice([-1, 1], 21))
    x = np.array(vals, dtype=np.float32)
    n = x.size
    U = 48
    out = np.full(U * n, np.nan, np.float32)
    case = Case("mathf_unary", "nvcc/mathf.ptx", "mathf_unary", ((n + 63) // 64, 1, 1), (64, 1, 1),
                note="nvcc mathf.cu: 48 single-precision functions of 256 inputs")
    case.buf(x)
    k_out = case.buf(np.full(U * n, np.nan, np.float32))
    case.val("s32", n)
    X = [float(v) for v in x]
    def ref(f, dom=lambda v: True):
        f = safe(f)
        return [ (f(v) if dom(v) else None) for v in X]
    def lg(v):
        if v <= 0 and v == math.floor(v): return math.inf
        if math.isinf(v): return math.inf
        return math.lgamma(v)
    def tg(v):
        if v == 0: return math.copysign(math.inf, v)
        if v < 0 and v == math.floor(v): return math.nan
        if v == -math.inf: return math.nan
        if v > 171: return math.inf
        try: return math.gamma(v)
        except OverflowError: return math.inf
    def sinpi2(v):
        if math.isinf(v) or math.isnan(v): return math.nan
        r = math.fmod(v, 2.0)  # exact
        if r == 0: return math.copysign(0.0, v)
        if r in (1.0, -1.0): return math.copysign(0.0, v) if False else (0.0 if v > 0 else -0.0) * 1.0
        if r in (0.5, -1.5): return 1.0
        if r in (-0.5, 1.5): return -1.0
        return math.sin(math.pi * r)
    def cospi(v):
        if math.isinf(v) or math.isnan(v): return math.nan
        r = abs(math.fmod(v, 2.0))
        if r in (0.5, 1.5): return 0.0
        if r == 0: return 1.0
        if r == 1: return -1.0
        return math.cos(math.pi * r)
    def exp10(v):
        try: return 10.0 ** v
        except OverflowError: return math.inf
    def expo(f):
        def g(v):
            try: return f(v)
            except OverflowError: return math.inf
        return g
    def log_(f):
        def g(v):
            if v == 0: return -math.inf
            if math.isinf(v): return math.inf
            return f(v)
        return g
    def rint(v):
        if not math.isfinite(v): return v
        r = round(v)  # banker's
        return math.copysign(float(r), v)
    def roundaway(v):
        if not math.isfinite(v): return v
        r = math.floor(abs(v) + 0.5)
        return math.copysign(r, v)
    def rsq(v):
        if v == 0: return math.inf
        if math.isinf(v): return 0.0
        return 1 / math.sqrt(v)
    def satur(v):
        if math.isnan(v): return 0.0
        return min(max(v, 0.0), 1.0) + 0.0
    def erfinv(y):
        if math.isnan(y): return y
        if y == 0: return y
        if y >= 1: return math.inf if y == 1 else math.nan
        if y <= -1: return -math.inf if y == -1 else math.nan
        # Newton on erf in double
        z = 0.0
        lo, hi = -10.0, 10.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if math.erf(mid) < y: lo = mid
            else: hi = mid
        return (lo + hi) / 2
    def logb(v):
        if v == 0: return -math.inf
        if math.isinf(v): return math.inf
        if math.isnan(v): return v
        return float(math.frexp(v)[1] - 1)
    def ilogb(v):
        if v == 0: return float(-2147483648)
        if math.isnan(v): return float(-2147483648)
        if math.isinf(v): return float(2147483647)
        return float(math.frexp(v)[1] - 1)
    def f2i_rn(v):
        if math.isnan(v): return 0.0
        r = rint(v)
        return float(min(max(r, -2**31), 2**31 - 1)) + 0.0
    def fdiv1(v): return math.copysign(math.inf, v) if v == 0 else 1 / v
    sincos_ok = lambda v: abs(v) < 1e5
    fin = lambda v: math.isfinite(v)
    M = math
    refs = [
     ("erff", ref(M.erf), 2), ("erfcf", ref(M.erfc), 4),
     ("lgammaf", ref(lg, lambda v: not (-10.001 < v < -2.264)), 6),
     ("tgammaf", ref(tg), 5), ("cbrtf", ref(lambda v: M.copysign(abs(v) ** (1/3), v) if fin(v) else v), 1),
     ("expm1f", ref(expo(M.expm1)), 1), ("log1pf", ref(lambda v: M.log1p(abs(v)) if fin(v) else abs(v)), 1),
     ("sinpif", ref(sinpi2), 1), ("cospif", ref(cospi), 1),
     ("asinf", ref(lambda v: M.asin(f32(v / f32(1 + abs(v))))), 2), ("acosf", ref(lambda v: M.acos(f32(v / f32(1 + abs(v))))), 2),
     ("atanf", ref(M.atan), 2), ("sinhf", ref(lambda v: M.copysign(M.inf, v) if abs(v) > 100 else M.sinh(v)), 3), ("coshf", ref(expo(M.cosh)), 2), ("tanhf", ref(M.tanh), 2),
     ("asinhf", ref(M.asinh), 3), ("acoshf", ref(lambda v: M.acosh(f32(abs(v) + 1))), 4),
     ("atanhf", ref(lambda v: M.atanh(f32(v / f32(1 + abs(v)))) ), 3),
     ("exp2f", ref(expo(lambda v: 2.0 ** v)), 2), ("exp10f", ref(exp10), 2),
     ("log2f", ref(log_(lambda v: M.log2(abs(v)))), 1), ("logf", ref(log_(lambda v: M.log(abs(v)))), 1), ("log10f", ref(log_(lambda v: M.log10(abs(v)))), 2),
     ("rintf", ref(rint), 0), ("truncf", ref(lambda v: M.copysign(float(M.trunc(v)), v) if fin(v) else v), 0),
     ("roundf", ref(roundaway), 0), ("floorf", ref(lambda v: M.copysign(float(M.floor(v)), v) if fin(v) else v), 0),
     ("ceilf", ref(lambda v: M.copysign(float(M.ceil(v)), v) if fin(v) else v), 0),
     ("rsqrtf", ref(lambda v: rsq(abs(v))), 2), ("sqrtf", ref(lambda v: M.sqrt(abs(v))), 0), ("__saturatef", ref(satur), 0),
     ("__expf", ref(expo(M.exp), lambda v: abs(v) < 80), None), ("__logf", ref(log_(lambda v: M.log(abs(v)))), None),
     ("__sinf", ref(M.sin, lambda v: abs(v) <= M.pi), None), ("__cosf", ref(M.cos, lambda v: abs(v) <= M.pi), None),
     ("sinf", ref(M.sin, fin), 2), ("cosf", ref(M.cos, fin), 2), ("tanf", ref(M.tan, fin), 4), ("expf", ref(expo(M.exp)), 2),
     ("erfinvf", ref(lambda v: erfinv(f32(v / f32(1 + abs(v))))), 2), ("normcdff", ref(lambda v: 0.5 * M.erfc(-v / M.sqrt(2))), 5),
     ("logbf", ref(logb), 0), ("ilogbf", ref(ilogb), 0), ("__frcp_rn", ref(fdiv1), 0), ("__fsqrt_rn", ref(lambda v: M.sqrt(abs(v))), 0),
     ("__float2int_rn", ref(f2i_rn), 0), ("lrintf", ref(lambda v: rint(v) + 0.0 if fin(v) and abs(v) < 2**62 else None), 0),
     ("lroundf", ref(lambda v: roundaway(v) + 0.0 if fin(v) and abs(v) < 2**62 else None), 0),
    ]
    W, T = [], []
    for name, want, ulps in refs:
        if ulps is None:
            w, t = tolerances(want, 1)
            for i in range(n):
                if want[i] is None or not math.isfinite(want[i]):
                    continue
                if name == "__expf":
                    t[i] = (2 + M.floor(abs(1.173 * X[i]))) * ulp32(want[i])
                elif name == "__logf":
                    t[i] = 2**-21.41 if 0.5 <= abs(X[i]) <= 2 else 3 * ulp32(want[i])
                else:
                    t[i] = 2**-21.41
        else:
            w, t = tolerances(want, ulps)
        W += w; T += t
    case.approx(k_out, W, T, ",".join(r[0] for r in refs))
    return case


def binary():
    rng = np.random.default_rng(7)
    pairs = [(5.5, 2.0), (-5.5, 2.0), (7.0, -3.0), (1.0, 0.0), (0.0, 1.0), (-0.0, 2.0), (math.inf, 2.0), (2.0, math.inf), (math.nan, 1.0),
             (1.0, math.nan), (3.0, 2.0), (-3.0, 2.0), (2.5, 1.0), (1e30, 3.0), (1e-40, 1.5), (123456.0, 0.1), (1.0, 1.0), (0.1, 1e-3),
             (2.0, 10.0), (0.5, -3.0), (1.5, 126.0), (1.5, -130.0), (3e38, 2.0), (-0.0, -0.0), (1.0, -0.0), (6.25, 2.5), (-6.25, 2.5)]
    for _ in range(200):
        pairs.append((float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20))))
    for _ in range(29):
        pairs.append((float(np.exp(rng.uniform(-30, 30))), float(rng.uniform(-3, 3))))
    x = np.array([p[0] for p in pairs], np.float32); y = np.array([p[1] for p in pairs], np.float32)
    n = x.size; U = 30
    out = np.full(U * n, np.nan, np.float32); iout = np.full(2 * n, -7, np.int32)
    case = Case("mathf_binary", "nvcc/mathf.ptx", "mathf_binary", ((n + 63) // 64, 1, 1), (64, 1, 1),
                note="nvcc mathf.cu: 30 single-precision functions of two arguments")
    case.buf(x); case.buf(y)
    k_out = case.buf(np.full(U * n, np.nan, np.float32))
    k_iout = case.buf(np.full(2 * n, -7, np.int32))
    case.val("s32", n)
    X = [float(v) for v in x]; Y = [float(v) for v in y]
    fin = math.isfinite
    def ref(f, dom=lambda a, b: True):
        f = safe(f)
        return [(f(a, b) if dom(a, b) else None) for a, b in zip(X, Y)]
    def fmod(a, b):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0: return math.nan
        if math.isinf(b): return a
        return math.fmod(a, b)
    def remainder(a, b):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0: return math.nan
        if math.isinf(b): return a
        return math.remainder(a, b)
    def powr(a, b):
        a = abs(a)
        try: return a ** b
        except ZeroDivisionError: return math.inf
        except OverflowError: return math.inf
    def nextafter(a, b): return float(np.nextafter(np.float32(a), np.float32(b)))
    def fdim(a, b):
        if math.isnan(a) or math.isnan(b): return math.nan
        return a - b if a > b else 0.0
    def fmax(a, b):
        if math.isnan(a): return b
        if math.isnan(b): return a
        if a == b == 0: return 0.0 if (math.copysign(1, a) > 0 or math.copysign(1, b) > 0) else -0.0
        return max(a, b)
    def fmin(a, b):
        if math.isnan(a): return b
        if math.isnan(b): return a
        if a == b == 0: return -0.0 if (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else 0.0
        return min(a, b)
    def exact(op, mode):
        def g(a, b):
            if not (fin(a) and fin(b)): return None
            if op == "add": q = Fraction(a) + Fraction(b)
            elif op == "mul": q = Fraction(a) * Fraction(b)
            elif op == "div":
                if b == 0: return None
                q = Fraction(a) / Fraction(b)
            elif op == "fma1": q = Fraction(a) * Fraction(b) + 1
            elif op == "fma": q = Fraction(a) * Fraction(b) + Fraction(a)
            r = round_f32(q, mode)
            if r == 0 and q == 0:
                return None  # signed zero rules: checked elsewhere
            return r
        return g
    def ldexp_(a, b):
        if not fin(a): return a
        r = M.ldexp(a, int(b))
        return float(np.float32(r)) if abs(r) >= 2**-149 or r == 0 else None
    def frexp_m(a, b):
        if not fin(a): return a
        return M.frexp(a)[0]
    def frexp_e(a): return M.frexp(a)[1] if fin(a) else 0
    def sincos_dom(a, b): return fin(a) and abs(a) < 1e5
    def sinpi(v):
        if not fin(v): return math.nan
        r = math.fmod(v, 2.0)
        if r == 0 or abs(r) == 1: return math.copysign(0.0, v)
        if r in (0.5, -1.5): return 1.0
        if r in (-0.5, 1.5): return -1.0
        return math.sin(math.pi * r)
    def cospi(v):
        if not fin(v): return math.nan
        r = abs(math.fmod(v, 2.0))
        if r in (0.5, 1.5): return 0.0
        if r == 0: return 1.0
        if r == 1: return -1.0
        return math.cos(math.pi * r)
    def remquo_q(a, b):
        if not (fin(a) and fin(b)) or b == 0: return None
        q = Fraction(a) / Fraction(b)
        fl = math.floor(q); rem = q - fl
        nq = fl + (1 if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2) else 0)
        # sign of quotient, low 3 bits of |q|
        s = -1 if nq < 0 else 1
        v = s * (abs(nq) % 8)
        return v & 7
    def modf_f(a, b):
        if math.isinf(a): return math.copysign(0.0, a)
        return M.modf(a)[0] if fin(a) else a
    def modf_i(a, b): return M.modf(a)[1] if fin(a) else a
    def scalbn(a, b): return ldexp_(a, b)
    def hyp(a, b):
        if math.isinf(a) or math.isinf(b): return math.inf
        return M.hypot(a, b)
    def rhyp(a, b):
        h = hyp(a, b)
        if h == 0: return math.inf
        return 1 / h
    def fdividef_dom(a, b): return fin(a) and fin(b) and 2**-126 <= abs(b) <= 2**126
    def pw(a, b):
        return powr(a, b)
    refs = [
     ("fmodf", ref(fmod), 0), ("remainderf", ref(remainder), 0), ("powf", ref(powr), 4), ("atan2f", ref(M.atan2), 3),
     ("hypotf", ref(hyp), 3), ("fdimf", ref(fdim), 0), ("fmaxf", ref(fmax), 0), ("fminf", ref(fmin), 0), ("copysignf", ref(M.copysign), 0),
     ("nextafterf", ref(nextafter), 0), ("__fdividef", ref(lambda a, b: a / b, fdividef_dom), 2), ("div", ref(exact("div", "rn")), 0),
     ("fmaf", ref(exact("fma", "rn")), 0), ("ldexpf", ref(ldexp_), 0), ("frexpf", ref(frexp_m), 0),
     ("sincosf.s", ref(lambda a, b: M.sin(a), sincos_dom), 2), ("sincosf.c", ref(lambda a, b: M.cos(a), sincos_dom), 2),
     ("sincospif.s", ref(lambda a, b: sinpi(a)), 1), ("sincospif.c", ref(lambda a, b: cospi(a)), 1),
     ("remquof", ref(remainder), 0), ("modff.frac", ref(modf_f), 0), ("modff.int", ref(modf_i), 0), ("scalbnf", ref(scalbn), 0),
     ("__fadd_rz", ref(exact("add", "rz")), 0), ("__fmul_ru", ref(exact("mul", "ru")), 0), ("__fdiv_rd", ref(exact("div", "rd")), 0),
     ("__fmaf_rz", ref(exact("fma1", "rz")), 0), ("__powf", ref(pw, lambda a, b: fin(a) and fin(b) and 1e-3 < abs(a) < 1e3 and abs(b) < 3), None),
     ("rhypotf", ref(rhyp), 2), ("norm3df", ref(lambda a, b: M.sqrt(a * a + b * b + 2.25) if fin(a) and fin(b) else (math.inf if (math.isinf(a) or math.isinf(b)) else math.nan)), 2),
    ]
    W, T = [], []
    for name, want, ulps in refs:
        if ulps is None:
            # __powf = ex2.approx(y * lg2.approx(x)): relative error bounded by
            # (|y log2 x| + 1) 2^-20 (lg2.approx: 2^-22 absolute, ex2.approx 2 ulp)
            w, t = tolerances(want, 1)
            for i in range(n):
                if want[i] is not None and math.isfinite(want[i]):
                    t[i] = abs(want[i]) * (abs(Y[i] * M.log2(abs(X[i]))) + 1) * 2**-20
        else:
            w, t = tolerances(want, ulps)
        W += w; T += t
    case.approx(k_out, W, T, ",".join(r[0] for r in refs))
    ie = [frexp_e(a) if fin(a) else None for a in X]
    rq = ref(remquo_q)
    # elements the reference leaves open keep the fill value only if the kernel
    # writes it; those are not compared
    case.exact(k_iout, ie + [q if q is not None else 0 for q in rq], "frexpf.exp,remquof.q")
    return case


CASES = [unary, binary]
