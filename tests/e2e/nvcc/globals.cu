// Module variables: a __device__ array written by the host with
// cudaMemcpyToSymbol and read back with cudaMemcpyFromSymbol, a
// __constant__ table the kernel reads after the host wrote it, a
// __managed__ counter the host writes and reads directly around a kernel
// that updates it, and cudaGetSymbolAddress/Size.
#include "e2e_check.cuh"

__device__ int dev_data[16];
__constant__ float coeffs[4];
__managed__ int counter;

__global__ void use_globals(float *out) {
    int i = threadIdx.x;
    out[i] = coeffs[i % 4] * dev_data[i];
    dev_data[i] += 100;
    atomicAdd(&counter, 1);
}

int main() {
    int h[16];
    for (int i = 0; i < 16; i++) h[i] = i;
    float c[4] = {1.0f, 2.0f, 0.5f, -1.0f};
    CUDA_OK(cudaMemcpyToSymbol(dev_data, h, sizeof h));
    CUDA_OK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
    counter = 1000;  // the host writes the managed variable directly
    float *out;
    CUDA_OK(cudaMalloc(&out, 16 * sizeof(float)));
    use_globals<<<1, 16>>>(out);
    CUDA_OK(cudaDeviceSynchronize());
    float ho[16];
    CUDA_OK(cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 16; i++) bad += ho[i] != c[i % 4] * i;
    e2e_result(bad == 0, "constant", "the kernel read the __constant__ table the host wrote");
    int back[16];
    CUDA_OK(cudaMemcpyFromSymbol(back, dev_data, sizeof back));
    bad = 0;
    for (int i = 0; i < 16; i++) bad += back[i] != i + 100;
    e2e_result(bad == 0, "device", "cudaMemcpyToSymbol/FromSymbol round trip through a kernel");
    char d[64];
    snprintf(d, sizeof d, "counter %d (expected 1016)", counter);
    e2e_result(counter == 1016, "managed", d);
    void *addr = nullptr; size_t size = 0;
    CUDA_OK(cudaGetSymbolAddress(&addr, dev_data));
    CUDA_OK(cudaGetSymbolSize(&size, dev_data));
    int first = -1;
    CUDA_OK(cudaMemcpy(&first, addr, 4, cudaMemcpyDeviceToHost));
    e2e_result(size == sizeof h && first == 100, "symbol-address", "cudaGetSymbolAddress/Size name the variable");
    return e2e_exit();
}
