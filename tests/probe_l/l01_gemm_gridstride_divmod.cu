// style: HPC-course "one thread per output element, grid-stride" SGEMM, C = alpha*A*B + beta*C row-major, size_t linear index split with idx / N and idx % N, fixed 24-block grid, fmaf into a register, host main with CPU check
// launch: grid 24 block 128
// sizes: M=129 N=67 K=45 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define NUM_BLOCKS 24
#define NUM_THREADS 128

// C[i][j] = alpha * sum_p A[i][p] * B[p][j] + beta * C[i][j]
__global__ void gemm_gridstride(int M, int N, int K, float alpha,
                                const float *A, const float *B,
                                float beta, float *C)
{
    const size_t total = (size_t)M * N;
    const size_t step = (size_t)gridDim.x * blockDim.x;

    for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += step) {
        const size_t i = idx / N;
        const size_t j = idx % N;

        float s = 0.0f;
        for (int p = 0; p < K; ++p)
            s = fmaf(A[i * K + p], B[(size_t)p * N + j], s);

        C[idx] = alpha * s + beta * C[idx];
    }
}

int main()
{
    const int M = 129, N = 67, K = 45;
    const float alpha = 1.5f, beta = 0.5f;

    float *hA = new float[M * K];
    float *hB = new float[K * N];
    float *hC = new float[M * N];
    float *hRef = new float[M * N];
    for (int i = 0; i < M * K; ++i) hA[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < K * N; ++i) hB[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    for (int i = 0; i < M * N; ++i) hC[i] = hRef[i] = 0.01f * (float)(i % 17);

    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof(float) * M * K);
    cudaMalloc(&dB, sizeof(float) * K * N);
    cudaMalloc(&dC, sizeof(float) * M * N);
    cudaMemcpy(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, sizeof(float) * M * N, cudaMemcpyHostToDevice);

    gemm_gridstride<<<NUM_BLOCKS, NUM_THREADS>>>(M, N, K, alpha, dA, dB, beta, dC);
    cudaMemcpy(hC, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost);

    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.0f;
            for (int p = 0; p < K; ++p) s += hA[i * K + p] * hB[p * N + j];
            float ref = alpha * s + beta * hRef[i * N + j];
            if (fabsf(ref - hC[i * N + j]) > 1e-3f) ++bad;
        }
    printf("%s (%d mismatches)\n", bad ? "FAILED" : "PASSED", bad);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    delete[] hA; delete[] hB; delete[] hC; delete[] hRef;
    return bad != 0;
}
