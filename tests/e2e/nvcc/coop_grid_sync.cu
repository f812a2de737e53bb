// Cooperative groups: a grid-wide barrier (this_grid().sync()) between two
// phases, launched with cudaLaunchCooperativeKernel at a grid size the
// occupancy calculator allows. Each block reads what other blocks wrote
// before the barrier.
// (No -rdc: since CUDA 12 grid.sync() needs no separate compilation.)
#include "e2e_check.cuh"
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;

__global__ void two_phases(int *a, int *b, int n) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) a[i] = i * 3;
    grid.sync();
    // Read an element some other block wrote.
    for (int i = grid.thread_rank(); i < n; i += grid.size()) b[i] = a[(i + n / 2) % n] + 1;
}

int main() {
    int supported = 0;
    CUDA_OK(cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, 0));
    e2e_result(supported == 1, "coop-attribute", "cooperative launch supported");
    int per_sm = 0, sms = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phases, 128, 0));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int blocks = per_sm * sms < 8 ? per_sm * sms : 8;
    const int n = 10000;
    int *a, *b;
    CUDA_OK(cudaMalloc(&a, n * 4)); CUDA_OK(cudaMalloc(&b, n * 4));
    int nn = n;
    void *args[] = {&a, &b, &nn};
    CUDA_OK(cudaLaunchCooperativeKernel((void *)two_phases, dim3(blocks), dim3(128), args, 0, 0));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> hb(n);
    CUDA_OK(cudaMemcpy(hb.data(), b, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hb[i] != ((i + n / 2) % n) * 3 + 1;
    char d[80];
    snprintf(d, sizeof d, "%d blocks (%d per SM), %d of %d differ", blocks, per_sm, bad, n);
    e2e_result(bad == 0 && blocks > 1, "grid_sync", d);
    return e2e_exit();
}
