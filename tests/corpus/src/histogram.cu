// Histograms with atomics on shared and global memory, plus the other
// atomic read-modify-write flavours.
#include "compat.h"

#define NBINS 64

extern "C" __global__ void histogram_shared(const unsigned char *data, unsigned *hist, int n) {
  __shared__ unsigned local[NBINS];
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % NBINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}

extern "C" __global__ void histogram_global(const int *data, int *hist, int n, int nbins, int lo, int hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = data[i];
  if (v < lo || v >= hi) return;
  int bin = (int)((long long)(v - lo) * nbins / (hi - lo));
  atomicAdd(&hist[bin], 1);
}

// Float histogram with atomicAdd on float weights.
extern "C" __global__ void weighted_histogram(const float *x, const float *w, float *hist, int n) {
  __shared__ float local[NBINS];
  if (threadIdx.x < NBINS) local[threadIdx.x] = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = fminf(fmaxf(x[i], 0.0f), 0.999999f);
    atomicAdd(&local[(int)(v * NBINS)], w[i]);
  }
  __syncthreads();
  if (threadIdx.x < NBINS) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}

extern "C" __global__ void atomic_zoo(int *stats, unsigned *ring, const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = v[i];
  atomicMin(&stats[0], x);
  atomicMax(&stats[1], x);
  atomicAnd(&stats[2], x);
  atomicOr(&stats[3], x);
  atomicXor(&stats[4], x);
  atomicSub(&stats[5], x);
  int old = atomicExch(&stats[6], x);
  atomicAdd(&stats[7], old & 1);
  atomicCAS(&stats[8], 0, x);
  atomicInc(&ring[0], 15u);
  atomicDec(&ring[1], 15u);
}
