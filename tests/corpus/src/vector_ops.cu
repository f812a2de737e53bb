// Element-wise kernels: vector add, saxpy, daxpy, grid-stride loops and a
// kernel launched on a 3D grid.
#include "compat.h"

extern "C" __global__ void vec_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float alpha, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // early exit of out-of-range threads
  y[i] = alpha * x[i] + y[i];
}

extern "C" __global__ void daxpy_grid_stride(long n, double alpha, const double *x, double *y) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)blockDim.x * gridDim.x)
    y[i] = fma(alpha, x[i], y[i]);
}

extern "C" __global__ void vec_scale_int(int *v, int n, int mul, int add) {
  unsigned i = cx_global_tid();
  unsigned stride = blockDim.x * gridDim.x;
  for (; i < (unsigned)n; i += stride) v[i] = v[i] * mul + add;
}

// 3D grid: each thread writes its linearised coordinate into a volume.
extern "C" __global__ void fill_volume_3d(int *vol, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  int idx = (z * ny + y) * nx + x;
  vol[idx] = x + 1000 * y + 1000000 * z;
}

// 7-point stencil over a 3D volume (boundary cells are copied).
extern "C" __global__ void stencil_3d(const float *in, float *out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  int i = (z * ny + y) * nx + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  float s = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - nx * ny] + in[i + nx * ny];
  out[i] = 0.5f * in[i] + (0.5f / 6.0f) * s;
}
