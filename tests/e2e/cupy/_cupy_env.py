"""Imported first by the CuPy programs: the two settings under which CuPy
runs on ptxsim, set before `import cupy` (run.py sets them as well).

- CUPY_COMPILE_WITH_PTX=1: CuPy asks NVRTC for PTX (`-arch=compute_XY`,
  nvrtcGetPTX) instead of a cubin for the device's sm_XY (cupy/cuda/
  compiler.py, `_get_arch_for_options_for_nvrtc`); ptxsim runs PTX only.
- CUPY_ACCELERATORS="": CuPy's own reduction kernels (compiled by NVRTC)
  instead of its prebuilt CUB library, whose fatbin holds PTX for the
  newest architecture only (compute_120), which a cc 8.0 device cannot run.
"""
import os

os.environ.setdefault("CUPY_COMPILE_WITH_PTX", "1")
os.environ.setdefault("CUPY_ACCELERATORS", "")
