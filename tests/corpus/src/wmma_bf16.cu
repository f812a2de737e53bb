// bf16 tensor-core tiles with cuda_bf16.h and mma.h (sm_80): one warp, a
// m16n16k16 tile and a m8n32k16 tile with f32 accumulators.
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, float *c2) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> af;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bf;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.5f);
  wmma::load_matrix_sync(af, a, 16);
  wmma::load_matrix_sync(bf, b, 16);
  wmma::mma_sync(acc, af, bf, acc);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::col_major> a2;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::col_major> b2;
  wmma::fragment<wmma::accumulator, 8, 32, 16, float> acc2;
  wmma::load_matrix_sync(a2, a, 8);
  wmma::load_matrix_sync(b2, b, 16);
  wmma::load_matrix_sync(acc2, c2, 32, wmma::mem_row_major);
  wmma::mma_sync(acc2, a2, b2, acc2);
  wmma::store_matrix_sync(c2, acc2, 8, wmma::mem_col_major);
}
