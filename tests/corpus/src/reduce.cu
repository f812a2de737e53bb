// Reductions: warp shuffle, shared-memory tree, dynamic shared memory and a
// two-level block + atomic reduction.
#include "compat.h"

static __device__ __forceinline__ float warp_reduce_sum(float v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(CX_FULL_MASK, v, off);
  return v;
}

static __device__ __forceinline__ int warp_reduce_max(int v) {
  for (int off = 16; off > 0; off >>= 1) {
    int o = __shfl_xor_sync(CX_FULL_MASK, v, off);
    v = o > v ? o : v;
  }
  return v;
}

// Classic shared-memory tree reduction (blockDim.x == 256).
extern "C" __global__ void reduce_tree_256(const float *in, float *block_sums, int n) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  float v = 0.0f;
  if (i < (unsigned)n) v = in[i];
  if (i + blockDim.x < (unsigned)n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    v = sdata[tid] + sdata[tid + 32];
    v = warp_reduce_sum(v);
  }
  if (tid == 0) block_sums[blockIdx.x] = v;
}

// Warp shuffle first, then one value per warp through shared memory.
extern "C" __global__ void reduce_shuffle_atomic(const float *in, float *total, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  v = warp_reduce_sum(v);
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  int nwarps = (blockDim.x + 31) >> 5;
  if (warp == 0) {
    v = lane < nwarps ? warp_sums[lane] : 0.0f;
    v = warp_reduce_sum(v);
    if (lane == 0) atomicAdd(total, v);
  }
}

// Dynamic shared memory: size given at launch.
extern "C" __global__ void reduce_max_dynamic(const int *in, int *out, int n) {
  extern __shared__ int smem[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  smem[tid] = i < n ? in[i] : -2147483647 - 1;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (tid < s && smem[tid + s] > smem[tid]) smem[tid] = smem[tid + s];
    __syncthreads();
  }
  if (tid == 0) atomicMax(out, smem[0]);
}

extern "C" __global__ void reduce_warp_max(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : -2147483647 - 1;
  v = warp_reduce_max(v);
  if ((threadIdx.x & 31) == 0) atomicMax(out, v);
}

// Double precision dot product.
extern "C" __global__ void dot_double(const double *a, const double *b, double *out, int n) {
  __shared__ double part[128];
  double s = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += a[i] * b[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int k = 64; k > 0; k >>= 1) {
    if ((int)threadIdx.x < k) part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
