// Built with machine code only (no PTX in the fatbin): the launch fails with
// cudaErrorNoKernelImageForDevice (209, the driver's
// CUDA_ERROR_NO_BINARY_FOR_GPU) and ptxsim says why on standard error.
// e2e-nvcc-flags: -gencode arch=compute_80,code=sm_80
// e2e-stderr: machine code only \(sm_80\) and no PTX.*nvcc -arch=sm_80.*code=compute_80
#include "e2e_check.cuh"

__global__ void k(int *x) { *x = 1; }

int main() {
    int *d = nullptr;
    cudaError_t m = cudaMalloc(&d, 4);
    k<<<1, 1>>>(d);
    cudaError_t e = cudaGetLastError();
    char s[160];
    snprintf(s, sizeof s, "malloc %d, launch %d (%s)", (int)m, (int)e, cudaGetErrorString(e));
    e2e_result(e == cudaErrorNoKernelImageForDevice || m == cudaErrorNoKernelImageForDevice, "no_binary", s);
    return e2e_exit();
}
