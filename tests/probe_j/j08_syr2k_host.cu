// style: PolyBench-GPU flavoured SYR2K (C = beta*C + alpha*A*B^T + alpha*B*A^T, one sum), threadIdx.x on column, with host main
// launch: grid cdiv(N, 32), cdiv(N, 8) block 32, 8
// sizes: N=141 M=223 alpha=1.25 beta=0.75
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define DIM_THREAD_BLOCK_X 32
#define DIM_THREAD_BLOCK_Y 8

typedef float DATA_TYPE;

__global__ void syr2k_kernel(int N, int M, DATA_TYPE alpha, DATA_TYPE beta,
                             DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if ((i < N) && (j < N)) {
        DATA_TYPE s = 0;
        int k;
        for (k = 0; k < M; k++) {
            s += a[i * M + k] * b[j * M + k] + b[i * M + k] * a[j * M + k];
        }
        c[i * N + j] = beta * c[i * N + j] + alpha * s;
    }
}

void init_arrays(int N, int M, DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *C)
{
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) C[i * N + j] = ((DATA_TYPE)i * j + 2) / N;
        for (j = 0; j < M; j++) {
            A[i * M + j] = ((DATA_TYPE)i * j) / N;
            B[i * M + j] = ((DATA_TYPE)i * j + 1) / N;
        }
    }
}

int main(int argc, char **argv)
{
    int N = 141, M = 223;
    DATA_TYPE alpha = 1.25f, beta = 0.75f;
    DATA_TYPE *A = (DATA_TYPE *)malloc(N * M * sizeof(DATA_TYPE));
    DATA_TYPE *B = (DATA_TYPE *)malloc(N * M * sizeof(DATA_TYPE));
    DATA_TYPE *C = (DATA_TYPE *)malloc(N * N * sizeof(DATA_TYPE));
    init_arrays(N, M, A, B, C);

    DATA_TYPE *A_gpu, *B_gpu, *C_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(DATA_TYPE) * N * M);
    cudaMalloc((void **)&B_gpu, sizeof(DATA_TYPE) * N * M);
    cudaMalloc((void **)&C_gpu, sizeof(DATA_TYPE) * N * N);
    cudaMemcpy(A_gpu, A, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);
    cudaMemcpy(B_gpu, B, sizeof(DATA_TYPE) * N * M, cudaMemcpyHostToDevice);
    cudaMemcpy(C_gpu, C, sizeof(DATA_TYPE) * N * N, cudaMemcpyHostToDevice);

    dim3 block(DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y);
    dim3 grid((N + DIM_THREAD_BLOCK_X - 1) / DIM_THREAD_BLOCK_X,
              (N + DIM_THREAD_BLOCK_Y - 1) / DIM_THREAD_BLOCK_Y);
    syr2k_kernel<<<grid, block>>>(N, M, alpha, beta, A_gpu, B_gpu, C_gpu);
    cudaDeviceSynchronize();
    cudaMemcpy(C, C_gpu, sizeof(DATA_TYPE) * N * N, cudaMemcpyDeviceToHost);
    printf("C[5][7] = %f\n", C[5 * N + 7]);

    cudaFree(A_gpu); cudaFree(B_gpu); cudaFree(C_gpu);
    free(A); free(B); free(C);
    return 0;
}
