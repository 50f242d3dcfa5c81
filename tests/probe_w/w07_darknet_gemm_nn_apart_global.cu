// style: Darknet gemm_nn ported to a kernel: darknet's 1-D index (blockIdx.x + blockIdx.y*gridDim.x)*blockDim.x + threadIdx.x from cuda_gridsize with BLOCK 512, ALPHA/lda/ldb/ldc spelling, `register float A_PART = ALPHA*A[i*lda+k]` and C[i*ldc+j] += A_PART*B[k*ldb+j] accumulated in global memory every k step after a separate BETA scaling kernel
// kernel: gemm_nn_kernel
// launch: grid cdiv(M*N, 512) block 512
// sizes: M=45 N=83 K=59 ALPHA=1.5 lda=59 ldb=83 ldc=83
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define BLOCK 512

dim3 cuda_gridsize(size_t n){
    size_t k = (n-1) / BLOCK + 1;
    size_t x = k;
    size_t y = 1;
    if(x > 65535){
        x = ceil(sqrt(k));
        y = (n-1)/(x*BLOCK) + 1;
    }
    dim3 d(x, y, 1);
    return d;
}

__global__ void scale_beta_kernel(int M, int N, float BETA, float *C, int ldc)
{
    int index = (blockIdx.x + blockIdx.y*gridDim.x) * blockDim.x + threadIdx.x;
    if(index >= M*N) return;
    int i = index / N;
    int j = index % N;
    C[i*ldc + j] *= BETA;
}

__global__ void gemm_nn_kernel(int M, int N, int K, float ALPHA,
        float *A, int lda,
        float *B, int ldb,
        float *C, int ldc)
{
    int index = (blockIdx.x + blockIdx.y*gridDim.x) * blockDim.x + threadIdx.x;
    if(index >= M*N) return;
    int i = index / N;
    int j = index % N;
    int k;
    for(k = 0; k < K; ++k){
        register float A_PART = ALPHA*A[i*lda+k];
        C[i*ldc+j] += A_PART*B[k*ldb+j];
    }
}

void gemm_nn_ongpu(int M, int N, int K, float ALPHA,
        float *A_gpu, int lda,
        float *B_gpu, int ldb,
        float BETA,
        float *C_gpu, int ldc)
{
    scale_beta_kernel<<<cuda_gridsize(M*N), BLOCK>>>(M, N, BETA, C_gpu, ldc);
    gemm_nn_kernel<<<cuda_gridsize(M*N), BLOCK>>>(M, N, K, ALPHA, A_gpu, lda, B_gpu, ldb, C_gpu, ldc);
}
