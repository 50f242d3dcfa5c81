// style: PolyBench/Rodinia-like jacobi-2d with problem size baked in via #define N/M and an IDX macro; no size parameters at all
// launch: grid 3, 17 block 32, 8
// sizes:
// expect: stencil-tile|stencil-window|stencil-march
#include <stdio.h>
#include <cuda_runtime.h>

#define N 131      /* rows */
#define M 67       /* cols */
#define TSTEPS 20
#define IDX(i, j) ((i) * M + (j))

__global__ void jacobi_sweep(float *A, float *B)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;

    if ((i >= 1) && (i < (N - 1)) && (j >= 1) && (j < (M - 1)))
    {
        B[IDX(i, j)] = 0.2f * (A[IDX(i, j)] + A[IDX(i, j - 1)] + A[IDX(i, j + 1)]
                             + A[IDX(i + 1, j)] + A[IDX(i - 1, j)]);
    }
}

int main()
{
    static float h_A[N * M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            h_A[IDX(i, j)] = ((float)i * (j + 2) + 2) / N;

    float *A_gpu, *B_gpu;
    cudaMalloc((void **)&A_gpu, sizeof(float) * N * M);
    cudaMalloc((void **)&B_gpu, sizeof(float) * N * M);
    cudaMemcpy(A_gpu, h_A, sizeof(float) * N * M, cudaMemcpyHostToDevice);
    cudaMemcpy(B_gpu, h_A, sizeof(float) * N * M, cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((M + 31) / 32, (N + 7) / 8);
    for (int t = 0; t < TSTEPS; t++) {
        jacobi_sweep<<<grid, block>>>(A_gpu, B_gpu);
        float *tmp = A_gpu; A_gpu = B_gpu; B_gpu = tmp;
    }
    cudaMemcpy(h_A, A_gpu, sizeof(float) * N * M, cudaMemcpyDeviceToHost);
    printf("A[N/2][M/2] = %f\n", h_A[IDX(N / 2, M / 2)]);
    cudaFree(A_gpu);
    cudaFree(B_gpu);
    return 0;
}
