"""A persistent matmul with TMA tensor maps, compiled by Triton for sm_90
(compute capability 9.0, target sm_90a): the host encodes one 2-D tensor map
per operand (Triton's driver utility fill_2d_tma_descriptor, i.e.
cuTensorMapEncodeTiled of ptxsim's libcuda) into a 64-byte-aligned host
buffer, passed by value as a `.param` CUtensorMap; each program loops over
output tiles (stride: the number of programs) and loads A and B^T tiles with
tl._experimental_descriptor_load (cp.async.bulk.tensor.2d into shared memory,
completing on an mbarrier), then tl.dot (wgmma.mma_async). Compared with
NumPy in float64 within the accumulation bound, as matmul.py is.

e2e-cc: 9.0
"""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import check, finish


class TmaDesc:
    """A CUtensorMap in host memory (128 bytes, 64-byte aligned), as
    triton.tools.experimental_descriptor makes one with torch."""

    def __init__(self, ptr, dims, block, elem_size):
        self.buf = np.zeros(128 + 64, np.uint8)
        self.addr = (self.buf.ctypes.data + 63) // 64 * 64
        triton.runtime.driver.active.utils.fill_2d_tma_descriptor(ptr, dims[0], dims[1], block[0], block[1], elem_size, self.addr)

    def tma_desc_cpu_ptr(self):
        return self.addr


@triton.jit
def tma_matmul(a_desc, bt_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               PROGRAMS: tl.constexpr):
    num_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * num_n, PROGRAMS):
        pm = tile // num_n
        pn = tile % num_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl._experimental_descriptor_load(a_desc, [pm * BM, k], [BM, BK], tl.float16)
            bt = tl._experimental_descriptor_load(bt_desc, [pn * BN, k], [BN, BK], tl.float16)
            acc += tl.dot(a, bt.T)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run():
    M, N, K = 200, 176, 136
    rng = np.random.default_rng(17)
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)  # B transposed: K contiguous
    da, dbt = DeviceArray.of(a), DeviceArray.of(bt)
    c = DeviceArray((M, N), np.float32)
    BM, BN, BK, programs = 64, 64, 32, 5
    # Out-of-bounds box elements (M, N and K are not multiples of the box) read as zeros.
    a_desc = TmaDesc(da.data_ptr(), (M, K), (BM, BK), 2)
    bt_desc = TmaDesc(dbt.data_ptr(), (N, K), (BN, BK), 2)
    kernel = tma_matmul[(programs,)](a_desc, bt_desc, c, M, N, K, BM=BM, BN=BN, BK=BK, PROGRAMS=programs)
    got = c.get().astype(np.float64)
    a64, b64 = a.astype(np.float64), bt.astype(np.float64).T
    want = a64 @ b64
    bound = K * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    err = np.abs(got - want)
    bad = np.flatnonzero(~(err <= bound))
    assert bad.size == 0, (f"{bad.size} elements exceed the accumulation bound; first at {np.unravel_index(bad[0], err.shape)}: "
                           f"{got.ravel()[bad[0]]} vs {want.ravel()[bad[0]]} (bound {bound.ravel()[bad[0]]:.2e})")
    ptx = kernel.asm.get("ptx", "")
    for w in ("cp.async.bulk.tensor", "wgmma.mma_async", "mbarrier"):
        assert w in ptx, f"the PTX has no {w}"
    return (f"{M}x{K} @ {K}x{N} f16 -> f32 over {programs} persistent programs, TMA loads and wgmma, within the "
            f"accumulation bound (max error {err.max():.1e}, {(err / bound).max():.2f} of the bound)")


check("persistent TMA matmul f16, sm_90", run)
finish()
