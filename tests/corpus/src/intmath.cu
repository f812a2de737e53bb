// Integer arithmetic and bit manipulation: signed/unsigned division and
// modulo at 32 and 64 bits, __popc, __clz, __brev, __ffs, mul.hi, funnel
// shifts and byte permutes.
#include "compat.h"

extern "C" __global__ void divmod_kernel(const int *a, const int *b, int *q, int *r, unsigned *uq, unsigned *ur, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  if (y == 0) {
    q[i] = r[i] = 0;
    uq[i] = ur[i] = 0;
    return;
  }
  q[i] = x / y;
  r[i] = x % y;
  uq[i] = (unsigned)x / (unsigned)y;
  ur[i] = (unsigned)x % (unsigned)y;
}

extern "C" __global__ void divmod64_kernel(const long long *a, const long long *b, long long *q, unsigned long long *ur, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || b[i] == 0) return;
  q[i] = a[i] / b[i] + a[i] % 7;
  ur[i] = (unsigned long long)a[i] % (unsigned long long)b[i];
}

extern "C" __global__ void bits_kernel(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
  unsigned *o = out + 8 * i;
  o[0] = __popc(x);
  o[1] = __clz((int)x);
  o[2] = __brev(x);
  o[3] = __ffs((int)x);
  o[4] = __umulhi(x, 0x9e3779b9u);
  o[5] = __funnelshift_l(x, x ^ 0xdeadbeefu, i & 31);
  o[6] = __byte_perm(x, ~x, 0x3210 + (i & 0x7));
  o[7] = (x >> 13) ^ (x << 7) ^ (unsigned)__mulhi((int)x, -7);
}

extern "C" __global__ void bits64_kernel(const unsigned long long *in, unsigned long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = in[i];
  out[4 * i] = __popcll(x);
  out[4 * i + 1] = __clzll((long long)x);
  out[4 * i + 2] = __brevll(x);
  out[4 * i + 3] = (x * 0x9e3779b97f4a7c15ull) >> (x & 63);
}

// Integer square root by bisection and a division-free modular exponent.
__device__ __noinline__ unsigned isqrt(unsigned v) {
  unsigned lo = 0, hi = 65536;
  while (hi - lo > 1) {
    unsigned mid = (lo + hi) >> 1;
    if ((unsigned long long)mid * mid <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

__device__ __noinline__ unsigned powmod(unsigned b, unsigned e, unsigned m) {
  unsigned long long r = 1, x = b % m;
  while (e) {
    if (e & 1) r = r * x % m;
    x = x * x % m;
    e >>= 1;
  }
  return (unsigned)r;
}

extern "C" __global__ void number_theory(const unsigned *in, unsigned *sq, unsigned *pm, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sq[i] = isqrt(in[i]);
  pm[i] = powmod(in[i], 65537u, 1000000007u);
}
