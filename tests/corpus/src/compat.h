// Shared prelude for the corpus CUDA sources.
//
// The same .cu file is compiled by two producers:
//   * nvcc (NVIDIA), which pre-includes cuda_runtime.h and provides every
//     CUDA intrinsic used below;
//   * Debian clang in CUDA device-only mode with -nocudainc -nocudalib, which
//     sees no CUDA headers at all, so the keywords and the intrinsics that the
//     corpus uses are defined here on top of clang's NVVM builtins.
#pragma once

#if defined(__NVCC__)

#define CX_PRODUCER_NVCC 1
#define CX_HAVE_MATH 1

#else  // clang -x cuda --cuda-device-only -nocudainc -nocudalib

#define CX_PRODUCER_CLANG 1

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

#include <__clang_cuda_builtin_vars.h>

extern "C" __device__ int printf(const char *, ...);

// Warp-level primitives.
static __device__ __forceinline__ int __shfl_down_sync(unsigned m, int v, unsigned d) {
  return __nvvm_shfl_sync_down_i32(m, v, d, 0x1f);
}
static __device__ __forceinline__ float __shfl_down_sync(unsigned m, float v, unsigned d) {
  return __nvvm_shfl_sync_down_f32(m, v, d, 0x1f);
}
static __device__ __forceinline__ int __shfl_up_sync(unsigned m, int v, unsigned d) {
  return __nvvm_shfl_sync_up_i32(m, v, d, 0);
}
static __device__ __forceinline__ int __shfl_xor_sync(unsigned m, int v, int lane) {
  return __nvvm_shfl_sync_bfly_i32(m, v, lane, 0x1f);
}
static __device__ __forceinline__ float __shfl_xor_sync(unsigned m, float v, int lane) {
  return __nvvm_shfl_sync_bfly_f32(m, v, lane, 0x1f);
}
static __device__ __forceinline__ int __shfl_sync(unsigned m, int v, int src) {
  return __nvvm_shfl_sync_idx_i32(m, v, src, 0x1f);
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) {
  return __nvvm_vote_ballot_sync(m, p != 0);
}
static __device__ __forceinline__ int __any_sync(unsigned m, int p) {
  return __nvvm_vote_any_sync(m, p != 0);
}
static __device__ __forceinline__ int __all_sync(unsigned m, int p) {
  return __nvvm_vote_all_sync(m, p != 0);
}
static __device__ __forceinline__ unsigned __activemask() {
  unsigned r;
  asm volatile("activemask.b32 %0;" : "=r"(r));
  return r;
}
static __device__ __forceinline__ void __syncwarp(unsigned m = 0xffffffffu) {
  __nvvm_bar_warp_sync(m);
}
static __device__ __forceinline__ void __threadfence() { __nvvm_membar_gl(); }
static __device__ __forceinline__ void __threadfence_block() { __nvvm_membar_cta(); }
static __device__ __forceinline__ void __nanosleep(unsigned ns) {
  asm volatile("nanosleep.u32 %0;" ::"r"(ns));
}

// Atomics.
static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
static __device__ __forceinline__ unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_add_gen_ll((long long *)p, (long long)v);
}
static __device__ __forceinline__ int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
static __device__ __forceinline__ int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
static __device__ __forceinline__ unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
static __device__ __forceinline__ int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
static __device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMax(unsigned *p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
static __device__ __forceinline__ unsigned atomicMin(unsigned *p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
static __device__ __forceinline__ int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
static __device__ __forceinline__ int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
static __device__ __forceinline__ int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicInc(unsigned *p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
static __device__ __forceinline__ unsigned atomicDec(unsigned *p, unsigned v) { return __nvvm_atom_dec_gen_ui(p, v); }

// Integer intrinsics.
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static __device__ __forceinline__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static __device__ __forceinline__ int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static __device__ __forceinline__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
static __device__ __forceinline__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
static __device__ __forceinline__ int __ffs(int x) { return x == 0 ? 0 : __builtin_ctz((unsigned)x) + 1; }
static __device__ __forceinline__ int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
static __device__ __forceinline__ unsigned __umulhi(unsigned a, unsigned b) { return __nvvm_mulhi_ui(a, b); }
static __device__ __forceinline__ unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  s &= 31;
  return s == 0 ? hi : (hi << s) | (lo >> (32 - s));
}
static __device__ __forceinline__ unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  return __nvvm_prmt(x, y, s);
}
static __device__ __forceinline__ unsigned int __clock() { return __nvvm_read_ptx_sreg_clock(); }

// Float helpers (no libdevice with -nocudalib: use NVVM approximations).
static __device__ __forceinline__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
static __device__ __forceinline__ float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
static __device__ __forceinline__ double sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
static __device__ __forceinline__ float fabsf(float x) { return __nvvm_fabs_f(x); }
static __device__ __forceinline__ double fabs(double x) { return __nvvm_fabs_d(x); }
static __device__ __forceinline__ float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __nvvm_fma_rn_d(a, b, c); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
static __device__ __forceinline__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }

#endif

// Common helpers for both producers.
#define CX_FULL_MASK 0xffffffffu

static __device__ __forceinline__ unsigned cx_global_tid() {
  return blockIdx.x * blockDim.x + threadIdx.x;
}
