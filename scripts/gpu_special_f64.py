"""Runs tests/isa/special_f64.ptx on a real GPU (CuPy, the driver's PTX JIT):
every pair of 16 special f64 values through the probe's result slots;
writes a.bin, b.bin, out.bin and device.txt to OUT_DIR.

    python scripts/gpu_special_f64.py OUT_DIR
"""
import os, sys
import numpy as np, cupy as cp

PTX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "isa", "special_f64.ptx")
V = np.array([0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
              0xfff8000000001234, 0x3ff0000000000000, 0xbff0000000000000, 0x0000000000000001, 0x8000000000000001,
              0x7fefffffffffffff, 0x0008000000000000, 0x4004000000000000, 0xc00e000000000000, 0x41f0000000000000,
              0x7ff0000000000001], np.uint64)
a = np.repeat(V, 16)
b = np.tile(V, 16)
N = int(open(PTX).read().split("writes ")[1].split(" ")[0])
out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
da, db, do = cp.asarray(a), cp.asarray(b), cp.zeros(256 * N, np.uint64)
fn = cp.RawModule(path=PTX).get_function("probe_f64")
fn((1,), (256,), (da, db, do))
cp.cuda.runtime.deviceSynchronize()
a.tofile(os.path.join(out_dir, "a.bin"))
b.tofile(os.path.join(out_dir, "b.bin"))
cp.asnumpy(do).tofile(os.path.join(out_dir, "out.bin"))
props = cp.cuda.runtime.getDeviceProperties(0)
open(os.path.join(out_dir, "device.txt"), "w").write(f"gpu {props['name'].decode()} sm_{props['major']}{props['minor']} driver {cp.cuda.runtime.driverGetVersion()}\n")
print("ok", N)
