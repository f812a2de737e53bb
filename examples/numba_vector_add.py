"""A Numba CUDA kernel run on ptxsim's driver library, no GPU needed:

    cargo build --release -p ptxsim -p ptxsim-cuda
    target/release/ptxsim exec -- "$(scripts/e2e-venv numba)/bin/python" examples/numba_vector_add.py
"""
import warnings

import numpy as np
from numba import cuda

# Without nvJitLink, numba-cuda links through the driver's cuLink* (which ptxsim
# implements) and says so once; that is expected here.
warnings.filterwarnings("ignore", message="cuda.bindings.nvjitlink is not available")


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


n = 100_000
x = np.arange(n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
out = cuda.device_array_like(x)
saxpy[(n + 255) // 256, 256](np.float32(2.0), cuda.to_device(x), cuda.to_device(y), out)
got = out.copy_to_host()
dev = cuda.get_current_device()
print(f"device: {dev.name}, compute capability {dev.compute_capability[0]}.{dev.compute_capability[1]}")
print("out[:5] =", got[:5])
print("matches NumPy:", np.array_equal(got, np.float32(2.0) * x + y))
