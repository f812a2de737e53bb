// cuda::memcpy_async of a block-sized tile into shared memory, completed
// through a cuda::barrier. At compute_90 nvcc emits the bulk copy
// (`cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes`) with
// `mbarrier.expect_tx`; at compute_75 a plain copy loop. Each block reads
// its 256 floats in reverse from shared memory and doubles them.
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void bulk_reverse(const float* in, float* out) {
    __shared__ alignas(128) float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(buf)), bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = buf[255 - threadIdx.x] * 2.0f;
}
