#!/usr/bin/env bash
# Manual smoke test (not run by CI or cargo test): a Numba vector add through
# the driver library of crates/cuda (libcuda.so.1), compared with NumPy.
#
# Builds a pinned virtual environment with the Numba packages of
# scripts/gen_corpus.sh (NUMBA_PKGS; no nvJitLink, so numba-cuda links PTX
# through cuLink*), builds the library, and runs the kernel with
# LD_LIBRARY_PATH and LD_PRELOAD pointing at it. PTXSIM_LOG=1 in the
# environment logs every driver call to stderr.
#
#   scripts/numba_smoke.sh
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

cat > "$LIB/vector_add.py" <<'PY'
import numpy as np
from numba import cuda

@cuda.jit
def add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]

n = 1000
a = np.arange(n, dtype=np.float32)
b = 2 * a + 1
d_out = cuda.device_array_like(a)
add[(n + 127) // 128, 128](cuda.to_device(a), cuda.to_device(b), d_out)
out = d_out.copy_to_host()
np.testing.assert_array_equal(out, a + b)
print("numba_smoke: vector add of", n, "elements matches NumPy")
PY

log "running the kernel"
LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$LIB/libcuda.so.1" \
  "$VENV/bin/python" "$LIB/vector_add.py"
