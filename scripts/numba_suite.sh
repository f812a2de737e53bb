#!/usr/bin/env bash
# numba-cuda's own test suite (numba.cuda.tests, shipped in its wheel, about
# 2,000 cases) against the driver library of crates/cuda, under
# `ptxsim exec`. Manual (not run by CI or cargo test): it takes about 12
# minutes on two cores. Prints a pass/fail/skip table by test module, with
# how many passing cases launched a kernel (tests/numba_suite/report.py);
# tests/numba_suite/results.md records a run and the cause of every failure.
#
# Builds (or reuses) a pinned virtual environment, builds the library and
# `ptxsim`, and runs `python -m pytest --pyargs TARGETS` with the plugin
# tests/numba_suite/ptxsim_plugin.py (per-case outcome and launch count,
# one JSON line per case) and a per-case timeout. numba.cuda lives in the
# numba_cuda distribution (a redirector maps the name), so test modules are
# imported with --import-mode=importlib and consider_namespace_packages,
# which name them numba.cuda.tests.* (numba.cuda is imported once).
#
#   scripts/numba_suite.sh                      the whole suite
#   scripts/numba_suite.sh numba.cuda.tests.cudadrv.test_linker [PYTEST ARGS]
#                                               some modules or packages
#
# Environment:
#   PTXSIM_TOOLS     cache directory (default: $HOME/.cache/ptxsim-tools);
#                    the venv is $PTXSIM_TOOLS/numba-suite
#   PYTHON           interpreter that creates the venv (default: python3)
#   SUITE_OUT        where the results go (default: target/numba-suite);
#                    results.jsonl (one line per case), pytest-MODULE.log
#                    for each module, pytest.log (modules that failed)
#   SUITE_JOBS       test modules run at once (default: 2)
#   SUITE_TIMEOUT    seconds per case (default: 300)
#   SUITE_EXEC_OPTS  options of `ptxsim exec` (default: --timeout
#                    SUITE_TIMEOUT-30, each launch's wall-clock limit)
#   PTXSIM_LOG=1     logs every driver call to stderr (into pytest.log)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}
VENV=$TOOLS/numba-suite
PY=${PYTHON:-python3}
OUT=${SUITE_OUT:-$ROOT/target/numba-suite}
TIMEOUT=${SUITE_TIMEOUT:-300}

log() { printf '[numba_suite] %s\n' "$*" >&2; }

# The Numba pins of scripts/gen_corpus.sh (NUMBA_PKGS), and what the suite
# needs besides.
eval "$(sed -n '/^NUMBA_PKGS=(/,/)/p' "$ROOT/scripts/gen_corpus.sh")"
SUITE_PKGS=(pytest==9.2.0 pytest-benchmark==5.3.1 pytest-timeout==2.4.0 filecheck==1.0.6 ml_dtypes==0.6.0
            cffi==2.1.1 psutil==7.2.2 nvidia-cuda-cccl-cu12==12.9.27)
PINS=("${NUMBA_PKGS[@]}" "${SUITE_PKGS[@]}")

[[ -x $VENV/bin/python ]] || { log "creating $VENV"; mkdir -p "$TOOLS"; "$PY" -m venv "$VENV"; }
# Pins not installed as `name==version` from the registry (a different
# version, or a package installed from a local file).
missing() {
  local frozen; frozen=$("$VENV/bin/pip" freeze 2>/dev/null | tr '[:upper:]_' '[:lower:]-')
  local p
  for p in "${PINS[@]}"; do
    grep -qxF "$(tr '[:upper:]_' '[:lower:]-' <<<"$p")" <<<"$frozen" || printf '%s\n' "$p"
  done
}
if [[ -n $(missing) ]]; then
  log "installing ${PINS[*]} into $VENV"
  "$VENV/bin/pip" install -q "${PINS[@]}"
  mapfile -t again < <(missing)
  if ((${#again[@]})); then
    log "reinstalling ${again[*]} from the registry"
    "$VENV/bin/pip" install -q --force-reinstall --no-deps "${again[@]}"
  fi
fi

log "building the driver library and ptxsim"
(cd "$ROOT" && cargo build --release -p ptxsim-cuda -p ptxsim)

TARGETS=()
while (($#)) && [[ $1 != -* ]]; do TARGETS+=("$1"); shift; done
((${#TARGETS[@]})) || TARGETS=(numba.cuda.tests)

# Node ids relative to the tests package (its files lie outside the
# working directory).
TESTS=$("$VENV/bin/python" -c 'import numba_cuda, os; print(os.path.join(os.path.dirname(numba_cuda.__file__), "numba", "cuda", "tests"))')
mkdir -p "$OUT"
rm -f "$OUT/results.jsonl" "$OUT"/pytest*.log
# One pytest process per test module, two at a time: a kernel trap leaves
# its process's context unusable (a sticky error, as on a GPU), so it may
# fail the rest of its module but never the modules after it.
mapfile -t MODS < <("$VENV/bin/python" - "$TESTS" "${TARGETS[@]}" <<'PY'
import os, sys
root, targets = sys.argv[1], sys.argv[2:]
base = "numba.cuda.tests"
for t in targets:
    rel = t[len(base):].lstrip(".").replace(".", os.sep) if t.startswith(base) else None
    path = os.path.join(root, rel) if rel is not None else None
    if path is not None and os.path.isdir(path):
        for d, _, files in sorted(os.walk(path)):
            for f in sorted(files):
                if f.startswith("test_") and f.endswith(".py"):
                    r = os.path.relpath(os.path.join(d, f[:-3]), root)
                    print(base + "." + r.replace(os.sep, "."))
    else:
        print(t)
PY
)
# Cases that leave their process's context unusable (a sticky error, as
# on a GPU) for reasons of their own, run in a process of their own
# (deselected from their module's run) so that the cases after them in
# their module still run. Each fails on ptxsim; the cause is in
# tests/numba_suite/results.md.
ISOLATE=(
  # Reads and writes 16 elements of 10-element arrays (N = 16): out of
  # bounds, which a GPU does not catch inside an allocation's granule.
  numba.cuda.tests.cudapy.test_dispatcher::TestDispatcher::test_dispatcher_cpointer_arguments
  # A grid of 22121216 x 256 threads (5.7 * 10^9): past the engine's
  # budget (a timeout or fuel exhausted).
  numba.cuda.tests.cudapy.test_intrinsics::TestCudaIntrinsic::test_issue_9229
)
JOBS=()
for m in "${MODS[@]}"; do
  JOBS+=("$m")
  for c in "${ISOLATE[@]}"; do [[ ${c%%::*} == "$m" ]] && JOBS+=("$c"); done
done
log "running ${#MODS[@]} test modules of ${TARGETS[*]} (logs: $OUT/pytest-*.log)"
export OUT ROOT VENV TESTS TIMEOUT
ISOLATED=${ISOLATE[*]}
# Each launch may run until 30 s before the case's own timeout (the
# library's default limit is 60 s; a GPU has none, and a big grid such as
# test_matmul's 2,500 CTAs of 1,024 threads takes minutes here).
EXEC_OPTS=${SUITE_EXEC_OPTS:---timeout $((TIMEOUT > 60 ? TIMEOUT - 30 : TIMEOUT))}
export ISOLATED EXEC_OPTS
printf '%s\n' "${JOBS[@]}" | xargs -P "${SUITE_JOBS:-2}" -I{} bash -c '
  # A module runs without its isolated cases (deselected by node id, the
  # path below the tests package); an isolated case runs alone.
  desel=() opts=$EXEC_OPTS
  # An isolated case keeps the library'"'"'s default launch limit (60 s).
  [[ $1 == *::* ]] && opts=
  if [[ $1 != *::* ]]; then
    for c in $ISOLATED; do
      [[ ${c%%::*} == "$1" ]] && desel+=(--deselect "$(tr . / <<<"${1#numba.cuda.tests.}").py::${c#*::}")
    done
  fi
  cd "$OUT" && PTXSIM_SUITE_OUT="$OUT/results.jsonl" PYTHONPATH="$ROOT/tests/numba_suite" \
    "$ROOT/target/release/ptxsim" exec $opts -- "$VENV/bin/python" -m pytest -q -rfE -p no:cacheprovider \
      --import-mode=importlib -o consider_namespace_packages=true --rootdir="$TESTS" \
      -p ptxsim_plugin --timeout="$TIMEOUT" --timeout-method=signal --pyargs "$1" "${desel[@]}" "${@:2}" \
    >"$OUT/pytest-$1.log" 2>&1; rc=$?
  # 5: no tests collected (a module of helpers only).
  [[ $rc == 0 || $rc == 5 ]] || echo "$1: pytest exit $rc" >>"$OUT/pytest.log"' _ {} "$@"
status=0
[[ -s $OUT/pytest.log ]] && status=1
[[ -s $OUT/pytest.log ]] && cat "$OUT/pytest.log" >&2
python3 "$ROOT/tests/numba_suite/report.py" "$OUT/results.jsonl"
exit $status
