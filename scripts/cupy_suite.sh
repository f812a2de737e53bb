#!/usr/bin/env bash
# A chosen subset of CuPy's own test suite (CuPy 14.2.0's tests/cupy_tests,
# which the wheel does not ship) against the driver library of crates/cuda,
# under `ptxsim exec`. Manual (not run by CI or cargo test). Prints one line
# per test module (pytest's summary); tests/cupy_suite/results.md records a
# run and the cause of every failure.
#
#   scripts/cupy_suite.sh CUPY_TESTS [MODULE...]
#
# CUPY_TESTS is the `tests` directory of CuPy v14.2.0's sources (the sdist
# from the registry, `pip download --no-deps --no-binary :all:
# cupy==14.2.0`, or a checkout of the v14.2.0 tag); MODULE is a path under
# tests/cupy_tests (default: the subset below).
#
# Settings (as tests/e2e/cupy): CUPY_COMPILE_WITH_PTX=1 (NVRTC gives PTX,
# not a cubin), CUPY_ACCELERATORS= (no prebuilt CUB), CUPY_TEST_GPU_LIMIT=1
# (one device), NVCC from `scripts/e2e-venv nvcc` (test_raw.py asks for its
# version), `-m "not slow"`, 300 s per case.
#
# Environment:
#   PTXSIM_TOOLS  cache directory (default: $HOME/.cache/ptxsim-tools); the
#                 venv is $PTXSIM_TOOLS/cupy-suite
#   PYTHON        interpreter that creates the venv (default: python3)
#   SUITE_OUT     where the logs and JUnit files go (default: target/cupy-suite)
#   CUPY_SUITE_K  a pytest -k expression to narrow every module (e.g.
#                 "not Cub and not cub": the cases that turn CuPy's prebuilt
#                 CUB on, which cannot run at cc 8.0 and are slow to fail)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}
VENV=$TOOLS/cupy-suite
PY=${PYTHON:-python3}
OUT=${SUITE_OUT:-$ROOT/target/cupy-suite}
log() { printf '[cupy_suite] %s\n' "$*" >&2; }

[[ $# -ge 1 && -d $1/cupy_tests ]] || { echo "usage: scripts/cupy_suite.sh CUPY_TESTS [MODULE...] (CUPY_TESTS holds cupy_tests/)" >&2; exit 2; }
TESTS=$(cd "$1" && pwd)
shift
MODULES=("$@")
if [[ ${#MODULES[@]} -eq 0 ]]; then
  MODULES=(
    core_tests/test_elementwise.py core_tests/test_reduction.py core_tests/test_raw.py
    core_tests/test_userkernel.py core_tests/test_ndarray_elementwise_op.py
    core_tests/test_ndarray_reduction.py core_tests/test_scan.py
    math_tests/test_sumprod.py math_tests/test_arithmetic.py math_tests/test_explog.py
    math_tests/test_rounding.py creation_tests/test_ranges.py creation_tests/test_basic.py
    manipulation_tests/test_shape.py manipulation_tests/test_transpose.py
    indexing_tests/test_indexing.py sorting_tests/test_search.py
    logic_tests/test_comparison.py statistics_tests/test_meanvar.py
  )
fi

# The pins of scripts/e2e-venv cupy, pytest, and cuRAND (cupy.random loads it).
PINS=(cupy-cuda13x==14.2.0 numpy==2.4.6 cuda-pathfinder==1.9.1 nvidia-cuda-runtime==13.5.37
      nvidia-cuda-nvrtc==13.5.37 nvidia-curand==10.4.4.72 pytest==8.4.2 pytest-timeout==2.4.0)
if [[ ! -x $VENV/bin/python ]] || [[ $(cat "$VENV/.ptxsim-pins" 2>/dev/null) != "${PINS[*]}" ]]; then
  log "building $VENV (${PINS[*]})"
  rm -rf "$VENV"
  mkdir -p "$TOOLS"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PINS[@]}"
  printf '%s' "${PINS[*]}" > "$VENV/.ptxsim-pins"
fi

log "building ptxsim and the driver library"
(cd "$ROOT" && cargo build --release -q -p ptxsim -p ptxsim-cuda)
NVCC=$(ls "$("$ROOT/scripts/e2e-venv" nvcc)"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc)

mkdir -p "$OUT"
export CUPY_COMPILE_WITH_PTX=1 CUPY_ACCELERATORS= CUPY_TEST_GPU_LIMIT=1 CUPY_CACHE_DIR="$OUT/kernel-cache" NVCC
export PTXSIM_LIBCUDA="$ROOT/target/release/libcuda.so"
# From inside tests/: the sdist's top directory holds the cupy sources, which
# would shadow the installed CuPy (python -m puts the working directory first).
cd "$TESTS"
K=()
[[ -n ${CUPY_SUITE_K:-} ]] && K=(-k "$CUPY_SUITE_K")
status=0
for m in "${MODULES[@]}"; do
  name=${m//\//_}
  start=$(date +%s)
  rc=0
  "$ROOT/target/release/ptxsim" exec -- "$VENV/bin/python" -m pytest "$TESTS/cupy_tests/$m" -q -p no:cacheprovider \
    -m "not slow" ${K[@]+"${K[@]}"} --timeout 300 -rfE --junitxml="$OUT/$name.xml" > "$OUT/$name.log" 2>&1 || rc=$?
  [[ $rc -le 1 ]] || status=1
  printf '%s: %s (%d s)\n' "$m" "$(tail -n 1 "$OUT/$name.log")" "$(( $(date +%s) - start ))"
done
exit $status
