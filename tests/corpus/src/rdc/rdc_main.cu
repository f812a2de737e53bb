// Separate compilation (nvcc -rdc=true), the kernel half: calls the device
// functions and reads the device variable that rdc_lib.cu defines.

extern __device__ float rdc_poly(float x);
extern __device__ int rdc_count(int v);
extern __device__ float rdc_scale;

extern "C" __global__ void rdc_apply(float *out, const float *x, int *cnt, const int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = rdc_poly(x[i]) * rdc_scale;
        cnt[i] = rdc_count(v[i]);
    }
}
