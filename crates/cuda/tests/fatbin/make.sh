#!/usr/bin/env bash
# Makes the fatbins of tests/fatbin.rs with NVIDIA's nvcc from the package
# registry (the pinned venv of scripts/nvcc-venv), and what the tests compare
# them against: cuobjdump's listing of each (cuobjdump.txt) and the PTX
# cuobjdump extracts (saxpy.sm_80.ptx). Run from anywhere; needs g++ (nvcc's
# host compiler) and network access the first time the venv is built.
#
#   saxpy_plain.fatbin    -arch=sm_80 --no-compress: sm_80 ELF and compute_80 PTX
#   saxpy_default.fatbin  -arch=sm_80: the PTX Zstd-compressed (nvcc's default)
#   saxpy_zstd.fatbin     -arch=sm_80, every entry compressed, --compress-mode=size (Zstd)
#   saxpy_lz4.fatbin      -arch=sm_80, every entry compressed, --compress-mode=speed (LZ4)
#   saxpy_sass.fatbin     -gencode arch=compute_80,code=sm_80: machine code only
#   arch_multi.fatbin     compute_75, compute_80 and compute_90 PTX, sm_80 and sm_90 ELF
#   arch_90a.fatbin       compute_90a PTX only (arch-specific)
#   arch_sm90a.fatbin     nvcc 13.5 (scripts/e2e-venv nvcc) -arch=sm_90a:
#                         compute_90 PTX, sm_90a ELF, compute_90a PTX
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
BIN=$("$ROOT/scripts/nvcc-venv" bin)
NVCC=$BIN/nvcc
cd "$HERE"

"$NVCC" --version | tail -n 2
"$NVCC" -fatbin -arch=sm_80 --no-compress saxpy.cu -o saxpy_plain.fatbin
"$NVCC" -fatbin -arch=sm_80 saxpy.cu -o saxpy_default.fatbin
"$NVCC" -fatbin -arch=sm_80 -Xfatbin -compress-all --compress-mode=size saxpy.cu -o saxpy_zstd.fatbin
"$NVCC" -fatbin -arch=sm_80 -Xfatbin -compress-all --compress-mode=speed saxpy.cu -o saxpy_lz4.fatbin
"$NVCC" -fatbin -gencode arch=compute_80,code=sm_80 saxpy.cu -o saxpy_sass.fatbin
"$NVCC" -fatbin --no-compress \
  -gencode arch=compute_75,code=compute_75 \
  -gencode arch=compute_80,code='[sm_80,compute_80]' \
  -gencode arch=compute_90,code='[sm_90,compute_90]' \
  arch.cu -o arch_multi.fatbin
"$NVCC" -fatbin --no-compress -gencode arch=compute_90a,code=compute_90a arch.cu -o arch_90a.fatbin
NVCC135=$(ls "$("$ROOT/scripts/e2e-venv" nvcc)"/lib/python3*/site-packages/nvidia/cu13/bin/nvcc)
"$NVCC135" -fatbin --no-compress -arch=sm_90a arch.cu -o arch_sm90a.fatbin

# cuobjdump's view: the entries of each fatbin, in order.
: > cuobjdump.txt
for f in saxpy_plain saxpy_default saxpy_zstd saxpy_lz4 saxpy_sass arch_multi arch_90a; do
  printf '== %s.fatbin\n' "$f" >> cuobjdump.txt
  "$BIN/cuobjdump" -lelf -lptx "$f.fatbin" >> cuobjdump.txt
done

# The PTX cuobjdump extracts, the same from every saxpy fatbin that has PTX.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for f in saxpy_plain saxpy_default saxpy_zstd saxpy_lz4; do
  mkdir "$TMP/$f"
  (cd "$TMP/$f" && "$BIN/cuobjdump" -xptx all "$HERE/$f.fatbin" >/dev/null)
  cmp "$TMP/saxpy_plain"/*.ptx "$TMP/$f"/*.ptx
done
cp "$TMP/saxpy_plain"/*.ptx saxpy.sm_80.ptx
ls -l "$HERE"
