// Function pointers: a device table of operations, indirect calls in a loop,
// a callback argument and a small "vtable" struct.
#include "compat.h"

typedef int (*binop_t)(int, int);
typedef float (*unop_t)(float);

__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ __noinline__ int op_xor(int a, int b) { return a ^ b; }
__device__ __noinline__ int op_min(int a, int b) { return a < b ? a : b; }
__device__ __noinline__ int op_shl(int a, int b) { return a << (b & 31); }

__device__ binop_t op_table[6] = {op_add, op_sub, op_mul, op_xor, op_min, op_shl};

__device__ __noinline__ float f_square(float x) { return x * x; }
__device__ __noinline__ float f_half(float x) { return 0.5f * x; }
__device__ __noinline__ float f_neg(float x) { return -x; }

struct Shape {
  float (*area)(const float *dims);
  float (*perimeter)(const float *dims);
};

__device__ __noinline__ float rect_area(const float *d) { return d[0] * d[1]; }
__device__ __noinline__ float rect_perim(const float *d) { return 2.0f * (d[0] + d[1]); }
__device__ __noinline__ float circ_area(const float *d) { return 3.14159265f * d[0] * d[0]; }
__device__ __noinline__ float circ_perim(const float *d) { return 6.2831853f * d[0]; }

__device__ Shape shape_vtables[2] = {{rect_area, rect_perim}, {circ_area, circ_perim}};

// Apply a sequence of operations chosen per element.
extern "C" __global__ void apply_ops(const int *a, const int *b, const int *opcodes, int *out, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = a[i];
  for (int s = 0; s < steps; ++s) {
    binop_t f = op_table[(opcodes[i] + s) % 6];
    acc = f(acc, b[i] + s);
  }
  out[i] = acc;
}

__device__ __noinline__ float map_reduce(const float *x, int n, unop_t f) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += f(x[i]);
  return s;
}

extern "C" __global__ void callback_kernel(const float *x, float *out, int n, int which) {
  unop_t f = which == 0 ? f_square : (which == 1 ? f_half : f_neg);
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = map_reduce(x, n, f);
}

extern "C" __global__ void shapes_kernel(const int *kind, const float *dims, float *area, float *perim, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Shape &s = shape_vtables[kind[i] & 1];
  area[i] = s.area(dims + 2 * i);
  perim[i] = s.perimeter(dims + 2 * i);
}
