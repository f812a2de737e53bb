"""The flash-attention forward of attention.py (non-causal and causal),
compiled by Triton for sm_90 (compute capability 9.0, target sm_90a): both
tl.dot become wgmma.mma_async. The same NumPy reference and f16 rounding
bound as the sm_80 build.

e2e-cc: 9.0
"""
from attention import run
from e2e_check import check, finish

check("attention forward, sm_90 wgmma", lambda: run(tensor_ops=("wgmma.mma_async",)))
check("attention forward, causal, sm_90 wgmma", lambda: run(causal=True, tensor_ops=("wgmma.mma_async",)))
finish()
