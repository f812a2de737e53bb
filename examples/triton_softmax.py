"""A Triton kernel (a fused row softmax) run on ptxsim's driver library,
without torch and without a GPU:

    cargo build --release -p ptxsim -p ptxsim-cuda
    target/release/ptxsim exec -- "$(scripts/e2e-venv triton)/bin/python" examples/triton_softmax.py

`ptxsim exec` gives Triton the library as libcuda.so.1 and a pass-through
ptxas; triton_notorch (beside this file) lets Triton run without torch and
allocates device memory."""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import CAPABILITY, DeviceArray


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, num / tl.sum(num, axis=0), mask=mask)


rows, cols = 4, 300
x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
out = DeviceArray((rows, cols), np.float32)
softmax_kernel[(rows,)](out, DeviceArray.of(x), cols, BLOCK=triton.next_power_of_2(cols))
got = out.get()
e = np.exp(x - x.max(axis=1, keepdims=True))
print(f"compute capability {CAPABILITY[0]}.{CAPABILITY[1]}; row sums:", got.sum(axis=1))
print("largest difference from NumPy:", float(np.abs(got - e / e.sum(axis=1, keepdims=True)).max()))
