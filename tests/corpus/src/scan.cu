// Prefix sums: Hillis-Steele, Blelloch work-efficient scan and a warp-level
// shuffle scan, plus a decoupled block-carry scan helper.
#include "compat.h"

#define SCAN_N 512

extern "C" __global__ void scan_hillis_steele(const int *in, int *out, int n) {
  __shared__ int buf[2][SCAN_N];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  buf[pout][tid] = tid < n ? in[tid] : 0;
  __syncthreads();
  for (int off = 1; off < n; off <<= 1) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= off)
      buf[pout][tid] = buf[pin][tid] + buf[pin][tid - off];
    else
      buf[pout][tid] = buf[pin][tid];
    __syncthreads();
  }
  if (tid < n) out[tid] = buf[pout][tid];
}

// Blelloch exclusive scan of 2*blockDim.x elements.
extern "C" __global__ void scan_blelloch(const float *in, float *out, int n) {
  __shared__ float temp[SCAN_N];
  int tid = threadIdx.x;
  int offset = 1;
  temp[2 * tid] = 2 * tid < n ? in[2 * tid] : 0.0f;
  temp[2 * tid + 1] = 2 * tid + 1 < n ? in[2 * tid + 1] : 0.0f;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (tid == 0) temp[n - 1] = 0.0f;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int ai = offset * (2 * tid + 1) - 1;
      int bi = offset * (2 * tid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  if (2 * tid < n) out[2 * tid] = temp[2 * tid];
  if (2 * tid + 1 < n) out[2 * tid + 1] = temp[2 * tid + 1];
}

static __device__ __forceinline__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x & 31;
  for (int off = 1; off < 32; off <<= 1) {
    int t = __shfl_up_sync(CX_FULL_MASK, v, off);
    if (lane >= off) v += t;
  }
  return v;
}

// Block scan built from warp scans; block totals go to a second array.
extern "C" __global__ void scan_warp_shuffle(const int *in, int *out, int *block_totals, int n) {
  __shared__ int warp_tot[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int v = i < n ? in[i] : 0;
  v = warp_inclusive_scan(v);
  if (lane == 31) warp_tot[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < (int)(blockDim.x >> 5) ? warp_tot[lane] : 0;
    t = warp_inclusive_scan(t);
    warp_tot[lane] = t;
  }
  __syncthreads();
  if (warp > 0) v += warp_tot[warp - 1];
  if (i < n) out[i] = v;
  if (threadIdx.x == blockDim.x - 1) block_totals[blockIdx.x] = v;
}

extern "C" __global__ void scan_add_block_offsets(int *data, const int *scanned_totals, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == 0 || i >= n) return;
  data[i] += scanned_totals[blockIdx.x - 1];
}

// Stream compaction: keep positive values using a ballot + popc prefix.
extern "C" __global__ void compact_positive(const int *in, int *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int keep = v > 0;
  unsigned mask = __ballot_sync(CX_FULL_MASK, keep);
  int lane = threadIdx.x & 31;
  int rank = __popc(mask & ((1u << lane) - 1u));
  int base = 0;
  if (lane == 0) base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(CX_FULL_MASK, base, 0);
  if (keep) out[base + rank] = v;
}
