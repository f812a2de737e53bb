"""Runs tests/isa/special_half.ptx on a real GPU (CuPy, the driver's PTX JIT):
every pair of 16 special f16 values (and of 16 bf16 values) through the
probe's result slots; writes a.bin, b.bin, x.bin, y.bin, out.bin and
device.txt to OUT_DIR.

    python scripts/gpu_special_half.py OUT_DIR
"""
import sys
import numpy as np
from gpu_common import run_probe

H = np.array([0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x7bff, 0x0200, 0x4100, 0xc380, 0x3800, 0x7c01], np.uint16)
B = np.array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x7f7f, 0x0040, 0x4020, 0xc070, 0x3f00, 0x7f81], np.uint16)
a, b, x, y = np.repeat(H, 16), np.tile(H, 16), np.repeat(B, 16), np.tile(B, 16)
run_probe("special_half", "probe_half", 256, {"a": a, "b": b, "x": x, "y": y}, np.uint16, 38, sys.argv[1])
