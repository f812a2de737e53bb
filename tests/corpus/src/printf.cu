// Device-side printf with integer, float, double, string and pointer
// arguments (lowered to vprintf).
#include "compat.h"
#if defined(CX_PRODUCER_NVCC)
#include <cstdio>
#endif

__device__ __noinline__ void report(int tid, float v) {
  printf("thread %d value %f hex %08x\n", tid, v, (unsigned)tid * 2654435761u);
}

extern "C" __global__ void hello_printf(const float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("hello from block %d of %d, blockDim %d\n", blockIdx.x, gridDim.x, blockDim.x);
  if (i < n && (i & 7) == 0) report(i, data[i]);
  if (i == n - 1) printf("last=%d ptr=%p double=%.3f ll=%lld str=%s\n", i, (const void *)data, (double)data[i] * 2.0,
                         (long long)i << 33, "end");
}

extern "C" __global__ void assert_like(const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (v[i] < 0) {
    printf("negative value %d at %d\n", v[i], i);
    return;
  }
  if (v[i] > 1000) printf("large value %d at %d (warp %d lane %d)\n", v[i], i, threadIdx.x / 32, threadIdx.x % 32);
}
