// SIMD-within-a-word video intrinsics on 2 x 16-bit and 4 x 8-bit lanes
// (__vadd2, __vabsdiffu4, __vcmpgtu2, __vsads4, ...).
#include "compat.h"

extern "C" __global__ void simd_intrinsics(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  int k = 0;
  out[k++ * n + i] = __vadd2(x, y);
  out[k++ * n + i] = __vaddss2(x, y);
  out[k++ * n + i] = __vaddus2(x, y);
  out[k++ * n + i] = __vsub2(x, y);
  out[k++ * n + i] = __vabsdiffu2(x, y);
  out[k++ * n + i] = __vabsdiffs2(x, y);
  out[k++ * n + i] = __vavgu2(x, y);
  out[k++ * n + i] = __vmaxs2(x, y);
  out[k++ * n + i] = __vminu2(x, y);
  out[k++ * n + i] = __vcmpgtu2(x, y);
  out[k++ * n + i] = __vcmpeq2(x, y);
  out[k++ * n + i] = __vsetges2(x, y);
  out[k++ * n + i] = __vadd4(x, y);
  out[k++ * n + i] = __vaddss4(x, y);
  out[k++ * n + i] = __vsubus4(x, y);
  out[k++ * n + i] = __vabsdiffu4(x, y);
  out[k++ * n + i] = __vabsdiffs4(x, y);
  out[k++ * n + i] = __vavgs4(x, y);
  out[k++ * n + i] = __vmaxu4(x, y);
  out[k++ * n + i] = __vmins4(x, y);
  out[k++ * n + i] = __vcmpltu4(x, y);
  out[k++ * n + i] = __vcmpges4(x, y);
  out[k++ * n + i] = __vsetne4(x, y);
  out[k++ * n + i] = __vsads4(x, y);
  out[k++ * n + i] = __vabs4(x);
  out[k++ * n + i] = __vneg2(x);
  out[k++ * n + i] = __vhaddu4(x, y);
  out[k++ * n + i] = __vsadu2(x, y);
}
