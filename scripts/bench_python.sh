#!/usr/bin/env bash
# Whole-process benchmark (manual; not run by CI or cargo test): the same
# Python GPU programs under `ptxsim exec` and under the frameworks' own CPU
# simulators, side by side in one run, wall clock of the whole process
# (interpreter start, imports, compilation, copies, the launch, the check
# against NumPy), best of several runs.
#
# - Numba (scripts/bench_numba.py: vadd, reduce, divergent, math) under
#   `ptxsim exec` and under NUMBA_ENABLE_CUDASIM=1.
# - Triton (scripts/bench_triton.py: vadd, math) under `ptxsim exec` and
#   under TRITON_INTERPRET=1 with CPU torch tensors, when the venv has torch.
#
# Each at 2^10 and 2^20 threads. Prints one table per framework with the
# ratio simulator / ptxsim (above 1: ptxsim is faster).
#
# Usage: scripts/bench_python.sh [--runs N] [--big-runs N] [--only numba|triton]
#   --runs N      runs per small program (default 3; the best counts)
#   --big-runs N  runs per 2^20-thread program (default 1: the simulators
#                 take minutes there)
#   --sim-timeout S  stop a simulator run after S seconds (default 300) and
#                 report "> S" with the ratio as a lower bound
# Environment:
#   NUMBA_VENV   venv with numba-cuda (default: the newest
#                ~/.cache/ptxsim-tools/e2e-numba-*)
#   TRITON_VENV  venv with triton 3.3.1 and torch (default:
#                ~/.cache/ptxsim-tools/triton-interp)
#   SMALL, BIG   the two thread counts (default 1024 and 1048576)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}
RUNS=3 BIG_RUNS=1 ONLY= SIM_TIMEOUT=300
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) RUNS=$2; shift 2 ;;
    --big-runs) BIG_RUNS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --sim-timeout) SIM_TIMEOUT=$2; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--big-runs N] [--sim-timeout S] [--only numba|triton]" >&2; exit 2 ;;
  esac
done
SMALL=${SMALL:-1024}
BIG=${BIG:-1048576}
NUMBA_VENV=${NUMBA_VENV:-$(ls -d "$TOOLS"/e2e-numba-* 2>/dev/null | tail -1)}
TRITON_VENV=${TRITON_VENV:-$TOOLS/triton-interp}

(cd "$ROOT" && cargo build --release -q -p ptxsim -p ptxsim-cuda)
PTXSIM=$ROOT/target/release/ptxsim
export PTXSIM_LIBCUDA=$ROOT/target/release/libcuda.so

# best SECONDS of N runs of CMD... (each run stopped after LIMIT seconds:
# then "> LIMIT"); exits when a run fails.
best() {
  local n=$1 limit=$2; shift 2
  local b=
  for ((i = 0; i < n; i++)); do
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    timeout "$limit" "$@" >/tmp/bench_python.$$.out 2>&1 || rc=$?
    if [[ $rc == 124 ]]; then
      [[ -z $b ]] && echo ">$limit"
      [[ -z $b ]] && return
      break
    fi
    if [[ $rc != 0 ]]; then
      echo "FAILED: $*" >&2
      cat /tmp/bench_python.$$.out >&2
      exit 1
    fi
    t1=$(date +%s.%N)
    b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { d = z - a; if (b == "" || d < b) print d; else print b }')
  done
  echo "$b"
}
trap 'rm -f /tmp/bench_python.$$.out' EXIT

# table HEADER SIM_NAME SIM_ENV PY SCRIPT PROGRAMS...
table() {
  local title=$1 simname=$2 simenv=$3 py=$4 script=$5; shift 5
  echo
  echo "$title"
  printf '| %-10s | %9s | %12s | %12s | %10s |\n' program threads "ptxsim (s)" "$simname (s)" "ratio"
  printf '|%s|%s|%s|%s|%s|\n' ------------ ----------- -------------- -------------- ------------
  for prog in "$@"; do
    for n in "$SMALL" "$BIG"; do
      local r=$RUNS
      [[ $n == "$BIG" ]] && r=$BIG_RUNS
      local a b
      a=$(best "$r" 3600 "$PTXSIM" exec -- "$py" "$script" "$prog" "$n")
      b=$(best "$r" "$SIM_TIMEOUT" env "$simenv=1" "$py" "$script" "$prog" "$n")
      local gt= bs=$b
      if [[ $b == '>'* ]]; then gt='>'; b=${b#>}; bs=">$b"; else bs=$(printf '%.2f' "$b"); fi
      printf '| %-10s | %9s | %12.2f | %12s | %9s |\n' "$prog" "$n" "$a" "$bs" "$gt$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1fx", b / a }')"
    done
  done
}

echo "ptxsim whole-process benchmark, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), best of $RUNS runs ($BIG_RUNS at $BIG threads)"
if [[ -z $ONLY || $ONLY == numba ]]; then
  if [[ -x $NUMBA_VENV/bin/python ]]; then
    table "Numba ($NUMBA_VENV): ptxsim exec vs NUMBA_ENABLE_CUDASIM=1" cudasim NUMBA_ENABLE_CUDASIM \
      "$NUMBA_VENV/bin/python" "$ROOT/scripts/bench_numba.py" vadd reduce divergent math
  else
    echo "Numba: no venv (set NUMBA_VENV; scripts/numba_smoke.sh builds one)"
  fi
fi
if [[ -z $ONLY || $ONLY == triton ]]; then
  if [[ -x $TRITON_VENV/bin/python ]] && "$TRITON_VENV/bin/python" -c 'import torch, triton' 2>/dev/null; then
    table "Triton ($TRITON_VENV): ptxsim exec vs TRITON_INTERPRET=1 (CPU torch)" interpret TRITON_INTERPRET \
      "$TRITON_VENV/bin/python" "$ROOT/scripts/bench_triton.py" vadd math
  else
    echo "Triton: TRITON_INTERPRET=1 needs torch: no venv with triton and torch at $TRITON_VENV"
  fi
fi
