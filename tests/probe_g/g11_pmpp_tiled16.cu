// style: PMPP ch.5 tiled matrix multiply with TILE_WIDTH 16 shared-memory tiles and __syncthreads, extended with boundary checks for arbitrary M x K * K x N
// launch: grid cdiv(N, 16), cdiv(M, 16) block 16, 16
// sizes: M=187 N=141 K=223
// expect: matmul-tiles|matmul-wmma|matmul-3xtf32|matmul-library
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define TILE_WIDTH 16

__global__ void MatrixMulTiled(const float *Md, const float *Nd, float *Pd, int M, int N, int K)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x;  int by = blockIdx.y;
    int tx = threadIdx.x; int ty = threadIdx.y;

    // Identify the row and column of the Pd element to work on
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    // Loop over the Md and Nd tiles required to compute the Pd element
    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        // Collaborative loading of Md and Nd tiles into shared memory
        if (Row < M && ph * TILE_WIDTH + tx < K)
            Mds[ty][tx] = Md[Row * K + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0.0f;
        if (Col < N && ph * TILE_WIDTH + ty < K)
            Nds[ty][tx] = Nd[(ph * TILE_WIDTH + ty) * N + Col];
        else
            Nds[ty][tx] = 0.0f;
        __syncthreads();

        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < M && Col < N)
        Pd[Row * N + Col] = Pvalue;
}

int main()
{
    int M = 187, N = 141, K = 223;
    float *A = (float*)malloc(M * K * sizeof(float));
    float *B = (float*)malloc(K * N * sizeof(float));
    float *C = (float*)malloc(M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) A[i] = 1.0f;
    for (int i = 0; i < K * N; i++) B[i] = 2.0f;

    float *Md, *Nd, *Pd;
    cudaMalloc((void**)&Md, M * K * sizeof(float));
    cudaMalloc((void**)&Nd, K * N * sizeof(float));
    cudaMalloc((void**)&Pd, M * N * sizeof(float));
    cudaMemcpy(Md, A, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(Nd, B, K * N * sizeof(float), cudaMemcpyHostToDevice);

    dim3 dimGrid((N + TILE_WIDTH - 1) / TILE_WIDTH, (M + TILE_WIDTH - 1) / TILE_WIDTH);
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    MatrixMulTiled<<<dimGrid, dimBlock>>>(Md, Nd, Pd, M, N, K);
    cudaMemcpy(C, Pd, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    printf("C[0] = %f (expect %f)\n", C[0], 2.0f * K);

    cudaFree(Md); cudaFree(Nd); cudaFree(Pd);
    free(A); free(B); free(C);
    return 0;
}
