"""Shared machinery of the golden-reference generator (see golden.py)."""
import math, os, struct, subprocess, tempfile
from fractions import Fraction
import numpy as np

F32_MAX = 3.4028234663852886e38
SKIP = -1.0  # tolerance marking an element that is not compared


def f32(x):
    with np.errstate(over="ignore"):
        return float(np.float32(x))


def ulp32(x):
    x = abs(x)
    if x < 2.0**-126 or not math.isfinite(x):
        return 2.0**-149
    return 2.0 ** (math.frexp(x)[1] - 1 - 23)


def ulp64(x):
    x = abs(x)
    if x < 2.0**-1022 or not math.isfinite(x):
        return 2.0**-1074
    return 2.0 ** (math.frexp(x)[1] - 1 - 52)


def ulp16(x):
    x = abs(x)
    if x < 2.0**-14 or not math.isfinite(x):
        return 2.0**-24
    return 2.0 ** (math.frexp(x)[1] - 1 - 10)


def round_to(q, mode, mant, emin, emax_val):
    """Rounds an exact Fraction to a binary format with `mant` fraction bits,
    minimum normal exponent `emin`, largest finite value `emax_val`."""
    if q == 0:
        return 0.0
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - mant)
    m = a / quantum
    fl = m.numerator // m.denominator
    rem = m - fl
    if mode == "rn":
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1)
    elif mode == "rz":
        up = False
    elif mode == "ru":
        up = rem > 0 and not neg
    else:
        up = rem > 0 and neg
    v = float((fl + (1 if up else 0)) * quantum) if (fl + 1) * quantum < 2**1100 else math.inf
    if v > emax_val:
        toward_inf = mode == "rn" or (mode == "ru" and not neg) or (mode == "rd" and neg)
        if mode == "rn" and a < Fraction(emax_val) + quantum / 2:
            v = emax_val
        else:
            v = math.inf if toward_inf else emax_val
    return -v if neg else v


def round_f32(q, mode="rn"):
    return round_to(q, mode, 23, -126, F32_MAX)


def round_f64(q, mode="rn"):
    return round_to(q, mode, 52, -1022, 1.7976931348623157e308)


def agrees(got, want, tol):
    """The comparison the Rust test makes (crates/exec/tests/all/corpus_golden.rs)."""
    if tol < 0:
        return True
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or math.isinf(got) or tol == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= tol


class Case:
    """One launch: module, kernel, grid, block, arguments, and per output
    buffer the reference (and tolerance for floating-point outputs)."""

    def __init__(self, name, ptx, kernel, grid, block, shared=0, note=""):
        self.name, self.ptx, self.kernel, self.grid, self.block, self.shared = name, ptx, kernel, grid, block, shared
        self.args = []  # ("buf", ndarray) | ("val", type, value)
        self.checks = {}  # arg index -> (want ndarray in buffer type or f64, tol f64 or None, labels)
        self.note = note

    def buf(self, arr, ty=None):
        """A buffer argument; `ty` names its element type where the dtype
        does not ("bf16": bfloat16 bits in a uint16 array)."""
        arr = np.ascontiguousarray(arr)
        self.args.append(("buf", arr, ty or TYPES[arr.dtype.type]))
        return len(self.args) - 1

    def val(self, ty, v):
        self.args.append(("val", ty, v))

    def exact(self, k, want, what, mask=None):
        """Output `k` must equal `want` bit for bit (integers; exactly rounded
        floats) where `mask` is true (everywhere without one)."""
        a = self.args[k][1]
        if isinstance(want, list) and a.dtype.kind in "iu":
            bits = a.dtype.itemsize * 8
            u = np.dtype(f"u{a.dtype.itemsize}")
            w = np.array([0 if v is None else int(v) % 2**bits for v in want], dtype=u).view(a.dtype)
        elif isinstance(want, list):
            w = np.array([0 if v is None else v for v in want]).astype(a.dtype)
        else:
            w = np.asarray(want).astype(a.dtype)
        if mask is None and isinstance(want, list) and any(v is None for v in want):
            mask = [v is not None for v in want]
        self.checks[k] = (w, None if mask is None else np.asarray(mask, np.uint8), what, True)

    def approx(self, k, want, tol, what):
        """Output `k` (float) within `tol[i]` of `want[i]` (both float64)."""
        self.checks[k] = (np.asarray(want, np.float64), np.asarray(tol, np.float64), what, False)


TYPES = {np.float32: "f32", np.float64: "f64", np.int32: "s32", np.uint32: "u32", np.int64: "s64",
         np.uint64: "u64", np.int8: "s8", np.uint8: "u8", np.int16: "s16", np.uint16: "u16", np.float16: "f16"}


def write(case, root):
    """tests/corpus/golden/<name>/: case.txt (the launch), argN.bin (inputs,
    raw little-endian), wantN.bin (reference), tolN.bin (f64 tolerances)."""
    d = os.path.join(root, case.name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    lines = [f"# {case.note}" if case.note else "# golden reference, generated by tests/corpus/src/golden.py",
             f"ptx {case.ptx}", f"kernel {case.kernel}", "grid " + " ".join(map(str, case.grid)),
             "block " + " ".join(map(str, case.block)), f"shared {case.shared}"]
    for k, a in enumerate(case.args):
        if a[0] == "buf":
            arr = a[1]
            arr.tofile(os.path.join(d, f"arg{k}.bin"))
            lines.append(f"buf {k} {a[2]} {arr.size}")
        else:
            lines.append(f"val {k} {a[1]} {a[2]}")
    for k, (want, tol, what, ex) in sorted(case.checks.items()):
        want.tofile(os.path.join(d, f"want{k}.bin"))
        if ex:
            if tol is not None:
                tol.tofile(os.path.join(d, f"mask{k}.bin"))
            lines.append(f"exact {k} {'masked' if tol is not None else 'all'} {what}")
        else:
            tol.tofile(os.path.join(d, f"tol{k}.bin"))
            lines.append(f"approx {k} {what}")
    with open(os.path.join(d, "case.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def run_ptxsim(case, ptxsim, corpus):
    """Runs the case through `ptxsim run` and reports disagreements (for
    developing references; the test suite runs the library instead)."""
    d = tempfile.mkdtemp()
    kernel = case.kernel
    if kernel == "*":  # the module's only kernel (Numba's mangled names)
        import re
        kernel = re.search(r"\.entry\s+(\w+)", open(os.path.join(corpus, case.ptx)).read()).group(1)
    cmd = [ptxsim, "run", os.path.join(corpus, case.ptx), "--kernel", kernel,
           "--grid", ",".join(map(str, case.grid)), "--block", ",".join(map(str, case.block)), "--out-dir", d]
    if case.shared:
        cmd += ["--shared", str(case.shared)]
    for k, a in enumerate(case.args):
        if a[0] == "buf":
            arr = a[1]
            t = a[2]
            f = os.path.join(d, f"in{k}.bin")
            arr.tofile(f)
            t = "b16" if t in ("f16", "bf16") else t
            cmd += ["--arg", f"{t}[{arr.size}]=@{f}"]
        else:
            cmd += ["--arg", f"{a[1]}={a[2]}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{case.name}: RUN FAILED\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
        return False
    ok = True
    for k, (want, tol, what, ex) in sorted(case.checks.items()):
        arr = case.args[k][1]
        got = np.load(os.path.join(d, f"arg{k}.npy")).view(arr.dtype).reshape(-1)
        labels = what.split(",")
        rows = len(labels)
        per = got.size // rows
        for r_, lab in enumerate(labels):
            sl = slice(r_ * per, (r_ + 1) * per)
            if ex:
                g, w = got[sl], want[sl]
                m = tol[sl] if tol is not None else np.ones(per, np.uint8)
                bad = [i for i in range(per) if m[i] and g[i].tobytes() != w[i].tobytes() and not (g.dtype.kind == "f" and np.isnan(g[i]) and np.isnan(w[i]))]
                if bad:
                    ok = False
                    print(f"  {case.name} {lab}: {len(bad)}/{per} differ, e.g. " + "; ".join(f"[{i}] got {g[i]!r} want {w[i]!r}" for i in bad[:4]))
            else:
                g = got[sl]
                if case.args[k][2] == "bf16":
                    g = (g.astype(np.uint32) << 16).view(np.float32)
                g, w, t = g.astype(np.float64), want[sl], tol[sl]
                bad = [i for i in range(per) if not agrees(float(g[i]), float(w[i]), float(t[i]))]
                if bad:
                    ok = False
                    print(f"  {case.name} {lab}: {len(bad)}/{per} differ, e.g. " + "; ".join(f"[{i}] got {g[i]!r} want {w[i]!r} tol {t[i]!r}" for i in bad[:4]))
    print(f"{case.name}: {'ok' if ok else 'DIFFERS'}")
    return ok
