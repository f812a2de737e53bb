// Separate compilation (nvcc -rdc=true), the library half: device functions
// and device variables that rdc_main.cu uses through extern declarations.

__device__ int rdc_calls;            // counted by rdc_count
__device__ float rdc_scale = 2.5f;   // read by rdc_main.cu

__device__ float rdc_poly(float x) {
    return (3.0f * x - 2.0f) * x + 1.0f;
}

__device__ int rdc_count(int v) {
    atomicAdd(&rdc_calls, 1);
    return __popc(v) + (v & 7);
}
