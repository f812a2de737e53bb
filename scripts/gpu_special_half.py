"""Runs tests/isa/special_half.ptx on a real GPU (CuPy, the driver's PTX JIT):
every pair of 16 special f16 values (and of 16 bf16 values) through the
probe's result slots; writes a.bin, b.bin, x.bin, y.bin, out.bin and
device.txt to OUT_DIR.

    python scripts/gpu_special_half.py OUT_DIR
"""
import os, sys
import numpy as np, cupy as cp

PTX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "isa", "special_half.ptx")
H = np.array([0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x7bff, 0x0200, 0x4100, 0xc380, 0x3800, 0x7c01], np.uint16)
B = np.array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x7f7f, 0x0040, 0x4020, 0xc070, 0x3f00, 0x7f81], np.uint16)
a, b, x, y = np.repeat(H, 16), np.tile(H, 16), np.repeat(B, 16), np.tile(B, 16)
N = int(open(PTX).read().split("writes ")[1].split(" ")[0])
out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
dev = [cp.asarray(v) for v in (a, b, x, y)]
do = cp.zeros(256 * N, np.uint16)
fn = cp.RawModule(path=PTX).get_function("probe_half")
fn((1,), (256,), (*dev, do))
cp.cuda.runtime.deviceSynchronize()
for name, v in zip("abxy", (a, b, x, y)):
    v.tofile(os.path.join(out_dir, f"{name}.bin"))
cp.asnumpy(do).tofile(os.path.join(out_dir, "out.bin"))
props = cp.cuda.runtime.getDeviceProperties(0)
open(os.path.join(out_dir, "device.txt"), "w").write(f"gpu {props['name'].decode()} sm_{props['major']}{props['minor']} driver {cp.cuda.runtime.driverGetVersion()}\n")
print("ok", N)
