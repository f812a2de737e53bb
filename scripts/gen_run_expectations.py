#!/usr/bin/env python3
"""Generate the expected results of the `ptxsim run` conformance cases.

Writes tests/run/<group>.json (launch arguments + expected buffers or error)
and the binary inputs under tests/run/data/. Expected values come from the
Python reference models below -- direct transcriptions of the PTX ISA
semantics, using Python's arbitrary-precision integers and exact rational
arithmetic (fractions.Fraction) rounded to IEEE binary32/binary64 in each
rounding mode. Nothing here runs ptxsim.

The .ptx kernels in tests/run/ are hand-written; their comments state what
each output slot holds. The large setp tables are checked by an independent
Rust reference inside crates/cli/tests/run_conformance.rs instead.

Usage: python3 scripts/gen_run_expectations.py   (no third-party packages)
"""

import json
import math
import os
import re
import struct
from fractions import Fraction as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(ROOT, "tests", "run")
DATA = os.path.join(RUN, "data")
BOTH = ["stack", "its"]

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


def u32(x):
    return x & M32


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def u64(x):
    return x & M64


def s64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def write_group(name, ptx, about, cases):
    with open(os.path.join(RUN, name + ".json"), "w") as f:
        json.dump({"ptx": ptx, "about": about,
                   "generated_by": "scripts/gen_run_expectations.py",
                   "cases": cases}, f, indent=1)
        f.write("\n")


def buf(ty, values):
    return {"type": ty, "values": values}


def ok(buffers, **extra):
    d = {"ok": True, "buffers": {str(k): v for k, v in buffers.items()}}
    d.update(extra)
    return d


def case(name, kernel, grid, block, args, expect, scheduling=BOTH, extra=None):
    c = {"name": name, "kernel": kernel, "grid": grid, "block": block,
         "args": args, "scheduling": scheduling, "expect": expect}
    if extra:
        c["extra"] = extra
    return c


def write_bin(name, fmt, values):
    os.makedirs(DATA, exist_ok=True)
    with open(os.path.join(DATA, name), "wb") as f:
        for v in values:
            f.write(struct.pack("<" + fmt, v))
    return "@{DIR}/data/" + name


def write_npy(name, descr, fmt, values):
    """A version 1.0 .npy file (C order, 1-D), written without numpy."""
    os.makedirs(DATA, exist_ok=True)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    total = 10 + len(header) + 1
    pad = (64 - total % 64) % 64
    header = header + " " * pad + "\n"
    with open(os.path.join(DATA, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        for v in values:
            f.write(struct.pack("<" + fmt, v))
    return "@{DIR}/data/" + name


# ---------------------------------------------------------------- floats

FMT32 = (24, -126, 127)
FMT64 = (53, -1022, 1023)
NAN = float("nan")
INF = float("inf")


def f32(x):
    """Round a Python float (binary64) to binary32, nearest-even."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def bits_f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def ilog2(a):
    """floor(log2(a)) for a positive Fraction."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if F(2) ** e > a:
        e -= 1
    elif F(2) ** (e + 1) <= a:
        e += 1
    return e


def round_frac(x, fmt, mode):
    """Correctly round the exact rational x to the format in mode
    rn/rz/rm/rp. Returns a Python float (exact in binary64). A zero result
    takes the sign of x."""
    p, emin, emax = fmt
    if x == 0:
        return 0.0
    neg = x < 0
    a = -x if neg else x
    e = max(ilog2(a), emin)
    q = F(2) ** (e - p + 1)
    m = a / q
    fl = m.numerator // m.denominator
    rem = m - fl
    if mode == "rn":
        up = rem > F(1, 2) or (rem == F(1, 2) and fl % 2 == 1)
    elif mode == "rz":
        up = False
    elif mode == "rm":
        up = neg and rem > 0
    elif mode == "rp":
        up = (not neg) and rem > 0
    else:
        raise ValueError(mode)
    r = (fl + (1 if up else 0)) * q
    maxf = (2 - F(2) ** (1 - p)) * F(2) ** emax
    if r > maxf:
        if mode == "rn":
            r = None
        elif mode == "rz":
            r = maxf
        elif mode == "rm":
            r = maxf if not neg else None
        else:
            r = maxf if neg else None
    if r is None:
        return -INF if neg else INF
    v = float(r)
    return -v if neg else v


def is_neg(x):
    return math.copysign(1.0, x) < 0


def zero_sum_sign(mode):
    return -0.0 if mode == "rm" else 0.0


def fadd(a, b, fmt, mode):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and is_neg(a) != is_neg(b):
            return NAN
        return a if math.isinf(a) else b
    ex = F(a) + F(b)
    if ex == 0:
        if a == 0 and b == 0 and is_neg(a) == is_neg(b):
            return a
        return zero_sum_sign(mode)
    return round_frac(ex, fmt, mode)


def fmul(a, b, fmt, mode):
    if math.isnan(a) or math.isnan(b):
        return NAN
    sign = is_neg(a) != is_neg(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        return -INF if sign else INF
    ex = F(a) * F(b)
    if ex == 0:
        return -0.0 if sign else 0.0
    return round_frac(ex, fmt, mode)


def fdiv(a, b, fmt, mode):
    if math.isnan(a) or math.isnan(b):
        return NAN
    sign = is_neg(a) != is_neg(b)
    if math.isinf(a):
        if math.isinf(b):
            return NAN
        return -INF if sign else INF
    if math.isinf(b):
        return -0.0 if sign else 0.0
    if b == 0:
        if a == 0:
            return NAN
        return -INF if sign else INF
    if a == 0:
        return -0.0 if sign else 0.0
    return round_frac(F(a) / F(b), fmt, mode)


def ffma(a, b, c, fmt, mode):
    # IEEE 754-2008 5.4.1/6.3: an exact zero sum x*y + z of opposite-signed
    # terms is +0, except -0 in roundTowardNegative (.rm).
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return NAN
    psign = is_neg(a) != is_neg(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        if math.isinf(c) and is_neg(c) != psign:
            return NAN
        return -INF if psign else INF
    if math.isinf(c):
        return c
    ex = F(a) * F(b) + F(c)
    if ex == 0:
        if (a == 0 or b == 0) and c == 0:
            if psign == is_neg(c):
                return c
            return zero_sum_sign(mode)
        return zero_sum_sign(mode)
    return round_frac(ex, fmt, mode)


def fmin(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == 0 and b == 0 and is_neg(a) != is_neg(b):
        return None  # sign of the result not checked
    return a if a < b else b


def fmax(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == 0 and b == 0 and is_neg(a) != is_neg(b):
        return None
    return a if a > b else b


def jf(x):
    """JSON form of an expected float."""
    if x is None:
        return None
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


# ---------------------------------------------------------------- groups

def gen_sreg():
    cases = []
    for (gx, gy, gz), (bx, by, bz) in [((3, 2, 2), (8, 4, 2)), ((2, 1, 3), (5, 3, 3)), ((1, 1, 1), (1, 1, 1))]:
        nthreads = bx * by * bz
        total = gx * gy * gz * nthreads
        out = []
        for cz in range(gz):
            for cy in range(gy):
                for cx in range(gx):
                    for tz in range(bz):
                        for ty in range(by):
                            for tx in range(bx):
                                tl = (tz * by + ty) * bx + tx
                                cl = (cz * gy + cy) * gx + cx
                                gid = cl * nthreads + tl
                                out.append((gid, [tx, ty, tz, bx, by, bz, cx, cy, cz, gx, gy, gz,
                                                  tl % 32, gid, tl, 0xC0FFEE]))
        out.sort()
        flat = [v for _, vals in out for v in vals]
        cases.append(case(f"grid{gx}x{gy}x{gz}_block{bx}x{by}x{bz}", "sreg",
                          f"{gx},{gy},{gz}", f"{bx},{by},{bz}",
                          [f"u32[{total * 16}]=zeros", f"u32[{total}]=zeros"],
                          ok({0: buf("u32", flat)},
                             warpid={"arg": 1, "threads_per_cta": nthreads})))
    write_group("sreg", "sreg.ptx",
                "special registers %tid %ntid %ctaid %nctaid %laneid %warpid in 3D grids", cases)


def gen_guards():
    cases = []
    for grid, block in [(1, 64), (2, 48)]:
        n = grid * block
        inp = [(i * 2654435761) & M32 for i in range(n)]
        side = list(range(n))
        slots = [[0] * n for _ in range(12)]
        for c in range(grid):
            for t in range(block):
                g = c * block + t
                p = (t & 1) == 1
                q = t < 40
                slots[0][g] = 200 if p else 105
                slots[1][g] = 3 * t if q else 7
                slots[2][g] = inp[g] if not q else 0xFFFF
                slots[3][g] = 1 if (p and t > 10) else 0
                slots[4][g] = (11 if p else 22) if q else 33
                slots[5][g] = f32_bits(t * 0.5) if not p else 0x7FC00000
                slots[6][g] = t + 1000 if p else t
                slots[7][g] = 1 + 2 + 8
                v = t
                v = (v << 4) & M32 if p else v ^ 0xFF
                if q:
                    v |= 0x10000
                slots[8][g] = v
                slots[9][g] = int((not q) if p else q)
                if p and q:
                    side[g] = 5000
                slots[10][g] = (5000 if (p and q) else 0) + g
                d = t & 3
                slots[11][g] = (100 // d) * 1000 + 100 % d if d else 0xDEAD
        out = [v for s in slots for v in s]
        cases.append(case(f"grid{grid}_block{block}", "guards", str(grid), str(block),
                          [f"u32[{12 * n}]=zeros", f"u32[{n}]=" + ",".join(map(str, inp)),
                           f"u32[{n}]=iota", f"u32={n}"],
                          ok({0: buf("u32", out), 2: buf("u32", side)})))
    write_group("guards", "guards.ptx", "guard predicates @p/@!p on many instruction kinds", cases)


def gen_branch():
    cases = []
    for grid, block in [(1, 64), (3, 40)]:
        n = grid * block
        s = [[0] * n for _ in range(4)]
        for c in range(grid):
            for t in range(block):
                g = c * block + t
                s[0][g] = (2 * t if t < 13 else t + 100) + 1
                s[1][g] = block * (block - 1) // 2
                s[2][g] = (1 if t & 2 else 2) if t & 1 else (3 if t & 4 else 4)
                s[3][g] = 77 if block >= 32 else 88
        cases.append(case(f"branch_grid{grid}_block{block}", "branch", str(grid), str(block),
                          [f"u32[{4 * n}]=zeros", f"u32={n}"],
                          ok({0: buf("u32", [v for x in s for v in x])})))
    cases.append(case("branch_block16_uniform_false", "branch", "1", "16",
                      ["u32[64]=zeros", "u32=16"],
                      ok({0: buf("u32", [((2 * t if t < 13 else t + 100) + 1) for t in range(16)]
                                 + [120] * 16
                                 + [((1 if t & 2 else 2) if t & 1 else (3 if t & 4 else 4)) for t in range(16)]
                                 + [88] * 16)})))
    for grid, block in [(1, 64), (4, 96)]:
        n = grid * block
        acc_l, it_l = [], []
        for g in range(n):
            acc = 0
            it = 0
            i = 0
            while i < g % 7 + 3:
                it += 1
                if (i + g) % 3 == 0:
                    i += 1
                    continue
                if i * g > 40:
                    break
                if g & 1:
                    acc = u32(acc + 2 * i)
                else:
                    acc ^= (i + g)
                j = 0
                while j < g % 4:
                    acc = u32(acc + j)
                    if acc > 60:
                        break
                    j += 1
                i += 1
            acc_l.append(acc)
            it_l.append(it)
        cases.append(case(f"loops_grid{grid}_block{block}", "loops", str(grid), str(block),
                          [f"u32[{2 * n}]=zeros", f"u32={n}"],
                          ok({0: buf("u32", acc_l + it_l)})))
    write_group("branch", "branch.ptx",
                "bra uniform/divergent, nested if, loops with break/continue", cases)


def gen_brx():
    cases = []
    for grid, block in [(1, 32), (2, 72)]:
        n = grid * block
        s = [[0] * n for _ in range(4)]
        for c in range(grid):
            for t in range(block):
                g = c * block + t
                s[0][g] = [10, 20, 30, 40][t & 3] + g
                acc, st, steps = g, g % 3, 0
                while st != 3 and steps < 10:
                    steps += 1
                    if st == 0:
                        acc = u32(acc + 1)
                        st = 2 if acc & 1 else 1
                    elif st == 1:
                        acc = u32(acc * 3)
                        st = 3 if acc > 50 else 0
                    else:
                        acc = u32(acc - 1)
                        st = 1
                s[1][g] = acc
                s[2][g] = steps
                s[3][g] = (2 if t % 2 else 1) if t % 5 != 0 else 9
        cases.append(case(f"grid{grid}_block{block}", "brx", str(grid), str(block),
                          [f"u32[{4 * n}]=zeros", f"u32={n}"],
                          ok({0: buf("u32", [v for x in s for v in x])})))
    write_group("brx", "brx.ptx", "brx.idx per lane: switch, state machine in a loop, guarded", cases)


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def early(a):
    if a & 1:
        return a + 1
    r = 0
    for i in range(a):
        r += i
        if r > 20:
            return r
    return r + 1000


def gen_calls():
    cases = []
    for grid, block in [(1, 32), (2, 80)]:
        n = grid * block
        s = [[0] * n for _ in range(8)]
        for c in range(grid):
            for t in range(block):
                g = c * block + t
                s[0][g] = u32(3 * g + 7)
                s[1][g] = u32(g * g)
                s[2][g] = fib(g % 12)
                s[3][g] = u32(3 * g + 1) if g % 3 == 0 else u32((g + 1) ** 2) if g % 3 == 1 else u32(g * g + 4)
                s[4][g] = early(g % 16)
                s[5][g] = g + 45
                s[6][g] = 5 if t & 1 else 0
                s[7][g] = u32((g * 0x100000001) >> 1)
        cases.append(case(f"grid{grid}_block{block}", "calls", str(grid), str(block),
                          [f"u32[{8 * n}]=zeros", f"u32={n}"],
                          ok({0: buf("u32", [v for x in s for v in x])})))
    write_group("calls", "calls.ptx",
                "direct calls: .param/.reg args and returns, recursion, divergent calls, early ret", cases)


def gen_indirect():
    fs = [lambda a, b: u32(a + b), lambda a, b: u32(a - b), lambda a, b: u32(a * b), lambda a, b: a ^ b]
    hs = [lambda a: a + 1, lambda a: 2 * a, lambda a: a + 1000]
    cases = []
    for grid, block in [(1, 32), (3, 50)]:
        n = grid * block
        s = [[0] * n for _ in range(5)]
        for c in range(grid):
            for t in range(block):
                g = c * block + t
                s[0][g] = fs[t % 4](g, 3)
                s[1][g] = fs[3 - (t // 2) % 4](g, 9)
                s[2][g] = [fs[0], fs[2], fs[3]][t % 3](g, 5)
                s[3][g] = hs[t % 3](g)
                s[4][g] = fs[(t // 2) % 4](g, 2) if t & 1 else 12345
        cases.append(case(f"grid{grid}_block{block}", "indirect", str(grid), str(block),
                          [f"u32[{5 * n}]=zeros", f"u32={n}"],
                          ok({0: buf("u32", [v for x in s for v in x])})))
    write_group("indirect_call", "indirect_call.ptx",
                "indirect calls through .global/.const tables, .calltargets, .callprototype, per lane", cases)


def gen_barriers():
    cases = []
    for k in (40, 32, 64):
        grid, block = 2, 64
        out = list(range(grid * block))
        for c in range(grid):
            for t in range(block):
                if t < k:
                    out[c * block + t] = 2 * ((t + 1) % k) + 1 + 1000 * c
        cases.append(case(f"exit_bar_k{k}", "exit_bar", str(grid), str(block),
                          [f"u32[{grid * block}]=iota", f"u32={k}"],
                          ok({0: buf("u32", out)})))
    out = [g if (g % 40) % 3 == 0 else 500 + g for g in range(80)]
    cases.append(case("ret_entry", "ret_entry", "2", "40", ["u32[80]=iota"], ok({0: buf("u32", out)})))
    o = [0] * 384
    for t in range(128):
        if t >= 64:
            o[t] = (t - 64) + 1
        else:
            o[128 + t] = 3 * (t + 64)
            o[256 + t] = (63 - t) ** 2
    cases.append(case("named_barriers", "named", "1", "128", ["u32[384]=zeros"], ok({0: buf("u32", o)})))
    for block in (256, 96):
        grid = 2
        out = []
        for c in range(grid):
            for t in range(block):
                out.append((block - 1 - t) ^ 0x55)
        cases.append(case(f"nanosleep_block{block}", "sleepy", str(grid), str(block),
                          [f"u32[{grid * block}]=zeros"], ok({0: buf("u32", out)})))
    write_group("barriers", "barriers.ptx",
                "exit/ret in entry, bar.sync release after exit, named barriers with counts, nanosleep", cases)


def gen_spinlock():
    cases = []
    for grid, block in [(1, 32), (2, 64)]:
        n = grid * block
        cases.append(case(f"its_grid{grid}_block{block}", "spinlock", str(grid), str(block),
                          ["u32[2]=zeros", f"u32[{n}]=zeros"],
                          ok({0: buf("u32", [0, n])}, permutation={"arg": 1, "n": n}),
                          scheduling=["its"]))
        cases.append(case(f"stack_grid{grid}_block{block}", "spinlock", str(grid), str(block),
                          ["u32[2]=zeros", f"u32[{n}]=zeros"],
                          {"ok": False, "exit": 1, "kind": "stack_deadlock"},
                          scheduling=["stack"]))
    write_group("spinlock", "spinlock.ptx",
                "intra-warp spin lock: completes under ITS, stack_deadlock under the reconvergence stack", cases)


def gen_int_ops():
    S32 = [0, 1, 2, 3, 5, 7, -1, -2, -7, 0x7fffffff, -0x80000000, 0x7ffffffe, 12345678, -12345678,
           0x10000, 0xffff, 31, 32, 33, 39, 100, -100, 0x55555555, -0x2468ACE0]
    pairs = [(a, b) for a in S32 for b in S32 if b != 0 and not (a == -0x80000000 and b == -1)]
    n = len(pairs)
    A = [u32(a) for a, _ in pairs]
    B = [u32(b) for _, b in pairs]
    C = [u32(S32[(i * 7 + 3) % len(S32)]) for i in range(n)]

    def tdiv(a, b):
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q

    def trem(a, b):
        return a - b * tdiv(a, b)

    def sat32(x):
        return max(-(1 << 31), min((1 << 31) - 1, x))

    outs = []
    for a_, b_, c_ in zip(A, B, C):
        sa, sb, sc = s32(a_), s32(b_), s32(c_)
        sh = b_ % 40
        r = [a_ + b_, a_ - b_, a_ * b_, (a_ * b_) >> 32, (sa * sb) >> 32, sa * sb + sc,
             a_ // b_, a_ % b_, tdiv(sa, sb), trem(sa, sb), min(sa, sb), max(sa, sb),
             min(a_, b_), max(a_, b_), abs(sa), -sa,
             (a_ << sh) if sh < 32 else 0, (a_ >> sh) if sh < 32 else 0, sa >> min(sh, 31),
             a_ & b_, a_ | b_, a_ ^ b_, ~a_,
             a_ * b_, (a_ * b_) >> 32, sa * sb, (sa * sb) >> 32,
             ((a_ * b_) >> 32) + c_, sat32(sa + sb), sat32(sa - sb), a_ * 0x9E3779B9 + c_]
        outs.append([u32(x) for x in r])
    k32 = len(outs[0])
    exp = [outs[i][k] for k in range(k32) for i in range(n)]
    grid = (n + 127) // 128
    cases = [case("int32", "int32_ops", str(grid), "128",
                  [f"u32[{k32 * n}]=zeros", f"u32[{n}]=" + ",".join(map(str, A)),
                   f"s32[{n}]=" + ",".join(str(s32(x)) for x in B),
                   f"u32[{n}]=" + ",".join(map(str, C)), f"u32={n}"],
                  ok({0: buf("u32", exp)}))]

    S64 = [0, 1, 2, 3, 7, -1, -2, -7, (1 << 63) - 1, -(1 << 63), (1 << 63) - 2, 0xffffffff, 1 << 32,
           -(1 << 32), 123456789012345, -123456789012345, 63, 64, 65, 69, 0x5555555555555555,
           -0x123456789ABCDEF]
    pairs = [(a, b) for a in S64 for b in S64 if b != 0 and not (a == -(1 << 63) and b == -1)]
    n = len(pairs)
    A = [u64(a) for a, _ in pairs]
    B = [u64(b) for _, b in pairs]
    C = [u64(S64[(i * 5 + 1) % len(S64)]) for i in range(n)]
    outs = []
    for a_, b_, c_ in zip(A, B, C):
        sa, sb, sc = s64(a_), s64(b_), s64(c_)
        sh = b_ % 70
        r = [a_ + b_, a_ - b_, a_ * b_, (a_ * b_) >> 64, (sa * sb) >> 64, a_ * b_ + c_,
             a_ // b_, a_ % b_, tdiv(sa, sb), trem(sa, sb), min(sa, sb), max(a_, b_), abs(sa), -sa,
             (a_ << sh) if sh < 64 else 0, (a_ >> sh) if sh < 64 else 0, sa >> min(sh, 63),
             a_ & b_, a_ | b_, a_ ^ b_, ~a_, ((sa * sb) >> 64) + sc]
        outs.append([u64(x) for x in r])
    k64 = len(outs[0])
    exp = [outs[i][k] for k in range(k64) for i in range(n)]
    grid = (n + 127) // 128
    cases.append(case("int64", "int64_ops", str(grid), "128",
                      [f"u64[{k64 * n}]=zeros", f"u64[{n}]=" + ",".join(map(str, A)),
                       f"s64[{n}]=" + ",".join(str(s64(x)) for x in B),
                       f"u64[{n}]=" + ",".join(map(str, C)), f"u32={n}"],
                      ok({0: buf("u64", exp)})))
    write_group("int_ops", "int_ops.ptx", "integer arithmetic, shifts, logic on 32 and 64 bits", cases)


def float_values(is32):
    if is32:
        tiny = 2.0 ** -149
        vals = [0.0, -0.0, 1.0, -1.0, 1.5, 3.0, f32(1 / 3), tiny, -tiny, 2.0 ** -126,
                2.0 ** -126 - tiny, f32(3.4028234663852886e38), -f32(3.4028234663852886e38), INF, -INF,
                NAN, 1 + 2.0 ** -12, -(1 + 2.0 ** -11), f32(1e-30), f32(7e20), 16777216.0, f32(0.1),
                -2.5, 2.0 ** -100]
    else:
        tiny = 2.0 ** -1074
        vals = [0.0, -0.0, 1.0, -1.0, 1.5, 3.0, 1 / 3, tiny, -tiny, 2.0 ** -1022,
                2.0 ** -1022 - tiny, 1.7976931348623157e308, -1.7976931348623157e308, INF, -INF,
                NAN, 1 + 2.0 ** -27, -(1 + 2.0 ** -26), 1e-300, 7e200, 9007199254740992.0, 0.1,
                -2.5, 2.0 ** -600]
    return vals


def gen_float_ops():
    cases = []
    for t, is32 in (("f32", True), ("f64", False)):
        fmt = FMT32 if is32 else FMT64
        V = float_values(is32)
        trip = []
        for i, a in enumerate(V):
            for j, b in enumerate(V):
                trip.append((a, b, V[(i * 7 + j * 3 + 1) % len(V)]))
        # fused vs unfused: (1+e)^2 - (1+2e) = e^2 exactly; mul.rn then add.rn gives 0
        e = 2.0 ** -12 if is32 else 2.0 ** -27
        trip.append((1 + e, 1 + e, -(1 + 2 * e)))
        trip.append((1 + e, 1 - e, -1.0))
        n = len(trip)
        outs = []
        for a, b, c in trip:
            r = [fadd(a, b, fmt, m) for m in ("rn", "rz", "rm", "rp")]
            r.append(fadd(a, -b, fmt, "rn"))
            r += [fmul(a, b, fmt, m) for m in ("rn", "rz", "rm", "rp")]
            r += [ffma(a, b, c, fmt, m) for m in ("rn", "rz", "rm", "rp")]
            r += [fdiv(a, b, fmt, m) for m in ("rn", "rz", "rm", "rp")]
            r += [fmin(a, b), fmax(a, b), abs(a), -a]
            r.append(fadd(fmul(a, b, fmt, "rn"), c, fmt, "rn"))
            r.append(ffma(a, b, c, fmt, "rn"))
            outs.append(r)
        k = len(outs[0])
        exp = [jf(outs[i][kk]) for kk in range(k) for i in range(n)]
        code = "f" if is32 else "d"
        pa = write_bin(f"float_ops_{t}_a.bin", code, [x[0] for x in trip])
        pb = write_bin(f"float_ops_{t}_b.bin", code, [x[1] for x in trip])
        pc = write_bin(f"float_ops_{t}_c.bin", code, [x[2] for x in trip])
        grid = (n + 127) // 128
        cases.append(case(t, f"{t}_ops", str(grid), "128",
                          [f"{t}[{k * n}]=zeros", f"{t}[{n}]={pa}", f"{t}[{n}]={pb}", f"{t}[{n}]={pc}", f"u32={n}"],
                          ok({0: buf(t, exp)})))
    write_group("float_ops", "float_ops.ptx",
                "IEEE add/sub/mul/fma/div in four rounding modes, min/max/abs/neg, fused vs unfused", cases)


def cvt_f2i(x, mode, lo, hi):
    if math.isnan(x):
        return None
    if math.isinf(x):
        return hi if x > 0 else lo
    if mode == "rni":
        v = round(F(x))
    elif mode == "rzi":
        v = math.trunc(F(x))
    elif mode == "rmi":
        v = math.floor(F(x))
    else:
        v = math.ceil(F(x))
    return max(lo, min(hi, v))


def cvt_f2f_int(x, mode):
    if math.isnan(x) or math.isinf(x):
        return x
    v = cvt_f2i(x, mode, -(1 << 2000), 1 << 2000)
    if v == 0:
        return -0.0 if is_neg(x) else 0.0
    return float(v)


def gen_cvt():
    cases = []
    S32MIN, S32MAX = -(1 << 31), (1 << 31) - 1
    S64MIN, S64MAX = -(1 << 63), (1 << 63) - 1
    tiny = 2.0 ** -149
    X = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.3, -0.3, 0.7, -0.7, 3.99, -3.99,
         126.5, 127.5, 128.0, -128.5, -129.0, 32767.5, 32768.0, -32768.7, 40000.0, 2147483520.0,
         2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0, 1e20, -1e20,
         9.2233715e18, INF, -INF, tiny, -tiny, 2.0 ** -126, 1.0, 0.99999994, 1.0000001, 8388609.0,
         f32(0.1), NAN]
    X = [f32(x) for x in X]
    n = len(X)
    o32 = [[None] * n for _ in range(14)]
    o64 = [[None] * n for _ in range(3)]
    for i, x in enumerate(X):
        def s(v):
            return None if v is None else u32(v)
        o32[0][i] = s(cvt_f2i(x, "rni", S32MIN, S32MAX))
        o32[1][i] = s(cvt_f2i(x, "rzi", S32MIN, S32MAX))
        o32[2][i] = s(cvt_f2i(x, "rmi", S32MIN, S32MAX))
        o32[3][i] = s(cvt_f2i(x, "rpi", S32MIN, S32MAX))
        o32[4][i] = s(cvt_f2i(x, "rni", 0, M32))
        o32[5][i] = s(cvt_f2i(x, "rzi", 0, M32))
        for k, m in enumerate(("rni", "rzi", "rmi", "rpi")):
            r = cvt_f2f_int(x, m)
            o32[6 + k][i] = None if math.isnan(r) else f32_bits(r)
        if math.isnan(x):
            sat = 0.0
        elif x == 0 and is_neg(x):
            sat = None
        else:
            sat = min(1.0, max(0.0, x))
        o32[10][i] = None if sat is None else f32_bits(sat)
        o32[11][i] = s(cvt_f2i(x, "rzi", -32768, 32767))
        if math.isnan(x):
            o32[12][i] = None
        elif x != 0 and abs(x) < 2.0 ** -126:
            o32[12][i] = f32_bits(-0.0 if x < 0 else 0.0)
        else:
            o32[12][i] = f32_bits(x)
        o32[13][i] = s(cvt_f2i(x, "rni", -128, 127))
        v = cvt_f2i(x, "rni", S64MIN, S64MAX)
        o64[0][i] = None if v is None else u64(v)
        o64[1][i] = cvt_f2i(x, "rzi", 0, M64)
        o64[2][i] = None if math.isnan(x) else f64_bits(x)
    # the 0.1 entry's f32->f32 conversions are all exact integers etc. NaN rows stay None
    px = write_bin("cvt_f32_x.bin", "f", X)
    cases.append(case("cvt_f32", "cvt_f32", "1", "64",
                      [f"u32[{14 * n}]=zeros", f"u64[{3 * n}]=zeros", f"f32[{n}]={px}", f"u32={n}"],
                      ok({0: buf("u32", [v for r in o32 for v in r]), 1: buf("u64", [v for r in o64 for v in r])})))

    D = [0.0, -0.0, 1 / 3, -1 / 3, 0.1, 2.5, -2.5, 3.4028235677973366e38, 3.4028234663852886e38 * (1 + 2 ** -30),
         1e300, -1e300, 2.0 ** -149, 2.0 ** -150, 2.0 ** -151, 1.5 * 2.0 ** -149, 2.0 ** -1074, -2.0 ** -160,
         1 + 2.0 ** -24, 1 + 2.0 ** -24 + 2.0 ** -40, 1 + 3 * 2.0 ** -24, 9.3e18, -9.3e18, 1.8446744073709552e19,
         4e9, -4e9, 2147483647.5, -2147483648.5, 123456789.987, INF, -INF, NAN]
    n = len(D)
    o32 = [[None] * n for _ in range(6)]
    o64 = [[None] * n for _ in range(4)]
    for i, x in enumerate(D):
        for k, m in enumerate(("rn", "rz", "rm", "rp")):
            if math.isnan(x):
                r = None
            elif math.isinf(x) or x == 0:
                r = f32_bits(x)
            else:
                r = f32_bits(round_frac(F(x), FMT32, m))
            o32[k][i] = r
        v = cvt_f2i(x, "rni", S32MIN, S32MAX)
        o32[4][i] = None if v is None else u32(v)
        v = cvt_f2i(x, "rzi", S32MIN, S32MAX)
        o32[5][i] = None if v is None else u32(v)
        v = cvt_f2i(x, "rni", S64MIN, S64MAX)
        o64[0][i] = None if v is None else u64(v)
        o64[1][i] = cvt_f2i(x, "rzi", 0, M64)
        r = cvt_f2f_int(x, "rmi")
        o64[2][i] = None if math.isnan(r) else f64_bits(r)
        v = cvt_f2i(x, "rpi", S64MIN, S64MAX)
        o64[3][i] = None if v is None else u64(v)
    px = write_bin("cvt_f64_x.bin", "d", D)
    cases.append(case("cvt_f64", "cvt_f64", "1", "64",
                      [f"u32[{6 * n}]=zeros", f"u64[{4 * n}]=zeros", f"f64[{n}]={px}", f"u32={n}"],
                      ok({0: buf("u32", [v for r in o32 for v in r]), 1: buf("u64", [v for r in o64 for v in r])})))

    K = [0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, -32768, -32769,
         16777216, 16777217, 16777219, -16777217, 2147483647, -2147483648, 0x7FFFFFC0, -33554435,
         0x89ABCDEF - (1 << 32)]
    n = len(K)
    o32 = [[None] * n for _ in range(13)]
    o64 = [[None] * n for _ in range(3)]
    for i, k in enumerate(K):
        uk = u32(k)
        for j, m in enumerate(("rn", "rz", "rm", "rp")):
            o32[j][i] = f32_bits(round_frac(F(k), FMT32, m))
        o32[4][i] = f32_bits(round_frac(F(uk), FMT32, "rn"))
        o32[5][i] = f32_bits(round_frac(F(uk), FMT32, "rp"))
        o32[6][i] = uk & 0xFF
        o32[7][i] = u32(((uk & 0xFF) ^ 0x80) - 0x80)
        o32[8][i] = u32(((uk & 0xFFFF) ^ 0x8000) - 0x8000)
        o32[9][i] = uk & 0xFFFF
        o32[10][i] = u32(max(-32768, min(32767, k)))
        o32[11][i] = max(0, min(65535, k))
        o32[12][i] = max(0, k)
        o64[0][i] = u64(k)
        o64[1][i] = uk
        o64[2][i] = f64_bits(float(k))
    cases.append(case("cvt_s32", "cvt_s32", "1", "32",
                      [f"u32[{13 * n}]=zeros", f"u64[{3 * n}]=zeros", f"s32[{n}]=" + ",".join(map(str, K)), f"u32={n}"],
                      ok({0: buf("u32", [v for r in o32 for v in r]), 1: buf("u64", [v for r in o64 for v in r])})))

    L = [0, 1, -1, (1 << 24) + 1, (1 << 53) + 1, -((1 << 53) + 1), (1 << 63) - 1, -(1 << 63), 0x7FFFFFFF,
         0x80000000, -0x80000001, 0xFFFFFFFF, 0x100000000 + 5, 123456789012345678, -987654321098765432,
         (1 << 40) + (1 << 16) + 1]
    n = len(L)
    o32 = [[None] * n for _ in range(5)]
    o64 = [[None] * n for _ in range(3)]
    for i, k in enumerate(L):
        uk = u64(k)
        o32[0][i] = f32_bits(round_frac(F(k), FMT32, "rn"))
        o32[1][i] = f32_bits(round_frac(F(uk), FMT32, "rz"))
        o32[2][i] = f32_bits(round_frac(F(uk), FMT32, "rp"))
        o32[3][i] = uk & M32
        o32[4][i] = u32(max(S32MIN, min(S32MAX, k)))
        o64[0][i] = f64_bits(round_frac(F(k), FMT64, "rn"))
        o64[1][i] = f64_bits(round_frac(F(k), FMT64, "rz"))
        o64[2][i] = f64_bits(round_frac(F(uk), FMT64, "rm"))
    cases.append(case("cvt_s64", "cvt_s64", "1", "32",
                      [f"u32[{5 * n}]=zeros", f"u64[{3 * n}]=zeros", f"s64[{n}]=" + ",".join(map(str, L)), f"u32={n}"],
                      ok({0: buf("u32", [v for r in o32 for v in r]), 1: buf("u64", [v for r in o64 for v in r])})))
    write_group("cvt", "cvt.ptx", "cvt with rounding modifiers, saturation, ftz, integer widening/narrowing", cases)


def gen_memory():
    grid, block = 2, 64
    n = grid * block
    bytes_ = [(i * 37 + 100) & 0xFF for i in range(n)]
    halves = [(i * 2011 + 30000) & 0xFFFF for i in range(64)]
    words = [i * i + 3 for i in range(16)]
    k = 4242
    ctab = [3, 1, 4, 1, 5, 9, 2, 6]
    gvar = [11, 22, 33, 44]
    s = [[0] * n for _ in range(12)]
    for c in range(grid):
        for t in range(block):
            g = c * block + t
            s[0][g] = ctab[t % 8]
            s[1][g] = gvar[t % 4]
            s[2][g] = 5 * (63 - t) + c
            s[3][g] = (t % 8) * t + 1
            s[4][g] = k + t
            s[5][g] = 5 * ((t + 1) % 64) + c
            s[6][g] = g + 900
            s[7][g] = u32(((bytes_[g]) ^ 0x80) - 0x80)
            s[8][g] = bytes_[g]
            s[9][g] = u32(((halves[g % 64]) ^ 0x8000) - 0x8000)
            s[10][g] = sum(words[4 * (g % 4): 4 * (g % 4) + 4])
            s[11][g] = words[g % 16]
    bout = [(7 * g) & 0xFF for g in range(n)]
    pairs = [v for g in range(n) for v in (g, u32(~g))]
    counter = [sum(range(n)), n - 1]
    pbytes = write_npy("memory_bytes.npy", "|u1", "B", bytes_)
    phalves = write_bin("memory_halves.bin", "H", halves)
    cases = [case("memory", "memory", str(grid), str(block),
                  [f"u32[{12 * n}]=zeros", f"u8[{n}]={pbytes}", f"u16[64]={phalves}",
                   "u32[16]=" + ",".join(map(str, words)), f"u8[{n}]=zeros", f"u32[{2 * n}]=zeros",
                   "u32[2]=zeros", f"u32={k}"],
                  ok({0: buf("u32", [v for r in s for v in r]), 1: buf("u8", bytes_),
                      4: buf("u8", bout), 5: buf("u32", pairs), 6: buf("u32", counter)}))]
    write_group("memory", "memory.ptx", "ld/st in every state space, cvta, sub-word and vector accesses, atomics", cases)


def gen_args():
    cases = []
    sc = ["u8=200", "u16=65000", "u32=4000000000", "u64=18446744073709551615",
          "s8=-5", "s16=-30000", "s32=-2000000000", "s64=-9223372036854775808",
          "b8=171", "b16=48879", "b32=3735928559", "b64=81985529216486895",
          "f32=0.5", "f64=-2.25"]
    exp = [200, 65000, 4000000000, M64, u64(-5), u64(-30000), u64(-2000000000), 1 << 63,
           171, 48879, 3735928559, 81985529216486895, f32_bits(0.5), f64_bits(-2.25)]
    cases.append(case("scalars", "scalars", "1", "1", ["u64[14]=zeros"] + sc, ok({0: buf("u64", exp)})))
    # every INIT form
    fa = [1.0, 2.0, 3.0, 4.5]
    npy = write_npy("args_f.npy", "<u4", "I", [7, 8, 9, 4294967295, 0])
    binf = write_bin("args_e.bin", "q", [5, -6, 1 << 40])
    cases.append(case("inits", "inplace", "1", "256",
                      ["u8[200]=iota", "u32=200", "s16[7]=1,-2,3,-32768,32767,0,-1", "u32=7",
                       "f32[4]=1,2,3,4.5", "u32=4", "f64[3]=zeros", "u32=3",
                       f"s64[3]={binf}", "u32=3", f"u32[5]={npy}", "u32=5"],
                      ok({0: buf("u8", [(3 * i + 1) & 0xFF for i in range(200)]),
                          2: buf("s16", [-1, 2, -3, -32768, -32767, 0, 1]),
                          4: buf("f32", [2 * x + 0.5 for x in fa]),
                          6: buf("f64", [-1.25] * 3),
                          8: buf("s64", [-15, 18, -3 * (1 << 40)]),
                          10: buf("u32", [8, 9, 10, 0, 1])})))
    cases.append(case("iota_types", "inplace", "2", "32",
                      ["u8[10]=iota", "u32=10", "s16[40]=iota", "u32=40", "f32[64]=iota", "u32=64",
                       "f64[5]=iota", "u32=5", "s64[6]=iota", "u32=6", "u32[33]=iota", "u32=33"],
                      ok({0: buf("u8", [3 * i + 1 for i in range(10)]),
                          2: buf("s16", [-i for i in range(40)]),
                          4: buf("f32", [2.0 * i + 0.5 for i in range(64)]),
                          6: buf("f64", [i - 1.25 for i in range(5)]),
                          8: buf("s64", [-3 * i for i in range(6)]),
                          10: buf("u32", [i + 1 for i in range(33)])})))
    cases.append(case("nonfinite_json", "specials", "1", "1", ["f32[6]=zeros", "f64[6]=zeros"],
                      ok({0: buf("f32", ["NaN", "Infinity", "-Infinity", -0.0, 2.0 ** -149, 1.5]),
                          1: buf("f64", ["NaN", "Infinity", "-Infinity", -0.0, 2.0 ** -1074, 1.5])})))
    write_group("args", "args.ptx", "scalar args of every type, buffer INIT forms, non-finite JSON output", cases)


def trap_lines():
    lines = {}
    with open(os.path.join(RUN, "traps.ptx")) as f:
        for i, line in enumerate(f, 1):
            m = re.search(r"// TRAP (\w+)", line)
            if m:
                lines[m.group(1)] = i
    return lines


def gen_traps():
    L = trap_lines()
    B = ["u32[64]=zeros"]

    def err(name, kernel, block, kind, grid="1", line=None, lines=None, lane=None, warp=None, cta=None,
            msg=None, extra=None, scheduling=BOTH):
        e = {"ok": False, "exit": 1, "kind": kind}
        if line is not None:
            e["line"] = line
        if lines is not None:
            e["line_in"] = lines
        if lane is not None:
            e["lane"] = lane
        if warp is not None:
            e["warp"] = warp
        if cta is not None:
            e["cta"] = cta
        if msg:
            e["message_contains"] = msg
        return case(name, kernel, grid, block, B, e, scheduling=scheduling, extra=extra)

    cases = [
        err("brx_index_out_of_range", "t_brx_oob", "64", "brx_index_out_of_range", line=L["brx_oob"],
            lane=5, warp=1, cta=[0, 0, 0], msg=["tbl", "7"]),
        err("bad_call_target", "t_bad_fptr", "32", "bad_call_target", line=L["bad_fptr"], lane=9, warp=0),
        err("prototype_mismatch", "t_proto", "32", "prototype_mismatch", line=L["proto"], lane=3, warp=0),
        err("out_of_bounds_load", "t_oob_load", "32", "out_of_bounds", line=L["oob_load"], lane=7, warp=0),
        err("out_of_bounds_store", "t_oob_store", "32", "out_of_bounds", line=L["oob_store"], lane=12, warp=0),
        err("out_of_bounds_shared", "t_oob_shared", "32", "out_of_bounds", line=L["oob_shared"], lane=20, warp=0),
        err("misaligned_load", "t_misaligned", "32", "misaligned", line=L["misaligned"], lane=4, warp=0),
        err("misaligned_store64", "t_misaligned64", "32", "misaligned", line=L["misaligned64"], lane=6, warp=0),
        err("barrier_deadlock", "t_bar_deadlock", "64", "barrier_deadlock",
            lines=[L["bar_deadlock_0"], L["bar_deadlock_1"]]),
        err("bra_uni_non_uniform", "t_bra_uni", "32", "non_uniform", line=L["bra_uni"], warp=0),
        err("brx_idx_uni_non_uniform", "t_brx_uni", "32", "non_uniform", line=L["brx_uni"], warp=0),
        err("call_uni_non_uniform", "t_call_uni", "32", "non_uniform", line=L["call_uni"], warp=0),
        err("ret_uni_non_uniform", "t_ret_uni", "32", "non_uniform", line=L["ret_uni"], warp=0),
        err("fuel_exhausted", "t_fuel", "32", "fuel_exhausted", lines=[L["fuel_a"], L["fuel_b"]],
            extra=["--fuel", "10000"]),
        err("call_depth", "t_depth", "32", "call_depth", line=L["rec"]),
        err("trap", "t_trap", "32", "trap", line=L["trap"], lane=6, warp=0),
        err("trap_second_cta", "t_trap", "8", "trap", grid="3,1,1", line=L["trap"], lane=6, warp=0),
        err("divide_by_zero_u32", "t_div0", "32", "divide_by_zero", line=L["div0"], lane=2, warp=0),
        err("remainder_by_zero_s32", "t_rem0", "64", "divide_by_zero", line=L["rem0"], lane=11, warp=0),
        err("divide_by_zero_s64", "t_div0_64", "32", "divide_by_zero", line=L["div0_64"], lane=0, warp=0),
        err("unsupported_tex", "t_unsupported_tex", "32", "unsupported", line=L["tex"], msg=["tex"]),
        err("invalid_launch_block_too_large", "t_trap", "2048", "invalid_launch"),
    ]
    # t_trap_second_cta: grid of 3 CTAs of 8 threads; lane 6 of every CTA traps;
    # only kind/line/lane are checked because any CTA may be reported.
    write_group("traps", "traps.ptx", "run-time traps: kind, line, lane, warp, cta; exit code 1", cases)


def main():
    gen_sreg()
    gen_guards()
    gen_branch()
    gen_brx()
    gen_calls()
    gen_indirect()
    gen_barriers()
    gen_spinlock()
    gen_int_ops()
    gen_float_ops()
    gen_cvt()
    gen_memory()
    gen_args()
    gen_traps()


if __name__ == "__main__":
    main()
