#!/usr/bin/env bash
# Manual smoke test (not in CI): a torch-free Triton 3.3.1 vector add
# (scripts/triton_smoke.py) run under `ptxsim exec`, which gives Triton the
# driver library as libcuda.so.1 and a pass-through ptxas. Builds the venv
# ~/.cache/ptxsim-tools/triton-smoke (triton==3.3.1, numpy; no torch) if it
# is missing, and the release `ptxsim` and driver library.
# Usage: scripts/triton_smoke.sh [ptxsim exec options, e.g. --summary]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${TRITON_SMOKE_VENV:-$HOME/.cache/ptxsim-tools/triton-smoke}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import triton, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q triton==3.3.1 numpy
fi
cd "$root"
cargo build --release -q -p ptxsim -p ptxsim-cuda
# A private Triton cache, so that every run compiles (and runs ptxas) again.
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
TRITON_CACHE_DIR="$cache" PTXSIM_LIBCUDA="$root/target/release/libcuda.so" \
    "$root/target/release/ptxsim" exec "$@" -- "$venv/bin/python" "$root/scripts/triton_smoke.py"
