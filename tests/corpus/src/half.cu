// Half precision arithmetic with cuda_fp16.h (nvcc only).
#include <cuda_fp16.h>

extern "C" __global__ void half_axpy(int n, __half a, const __half *x, __half *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
}

extern "C" __global__ void half2_ops(const __half2 *a, const __half2 *b, __half2 *c, float *dot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 p = __hmul2(a[i], b[i]);
  __half2 s = __hadd2(a[i], b[i]);
  c[i] = __hmax2(p, s);
  float2 f = __half22float2(p);
  atomicAdd(dot, f.x + f.y);
}

extern "C" __global__ void half_compare(const __half *x, int *flags, __half *clamped, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half v = x[i];
  __half lo = __float2half(-1.0f), hi = __float2half(1.0f);
  int f = 0;
  if (__hlt(v, lo)) f |= 1;
  if (__hgt(v, hi)) f |= 2;
  if (__hisnan(v)) f |= 4;
  flags[i] = f;
  clamped[i] = __hmin(__hmax(v, lo), hi);
}

extern "C" __global__ void half_convert(const float *in, __half *h, float *back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half v = __float2half_rn(in[i]);
  h[i] = __hsub(v, __float2half(0.5f));
  back[i] = __half2float(__hdiv(v, __float2half(3.0f)));
}
