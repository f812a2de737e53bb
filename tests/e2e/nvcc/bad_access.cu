// Bad accesses come back as a GPU reports them: an out-of-bounds write is
// cudaErrorIllegalAddress (700), from cudaDeviceSynchronize and then from
// cudaGetLastError and every later call (sticky until cudaDeviceReset);
// after the reset a misaligned 8-byte load is cudaErrorMisalignedAddress
// (716), again from both.
// ptxsim's located message (kernel, line) is on standard error for both.
// e2e-stderr: (?s)out_of_bounds: .*past the end of a device allocation.*line [0-9]+, in `_Z9oob_writePi`.*misaligned: .*not a multiple of the access size 8.*line [0-9]+, in `_Z15misaligned_loadPKcPx`
#include "e2e_check.cuh"

__global__ void oob_write(int *x) { x[threadIdx.x + (1 << 24)] = 1; }
__global__ void misaligned_load(const char *p, long long *out) { *out = *(const long long *)(p + 4); }

int main() {
    int *x;
    CUDA_OK(cudaMalloc(&x, 256));
    oob_write<<<1, 32>>>(x);
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t last = cudaGetLastError();
    cudaError_t again = cudaMalloc(&x, 256);
    char m[200];
    snprintf(m, sizeof m, "synchronize %d (%s), cudaGetLastError %d, then cudaMalloc %d", (int)sync, cudaGetErrorString(sync), (int)last, (int)again);
    e2e_result(sync == cudaErrorIllegalAddress && last == cudaErrorIllegalAddress && again == cudaErrorIllegalAddress, "illegal_address", m);
    CUDA_OK(cudaDeviceReset());
    char *p; long long *out;
    CUDA_OK(cudaMalloc(&p, 64));
    CUDA_OK(cudaMalloc(&out, 8));
    misaligned_load<<<1, 1>>>(p, out);
    sync = cudaDeviceSynchronize();
    last = cudaGetLastError();
    snprintf(m, sizeof m, "synchronize %d (%s), cudaGetLastError %d", (int)sync, cudaGetErrorString(sync), (int)last);
    e2e_result(sync == cudaErrorMisalignedAddress && last == cudaErrorMisalignedAddress, "misaligned_address", m);
    return e2e_exit();
}
