"""A PTX device function (rev_mix.ptx: brev + popc) declared with
cuda.declare_device(..., link=[...ptx]) and called from a Numba kernel, so
the driver library links two PTX modules (cuLink*). Compared with a NumPy
bit reversal and population count."""
import os

import numpy as np
from numba import cuda

from e2e_check import assert_equal, check, finish

rev_mix = cuda.declare_device("ptx_rev_mix", "uint32(uint32)",
                              link=[os.path.join(os.path.dirname(os.path.abspath(__file__)), "rev_mix.ptx")])


@cuda.jit
def apply(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = rev_mix(x[i])


def run():
    x = np.concatenate([np.arange(5000, dtype=np.uint32) * np.uint32(2654435761),
                        np.array([0, 1, 0x80000000, 0xFFFFFFFF], dtype=np.uint32)])
    out = np.zeros_like(x)
    apply[(x.size + 127) // 128, 128](x, out)
    bits = (x[:, None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1)
    rev = (bits.astype(np.uint64) << np.arange(31, -1, -1, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    want = rev + np.bitwise_count(x).astype(np.uint32)  # wraps modulo 2^32 as add.u32 does
    assert_equal(out, want, "brev(x) + popc(x)")
    return f"{x.size} values through the linked PTX function equal NumPy's brev + popc"


check("PTX device function via declare_device(link=)", run)
finish()
