// st.async between the CTAs of a cluster (PTX ISA 9.7.9.12), in the way
// CCCL's cuda::ptx::st_async example uses it: clusters of two CTAs; each
// CTA's thread 0 sets its own mbarrier to expect 256 bytes, the cluster
// syncs, then every thread stores one word into the other CTA's buffer
// with st.async, which completes 4 bytes on the other CTA's mbarrier
// (addresses from mapa). Each CTA waits for its barrier's phase and writes
// what it received. The host checks every word: CTA b receives
// 1000 * (b ^ 1) + t from its peer, so a lost store, a completion on the
// wrong barrier (a hang) or a wrong CTA shows.
//
// e2e-cc: 9.0
// e2e-nvcc-flags: -arch=sm_90a -std=c++17
#include "e2e_check.cuh"
#include <cooperative_groups.h>
#include <vector>

namespace cg = cooperative_groups;

__global__ void __cluster_dims__(2, 1, 1) exchange(int *out) {
    __shared__ alignas(16) int buf[64];
    __shared__ alignas(8) unsigned long long bar;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned peer = cluster.block_rank() ^ 1;
    unsigned t = threadIdx.x;
    unsigned bar_s = (unsigned)__cvta_generic_to_shared(&bar);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_s) : "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_s), "r"(64 * 4) : "memory");
    }
    cluster.sync();
    unsigned mine = (unsigned)__cvta_generic_to_shared(&buf[t]);
    unsigned remote_buf, remote_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_buf) : "r"(mine), "r"(peer));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(bar_s), "r"(peer));
    int v = blockIdx.x * 1000 + t;
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_buf), "r"(v), "r"(remote_bar) : "memory");
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "WAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        "@!p bra WAIT_%=;\n"
        "}\n" ::"r"(bar_s)
        : "memory");
    out[blockIdx.x * 64 + t] = buf[t];
    cluster.sync();
}

int main() {
    const int blocks = 6, n = blocks * 64;
    int *out;
    CUDA_OK(cudaMalloc(&out, n * 4));
    CUDA_OK(cudaMemset(out, 0xff, n * 4));
    exchange<<<blocks, 64>>>(out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> h(n);
    CUDA_OK(cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < 64; t++) bad += h[b * 64 + t] != (b ^ 1) * 1000 + t;
    char d[96];
    snprintf(d, sizeof d, "%d clusters of 2 CTAs exchanged 64 words each; %d of %d differ", blocks / 2, bad, n);
    e2e_result(bad == 0, "st_async", d);
    return e2e_exit();
}
