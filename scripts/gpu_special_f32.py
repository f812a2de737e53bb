"""Runs tests/isa/special_f32.ptx on a real GPU (CuPy, the driver's PTX JIT):
every pair of 16 special f32 values (zeros, infinities, NaNs, subnormals,
extremes, ordinary numbers) through the probe's 64 result slots; writes
a.bin, b.bin, out.bin and device.txt to OUT_DIR.

    python scripts/gpu_special_f32.py OUT_DIR
"""
import sys
import numpy as np
from gpu_common import run_probe

V = np.array([0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x3f800000, 0xbf800000,
              0x00000001, 0x80000001, 0x7f7fffff, 0x00400000, 0x40200000, 0xc0700000, 0x3f000000, 0x7f800001], np.uint32)
a = np.repeat(V, 16)
b = np.tile(V, 16)
run_probe("special_f32", "probe32", 256, {"a": a, "b": b}, np.uint32, 64, sys.argv[1])
