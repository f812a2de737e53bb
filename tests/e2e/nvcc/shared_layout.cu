// Shared memory as a GPU lays it out: a kernel's static __shared__ array
// and its extern (dynamic) __shared__ memory are distinct, and the kernels
// of one program do not add their arrays up (six kernels of 40,000 bytes
// each run, and each reports sharedSizeBytes 40,000, as on a GPU).
#include "e2e_check.cuh"

__global__ void mix(int *out) {
    __shared__ int st[64];
    extern __shared__ int dyn[];
    st[threadIdx.x] = 1000 + threadIdx.x;
    dyn[threadIdx.x] = 2000 + threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = st[threadIdx.x];
    out[64 + threadIdx.x] = dyn[threadIdx.x];
}

#define BIG(n) __global__ void big##n(int *out) { \
    __shared__ int s[10000]; \
    s[threadIdx.x] = threadIdx.x + n; \
    __syncthreads(); \
    if (threadIdx.x == 0) out[n] = s[0] + s[blockDim.x - 1]; }
BIG(0) BIG(1) BIG(2) BIG(3) BIG(4) BIG(5)

int main() {
    int *d;
    CUDA_OK(cudaMalloc(&d, 128 * sizeof(int)));
    mix<<<1, 64, 64 * sizeof(int)>>>(d);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    int h[128];
    CUDA_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 64; i++) bad += (h[i] != 1000 + i) + (h[64 + i] != 2000 + i);
    char m[160];
    snprintf(m, sizeof m, "%d of 128 wrong (st[0] %d, dyn[0] %d)", bad, h[0], h[64]);
    e2e_result(bad == 0, "static_and_dynamic", m);

    big0<<<1, 32>>>(d); big1<<<1, 32>>>(d); big2<<<1, 32>>>(d);
    big3<<<1, 32>>>(d); big4<<<1, 32>>>(d); big5<<<1, 32>>>(d);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(h, d, 6 * sizeof(int), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int n = 0; n < 6; n++) bad += h[n] != 31 + 2 * n;
    cudaFuncAttributes a;
    CUDA_OK(cudaFuncGetAttributes(&a, big3));
    snprintf(m, sizeof m, "%d of 6 sums wrong (big0 %d), big3 sharedSizeBytes %zu", bad, h[0], a.sharedSizeBytes);
    e2e_result(bad == 0 && a.sharedSizeBytes == 40000, "six_kernels", m);
    return e2e_exit();
}
