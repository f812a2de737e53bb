r"""An out-of-bounds store: thread 37 (warp 1, lane 5 of block 0) writes
16 Mi elements past the end of a 1024-element array. Numba must report
CUDA_ERROR_ILLEGAL_ADDRESS, as on a GPU, and the error stays with the
context; the driver library must say on stderr where the store was (run.py
checks the stderr pattern below).

e2e-stderr: kernel trap: out_of_bounds: lane 5: 4-byte access at global address 0x[0-9a-f]+ .*\(line \d+, in `[^`]*bad_store[^`]*`, CTA \(0,0,0\), warp 1, lane 5\)
"""
import numpy as np
from numba import cuda

from e2e_check import check, finish


@cuda.jit
def bad_store(out, far):
    i = cuda.grid(1)
    if i == 37:
        out[i + far] = 1.0


def run():
    out = cuda.device_array(1024, dtype=np.float32)
    try:
        bad_store[4, 256](out, 1 << 24)
        cuda.synchronize()
    except Exception as e:
        msg = str(e)
        assert "CUDA_ERROR_ILLEGAL_ADDRESS" in msg, f"wrong error: {type(e).__name__}: {msg[:200]}"
    else:
        raise AssertionError("the out-of-bounds store raised no error")
    # The error is sticky: later calls in the context fail the same way.
    try:
        cuda.device_array(4)
    except Exception as e:
        assert "CUDA_ERROR_ILLEGAL_ADDRESS" in str(e), f"later call: {type(e).__name__}: {str(e)[:200]}"
    else:
        raise AssertionError("a call after the trap succeeded; the error should be sticky")
    return "Numba raised CUDA_ERROR_ILLEGAL_ADDRESS, and the next allocation failed with it too"


check("out-of-bounds store", run)
finish()
