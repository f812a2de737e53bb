// Streams with asynchronous copies from pinned host memory, kernels on two
// streams, events recorded between them (cudaStreamWaitEvent,
// cudaEventSynchronize, cudaEventElapsedTime) and a host callback.
#include "e2e_check.cuh"
#include <vector>

__global__ void scale(float *x, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}
__global__ void add_into(float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}

static void CUDART_CB on_host(void *p) { *(int *)p += 1; }

int main() {
    const int n = 1 << 16;
    float *h, *hy, *dx, *dy;
    CUDA_OK(cudaMallocHost(&h, n * 4));
    CUDA_OK(cudaHostAlloc(&hy, n * 4, cudaHostAllocDefault));
    for (int i = 0; i < n; i++) { h[i] = i; hy[i] = 1; }
    CUDA_OK(cudaMalloc(&dx, n * 4)); CUDA_OK(cudaMalloc(&dy, n * 4));
    cudaStream_t s1, s2;
    CUDA_OK(cudaStreamCreate(&s1));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    unsigned int flags = 0;
    CUDA_OK(cudaStreamGetFlags(s2, &flags));
    e2e_result(flags == cudaStreamNonBlocking, "stream-flags", "cudaStreamGetFlags gives the creation flags");
    cudaEvent_t start, xready, stop;
    CUDA_OK(cudaEventCreate(&start)); CUDA_OK(cudaEventCreate(&xready)); CUDA_OK(cudaEventCreate(&stop));
    CUDA_OK(cudaEventRecord(start, s1));
    CUDA_OK(cudaMemcpyAsync(dx, h, n * 4, cudaMemcpyHostToDevice, s1));
    scale<<<(n + 255) / 256, 256, 0, s1>>>(dx, n, 2.0f);
    CUDA_OK(cudaEventRecord(xready, s1));
    CUDA_OK(cudaMemcpyAsync(dy, hy, n * 4, cudaMemcpyHostToDevice, s2));
    CUDA_OK(cudaStreamWaitEvent(s2, xready, 0));
    add_into<<<(n + 255) / 256, 256, 0, s2>>>(dy, dx, n);
    int calls = 0;
    CUDA_OK(cudaLaunchHostFunc(s2, on_host, &calls));
    CUDA_OK(cudaMemcpyAsync(hy, dy, n * 4, cudaMemcpyDeviceToHost, s2));
    CUDA_OK(cudaEventRecord(stop, s2));
    CUDA_OK(cudaEventSynchronize(stop));
    CUDA_OK(cudaStreamSynchronize(s1));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += hy[i] != 2.0f * i + 1.0f;
    char d[64];
    snprintf(d, sizeof d, "%d of %d elements differ", bad, n);
    e2e_result(bad == 0, "streams", d);
    e2e_result(calls == 1, "host-callback", "cudaLaunchHostFunc ran once, in stream order");
    float ms = -1;
    CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    snprintf(d, sizeof d, "elapsed %.3f ms", ms);
    e2e_result(ms >= 0.0f, "events", d);
    e2e_result(cudaEventQuery(stop) == cudaSuccess && cudaStreamQuery(s2) == cudaSuccess, "query", "the event and stream are complete");
    CUDA_OK(cudaStreamDestroy(s1)); CUDA_OK(cudaStreamDestroy(s2));
    CUDA_OK(cudaFreeHost(h)); CUDA_OK(cudaFreeHost(hy));
    CUDA_OK(cudaDeviceSynchronize());
    return e2e_exit();
}
