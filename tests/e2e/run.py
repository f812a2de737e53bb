#!/usr/bin/env python3
"""Runs the end-to-end programs of tests/e2e/numba, tests/e2e/triton and
tests/e2e/cupy,
each under `ptxsim exec` with the pinned venv of `scripts/e2e-venv NAME`,
and the CUDA programs of tests/e2e/nvcc, built by nvcc 13.5
(tests/e2e/nvcc_build.py, cached) and run as `ptxsim exec -- ./prog`; prints
one PASS/FAIL line per check and a total. Exit status 1 when any check
fails or a prerequisite is missing. Uses only the standard library.

Each program prints its own `PASS name: ...` / `FAIL name: ...` lines
(tests/e2e/e2e_check.py, tests/e2e/nvcc/e2e_check.cuh) and exits 0 only
when all passed; the Triton programs run without torch through
examples/triton_notorch.py. A program's docstring (a CUDA program's `//`
comment) may add lines `e2e-stderr: REGEX` or `e2e-stdout: REGEX`: that
stream must then match REGEX (re.search), which makes one more check; a
line `e2e-cc: X.Y` runs the program at that compute capability instead of
--cc (the sm_90 Triton builds).

    tests/e2e/run.py [--ptxsim PATH] [--libcuda PATH] [--cc X.Y] [FILTER...]

FILTER keeps the programs whose path (e.g. `triton/softmax.py`) contains
one of them. Defaults: target/release/ptxsim and target/release/libcuda.so
(build them with `cargo build --release -p ptxsim -p ptxsim-cuda`), cc 8.0.
The Triton programs share a fresh Triton cache for the run, so every kernel
is compiled (through ptxsim's pass-through ptxas) each time."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUITES = ("numba", "triton", "nvcc", "cupy")
EXT = {"numba": ".py", "triton": ".py", "nvcc": ".cu", "cupy": ".py"}
TIMEOUT_S = 600


def fail_setup(msg):
    print(f"FAIL setup: {msg}", flush=True)
    print("e2e: 0 passed, 1 failed", flush=True)
    sys.exit(1)


def venv(name):
    script = os.path.join(ROOT, "scripts", "e2e-venv")
    r = subprocess.run([script, name], stdout=subprocess.PIPE, text=True)
    path = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    if r.returncode != 0 or not os.path.isfile(os.path.join(path, "bin", "python")):
        fail_setup(f"`scripts/e2e-venv {name}` failed (its message is above)")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "target", "release", "ptxsim"))
    ap.add_argument("--libcuda", default=os.path.join(ROOT, "target", "release", "libcuda.so"))
    ap.add_argument("--cc", default="8.0")
    ap.add_argument("filters", nargs="*")
    args = ap.parse_args()

    how = "build it with `cargo build --release -p ptxsim -p ptxsim-cuda`"
    if not os.access(args.ptxsim, os.X_OK):
        fail_setup(f"no ptxsim executable at {args.ptxsim}: {how}")
    if not os.path.isfile(args.libcuda):
        fail_setup(f"no driver library at {args.libcuda}: {how}")
    programs = []
    for suite in SUITES:
        for f in sorted(os.listdir(os.path.join(HERE, suite))):
            rel = f"{suite}/{f}"
            if f.endswith(EXT[suite]) and not f.startswith("_") and (not args.filters or any(x in rel for x in args.filters)):
                programs.append((suite, rel))
    if not programs:
        fail_setup(f"no program matches {args.filters}")
    suites = sorted({s for s, _ in programs})
    if "triton" in suites and not (shutil.which(os.environ.get("CC", "")) or shutil.which("cc") or shutil.which("gcc")):
        fail_setup("Triton builds its launcher with a C compiler and none was found: install one (cc, e.g. gcc)")
    pythons = {s: os.path.join(venv(s), "bin", "python") for s in suites if s != "nvcc"}
    executables = {}
    if "nvcc" in suites:
        sys.path.insert(0, HERE)
        import nvcc_build
        t_build = time.monotonic()
        try:
            built = nvcc_build.build_all([os.path.join(HERE, rel) for s, rel in programs if s == "nvcc"], jobs=os.cpu_count() or 2)
        except RuntimeError as e:
            fail_setup(str(e))
        for path, (exe, msg) in built.items():
            executables[os.path.relpath(path, HERE)] = (exe, msg)
        print(f"     nvcc: {sum(m == 'built' for _, m in built.values())} built, "
              f"{sum(m == 'cached' for _, m in built.values())} cached ({time.monotonic() - t_build:.1f} s)", flush=True)
    if "triton" in pythons:
        # Triton compiles its launcher as a Python extension: it needs Python.h.
        r = subprocess.run([pythons["triton"], "-c", "import os, sysconfig; "
                            "print(os.path.isfile(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"],
                           stdout=subprocess.PIPE, text=True)
        if r.stdout.strip() != "True":
            fail_setup("Triton builds its launcher against Python's headers and Python.h is missing: install them "
                       "(on Debian and Ubuntu: apt-get install python3-dev)")

    passed = failed = 0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ptxsim-e2e-") as tmp:
        env = dict(os.environ)
        # CuPy: PTX from NVRTC and its own reduction kernels (tests/e2e/cupy/_cupy_env.py says why),
        # kernels compiled afresh each run.
        env.update(CUPY_COMPILE_WITH_PTX="1", CUPY_ACCELERATORS="", CUPY_CACHE_DIR=os.path.join(tmp, "cupy-cache"))
        env.update(PTXSIM_LIBCUDA=os.path.abspath(args.libcuda), TRITON_CACHE_DIR=os.path.join(tmp, "triton-cache"),
                   PYTHONPATH=os.pathsep.join([HERE, os.path.join(ROOT, "examples")]), PYTHONWARNINGS="ignore", PYTHONDONTWRITEBYTECODE="1")
        for suite, rel in programs:
            path = os.path.join(HERE, rel)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            patterns = [(m.group(1), m.group(2).strip()) for m in re.finditer(r"^(?://\s*)?e2e-(stderr|stdout): (.*)$", text, re.M)]
            # `e2e-cc: X.Y` in a program: the compute capability it runs at
            # (the sm_90 Triton builds), instead of --cc.
            cc = next((m.group(1) for m in re.finditer(r"^(?:#\s*|//\s*)?e2e-cc: ([0-9]+\.[0-9]+)\s*$", text, re.M)), args.cc)
            if suite == "nvcc":
                exe, msg = executables[rel]
                if exe is None:
                    failed += 1
                    print(f"FAIL {rel}: {msg}", flush=True)
                    continue
                cmd = [args.ptxsim, "exec", "--cc", cc, "--", exe]
            else:
                cmd = [args.ptxsim, "exec", "--cc", cc, "--", pythons[suite], path]
            start = time.monotonic()
            try:
                r = subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, errors="replace", timeout=TIMEOUT_S)
                rc, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired as e:
                rc, out, err = None, (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace")
            secs = time.monotonic() - start
            lines = [l for l in out.splitlines() if l.startswith(("PASS ", "FAIL "))]
            for l in lines:
                print(f"{l[:5]}{rel}: {l[5:]}", flush=True)
            passed += sum(l.startswith("PASS ") for l in lines)
            failed += sum(l.startswith("FAIL ") for l in lines)
            ok = rc == 0 and lines and all(l.startswith("PASS ") for l in lines)
            if not ok and not any(l.startswith("FAIL ") for l in lines):
                # The program died, hung or printed nothing it should: one failure for it.
                failed += 1
                why = "timed out after %d s" % TIMEOUT_S if rc is None else f"exit status {rc}"
                print(f"FAIL {rel}: {why}, {len(lines)} check lines", flush=True)
            for stream, pat in patterns:
                if re.search(pat, err if stream == "stderr" else out):
                    passed += 1
                    print(f"PASS {rel}: {stream} matches /{pat[:60]}.../", flush=True)
                else:
                    failed += 1
                    print(f"FAIL {rel}: {stream} does not match /{pat}/", flush=True)
                    ok = False
            if not ok:
                tail = err.strip().splitlines()[-25:]
                print("  stderr (last lines):\n" + "\n".join("    " + l[:300] for l in tail), flush=True)
            print(f"     {rel}: {secs:.1f} s", flush=True)
    print(f"e2e: {passed} passed, {failed} failed ({time.monotonic() - t0:.0f} s)", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
