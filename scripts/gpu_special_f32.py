"""Runs tests/isa/special_f32.ptx on a real GPU (CuPy, the driver's PTX JIT):
every pair of 16 special f32 values (zeros, infinities, NaNs, subnormals,
extremes, ordinary numbers) through the probe's 64 result slots; writes
a.bin, b.bin, out.bin and device.txt to OUT_DIR.

    python scripts/gpu_special_f32.py OUT_DIR
"""
import os, sys
import numpy as np, cupy as cp

PTX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "isa", "special_f32.ptx")
V = np.array([0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x3f800000, 0xbf800000,
              0x00000001, 0x80000001, 0x7f7fffff, 0x00400000, 0x40200000, 0xc0700000, 0x3f000000, 0x7f800001], np.uint32)
a = np.repeat(V, 16)
b = np.tile(V, 16)
out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
da, db, do = cp.asarray(a), cp.asarray(b), cp.zeros(256 * 64, np.uint32)
fn = cp.RawModule(path=PTX).get_function("probe32")
fn((1,), (256,), (da, db, do))
cp.cuda.runtime.deviceSynchronize()
a.tofile(os.path.join(out_dir, "a.bin"))
b.tofile(os.path.join(out_dir, "b.bin"))
cp.asnumpy(do).tofile(os.path.join(out_dir, "out.bin"))
props = cp.cuda.runtime.getDeviceProperties(0)
open(os.path.join(out_dir, "device.txt"), "w").write(f"gpu {props['name'].decode()} sm_{props['major']}{props['minor']} driver {cp.cuda.runtime.driverGetVersion()}\n")
print("ok")
