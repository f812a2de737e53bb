"""Triton 3.3.1 without torch, for examples/triton_softmax.py and the programs
of tests/e2e/triton (import it from this directory).

Triton's CUDA driver asks torch for the current device, stream and compute
capability and counts itself active only when torch.cuda is available; the
driver subclass below answers those itself (device 0, the null stream, the
capability read from libcuda.so.1). Device memory comes from cuMemAlloc_v2
through ctypes; Triton takes any object with data_ptr() and a .dtype whose
str() names the element type ("float32", "float16", ...) as a pointer."""
import ctypes

import numpy as np

cuda = ctypes.CDLL("libcuda.so.1")


def check_cu(r, what):
    if r != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(r, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: {r} {name.value.decode() if name.value else '?'}")


check_cu(cuda.cuInit(0), "cuInit")
_dev = ctypes.c_int()
check_cu(cuda.cuDeviceGet(ctypes.byref(_dev), 0), "cuDeviceGet")
_ctx = ctypes.c_void_p()
check_cu(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(_ctx), _dev), "cuDevicePrimaryCtxRetain")
check_cu(cuda.cuCtxSetCurrent(_ctx), "cuCtxSetCurrent")
_major, _minor = ctypes.c_int(), ctypes.c_int()
# CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76
check_cu(cuda.cuDeviceGetAttribute(ctypes.byref(_major), 75, _dev), "cuDeviceGetAttribute")
check_cu(cuda.cuDeviceGetAttribute(ctypes.byref(_minor), 76, _dev), "cuDeviceGetAttribute")
CAPABILITY = (_major.value, _minor.value)

import triton  # noqa: E402
from triton.backends.nvidia.driver import CudaDriver, CudaLauncher, CudaUtils  # noqa: E402


class _Driver(CudaDriver):
    def __init__(self):
        self.utils = CudaUtils()
        self.launcher_cls = CudaLauncher
        self.get_device_capability = lambda _device=0: CAPABILITY
        self.get_current_stream = lambda _device=0: 0
        self.get_current_device = lambda: 0
        self.set_current_device = lambda _device: None

    @staticmethod
    def is_active():
        return True


triton.runtime.driver.set_active(_Driver())


class DeviceArray:
    """A device buffer holding an array of a NumPy dtype and shape."""

    def __init__(self, shape, dtype):
        self.shape = tuple(shape) if isinstance(shape, tuple) else (int(shape),)
        self.np_dtype = np.dtype(dtype)
        self.dtype = str(self.np_dtype)
        self.nbytes = int(np.prod(self.shape)) * self.np_dtype.itemsize
        p = ctypes.c_uint64()
        check_cu(cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(self.nbytes, 1))), "cuMemAlloc_v2")
        self.ptr = p.value

    @classmethod
    def of(cls, a):
        d = cls(a.shape, a.dtype)
        a = np.ascontiguousarray(a)
        check_cu(cuda.cuMemcpyHtoD_v2(ctypes.c_uint64(d.ptr), a.ctypes.data_as(ctypes.c_void_p),
                                      ctypes.c_size_t(d.nbytes)), "cuMemcpyHtoD_v2")
        return d

    def data_ptr(self):
        return self.ptr

    def get(self):
        check_cu(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
        a = np.empty(self.shape, dtype=self.np_dtype)
        check_cu(cuda.cuMemcpyDtoH_v2(a.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(self.ptr),
                                      ctypes.c_size_t(self.nbytes)), "cuMemcpyDtoH_v2")
        return a
