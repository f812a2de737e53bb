#!/usr/bin/env bash
# Regenerate the real-compiler PTX corpus under tests/corpus/ from the sources
# in tests/corpus/src/, then validate every .ptx (seeds included) with ptxas
# and rewrite tests/corpus/expected_accept.txt.
#
# CI does not run this script: it uses the committed .ptx files. No GPU is
# needed. Tools come from PyPI (one virtual environment per CUDA major
# version, because the nvidia-* wheels collide inside site-packages/nvidia/)
# and from Debian (clang, llc).
#
#   scripts/gen_corpus.sh            install missing tools, regenerate, validate
#   scripts/gen_corpus.sh --check    only validate the committed files
#
# Environment:
#   PTXSIM_TOOLS  cache directory for the virtual environments
#                 (default: $HOME/.cache/ptxsim-tools)
#   PYTHON        interpreter used to create the venvs (default: python3)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CORPUS=$ROOT/tests/corpus
SRC=$CORPUS/src
TOOLS=${PTXSIM_TOOLS:-$HOME/.cache/ptxsim-tools}
PY=${PYTHON:-python3}
CHECK_ONLY=0
[[ ${1:-} == --check ]] && CHECK_ONLY=1

# Pinned tool versions.
CU13_PKGS=(nvidia-cuda-nvcc==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-cuda-runtime==13.5.37
           nvidia-nvvm==13.5.37 nvidia-cuda-cccl==13.3.5.0.6)
CU12_PKGS=(nvidia-cuda-nvcc-cu12==12.9.86)
LLVMLITE_PKGS=(llvmlite==0.50.0)
# Numba's CUDA target with NVVM 12.9 (compile_ptx needs no GPU or driver).
NUMBA_PKGS=(numba==0.68.1 numba-cuda==0.30.4 llvmlite==0.50.0 numpy==2.4.6 cuda-bindings==12.9.10
            cuda-core==1.2.2 cuda-pathfinder==1.9.1 nvidia-cuda-nvcc-cu12==12.9.86
            nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79)
# Triton's ahead-of-time compiler (no GPU, driver or torch needed).
TRITON_PKGS=(triton==3.3.1)

log() { printf '[gen_corpus] %s\n' "$*" >&2; }

SITE='lib/python3*/site-packages'

have() { compgen -G "$1" >/dev/null; }

ensure_venv() {  # name marker-glob packages...
  local name=$1 marker=$2
  shift 2
  local dir=$TOOLS/$name
  if ! have "$dir/$marker"; then
    log "installing $* into $dir"
    mkdir -p "$TOOLS"
    [[ -x $dir/bin/python ]] || "$PY" -m venv "$dir"
    "$dir/bin/pip" install -q "$@"
  fi
  have "$dir/$marker" || { log "missing $dir/$marker after install"; exit 1; }
}

ensure_tools() {
  ensure_venv cu12 "$SITE/nvidia/cuda_nvcc/bin/ptxas" "${CU12_PKGS[@]}"
  ensure_venv cu13 "$SITE/nvidia/cu13/include/nv/target" "${CU13_PKGS[@]}"
  ensure_venv llvmlite "$SITE/llvmlite/__init__.py" "${LLVMLITE_PKGS[@]}"
  ensure_venv numba "$SITE/numba_cuda/__init__.py" "${NUMBA_PKGS[@]}"
  ensure_venv triton "$SITE/triton/__init__.py" "${TRITON_PKGS[@]}"
  if ! command -v clang >/dev/null || ! command -v llc >/dev/null; then
    log "clang/llc not found: apt-get update && apt-get install -y clang llvm"
    if [[ $(id -u) == 0 ]]; then
      apt-get update -qq && apt-get install -y -qq clang llvm >/dev/null
    else
      exit 1
    fi
  fi
}
ensure_tools

CU13=$(compgen -G "$TOOLS/cu13/$SITE/nvidia/cu13")
NVCC=$CU13/bin/nvcc                # nvcc 13.5.37; finds ../include (cuda_runtime.h, cuda_fp16.h, nv/target)
PTXAS13=$CU13/bin/ptxas
PTXAS12=$(compgen -G "$TOOLS/cu12/$SITE/nvidia/cuda_nvcc/bin/ptxas")
LTPY=$TOOLS/llvmlite/bin/python
NBPY=$TOOLS/numba/bin/python
TRPY=$TOOLS/triton/bin/python
PENDING=$ROOT/tests/corpus_pending
# nvcc's own include directory holds cuda_runtime.h (nvidia-cuda-runtime) and
# the CCCL headers (nvidia-cuda-cccl, needed by cuda_fp16.h for <nv/target>).
NVCC_INC=(-I"$CU13/include")

# nvcc and clang record the source path (in .file for -G builds); compile from
# a fixed staging directory so the output does not depend on the checkout.
STAGE=/tmp/ptxsim-corpus/src

generate() {
  rm -rf "$STAGE" && mkdir -p "$STAGE" && cp -r "$SRC"/* "$STAGE"/
  rm -f "$CORPUS"/nvcc/*.ptx "$CORPUS"/clang/*.ptx "$CORPUS"/llvmlite/*.ptx "$CORPUS"/numba/*.ptx \
    "$CORPUS"/triton/*.ptx "$PENDING"/triton/*.ptx "$CORPUS"/nvcc_rdc/*.ptx "$PENDING"/numba/*.ptx
  mkdir -p "$CORPUS"/nvcc "$CORPUS"/clang "$CORPUS"/llvmlite "$CORPUS"/numba "$CORPUS"/triton \
    "$PENDING"/triton "$CORPUS"/nvcc_rdc "$PENDING"/numba
  cd "$STAGE"

  # ---- nvcc 13.5 ---------------------------------------------------------
  local cu
  # Sources that need sm_80 (__reduce_*_sync, bf16 arithmetic and wmma,
  # atomicAdd on __nv_bfloat162) are compiled at compute_80, the others at
  # compute_75.
  local SM80_SRC=" half2.cu atom2.cu warp2.cu wmma_bf16.cu "
  for cu in *.cu; do
    log "nvcc $cu"
    local arch=compute_75
    [[ $SM80_SRC == *" $cu "* ]] && arch=compute_80
    "$NVCC" -ptx -arch=$arch "${NVCC_INC[@]}" "$cu" -o "$CORPUS/nvcc/${cu%.cu}.ptx"
  done
  "$NVCC" -ptx -arch=compute_80 "${NVCC_INC[@]}" matmul.cu -o "$CORPUS/nvcc/matmul_sm80.ptx"
  # cuda::memcpy_async with a cuda::barrier at compute_80: cp.async copies
  # completed through cp.async.mbarrier.arrive (no cp.async.wait_group).
  "$NVCC" -ptx -arch=compute_80 "${NVCC_INC[@]}" bulk_copy.cu -o "$CORPUS/nvcc/bulk_copy_sm80.ptx"
  "$NVCC" -ptx -arch=compute_90 "${NVCC_INC[@]}" warp_vote.cu -o "$CORPUS/nvcc/warp_vote_sm90.ptx"
  "$NVCC" -ptx -arch=compute_75 -lineinfo "${NVCC_INC[@]}" scan.cu -o "$CORPUS/nvcc/lineinfo_scan.ptx"
  "$NVCC" -ptx -arch=compute_75 -rdc=true "${NVCC_INC[@]}" funcptr.cu -o "$CORPUS/nvcc/rdc_funcptr.ptx"
  "$NVCC" -ptx -arch=compute_75 -G "${NVCC_INC[@]}" collatz.cu -o "$CORPUS/nvcc/debug_collatz.ptx"
  "$NVCC" -ptx -arch=compute_75 -G "${NVCC_INC[@]}" recursion.cu -o "$CORPUS/nvcc/debug_recursion.ptx"
  # Separate compilation: a kernel module and the device library it calls
  # (tests/corpus/nvcc_rdc, linked by `ptxsim run rdc_main.ptx rdc_lib.ptx`).
  local m
  mkdir -p "$CORPUS/nvcc_rdc"
  for m in rdc_main rdc_lib; do
    "$NVCC" -ptx -rdc=true -arch=compute_80 "${NVCC_INC[@]}" "rdc/$m.cu" -o "$CORPUS/nvcc_rdc/$m.ptx"
  done

  # ---- Debian clang / llc (LLVM 14) --------------------------------------
  # -nocudainc -nocudalib: no CUDA headers or libdevice; compat.h supplies the
  # keywords and intrinsics. +ptx64 raises the PTX ISA so that the *_sync
  # warp intrinsics and nanosleep are available.
  local CLANG=(clang -x cuda --cuda-device-only -nocudainc -nocudalib -S
               -Xclang -target-feature -Xclang +ptx64)
  for cu in *.cu; do
    # These need CUDA's headers (cuda_fp16.h, cuda_bf16.h,
    # cooperative_groups) or its math library and intrinsics (libdevice,
    # cuda_runtime.h), which -nocudainc -nocudalib leave out.
    case $cu in half.cu | mathf.cu | mathd.cu | intrin.cu | simd.cu | half2.cu | atom2.cu | warp2.cu | wmma.cu | wmma_bf16.cu) continue ;; esac
    log "clang $cu"
    "${CLANG[@]}" --cuda-gpu-arch=sm_70 -O2 "$cu" -o "$CORPUS/clang/${cu%.cu}.ptx"
  done
  for cu in switch_vm.cu recursion.cu funcptr.cu; do
    "${CLANG[@]}" --cuda-gpu-arch=sm_70 -O0 "$cu" -o "$CORPUS/clang/O0_${cu%.cu}.ptx"
  done
  clang -x cuda --cuda-device-only -nocudainc -nocudalib -S -Xclang -target-feature -Xclang +ptx70 \
    --cuda-gpu-arch=sm_80 -O3 matmul.cu -o "$CORPUS/clang/matmul_sm80.ptx"
  local ll
  for ll in *.ll; do
    log "llc $ll"
    llc -march=nvptx64 -mcpu=sm_70 -O2 "$ll" -o "$CORPUS/clang/llc_${ll%.ll}.ptx"
  done

  # ---- llvmlite (LLVM 22 NVPTX back end) ---------------------------------
  local py
  for py in lt_*.py; do
    [[ $py == lt_compile_ll.py ]] && continue
    log "llvmlite $py"
    PYTHONPATH=$STAGE "$LTPY" "$py" "$CORPUS/llvmlite/${py%.py}.ptx"
  done
  for ll in *.ll; do
    log "llvmlite $ll"
    "$LTPY" lt_compile_ll.py "$ll" "$CORPUS/llvmlite/${ll%.ll}.ptx"
  done

  # ---- Numba (numba-cuda, NVVM 12.9, sm_80) ------------------------------
  log "numba nb_kernels.py"
  "$NBPY" nb_kernels.py "$CORPUS/numba" "$PENDING/numba" >/dev/null

  # ---- Golden references (tests/corpus/golden): inputs and expected
  # outputs of the math-library and intrinsics kernels, computed with
  # Python's math module and integers (numpy from the Numba environment).
  log "golden golden.py"
  rm -rf "$CORPUS"/golden
  "$NBPY" golden.py "$CORPUS/golden"

  # ---- Triton 3.3.1 (sm_80); kernels the engine cannot run yet go to
  # tests/corpus_pending/triton --------------------------------------------
  log "triton tr_kernels.py"
  "$TRPY" tr_kernels.py "$CORPUS/triton" "$PENDING/triton"
  cd "$ROOT"

  # Dense switches must have become jump tables.
  local f
  for f in lt_switch_interp lt_switch_dfa lt_switch_nested ll_switch_loop; do
    grep -q 'brx.idx' "$CORPUS/llvmlite/$f.ptx" || { log "no brx.idx in llvmlite/$f.ptx"; exit 1; }
  done
}

validate() {
  local tmp out=$CORPUS/expected_accept.txt f rel target arch ver rc=0
  tmp=$(mktemp -d)
  : >"$out.new"
  while IFS= read -r f; do
    rel=${f#"$CORPUS"/}
    # the target with its suffix (sm_90a: Triton's fp8 kernels for sm_90)
    target=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*sm_\([0-9]*[a-z]*\).*/\1/p' "$f" | head -1)
    arch=75
    [[ -n $target && ${target%%[a-z]*} -gt 75 ]] && arch=$target
    ver=$(sed -n 's/^[[:space:]]*\.version[[:space:]]*\([0-9.]*\).*/\1/p' "$f" | head -1)
    if [[ ${ver%%.*} -ge 9 ]]; then
      # ptxas 12.9 reads PTX ISA <= 8.8; nvcc 13.5 writes 9.x. Check the file
      # as written with ptxas 13.5, and its body with ptxas 12.9 on a copy
      # whose .version line alone is lowered to 8.8.
      if ! "$PTXAS13" -arch=sm_$arch "$f" -o "$tmp/a.cubin" 2>"$tmp/err"; then
        log "REJECTED by ptxas 13.5: $rel"; cat "$tmp/err" >&2; rc=1; continue
      fi
      sed "s/^\.version $ver\$/.version 8.8/" "$f" >"$tmp/lowered.ptx"
      if ! "$PTXAS12" -arch=sm_$arch "$tmp/lowered.ptx" -o "$tmp/a.cubin" 2>"$tmp/err"; then
        log "REJECTED by ptxas 12.9 (lowered): $rel"; cat "$tmp/err" >&2; rc=1; continue
      fi
      printf '%s\taccepted by ptxas 13.5 -arch=sm_%s; accepted by ptxas 12.9 -arch=sm_%s with .version %s lowered to 8.8\n' \
        "$rel" "$arch" "$arch" "$ver" >>"$out.new"
    else
      if ! "$PTXAS12" -arch=sm_$arch "$f" -o "$tmp/a.cubin" 2>"$tmp/err"; then
        log "REJECTED by ptxas 12.9: $rel"; cat "$tmp/err" >&2; rc=1; continue
      fi
      printf '%s\taccepted by ptxas 12.9 -arch=sm_%s\n' "$rel" "$arch" >>"$out.new"
    fi
  done < <(find "$CORPUS" -name '*.ptx' -not -path '*/nvcc_rdc/*' | LC_ALL=C sort)
  rm -rf "$tmp"
  mv "$out.new" "$out"
  return $rc
}

# The separately compiled pair: each module alone with `ptxas -c` (13.5 as
# written, 12.9 with .version lowered to 8.8), then both linked by nvlink.
validate_rdc() {
  local dir=$CORPUS/nvcc_rdc tmp out m ver
  tmp=$(mktemp -d)
  out=$dir/verdicts.txt
  : >"$out"
  for m in rdc_lib rdc_main; do
    ver=$(sed -n 's/^[[:space:]]*\.version[[:space:]]*\([0-9.]*\).*/\1/p' "$dir/$m.ptx" | head -1)
    "$PTXAS13" -arch=sm_80 -c "$dir/$m.ptx" -o "$tmp/$m.cubin" || { log "REJECTED by ptxas 13.5 -c: $m"; return 1; }
    sed "s/^\.version $ver\$/.version 8.8/" "$dir/$m.ptx" >"$tmp/low.ptx"
    "$PTXAS12" -arch=sm_80 -c "$tmp/low.ptx" -o "$tmp/low.cubin" || { log "REJECTED by ptxas 12.9 -c: $m"; return 1; }
    printf 'nvcc_rdc/%s.ptx\taccepted by ptxas 13.5 -arch=sm_80 -c; accepted by ptxas 12.9 -arch=sm_80 -c with .version %s lowered to 8.8\n' "$m" "$ver" >>"$out"
  done
  "$CU13/bin/nvlink" -arch=sm_80 "$tmp/rdc_main.cubin" "$tmp/rdc_lib.cubin" -o "$tmp/linked.cubin" \
    || { log "nvlink failed on the rdc pair"; return 1; }
  printf 'nvcc_rdc/rdc_main.ptx + nvcc_rdc/rdc_lib.ptx\tlinked by nvlink 13.5 -arch=sm_80\n' >>"$out"
  rm -rf "$tmp"
}

# The Numba and Triton modules the engine cannot run yet: whole modules,
# ptxas 12.9 at their .target.
validate_pending() {
  local out=$PENDING/expected_accept.txt f rel arch tmp
  tmp=$(mktemp -d)
  : >"$out"
  while IFS= read -r f; do
    rel=${f#"$PENDING"/}
    arch=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*sm_\([0-9]*[a-z]*\).*/\1/p' "$f" | head -1)
    "$PTXAS12" -arch=sm_$arch "$f" -o "$tmp/a.cubin" || { log "REJECTED by ptxas 12.9: $rel"; return 1; }
    printf '%s\taccepted by ptxas 12.9 -arch=sm_%s\n' "$rel" "$arch" >>"$out"
  done < <(find "$PENDING/numba" "$PENDING/triton" -name '*.ptx' | LC_ALL=C sort)
  rm -rf "$tmp"
}

if [[ $CHECK_ONLY == 0 ]]; then
  generate
fi
validate
validate_rdc
validate_pending
log "done: $(wc -l <"$CORPUS/expected_accept.txt") files accepted"
