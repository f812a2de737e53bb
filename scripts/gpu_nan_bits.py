"""Runs tests/isa/nan_bits.ptx on a real GPU (CuPy, the driver's PTX JIT)
and writes its inputs and outputs to OUT_DIR (in.bin, out.bin, device.txt):

    python scripts/gpu_nan_bits.py OUT_DIR
"""
import sys
import numpy as np
from gpu_common import run_probe

inf = np.inf
cases = [(inf, -inf, 1.0), (0.0, inf, 1.0), (-1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (-inf, inf, -1.0), (inf, 0.0, 1.0), (-0.0, -inf, 2.0)]
pl = [0x7ff8000000001234, 0xfff8000000005678, 0x7ff0000000000001, 0xfff4000000000000]
extra = [[pl[0], 0x3ff0000000000000, 0x4000000000000000], [0x3ff0000000000000, pl[1], 0x4000000000000000],
         [pl[2], pl[1], pl[0]], [pl[3], 0x3ff0000000000000, pl[2]], [pl[1], pl[0], 0x3ff0000000000000],
         [0x7ff8000000000000, 0xfff0000000000000, pl[3]]]
inp = np.concatenate([np.array(cases, np.float64).ravel().view(np.uint64), np.array(extra, np.uint64).ravel()])
run_probe("nan_bits", "probe64", inp.size // 3, {"in": inp}, np.uint64, 32, sys.argv[1])
