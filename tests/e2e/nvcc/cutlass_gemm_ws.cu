// A CUTLASS 3 Hopper GEMM from the collective builders, as CUTLASS's
// example 49 makes one: the mainloop KernelTmaWarpSpecializedCooperative
// (one producer warpgroup loading A and B with TMA, two consumer
// warpgroups multiplying with wgmma.mma_async, setmaxnreg moving registers
// between them, the sm90 mbarrier pipeline, the persistent tile
// scheduler) and the TmaWarpSpecializedCooperative epilogue (stmatrix to
// shared memory, TMA stores of D), f16 K-major A and B, f32 accumulators,
// C and D, launched through GemmUniversalAdapter (cudaLaunchKernelExC).
// Built for sm_90a, run at cc 9.0.
//
// Clusters of one CTA: the persistent scheduler sizes its grid as the
// device's multiprocessor count divided by the cluster size, and ptxsim's
// device reports one multiprocessor, so a 2x1 cluster would get a grid of
// 2x0, which the launch refuses (a GPU's 132 give it a cluster per tile).
//
// 256x256x256 on multiples of 1/8 in [-2, 2]: every product is a multiple
// of 1/64 of magnitude at most 4 and every partial sum a multiple of 1/64
// below 2^10, all exact in f32, so whatever the order of the additions D
// equals the exact sums: equality is required.
//
// e2e-cc: 9.0
// e2e-nvcc-flags: -arch=sm_90a -std=c++17 --expt-relaxed-constexpr -I{site-packages}/cutlass_library/source/include -I{site-packages}/cutlass_library/source/tools/util/include
#include "e2e_check.cuh"
#include <cmath>
#include <vector>
#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/packed_stride.hpp"

using namespace cute;
using ElementA = cutlass::half_t;
using ElementB = cutlass::half_t;
using ElementC = float;
using ElementD = float;
using ElementAcc = float;
using LayoutA = cutlass::layout::RowMajor;     // K-major A
using LayoutB = cutlass::layout::ColumnMajor;  // K-major B
using LayoutC = cutlass::layout::ColumnMajor;
using TileShape = Shape<_128, _128, _64>;
using ClusterShape = Shape<_1, _1, _1>;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAcc, ElementAcc, ElementC, LayoutC, 4, ElementD, LayoutC, 4,
    cutlass::epilogue::TmaWarpSpecializedCooperative>::CollectiveOp;
using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutA, 8, ElementB, LayoutB, 8, ElementAcc, TileShape,
    ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

int main() {
    const int M = 256, N = 256, K = 256;
    std::vector<cutlass::half_t> a(size_t(M) * K), b(size_t(N) * K);
    for (size_t i = 0; i < a.size(); i++) a[i] = cutlass::half_t(float(int((i * 37 + 11) % 33) - 16) / 8);
    for (size_t i = 0; i < b.size(); i++) b[i] = cutlass::half_t(float(int((i * 53 + 5) % 33) - 16) / 8);
    cutlass::half_t *dA, *dB;
    float *dC, *dD;
    CUDA_OK(cudaMalloc(&dA, a.size() * 2));
    CUDA_OK(cudaMalloc(&dB, b.size() * 2));
    CUDA_OK(cudaMalloc(&dC, size_t(M) * N * 4));
    CUDA_OK(cudaMalloc(&dD, size_t(M) * N * 4));
    CUDA_OK(cudaMemcpy(dA, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dC, 0, size_t(M) * N * 4));
    CUDA_OK(cudaMemset(dD, 0xff, size_t(M) * N * 4));
    auto sA = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideA{}, {M, K, 1});
    auto sB = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideB{}, {N, K, 1});
    auto sC = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideC{}, {M, N, 1});
    auto sD = cutlass::make_cute_packed_stride(typename Gemm::GemmKernel::StrideD{}, {M, N, 1});
    typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm, {M, N, K, 1}, {dA, sA, dB, sB},
                                  {{1.0f, 0.0f}, dC, sC, dD, sD}};
    Gemm gemm;
    char d[200];
    cutlass::Status st = gemm.can_implement(args);
    snprintf(d, sizeof d, "%s", cutlassGetStatusString(st));
    e2e_result(st == cutlass::Status::kSuccess, "can_implement", d);
    size_t ws = Gemm::get_workspace_size(args);
    void *work = nullptr;
    if (ws) CUDA_OK(cudaMalloc(&work, ws));
    st = gemm.initialize(args, work);
    snprintf(d, sizeof d, "%s", cutlassGetStatusString(st));
    e2e_result(st == cutlass::Status::kSuccess, "initialize", d);
    st = gemm.run();
    snprintf(d, sizeof d, "%s", cutlassGetStatusString(st));
    e2e_result(st == cutlass::Status::kSuccess, "run", d);
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> out(size_t(M) * N);
    CUDA_OK(cudaMemcpy(out.data(), dD, out.size() * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int p = 0; p < K; p++) s += double(float(a[size_t(i) * K + p])) * double(float(b[size_t(j) * K + p]));
            bad += out[size_t(j) * M + i] != s;
        }
    snprintf(d, sizeof d, "%dx%dx%d, %ld of %d elements differ from the exact sums", M, N, K, bad, M * N);
    e2e_result(bad == 0, "CUTLASS 3 TMA warp-specialized cooperative GEMM", d);
    return e2e_exit();
}
