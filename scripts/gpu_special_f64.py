"""Runs tests/isa/special_f64.ptx on a real GPU (CuPy, the driver's PTX JIT):
every pair of 16 special f64 values through the probe's result slots;
writes a.bin, b.bin, out.bin and device.txt to OUT_DIR.

    python scripts/gpu_special_f64.py OUT_DIR
"""
import sys
import numpy as np
from gpu_common import run_probe

V = np.array([0x0000000000000000, 0x8000000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
              0xfff8000000001234, 0x3ff0000000000000, 0xbff0000000000000, 0x0000000000000001, 0x8000000000000001,
              0x7fefffffffffffff, 0x0008000000000000, 0x4004000000000000, 0xc00e000000000000, 0x41f0000000000000,
              0x7ff0000000000001], np.uint64)
a = np.repeat(V, 16)
b = np.tile(V, 16)
run_probe("special_f64", "probe_f64", 256, {"a": a, "b": b}, np.uint64, 41, sys.argv[1])
