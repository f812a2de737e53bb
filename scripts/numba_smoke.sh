#!/usr/bin/env bash
# Manual smoke test (not run by CI or cargo test): Numba kernels through the
# driver library of crates/cuda (libcuda.so.1): a vector add compared with
# NumPy, then launches on a stream, events, shared memory, atomics, float64
# math, cuda.reduce, pinned arrays, a grid-synchronizing cooperative kernel
# (cuda.cg.this_grid().sync()), and host memory the kernel dereferences:
# mapped (cuMemHostAlloc with DEVICEMAP), managed (cuMemAllocManaged) and
# registered (cuda.mapped: cuMemHostRegister) arrays, each written by the
# host, read and written by a kernel, and compared with NumPy on the host.
# Prints one OK/FAIL line per check; exits 1 when any fails.
#
# Builds a pinned virtual environment with the Numba packages of
# scripts/gen_corpus.sh (NUMBA_PKGS; no nvJitLink, so numba-cuda links PTX
# through cuLink*), builds the library, and runs the kernel with
# LD_LIBRARY_PATH and LD_PRELOAD pointing at it. PTXSIM_LOG=1 in the
# environment logs every driver call to stderr.
#
#   scripts/numba_smoke.sh            the smoke checks
#   scripts/numba_smoke.sh --cudadrv  also numba-cuda's own driver tests
#                                     (numba.cuda.tests.cudadrv, with the
#                                     pinned pytest packages below), less
#                                     the files that compile CUDA C with
#                                     NVRTC, which crashes in this venv with
#                                     or without this library
#
# Environment:
#   PTXSIM_TOOLS  cache directory (default: $HOME/.cache/ptxsim-tools); the
#                 venv is $PTXSIM_TOOLS/numba-smoke
#   PYTHON        interpreter used to create the venv (default: python3)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}
VENV=$TOOLS/numba-smoke
PY=${PYTHON:-python3}

log() { printf '[numba_smoke] %s\n' "$*" >&2; }

# One list of pins: NUMBA_PKGS from gen_corpus.sh.
eval "$(sed -n '/^NUMBA_PKGS=(/,/)/p' "$ROOT/scripts/gen_corpus.sh")"
# What numba-cuda's test suite needs besides (--cudadrv).
SUITE_PKGS=(pytest==9.2.0 filecheck==1.0.6 ml_dtypes==0.6.0 cffi==2.1.1 psutil==7.2.2)
CUDADRV=0
[[ ${1:-} == --cudadrv ]] && CUDADRV=1

if ! compgen -G "$VENV/lib/python3*/site-packages/numba_cuda/__init__.py" >/dev/null; then
  log "installing ${NUMBA_PKGS[*]} into $VENV"
  mkdir -p "$TOOLS"
  [[ -x $VENV/bin/python ]] || "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q "${NUMBA_PKGS[@]}"
fi

log "building the driver library"
(cd "$ROOT" && cargo build --release -p ptxsim-cuda)
LIB=$(mktemp -d)
trap 'rm -rf "$LIB"' EXIT
cp "$ROOT/target/release/libcuda.so" "$LIB/libcuda.so.1"
ln -s libcuda.so.1 "$LIB/libcuda.so"

cat > "$LIB/smoke.py" <<'PY'
import numpy as np
from numba import cuda
import math

@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

failed = []
def step(name, f):
    try:
        f(); print("OK  ", name)
    except Exception as e:
        failed.append(name)
        print("FAIL", name, type(e).__name__, str(e)[:300])

n = 1000
a = np.arange(n, dtype=np.float32); b = 2*a
def vector_add():
    d_out = cuda.device_array_like(a)
    add[(n + 127) // 128, 128](cuda.to_device(a), cuda.to_device(b), d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), a + b)
step("vector add of 1000 float32 (compared with NumPy)", vector_add)
def streams():
    s = cuda.stream()
    da = cuda.to_device(a, stream=s); db = cuda.to_device(b, stream=s); do = cuda.device_array_like(a, stream=s)
    add[8, 128, s](da, db, do)
    out = do.copy_to_host(stream=s); s.synchronize()
    assert (out == a + b).all()
step("stream launch", streams)
def events():
    e1 = cuda.event(); e2 = cuda.event()
    e1.record(); add[8,128](cuda.to_device(a), cuda.to_device(b), cuda.device_array_like(a)); e2.record(); e2.synchronize()
    t = cuda.event_elapsed_time(e1, e2); assert t >= 0
step("events", events)

@cuda.jit
def sm(x, out):
    s = cuda.shared.array(128, dtype=np.float32)
    i = cuda.threadIdx.x
    s[i] = x[cuda.grid(1)]
    cuda.syncthreads()
    if i == 0:
        t = 0.0
        for j in range(128): t += s[j]
        out[cuda.blockIdx.x] = t
def shared():
    x = np.ones(1024, dtype=np.float32); out = np.zeros(8, dtype=np.float32)
    sm[8,128](x, out); assert (out == 128).all(), out
step("shared + host arrays", shared)

@cuda.jit
def atom(out):
    cuda.atomic.add(out, 0, 1)
def atomics():
    out = np.zeros(1, dtype=np.int64); atom[16, 64](out); assert out[0] == 1024, out
step("atomics", atomics)

@cuda.jit
def trig(x, out):
    i = cuda.grid(1)
    if i < x.size: out[i] = math.sin(x[i]) + math.exp(x[i] * 0.001)
def math_():
    x = np.linspace(0, 3, 500); out = np.zeros_like(x); trig[4,128](x, out)
    np.testing.assert_allclose(out, np.sin(x) + np.exp(x*0.001), rtol=1e-12)
step("math f64", math_)
def red():
    r = cuda.reduce(lambda x, y: x + y)
    v = r(np.arange(10000, dtype=np.float64)); assert v == sum(range(10000)), v
step("cuda.reduce", red)
def pinned():
    h = cuda.pinned_array(100, dtype=np.float32); h[:] = 1
    d = cuda.to_device(h); assert d.copy_to_host().sum() == 100
step("pinned array", pinned)
def mapped():
    h = cuda.mapped_array(100, dtype=np.float32); h[:] = np.arange(100)
    add[1,128](h, h, h); cuda.synchronize()
    np.testing.assert_array_equal(h, 2*np.arange(100, dtype=np.float32))
step("mapped array", mapped)
def managed():
    m = cuda.managed_array(100, dtype=np.float32); m[:] = np.arange(100)
    add[1,128](m, m, m); cuda.synchronize()
    np.testing.assert_array_equal(m, 2*np.arange(100, dtype=np.float32))
    m[:] = 1; add[1,128](m, m, m); cuda.synchronize(); assert m.sum() == 200
step("managed array", managed)
def registered():
    x = np.arange(100, dtype=np.float32)
    with cuda.mapped(x) as d:
        add[1,128](d, d, d); cuda.synchronize()
    np.testing.assert_array_equal(x, 2*np.arange(100, dtype=np.float32))
step("registered (cuda.mapped) array", registered)

@cuda.jit
def grid_phases(a, b):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    a[i] = 3 * i + 1
    g.sync()
    b[i] = a[(i + 37) % n] + a[n - 1 - i]
def grid_sync():
    # Linked with libcudadevrt, launched cooperatively: phase 2 reads what
    # other blocks wrote in phase 1.
    n = 8 * 64
    da = cuda.device_array(n, dtype=np.int64); db = cuda.device_array(n, dtype=np.int64)
    grid_phases[8, 64](da, db)
    i = np.arange(n); ah = 3 * i + 1
    np.testing.assert_array_equal(db.copy_to_host(), ah[(i + 37) % n] + ah[n - 1 - i])
step("cuda.cg.this_grid().sync() (cooperative launch, libcudadevrt)", grid_sync)
import sys
print(f"numba_smoke: {len(failed)} check(s) failed" if failed else "numba_smoke: every check passed")
sys.exit(1 if failed else 0)
PY

log "running the checks"
status=0
LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$LIB/libcuda.so.1" \
  "$VENV/bin/python" "$LIB/smoke.py" || status=1

if [[ $CUDADRV == 1 ]]; then
  if ! "$VENV/bin/python" -c 'import pytest, filecheck, ml_dtypes, cffi, psutil' 2>/dev/null; then
    log "installing ${SUITE_PKGS[*]} into $VENV"
    "$VENV/bin/pip" install -q "${SUITE_PKGS[@]}"
  fi
  # The suite's tests ask for this fixture (numba-cuda's own conftest defines it).
  cat > "$LIB/ptxsim_plugin.py" <<'PY'
import pytest

@pytest.fixture
def initialize_from_pytest_config():
    yield
PY
  T=$("$VENV/bin/python" -c 'import numba_cuda, os; print(os.path.dirname(numba_cuda.__file__))')/numba/cuda/tests/cudadrv
  log "running numba.cuda.tests.cudadrv"
  (cd "$LIB" && PYTHONPATH="$LIB" LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$LIB/libcuda.so.1" \
    "$VENV/bin/python" -m pytest -q -rf --import-mode=importlib -p no:cacheprovider -p ptxsim_plugin \
      --ignore="$T/test_linker.py" --ignore="$T/test_nvrtc.py" --ignore="$T/test_module_callbacks.py" "$T") || status=1
fi
exit $status
