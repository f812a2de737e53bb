#!/bin/sh
# Re-record tests/ssy/*.tsv (see scripts/record_ssy.py for the method).
# Needs ptxas 12.9 (pip nvidia-cuda-nvcc-cu12==12.9.86) and the nvdisasm 12.8
# from the triton==3.3.1 wheel (pip download triton==3.3.1 --no-deps; unzip
# triton/backends/nvidia/bin/nvdisasm). Override with PTXAS=... NVDISASM=...
set -e
cd "$(dirname "$0")/.."
exec python3 scripts/record_ssy.py "$@"
