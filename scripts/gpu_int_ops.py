"""Runs tests/isa/int_ops.ptx on a real GPU (CuPy, the driver's PTX JIT):
256 threads of pseudo-random and boundary integer operands through the
probe's result slots; writes in.bin, out.bin and device.txt to OUT_DIR.

    python scripts/gpu_int_ops.py OUT_DIR
"""
import sys
import numpy as np
from gpu_common import run_probe

rng = np.random.default_rng(20261125)
T = 256
edge32 = np.array([0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 31, 32, 33, 64, 0x00ff00ff, 0x12345678], np.uint32)
def u32s(k):
    v = rng.integers(0, 2**32, T, dtype=np.uint64).astype(np.uint32)
    v[: len(edge32)] = np.roll(edge32, k)
    return v
a, b = u32s(0), u32s(3)
c = rng.integers(0, 70, T).astype(np.uint32)           # shift amounts, bit positions, prmt selectors' low bits
c[::3] = rng.integers(0, 2**32, (T + 2) // 3, dtype=np.uint64).astype(np.uint32)
d = u32s(5)
d[d == 0] = 7
d[d == 0xffffffff] = 9
A = rng.integers(0, 2**64, T, dtype=np.uint64); B = rng.integers(0, 2**64, T, dtype=np.uint64)
C = rng.integers(0, 2**64, T, dtype=np.uint64); D = rng.integers(1, 2**64, T, dtype=np.uint64)
A[:4] = [0, 0x8000000000000000, 0xffffffffffffffff, 1]
D[D == 0xffffffffffffffff] = 5
rows = np.zeros((T, 12), np.uint32)
rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = a, b, c, d
for i, v in enumerate((A, B, C, D)):
    rows[:, 4 + 2 * i] = (v & 0xffffffff).astype(np.uint32)
    rows[:, 5 + 2 * i] = (v >> np.uint64(32)).astype(np.uint32)
run_probe("int_ops", "probe_int", T, {"in": rows.ravel()}, np.uint64, 80, sys.argv[1])
