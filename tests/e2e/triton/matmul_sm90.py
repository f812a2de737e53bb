"""The f16 tl.dot matmul of matmul.py, compiled by Triton for sm_90 (the
device reports compute capability 9.0; Triton's target is then sm_90a): the
dot becomes wgmma.mma_async from shared-memory matrix descriptors, with
wgmma.fence / commit_group / wait_group and fence.proxy.async. Same inputs,
the same NumPy reference and the same accumulation bound as the sm_80 build.

e2e-cc: 9.0
"""
from matmul import run
from e2e_check import check, finish

check("tl.dot matmul f16 in, f32 accumulate, sm_90 wgmma", lambda: run(tensor_ops=("wgmma.mma_async",)))
finish()
