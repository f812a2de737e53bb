// Half and bfloat16 arithmetic from cuda_fp16.h / cuda_bf16.h.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_ops(const __half2 *a, const __half2 *b, __half2 *out, unsigned *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i];
  int k = 0;
  out[k++ * n + i] = __hadd2(x, y);
  out[k++ * n + i] = __hsub2(x, y);
  out[k++ * n + i] = __hmul2(x, y);
  out[k++ * n + i] = __hfma2(x, y, x);
  out[k++ * n + i] = __h2div(x, y);
  out[k++ * n + i] = __hmax2(x, y);
  out[k++ * n + i] = __hmin2(x, y);
  out[k++ * n + i] = __hneg2(x);
  out[k++ * n + i] = __habs2(x);
  out[k++ * n + i] = __hadd2_sat(x, y);
  out[k++ * n + i] = __hfma2_sat(x, y, y);
  out[k++ * n + i] = __hmax2_nan(x, y);
  out[k++ * n + i] = __halves2half2(__hadd(__low2half(x), __high2half(y)), __hmul(__high2half(x), __low2half(y)));
  out[k++ * n + i] = __halves2half2(__hdiv(__low2half(x), __low2half(y)), __hsub(__high2half(x), __high2half(y)));
  out[k++ * n + i] = __floats2half2_rn(__low2float(x) * 3.0f, __high2float(y) + 0.1f);
  out[k++ * n + i] = __halves2half2(__float2half_rz(__low2float(x) / 3.0f), __float2half_ru(__high2float(x) / 3.0f));
  out[k++ * n + i] = __halves2half2(__int2half_rn((int)(i * 37) - 1000), __uint2half_rn(i * 1001u));
  out[k++ * n + i] = h2sqrt(__habs2(x));
  out[k++ * n + i] = h2exp(__hmul2(x, __float2half2_rn(0.125f)));
  out[k++ * n + i] = h2log(__habs2(x));
  out[k++ * n + i] = h2rcp(x);
  out[k++ * n + i] = h2floor(x);
  out[k++ * n + i] = h2rint(x);
  out[k++ * n + i] = h2trunc(x);
  out[k++ * n + i] = h2ceil(x);
  out[k++ * n + i] = h2sin(x);
  out[k++ * n + i] = h2cos(x);
  out[k++ * n + i] = __lowhigh2highlow(x);
  unsigned f = 0;
  f |= __hbeq2(x, y) << 0;
  f |= __hblt2(x, y) << 1;
  f |= __hbgeu2(x, y) << 2;
  f |= __hisnan(__low2half(x)) << 3;
  f |= __hisinf(__high2half(x)) << 4;
  f |= __hgt(__low2half(x), __high2half(y)) << 5;
  f |= __hne(__low2half(x), __low2half(y)) << 6;
  __half2 c = __hlt2(x, y);
  f |= (unsigned)(__half_as_ushort(__low2half(c)) == 0x3c00) << 7;
  f |= (unsigned)(__half_as_ushort(__high2half(c)) == 0x3c00) << 8;
  f |= (__hle2_mask(x, y) & 0xffff0000u) ? (1u << 9) : 0;
  f |= (unsigned)__half2int_rn(__low2half(x)) << 12;
  flags[i] = f;
}

extern "C" __global__ void bf16_ops(const __nv_bfloat162 *a, const __nv_bfloat162 *b, __nv_bfloat162 *out, float *fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat162 x = a[i], y = b[i];
  int k = 0;
  out[k++ * n + i] = __hadd2(x, y);
  out[k++ * n + i] = __hsub2(x, y);
  out[k++ * n + i] = __hmul2(x, y);
  out[k++ * n + i] = __hfma2(x, y, x);
  out[k++ * n + i] = __hmax2(x, y);
  out[k++ * n + i] = __hmin2(x, y);
  out[k++ * n + i] = __hneg2(x);
  out[k++ * n + i] = __habs2(x);
  out[k++ * n + i] = __h2div(x, y);
  out[k++ * n + i] = __floats2bfloat162_rn(__low2float(x) * 3.0f, __high2float(y) + 0.1f);
  out[k++ * n + i] = __halves2bfloat162(__float2bfloat16_rz(__low2float(x) / 3.0f), __float2bfloat16_ru(__high2float(x) / 3.0f));
  out[k++ * n + i] = h2sqrt(__habs2(x));
  out[k++ * n + i] = h2exp(__hmul2(x, __float2bfloat162_rn(0.125f)));
  out[k++ * n + i] = h2floor(x);
  out[k++ * n + i] = h2rint(x);
  fout[i] = __bfloat162float(__hadd(__low2bfloat16(x), __high2bfloat16(y))) + __bfloat162float(__double2bfloat16((double)i / 7.0));
  fout[n + i] = (float)__hlt(__low2bfloat16(x), __high2bfloat16(y)) + 2.0f * (float)__hbeq2(x, y);
}
