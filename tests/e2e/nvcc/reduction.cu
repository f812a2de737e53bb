// Sum reduction: a shared-memory tree per block, the last warp with
// __shfl_down_sync, the block sums combined with atomicAdd.
#include "e2e_check.cuh"
#include <vector>

__global__ void reduce(const int *in, unsigned long long *out, int n) {
    extern __shared__ int s[];
    int tid = threadIdx.x;
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) sum += in[i];
    s[tid] = sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride >= 32; stride /= 2) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid < 32) {
        int v = s[tid];
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffff, v, off);
        if (tid == 0) atomicAdd(out, (unsigned long long)v);
    }
}

int main() {
    const int n = 1 << 20;
    std::vector<int> h(n);
    unsigned long long ref = 0;
    for (int i = 0; i < n; i++) { h[i] = (i * 2654435761u) % 1000; ref += h[i]; }
    int *din; unsigned long long *dout, got = 0;
    CUDA_OK(cudaMalloc(&din, n * 4));
    CUDA_OK(cudaMalloc(&dout, 8));
    CUDA_OK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dout, 0, 8));
    reduce<<<64, 256, 256 * sizeof(int)>>>(din, dout, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(&got, dout, 8, cudaMemcpyDeviceToHost));
    char d[96];
    snprintf(d, sizeof d, "sum of %d ints: %llu (host %llu)", n, got, ref);
    e2e_result(got == ref, "reduction", d);
    return e2e_exit();
}
