// Inclusive prefix sum of a large array in three kernels: a Hillis-Steele
// scan of each block in shared memory, a scan of the block totals, and the
// totals added back.
#include "e2e_check.cuh"
#include <vector>

#define B 256

__global__ void block_scan(const int *in, int *out, int *totals, int n) {
    __shared__ int s[B];
    int i = blockIdx.x * B + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < B; off *= 2) {
        int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n) out[i] = s[threadIdx.x];
    if (threadIdx.x == B - 1) totals[blockIdx.x] = s[B - 1];
}

__global__ void add_offsets(int *out, const int *scanned_totals, int n) {
    int i = blockIdx.x * B + threadIdx.x;
    if (blockIdx.x > 0 && i < n) out[i] += scanned_totals[blockIdx.x - 1];
}

int main() {
    const int n = 200000, blocks = (n + B - 1) / B;  // 782 blocks: the totals need two levels
    std::vector<int> h(n), out(n);
    for (int i = 0; i < n; i++) h[i] = (i % 13) - 6;
    int *din, *dout, *dt, *dts, *dtt;
    CUDA_OK(cudaMalloc(&din, n * 4)); CUDA_OK(cudaMalloc(&dout, n * 4));
    CUDA_OK(cudaMalloc(&dt, blocks * 4)); CUDA_OK(cudaMalloc(&dts, blocks * 4)); CUDA_OK(cudaMalloc(&dtt, 8 * 4));
    CUDA_OK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
    block_scan<<<blocks, B>>>(din, dout, dt, n);
    int tb = (blocks + B - 1) / B;
    block_scan<<<tb, B>>>(dt, dts, dtt, blocks);
    block_scan<<<1, B>>>(dtt, dtt, dtt + 4, tb);  // tb <= 4 totals of totals
    add_offsets<<<tb, B>>>(dts, dtt, blocks);
    add_offsets<<<blocks, B>>>(dout, dts, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    long long acc = 0; int bad = 0;
    for (int i = 0; i < n; i++) { acc += h[i]; bad += out[i] != acc; }
    char d[64];
    snprintf(d, sizeof d, "%d blocks, %d of %d prefixes differ", blocks, bad, n);
    e2e_result(bad == 0, "scan", d);
    return e2e_exit();
}
