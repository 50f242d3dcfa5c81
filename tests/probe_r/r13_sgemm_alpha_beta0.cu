// style: BLAS-semantics hand-rolled sgemm from a numerical-library port; alpha/beta epilogue with beta == 0 special-cased so C is not read (if (beta == 0) C = alpha*acc; else C = alpha*acc + beta*C), host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=99 K=41 alpha=1.5 beta=0.5
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void sgemm_ab(int M, int N, int K, float alpha, const float *A, const float *B,
                         float beta, float *C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        if (beta == 0)
            C[row * N + col] = alpha * acc;
        else
            C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}

int main()
{
    const int M = 67, N = 99, K = 41;
    const float alpha = 1.5f, beta = 0.5f;
    float *hA = (float *)malloc(M * K * sizeof(float));
    float *hB = (float *)malloc(K * N * sizeof(float));
    float *hC = (float *)malloc(M * N * sizeof(float));
    for (int i = 0; i < M * K; ++i) hA[i] = (float)((i * 3) % 11) / 11.0f;
    for (int i = 0; i < K * N; ++i) hB[i] = (float)((i * 7) % 13) / 13.0f;
    for (int i = 0; i < M * N; ++i) hC[i] = 1.0f;

    float *dA, *dB, *dC;
    cudaMalloc((void **)&dA, M * K * sizeof(float));
    cudaMalloc((void **)&dB, K * N * sizeof(float));
    cudaMalloc((void **)&dC, M * N * sizeof(float));
    cudaMemcpy(dA, hA, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, M * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 threads(16, 16);
    dim3 blocks((N + 15) / 16, (M + 15) / 16);
    sgemm_ab<<<blocks, threads>>>(M, N, K, alpha, dA, dB, beta, dC);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { printf("launch failed: %s\n", cudaGetErrorString(err)); return 1; }
    cudaMemcpy(hC, dC, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0]=%f\n", hC[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC);
    return 0;
}
