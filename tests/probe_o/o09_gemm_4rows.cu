// style: blog-style "more work per thread" sgemm; each thread owns 4 rows of one column via a #pragma unroll inner loop, CEIL_DIV macro
// launch: grid cdiv(N, 32), cdiv(M, 32) block 32, 8
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define RPT 4   // rows per thread

__global__ void sgemm_rows4(int M, int N, int K,
                            const float *A, const float *B, float *C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row0 = (blockIdx.y * blockDim.y + threadIdx.y) * RPT;
    if (col >= N) return;

    float acc[RPT] = {0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < K; ++k) {
        const float bk = B[k * N + col];
#pragma unroll
        for (int r = 0; r < RPT; ++r) {
            if (row0 + r < M)
                acc[r] += A[(row0 + r) * K + k] * bk;
        }
    }
#pragma unroll
    for (int r = 0; r < RPT; ++r) {
        if (row0 + r < M)
            C[(row0 + r) * N + col] = acc[r];
    }
}

void run_sgemm_rows4(const float *hA, const float *hB, float *hC, int M, int N, int K)
{
    float *dA = nullptr, *dB = nullptr, *dC = nullptr;
    cudaMalloc(&dA, M * K * sizeof(float));
    cudaMalloc(&dB, K * N * sizeof(float));
    cudaMalloc(&dC, M * N * sizeof(float));
    cudaMemcpy(dA, hA, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 blockDim(32, 8);
    dim3 gridDim(CEIL_DIV(N, 32), CEIL_DIV(M, 8 * RPT));
    sgemm_rows4<<<gridDim, blockDim>>>(M, N, K, dA, dB, dC);

    cudaMemcpy(hC, dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
}
