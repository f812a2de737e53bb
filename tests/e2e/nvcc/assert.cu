// A failing device-side assert: the launch returns, the next synchronising
// call reports cudaErrorAssert (710), the error is sticky, and the assert's
// message (file, line, function, condition) is on standard error.
// e2e-stderr: assertion `x\[i\] > 0` failed at \S*assert\.cu:\d+ in `void check_positive
#include "e2e_check.cuh"
#include <cassert>

__global__ void check_positive(const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(x[i] > 0);
}

int main() {
    int h[64];
    for (int i = 0; i < 64; i++) h[i] = i == 37 ? -1 : i + 1;
    int *d;
    CUDA_OK(cudaMalloc(&d, sizeof h));
    CUDA_OK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    check_positive<<<2, 32>>>(d, 64);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    char m[160];
    snprintf(m, sizeof m, "launch %d, synchronize %d (%s)", (int)launch, (int)sync, cudaGetErrorString(sync));
    e2e_result((launch == cudaSuccess || launch == cudaErrorAssert) && sync == cudaErrorAssert, "assert", m);
    cudaError_t later = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    snprintf(m, sizeof m, "a later copy returns %d", (int)later);
    e2e_result(later == cudaErrorAssert, "sticky", m);
    return e2e_exit();
}
