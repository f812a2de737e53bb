"""A tiled matmul with tl.dot: float16 inputs, float32 accumulation,
C (200x176) = A (200x136) @ B (136x176), 64x64 tiles with K steps of 32 and
masked edges (no dimension is a multiple of its tile). At cc 8.0 Triton
lowers tl.dot to mma.sync with ldmatrix and cp.async (checked in the PTX).

Tolerance: the product of two float16 values is exact in float32 (11-bit
significands give at most 22 bits), so the only error is the float32
accumulation of K terms, bounded (Higham, gamma_K) by
K * 2^-24 * sum_k |a_ik b_kj| for any summation order; each element is
checked against that bound, with the reference computed in float64 from the
same float16 inputs."""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import check, finish


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, out_dtype=tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(tensor_ops=("mma.sync",)):
    M, N, K = 200, 176, 136
    rng = np.random.default_rng(13)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = DeviceArray((M, N), np.float32)
    BM, BN, BK = 64, 64, 32
    kernel = matmul_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](DeviceArray.of(a), DeviceArray.of(b), c, M, N, K,
                                                                     BM=BM, BN=BN, BK=BK)
    got = c.get().astype(np.float64)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = a64 @ b64
    bound = K * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    err = np.abs(got - want)
    bad = np.flatnonzero(~(err <= bound))
    assert bad.size == 0, (f"{bad.size} elements exceed the accumulation bound; first at {np.unravel_index(bad[0], err.shape)}: "
                           f"{got.ravel()[bad[0]]} vs {want.ravel()[bad[0]]} (bound {bound.ravel()[bad[0]]:.2e})")
    ptx = kernel.asm.get("ptx", "")
    used = [w for w in ("mma.sync", "ldmatrix", "cp.async", "wgmma.mma_async", "fence.proxy.async") if w in ptx]
    assert all(w in ptx for w in tensor_ops), f"the PTX has no {tensor_ops}: tl.dot was not lowered to those tensor-core instructions"
    return (f"{M}x{K} @ {K}x{N} f16 -> f32 within the accumulation bound (max error {err.max():.1e}, "
            f"{(err / bound).max():.2f} of the bound); PTX uses {', '.join(used)}")


if __name__ == "__main__":
    check("tl.dot matmul f16 in, f32 accumulate", run)
    finish()
