// Tiled matrix multiply through shared memory (__syncthreads between the
// tile loads and the products), sizes not multiples of the tile.
#include "e2e_check.cuh"
#include <cmath>
#include <vector>

#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
    const int M = 70, N = 45, K = 53;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    for (int i = 0; i < M * K; i++) A[i] = (i % 7) - 3;
    for (int i = 0; i < K * N; i++) B[i] = (i % 5) * 0.5f;
    float *dA, *dB, *dC;
    CUDA_OK(cudaMalloc(&dA, A.size() * 4)); CUDA_OK(cudaMalloc(&dB, B.size() * 4)); CUDA_OK(cudaMalloc(&dC, C.size() * 4));
    CUDA_OK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(C.data(), dC, C.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0;
            for (int k = 0; k < K; k++) ref += (double)A[i * K + k] * B[k * N + j];
            // Small integers and halves: every partial sum is exact in f32.
            bad += C[i * N + j] != (float)ref;
        }
    char d[64];
    snprintf(d, sizeof d, "%dx%dx%d, %d elements differ", M, N, K, bad);
    e2e_result(bad == 0, "matmul_tiled", d);
    return e2e_exit();
}
