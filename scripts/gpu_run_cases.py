"""Runs the `ptxsim run` conformance cases of tests/run (the ones expected to
complete) on a real GPU, through CuPy and the CUDA driver's PTX JIT, and
compares every expected buffer value with what the GPU computed: a check of
the cases' independent Python models against hardware.

    python scripts/gpu_run_cases.py [OUT_FILE]      # from the repository root

Prints one line per case (`agrees` or the differing elements) and writes the
same report to OUT_FILE when given.
"""
import json, math, os, re, sys
import numpy as np
import cupy as cp
from gpu_common import load_function

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "run")
DT = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "s8": np.int8, "s16": np.int16,
      "s32": np.int32, "s64": np.int64, "b8": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64,
      "f32": np.float32, "f64": np.float64, "f16": np.float16}


def num(ty, s):
    if ty.startswith("f"):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(s, None) if s in ("NaN", "Infinity", "-Infinity") else float(s)
    return int(s, 0)


def parse_arg(a):
    a = a.replace("{DIR}", RUN)
    m = re.fullmatch(r"([a-z0-9]+)\[(\d+)\]=(.*)", a)
    if m:
        ty, n, init = m.group(1), int(m.group(2)), m.group(3)
        dt = DT[ty]
        if init == "zeros":
            host = np.zeros(n, dt)
        elif init == "iota":
            host = np.arange(n).astype(dt)
        elif init.startswith("@") and init.endswith(".npy"):
            host = np.load(init[1:]).astype(dt).ravel()
        elif init.startswith("@"):
            host = np.fromfile(init[1:], dt)
        else:
            vals = [num(ty, v) for v in init.split(",")]
            host = np.zeros(n, dt)
            host[:len(vals)] = np.array(vals).astype(dt) if ty.startswith("f") else np.array(vals, dtype=object).astype(np.int64 if ty[0] == "s" else np.uint64).astype(dt)
        assert host.size == n, (a, host.size)
        return ("buf", ty, host)
    ty, v = a.split("=", 1)
    return ("val", ty, DT[ty](num(ty, v)))


def same(ty, got, want):
    if want is None:
        return True
    if ty.startswith("f"):
        if want == "NaN":
            return math.isnan(got)
        w = {"Infinity": math.inf, "-Infinity": -math.inf}.get(want, want) if isinstance(want, str) else want
        return float(got) == float(w) and math.copysign(1, float(got)) == math.copysign(1, float(w))
    return int(got) == int(want)


def run_case(ptx, c):
    dims = lambda s: tuple(int(v) for v in s.split(",")) + (1,) * (3 - len(s.split(",")))
    parsed = [parse_arg(a) for a in c["args"]]
    args, devs = [], {}
    for i, (kind, ty, v) in enumerate(parsed):
        if kind == "buf":
            d = cp.asarray(v) if v.size else cp.zeros(1, v.dtype)
            devs[i] = d
            args.append(d)
        else:
            args.append(v)
    fn, _ = load_function(os.path.join(RUN, ptx), c["kernel"])
    fn(dims(c["grid"]), dims(c["block"]), tuple(args), shared_mem=int(c.get("shared", 0)))
    cp.cuda.runtime.deviceSynchronize()
    bad = []
    for k, spec in c["expect"].get("buffers", {}).items():
        got = cp.asnumpy(devs[int(k)]).view(DT[spec["type"]])
        for i, want in enumerate(spec["values"]):
            if not same(spec["type"], got[i], want):
                bad.append(f"arg{k}[{i}] gpu {got[i]!r} expected {want!r}")
    return bad


def main():
    lines = []
    for f in sorted(os.listdir(RUN)):
        if not f.endswith(".json"):
            continue
        d = json.load(open(os.path.join(RUN, f)))
        for c in d["cases"]:
            if not c["expect"].get("ok"):
                continue
            try:
                bad = run_case(d["ptx"], c)
                lines.append(f"{f} {c['name']}: " + ("agrees" if not bad else f"DIFFERS in {len(bad)}: " + "; ".join(bad[:12])))
            except Exception as e:
                lines.append(f"{f} {c['name']}: error {type(e).__name__}: {' '.join(str(e).split())[:300]}")
            print(lines[-1], flush=True)
    if len(sys.argv) > 1:
        open(sys.argv[1], "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
