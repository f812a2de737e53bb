// CUB device-wide algorithms: cub::DeviceReduce::Sum and
// cub::DeviceScan::ExclusiveSum (its decoupled look-back has thread blocks
// waiting on each other's results through global memory), each with the
// two-call temporary storage protocol; the scan on 4-byte and on 8-byte
// values (a tile's status and prefix travel as one 8- or 16-byte vector).
#include "e2e_check.cuh"
#include <cub/cub.cuh>
#include <vector>

int main() {
    const int n = 1 << 18;
    std::vector<int> h(n);
    long long ref = 0;
    for (int i = 0; i < n; i++) { h[i] = (i * 7919) % 101 - 50; ref += h[i]; }
    int *din, *dscan; long long *dsum;
    CUDA_OK(cudaMalloc(&din, n * 4)); CUDA_OK(cudaMalloc(&dscan, n * 4)); CUDA_OK(cudaMalloc(&dsum, 8));
    CUDA_OK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));

    void *tmp = nullptr; size_t bytes = 0;
    CUDA_OK(cub::DeviceReduce::Sum(tmp, bytes, din, dsum, n));
    CUDA_OK(cudaMalloc(&tmp, bytes));
    CUDA_OK(cub::DeviceReduce::Sum(tmp, bytes, din, dsum, n));
    long long got = 0;
    CUDA_OK(cudaMemcpy(&got, dsum, 8, cudaMemcpyDeviceToHost));
    char d[96];
    snprintf(d, sizeof d, "sum %lld (host %lld)", got, ref);
    e2e_result(got == ref, "DeviceReduce::Sum", d);
    CUDA_OK(cudaFree(tmp));

    tmp = nullptr; bytes = 0;
    CUDA_OK(cub::DeviceScan::ExclusiveSum(tmp, bytes, din, dscan, n));
    CUDA_OK(cudaMalloc(&tmp, bytes));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(tmp, bytes, din, dscan, n));
    std::vector<int> out(n);
    CUDA_OK(cudaMemcpy(out.data(), dscan, n * 4, cudaMemcpyDeviceToHost));
    int acc = 0, bad = 0;
    for (int i = 0; i < n; i++) { bad += out[i] != acc; acc += h[i]; }
    snprintf(d, sizeof d, "%d of %d prefixes differ", bad, n);
    e2e_result(bad == 0, "DeviceScan::ExclusiveSum", d);
    CUDA_OK(cudaFree(tmp));

    // 8-byte values: the look-back's status and prefix make a 16-byte
    // vector, which other thread blocks must see whole.
    std::vector<long long> h64(n);
    for (int i = 0; i < n; i++) h64[i] = (long long)h[i] * 1000003LL + (i % 3);
    long long *din64, *dscan64;
    CUDA_OK(cudaMalloc(&din64, n * 8)); CUDA_OK(cudaMalloc(&dscan64, n * 8));
    CUDA_OK(cudaMemcpy(din64, h64.data(), n * 8, cudaMemcpyHostToDevice));
    tmp = nullptr; bytes = 0;
    CUDA_OK(cub::DeviceScan::InclusiveSum(tmp, bytes, din64, dscan64, n));
    CUDA_OK(cudaMalloc(&tmp, bytes));
    CUDA_OK(cub::DeviceScan::InclusiveSum(tmp, bytes, din64, dscan64, n));
    std::vector<long long> out64(n);
    CUDA_OK(cudaMemcpy(out64.data(), dscan64, n * 8, cudaMemcpyDeviceToHost));
    long long acc64 = 0; bad = 0;
    for (int i = 0; i < n; i++) { acc64 += h64[i]; bad += out64[i] != acc64; }
    snprintf(d, sizeof d, "%d of %d int64 prefixes differ", bad, n);
    e2e_result(bad == 0, "DeviceScan::InclusiveSum(int64)", d);
    return e2e_exit();
}
