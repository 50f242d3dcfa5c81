// style: "I unrolled the loop myself" optimisation attempt: size_t row/col/offset indices, the k loop hand-unrolled by 4 into four separate products summed per iteration, followed by a scalar remainder loop for K % 4; host main
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=93 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

__global__ void matmul_unroll4(const float *A, const float *B, float *C, int M, int N, int K)
{
    size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (size_t)M || col >= (size_t)N) return;

    const float *a = A + row * (size_t)K;
    size_t ldb = (size_t)N;
    float sum = 0.0f;
    int k = 0;
    for (; k + 3 < K; k += 4) {
        float p0 = a[k]     * B[(size_t)(k)     * ldb + col];
        float p1 = a[k + 1] * B[(size_t)(k + 1) * ldb + col];
        float p2 = a[k + 2] * B[(size_t)(k + 2) * ldb + col];
        float p3 = a[k + 3] * B[(size_t)(k + 3) * ldb + col];
        sum += p0 + p1 + p2 + p3;
    }
    for (; k < K; ++k)
        sum += a[k] * B[(size_t)k * ldb + col];

    C[row * (size_t)N + col] = sum;
}

int main()
{
    int M = 67, N = 93, K = 45;
    size_t nA = (size_t)M * K, nB = (size_t)K * N, nC = (size_t)M * N;
    float *A = (float *)malloc(nA * sizeof(float));
    float *B = (float *)malloc(nB * sizeof(float));
    float *C = (float *)malloc(nC * sizeof(float));
    for (size_t i = 0; i < nA; ++i) A[i] = 0.001f * (float)(i % 1000);
    for (size_t i = 0; i < nB; ++i) B[i] = 0.002f * (float)(i % 500);

    float *dA, *dB, *dC;
    cudaMalloc(&dA, nA * sizeof(float));
    cudaMalloc(&dB, nB * sizeof(float));
    cudaMalloc(&dC, nC * sizeof(float));
    cudaMemcpy(dA, A, nA * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, nB * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matmul_unroll4<<<grid, block>>>(dA, dB, dC, M, N, K);
    cudaMemcpy(C, dC, nC * sizeof(float), cudaMemcpyDeviceToHost);

    float err = 0.f;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = 0.f;
            for (int k = 0; k < K; ++k) s += A[(size_t)i * K + k] * B[(size_t)k * N + j];
            err = fmaxf(err, fabsf(s - C[(size_t)i * N + j]));
        }
    printf("max abs err %g\n", err);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C);
    return 0;
}
