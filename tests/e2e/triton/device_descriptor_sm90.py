"""Tensor descriptors made on the device, compiled by Triton for sm_90
(compute capability 9.0, target sm_90a): tl._experimental_make_tensor_descriptor
builds each CUtensorMap in the kernel (128 zeroed bytes of shared memory,
every field written with tensormap.replace, copied to a global scratch
buffer from triton.set_allocator with tensormap.cp_fenceproxy, then
fence.proxy.tensormap::generic.acquire); each program loads a tile through
one descriptor (cp.async.bulk.tensor) and stores 2x+1 through another.
Compared with NumPy exactly (2x+1 is exact in float32 for these values);
the edge tiles' out-of-bounds parts are neither read nor written.

e2e-cc: 9.0
"""
import numpy as np
import triton
import triton.language as tl

from triton_notorch import DeviceArray
from e2e_check import check, finish


@triton.jit
def scale(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl._experimental_make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl._experimental_make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm, pn = tl.program_id(0), tl.program_id(1)
    x = xd.load([pm * BM, pn * BN])
    yd.store([pm * BM, pn * BN], x * 2.0 + 1.0)


def run():
    scratch = []

    def alloc(size, alignment, stream):
        buf = DeviceArray((size + alignment,), np.int8)
        scratch.append(buf)
        return buf

    triton.set_allocator(alloc)
    M, N, BM, BN = 100, 72, 32, 32
    rng = np.random.default_rng(5)
    x = (rng.integers(-1000, 1000, (M, N)) / 8.0).astype(np.float32)
    dx = DeviceArray.of(x)
    y = np.full((M, N), -7.0, np.float32)
    dy = DeviceArray.of(y)
    k = scale[(triton.cdiv(M, BM), triton.cdiv(N, BN))](dx, dy, M, N, BM=BM, BN=BN)
    got = dy.get()
    want = x * 2.0 + 1.0
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size} of {got.size} differ; first at {np.unravel_index(bad[0], got.shape)}: {got.ravel()[bad[0]]} vs {want.ravel()[bad[0]]}"
    ptx = k.asm.get("ptx", "")
    for w in ("tensormap.replace", "tensormap.cp_fenceproxy", "cp.async.bulk.tensor"):
        assert w in ptx, f"the PTX has no {w}"
    return f"{M}x{N} f32 in {BM}x{BN} tiles through device-made tensor maps, every element exact"


check("device-side tensor descriptors (tensormap.replace), sm_90", run)
finish()
