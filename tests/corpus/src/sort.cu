// Sorting: bitonic sort in shared memory, one global bitonic step, odd-even
// transposition sort and a rank (counting) sort.
#include "compat.h"

#define SORT_N 1024

static __device__ __noinline__ void cmp_swap(int *a, int i, int j, bool up) {
  int x = a[i], y = a[j];
  if ((x > y) == up) {
    a[i] = y;
    a[j] = x;
  }
}

// One block sorts SORT_N keys, blockDim.x == SORT_N / 2.
extern "C" __global__ void bitonic_sort_shared(int *keys) {
  __shared__ int s[SORT_N];
  int t = threadIdx.x;
  s[t] = keys[blockIdx.x * SORT_N + t];
  s[t + SORT_N / 2] = keys[blockIdx.x * SORT_N + t + SORT_N / 2];
  __syncthreads();
  for (int k = 2; k <= SORT_N; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int i = 2 * t - (t & (j - 1));
      int ixj = i + j;
      bool up = (i & k) == 0;
      cmp_swap(s, i, ixj, up);
      __syncthreads();
    }
  }
  keys[blockIdx.x * SORT_N + t] = s[t];
  keys[blockIdx.x * SORT_N + t + SORT_N / 2] = s[t + SORT_N / 2];
}

// One (k, j) step of a global bitonic sort network.
extern "C" __global__ void bitonic_step_global(float *v, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned ixj = i ^ j;
  if (ixj <= i) return;
  float a = v[i], b = v[ixj];
  bool asc = (i & k) == 0;
  if (asc ? a > b : a < b) {
    v[i] = b;
    v[ixj] = a;
  }
}

// Odd-even transposition sort of n <= 2*blockDim.x keys in one block.
extern "C" __global__ void odd_even_sort(int *a, int n) {
  __shared__ int s[SORT_N];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = a[i];
  __syncthreads();
  for (int phase = 0; phase < n; ++phase) {
    int i = 2 * threadIdx.x + (phase & 1);
    if (i + 1 < n) {
      int x = s[i], y = s[i + 1];
      if (x > y) {
        s[i] = y;
        s[i + 1] = x;
      }
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = s[i];
}

// Rank sort: every thread counts how many keys precede its own.
extern "C" __global__ void rank_sort(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned me = in[i];
  int rank = 0;
  for (int j = 0; j < n; ++j) {
    unsigned o = in[j];
    if (o < me || (o == me && j < i)) ++rank;
  }
  out[rank] = me;
}
