// style: mixed-precision homework: __half inputs A/B converted with __half2float inside the k loop, float accumulator, alpha/beta applied in float and the result stored back as __half via __float2half (C is __half and read for beta); host main converting with __float2half on the host
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=93 K=45 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void hgemm_f32acc(const __half *A, const __half *B, __half *C,
                             int M, int N, int K, float alpha, float beta)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
        }
        float c_old = __half2float(C[row * N + col]);
        C[row * N + col] = __float2half(alpha * acc + beta * c_old);
    }
}

int main()
{
    const int M = 67, N = 93, K = 45;
    const float alpha = 1.0f, beta = 0.0f;

    __half *hA = (__half *)malloc(M * K * sizeof(__half));
    __half *hB = (__half *)malloc(K * N * sizeof(__half));
    __half *hC = (__half *)malloc(M * N * sizeof(__half));
    float *fA = (float *)malloc(M * K * sizeof(float));
    float *fB = (float *)malloc(K * N * sizeof(float));

    for (int i = 0; i < M * K; ++i) { fA[i] = (rand() % 17 - 8) / 8.0f; hA[i] = __float2half(fA[i]); }
    for (int i = 0; i < K * N; ++i) { fB[i] = (rand() % 17 - 8) / 8.0f; hB[i] = __float2half(fB[i]); }
    for (int i = 0; i < M * N; ++i) hC[i] = __float2half(0.0f);

    __half *dA, *dB, *dC;
    cudaMalloc(&dA, M * K * sizeof(__half));
    cudaMalloc(&dB, K * N * sizeof(__half));
    cudaMalloc(&dC, M * N * sizeof(__half));
    cudaMemcpy(dA, hA, M * K * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N * sizeof(__half), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, M * N * sizeof(__half), cudaMemcpyHostToDevice);

    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    hgemm_f32acc<<<grid, block>>>(dA, dB, dC, M, N, K, alpha, beta);
    cudaDeviceSynchronize();
    cudaMemcpy(hC, dC, M * N * sizeof(__half), cudaMemcpyDeviceToHost);

    double maxrel = 0.0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float ref = 0.0f;
            for (int k = 0; k < K; ++k) ref += fA[i * K + k] * fB[k * N + j];
            float got = __half2float(hC[i * N + j]);
            double rel = fabs(got - ref) / (fabs(ref) + 1.0);
            if (rel > maxrel) maxrel = rel;
        }
    printf("max relative error: %g\n", maxrel);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC); free(fA); free(fB);
    return 0;
}
