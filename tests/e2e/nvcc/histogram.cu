// Histogram with atomics: per-block bins in shared memory (atomicAdd on
// shared), merged into global bins (atomicAdd on global).
#include "e2e_check.cuh"
#include <vector>

#define BINS 64

__global__ void histogram(const unsigned char *data, int n, unsigned int *bins) {
    __shared__ unsigned int local[BINS];
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] % BINS], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

int main() {
    const int n = 1 << 19;
    std::vector<unsigned char> h(n);
    std::vector<unsigned int> ref(BINS, 0), got(BINS);
    unsigned int x = 12345;
    for (int i = 0; i < n; i++) { x = x * 1103515245u + 12345u; h[i] = (x >> 16) & 0xff; ref[h[i] % BINS]++; }
    unsigned char *dd; unsigned int *db;
    CUDA_OK(cudaMalloc(&dd, n)); CUDA_OK(cudaMalloc(&db, BINS * 4));
    CUDA_OK(cudaMemcpy(dd, h.data(), n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(db, 0, BINS * 4));
    histogram<<<32, 256>>>(dd, n, db);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), db, BINS * 4, cudaMemcpyDeviceToHost));
    int bad = 0; unsigned long long total = 0;
    for (int i = 0; i < BINS; i++) { bad += got[i] != ref[i]; total += got[i]; }
    char d[80];
    snprintf(d, sizeof d, "%d of %d bins differ, %llu counted of %d", bad, BINS, total, n);
    e2e_result(bad == 0 && total == (unsigned long long)n, "histogram", d);
    return e2e_exit();
}
