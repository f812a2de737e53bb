// out[t] = TAG * 1000 + t, where TAG is the __CUDA_ARCH__ the PTX was
// compiled for (750, 800, 900), plus 1 for the arch-specific compute_90a:
// a launch tells which PTX entry of a multi-arch fatbin ran.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TAG (__CUDA_ARCH__ + 1)
#else
#define TAG __CUDA_ARCH__
#endif

extern "C" __global__ void which(unsigned *out)
{
    out[threadIdx.x] = TAG * 1000u + threadIdx.x;
}
