// One warpgroup computes D (64 x 8, f32) = A (64 x 64, f16, row-major) *
// B (64 x 8, f16, given as B^T row-major): TMA loads a 64 x 64 box of A
// (rows row0 .. row0 + 63) and the 8 x 64 box of B^T with the 128-byte
// swizzle, completing on an mbarrier; four wgmma.m64n8k16 (K-major
// descriptors, start advanced 32 bytes per K block, as CUTLASS does)
// accumulate in registers; D is stored row-major.
#include <cuda.h>
#include <cstdint>

__device__ static inline uint64_t desc(uint32_t addr, uint32_t lbo, uint32_t sbo, uint32_t swz) {
    return (uint64_t)((addr & 0x3ffff) >> 4) | (uint64_t)((lbo & 0x3ffff) >> 4) << 16 |
           (uint64_t)((sbo & 0x3ffff) >> 4) << 32 | (uint64_t)swz << 62;
}

extern "C" __global__ void hopper_gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                                       float *d, int row0) {
    __shared__ alignas(1024) unsigned char sa[64 * 128];
    __shared__ alignas(1024) unsigned char sb[8 * 128];
    __shared__ alignas(8) uint64_t bar;
    uint32_t a_s = (uint32_t)__cvta_generic_to_shared(sa), b_s = (uint32_t)__cvta_generic_to_shared(sb);
    uint32_t bar_s = (uint32_t)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_s));
        asm volatile("fence.proxy.async.shared::cta;");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_s), "r"(64 * 64 * 2 + 8 * 64 * 2));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(a_s), "l"(&ta), "r"(0), "r"(row0), "r"(bar_s) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(b_s), "l"(&tb), "r"(0), "r"(0), "r"(bar_s) : "memory");
    }
    __syncthreads();
    uint32_t done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar_s));
    }
    // A and B^T: rows of 64 f16 (128 bytes) in the 128-byte swizzle, 8-row
    // groups 1024 bytes apart (SBO); K block kb starts 32 * kb bytes on.
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    asm volatile("wgmma.fence.sync.aligned;");
    for (int kb = 0; kb < 4; kb++) {
        uint64_t da = desc(a_s + 32 * kb, 16, 1024, 1), db = desc(b_s + 32 * kb, 16, 1024, 1);
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0; }"
                     : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "l"(da), "l"(db), "r"(kb));
    }
    asm volatile("wgmma.commit_group.sync.aligned;");
    asm volatile("wgmma.wait_group.sync.aligned 0;");
    int w = threadIdx.x / 32, l = threadIdx.x % 32, g = l / 4, t = l % 4;
    int r = 16 * w + g, c = 2 * t;
    d[r * 8 + c] = c0; d[r * 8 + c + 1] = c1; d[(r + 8) * 8 + c] = c2; d[(r + 8) * 8 + c + 1] = c3;
}
