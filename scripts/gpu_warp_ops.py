"""Runs tests/isa/warp_ops.ptx on a real GPU (CuPy, the driver's PTX JIT):
two full warps of pseudo-random operands through the probe's shfl, vote,
match, redux and lane-mask slots; writes in.bin, out.bin and device.txt.

    python scripts/gpu_warp_ops.py OUT_DIR
"""
import os, sys
import numpy as np, cupy as cp

PTX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "isa", "warp_ops.ptx")
rng = np.random.default_rng(7)
T = 64
rows = np.zeros((T, 3), np.uint32)
rows[:, 0] = rng.integers(0, 2**32, T, dtype=np.uint64).astype(np.uint32)
rows[:, 1] = rng.integers(0, 40, T).astype(np.uint32)
rows[:, 2] = rng.integers(0, 2, T).astype(np.uint32)
rows[32:, 2] = 1                       # the second warp votes all-true
N = int(open(PTX).read().split("writes ")[1].split(" ")[0])
out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
din, do = cp.asarray(rows.ravel()), cp.zeros(T * N, np.uint32)
fn = cp.RawModule(path=PTX).get_function("probe_warp")
fn((1,), (T,), (din, do))
cp.cuda.runtime.deviceSynchronize()
rows.ravel().tofile(os.path.join(out_dir, "in.bin"))
cp.asnumpy(do).tofile(os.path.join(out_dir, "out.bin"))
props = cp.cuda.runtime.getDeviceProperties(0)
open(os.path.join(out_dir, "device.txt"), "w").write(f"gpu {props['name'].decode()} sm_{props['major']}{props['minor']} driver {cp.cuda.runtime.driverGetVersion()}\n")
print("ok", N)
