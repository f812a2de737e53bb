// Recursive device functions (kept as real calls with __noinline__):
// Fibonacci, a binary tree walk, Ackermann, GCD and a recursive quicksort.
#include "compat.h"

__device__ __noinline__ int fib(int n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

struct Node {
  int value;
  int left;   // index of the left child or -1
  int right;  // index of the right child or -1
};

__device__ __noinline__ int tree_sum(const Node *nodes, int idx, int depth) {
  if (idx < 0) return 0;
  if (depth > 64) return -1;  // guard against cycles
  const Node &nd = nodes[idx];
  int l = tree_sum(nodes, nd.left, depth + 1);
  int r = tree_sum(nodes, nd.right, depth + 1);
  return nd.value + l + r;
}

__device__ __noinline__ int tree_height(const Node *nodes, int idx) {
  if (idx < 0) return 0;
  int hl = tree_height(nodes, nodes[idx].left);
  int hr = tree_height(nodes, nodes[idx].right);
  return 1 + (hl > hr ? hl : hr);
}

__device__ __noinline__ unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ long long gcd_rec(long long a, long long b) {
  return b == 0 ? a : gcd_rec(b, a % b);
}

__device__ __noinline__ void quicksort_rec(int *a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) ++i;
    while (a[j] > p) --j;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort_rec(a, lo, j);
  quicksort_rec(a, i, hi);
}

extern "C" __global__ void fib_kernel(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(i % 20);
}

extern "C" __global__ void tree_kernel(const Node *nodes, int *sums, int *heights, int nroots, const int *roots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nroots) return;
  sums[i] = tree_sum(nodes, roots[i], 0);
  heights[i] = tree_height(nodes, roots[i]);
}

extern "C" __global__ void ackermann_gcd_kernel(unsigned *ack, long long *g, const long long *a, const long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ack[i] = ackermann(i & 1 ? 2 : 1, i % 5);
  g[i] = gcd_rec(a[i], b[i]);
}

// Each thread sorts its own segment of 16 keys recursively.
extern "C" __global__ void segmented_quicksort(int *keys, int nseg) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nseg) quicksort_rec(keys + 16 * s, 0, 15);
}
