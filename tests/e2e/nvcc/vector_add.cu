// Vector addition over a grid with a partial last block: the simplest
// cudaMalloc / cudaMemcpy / <<<>>> / cudaMemcpy round trip.
#include "e2e_check.cuh"
#include <vector>

__global__ void add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 100000;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++) { a[i] = i * 0.5f; b[i] = 1000.0f - i; }
    float *da, *db, *dc;
    CUDA_OK(cudaMalloc(&da, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&db, n * sizeof(float)));
    CUDA_OK(cudaMalloc(&dc, n * sizeof(float)));
    CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += c[i] != a[i] + b[i];
    char d[64];
    snprintf(d, sizeof d, "%d of %d elements differ", bad, n);
    e2e_result(bad == 0, "vector_add", d);
    int dev = -1, count = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceCount(&count));
    e2e_result(dev == 0 && count == 1, "device", "one device, number 0");
    // cudaGetDeviceProperties reads every device attribute.
    cudaDeviceProp p;
    CUDA_OK(cudaGetDeviceProperties(&p, 0));
    char pd[160];
    snprintf(pd, sizeof pd, "%s cc %d.%d, warp %d, %d SM, %zu B shared/block, %d threads/block", p.name, p.major, p.minor,
             p.warpSize, p.multiProcessorCount, p.sharedMemPerBlock, p.maxThreadsPerBlock);
    e2e_result(p.major == 8 && p.minor == 0 && p.warpSize == 32 && p.maxThreadsPerBlock == 1024 &&
                   p.sharedMemPerBlock == 48 * 1024 && p.totalGlobalMem > 0 && p.multiProcessorCount >= 1,
               "properties", pd);
    CUDA_OK(cudaFree(da)); CUDA_OK(cudaFree(db)); CUDA_OK(cudaFree(dc));
    return e2e_exit();
}
