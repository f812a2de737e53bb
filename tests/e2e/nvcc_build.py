#!/usr/bin/env python3
"""Builds the CUDA programs of tests/e2e/nvcc with the pinned nvcc 13.5 of
`scripts/e2e-venv nvcc`, caching each executable by the hash of its source,
the shared header, its flags and the venv (so an unchanged program is never
rebuilt). Uses only the standard library.

Flags: `-arch=sm_80` (static cudart, SASS for sm_80 and PTX for
compute_80), or what the source's `// e2e-nvcc-flags: ...` line says (in
which `{site-packages}` stands for the venv's site-packages directory, e.g.
`-I{site-packages}/cutlass_library/source/include` for CUTLASS); a
`// e2e-nvcc-sources: a.cu ...` line adds translation units (files of
tests/e2e/nvcc whose names start with `_`, which run.py does not run alone).
Executables go to ${XDG_CACHE_HOME:-~/.cache}/ptxsim-tools/nvcc-build/KEY/NAME,
written under a temporary name and renamed once complete.

    tests/e2e/nvcc_build.py [SRC.cu...]    builds (default: every program),
                                           prints `SRC<TAB>EXECUTABLE` lines

As a module: build_all(paths, jobs) -> {path: (executable or None, message)}.
"""
import concurrent.futures
import glob
import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC_DIR = os.path.join(HERE, "nvcc")
DEFAULT_FLAGS = ["-arch=sm_80"]
CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ptxsim-tools", "nvcc-build")


def venv():
    r = subprocess.run([os.path.join(ROOT, "scripts", "e2e-venv"), "nvcc"], stdout=subprocess.PIPE, text=True)
    path = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    if r.returncode != 0 or not path:
        raise RuntimeError("`scripts/e2e-venv nvcc` failed (its message is above)")
    return path


def site_packages(venv_dir):
    found = glob.glob(os.path.join(venv_dir, "lib", "python3*", "site-packages"))
    if not found:
        raise RuntimeError(f"no site-packages in {venv_dir}")
    return found[0]


def nvcc_path(venv_dir):
    nvcc = os.path.join(site_packages(venv_dir), "nvidia", "cu13", "bin", "nvcc")
    if not os.path.isfile(nvcc):
        raise RuntimeError(f"no nvcc in {venv_dir}")
    return nvcc


def flags_of(text, venv_dir):
    m = re.search(r"^// e2e-nvcc-flags: (.*)$", text, re.M)
    if not m:
        return list(DEFAULT_FLAGS)
    return [f.replace("{site-packages}", site_packages(venv_dir)) for f in shlex.split(m.group(1))]


def sources_of(text):
    m = re.search(r"^// e2e-nvcc-sources: (.*)$", text, re.M)
    return [os.path.join(SRC_DIR, f) for f in shlex.split(m.group(1))] if m else []


def key(src_text, flags, venv_dir):
    h = hashlib.sha256()
    h.update(os.path.basename(venv_dir).encode() + b"\0")
    h.update(" ".join(flags).encode() + b"\0")
    h.update(src_text.encode())
    for extra in sources_of(src_text):
        with open(extra, "rb") as f:
            h.update(b"\0" + f.read())
    with open(os.path.join(SRC_DIR, "e2e_check.cuh"), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def build(path, nvcc, venv_dir):
    """(executable or None, message)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    flags = flags_of(text, venv_dir)
    name = os.path.splitext(os.path.basename(path))[0]
    out_dir = os.path.join(CACHE, key(text, flags, venv_dir))
    exe = os.path.join(out_dir, name)
    if os.path.isfile(exe):
        return exe, "cached"
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=out_dir)
    os.close(fd)
    cmd = [nvcc, *flags, "-I", SRC_DIR, "-o", tmp, path, *sources_of(text)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if r.returncode != 0:
        os.unlink(tmp)
        return None, f"nvcc failed ({' '.join(shlex.quote(c) for c in cmd)}):\n{r.stdout}"
    os.chmod(tmp, 0o755)
    os.replace(tmp, exe)
    return exe, "built"


def build_all(paths, jobs=2):
    venv_dir = venv()
    nvcc = nvcc_path(venv_dir)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {p: ex.submit(build, p, nvcc, venv_dir) for p in paths}
        return {p: f.result() for p, f in futs.items()}


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(SRC_DIR, "*.cu")))
    status = 0
    for p, (exe, msg) in build_all(paths, jobs=os.cpu_count() or 2).items():
        if exe:
            print(f"{p}\t{exe}")
        else:
            print(msg, file=sys.stderr)
            status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
