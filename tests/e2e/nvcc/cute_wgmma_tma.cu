// A CuTe (CUTLASS 3) Hopper GEMM in the style of CUTLASS's
// examples/cute/tutorial/hopper/wgmma_tma_sm90.cu: f16 A and B, f32
// accumulators and f32 C; each thread block (one warpgroup) loads its
// 128x64 tiles of A and B with TMA (cp.async.bulk.tensor through tensor
// maps made by cuTensorMapEncodeTiled) into 128-byte-swizzled shared
// memory, a three-stage pipeline of mbarriers with transaction counts,
// and multiplies them with wgmma.mma_async m64n64k16 from shared-memory
// descriptors; the grid runs as clusters of two (cudaLaunchKernelExC).
// Built for sm_90a, so the driver library JITs the compute_90a PTX.
//
// Two GEMMs of 256x256x256 (four K tiles, so the pipeline wraps and each
// stage's phase flips), checked on the host against a reference computed
// there:
// - "NT" (A and B M-/N-major, the MN-major SW128 layout) on values that
//   are multiples of 1/8 in [-2, 2]: every product is a multiple of 1/64
//   of magnitude at most 4 and every partial sum a multiple of 1/64 below
//   2^10, all exact in f32 (24 bits), so whatever the order of the
//   additions the result equals the exact sum: equality is required.
// - "TN" (A and B K-major, the K-major SW128 layout) on f16 values with
//   full 11-bit significands: a product of two f16 values is exact in f32
//   (22 bits), and the manual leaves the order and rounding of wgmma's f32
//   accumulation to the implementation, so each element may differ from
//   the exact sum by the error bound of K f32 additions in any order,
//   gamma_K * sum |a_k b_k| with gamma_K = K u / (1 - K u); u = 2^-23
//   allows rounding by truncation as well as to nearest. A misplaced
//   element (a wrong swizzle, descriptor or TMA box) errs by ~1.
//
// e2e-cc: 9.0
// e2e-nvcc-flags: -arch=sm_90a -std=c++17 --expt-relaxed-constexpr -I{site-packages}/cutlass_library/source/include
#include "e2e_check.cuh"

#include <cmath>
#include <vector>

#include <cute/tensor.hpp>

#include "cutlass/arch/barrier.h"
#include "cutlass/cluster_launch.hpp"
#include "cutlass/device_kernel.h"
#include "cutlass/pipeline/sm90_pipeline.hpp"

using namespace cute;

template <class ElementA, class ElementB, class SmemLayoutA, class SmemLayoutB>
struct SharedStorage {
    alignas(128) cute::ArrayEngine<ElementA, cosize_v<SmemLayoutA>> A;
    alignas(128) cute::ArrayEngine<ElementB, cosize_v<SmemLayoutB>> B;
    uint64_t tma_barrier[size<2>(SmemLayoutA{})];
    uint64_t mma_barrier[size<2>(SmemLayoutA{})];
};

template <class ProblemShape, class CtaTiler, class TA, class SmemLayoutA, class TmaA, class TB, class SmemLayoutB,
          class TmaB, class TC, class CStride, class TiledMma>
__global__ static __launch_bounds__(decltype(size(TiledMma{}))::value) void gemm_device(
    ProblemShape shape_MNK, CtaTiler cta_tiler, TA const *A, CUTLASS_GRID_CONSTANT TmaA const tma_a, TB const *B,
    CUTLASS_GRID_CONSTANT TmaB const tma_b, TC *C, CStride dC, TiledMma mma) {
    auto [M, N, K] = shape_MNK;
    Tensor mA = tma_a.get_tma_tensor(make_shape(M, K));
    Tensor mB = tma_b.get_tma_tensor(make_shape(N, K));
    Tensor mC = make_tensor(make_gmem_ptr(C), make_shape(M, N), dC);

    auto cta_coord = make_coord(blockIdx.x, blockIdx.y, _);
    Tensor gA = local_tile(mA, cta_tiler, cta_coord, Step<_1, X, _1>{});  // (BLK_M,BLK_K,k)
    Tensor gB = local_tile(mB, cta_tiler, cta_coord, Step<X, _1, _1>{});  // (BLK_N,BLK_K,k)
    Tensor gC = local_tile(mC, cta_tiler, cta_coord, Step<_1, _1, X>{});  // (BLK_M,BLK_N)

    extern __shared__ char shared_memory[];
    using Storage = SharedStorage<TA, TB, SmemLayoutA, SmemLayoutB>;
    Storage &smem = *reinterpret_cast<Storage *>(shared_memory);
    Tensor sA = make_tensor(make_smem_ptr(smem.A.begin()), SmemLayoutA{});  // (BLK_M,BLK_K,PIPE)
    Tensor sB = make_tensor(make_smem_ptr(smem.B.begin()), SmemLayoutB{});  // (BLK_N,BLK_K,PIPE)

    auto [tAgA, tAsA] = tma_partition(tma_a, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sA), group_modes<0, 2>(gA));
    auto [tBgB, tBsB] = tma_partition(tma_b, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sB), group_modes<0, 2>(gB));
    constexpr int tma_transaction_bytes =
        sizeof(make_tensor_like(tensor<0>(tAsA))) + sizeof(make_tensor_like(tensor<0>(tBsB)));

    auto K_PIPE_MAX = size<1>(tAsA);
    int k_tile_count = size<1>(tAgA);
    int k_tile = 0;

    int warp_idx = cutlass::canonical_warp_idx_sync();
    int lane_predicate = cute::elect_one_sync();
    uint64_t *producer_mbar = smem.tma_barrier;
    uint64_t *consumer_mbar = smem.mma_barrier;
    using ProducerBarType = cutlass::arch::ClusterTransactionBarrier;  // TMA
    using ConsumerBarType = cutlass::arch::ClusterBarrier;             // MMA
    CUTE_UNROLL
    for (int pipe = 0; pipe < K_PIPE_MAX; ++pipe) {
        if ((warp_idx == 0) && lane_predicate) {
            ProducerBarType::init(&producer_mbar[pipe], 1);
            ConsumerBarType::init(&consumer_mbar[pipe], 128);
        }
    }
    cluster_sync();

    // Start the loads of the first K_PIPE_MAX tiles.
    CUTE_UNROLL
    for (int pipe = 0; pipe < K_PIPE_MAX; ++pipe) {
        if ((warp_idx == 0) && lane_predicate && k_tile_count > 0) {
            ProducerBarType::arrive_and_expect_tx(&producer_mbar[pipe], tma_transaction_bytes);
            copy(tma_a.with(producer_mbar[pipe]), tAgA(_, k_tile), tAsA(_, pipe));
            copy(tma_b.with(producer_mbar[pipe]), tBgB(_, k_tile), tBsB(_, pipe));
        }
        --k_tile_count;
        ++k_tile;
    }

    ThrMMA thr_mma = mma.get_thread_slice(threadIdx.x);
    Tensor tCsA = thr_mma.partition_A(sA);  // (MMA,MMA_M,MMA_K,PIPE)
    Tensor tCsB = thr_mma.partition_B(sB);  // (MMA,MMA_N,MMA_K,PIPE)
    Tensor tCgC = thr_mma.partition_C(gC);  // (MMA,MMA_M,MMA_N)
    Tensor tCrC = thr_mma.make_fragment_C(tCgC);
    clear(tCrC);
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);  // shared-memory descriptors
    Tensor tCrB = thr_mma.make_fragment_B(tCsB);

    auto write_state = cutlass::PipelineState<K_PIPE_MAX>();  // TMA writes
    auto read_state = cutlass::PipelineState<K_PIPE_MAX>();   // MMA reads

    CUTE_NO_UNROLL
    while (k_tile_count > -K_PIPE_MAX) {
        int read_pipe = read_state.index();
        ProducerBarType::wait(&producer_mbar[read_pipe], read_state.phase());

        warpgroup_arrive();
        gemm(mma, tCrA(_, _, _, read_pipe), tCrB(_, _, _, read_pipe), tCrC);
        warpgroup_commit_batch();
        warpgroup_wait<0>();

        ConsumerBarType::arrive(&consumer_mbar[read_pipe]);
        ++read_state;

        if ((warp_idx == 0) && lane_predicate) {
            int pipe = write_state.index();
            ConsumerBarType::wait(&consumer_mbar[pipe], write_state.phase());
            if (k_tile_count > 0) {
                ProducerBarType::arrive_and_expect_tx(&producer_mbar[pipe], tma_transaction_bytes);
                copy(tma_a.with(producer_mbar[pipe]), tAgA(_, k_tile), tAsA(_, pipe));
                copy(tma_b.with(producer_mbar[pipe]), tBgB(_, k_tile), tBsB(_, pipe));
            }
            ++write_state;
        }
        --k_tile_count;
        ++k_tile;
    }

    // Epilogue: the f32 accumulators to C.
    copy(tCrC, tCgC);
}

// Launches C (M x N, M-major) = A * B^T with A (M x K) and B (N x K), both
// M-/N-major (kMajorK false, "NT") or both K-major (kMajorK true, "TN").
template <bool kMajorK>
static cudaError_t gemm(int m, int n, int k, cute::half_t const *A, cute::half_t const *B, float *C) {
    using TA = cute::half_t;
    using TB = cute::half_t;
    auto prob_shape = make_shape(m, n, k);
    auto dC = make_stride(Int<1>{}, m);
    auto bM = Int<128>{};
    auto bN = Int<128>{};
    auto bK = Int<64>{};
    auto cta_tiler = make_shape(bM, bN, bK);
    auto bP = Int<3>{};  // pipeline stages

    using Major = std::conditional_t<kMajorK, std::integral_constant<GMMA::Major, GMMA::Major::K>,
                                     std::integral_constant<GMMA::Major, GMMA::Major::MN>>;
    using AtomA = std::conditional_t<kMajorK, GMMA::Layout_K_SW128_Atom<TA>, GMMA::Layout_MN_SW128_Atom<TA>>;
    using AtomB = std::conditional_t<kMajorK, GMMA::Layout_K_SW128_Atom<TB>, GMMA::Layout_MN_SW128_Atom<TB>>;
    auto sA = tile_to_shape(AtomA{}, make_shape(bM, bK, bP));
    auto sB = tile_to_shape(AtomB{}, make_shape(bN, bK, bP));
    TiledMMA tiled_mma = make_tiled_mma(SM90_64x64x16_F32F16F16_SS<Major::value, Major::value>{});

    auto dA = [&] {
        if constexpr (kMajorK) return make_stride(k, Int<1>{});
        else return make_stride(Int<1>{}, m);
    }();
    auto dB = [&] {
        if constexpr (kMajorK) return make_stride(k, Int<1>{});
        else return make_stride(Int<1>{}, n);
    }();
    Tensor mA = make_tensor(A, make_shape(m, k), dA);
    Tensor mB = make_tensor(B, make_shape(n, k), dB);
    Copy_Atom tmaA = make_tma_atom(SM90_TMA_LOAD{}, mA, sA(_, _, 0), make_shape(bM, bK));
    Copy_Atom tmaB = make_tma_atom(SM90_TMA_LOAD{}, mB, sB(_, _, 0), make_shape(bN, bK));

    dim3 dimBlock(size(tiled_mma));
    dim3 dimCluster(2, 1, 1);
    dim3 dimGrid(round_up(size(ceil_div(m, bM)), dimCluster.x), round_up(size(ceil_div(n, bN)), dimCluster.y));
    int smem_bytes = int(sizeof(SharedStorage<TA, TB, decltype(sA), decltype(sB)>));
    auto *kernel_ptr = &gemm_device<decltype(prob_shape), decltype(cta_tiler), TA, decltype(sA), decltype(tmaA), TB,
                                    decltype(sB), decltype(tmaB), float, decltype(dC), decltype(tiled_mma)>;
    cudaError_t e = cudaFuncSetAttribute(kernel_ptr, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    if (e != cudaSuccess) return e;
    cutlass::ClusterLaunchParams params = {dimGrid, dimBlock, dimCluster, smem_bytes};
    cutlass::Status status = cutlass::launch_kernel_on_cluster(params, (void const *)kernel_ptr, prob_shape, cta_tiler, A,
                                                               tmaA, B, tmaB, C, dC, tiled_mma);
    if (status != cutlass::Status::kSuccess) return cudaErrorLaunchFailure;
    return cudaGetLastError();
}

// Runs one GEMM on a (M x K) and b (N x K), given as values (row i of a is
// A's row i whatever the layout), and compares C with the host's sums.
template <bool kMajorK>
static void run(const char *name, int m, int n, int k, const std::vector<float> &a, const std::vector<float> &b,
                bool exact) {
    std::vector<cute::half_t> ha(size_t(m) * k), hb(size_t(n) * k);
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++) ha[kMajorK ? size_t(i) * k + p : size_t(p) * m + i] = cute::half_t(a[size_t(i) * k + p]);
    for (int j = 0; j < n; j++)
        for (int p = 0; p < k; p++) hb[kMajorK ? size_t(j) * k + p : size_t(p) * n + j] = cute::half_t(b[size_t(j) * k + p]);
    cute::half_t *dA, *dB;
    float *dC;
    CUDA_OK(cudaMalloc(&dA, ha.size() * 2));
    CUDA_OK(cudaMalloc(&dB, hb.size() * 2));
    CUDA_OK(cudaMalloc(&dC, size_t(m) * n * 4));
    CUDA_OK(cudaMemcpy(dA, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dC, 0xff, size_t(m) * n * 4));  // NaN until written
    CUDA_OK(gemm<kMajorK>(m, n, k, dA, dB, dC));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> c(size_t(m) * n);
    CUDA_OK(cudaMemcpy(c.data(), dC, c.size() * 4, cudaMemcpyDeviceToHost));

    const double u = std::ldexp(1.0, -23), gamma = k * u / (1 - k * u);
    long bad = 0;
    double worst = 0;
    int wi = 0, wj = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, abs_s = 0;
            for (int p = 0; p < k; p++) {
                double t = double(float(ha[kMajorK ? size_t(i) * k + p : size_t(p) * m + i])) *
                           double(float(hb[kMajorK ? size_t(j) * k + p : size_t(j) + size_t(p) * n]));
                s += t;
                abs_s += std::fabs(t);
            }
            double got = c[size_t(j) * m + i], err = std::fabs(got - s);
            bool ok = exact ? got == s : err <= gamma * abs_s;
            if (!ok || std::isnan(got)) {
                if (bad == 0 || !(err <= worst)) worst = std::isnan(got) ? NAN : err, wi = i, wj = j;
                bad++;
            }
        }
    char d[200];
    snprintf(d, sizeof d, "%dx%dx%d, %ld of %d elements %s (worst at (%d,%d): |error| %g)", m, n, k, bad, m * n,
             exact ? "differ from the exact sums" : "outside gamma_K * sum|a b|", wi, wj, worst);
    e2e_result(bad == 0, name, d);
    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));
}

int main() {
    const int m = 256, n = 256, k = 256;
    std::vector<float> a(size_t(m) * k), b(size_t(n) * k);
    // Multiples of 1/8 in [-2, 2]: exact sums.
    for (size_t i = 0; i < a.size(); i++) a[i] = float(int((i * 37 + 11) % 33) - 16) / 8;
    for (size_t i = 0; i < b.size(); i++) b[i] = float(int((i * 53 + 5) % 33) - 16) / 8;
    run<false>("cute wgmma+TMA GEMM NT (MN-major SW128, exact sums)", m, n, k, a, b, true);
    // f16 values in (-1, 1) with full significands (a fixed LCG).
    unsigned s = 12345;
    auto next = [&] { s = s * 1664525u + 1013904223u; return float(int(s >> 9) - (1 << 22)) / float(1 << 22); };
    for (auto &x : a) x = float(cute::half_t(next()));
    for (auto &x : b) x = float(cute::half_t(next()));
    run<true>("cute wgmma+TMA GEMM TN (K-major SW128, f16 significands)", m, n, k, a, b, false);
    return e2e_exit();
}
