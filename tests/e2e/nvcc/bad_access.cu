// Bad accesses come back as a GPU reports them: an out-of-bounds write is
// cudaErrorIllegalAddress (700), sticky until cudaDeviceReset; after the
// reset a misaligned 8-byte load is cudaErrorMisalignedAddress (716).
// ptxsim's located message (kernel, line) is on standard error for both.
// e2e-stderr: (?s)oob_write.*misaligned_load
#include "e2e_check.cuh"

__global__ void oob_write(int *x) { x[threadIdx.x + (1 << 24)] = 1; }
__global__ void misaligned_load(const char *p, long long *out) { *out = *(const long long *)(p + 4); }

int main() {
    int *x;
    CUDA_OK(cudaMalloc(&x, 256));
    oob_write<<<1, 32>>>(x);
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t again = cudaMalloc(&x, 256);
    char m[160];
    snprintf(m, sizeof m, "synchronize %d (%s), then cudaMalloc %d", (int)sync, cudaGetErrorString(sync), (int)again);
    e2e_result(sync == cudaErrorIllegalAddress && again == cudaErrorIllegalAddress, "illegal_address", m);
    CUDA_OK(cudaDeviceReset());
    char *p; long long *out;
    CUDA_OK(cudaMalloc(&p, 64));
    CUDA_OK(cudaMalloc(&out, 8));
    misaligned_load<<<1, 1>>>(p, out);
    sync = cudaDeviceSynchronize();
    snprintf(m, sizeof m, "synchronize %d (%s)", (int)sync, cudaGetErrorString(sync));
    e2e_result(sync == cudaErrorMisalignedAddress, "misaligned_address", m);
    return e2e_exit();
}
