// Warp intrinsics: butterfly reductions with __shfl_xor_sync, width-limited
// shuffles, __reduce_*_sync (redux.sync), __match_any_sync, and
// cooperative_groups tiled_partition reductions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

extern "C" __global__ void warp_reduce(const float *x, const int *v, float *fsum, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float f = i < n ? x[i] : 0.0f;
  int a = i < n ? v[i] : 0;
  for (int o = 16; o > 0; o >>= 1) f += __shfl_xor_sync(0xffffffffu, f, o);
  fsum[i] = f;
  out[0 * n + i] = __reduce_add_sync(0xffffffffu, a);
  out[1 * n + i] = __reduce_min_sync(0xffffffffu, a);
  out[2 * n + i] = (int)__reduce_max_sync(0xffffffffu, (unsigned)a);
  out[3 * n + i] = (int)__reduce_or_sync(0xffffffffu, (unsigned)a);
  out[4 * n + i] = (int)__reduce_and_sync(0xffffffffu, (unsigned)a);
  out[5 * n + i] = (int)__reduce_xor_sync(0xffffffffu, (unsigned)a);
  out[6 * n + i] = (int)__match_any_sync(0xffffffffu, a & 3);
  out[7 * n + i] = __shfl_sync(0xffffffffu, a, (threadIdx.x + 3) & 7, 8);
  out[8 * n + i] = __shfl_up_sync(0xffffffffu, a, 2, 16);
  out[9 * n + i] = __shfl_down_sync(0xffffffffu, a, 3, 16);
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  out[10 * n + i] = cg::reduce(t16, a, cg::plus<int>());
  out[11 * n + i] = cg::reduce(t16, a, cg::greater<int>());
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
  out[12 * n + i] = t4.shfl_down(a, 1) + t4.thread_rank() * 1000 + (int)t4.meta_group_rank() * 100000;
  out[13 * n + i] = cg::inclusive_scan(t16, a);
  out[14 * n + i] = t16.ballot(a > 0);
  out[15 * n + i] = t16.any(a > 100) + 2 * t16.all(a > -100);
}
