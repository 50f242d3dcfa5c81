// style: student "matrix chain" exercise, two naive kernels T = A*B then D = T*C, host code runs both
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=187 K=223 N=141 P=97
// kernel: matmul_AB
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define TPB 16

// T[M x N] = A[M x K] * B[K x N]
__global__ void matmul_AB(const float *A, const float *B, float *T, int M, int K, int N)
{
    int c = blockIdx.x * TPB + threadIdx.x;
    int r = blockIdx.y * TPB + threadIdx.y;
    if (r < M && c < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[r * K + k] * B[k * N + c];
        T[r * N + c] = acc;
    }
}

// D[M x P] = T[M x N] * C[N x P]
__global__ void matmul_TC(const float *T, const float *C, float *D, int M, int N, int P)
{
    int c = blockIdx.x * TPB + threadIdx.x;
    int r = blockIdx.y * TPB + threadIdx.y;
    if (r < M && c < P) {
        float acc = 0.0f;
        for (int n = 0; n < N; ++n)
            acc += T[r * N + n] * C[n * P + c];
        D[r * P + c] = acc;
    }
}

static void fill(float *p, int n) { for (int i = 0; i < n; i++) p[i] = (float)(i % 13) * 0.1f; }

int main(void)
{
    int M = 187, K = 223, N = 141, P = 97;
    float *hA = (float *)malloc(M * K * sizeof(float));
    float *hB = (float *)malloc(K * N * sizeof(float));
    float *hC = (float *)malloc(N * P * sizeof(float));
    float *hD = (float *)malloc(M * P * sizeof(float));
    fill(hA, M * K); fill(hB, K * N); fill(hC, N * P);

    float *dA, *dB, *dC, *dT, *dD;
    cudaMalloc((void **)&dA, M * K * sizeof(float));
    cudaMalloc((void **)&dB, K * N * sizeof(float));
    cudaMalloc((void **)&dC, N * P * sizeof(float));
    cudaMalloc((void **)&dT, M * N * sizeof(float));
    cudaMalloc((void **)&dD, M * P * sizeof(float));
    cudaMemcpy(dA, hA, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC, hC, N * P * sizeof(float), cudaMemcpyHostToDevice);

    dim3 blk(TPB, TPB);
    dim3 g1((N + TPB - 1) / TPB, (M + TPB - 1) / TPB);
    matmul_AB<<<g1, blk>>>(dA, dB, dT, M, K, N);
    dim3 g2((P + TPB - 1) / TPB, (M + TPB - 1) / TPB);
    matmul_TC<<<g2, blk>>>(dT, dC, dD, M, N, P);
    cudaMemcpy(hD, dD, M * P * sizeof(float), cudaMemcpyDeviceToHost);
    printf("D[0][0] = %f\n", hD[0]);

    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dT); cudaFree(dD);
    free(hA); free(hB); free(hC); free(hD);
    return 0;
}
