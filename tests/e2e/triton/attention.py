"""Attention forward, flash-attention style: for each block of 64 queries
and each head, loop over the keys in blocks of 32 with an online softmax
(running maximum and sum, rescaled per block), S = Q K^T and O += P V both
with tl.dot on float16 inputs and float32 accumulation. 2 batches x 3 heads,
160 queries and keys (not a multiple of either block: masked), head size 64;
softmax scale 1/sqrt(64). Compared with NumPy in float64:
O = softmax(Q K^T / 8) V, computed from the same float16 inputs; then the
causal variant (key j > query i masked out).

Tolerance: Q K^T accumulates exact f16 products in f32 (error ~ 64 * 2^-24 *
sum |q k|, ~1e-5 here), exp is ex2.approx (2^-22 relative), and P is
rounded to float16 before the P V product (Triton's tutorial kernel does the
same), which changes each weight by up to 2^-11 relative. So each output
element is within 2^-11 * sum_j p_ij |v_jd| (plus float32 effects far below
1e-4) of the exact value; that bound plus 1e-4 is checked per element."""
import math

import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import check, finish


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)  # batch * heads + head
    base = bh * seq * D
    rm = start_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :], mask=rm[:, None] < seq, other=0.0)
    m_i = tl.full((BM,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    qk_scale = scale * 1.44269504  # exp(x) = 2^(x * log2 e)
    for start_n in range(0, seq, BN):
        rn = start_n + tl.arange(0, BN)
        k = tl.load(k_ptr + base + rn[None, :] * D + rd[:, None], mask=rn[None, :] < seq, other=0.0)  # K^T block
        s = tl.dot(q, k) * qk_scale
        s = tl.where(rn[None, :] < seq, s, -float("inf"))
        if CAUSAL:
            s = tl.where(rn[None, :] <= rm[:, None], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + rn[:, None] * D + rd[None, :], mask=rn[:, None] < seq, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], acc, mask=rm[:, None] < seq)


def run(causal=False, tensor_ops=()):
    batch, heads, seq, d = 2, 3, 160, 64
    rng = np.random.default_rng(15)
    q, k, v = (rng.standard_normal((batch, heads, seq, d)).astype(np.float16) for _ in range(3))
    o = DeviceArray((batch, heads, seq, d), np.float32)
    scale = 1.0 / math.sqrt(d)
    BM, BN = 64, 32
    kernel = attn_fwd[(triton.cdiv(seq, BM), batch * heads)](DeviceArray.of(q), DeviceArray.of(k), DeviceArray.of(v), o,
                                                              seq, scale, D=d, BM=BM, BN=BN, CAUSAL=causal)
    ptx = kernel.asm.get("ptx", "")
    assert all(w in ptx for w in tensor_ops), f"the PTX has no {tensor_ops}"
    q64, k64, v64 = (t.astype(np.float64) for t in (q, k, v))
    s = q64 @ k64.swapaxes(-1, -2) * scale
    if causal:
        s = np.where(np.tril(np.ones((seq, seq), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    want = p @ v64
    bound = 2.0 ** -11 * (p @ np.abs(v64)) + 1e-4
    got = o.get().astype(np.float64)
    err = np.abs(got - want)
    bad = np.flatnonzero(~(err <= bound))
    assert bad.size == 0, (f"{bad.size} of {err.size} elements out of bound; first at {np.unravel_index(bad[0], err.shape)}: "
                           f"{got.ravel()[bad[0]]} vs {want.ravel()[bad[0]]} (bound {bound.ravel()[bad[0]]:.1e})")
    return f"{batch}x{heads} heads, {seq} tokens, d {d}{', causal' if causal else ''}: within the f16 rounding bound of NumPy (max error {err.max():.1e}, {(err / bound).max():.2f} of the bound)"


if __name__ == "__main__":
    check("attention forward", run)
    check("attention forward, causal", lambda: run(causal=True))
    finish()
