"""CuPy RawKernel and RawModule on ptxsim: CUDA C++ compiled by NVRTC to
PTX, loaded through cuModuleLoadData and launched; a kernel with shared
memory and __syncthreads, a module with two kernels and a __constant__
array read through get_global, name expressions for a template; compared
with NumPy."""
import _cupy_env  # noqa: F401
import cupy as cp
import numpy as np
from e2e_check import assert_equal, check, finish

SRC = r'''
extern "C" __global__ void block_reverse(const int* x, int* y) {
    __shared__ int s[128];
    int t = threadIdx.x, base = blockIdx.x * 128;
    s[t] = x[base + t];
    __syncthreads();
    y[base + t] = s[127 - t];
}
'''

MOD = r'''
__constant__ float scale[4];
extern "C" __global__ void scaled(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * scale[i % 4];
}
template<typename T> __global__ void add_one(T* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += T(1);
}
'''


def raw_kernel():
    k = cp.RawKernel(SRC, "block_reverse")
    x = np.arange(512, dtype=np.int32)
    dy = cp.empty(512, dtype=cp.int32)
    k((4,), (128,), (cp.asarray(x), dy))
    assert_equal(dy.get(), x.reshape(4, 128)[:, ::-1].ravel(), "block reverse")
    return "shared-memory reverse of 4 blocks of 128"


def raw_module():
    m = cp.RawModule(code=MOD, options=("-std=c++17",), name_expressions=("add_one<int>", "add_one<double>"))
    sc = np.array([1, -2, 0.5, 4], dtype=np.float32)
    g = m.get_global("scale")
    cp.ndarray(4, cp.float32, g).set(sc)
    x = np.linspace(-3, 3, 1000).astype(np.float32)
    dy = cp.empty_like(cp.asarray(x))
    m.get_function("scaled")((4,), (256,), (cp.asarray(x), dy, cp.int32(1000)))
    assert_equal(dy.get(), x * np.tile(sc, 250), "scaled by __constant__")
    di = cp.arange(100, dtype=cp.int32)
    dd = cp.zeros(50, dtype=cp.float64)
    m.get_function("add_one<int>")((1,), (128,), (di, cp.int32(100)))
    m.get_function("add_one<double>")((1,), (64,), (dd, cp.int32(50)))
    assert_equal(di.get(), np.arange(100) + 1, "add_one<int>")
    assert_equal(dd.get(), np.ones(50), "add_one<double>")
    return "__constant__ through get_global, two template instances"


check("raw_kernel", raw_kernel)
check("raw_module", raw_module)
finish()
