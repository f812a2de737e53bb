// Separate compilation (-rdc=true): the kernel calls a __device__ function
// and reads a __device__ variable defined in another translation unit
// (_rdc_helper.cu), linked by nvlink; nvlink's output is machine code only,
// so the driver links the objects' PTX instead. A grid-wide sync through
// libcudadevrt (-lcudadevrt) joins two phases.
// e2e-nvcc-flags: -arch=sm_80 -rdc=true -lcudadevrt
// e2e-nvcc-sources: _rdc_helper.cu
#include "e2e_check.cuh"
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;

extern __device__ int rdc_offset;
__device__ int rdc_mix(int x);

__global__ void phases(int *a, int *b, int n) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) a[i] = rdc_mix(i);
    grid.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) b[i] = a[n - 1 - i] - rdc_offset;
}

int main() {
    const int n = 4096;
    int *a, *b;
    CUDA_OK(cudaMalloc(&a, n * 4)); CUDA_OK(cudaMalloc(&b, n * 4));
    int nn = n;
    void *args[] = {&a, &b, &nn};
    CUDA_OK(cudaLaunchCooperativeKernel((void *)phases, dim3(4), dim3(128), args, 0, 0));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> ha(n), hb(n);
    CUDA_OK(cudaMemcpy(ha.data(), a, n * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(hb.data(), b, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += ha[i] != i * 7 + 1000 || hb[i] != (n - 1 - i) * 7;
    char d[64];
    snprintf(d, sizeof d, "%d of %d elements differ", bad, n);
    e2e_result(bad == 0, "rdc_link", d);
    int off = 0;
    CUDA_OK(cudaMemcpyFromSymbol(&off, rdc_offset, sizeof off));
    e2e_result(off == 1000, "rdc_symbol", "the other unit's __device__ variable by symbol");
    return e2e_exit();
}
