// style: Darknet gemm_nn ported to CUDA; ALPHA folded into an A_PART temp, C accumulated in place with lda/ldb/ldc leading dims
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=67 N=129 K=45 ALPHA=1.5 lda=45 ldb=129 ldc=129
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define BLOCK 16

__global__ void gemm_nn_kernel(int M, int N, int K, float ALPHA,
                               float *A, int lda,
                               float *B, int ldb,
                               float *C, int ldc)
{
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || j >= N) return;
    int k;
    for (k = 0; k < K; ++k) {
        float A_PART = ALPHA * A[i * lda + k];
        C[i * ldc + j] += A_PART * B[k * ldb + j];
    }
}

int main(void)
{
    int M = 67, N = 129, K = 45;
    float ALPHA = 1.5f;
    float *a = (float *)calloc(M * K, sizeof(float));
    float *b = (float *)calloc(K * N, sizeof(float));
    float *c = (float *)calloc(M * N, sizeof(float));
    for (int i = 0; i < M * K; ++i) a[i] = (float)rand() / RAND_MAX;
    for (int i = 0; i < K * N; ++i) b[i] = (float)rand() / RAND_MAX;

    float *a_gpu, *b_gpu, *c_gpu;
    cudaMalloc((void **)&a_gpu, M * K * sizeof(float));
    cudaMalloc((void **)&b_gpu, K * N * sizeof(float));
    cudaMalloc((void **)&c_gpu, M * N * sizeof(float));
    cudaMemcpy(a_gpu, a, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(b_gpu, b, K * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(c_gpu, c, M * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(BLOCK, BLOCK);
    dim3 grid((N + BLOCK - 1) / BLOCK, (M + BLOCK - 1) / BLOCK);
    gemm_nn_kernel<<<grid, block>>>(M, N, K, ALPHA, a_gpu, K, b_gpu, N, c_gpu, N);
    cudaMemcpy(c, c_gpu, M * N * sizeof(float), cudaMemcpyDeviceToHost);

    printf("c[0]=%f c[last]=%f\n", c[0], c[M * N - 1]);
    cudaFree(a_gpu); cudaFree(b_gpu); cudaFree(c_gpu);
    free(a); free(b); free(c);
    return 0;
}
