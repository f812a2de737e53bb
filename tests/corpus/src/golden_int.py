"""Integer intrinsics of nvcc/intrin.ptx (source intrin.cu): exact results
computed with Python integers from the definitions in the CUDA C++ Math API
(__umulhi, __sad, __byte_perm, __funnelshift_*, __dp4a, ...) and the PTX
ISA (mul.hi, sad, prmt, shf, dp4a, dp2a, fns, brev)."""
import numpy as np
from golden_lib import *


def int_intrinsics():
    rng = np.random.default_rng(9)
    n = 256
    sp32 = [0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 0x00ff00ff, 0xff00ff00, 0x12345678, 0x80008000, 0x7fff7fff, 0x01020304, 0xfffe0001]
    a = np.array(sp32 + list(rng.integers(0, 2**32, n - len(sp32))), np.uint64).astype(np.uint32)
    b = np.array(list(reversed(sp32)) + list(rng.integers(0, 2**32, n - len(sp32))), np.uint64).astype(np.uint32)
    sp64 = [0, 1, 2**64 - 1, 2**63, 2**63 - 1, 0x100000000, 12345678901234567]
    c = np.array(sp64 + [int(v) for v in rng.integers(0, 2**63, n - len(sp64))], np.uint64)
    c[len(sp64)::3] |= np.uint64(2**63)
    d = np.array(list(reversed(sp64)) + [int(v) for v in rng.integers(0, 2**63, n - len(sp64))], np.uint64)
    d[len(sp64)::2] |= np.uint64(2**63)
    d[len(sp64)::5] >>= np.uint64(17)
    K, J = 23, 8
    out = np.zeros(K * n, np.uint32); out64 = np.zeros(J * n, np.uint64)
    case = Case("int_intrinsics", "nvcc/intrin.ptx", "int_intrinsics", (n // 64, 1, 1), (64, 1, 1),
                note="nvcc intrin.cu: 23 32-bit and 8 64-bit integer intrinsics of 256 input pairs")
    for arr in (a, b, c, d):
        case.buf(arr)
    k32 = case.buf(np.zeros(K * n, np.uint32))
    k64 = case.buf(np.zeros(J * n, np.uint64))
    case.val("s32", n)
    M32 = 2**32; M64 = 2**64
    def s32(x): x &= 0xffffffff; return x - M32 if x >> 31 else x
    def s64(x): x &= M64 - 1; return x - M64 if x >> 63 else x
    def s16(x): x &= 0xffff; return x - 65536 if x >> 15 else x
    def s8(x): x &= 0xff; return x - 256 if x >> 7 else x
    def byte_perm(x, y, s):
        bs = [(x >> (8 * k)) & 0xff for k in range(4)] + [(y >> (8 * k)) & 0xff for k in range(4)]
        return sum(bs[(s >> (4 * k)) & 7] << (8 * k) for k in range(4))
    def fsl(x, y, s, clamp):
        s = min(s, 32) if clamp else s & 31
        return (((y << 32 | x) << s) >> 32) & 0xffffffff
    def fsr(x, y, s, clamp):
        s = min(s, 32) if clamp else s & 31
        return ((y << 32 | x) >> s) & 0xffffffff
    def ffs(u): return (u & -u).bit_length()
    def clz64(u): return 64 - u.bit_length()
    def mul24(x, y, signed):
        if signed:
            x = x & 0xffffff; y = y & 0xffffff
            x = x - (1 << 24) if x >> 23 else x; y = y - (1 << 24) if y >> 23 else y
            return (x * y) & 0xffffffff
        return ((x & 0xffffff) * (y & 0xffffff)) & 0xffffffff
    def dp4a(x, y, z):
        return (sum(s8(x >> (8 * k)) * s8(y >> (8 * k)) for k in range(4)) + z) & 0xffffffff
    def dp2a(x, y, z, hi, signed):
        bh = [(y >> (8 * k)) & 0xff for k in range(4)]
        bh = [s8(v) if signed else v for v in bh]
        ah = [(x >> (16 * k)) & 0xffff for k in range(2)]
        ah = [s16(v) if signed else v for v in ah]
        base = 2 if hi else 0
        return (ah[0] * bh[base] + ah[1] * bh[base + 1] + z) & 0xffffffff
    def brev32(x): return int(f"{x:032b}"[::-1], 2)
    def brev64(x): return int(f"{x:064b}"[::-1], 2)
    def fns(mask, base, off):
        # PTX fns: find n-th set bit (offset) starting at base
        if off == 0: return 0xffffffff if False else (base if False else None)
        pos = base
        if off > 0:
            cnt = 0
            for p in range(base, 32):
                if mask >> p & 1:
                    cnt += 1
                    if cnt == off: return p
            return 0xffffffff
        else:
            cnt = 0
            for p in range(base, -1, -1):
                if mask >> p & 1:
                    cnt += 1
                    if cnt == -off: return p
            return 0xffffffff
    def fns_ref(mask, base, off):
        if off == 0:
            return None
        return fns(mask, base, off)
    want = [[] for _ in range(K)]; want64 = [[] for _ in range(J)]
    for i in range(n):
        x, y, u, v = int(a[i]), int(b[i]), int(c[i]), int(d[i])
        su = u & 0xffffffff
        r = [
            (x * y) >> 32,
            ((s32(x) * s32(y)) >> 32) & 0xffffffff,
            (abs(s32(x) - s32(y)) + 7) & 0xffffffff,
            (abs(x - y) + 3) & 0xffffffff,
            byte_perm(x, y, y & 0xffff),
            fsl(x, y, su, False), fsr(x, y, su, False), fsl(x, y, su, True), fsr(x, y, su, True),
            ffs(u), bin(u).count("1"), clz64(u),
            ((s32(x) + s32(y)) >> 1) & 0xffffffff, ((s32(x) + s32(y) + 1) >> 1) & 0xffffffff,
            (x + y) >> 1, (x + y + 1) >> 1,
            mul24(x, y, True), mul24(x, y, False), dp4a(x, y, 5), dp2a(x, y, 9, False, False), dp2a(x, y, -9, True, True),
            brev32(x), fns_ref(x, y & 31, (u & 7) - 3),
        ]
        for k in range(K): want[k].append(r[k])
        sv = s64(v | 1)
        q = abs(s64(u)) % abs(sv); q = -q if s64(u) < 0 else q
        sh = v & 63
        r64 = [(u * v) >> 64, ((s64(u) * s64(v)) >> 64) & (M64 - 1), brev64(u), u // (v | 1), q & (M64 - 1),
               min(s64(u), s64(v)) & (M64 - 1), max(u, v), ((u << sh) | (u >> ((64 - sh) & 63))) & (M64 - 1)]
        for k in range(J): want64[k].append(r64[k])
    names = "umulhi mulhi sad usad byte_perm fsl fsr fslc fsrc ffsll popcll clzll hadd rhadd uhadd urhadd mul24 umul24 dp4a dp2a_lo dp2a_hi brev fns".split()
    # fns with offset 0 is left out (its result depends on the base bit)
    case.exact(k32, [v for row in want for v in row], ",".join(names))
    case.exact(k64, [v for row in want64 for v in row], "umul64hi,mul64hi,brevll,udiv64,srem64,llmin,ullmax,rotl64")
    return case


CASES = [int_intrinsics]
