"""Tensor-core kernels of nvcc/wmma.ptx (source wmma.cu, CUDA's
nvcuda::wmma): products of small integers and quarters, whose every partial
sum is exact in the accumulator type, so the result does not depend on how
the hardware orders or rounds the accumulation; references in exact
arithmetic."""
import numpy as np
from golden_lib import *


def wmma_gemm():
    rng = np.random.default_rng(101)
    M = N = K = 32
    a = (rng.integers(-8, 8, (M, K)) / 4).astype(np.float16)
    bt = (rng.integers(-8, 8, (N, K)) / 2).astype(np.float16)  # B column-major: bt[n, k] = B(k, n)
    c0 = rng.integers(-100, 100, (M, N)).astype(np.float32)
    alpha, beta = 2.0, -0.5
    case = Case("wmma_gemm", "nvcc/wmma.ptx", "wmma_gemm", (1, 1, 1), (64, 2, 1),
                note="nvcc wmma.cu: 32x32x32 f16 GEMM on tensor cores (m16n16k16, f32 accumulators), C = alpha AB + beta C")
    case.buf(a.reshape(-1))
    case.buf(bt.reshape(-1))
    k = case.buf(c0.reshape(-1))
    case.val("s32", M)
    case.val("s32", N)
    case.val("s32", K)
    case.val("f32", alpha)
    case.val("f32", beta)
    ab = a.astype(np.float64) @ bt.astype(np.float64).T
    want = alpha * ab + beta * c0.astype(np.float64)
    case.approx(k, want.reshape(-1), np.zeros(M * N), "c")
    return case


def wmma_f16acc():
    rng = np.random.default_rng(102)
    a = rng.integers(-4, 5, 32 * 16).astype(np.float16)  # A 32x16 column-major
    b = rng.integers(-4, 5, 16 * 8).astype(np.float16)   # B 16x8 row-major
    case = Case("wmma_f16acc", "nvcc/wmma.ptx", "wmma_f16acc", (1, 1, 1), (32, 1, 1),
                note="nvcc wmma.cu: m32n8k16 with f16 accumulators, A staged in shared memory, D stored column-major")
    case.buf(a)
    case.buf(b)
    k = case.buf(np.full(32 * 8, np.nan, np.float16))
    A = a.astype(np.float64).reshape(16, 32).T  # A[r, k] at k * 32 + r
    B = b.astype(np.float64).reshape(16, 8)
    D = A @ B + 1.0
    case.approx(k, D.T.reshape(-1), np.zeros(256), "d")  # column-major: D[r, c] at c * 32 + r
    return case


CASES = [wmma_gemm, wmma_f16acc]


def bf16_bits(v):
    b = np.asarray(v, np.float32).view(np.uint32)
    assert not (b & 0xffff).any()
    return (b >> 16).astype(np.uint16)


def wmma_bf16():
    rng = np.random.default_rng(103)
    a = (rng.integers(-8, 8, 256) / 2).astype(np.float32)   # bf16-exact
    b = (rng.integers(-8, 8, 512) / 4).astype(np.float32)
    c2 = rng.integers(-50, 50, 256).astype(np.float32)
    case = Case("wmma_bf16", "nvcc/wmma_bf16.ptx", "wmma_bf16", (1, 1, 1), (32, 1, 1),
                note="nvcc wmma_bf16.cu: bf16 m16n16k16 (row, row) and m8n32k16 (col, col) tiles with f32 accumulators")
    case.buf(bf16_bits(a), "bf16")
    case.buf(bf16_bits(b), "bf16")
    k1 = case.buf(np.full(256, np.nan, np.float32))
    k2 = case.buf(c2)
    A = a.astype(np.float64).reshape(16, 16)
    B = b[:256].astype(np.float64).reshape(16, 16)
    D1 = A @ B + 0.5
    A2 = a[:128].astype(np.float64).reshape(16, 8).T          # A2[r, k] at k * 8 + r
    B2 = b.astype(np.float64).reshape(32, 16).T               # B2[k, n] at n * 16 + k
    C2 = c2.astype(np.float64).reshape(8, 32)                 # C2[r, n] at r * 32 + n
    D2 = A2 @ B2 + C2
    case.approx(k1, D1.reshape(-1), np.zeros(256), "d16x16")
    case.approx(k2, D2.T.reshape(-1), np.zeros(256), "d8x32")  # column-major, ldm 8
    return case


CASES = [wmma_gemm, wmma_f16acc, wmma_bf16]
