// Matrix multiply: naive, shared-memory tiled with __syncthreads, and a
// double-precision tiled variant with a register-blocked inner loop.
#include "compat.h"

#define TILE 16

extern "C" __global__ void matmul_naive(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}

extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ak = t * TILE + tx;
    int bk = t * TILE + ty;
    As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
    Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

// 2x2 register blocking per thread, 8x8 threads -> 16x16 tile, doubles.
extern "C" __global__ void dgemm_tiled_2x2(const double *A, const double *B, double *C, int n) {
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;  // 0..7
  int row0 = blockIdx.y * TILE + 2 * ty;
  int col0 = blockIdx.x * TILE + 2 * tx;
  double c00 = 0, c01 = 0, c10 = 0, c11 = 0;
  for (int t = 0; t < n; t += TILE) {
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        int r = 2 * ty + dy, c = 2 * tx + dx;
        As[r][c] = (row0 + dy < n && t + c < n) ? A[(row0 + dy) * n + t + c] : 0.0;
        Bs[r][c] = (t + r < n && col0 + dx < n) ? B[(t + r) * n + col0 + dx] : 0.0;
      }
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      double a0 = As[2 * ty][k], a1 = As[2 * ty + 1][k];
      double b0 = Bs[k][2 * tx], b1 = Bs[k][2 * tx + 1];
      c00 = fma(a0, b0, c00);
      c01 = fma(a0, b1, c01);
      c10 = fma(a1, b0, c10);
      c11 = fma(a1, b1, c11);
    }
    __syncthreads();
  }
  if (row0 < n && col0 < n) C[row0 * n + col0] = c00;
  if (row0 < n && col0 + 1 < n) C[row0 * n + col0 + 1] = c01;
  if (row0 + 1 < n && col0 < n) C[(row0 + 1) * n + col0] = c10;
  if (row0 + 1 < n && col0 + 1 < n) C[(row0 + 1) * n + col0 + 1] = c11;
}

// Matrix transpose through a padded shared tile.
extern "C" __global__ void transpose_tiled(const float *in, float *out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
