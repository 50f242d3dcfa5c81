// style: cuBLAS-docs flavour -- IDX2C column-major macro for A (lda = M), row-major B and C, host main with cudaMalloc/cudaMemcpy
// launch: grid cdiv(N, 32), cdiv(M, 8) block 32, 8
// sizes: M=67 N=129 K=45
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define IDX2C(i, j, ld) (((j) * (ld)) + (i))

// C(MxN, row-major) = A(MxK, column-major) * B(KxN, row-major)
__global__ void gemm_cm_rm(const float *A, const float *B, float *C, int M, int N, int K)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    int j = blockIdx.x * 32 + tx;
    int i = blockIdx.y * 8 + ty;
    float r = 0.f;
    if (i < M && j < N) {
        for (int l = 0; l < K; ++l)
            r += A[IDX2C(i, l, M)] * B[l * N + j];
        C[i * N + j] = r;
    }
}

int main(void)
{
    int M = 67, N = 129, K = 45;
    float *a = (float *)malloc(M * K * sizeof(float));
    float *b = (float *)malloc(K * N * sizeof(float));
    float *c = (float *)malloc(M * N * sizeof(float));
    for (int j = 0; j < K; j++)
        for (int i = 0; i < M; i++)
            a[IDX2C(i, j, M)] = (float)(i * K + j + 1);
    for (int i = 0; i < K * N; i++) b[i] = 1.0f / (float)(i + 1);

    float *devA, *devB, *devC;
    cudaMalloc((void **)&devA, M * K * sizeof(*a));
    cudaMalloc((void **)&devB, K * N * sizeof(*b));
    cudaMalloc((void **)&devC, M * N * sizeof(*c));
    cudaMemcpy(devA, a, M * K * sizeof(*a), cudaMemcpyHostToDevice);
    cudaMemcpy(devB, b, K * N * sizeof(*b), cudaMemcpyHostToDevice);

    dim3 threads(32, 8);
    dim3 blocks((N + 31) / 32, (M + 7) / 8);
    gemm_cm_rm<<<blocks, threads>>>(devA, devB, devC, M, N, K);
    cudaMemcpy(c, devC, M * N * sizeof(*c), cudaMemcpyDeviceToHost);
    printf("%f\n", c[M * N - 1]);

    cudaFree(devA); cudaFree(devB); cudaFree(devC);
    free(a); free(b); free(c);
    return EXIT_SUCCESS;
}
