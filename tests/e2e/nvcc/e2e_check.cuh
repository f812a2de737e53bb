// Shared by the CUDA programs of tests/e2e/nvcc: PASS/FAIL lines in the
// format tests/e2e/run.py counts ("PASS name: detail" / "FAIL name: detail")
// and the exit status (0 only when every check passed).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static int e2e_failures = 0;

static void e2e_result(bool ok, const char *name, const char *detail) {
    printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
    fflush(stdout);
    if (!ok) e2e_failures++;
}

// A runtime call that must succeed; on failure the check fails and the
// program ends (later checks would only repeat the error).
#define CUDA_OK(call)                                                                     \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            char d_[256];                                                                 \
            snprintf(d_, sizeof d_, "%s returned %d (%s)", #call, (int)e_, cudaGetErrorString(e_)); \
            e2e_result(false, "cuda-call", d_);                                           \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static int e2e_exit() { return e2e_failures ? 1 : 0; }
