// Warp vote and shuffle primitives: __ballot_sync, __any_sync, __all_sync,
// __activemask, __syncwarp and lane-indexed shuffles.
#include "compat.h"

extern "C" __global__ void vote_kernel(const int *in, unsigned *ballots, int *any_out, int *all_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  unsigned b = __ballot_sync(CX_FULL_MASK, v > 0);
  int anyneg = __any_sync(CX_FULL_MASK, v < 0);
  int alleven = __all_sync(CX_FULL_MASK, (v & 1) == 0);
  if ((threadIdx.x & 31) == 0) {
    int w = i >> 5;
    ballots[w] = b;
    any_out[w] = anyneg;
    all_out[w] = alleven;
  }
}

// Divergent region: which lanes are active inside the branch.
extern "C" __global__ void active_lanes(const int *in, unsigned *masks, int *leaders) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  if (in[i] % 3 == 0) {
    unsigned m = __activemask();
    int leader = __ffs(m) - 1;
    if (lane == leader) {
      masks[i >> 5] = m;
      leaders[i >> 5] = leader;
    }
  }
  __syncwarp();
}

// Warp-aggregated atomic increment.
extern "C" __global__ void warp_aggregated_inc(int *counter, int *slots, const int *pred, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (!pred[i]) return;
  unsigned m = __activemask();
  int lane = threadIdx.x & 31;
  int leader = __ffs(m) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(m));
  base = __shfl_sync(m, base, leader);
  slots[i] = base + __popc(m & ((1u << lane) - 1u));
}

// Butterfly all-reduce and a rotate-by-one shuffle.
extern "C" __global__ void shuffle_patterns(const int *in, int *sum_out, int *rot_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int s = v;
  for (int m = 1; m < 32; m <<= 1) s += __shfl_xor_sync(CX_FULL_MASK, s, m);
  sum_out[i] = s;
  rot_out[i] = __shfl_sync(CX_FULL_MASK, v, (threadIdx.x + 1) & 31);
}
