"""Triton kernels for the PTX corpus.

Run with a Python that has triton==3.3.1 (PyPI; no GPU, driver or torch
needed):
    python tr_kernels.py OUTDIR PENDING_DIR
Each kernel is compiled ahead of time with triton.compile for an sm_80 target
(GPUTarget("cuda", 80, 32), num_warps=4; to_fp8 also for sm_89 and sm_90) and its PTX is written to
OUTDIR/tr_<name>.ptx, or PENDING_DIR/tr_<name>.ptx for the kernels in
PENDING. Each directory gets a launch.tsv with the kernel name, num_warps
and the dynamic shared memory size that Triton computed. Triton's
compilation cache goes to a temporary directory, so the output does not
depend on earlier runs.
"""
import atexit
import os
import shutil
import sys
import tempfile

_CACHE = tempfile.mkdtemp(prefix="tr_kernels_cache_")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["TRITON_CACHE_DIR"] = _CACHE

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_row(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, d * rstd * w + b, mask=mask)


@triton.jit
def block_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def block_sum_f32(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def max_abs(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_max(out_ptr, tl.max(tl.abs(x), axis=0))


@triton.jit
def cumsum_i32(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)


@triton.jit
def argmax_row(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def randint(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randint(seed, offs), mask=offs < n)


@triton.jit
def add_f16(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def gelu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def sort_i32(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs)))

@triton.jit
def histogram(x_ptr, out_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = tl.histogram(tl.load(x_ptr + offs), BINS)
    tl.atomic_add(out_ptr + tl.arange(0, BINS), h)

@triton.jit
def atomic_add_f32(x_ptr, out_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.atomic_add(out_ptr + tl.load(idx_ptr + offs, mask=m, other=0), tl.load(x_ptr + offs, mask=m, other=0.0), mask=m)

@triton.jit
def to_bf16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m).to(tl.bfloat16), mask=m)

@triton.jit
def quant_i8(x_ptr, out_ptr, scale, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    q = tl.clamp(tl.extra.cuda.libdevice.rint(tl.load(x_ptr + offs, mask=m) * scale), -128.0, 127.0)
    tl.store(out_ptr + offs, q.to(tl.int8), mask=m)

@triton.jit
def max_nan(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    z = tl.maximum(tl.load(x_ptr + offs, mask=m), tl.load(y_ptr + offs, mask=m), propagate_nan=tl.PropagateNan.ALL)
    tl.store(out_ptr + offs, z, mask=m)


@triton.jit
def matmul_small(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)

@triton.jit
def print_values(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x", x)

@triton.jit
def checked_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "negative input")
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


# math_ops, scans and softmax_f16 are checked against the golden references
# of golden_triton.py (tests/corpus/golden/tr_*).
@triton.jit
def math_ops(x_ptr, y_ptr, u_ptr, out_ptr, iout_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    u = tl.load(u_ptr + offs, mask=mask, other=1)
    ax = tl.abs(x)
    tl.store(out_ptr + 0 * n + offs, tl.sqrt_rn(ax), mask=mask)
    tl.store(out_ptr + 1 * n + offs, tl.div_rn(x, y), mask=mask)
    tl.store(out_ptr + 2 * n + offs, tl.fma(x, y, x), mask=mask)
    tl.store(out_ptr + 3 * n + offs, tl.math.rsqrt(ax), mask=mask)
    tl.store(out_ptr + 4 * n + offs, tl.exp2(x), mask=mask)
    tl.store(out_ptr + 5 * n + offs, tl.log2(ax), mask=mask)
    tl.store(out_ptr + 6 * n + offs, tl.cos(x), mask=mask)
    tl.store(out_ptr + 7 * n + offs, tl.sin(x), mask=mask)
    tl.store(out_ptr + 8 * n + offs, tl.floor(x), mask=mask)
    tl.store(out_ptr + 9 * n + offs, tl.ceil(x), mask=mask)
    tl.store(out_ptr + 10 * n + offs, tl.clamp(x, -1.0, 1.0), mask=mask)
    tl.store(out_ptr + 11 * n + offs, tl.where(x > y, x, y), mask=mask)
    tl.store(out_ptr + 12 * n + offs, x % y, mask=mask)
    tl.store(out_ptr + 13 * n + offs, tl.exp(x), mask=mask)
    tl.store(out_ptr + 14 * n + offs, tl.log(ax), mask=mask)
    tl.store(out_ptr + 15 * n + offs, x / y, mask=mask)
    tl.store(iout_ptr + 0 * n + offs, tl.umulhi(u, u + 12345), mask=mask)
    s = u.to(tl.int32)
    t = (s >> 3) + 7
    tl.store(iout_ptr + 1 * n + offs, (s // t).to(tl.uint32), mask=mask)
    tl.store(iout_ptr + 2 * n + offs, (s % t).to(tl.uint32), mask=mask)
    tl.store(iout_ptr + 3 * n + offs, (x * 1000.0).to(tl.int32).to(tl.uint32), mask=mask)


@triton.jit
def scans(x_ptr, i_ptr, out_ptr, iout_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + cols)
    v = tl.load(i_ptr + row * BLOCK + cols)
    tl.store(out_ptr + row * BLOCK + cols, tl.cumsum(x, axis=0))
    tl.store(iout_ptr + row * 4 * BLOCK + cols, tl.cumprod(v % 3 + 1, axis=0))
    tl.store(iout_ptr + row * 4 * BLOCK + BLOCK + cols, tl.cumsum(v, axis=0, reverse=True))
    tl.store(iout_ptr + row * 4 * BLOCK + 2 * BLOCK + cols, tl.flip(v, 0))
    amin = tl.argmin(x, axis=0)
    mx = tl.max(v, axis=0)
    tl.store(iout_ptr + row * 4 * BLOCK + 3 * BLOCK + cols, tl.where(cols == 0, amin, tl.where(cols == 1, mx, tl.sum(v, axis=0))))


@triton.jit
def softmax_f16(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * n_cols + cols, (num / den).to(tl.float16), mask=mask)


# to_fp8 (compiled for sm_89 and sm_90, where Triton has fp8 conversions) is
# checked against the golden references of golden_fp8.py.
@triton.jit
def to_fp8(x_ptr, e4_ptr, e5_ptr, back_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    a = x.to(tl.float8e4nv)
    b = x.to(tl.float8e5)
    tl.store(e4_ptr + offs, a, mask=m)
    tl.store(e5_ptr + offs, b, mask=m)
    tl.store(back_ptr + offs, a.to(tl.float32), mask=m)
    tl.store(back_ptr + n + offs, b.to(tl.float32), mask=m)


def MM_SIG(t):
    return {"a_ptr": "*" + t, "b_ptr": "*" + t, "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
            "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32",
            "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "PRECISION": "constexpr"}


# name: (kernel, signature, constexprs[, extra compile options])
KERNELS = {
    "vector_add": (vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    "softmax_row": (softmax_row, {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32",
                                  "out_stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
                    {"BLOCK": 256}),
    "layer_norm": (layer_norm, {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                                "stride": "i32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"},
                   {"BLOCK": 256}),
    "block_sum_i32": (block_sum, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"},
                      {"BLOCK": 512}),
    "block_sum_f32": (block_sum_f32, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                      {"BLOCK": 512}),
    "max_abs": (max_abs, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                {"BLOCK": 512}),
    "cumsum_i32": (cumsum_i32, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"},
                   {"BLOCK": 256}),
    "argmax_row": (argmax_row, {"x_ptr": "*fp32", "out_ptr": "*i32", "stride": "i32", "n_cols": "i32",
                                "BLOCK": "constexpr"}, {"BLOCK": 256}),
    "randint": (randint, {"out_ptr": "*u32", "seed": "i64", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}),
    "add_f16": (add_f16, {"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32",
                          "BLOCK": "constexpr"}, {"BLOCK": 1024}),
    "gelu": (gelu, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}),
    "sort_i32": (sort_i32, {"x_ptr": "*i32", "out_ptr": "*i32", "BLOCK": "constexpr"}, {"BLOCK": 128}),
    "histogram": (histogram, {"x_ptr": "*i32", "out_ptr": "*i32", "BLOCK": "constexpr", "BINS": "constexpr"},
                  {"BLOCK": 512, "BINS": 16}),
    "atomic_add_f32": (atomic_add_f32, {"x_ptr": "*fp32", "out_ptr": "*fp32", "idx_ptr": "*i32", "n": "i32",
                                        "BLOCK": "constexpr"}, {"BLOCK": 512}),
    "to_bf16": (to_bf16, {"x_ptr": "*fp32", "out_ptr": "*bf16", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 512}),
    "quant_i8": (quant_i8, {"x_ptr": "*fp32", "out_ptr": "*i8", "scale": "fp32", "n": "i32", "BLOCK": "constexpr"},
                 {"BLOCK": 512}),
    "max_nan": (max_nan, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                          "BLOCK": "constexpr"}, {"BLOCK": 512}),
    # device_assert needs debug=True (a call to __assertfail where it fails).
    "checked_copy": (checked_copy, {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"},
                     {"BLOCK": 512}, {"debug": True}),
    "print_values": (print_values, {"x_ptr": "*i32", "BLOCK": "constexpr"}, {"BLOCK": 128}),
    "matmul_i8": (matmul_small, {"a_ptr": "*i8", "b_ptr": "*i8", "c_ptr": "*i32", "BM": "constexpr",
                                 "BN": "constexpr", "BK": "constexpr"}, {"BM": 32, "BN": 32, "BK": 32}),
    "matmul_bf16": (matmul_small, {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*fp32", "BM": "constexpr",
                                   "BN": "constexpr", "BK": "constexpr"}, {"BM": 32, "BN": 32, "BK": 32}),
    # tl.dot on f16 (mma.sync m16n8k16 + ldmatrix), on f32 as tf32 (Triton's
    # default: mma.sync tf32 + cp.async), and on f32 with IEEE precision
    # (FMAs), without and with Triton's default software pipelining
    # (num_stages=3: cp.async into shared memory).
    "matmul_f16": (matmul, MM_SIG("fp16"), {"BM": 32, "BN": 32, "BK": 32, "PRECISION": "tf32"}),
    "matmul_tf32": (matmul, MM_SIG("fp32"), {"BM": 32, "BN": 32, "BK": 32, "PRECISION": "tf32"}),
    "matmul_f32_ieee": (matmul, MM_SIG("fp32"), {"BM": 32, "BN": 32, "BK": 16, "PRECISION": "ieee"},
                        {"num_stages": 1}),
    "matmul_f32_ieee_pipelined": (matmul, MM_SIG("fp32"), {"BM": 32, "BN": 32, "BK": 16, "PRECISION": "ieee"}),
    "math_ops": (math_ops, {"x_ptr": "*fp32", "y_ptr": "*fp32", "u_ptr": "*u32", "out_ptr": "*fp32",
                            "iout_ptr": "*u32", "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256}),
    "scans": (scans, {"x_ptr": "*fp32", "i_ptr": "*i32", "out_ptr": "*fp32", "iout_ptr": "*i32",
                      "BLOCK": "constexpr"}, {"BLOCK": 128}),
    "softmax_f16": (softmax_f16, {"out_ptr": "*fp16", "in_ptr": "*fp16", "n_cols": "i32", "BLOCK": "constexpr"},
                    {"BLOCK": 128}),
    # fp8 conversions: cvt.rz.f16.f32 + cvt.rn.satfinite.e4m3x2.f16x2 and
    # integer rounding for e5m2 at sm_89; cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32
    # at sm_90 (Triton's target is then sm_90a)
    "to_fp8_sm89": (to_fp8, {"x_ptr": "*fp32", "e4_ptr": "*fp8e4nv", "e5_ptr": "*fp8e5", "back_ptr": "*fp32",
                                 "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256}, {"cc": 89}),
    # tl.dot on float8e4nv x float8e5 at sm_89: mma.sync m16n8k32 .e4m3/.e5m2 into f32
    "matmul_fp8_sm89": (matmul_small, {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e5", "c_ptr": "*fp32", "BM": "constexpr",
                                       "BN": "constexpr", "BK": "constexpr"}, {"BM": 32, "BN": 32, "BK": 32}, {"cc": 89}),
    # tl.dot on f16 at sm_90 (Triton's target is then sm_90a) with a 64-row
    # tile: wgmma.mma_async m64n64k16 f32.f16.f16 from shared-memory
    # descriptors, wgmma.fence/commit_group/wait_group, fence.proxy.async,
    # cp.async pipelining; the same kernel as matmul_f16 (sm_80, mma.sync).
    "matmul_f16_sm90": (matmul, MM_SIG("fp16"), {"BM": 64, "BN": 64, "BK": 32, "PRECISION": "tf32"}, {"cc": 90}),
    "to_fp8_sm90": (to_fp8, {"x_ptr": "*fp32", "e4_ptr": "*fp8e4nv", "e5_ptr": "*fp8e5", "back_ptr": "*fp32",
                                 "n": "i32", "BLOCK": "constexpr"}, {"BLOCK": 256}, {"cc": 90}),
}


# Kernels whose PTX the engine cannot run yet (an instruction it does not
# support): written to PENDING_DIR instead of OUTDIR.
PENDING = set()


def main():
    outdir, pending_dir = sys.argv[1], sys.argv[2]
    target = GPUTarget("cuda", 80, 32)
    tables = {outdir: [], pending_dir: []}
    for name, (fn, sig, consts, *extra) in KERNELS.items():
        src = ASTSource(fn=fn, signature=sig, constexprs=consts)
        opts = dict(extra[0]) if extra else {}
        cc = opts.pop("cc", 80)  # the target's compute capability (sm_80 unless named)
        k = triton.compile(src, target=GPUTarget("cuda", cc, 32) if cc != 80 else target, options={"num_warps": 4, **opts})
        d = pending_dir if name in PENDING else outdir
        with open(f"{d}/tr_{name}.ptx", "w") as fh:
            fh.write(k.asm["ptx"])
        tables[d].append(f"tr_{name}.ptx\t{k.metadata.name}\t{k.metadata.num_warps}\t{k.metadata.shared}\n")
    # The launch parameters Triton computed: block = 32 * num_warps threads,
    # dynamic shared memory (the `.extern .shared` array) in bytes.
    for d, rows in tables.items():
        with open(f"{d}/launch.tsv", "w") as fh:
            fh.write("file\tkernel\tnum_warps\tshared_bytes\n")
            fh.writelines(rows)


if __name__ == "__main__":
    main()
