#!/usr/bin/env python3
"""Summarises a run of scripts/cupy_suite.sh (its JUnit files, default
target/cupy-suite/*.xml) as Markdown: passed/failed/skipped per module, then
every failing case with the cause its message points to (CAUSES, first
match), and the cases whose message matched no known cause. The seconds
are pytest's (the JUnit files' testsuite time). Standard
library only.

    tests/cupy_suite/summarize.py [DIR]
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

# (regex over the case's name, regex over its failure text, cause): the
# first entry whose two regexes both match wins ("" matches anything), so
# a library that is missing or a failure inside cuRAND is put down to it
# whatever the backend.
CAUSES = [
    ("", r"Failure finding \"lib(cublas|cusolver|cufft|cusparse)",
     "a CUDA math library (cuBLAS) that the suite's venv does not install: CuPy cannot load it "
     "(its kernels, too, carry PTX for compute_120 only)"),
    (r"dynamical_parallelism_compile_failure\[NVRTC", r"CompileException",
     "the test's expectation under CUPY_COMPILE_WITH_PTX=1 (the setting ptxsim runs CuPy with): it expects the "
     "driver's link to fail, but NVRTC 13.5 already refuses the source (CompileException: device-side launch "
     "without -rdc), as it would on a GPU with that setting"),
    ("", r"CURAND_STATUS_INITIALIZATION_FAILED|libcurand",
     "cuRAND (cupy.random makes the test's data): NVIDIA's libcurand carries PTX only for compute_121, "
     "which a cc 8.0 device cannot run (CUDA_ERROR_NO_BINARY_FOR_GPU inside cuRAND; with PTXSIM_CC=12.1 "
     "cuRAND loads and generates)"),
    ("", r"radix_sort: failed|thrust",
     "CuPy's prebuilt Thrust (`cupy.cuda.thrust`: sort, partition, median): its fatbin holds PTX for compute_120 "
     "only, so at cc 8.0 cudart's load of it fails (CUDA_ERROR_NO_BINARY_FOR_GPU, ptxsim's notice on stderr) and "
     "Thrust reports cudaErrorInvalidDevice; with PTXSIM_CC=12.1 sort and median run"),
    (r"\[NVCC|TestRawPicklable", "",
     "the NVCC backend (`backend='nvcc'`): CuPy asks nvcc for a cubin (`-gencode=arch=compute_XY,code=sm_XY`, "
     "whatever CUPY_COMPILE_WITH_PTX says), machine code, which ptxsim cannot run (CUDA_ERROR_NO_BINARY_FOR_GPU)"),
    (r"load_cubin", "",
     "loads a cubin (machine code): CUDA_ERROR_NO_BINARY_FOR_GPU"),
    (r"dynamical_parallelism", "",
     "dynamic parallelism (kernels launching kernels, libcudadevrt's cudaLaunchDevice): not supported by ptxsim "
     "(linking with libcudadevrt fails: CUDA_ERROR_INVALID_PTX)"),
    (r"[Cc]ub.*block", r"Timeout \(>",
     "time: CUB's block-level reduction (`backend='block'`: CuPy compiles CUB's headers with NVRTC, ptxsim runs "
     "the PTX) took over the 300 s per case on the loaded 2-core machine; the other shapes of the same test pass"),
    (r"[Cc]ub", "no kernel image|NO_BINARY|Not equal",
     "the test turns CuPy's prebuilt CUB on: its fatbin holds PTX for compute_120 only, so its launches fail with "
     "CUDA_ERROR_NO_BINARY_FOR_GPU (ptxsim's notice is on stderr), which CuPy does not check: the results are garbage"),
    (r"[Tt]exture", "",
     "textures and CUDA arrays: not implemented in the driver library"),
]


def cases(xml_path):
    root = ET.parse(xml_path).getroot()
    for tc in root.iter("testcase"):
        name = f"{tc.get('classname', '')}::{tc.get('name', '')}"
        outcome, msg = "passed", ""
        for tag in ("failure", "error"):
            el = tc.find(tag)
            if el is not None:
                outcome = "failed"
                msg = (el.get("message") or "") + "\n" + (el.text or "")
        if tc.find("skipped") is not None:
            outcome = "skipped"
        yield name, outcome, msg


def cause_of(name, msg):
    for name_pat, msg_pat, cause in CAUSES:
        if re.search(name_pat, name) and re.search(msg_pat, msg):
            return cause
    return None


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "target/cupy-suite"
    rows, failures = [], []
    for x in sorted(glob.glob(os.path.join(d, "*.xml"))):
        module = os.path.basename(x)[:-4].replace("_tests_", "_tests/", 1)
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        counts["seconds"] = sum(float(ts.get("time") or 0) for ts in ET.parse(x).getroot().iter("testsuite"))
        for name, outcome, msg in cases(x):
            counts[outcome] += 1
            if outcome == "failed":
                first = next((l.strip() for l in msg.splitlines() if l.strip().startswith("E ")), msg.strip().splitlines()[0] if msg.strip() else "")
                failures.append((module, name, cause_of(name, msg), first[:200]))
        rows.append((module, counts))
    print("| module | passed | failed | skipped | seconds |\n|---|---|---|---|---|")
    tot = {"passed": 0, "failed": 0, "skipped": 0, "seconds": 0.0}
    for m, c in rows:
        print(f"| {m} | {c['passed']} | {c['failed']} | {c['skipped']} | {c['seconds']:.0f} |")
        for k in tot:
            tot[k] += c[k]
    print(f"| **total** | {tot['passed']} | {tot['failed']} | {tot['skipped']} | {tot['seconds']:.0f} |\n")
    by_cause = {}
    for m, n, c, first in failures:
        by_cause.setdefault(c, []).append((m, n, first))
    for c, items in sorted(by_cause.items(), key=lambda kv: (kv[0] is None, -len(kv[1]))):
        print(f"### {c or 'not yet explained'} ({len(items)})\n")
        for m, n, first in items:
            print(f"- `{n}`" + (f" — {first}" if c is None else ""))
        print()


if __name__ == "__main__":
    main()
