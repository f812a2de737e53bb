// Atomics beyond 32-bit integers: double and 64-bit, exchange, wrapping
// increment/decrement, 64-bit compare-and-swap loops, min/max/and/or/xor on
// 64 bits, block and system scope, and atomicAdd on __half2/__nv_bfloat162.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ double atomic_max_double(double *p, double v) {
  unsigned long long *q = (unsigned long long *)p;
  unsigned long long old = *q, assumed;
  do {
    assumed = old;
    if (__longlong_as_double(assumed) >= v) break;
    old = atomicCAS(q, assumed, __double_as_longlong(v));
  } while (assumed != old);
  return __longlong_as_double(old);
}

extern "C" __global__ void atomics64(const double *vals, const long long *ivals, double *dsum, double *dmax,
                                     unsigned long long *u64, long long *s64, unsigned *wrap, __half2 *h2,
                                     __nv_bfloat162 *b2, float *fx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = vals[i];
  long long w = ivals[i];
  atomicAdd(dsum, v);
  atomicAdd_block(dsum + 1, 0.5);
  atomicAdd_system(dsum + 2, v * 2.0);
  atomic_max_double(dmax, v);
  atomicAdd(&u64[0], (unsigned long long)(w & 0xffff));
  atomicMin(&u64[1], (unsigned long long)w);
  atomicMax(&u64[2], (unsigned long long)w);
  atomicAnd(&u64[3], (unsigned long long)w | 0x8000000000000001ull);
  atomicOr(&u64[4], 1ull << (i & 63));
  atomicXor(&u64[5], (unsigned long long)w);
  atomicMin(&s64[0], w);
  atomicMax(&s64[1], w);
  atomicInc(&wrap[0], 17u);
  atomicDec(&wrap[1], 13u);
  atomicInc_block(&wrap[2], 1000u);
  atomicDec_system(&wrap[3], 5u);
  atomicExch(&wrap[4 + (i & 3)], (unsigned)i);  // one of the writers wins
  atomicAdd(&h2[0], __floats2half2_rn(0.25f, (float)(i & 3)));
  atomicAdd(&b2[0], __floats2bfloat162_rn(1.0f, -0.5f));
  atomicExch(&fx[0], 2.5f);
  atomicAdd(&fx[1], 0.25f);
  unsigned long long *cas = &u64[6];
  unsigned long long old = *cas, assumed;
  do {
    assumed = old;
    old = atomicCAS(cas, assumed, assumed + (unsigned long long)i + 1);
  } while (old != assumed);
}
