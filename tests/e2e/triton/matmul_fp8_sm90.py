"""tl.dot on float8 inputs (A e4m3, B e5m2) into float32, compiled by Triton
for sm_90 (compute capability 9.0, target sm_90a): wgmma.mma_async
m64nNk32 .f32.e4m3.e5m2. The inputs are random fp8 codes (bytes, bitcast in
the kernel); the reference decodes them by the formats' definitions (e4m3:
bias 7, no infinities; e5m2: bias 15) and multiplies in float64; the result
must be within the float32 accumulation bound, as for matmul.py.

e2e-cc: 9.0
"""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import check, finish


@triton.jit
def matmul_fp8(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        kk = k + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a.to(tl.float8e4nv, bitcast=True), b.to(tl.float8e5, bitcast=True), acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def decode(codes, mbits, bias):
    s = np.where(codes & 0x80, -1.0, 1.0)
    e = (codes.astype(np.int64) >> mbits) & ((1 << (7 - mbits)) - 1)
    m = (codes & ((1 << mbits) - 1)).astype(np.float64)
    frac = np.where(e == 0, m / (1 << mbits), 1.0 + m / (1 << mbits))
    return s * frac * np.exp2(np.where(e == 0, 1 - bias, e - bias).astype(np.float64))


def run():
    M, N, K = 130, 96, 96
    rng = np.random.default_rng(19)
    # Exponent fields 4..10 (e4m3) and 12..18 (e5m2): magnitudes 2^-3..2^3, no NaN codes.
    a = (rng.integers(0, 2, (M, K)) << 7 | rng.integers(4, 11, (M, K)) << 3 | rng.integers(0, 8, (M, K))).astype(np.uint8)
    b = (rng.integers(0, 2, (K, N)) << 7 | rng.integers(12, 19, (K, N)) << 2 | rng.integers(0, 4, (K, N))).astype(np.uint8)
    c = DeviceArray((M, N), np.float32)
    BM, BN, BK = 64, 64, 32
    kernel = matmul_fp8[(triton.cdiv(M, BM), triton.cdiv(N, BN))](DeviceArray.of(a), DeviceArray.of(b), c, M, N, K,
                                                                  BM=BM, BN=BN, BK=BK)
    a64, b64 = decode(a, 3, 7), decode(b, 2, 15)
    want = a64 @ b64
    bound = K * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64))
    got = c.get().astype(np.float64)
    err = np.abs(got - want)
    bad = np.flatnonzero(~(err <= bound))
    assert bad.size == 0, (f"{bad.size} elements exceed the accumulation bound; first at {np.unravel_index(bad[0], err.shape)}: "
                           f"{got.ravel()[bad[0]]} vs {want.ravel()[bad[0]]} (bound {bound.ravel()[bad[0]]:.2e})")
    ptx = kernel.asm.get("ptx", "")
    assert "e4m3.e5m2" in ptx and "wgmma.mma_async" in ptx, "the PTX has no wgmma on e4m3 x e5m2"
    return (f"{M}x{K} @ {K}x{N} e4m3 x e5m2 -> f32 with wgmma, within the accumulation bound "
            f"(max error {err.max():.1e}, {(err / bound).max():.2f} of the bound)")


check("tl.dot matmul fp8 (e4m3 x e5m2) -> f32, sm_90", run)
finish()
