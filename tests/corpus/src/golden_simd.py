"""SIMD-within-a-word intrinsics of nvcc/simd.ptx (source simd.cu): exact
results from the CUDA Math API's definitions of each intrinsic (per
halfword or per byte: wrap-around or saturating sums, absolute
differences, averages, min/max, comparisons giving all-ones or 1, sums of
absolute differences), computed on Python integers."""
import numpy as np
from golden_lib import *


def lanes(x, bits):
    n = 32 // bits
    return [(x >> (bits * i)) & ((1 << bits) - 1) for i in range(n)]


def sx(v, bits):
    return v - (1 << bits) if v >> (bits - 1) else v


def pack(vals, bits):
    return sum((v & ((1 << bits) - 1)) << (bits * i) for i, v in enumerate(vals))


def per(bits, f, signed=False):
    def g(x, y):
        xs, ys = lanes(x, bits), lanes(y, bits)
        if signed:
            xs, ys = [sx(v, bits) for v in xs], [sx(v, bits) for v in ys]
        return pack([f(a, b) for a, b in zip(xs, ys)], bits)
    return g


def clamp(v, bits, signed):
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return max(lo, min(hi, v))


def avg_round(a, b):
    # __vavg*: (a + b + 1) / 2 rounded up for unsigned; signed: round half away?
    return (a + b + 1) >> 1


def simd_intrinsics():
    rng = np.random.default_rng(51)
    n = 256
    sp = [0, 0xffffffff, 0x80008000, 0x7fff7fff, 0x80808080, 0x7f7f7f7f, 0x01ff01ff, 0x12345678, 0xff00ff00, 0x00010001]
    a = np.array(sp + list(rng.integers(0, 2**32, n - len(sp))), np.uint64).astype(np.uint32)
    b = np.array(list(reversed(sp)) + list(rng.integers(0, 2**32, n - len(sp))), np.uint64).astype(np.uint32)
    b[20:40] = a[20:40]  # equal pairs for the comparisons
    K = 28
    case = Case("simd_intrinsics", "nvcc/simd.ptx", "simd_intrinsics", (n // 64, 1, 1), (64, 1, 1),
                note="nvcc simd.cu: 28 SIMD-within-a-word intrinsics on 256 input pairs")
    case.buf(a)
    case.buf(b)
    k = case.buf(np.zeros(K * n, np.uint32))
    case.val("s32", n)
    F = [
        ("vadd2", per(16, lambda x, y: x + y)),
        ("vaddss2", per(16, lambda x, y: clamp(x + y, 16, True), True)),
        ("vaddus2", per(16, lambda x, y: clamp(x + y, 16, False))),
        ("vsub2", per(16, lambda x, y: x - y)),
        ("vabsdiffu2", per(16, lambda x, y: abs(x - y))),
        ("vabsdiffs2", per(16, lambda x, y: abs(x - y), True)),
        ("vavgu2", per(16, lambda x, y: (x + y + 1) >> 1)),
        ("vmaxs2", per(16, max, True)),
        ("vminu2", per(16, min)),
        ("vcmpgtu2", per(16, lambda x, y: 0xffff if x > y else 0)),
        ("vcmpeq2", per(16, lambda x, y: 0xffff if x == y else 0)),
        ("vsetges2", per(16, lambda x, y: int(x >= y), True)),
        ("vadd4", per(8, lambda x, y: x + y)),
        ("vaddss4", per(8, lambda x, y: clamp(x + y, 8, True), True)),
        ("vsubus4", per(8, lambda x, y: clamp(x - y, 8, False))),
        ("vabsdiffu4", per(8, lambda x, y: abs(x - y))),
        ("vabsdiffs4", per(8, lambda x, y: abs(x - y), True)),
        ("vavgs4", per(8, lambda x, y: (x + y + (1 if x + y >= 0 else 0)) >> 1 if x + y >= 0 else -((-(x + y) + 1) >> 1), True)),
        ("vmaxu4", per(8, max)),
        ("vmins4", per(8, min, True)),
        ("vcmpltu4", per(8, lambda x, y: 0xff if x < y else 0)),
        ("vcmpges4", per(8, lambda x, y: 0xff if x >= y else 0, True)),
        ("vsetne4", per(8, lambda x, y: int(x != y))),
        ("vsads4", lambda x, y: sum(abs(sx(p, 8) - sx(q, 8)) for p, q in zip(lanes(x, 8), lanes(y, 8)))),
        ("vabs4", lambda x, y: pack([abs(sx(p, 8)) for p in lanes(x, 8)], 8)),
        ("vneg2", lambda x, y: pack([-sx(p, 16) for p in lanes(x, 16)], 16)),
        ("vhaddu4", per(8, lambda x, y: (x + y) >> 1)),
        ("vsadu2", lambda x, y: sum(abs(p - q) for p, q in zip(lanes(x, 16), lanes(y, 16)))),
    ]
    assert len(F) == K
    want = []
    for name, f in F:
        want += [f(int(x), int(y)) & 0xffffffff for x, y in zip(a, b)]
    case.exact(k, want, ",".join(n_ for n_, _ in F))
    return case


CASES = [simd_intrinsics]
