// style: Darknet gemm_nt on the GPU beside its gemm_cpu reference: `register float sum` accumulating ALPHA*A[i*lda+k]*B[j*ldb+k] (A times B transposed), C[i*ldc+j] *= BETA then C[i*ldc+j] += sum, 2-D 16x16 blocks; host main in darknet's test_gpu_accuracy style (random_matrix, cuda_make_array/cuda_push_array/cuda_pull_array, SSE printout)
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=45 N=53 K=77 ALPHA=1.5 lda=77 ldb=77 BETA=0.5 ldc=53
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library|matmul-coalesce
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

void check_error(cudaError_t status)
{
    if (status != cudaSuccess){
        const char *s = cudaGetErrorString(status);
        fprintf(stderr, "CUDA Error: %s\n", s);
        exit(-1);
    }
}

float *cuda_make_array(float *x, size_t n)
{
    float *x_gpu;
    size_t size = sizeof(float)*n;
    cudaError_t status = cudaMalloc((void **)&x_gpu, size);
    check_error(status);
    if(x){
        status = cudaMemcpy(x_gpu, x, size, cudaMemcpyHostToDevice);
        check_error(status);
    }
    return x_gpu;
}

void cuda_push_array(float *x_gpu, float *x, size_t n)
{
    cudaError_t status = cudaMemcpy(x_gpu, x, sizeof(float)*n, cudaMemcpyHostToDevice);
    check_error(status);
}

void cuda_pull_array(float *x_gpu, float *x, size_t n)
{
    cudaError_t status = cudaMemcpy(x, x_gpu, sizeof(float)*n, cudaMemcpyDeviceToHost);
    check_error(status);
}

float *random_matrix(int rows, int cols)
{
    int i;
    float *m = (float *)calloc(rows*cols, sizeof(float));
    for(i = 0; i < rows*cols; ++i){
        m[i] = (float)rand()/RAND_MAX;
    }
    return m;
}

__global__ void gemm_nt_kernel(int M, int N, int K, float ALPHA,
        float *A, int lda,
        float *B, int ldb,
        float BETA,
        float *C, int ldc)
{
    int j = blockIdx.x*blockDim.x + threadIdx.x;
    int i = blockIdx.y*blockDim.y + threadIdx.y;
    if(i >= M || j >= N) return;
    int k;
    register float sum = 0;
    for(k = 0; k < K; ++k){
        sum += ALPHA*A[i*lda+k]*B[j*ldb + k];
    }
    C[i*ldc+j] *= BETA;
    C[i*ldc+j] += sum;
}

void gemm_nt(int M, int N, int K, float ALPHA,
        float *A, int lda,
        float *B, int ldb,
        float *C, int ldc)
{
    int i,j,k;
    for(i = 0; i < M; ++i){
        for(j = 0; j < N; ++j){
            float sum = 0;
            for(k = 0; k < K; ++k){
                sum += ALPHA*A[i*lda+k]*B[j*ldb + k];
            }
            C[i*ldc+j] += sum;
        }
    }
}

void gemm_cpu(int TA, int TB, int M, int N, int K, float ALPHA,
        float *A, int lda,
        float *B, int ldb,
        float BETA,
        float *C, int ldc)
{
    int i, j;
    for(i = 0; i < M; ++i){
        for(j = 0; j < N; ++j){
            C[i*ldc + j] *= BETA;
        }
    }
    if(!TA && TB) gemm_nt(M, N, K, ALPHA, A, lda, B, ldb, C, ldc);
}

void gemm_gpu(int TA, int TB, int M, int N, int K, float ALPHA,
        float *A_gpu, int lda,
        float *B_gpu, int ldb,
        float BETA,
        float *C_gpu, int ldc)
{
    dim3 threads(16, 16);
    dim3 blocks((N + 15)/16, (M + 15)/16);
    if(!TA && TB) gemm_nt_kernel<<<blocks, threads>>>(M, N, K, ALPHA, A_gpu, lda, B_gpu, ldb, BETA, C_gpu, ldc);
    check_error(cudaPeekAtLastError());
}

void test_gpu_accuracy(int TA, int TB, int m, int k, int n)
{
    srand(0);
    float *a;
    if(!TA) a = random_matrix(m,k);
    else a = random_matrix(k,m);
    int lda = (!TA)?k:m;
    float *b;
    if(!TB) b = random_matrix(k,n);
    else b = random_matrix(n,k);
    int ldb = (!TB)?n:k;

    float *c = random_matrix(m,n);
    float *c_gpu = random_matrix(m,n);
    memcpy(c_gpu, c, m*n*sizeof(float));

    float *a_cl = cuda_make_array(a, m*k);
    float *b_cl = cuda_make_array(b, k*n);
    float *c_cl = cuda_make_array(c_gpu, m*n);
    cuda_push_array(c_cl, c_gpu, m*n);

    gemm_gpu(TA,TB,m,n,k,1.5f,a_cl,lda,b_cl,ldb,0.5f,c_cl,n);
    cuda_pull_array(c_cl, c_gpu, m*n);
    gemm_cpu(TA,TB,m,n,k,1.5f,a,lda,b,ldb,0.5f,c,n);

    double sse = 0;
    int i;
    for(i = 0; i < m*n; ++i) {
        sse += pow(c[i]-c_gpu[i], 2);
    }
    printf("Matrix Multiplication %dx%d * %dx%d, TA=%d, TB=%d: %g SSE\n",m,k,k,n,TA,TB,sse/(m*n));
    cudaFree(a_cl); cudaFree(b_cl); cudaFree(c_cl);
    free(a);
    free(b);
    free(c);
    free(c_gpu);
}

int main(int argc, char **argv)
{
    test_gpu_accuracy(0,1,45,77,53);
    test_gpu_accuracy(0,1,131,97,59);
    test_gpu_accuracy(0,1,7,193,3);
    return 0;
}
