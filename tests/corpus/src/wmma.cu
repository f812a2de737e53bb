// Tensor-core GEMM with the warp matrix functions (mma.h): each warp
// computes one 16x16 tile of C = alpha * A * B + beta * C in f32 from f16
// inputs (row-major A, column-major B), and a second kernel does the same
// with f16 accumulation, a 32x8x16 shape and shared-memory staging.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const half *a, const half *b, float *c, int M, int N, int K, float alpha, float beta) {
  int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int warpN = blockIdx.y * blockDim.y + threadIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> af;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> bf;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, cf;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    int aRow = warpM * 16, bCol = warpN * 16;
    if (aRow < M && bCol < N) {
      wmma::load_matrix_sync(af, a + aRow * K + k, K);
      wmma::load_matrix_sync(bf, b + bCol * K + k, K);
      wmma::mma_sync(acc, af, bf, acc);
    }
  }
  int cRow = warpM * 16, cCol = warpN * 16;
  if (cRow < M && cCol < N) {
    wmma::load_matrix_sync(cf, c + cRow * N + cCol, N, wmma::mem_row_major);
    for (int i = 0; i < cf.num_elements; i++) cf.x[i] = alpha * acc.x[i] + beta * cf.x[i];
    wmma::store_matrix_sync(c + cRow * N + cCol, cf, N, wmma::mem_row_major);
  }
}

extern "C" __global__ void wmma_f16acc(const half *a, const half *b, half *c) {
  __shared__ half sa[32 * 16];
  for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x) sa[i] = a[i];
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> af;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> bf;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(1.0f));
  wmma::load_matrix_sync(af, sa, 32);
  wmma::load_matrix_sync(bf, b, 8);
  wmma::mma_sync(acc, af, bf, acc);
  wmma::store_matrix_sync(c, acc, 32, wmma::mem_col_major);
}
