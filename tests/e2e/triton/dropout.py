"""Seeded dropout with tl.rand: keep x[i] / (1 - p) where rand(seed, i) > p,
else 0. The random numbers are compared bit for bit with a NumPy
implementation of Triton's generator as triton/language/random.py defines
it: Philox4x32 with 10 rounds, counter (offset, 0, 0, 0) and key
(seed low 32 bits, seed high 32 bits); tl.rand takes the first word, reads
it as int32, maps negative x to -x - 1 and multiplies by 4.6566127342e-10
in float32. The kernel also stores those numbers, so they are checked
exactly; the kept mask must match exactly, and the kept values within 2 ulp
(Triton divides float32 with div.full.f32, which the PTX manual bounds at
2 ulp)."""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import assert_equal, check, finish, ulp_distance


@triton.jit
def dropout_kernel(x_ptr, out_ptr, rand_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)
    tl.store(rand_ptr + offs, r, mask=mask)


M32 = np.uint64(0xFFFFFFFF)


def umulhi(a, b):
    return ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32)


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 (Salmon et al., SC'11) with the constants of Triton's random.py."""
    A, B = np.uint32(0xD2511F53), np.uint32(0xCD9E8D57)
    KA, KB = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
    with np.errstate(over="ignore"):
        for _ in range(10):
            _c0, _c2 = c0, c2
            c0 = umulhi(np.full_like(_c2, B), _c2) ^ c1 ^ k0
            c2 = umulhi(np.full_like(_c0, A), _c0) ^ c3 ^ k1
            c1 = (B * _c2).astype(np.uint32)
            c3 = (A * _c0).astype(np.uint32)
            k0 = np.uint32(k0 + KA)
            k1 = np.uint32(k1 + KB)
    return c0, c1, c2, c3


def numpy_rand(seed, offsets):
    c0 = offsets.astype(np.uint32)
    zero = np.zeros_like(c0)
    k0 = np.uint32(np.uint64(seed) & M32)
    k1 = np.uint32(np.uint64(seed) >> np.uint64(32))
    r = philox4x32_10(c0, zero, zero, zero, k0, k1)[0].view(np.int32).astype(np.int64)
    r = np.where(r < 0, -r - 1, r).astype(np.int32)
    return r.astype(np.float32) * np.float32(4.6566127342e-10)


def run():
    n, p, seed = 50000, 0.3, 0x1234_5678_9ABC
    x = np.random.default_rng(14).standard_normal(n).astype(np.float32)
    out, rand = DeviceArray(n, np.float32), DeviceArray(n, np.float32)
    dropout_kernel[(triton.cdiv(n, 1024),)](DeviceArray.of(x), out, rand, n, p, seed, BLOCK=1024)
    want_r = numpy_rand(seed, np.arange(n))
    got_r = rand.get()
    assert_equal(got_r.view(np.uint32), want_r.view(np.uint32), "tl.rand bits")
    keep = want_r > np.float32(p)
    got = out.get()
    assert_equal(got != 0, keep & (x != 0), "kept elements")
    scaled = (x / np.float32(1 - np.float32(p))).astype(np.float32)
    d = ulp_distance(got[keep], scaled[keep])
    assert d.max() <= 2, f"a kept value differs by {d.max()} ulp from x / (1 - p)"
    return (f"{n} tl.rand values equal the NumPy Philox4x32-10 bit for bit; {keep.mean():.3f} kept "
            f"(p = {p}), values within {d.max()} ulp of x / (1 - p)")


check("dropout with tl.rand", run)
finish()
