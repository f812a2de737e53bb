// Divergent loops and early returns: Collatz lengths, early-return device
// functions, prime test and kernels that exit early on many paths.
#include "compat.h"

__device__ __noinline__ int collatz_len(unsigned long long x) {
  int steps = 0;
  while (x != 1) {
    if (x & 1)
      x = 3 * x + 1;
    else
      x >>= 1;
    ++steps;
    if (steps > 10000) return -1;  // early return from inside the loop
  }
  return steps;
}

extern "C" __global__ void collatz_kernel(int *len, int n, unsigned long long base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  len[i] = collatz_len(base + i);
}

__device__ __noinline__ bool is_prime(unsigned v) {
  if (v < 2) return false;
  if (v < 4) return true;
  if (v % 2 == 0) return false;
  for (unsigned d = 3; d * d <= v; d += 2)
    if (v % d == 0) return false;
  return true;
}

extern "C" __global__ void prime_flags(unsigned *flags, unsigned start, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  flags[i] = is_prime(start + i) ? 1u : 0u;
}

// Linear search with early returns from several places.
__device__ __noinline__ int find_first(const int *a, int n, int key, int limit) {
  if (n <= 0) return -1;
  if (a[0] == key) return 0;
  for (int i = 1; i < n; ++i) {
    if (i >= limit) return -2;
    if (a[i] == key) return i;
    if (a[i] > key && a[i - 1] < key) return -3;
  }
  return -1;
}

extern "C" __global__ void search_kernel(const int *hay, int n, const int *keys, int *pos, int nkeys) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  int key = keys[k];
  if (key < 0) {
    pos[k] = -4;
    return;
  }
  pos[k] = find_first(hay, n, key, 4096);
}

// Mandelbrot: divergent iteration counts per pixel.
extern "C" __global__ void mandelbrot(unsigned char *img, int w, int h, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  float cx = -2.0f + 3.0f * px / w, cy = -1.5f + 3.0f * py / h;
  float x = 0.0f, y = 0.0f;
  int it = 0;
  while (x * x + y * y <= 4.0f && it < max_iter) {
    float xt = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = xt;
    ++it;
  }
  img[py * w + px] = (unsigned char)(it * 255 / max_iter);
}
