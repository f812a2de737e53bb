"""Runs tests/isa/nan_bits.ptx on a real GPU (CuPy, the driver's PTX JIT)
and writes its inputs and outputs to OUT_DIR (in.bin, out.bin, device.txt):

    python scripts/gpu_nan_bits.py OUT_DIR
"""
import os, sys
import numpy as np, cupy as cp

PTX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "isa", "nan_bits.ptx")
inf = np.inf
cases = [(inf, -inf, 1.0), (0.0, inf, 1.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (-inf, inf, -1.0), (inf, 0.0, 1.0), (-0.0, -inf, 2.0)]
pl = [0x7ff8000000001234, 0xfff8000000005678, 0x7ff0000000000001, 0xfff4000000000000]
extra = [[pl[0], 0x3ff0000000000000, 0x4000000000000000], [0x3ff0000000000000, pl[1], 0x4000000000000000],
         [pl[2], pl[1], pl[0]], [pl[3], 0x3ff0000000000000, pl[2]], [pl[1], pl[0], 0x3ff0000000000000],
         [0x7ff8000000000000, 0xfff0000000000000, pl[3]]]
inp = np.concatenate([np.array(cases, np.float64).ravel().view(np.uint64), np.array(extra, np.uint64).ravel()])
n = inp.size // 3
out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
din, dout = cp.asarray(inp), cp.zeros(n * 32, np.uint64)
fn = cp.RawModule(path=PTX).get_function("probe64")
fn((1,), (n,), (din, dout))
cp.cuda.runtime.deviceSynchronize()
inp.tofile(os.path.join(out_dir, "in.bin"))
cp.asnumpy(dout).tofile(os.path.join(out_dir, "out.bin"))
props = cp.cuda.runtime.getDeviceProperties(0)
open(os.path.join(out_dir, "device.txt"), "w").write(f"gpu {props['name'].decode()} sm_{props['major']}{props['minor']} driver {cp.cuda.runtime.driverGetVersion()}\n")
print(n, "threads")
