"""Runs tests/isa/warp_ops.ptx on a real GPU (CuPy, the driver's PTX JIT):
two full warps of pseudo-random operands through the probe's shfl, vote,
match, redux and lane-mask slots; writes in.bin, out.bin and device.txt.

    python scripts/gpu_warp_ops.py OUT_DIR
"""
import sys
import numpy as np
from gpu_common import run_probe

rng = np.random.default_rng(7)
T = 64
rows = np.zeros((T, 3), np.uint32)
rows[:, 0] = rng.integers(0, 2**32, T, dtype=np.uint64).astype(np.uint32)
rows[:, 1] = rng.integers(0, 40, T).astype(np.uint32)
rows[:, 2] = rng.integers(0, 2, T).astype(np.uint32)
rows[32:, 2] = 1                       # the second warp votes all-true
run_probe("warp_ops", "probe_warp", T, {"in": rows.ravel()}, np.uint32, 351, sys.argv[1])
