// Integer intrinsics: 32/64-bit high multiplies, sums of absolute
// differences, byte permutes, funnel shifts, 64-bit bit counts, dot products.
#include "compat.h"

extern "C" __global__ void int_intrinsics(const unsigned *a, const unsigned *b, const unsigned long long *c,
                                          const unsigned long long *d, unsigned *out, unsigned long long *out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned long long u = c[i], v = d[i];
  int k = 0, j = 0;
  out[k++ * n + i] = __umulhi(x, y);
  out[k++ * n + i] = (unsigned)__mulhi((int)x, (int)y);
  out[k++ * n + i] = __sad((int)x, (int)y, 7u);
  out[k++ * n + i] = __usad(x, y, 3u);
  out[k++ * n + i] = __byte_perm(x, y, y & 0xffff);
  out[k++ * n + i] = __funnelshift_l(x, y, (unsigned)u);
  out[k++ * n + i] = __funnelshift_r(x, y, (unsigned)u);
  out[k++ * n + i] = __funnelshift_lc(x, y, (unsigned)u);
  out[k++ * n + i] = __funnelshift_rc(x, y, (unsigned)u);
  out[k++ * n + i] = __ffsll((long long)u);
  out[k++ * n + i] = __popcll(u);
  out[k++ * n + i] = __clzll((long long)u);
  out[k++ * n + i] = (unsigned)__hadd((int)x, (int)y);
  out[k++ * n + i] = (unsigned)__rhadd((int)x, (int)y);
  out[k++ * n + i] = __uhadd(x, y);
  out[k++ * n + i] = __urhadd(x, y);
  out[k++ * n + i] = (unsigned)__mul24((int)x, (int)y);
  out[k++ * n + i] = __umul24(x, y);
  out[k++ * n + i] = (unsigned)__dp4a((int)x, (int)y, 5);
  out[k++ * n + i] = __dp2a_lo(x, y, 9u);
  out[k++ * n + i] = __dp2a_hi((int)x, (int)y, -9);
  out[k++ * n + i] = __brev(x);
  out[k++ * n + i] = (unsigned)__fns(x, y & 31, (int)(u & 7) - 3);
  out64[j++ * n + i] = __umul64hi(u, v);
  out64[j++ * n + i] = (unsigned long long)__mul64hi((long long)u, (long long)v);
  out64[j++ * n + i] = __brevll(u);
  out64[j++ * n + i] = u / (v | 1);
  out64[j++ * n + i] = (unsigned long long)((long long)u % (long long)(v | 1));
  out64[j++ * n + i] = (unsigned long long)llmin((long long)u, (long long)v);
  out64[j++ * n + i] = ullmax(u, v);
  out64[j++ * n + i] = (u << (v & 63)) | (u >> ((64 - (v & 63)) & 63));
}
