"""Runs the golden cases of tests/corpus/golden on a real GPU (CuPy and the
CUDA driver's PTX JIT) and compares the results with the references the
same way crates/exec/tests/all/corpus_golden.rs compares ptxsim's: a check of
the references and their tolerances against hardware.

    python scripts/gpu_golden.py [CASE...]      # from the repository root
"""
import math, os, re, sys
import numpy as np
import cupy as cp

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "corpus")
DT = {"bf16": np.uint16, "f32": np.float32, "f64": np.float64, "s32": np.int32, "u32": np.uint32, "s64": np.int64, "u64": np.uint64,
      "s8": np.int8, "u8": np.uint8, "s16": np.int16, "u16": np.uint16, "f16": np.float16, "b16": np.uint16}


def agrees(got, want, tol):
    if tol < 0:
        return True
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or math.isinf(got) or tol == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= tol


def load_module(path, kernel):
    """The kernel of a module; nvcc 13.5's `.version 9.5` is lowered to 8.8
    (as for the ptxas 12.9 check) where the driver's JIT is older."""
    try:
        fn = cp.RawModule(path=path).get_function(kernel)
        fn.attributes  # loads the module now
        return fn
    except Exception:  # CUDA_ERROR_UNSUPPORTED_PTX_VERSION from an older driver
        text = re.sub(r"^\.version 9\.\d+$", ".version 8.8", open(path).read(), flags=re.M)
        # one file per module: CuPy caches modules by path
        tmp = "/tmp/gpu_golden_lowered_" + re.sub(r"\W", "_", os.path.relpath(path, ROOT))
        open(tmp, "w").write(text)
        return cp.RawModule(path=tmp).get_function(kernel)


def run(case_dir):
    lines = [l.split() for l in open(os.path.join(case_dir, "case.txt")) if l.strip() and not l.startswith("#")]
    kv = {}
    bufs, args, checks = {}, [], []
    for l in lines:
        if l[0] in ("ptx", "kernel"):
            kv[l[0]] = l[1]
        elif l[0] in ("grid", "block"):
            kv[l[0]] = tuple(int(v) for v in l[1:])
        elif l[0] == "shared":
            kv["shared"] = int(l[1])
        elif l[0] == "buf":
            k, ty, n = int(l[1]), l[2], int(l[3])
            host = np.fromfile(os.path.join(case_dir, f"arg{k}.bin"), DT[ty])
            assert host.size == n
            bufs[k] = (ty, cp.asarray(host))
            args.append(bufs[k][1])
        elif l[0] == "val":
            ty, v = l[2], l[3]
            args.append(DT[ty](float(v) if ty.startswith("f") else int(v, 0)))
        elif l[0] in ("exact", "approx"):
            checks.append(l)
    path = os.path.join(ROOT, kv["ptx"])
    kernel = kv["kernel"]
    if kernel == "*":  # the module's only kernel
        kernel = re.search(r"\.entry\s+(\w+)", open(path).read()).group(1)
    fn = load_module(path, kernel)
    fn(kv["grid"], kv["block"], tuple(args), shared_mem=kv.get("shared", 0))
    cp.cuda.runtime.deviceSynchronize()
    ok = True
    for c in checks:
        k = int(c[1])
        ty, dev = bufs[k]
        got = cp.asnumpy(dev)
        labels = c[-1].split(",")
        per = got.size // len(labels)
        if c[0] == "exact":
            want = np.fromfile(os.path.join(case_dir, f"want{k}.bin"), got.dtype)
            mask = np.fromfile(os.path.join(case_dir, f"mask{k}.bin"), np.uint8) if c[2] == "masked" else np.ones(got.size, np.uint8)
            bad = [i for i in range(got.size) if mask[i] and got[i].tobytes() != want[i].tobytes()
                   and not (got.dtype.kind == "f" and np.isnan(got[i]) and np.isnan(want[i]))]
        else:
            want = np.fromfile(os.path.join(case_dir, f"want{k}.bin"), np.float64)
            tol = np.fromfile(os.path.join(case_dir, f"tol{k}.bin"), np.float64)
            g = (got.astype(np.uint32) << 16).view(np.float32) if ty == "bf16" else got
            g = g.astype(np.float64)
            bad = [i for i in range(got.size) if not agrees(float(g[i]), float(want[i]), float(tol[i]))]
        rows = {}
        for i in bad:
            rows.setdefault(labels[i // per], []).append(i % per)
        for lab, idx in rows.items():
            ok = False
            print(f"  {os.path.basename(case_dir)} arg{k} {lab}: {len(idx)}/{per} differ, e.g. " +
                  "; ".join(f"[{i}] gpu {got[labels.index(lab) * per + i]!r} want {want[labels.index(lab) * per + i]!r}" for i in idx[:4]))
    print(f"{os.path.basename(case_dir)}: {'agrees' if ok else 'DIFFERS'}")
    return ok


if __name__ == "__main__":
    gold = os.path.join(ROOT, "golden")
    names = sys.argv[1:] or sorted(os.listdir(gold))
    ok = all([run(os.path.join(gold, n)) for n in names])
    sys.exit(0 if ok else 1)
